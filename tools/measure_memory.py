"""Measure what one learner costs a JupyterHub: kernel memory per lesson, explorer CPU.

For the instructor's guide ("Handing the series to a class on a JupyterHub"):

* **memory**: every lesson notebook (``notebooks/NN_*.ipynb``) is executed
  from top to bottom in a fresh ``python3`` kernel (nbclient, as
  ``tools/execute.py`` does; nothing is written back), and the kernel
  process's peak resident memory (``VmHWM`` in ``/proc/<pid>/status``, Linux
  only) and its resident memory at the end (``VmRSS``) are read after the
  last cell, before the kernel is shut down, with the kernel's CPU time
  for the whole run (``/proc/<pid>/stat``, its start and imports included).
  A kernel that ran only the setup cell gives the baseline, and a
  JupyterLab server started with no kernel gives the server's share;
* **CPU**: the CPU time (``time.process_time``) that one explorer update
  costs, for every explorer of ``helpers.widgets.EXPLORERS``, timed with the
  machinery of ``tests/benchmarks/bench_widgets.py`` (a new sentence typed,
  or the explorer's first input changed; lesson 10: a new 16-word-piece
  sentence through the real model; lesson 11: one more character of a
  32-token prompt; lesson 12: the tiling step), and the share of a core that
  a kernel uses while a learner drags lesson 04's temperature slider (widget
  messages sent to a real kernel at 60 per second, as a browser sends them,
  kernel CPU time read from ``/proc/<pid>/stat``).

Run from the repository root, with the test copy of lesson 10's model::

    nice -n 19 env OPENBLAS_NUM_THREADS=1 HF_HUB_OFFLINE=1 \\
        HF_HUB_CACHE=~/.cache/attention-notebooks/hub \\
        .venv/bin/python tools/measure_memory.py [--write-guide]

(``make test-model`` makes that cache; lesson 11 reads its GPT from
``data/gpt``.) Prints the tables as markdown;
``--write-guide`` also puts them into ``notebooks/instructor_guide.md``
between ``<!-- tools/measure_memory.py -->`` and its closing marker.

After adding or changing an explorer (or a lesson), re-measure only its
lesson and merge the figures into the guide's tables::

    ... tools/measure_memory.py --lessons 04 --write-guide

That runs lesson 04's notebook and times lesson 04's explorers (and, for
04, the dragged slider), keeps every other row of the guide as it was, and
adds a line saying which lessons were re-measured on which machine.
Memory figures barely depend on other load on the machine; CPU figures are
process CPU time, not wall time, but still grow somewhat on a busy machine
(shared caches), so they are reported as measured, with the machine.
"""

from __future__ import annotations

import argparse
import datetime
import importlib.util
import os
import platform
import re
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
GUIDE = NOTEBOOKS / "instructor_guide.md"
BENCH = ROOT / "tests" / "benchmarks" / "bench_widgets.py"

START = "<!-- tools/measure_memory.py -->"
END = "<!-- /tools/measure_memory.py -->"

BASELINE = "setup cell only (baseline)"
SERVER = "JupyterLab server, no kernel"
#: Widget messages per second while a slider is dragged (a browser sends one
#: per mouse move, about one per frame).
DRAG_RATE = 60
DRAG_SECONDS = 5.0

MEMORY_HEADER = ("| process | peak MiB | at the end MiB | CPU s |\n"
                 "| --- | ---: | ---: | ---: |")
CPU_HEADER = ("| explorer: one update | CPU ms, median | CPU ms, p95 |\n"
              "| --- | ---: | ---: |")
MACHINE_LINE = "Measured on {machine}, {when}."
REMEASURED_LINE = "{lessons} re-measured on {machine}, {when}."
DRAG_LINE = ("While a learner drags lesson 04's temperature slider ({rate} widget "
             "messages a second), their kernel uses {cores:.2f} of a core.")


