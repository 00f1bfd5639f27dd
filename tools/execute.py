"""Execute notebooks in place and normalise them, so that running twice
gives no diff (``python -m tools run``)."""

from __future__ import annotations

import copy
import sys
from pathlib import Path

from tools.common import (
    NOTEBOOKS_DIR,
    WIDGET_MIME,
    WIDGET_STATE_KEY,
    _ensure_ids,
    is_timing_cell,
    notebook_paths,
    read,
    source_of,
    write,
)


# ---------------------------------------------------------------------------
# Execution and normalisation
# ---------------------------------------------------------------------------
LANGUAGE_INFO = {
    "codemirror_mode": {"name": "ipython", "version": 3},
    "file_extension": ".py",
    "mimetype": "text/x-python",
    "name": "python",
    "nbconvert_exporter": "python",
    "pygments_lexer": "ipython3",
}


def language_info(version: str | None = None) -> dict:
    """The notebook's ``language_info`` exactly as ipykernel reports it when
    JupyterLab connects (``version``: the kernel's Python, by default this
    one's, which ``make notebooks`` uses for its kernel too). Stored whole, so
    that opening a lesson in JupyterLab changes nothing: a notebook whose
    stored metadata differs from the kernel's is marked modified at once and
    asks to be saved on closing. A kernel of another Python version still
    fills in its own version: no stored value can match every version."""
    return dict(LANGUAGE_INFO, version=version or sys.version.split()[0])


KERNELSPEC = {"display_name": "Python 3 (ipykernel)", "language": "python",
              "name": "python3"}
_VOLATILE_CELL_METADATA = ("execution", "ExecuteTime", "collapsed", "scrolled")


def _coalesce_streams(outputs: list) -> list:
    merged = []
    for out in outputs:
        prev = merged[-1] if merged else None
        if (out.get("output_type") == "stream" and prev is not None
                and prev.get("output_type") == "stream"
                and prev.get("name") == out.get("name")):
            prev["text"] = "".join(prev["text"]) + "".join(out["text"])
        else:
            merged.append(out)
    return merged


def normalise(nb) -> None:
    """Make the JSON of an executed notebook independent of the run."""
    nb.metadata.pop(WIDGET_STATE_KEY, None)
    nb.metadata["kernelspec"] = dict(KERNELSPEC)
    nb.metadata["language_info"] = language_info(
        nb.metadata.get("language_info", {}).get("version"))
    count = 0
    for cell in nb.cells:
        for key in _VOLATILE_CELL_METADATA:
            cell.metadata.pop(key, None)
        if cell.cell_type != "code":
            cell.pop("outputs", None)
            cell.pop("execution_count", None)
            continue
        outputs = _coalesce_streams(cell.get("outputs", []))
        for out in outputs:
            data = out.get("data")
            if data and WIDGET_MIME in data:
                del data[WIDGET_MIME]
                out.setdefault("metadata", {})["nbtools"] = {"widget_view": True}
        cell.outputs = [o for o in outputs
                        if o.get("output_type") not in ("display_data",
                                                        "execute_result")
                        or o.get("data")]
        if source_of(cell).strip():
            count += 1
            cell.execution_count = count
            for out in cell.outputs:
                if out.get("output_type") == "execute_result":
                    out["execution_count"] = count
        else:
            cell.execution_count = None
            cell.outputs = []
    _ensure_ids(nb)


def execute(nb, timeout: int = 600, cwd: Path = NOTEBOOKS_DIR):
    """Execute ``nb`` (in memory) with a fresh python3 kernel in ``cwd``."""
    from nbclient import NotebookClient

    client = NotebookClient(
        nb, timeout=timeout, kernel_name="python3",
        resources={"metadata": {"path": str(cwd)}},
        record_timing=False, store_widget_state=False,
    )
    client.execute()
    return nb


def _kinds(cell) -> list:
    """Each output's type and mime types: what a kept output must still have."""
    return [(o.get("output_type"), sorted(set(o.get("data", {})) - {WIDGET_MIME}))
            for o in _coalesce_streams(copy.deepcopy(cell.outputs))]


def keep_timing_outputs(old, new) -> None:
    """Give timing cells of ``new`` the stored outputs of the same cell in ``old``.

    Measured times differ on every run; refreshing them would churn git for no
    information. A timing cell (see :func:`is_timing_cell`) keeps its previous
    outputs when its source is unchanged and it had outputs already, and only
    if they have the same kinds (output types and mime types) as the new ones:
    stored outputs made before a figure gained its text/html alternative are
    replaced, never kept without it.
    """
    previous = {
        (c.get("id"), source_of(c)): c for c in old.cells
        if c.cell_type == "code" and c.get("outputs")
    }
    for cell in new.cells:
        if cell.cell_type == "code" and is_timing_cell(cell):
            before = previous.get((cell.get("id"), source_of(cell)))
            if before is not None and _kinds(before) == _kinds(cell):
                cell.outputs = copy.deepcopy(before.outputs)


def run(paths=None, timeout: int = 600,
        refresh_timings: bool = False) -> list[tuple[Path, str]]:
    """Execute notebooks in place; returns (path, error) for those that failed.

    Timing cells keep their stored outputs unless ``refresh_timings``.
    """
    failures = []
    for path in notebook_paths(paths):
        nb = read(path)
        old = copy.deepcopy(nb)
        try:
            execute(nb, timeout=timeout)
        except Exception as err:  # keep going: report every broken notebook
            reason = type(err).__name__
            if getattr(err, "ename", None):
                reason = f"{err.ename}: {err.evalue}"
            failures.append((path, reason))
            print(f"FAILED {path.name}: {reason}", file=sys.stderr)
            continue
        if not refresh_timings:
            keep_timing_outputs(old, nb)
        normalise(nb)
        write(nb, path)
        print(f"executed {path.name}")
    return failures


