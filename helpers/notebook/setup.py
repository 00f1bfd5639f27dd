"""What the first cell of every lesson calls once ``helpers`` is importable:
numpy prints 3 decimals, figures show inline as reproducible PNGs, and a
figure's text form is its title (what a stored notebook shows without the
picture), and every figure shows as an ``<img>`` with a text alternative
read from its numbers (``helpers.figures.alt``), pyplot's included."""

from __future__ import annotations

import os
import sys

import numpy as np


def _figure_text(fig, printer, cycle):
    """``<figure: its title>`` instead of ``<Figure size 640x480 ...>``."""
    titles = [fig._suptitle] if fig._suptitle else []
    titles += [ax.title for ax in fig.axes]
    title = next((t.get_text() for t in titles if t.get_text()), "")
    printer.text(f"<figure: {title}>" if title else "<figure>")


def _figure_html(fig):
    """A pyplot figure as ``<img alt="...">``: the PNG the inline backend
    shows, with the text alternative ``helpers.figures.alt`` reads from it
    (JupyterLab's PNG renderer has none), then its grids as tables of
    numbers (``helpers.figures.numbers``). Cropped like the inline PNG."""
    import base64
    import io

    from helpers.figures import alt, numbers

    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", bbox_inches="tight",
                metadata={"Software": None})
    png = base64.b64encode(buffer.getvalue()).decode("ascii")
    return alt.img_html(png, alt.text_of(fig)) + numbers.html(fig)


def setup_notebook(colab_home: str | None = None) -> None:
    """Configure printing and plotting for a lesson; in Colab, also move to
    ``colab_home/notebooks`` (where the lesson's relative paths point).
    The kernel keeps one BLAS thread: the lessons' matrices are small, and on
    a shared machine more threads made lesson 13 several times slower.
    Silent, and safe to call again."""
    if colab_home and "google.colab" in sys.modules:
        os.chdir(os.path.join(colab_home, "notebooks"))
    from helpers.runtime.timing import blas_threads

    blas_threads().hold()
    np.set_printoptions(precision=3, suppress=True)
    try:
        from IPython import get_ipython
    except ImportError:  # plain Python: nothing more to configure
        return
    shell = get_ipython()
    if shell is None or not hasattr(shell, "display_formatter"):
        return
    try:
        shell.run_line_magic("matplotlib", "inline")
    except NotImplementedError:
        # A bare IPython InteractiveShell (made by a test or an embedding
        # program) cannot switch backends; the formats below still apply.
        pass
    from matplotlib.figure import Figure
    from matplotlib_inline.backend_inline import set_matplotlib_formats

    # No "Software" entry in the PNGs: the stored images stay byte-identical.
    set_matplotlib_formats("png", metadata={"Software": None})
    shell.display_formatter.formatters["text/plain"].for_type(Figure, _figure_text)
    shell.display_formatter.formatters["text/html"].for_type(Figure, _figure_html)
    # helpers' own figures draw themselves (AttentionFigure._repr_png_), not
    # through the inline backend's printer, which would crop and draw twice.
    from helpers.figures.common import AttentionFigure

    shell.display_formatter.formatters["image/png"].for_type(
        AttentionFigure, AttentionFigure._repr_png_
    )