@dataclass
class Figures:
    """What the guide shows: memory rows (label, peak MiB, end MiB, CPU
    seconds of the whole run or None), CPU rows (explorer, median ms, p95 ms),
    the dragging kernel's share of a core."""

    machine: str
    when: str
    memory: list[tuple[str, int, int, float | None]] = field(default_factory=list)
    cpu: list[tuple[str, float, float]] = field(default_factory=list)
    drag_cores: float | None = None
    #: lines saying which lessons were re-measured later (:func:`merge`)
    remeasured: list[str] = field(default_factory=list)

    def peak(self, label: str) -> int:
        return next(row[1] for row in self.memory if row[0] == label)

    def lesson_peaks(self) -> dict[str, int]:
        """{"00": peak MiB, ...} of the lesson rows."""
        return {row[0][:2]: row[1] for row in self.memory if row[0][:2].isdigit()}


# ---------------------------------------------------------------------------
# The markdown (written into the guide, read back by the tests)
# ---------------------------------------------------------------------------
def render(fig: Figures) -> str:
    """The guide's region, markers included."""
    lines = [START, MACHINE_LINE.format(machine=fig.machine, when=fig.when)]
    lines += fig.remeasured
    lines += ["", MEMORY_HEADER]
    lines += [f"| {name} | {peak} | {end} | "
              f"{'—' if cpu is None else format(cpu, '.1f')} |"
              for name, peak, end, cpu in fig.memory]
    if fig.cpu:
        lines += ["", CPU_HEADER]
        lines += [f"| {name} | {med:.1f} | {p95:.1f} |" for name, med, p95 in fig.cpu]
    if fig.drag_cores is not None:
        lines += ["", DRAG_LINE.format(rate=DRAG_RATE, cores=fig.drag_cores)]
    lines.append(END)
    return "\n".join(lines)


def region(text: str) -> str:
    """The one region of ``text`` between START and END (markers included)."""
    found = re.findall(re.escape(START) + r".*?" + re.escape(END), text, re.S)
    if len(found) != 1:
        raise ValueError(f"expected exactly one {START} ... {END} region, "
                         f"found {len(found)}")
    return found[0]


def parse(text: str) -> Figures:
    """The figures of a region made by :func:`render` (ValueError if malformed)."""
    body = region(text)
    m = re.search(re.escape(MACHINE_LINE).replace(r"\{machine\}", "(?P<machine>.+)")
                  .replace(r"\{when\}", r"(?P<when>[^,]+?)") + "$", body, re.M)
    if not m:
        raise ValueError("no 'Measured on ...' line")
    fig = Figures(m["machine"], m["when"])
    fig.remeasured = [line for line in body.splitlines()
                      if line.startswith("Lesson") and " re-measured on " in line]
    table = None
    for line in body.splitlines():
        if line.startswith("| process |"):
            table = fig.memory
        elif line.startswith("| explorer:"):
            table = fig.cpu
        elif line.startswith("| ---"):
            continue
        elif line.startswith("| ") and table is not None:
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if table is fig.memory and len(cells) == 4:
                cpu = None if cells[3] == "—" else float(cells[3])
                table.append((cells[0], int(cells[1]), int(cells[2]), cpu))
            elif table is fig.cpu and len(cells) == 3:
                table.append((cells[0], float(cells[1]), float(cells[2])))
            else:
                raise ValueError(f"a row with the wrong number of cells: {line!r}")
        else:
            table = None
    m = re.search(r"uses (\d+\.\d\d) of a core", body)
    fig.drag_cores = float(m[1]) if m else None
    if render(fig) != body:
        raise ValueError("the region is not in the form tools/measure_memory.py "
                         "writes: run it with --write-guide")
    return fig


