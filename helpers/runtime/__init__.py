"""The runtime, the lowest layer: how the helpers run on the machine they
are given, whatever it is (``timing``: lesson 12's best-of-several timing on
one BLAS thread). Imports nothing else of ``helpers``."""
