"""The notebook glue, the top layer: what the first cell of every lesson
calls (``helpers.setup_notebook``, defined in ``setup``)."""

from helpers.notebook.setup import setup_notebook

__all__ = ["setup_notebook"]