def merge(old: Figures, new: Figures, lessons) -> Figures:
    """``old`` (the guide's figures) with the rows of ``lessons`` (["04"])
    taken from ``new``, a run with ``--lessons``: their memory rows, the CPU
    rows of their explorers, the dragged slider's share when 04 is among
    them. Every other row is kept; a line names the lessons re-measured.
    A ValueError when an explorer of another lesson has no row in ``old``
    (measure its lesson too)."""
    from helpers.widgets import EXPLORERS

    lessons = sorted({f"{int(n):02d}" for n in lessons})
    fig = Figures(old.machine, old.when, remeasured=[
        line for line in old.remeasured
        if not set(re.findall(r"\d\d", line.split(" re-measured")[0])) <= set(lessons)])
    fig.remeasured.append(REMEASURED_LINE.format(
        lessons=("Lesson " if len(lessons) == 1 else "Lessons ") + ", ".join(lessons),
        machine=new.machine, when=new.when))
    fresh = {row[0][:2]: row for row in new.memory if row[0][:2] in lessons}
    rows = [fresh.pop(row[0][:2], row) if row[0][:2] in lessons else row
            for row in old.memory]
    for key, row in sorted(fresh.items()):  # a new lesson: in its place
        at = next((i for i, r in enumerate(rows)
                   if r[0][:2].isdigit() and r[0][:2] > key
                   or r[0] == SERVER), len(rows))
        rows.insert(at, row)
    fig.memory = rows
    measured = {row[0]: row for row in new.cpu}
    kept = {row[0]: row for row in old.cpu}
    fig.cpu, missing = [], []
    for name in cpu_row_order(EXPLORERS):
        row = measured.get(name) or kept.get(name)
        if row is None:
            missing.append(name)
        else:
            fig.cpu.append(row)
    if missing:
        lesson_of = {row.name: f"{row.lesson:02d}" for row in EXPLORERS}
        need = sorted({lesson_of[n] for n in missing})
        raise ValueError(f"no CPU figures for {', '.join(missing)}: add "
                         f"--lessons {' '.join(need)}")
    fig.drag_cores = (new.drag_cores if "04" in lessons and new.drag_cores
                      is not None else old.drag_cores)
    return fig


def write_guide(fig: Figures, path: Path = GUIDE) -> None:
    text = path.read_text(encoding="utf-8")
    new = text.replace(region(text), render(fig))
    path.write_text(new, encoding="utf-8")


# ---------------------------------------------------------------------------
# Memory
# ---------------------------------------------------------------------------
def proc_status_mib(pid: int) -> tuple[int, int]:
    """(VmHWM, VmRSS) of process ``pid`` in MiB (Linux ``/proc``)."""
    values = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, rest = line.partition(":")
        if key in ("VmHWM", "VmRSS"):
            values[key] = int(rest.split()[0])  # kB
    return round(values["VmHWM"] / 1024), round(values["VmRSS"] / 1024)


def proc_cpu_seconds(pid: int) -> float:
    """User + system CPU time of process ``pid`` so far (``/proc/<pid>/stat``)."""
    stat = Path(f"/proc/{pid}/stat").read_text()
    fields = stat.rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def kernel_memory(nb, timeout: int = 900) -> tuple[int, int, float, float]:
    """Run every cell of ``nb`` in a fresh kernel started in notebooks/:
    (peak MiB, end MiB, kernel CPU seconds, wall seconds). Raises if a cell
    fails. The CPU seconds include the kernel's start (imports)."""
    from nbclient import NotebookClient

    client = NotebookClient(nb, timeout=timeout, kernel_name="python3",
                            resources={"metadata": {"path": str(NOTEBOOKS)}},
                            record_timing=False, store_widget_state=False)
    t0 = time.perf_counter()
    with client.setup_kernel():
        for index, cell in enumerate(nb.cells):
            client.execute_cell(cell, index)
        pid = client.km.provisioner.pid
        peak, end = proc_status_mib(pid)
        cpu = proc_cpu_seconds(pid)
    return peak, end, cpu, time.perf_counter() - t0


def lesson_paths() -> list[Path]:
    return sorted(p for p in NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))


