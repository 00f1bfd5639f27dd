"""Reference solutions, one module per lesson (see tools/README.md)."""
