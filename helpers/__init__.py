"""Helpers for the self-attention notebooks (docstring rewritten below)."""

from helpers.notebook import setup_notebook

__version__ = "0.1.0"
__all__ = ["setup_notebook"]