def lesson_label(path: Path, nb) -> str:
    """"04 The attention pattern": the number and the notebook's own title."""
    title = next((line[2:].strip() for cell in nb.cells if cell.cell_type == "markdown"
                  for line in cell.source.splitlines() if line.startswith("# ")),
                 path.stem[3:].replace("_", " "))
    title = re.sub(r"^(Lesson\s+)?\d+\s*[·:.-]\s*", "", title).replace("|", "/")
    return f"{path.stem[:2]} {title}"


def model_in_cache() -> bool:
    cache = os.environ.get("HF_HUB_CACHE")
    if not cache:
        return False
    folder = (Path(cache).expanduser()
              / "models--sentence-transformers--all-MiniLM-L6-v2" / "snapshots")
    return any(folder.glob("*/model.safetensors"))


def measure_lessons(only=None, log=print, failed=None,
                    baseline=True) -> list[tuple]:
    """Memory rows: the baseline (unless ``baseline`` is False), then every
    lesson, or those of ``only`` (those that fail are appended to ``failed``
    and left out)."""
    import nbformat

    failed = [] if failed is None else failed

    rows = []
    if baseline:
        first = nbformat.read(str(lesson_paths()[1]), as_version=4)
        setup = [c for c in first.cells if "setup" in c.metadata.get("tags", [])]
        peak, end, cpu, secs = kernel_memory(nbformat.v4.new_notebook(
            cells=setup[:1]))
        log(f"{BASELINE}: peak {peak} MiB, end {end} MiB, CPU {cpu:.1f} s "
            f"({secs:.0f} s)")
        rows.append((BASELINE, peak, end, round(cpu, 1)))
    for path in lesson_paths():
        if only and path.name[:2] not in only:
            continue
        if path.name.startswith("10_") and not model_in_cache():
            log("warning: lesson 10's model is not in HF_HUB_CACHE; its kernel "
                "will download it (or fail offline)")
        nb = nbformat.read(str(path), as_version=4)
        label = lesson_label(path, nb)
        try:
            peak, end, cpu, secs = kernel_memory(nb)
        except Exception as err:  # keep going: report every lesson that fails
            log(f"FAILED {label}: {getattr(err, 'ename', type(err).__name__)}")
            failed.append(label)
            continue
        log(f"{label}: peak {peak} MiB, end {end} MiB, CPU {cpu:.1f} s ({secs:.0f} s)")
        rows.append((label, peak, end, round(cpu, 1)))
    return rows


