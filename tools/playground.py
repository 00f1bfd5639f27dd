"""The playground's Voila command, in one place: ``make playground`` runs it,
and the browser test and the playground benchmark serve the page with it.

    python -m tools.playground [--port N]

Voila starts one kernel a page load and keeps it after the page is closed
(15 loads, all closed: 15 kernels, 2.9 GiB, none culled 22 minutes later).
The kernel manager's own culling ends a kernel that has had no connection
and no work for ``CULL_IDLE_S`` seconds, looking every ``CULL_INTERVAL_S``
seconds; a page still open keeps its kernel however long it sits idle
(``cull_connected=False``), so a class that leaves the playground open on
the projector never loses it.
"""

from __future__ import annotations

import argparse
import os
import socket
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PLAYGROUND = REPO / "notebooks" / "playground.ipynb"
#: a closed page's kernel ends this long after its last message
CULL_IDLE_S = 120
#: how often the kernel manager looks for such kernels
CULL_INTERVAL_S = 30


def voila_args(port: int, notebook: Path = PLAYGROUND, cull_idle_s: int = CULL_IDLE_S,
               cull_interval_s: int = CULL_INTERVAL_S) -> list[str]:
    """Arguments after ``python -m voila``: the page on 127.0.0.1 only, its
    template (no CDN stylesheet), no code shown, and closed pages' kernels
    culled."""
    return [str(notebook), "--no-browser", "--Voila.ip=127.0.0.1", f"--port={port}",
            "--strip_sources=True", "--theme=light", "--template=attn-playground",
            f"--MappingKernelManager.cull_idle_timeout={cull_idle_s}",
            f"--MappingKernelManager.cull_interval={cull_interval_s}",
            "--MappingKernelManager.cull_connected=False"]


def voila_env(base: dict | None = None) -> dict:
    """The environment: the template's folder on JUPYTER_PATH, and the page
    never downloads anything (lesson 10's model comes from a cache)."""
    env = dict(os.environ if base is None else base)
    env["JUPYTER_PATH"] = os.pathsep.join(
        p for p in (str(REPO / "tools"), env.get("JUPYTER_PATH", "")) if p)
    env.setdefault("HF_HUB_OFFLINE", "1")
    return env


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, default=0, help="default: a free port")
    args = parser.parse_args(argv)
    port = args.port or free_port()
    print(f"Playground: open http://127.0.0.1:{port}/ in a browser (Ctrl-C stops it)",
          flush=True)
    os.chdir(REPO)
    os.execve(sys.executable, [sys.executable, "-m", "voila", *voila_args(port)],
              voila_env())


if __name__ == "__main__":
    main()
