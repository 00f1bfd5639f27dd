"""The tiny model's weights file: ``.npz`` with fixed zip dates, so the same
weights always give the same bytes (``data/tinymodel_weights.npz``)."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import numpy as np

from helpers.models.tiny.model import array_names


DEFAULT_WEIGHTS = Path(__file__).resolve().parents[3] / "data" / (
    "tinymodel_weights.npz"
)

_FIXED_DATE = (1980, 1, 1, 0, 0, 0)


def save_params(params, path):
    """Write ``params`` to an ``.npz`` file that ``np.load`` reads.

    Unlike ``np.savez`` the zip entries get a fixed date, so the same
    weights always give the same bytes (retraining leaves git clean).
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    arrays = {k: np.asarray(params[k], dtype=np.float64) for k in array_names(params)}
    arrays["meta"] = np.array(json.dumps(params["meta"], sort_keys=True))
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for name in sorted(arrays):
            buf = io.BytesIO()
            np.lib.format.write_array(buf, arrays[name], allow_pickle=False)
            info = zipfile.ZipInfo(name + ".npy", date_time=_FIXED_DATE)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            zf.writestr(info, buf.getvalue())


def load_params(path):
    """Read a file written by :func:`save_params`."""
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(
            f"no tiny-model weights at {path}; run `python -m tools.make_tinymodel` "
            "from the repository root to create them"
        )
    with np.load(path, allow_pickle=False) as f:
        params = {k: f[k] for k in f.files if k != "meta"}
        params["meta"] = json.loads(str(f["meta"]))
    return params


def load_trained(path=None):
    """The shipped sense model (``data/tinymodel_weights.npz``)."""
    return load_params(DEFAULT_WEIGHTS if path is None else path)