def server_memory(wait: float = 60.0) -> tuple[int, int]:
    """(peak MiB, end MiB) of a JupyterLab server, started and left idle 5 s."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    jupyter = Path(sys.executable).with_name("jupyter")
    cmd = [str(jupyter), "lab", "--no-browser", f"--port={port}", "--ip=127.0.0.1",
           "--ServerApp.token=measure", "--allow-root", f"--notebook-dir={ROOT}"]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            text=True)
    try:
        from urllib.request import urlopen
        end = time.time() + wait
        while True:
            try:
                urlopen(f"http://127.0.0.1:{port}/api/status?token=measure", timeout=2)
                break
            except OSError:
                if proc.poll() is not None or time.time() > end:
                    raise RuntimeError("JupyterLab did not start") from None
                time.sleep(0.5)
        urlopen(f"http://127.0.0.1:{port}/lab?token=measure", timeout=10).read()
        time.sleep(5)
        return proc_status_mib(proc.pid)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()


# ---------------------------------------------------------------------------
# CPU
# ---------------------------------------------------------------------------
def _bench():
    """tests/benchmarks/bench_widgets.py as a module (it is not a package)."""
    spec = importlib.util.spec_from_file_location("bench_widgets", BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _cpu_of(bench, ex, attr, values):
    """Median and 95th percentile CPU ms of setting ``ex.<attr>`` to each value."""
    import numpy as np

    start = len(bench.CPU)
    bench._time_updates(ex, attr, values)
    cpu = np.array(bench.CPU[start:])
    return float(np.median(cpu)), float(np.percentile(cpu, 95))


#: Lessons whose explorers are timed their own way (bench_widgets.OWN_TABLE).
OWN_LESSONS = (10, 11, 12)


def _own_name(lesson: int) -> str:
    """The name of the explorer of ``lesson`` (its row of ``EXPLORERS``)."""
    from helpers.widgets import EXPLORERS

    return next(row.name for row in EXPLORERS if row.lesson == lesson)


def cpu_row_order(explorers) -> list[str]:
    """The explorer names of the CPU table, in its order, for the rows of
    ``helpers.widgets.EXPLORERS``: every explorer of lessons without their own
    timing, then those of lessons 10, 11 and 12 (an explorer added there is
    missing from the table until :func:`explorer_cpu` times it)."""
    return ([row.name for row in explorers if row.lesson not in OWN_LESSONS]
            + [row.name for row in explorers if row.lesson in OWN_LESSONS])


def explorer_cpu(n: int = 20, log=print,
                 lessons=None) -> list[tuple[str, float, float]]:
    """(explorer, median CPU ms, p95 CPU ms) of one update, every explorer
    (or those of ``lessons``, e.g. ["04"])."""
    bench = _bench()
    wanted = None if not lessons else {int(x) for x in lessons}
    W = bench.W
    assert set(bench.OWN_TABLE) == set(OWN_LESSONS), "bench_widgets.OWN_TABLE changed"
    rows = []
    def toggled(name, factory, attr, a, b):
        """Set ``attr`` to ``b`` and ``a`` alternately, ``n`` times."""
        ex = factory()
        getattr(ex, attr).value = b  # warm up: the first draws fill caches
        getattr(ex, attr).value = a
        rows.append((name, *_cpu_of(bench, ex, attr,
                                    [b if i % 2 == 0 else a for i in range(n)])))
        ex.close()

    def typed(lesson, shared_model, texts_of, attr, **settings):
        """Type ``n`` different texts into a real model's explorer."""
        model, why = shared_model()
        if model is None:
            log(f"{_own_name(lesson)}: skipped ({why})")
            return
        texts = texts_of(model, n + 2)
        ex = getattr(W, _own_name(lesson))(texts[0], **settings)
        getattr(ex, attr).value = texts[1]
        rows.append((_own_name(lesson), *_cpu_of(bench, ex, attr, texts[2:])))
        ex.close()

    lesson_of = {row.name: row.lesson for row in W.EXPLORERS}
    for row in bench._explorers(None if wanted is None else
                                [n for n, k in lesson_of.items() if k in wanted]):
        toggled(*row)
    from helpers.widgets import lesson10, lesson11

    if wanted is None or 10 in wanted:
        typed(10, lesson10._shared_model, bench._real_sentences, "sentence",
              layer=2, head=3)
    if wanted is None or 11 in wanted:
        typed(11, lesson11._shared_model, bench._gpt_prompts, "prompt", layer=1,
              head=2)
    if wanted is None or 12 in wanted:
        toggled(_own_name(12), *bench._scale_settings()[0][1:])
    for row in rows:
        log(f"{row[0]}: CPU median {row[1]:.1f} ms, p95 {row[2]:.1f} ms")
    return rows


DRAG_SETUP = """
import sys
sys.path.insert(0, {root!r})
from helpers import widgets as W
ex = W.pattern_explorer({sentence!r})
ex.flush()
print(ex.temperature.model_id, ex.picture.model_id)
"""


