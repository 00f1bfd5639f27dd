"""Print the environment that makes this machine compute like a different CPU.

Floating-point results can differ in their last bits between machines: OpenBLAS
picks its matrix kernel by CPU (``OPENBLAS_CORETYPE`` overrides the choice), and
numpy picks SIMD loops for exp, tanh, sin... by CPU (``NPY_DISABLE_CPU_FEATURES``
switches the newer ones off). ``make test`` runs the numeric tests and nbval a
second time under this environment, so a result that only holds on the
maintainer's own CPU fails here, not on a contributor's laptop.

Usage (prints ``NAME=value`` lines, one per variable; nothing if nothing applies)::

    env $(python tools/other_cpu.py) python -m pytest ...
    python tools/other_cpu.py --explain

The kernel chosen is the one that differs most from the machine's own among
those every CPU of its family can run: on an x86-64 CPU with AVX or newer,
``Nehalem`` (SSE4 only, no FMA); on a machine that already runs an SSE kernel,
``Prescott``; on 64-bit ARM, the generic ``ARMV8`` kernel. Forcing a kernel the
CPU cannot run would crash, so nothing newer than the machine's own is chosen.
"""

from __future__ import annotations

import ctypes
import glob
import os
import platform
import sys

SSE_ONLY = {"Prescott", "Core2", "Penryn", "Dunnington", "Nehalem", "Atom",
            "Barcelona", "Opteron", "Opteron_SSE3", "Nano", "Katmai",
            "Coppermine", "Northwood", "Banias", "Athlon", "Bobcat"}


def openblas_core() -> str | None:
    """The OpenBLAS kernel numpy uses on this machine (``"Haswell"``, ...), or
    None when numpy is not linked to a dynamic-arch OpenBLAS (MKL, Accelerate)."""
    import numpy

    base = os.path.dirname(numpy.__file__)
    candidates = glob.glob(os.path.join(base, "..", "numpy.libs", "*openblas*"))
    candidates += glob.glob(os.path.join(base, ".dylibs", "*openblas*"))
    for path in candidates:
        try:
            lib = ctypes.CDLL(path)
        except OSError:
            continue
        for name in ("scipy_openblas_get_corename64_", "scipy_openblas_get_corename",
                     "openblas_get_corename64_", "openblas_get_corename"):
            fn = getattr(lib, name, None)
            if fn is not None:
                fn.restype = ctypes.c_char_p
                return fn().decode()
    return None


def other_core(own: str | None) -> str | None:
    """The kernel to force for the second run, or None if none is safe."""
    if own is None:
        return None
    machine = platform.machine().lower()
    if machine in ("x86_64", "amd64"):
        return "Prescott" if own in SSE_ONLY else "Nehalem"
    if machine in ("aarch64", "arm64"):
        return None if own.upper() == "ARMV8" else "ARMV8"
    return None


def simd_to_disable() -> list[str]:
    """numpy's run-time SIMD targets this CPU has beyond numpy's baseline; all
    of them can be switched off (baseline features cannot)."""
    try:
        from numpy._core._multiarray_umath import (  # numpy >= 2
            __cpu_dispatch__, __cpu_features__)
    except ImportError:  # numpy 1.x
        from numpy.core._multiarray_umath import (
            __cpu_dispatch__, __cpu_features__)
    return [name for name in __cpu_dispatch__ if __cpu_features__.get(name)]


def environment() -> dict[str, str]:
    """The variables for the second run."""
    env = {}
    core = other_core(openblas_core())
    if core:
        env["OPENBLAS_CORETYPE"] = core
    simd = simd_to_disable()
    if simd:
        env["NPY_DISABLE_CPU_FEATURES"] = ",".join(simd)
    return env


def main(argv: list[str]) -> int:
    env = environment()
    if "--explain" in argv:
        own = openblas_core()
        print(f"this machine: OpenBLAS kernel {own or 'none (not OpenBLAS)'}, "
              f"numpy SIMD targets {', '.join(simd_to_disable()) or 'baseline only'}")
        print("second run: " + (" ".join(f"{k}={v}" for k, v in env.items())
                                or "nothing to change on this machine"))
        return 0
    for key, value in env.items():
        print(f"{key}={value}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