def drag_cores(rate: int = DRAG_RATE, seconds: float = DRAG_SECONDS) -> float:
    """Share of a core a kernel uses while lesson 04's temperature slider is
    dragged: ``rate`` widget messages a second for ``seconds``, then the
    kernel's CPU time over the wall time until its last picture."""
    from jupyter_client.manager import start_new_kernel

    bench = _bench()
    km, kc = start_new_kernel(kernel_name="python3")
    try:
        msg_id = kc.execute(DRAG_SETUP.format(root=str(ROOT), sentence=bench.S1))
        ids = None
        while ids is None:
            m = kc.get_iopub_msg(timeout=120)
            if m["msg_type"] == "error":
                raise RuntimeError("\n".join(m["content"]["traceback"]))
            if m["parent_header"].get("msg_id") == msg_id and m["msg_type"] == "stream":
                ids = m["content"]["text"].split()
        slider, picture = ids

        def drain(until):
            """Read iopub until ``until`` (perf_counter); count pictures."""
            got = 0
            while (left := until - time.perf_counter()) > 0:
                try:
                    m = kc.get_iopub_msg(timeout=left)
                except Exception:
                    break
                c = m["content"]
                if (m["msg_type"] == "comm_msg" and c.get("comm_id") == picture
                        and ["value"] in c["data"].get("buffer_paths", [])):
                    got += 1
            return got

        drain(time.perf_counter() + 1.0)
        pid = km.provisioner.pid
        cpu0, t0 = proc_cpu_seconds(pid), time.perf_counter()
        steps = int(rate * seconds)
        for i in range(steps):
            value = 0.3 + 2.5 * (i % 40) / 40  # back and forth along the slider
            content = {"comm_id": slider, "data": {
                "method": "update", "state": {"value": value}, "buffer_paths": []}}
            kc.shell_channel.send(kc.session.msg("comm_msg", content))
            drain(t0 + (i + 1) / rate)
        drain(time.perf_counter() + 0.5)  # the last picture
        return (proc_cpu_seconds(pid) - cpu0) / (time.perf_counter() - t0)
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)


# ---------------------------------------------------------------------------
def machine() -> str:
    """CPU model and count, OS, Python, numpy, matplotlib, BLAS threads."""
    import matplotlib
    import numpy

    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    threads = os.environ.get("OPENBLAS_NUM_THREADS", "unset")
    return (f"{cpu} ({os.cpu_count()} cores), {platform.system()}, Python "
            f"{platform.python_version()}, numpy {numpy.__version__}, matplotlib "
            f"{matplotlib.__version__}, OPENBLAS_NUM_THREADS={threads}")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lessons", nargs="*", metavar="NN",
                        help="only these lessons (e.g. 04 10); default: all")
    parser.add_argument("--n", type=int, default=20, help="updates per explorer")
    parser.add_argument("--no-cpu", dest="cpu", action="store_false",
                        help="skip the explorer CPU figures")
    parser.add_argument("--no-server", dest="server", action="store_false",
                        help="skip the JupyterLab server")
    parser.add_argument("--write-guide", action="store_true",
                        help=f"write the tables into {GUIDE.relative_to(ROOT)}")
    args = parser.parse_args(argv)
    if not Path("/proc/self/status").exists():
        sys.exit("measure_memory.py reads /proc/<pid>/status: it needs Linux")
    merging = bool(args.write_guide and args.lessons)
    if merging:  # only these lessons; the guide keeps every other row
        args.lessons = [f"{int(n):02d}" for n in args.lessons]
        args.server = False
        old = parse(GUIDE.read_text(encoding="utf-8"))
    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("MPLBACKEND", "Agg")

    def log(msg):
        print(msg, file=sys.stderr, flush=True)

    fig = Figures(machine(), datetime.date.today().isoformat())
    failed = []
    fig.memory = measure_lessons(args.lessons, log=log, failed=failed,
                                 baseline=not merging)
    if args.server:
        peak, end = server_memory()
        log(f"{SERVER}: peak {peak} MiB, end {end} MiB")
        fig.memory.append((SERVER, peak, end, None))
    if args.cpu:
        fig.cpu = explorer_cpu(args.n, log=log, lessons=args.lessons)
        if not args.lessons or "04" in args.lessons:  # lesson 04's slider
            fig.drag_cores = drag_cores()
            log(f"dragging: {fig.drag_cores:.2f} of a core")
    if merging and not failed:
        fig = merge(old, fig, args.lessons)
    text = render(fig)
    print(text)
    if failed:
        log(f"not measured (a cell failed): {', '.join(failed)}")
        return 1
    if args.write_guide:
        write_guide(fig)
        log(f"wrote {GUIDE.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
