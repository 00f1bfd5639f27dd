"""Tests of helpers.figures.plots (made in helpers/figures/): what the figures show,
not how they look."""

from __future__ import annotations

import warnings
from pathlib import Path

import matplotlib
import matplotlib.pyplot as plt
import numpy as np
import pytest
from matplotlib.collections import PatchCollection
from matplotlib.figure import Figure
from matplotlib.image import AxesImage
from matplotlib.text import Text

from helpers.figures import plots
from helpers.figures import diagrams
from helpers.attention import causal_mask, softmax

TOKENS = ["a", "fluffy", "blue", "creature"]
UNIFORM_MAPS = {"viridis", "cividis", "magma", "inferno", "plasma", "viridis_r"}
DIVERGING_MAPS = {"RdBu_r"}  # signed values only, with limits symmetric about 0


@pytest.fixture
def A():
    rng = np.random.default_rng(3)
    return softmax(rng.standard_normal((4, 4)) * 2)


@pytest.fixture(autouse=True)
def no_warnings_no_leaks():
    """Plotting warns about nothing and leaves no pyplot figure open."""
    before = plt.get_fignums()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        # Old matplotlib with new pyparsing deprecates things inside matplotlib:
        # not about our figures.
        warnings.simplefilter("ignore", DeprecationWarning)
        yield
    assert plt.get_fignums() == before


def texts(fig) -> list[str]:
    return [t.get_text() for t in fig.findobj(Text) if t.get_text()]


def images(fig) -> list[AxesImage]:
    return [im for ax in fig.axes for im in ax.get_images()]


def colorbar_axes(fig):
    return [ax for ax in fig.axes if hasattr(ax, "_colorbar")]


def tick_texts(labels) -> list[str]:
    return [t.get_text() for t in labels]


def all_figures(A):
    """One call of every plotting function."""
    mask = causal_mask(4)
    return {
        "heatmap": plots.heatmap(A, TOKENS, TOKENS, title="T"),
        "video": plots.heatmap(A, TOKENS, TOKENS, title="T", convention="video"),
        "both_conventions": plots.both_conventions(A, TOKENS),
        "head_grid": plots.head_grid(np.stack([A, A.T]), TOKENS, suptitle="T"),
        "vector_view": plots.vector_view(A[0], TOKENS, title="T"),
        "strip": plots.vector_view(A, TOKENS, labels=TOKENS, title="T"),
        "mask_view": plots.mask_view(A * mask, mask, TOKENS, title="T"),
        "bar_view": plots.bar_view(A[0], TOKENS, title="T"),
        "loglog_cost": plots.loglog_cost([8, 16, 32], [1e-4, 4e-4, 1.6e-3], [1, 4, 16]),
        "pipeline": diagrams.pipeline_diagram(highlight="S", n=4, d_model=8, d_k=2,
                                              d_v=3),
    }


# ------------------------------------------------------------ every figure ---


def test_every_function_returns_a_figure_without_pyplot(A):
    before = plt.get_fignums()
    for name, fig in all_figures(A).items():
        assert isinstance(fig, Figure), name
        assert fig.get_axes(), name
        assert plt.get_fignums() == before, name  # nothing registered with pyplot
        assert fig.canvas.manager is None, name


def test_every_figure_saves_as_png_and_svg(A, tmp_path: Path):
    for name, fig in all_figures(A).items():
        png, svg = tmp_path / f"{name}.png", tmp_path / f"{name}.svg"
        fig.savefig(png)
        fig.savefig(svg)
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", name
        text = svg.read_text(encoding="utf-8")
        assert "<svg" in text and "</svg>" in text, name


def test_every_figure_has_titles_and_colour_bars(A):
    for name, fig in all_figures(A).items():
        title = plots._figure_title(fig)
        assert title, name
        if name in ("loglog_cost", "pipeline"):
            continue  # lines or boxes, no colour scale to explain
        bars = colorbar_axes(fig)
        assert len(bars) == 1, name
        assert bars[0].get_ylabel(), name
        for im in images(fig):
            cmap = im.get_cmap().name.split("_with")[0]
            if cmap in DIVERGING_MAPS:
                assert im.norm.vmin == -im.norm.vmax < 0, name
            else:
                assert cmap in UNIFORM_MAPS, name


def test_figures_show_as_png_not_figure_size_text(A):
    fig = plots.heatmap(A, TOKENS, TOKENS, title="Adjective head")
    assert fig._repr_png_()[:8] == b"\x89PNG\r\n\x1a\n"
    assert repr(fig) == "<figure: Adjective head>"
    assert "Figure size" not in repr(fig)


# ----------------------------------------------------------------- heatmap ---


def test_heatmap_labels_ticks_and_colour_bar(A):
    fig = plots.heatmap(A, TOKENS, TOKENS, title="Adjective head")
    ax = fig.axes[0]
    assert ax.get_title() == "Adjective head"
    assert ax.get_ylabel() == "query (attending)"
    assert ax.get_xlabel() == "key (attended to)"
    assert tick_texts(ax.get_xticklabels()) == TOKENS
    assert tick_texts(ax.get_yticklabels()) == TOKENS
    np.testing.assert_allclose(images(fig)[0].get_array(), A)
    assert colorbar_axes(fig)[0].get_ylabel() == "attention weight"
    assert images(fig)[0].get_cmap().name.startswith("viridis")


def test_heatmap_row_note_only_when_rows_sum_to_one(A):
    assert "each row sums to 1" in " ".join(texts(plots.heatmap(A, TOKENS, TOKENS)))
    fig = plots.heatmap(A * causal_mask(4), TOKENS, TOKENS)  # rows no longer sum to 1
    assert "sums to 1" not in " ".join(texts(fig))
    emb = plots.heatmap(
        np.arange(12.0).reshape(4, 3),
        TOKENS,
        ["x", "y", "z"],
        xlabel="feature",
        ylabel="token",
        colorbar_label="value",
    )
    assert "sums to 1" not in " ".join(texts(emb))
    assert emb.axes[0].get_xlabel() == "feature"
    assert colorbar_axes(emb)[0].get_ylabel() == "value"


def test_both_conventions_draws_the_pattern_and_its_transpose(A):
    fig = plots.both_conventions(A, TOKENS)
    left, right = (im.get_array() for im in images(fig))
    np.testing.assert_allclose(left, A)
    np.testing.assert_allclose(right, A.T)  # keys are rows on the right
    axes = [im.axes for im in images(fig)]
    assert axes[0].get_ylabel() == "query (attending)"
    assert axes[1].get_ylabel() == "key (attended to)"
    assert "each row sums to 1" in axes[0].get_xlabel()
    assert "each column sums to 1" in axes[1].get_xlabel()
    assert "Video style" in axes[1].get_title()  # the other convention says so
    assert len(colorbar_axes(fig)) == 1  # one colour scale for both
    assert repr(fig) == "<figure: The same pattern, drawn both ways>"


def test_heatmap_video_convention_is_the_transpose():
    # Non-square (cross-attention), so rows and columns cannot be confused:
    # 2 queries, 3 keys.
    A = np.array([[0.7, 0.2, 0.1], [0.1, 0.1, 0.8]])
    queries, keys = ["q0", "q1"], ["k0", "k1", "k2"]
    fig = plots.heatmap(A, queries, keys, convention="video")
    ax = fig.axes[0]
    data = images(fig)[0].get_array()
    assert data.shape == (3, 2)
    np.testing.assert_array_equal(data, A.T)
    assert tick_texts(ax.get_yticklabels()) == keys
    assert tick_texts(ax.get_xticklabels()) == queries
    assert ax.get_ylabel() == "key (attended to)"
    assert ax.get_xlabel() == "query (attending)"
    joined = " ".join(texts(fig))
    assert "each column sums to 1" in joined
    assert "each row sums to 1" not in joined


def test_heatmap_annotations_with_contrasting_colours():
    A = np.array([[0.0, 1.0], [0.25, 0.75]])
    fig = plots.heatmap(A, ["x", "y"], ["x", "y"], annotate=True)
    cell_texts = {t.get_text(): t for t in fig.axes[0].texts}
    assert set(cell_texts) >= {"0.00", "1.00", "0.25", "0.75"}
    # viridis: 0 is dark purple -> white text; 1 is yellow -> black text
    assert matplotlib.colors.to_hex(cell_texts["0.00"].get_color()) == "#ffffff"
    assert matplotlib.colors.to_hex(cell_texts["1.00"].get_color()) == "#000000"
    assert not plots.heatmap(A, ["x", "y"], ["x", "y"]).axes[0].texts


def test_heatmap_annotations_never_show_minus_zero():
    # -1e-17 and -0.004 both round to zero: the cell must read "0.00"
    A = np.array([[-1e-17, -0.004], [-0.0, -0.006]])
    fig = plots.heatmap(A, ["x", "y"], ["x", "y"], annotate=True, cmap="viridis")
    cells = [t.get_text() for t in fig.axes[0].texts]
    assert cells == ["0.00", "0.00", "0.00", "-0.01"]


def test_many_feature_labels_are_readable():
    # 36 named features (lesson 01's embedding matrix): all written, at 8 pt
    names = [f"feature{k}" for k in range(36)]
    fig = plots.heatmap(np.eye(4, 36), TOKENS, names, xlabel="feature")
    labels = fig.axes[0].get_xticklabels()
    assert tick_texts(labels) == names
    assert all(t.get_fontsize() >= 8 for t in labels)


def test_heatmap_handles_no_tokens_and_long_lists():
    fig = plots.heatmap(np.zeros((0, 0)), [], [], title="Empty sentence")
    assert "no tokens to show" in texts(fig)
    assert fig.axes[0].get_title() == "Empty sentence"
    n = 150
    labels = [f"token_number_{i:03d}_with_a_long_name" for i in range(n)]
    fig = plots.heatmap(softmax(np.zeros((n, n))), labels, labels)
    shown = tick_texts(fig.axes[0].get_xticklabels())
    assert 0 < len(shown) <= plots.MAX_TICK_LABELS
    assert all(len(s) <= plots.MAX_LABEL_CHARS for s in shown)
    assert shown[0].endswith("…")
    assert all(t.get_rotation() == 90 for t in fig.axes[0].get_xticklabels())


def test_heatmap_bad_input_names_the_shapes(A):
    with pytest.raises(ValueError, match=r"3 row labels.*\(4, 4\)"):
        plots.heatmap(A, TOKENS[:3], TOKENS)
    with pytest.raises(ValueError, match=r"\(4,\)"):
        plots.heatmap(A[0], TOKENS, TOKENS)
    with pytest.raises(ValueError, match="convention"):
        plots.heatmap(A, TOKENS, TOKENS, convention="columns")


# --------------------------------------------------------------- head grid ---


def test_head_grid_one_shared_colour_bar(A):
    W = np.stack([A, A.T / A.T.sum(axis=1, keepdims=True), np.eye(4)])
    fig = plots.head_grid(
        W, TOKENS, titles=["adjective", "reverse", "self"], suptitle="Three heads"
    )
    ims = images(fig)
    assert len(ims) == 3
    assert len(colorbar_axes(fig)) == 1
    assert colorbar_axes(fig)[0].get_ylabel() == "attention weight"
    assert len({(im.norm.vmin, im.norm.vmax) for im in ims}) == 1  # one scale
    assert ims[0].norm.vmin == 0.0 and ims[0].norm.vmax == pytest.approx(W.max())
    for im, w in zip(ims, W):
        np.testing.assert_allclose(im.get_array(), w)
    panels = [im.axes for im in ims]
    assert [ax.get_title() for ax in panels] == ["adjective", "reverse", "self"]
    assert tick_texts(panels[0].get_yticklabels()) == TOKENS
    assert tick_texts(panels[2].get_xticklabels()) == TOKENS
    assert panels[0].get_ylabel() == "query (attending)"
    assert plots._figure_title(fig) == "Three heads"


def test_head_grid_layers_and_default_titles(A):
    fig = plots.head_grid(np.stack([[A, A], [A, A]]), TOKENS)
    ims = images(fig)
    assert len(ims) == 4 and len(colorbar_axes(fig)) == 1
    assert ims[3].axes.get_title() == "layer 1, head 1"
    with pytest.raises(ValueError, match=r"\(4, 4\)"):
        plots.head_grid(A, TOKENS)
    with pytest.raises(ValueError, match="titles"):
        plots.head_grid(np.stack([A, A]), TOKENS, titles=["only one"])
    empty = plots.head_grid(np.zeros((2, 0, 0)), [])
    assert "no tokens to show" in texts(empty)


def test_head_grid_writes_the_chosen_cells_only(A):
    W = np.stack([A, np.eye(4)])
    fig = plots.head_grid(W, TOKENS, cells=[(0, 1, 2), (1, 3, 3), (5, 0, 0), (0, 9, 9)])
    panels = [im.axes for im in images(fig)]
    first = [t.get_text() for t in panels[0].texts]
    assert first == [f"{A[1, 2]:.2f}"]
    assert [t.get_text() for t in panels[1].texts] == ["1.00"]
    # one frame (white inside black: >= 3:1 on any cell), none out of range
    frame = panels[0].patches
    assert len(frame) == 2
    assert [p.get_edgecolor()[:3] for p in frame] == [(0, 0, 0), (1, 1, 1)]
    assert frame[0].get_linewidth() > frame[1].get_linewidth()


# ------------------------------------------------------------- vector view ---


def test_vector_view_single_vector_as_bars():
    names = ["noun", "verb", "animal", "colour", "french"]
    v = np.array([1.0, 0.0, 0.8, -0.5, 0.0])
    fig = plots.vector_view(v, names, title="'creature'")
    ax = fig.axes[0]
    heights = [p.get_height() for p in ax.patches]
    np.testing.assert_allclose(heights, v)
    assert tick_texts(ax.get_xticklabels()) == names
    assert ax.get_title() == "'creature'" and ax.get_xlabel() == "feature"
    assert colorbar_axes(fig)[0].get_ylabel() == "value"


def test_vector_view_strip_over_named_features():
    names = ["noun", "verb", "animal"]
    V = np.array([[1.0, 0.0, 0.5], [0.0, 1.0, -0.5]])
    fig = plots.vector_view(V, names, labels=["E", "dE"], title="before and after")
    ax = fig.axes[0]
    np.testing.assert_allclose(images(fig)[0].get_array(), V)
    assert tick_texts(ax.get_xticklabels()) == names
    assert tick_texts(ax.get_yticklabels()) == ["E", "dE"]
    norm = images(fig)[0].norm
    assert norm.vmin == -norm.vmax  # signed values: 0 sits mid-scale
    assert images(fig)[0].get_cmap().name.startswith("RdBu_r")  # diverging
    weights = plots.vector_view(np.abs(V), names, labels=["E", "dE"])
    assert images(weights)[0].get_cmap().name.startswith("viridis")
    assert images(weights)[0].norm.vmin == 0
    with pytest.raises(ValueError, match=r"2 feature names.*\(2, 3\)"):
        plots.vector_view(V, names[:2])


# --------------------------------------------------------------- mask view ---


def test_mask_view_masked_cells_are_distinct_from_zero_weight():
    mask = causal_mask(3)
    A = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.5, 0.0, 0.5]])  # allowed zeros
    fig = plots.mask_view(A, mask, ["x", "y", "z"], title="Causal")
    ax = fig.axes[0]
    data = images(fig)[0].get_array()
    np.testing.assert_array_equal(np.ma.getmaskarray(data), ~mask)
    assert data[1, 0] == 0.0 and data[2, 1] == 0.0  # allowed weight 0 is a colour
    (hatched,) = [c for c in ax.collections if isinstance(c, PatchCollection)]
    assert len(hatched.get_paths()) == int((~mask).sum())
    assert hatched.get_hatch() == "///"
    boxes = {
        (round(p.vertices[:, 0].min() + 0.5), round(p.vertices[:, 1].min() + 0.5))
        for p in (
            path.transformed(hatched.get_transform() - ax.transData)
            for path in hatched.get_paths()
        )
    }
    assert boxes == {(1, 0), (2, 0), (2, 1)}  # (column, row) of the masked cells
    legend_texts = [t.get_text() for leg in fig.legends for t in leg.get_texts()]
    assert any("masked" in t for t in legend_texts)
    assert tick_texts(ax.get_xticklabels()) == ["x", "y", "z"]
    assert ax.get_title() == "Causal"


def test_mask_view_bad_mask():
    with pytest.raises(ValueError, match="boolean"):
        plots.mask_view(np.eye(2), np.eye(2), ["a", "b"])
    with pytest.raises(ValueError, match=r"\(3, 3\).*\(2, 2\)"):
        plots.mask_view(np.eye(2), causal_mask(3), ["a", "b"])
    assert "no tokens to show" in texts(
        plots.mask_view(np.zeros((0, 0)), np.zeros((0, 0), bool), [])
    )


# ---------------------------------------------------------------- bar view ---


def test_bar_view_values_labels_and_highlight():
    values = np.array([2.0, -1.0, 0.5])
    fig = plots.bar_view(
        values,
        ["river", "bank", "flows"],
        title="scores of 'bank'",
        ylabel="score",
        highlight="bank",
    )
    ax = fig.axes[0]
    np.testing.assert_allclose([p.get_height() for p in ax.patches], values)
    assert tick_texts(ax.get_xticklabels()) == ["river", "bank", "flows"]
    assert ax.get_ylabel() == "score" and ax.get_title() == "scores of 'bank'"
    assert ax.patches[1].get_linewidth() > ax.patches[0].get_linewidth()
    assert colorbar_axes(fig)[0].get_ylabel() == "score"
    assert "nothing to show" in texts(plots.bar_view([], [], title="none"))
    assert colorbar_axes(plots.bar_view(values, colorbar=False)) == []


def test_bar_view_many_labels_are_capped():
    fig = plots.bar_view(np.linspace(1, 0, 200), [f"w{i}" for i in range(200)])
    assert len(fig.axes[0].get_xticklabels()) <= plots.MAX_TICK_LABELS


# ---------------------------------------------------------- in a real kernel ---


def test_figure_displays_as_png_in_a_real_kernel():
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    root = Path(__file__).resolve().parents[1]
    cells = [
        f"import sys\nsys.path.insert(0, {str(root)!r})\nimport numpy as np\n"
        "from helpers.figures import plots",
        "plots.heatmap(np.eye(2), ['a', 'b'], ['a', 'b'], title='last expression')",
        "from IPython.display import display\n"
        "display(plots.bar_view([1, 2], ['a', 'b'], title='displayed'))",
        "import matplotlib.pyplot as plt\nplt.get_fignums()",
    ]
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])
    try:
        nbclient.NotebookClient(nb, kernel_name="python3", timeout=120).execute()
    except Exception as exc:  # no kernel installed: not what this test is about
        if "No such kernel" in str(exc):
            pytest.skip(str(exc))
        raise
    for cell, title in ((nb.cells[1], "last expression"), (nb.cells[2], "displayed")):
        (output,) = cell.outputs
        assert "image/png" in output["data"]
        assert output["data"]["text/plain"] == f"<figure: {title}>"
    assert nb.cells[3].outputs[0]["data"]["text/plain"] == "[]"


def test_default_colour_maps_read_in_greyscale():
    # Perceptually uniform sequential maps: luminance rises monotonically, so a
    # greyscale print keeps the order of the values.
    for cmap in (
        matplotlib.colormaps["viridis"],
        matplotlib.colormaps["cividis"],
    ):
        rgb = cmap(np.linspace(0, 1, 64))[:, :3]
        luminance = rgb @ np.array([0.2126, 0.7152, 0.0722])
        steps = np.diff(luminance)
        assert (steps > 0).all() or (steps < 0).all(), cmap.name


# ------------------------------------------------------------- cost curve ---


def test_loglog_cost_ticks_only_the_measured_sizes_as_plain_numbers():
    sizes = [256, 512, 1024, 2048, 4096]
    seconds = [1e-3 * (n / 256) ** 2 for n in sizes]
    megabytes = [4 * n * n / 2**20 for n in sizes]
    fig = plots.loglog_cost(sizes, seconds, megabytes)
    axes = [ax for ax in fig.axes if ax.get_xlabel()]
    assert len(axes) == 2
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    canvas = FigureCanvasAgg(fig)
    canvas.draw()  # tick labels are made at draw time
    renderer = canvas.get_renderer()
    for ax in axes:
        assert ax.get_xscale() == "log"
        np.testing.assert_allclose(ax.get_xticks(), sizes)
        labels = ax.get_xticklabels()
        assert tick_texts(labels) == ["256", "512", "1024", "2048", "4096"]
        assert not [t for t in ax.get_xticklabels(minor=True) if t.get_text()]
        assert len(ax.xaxis.get_minorticklocs()) == 0
        boxes = [t.get_window_extent(renderer) for t in labels]
        for left, right in zip(boxes, boxes[1:]):  # no two labels overlap
            assert left.x1 < right.x0
    # the measured points and the n² guide are still drawn
    (time_ax, _) = axes
    measured = [line for line in time_ax.get_lines() if line.get_label() == "measured"]
    np.testing.assert_allclose(measured[0].get_ydata(), np.array(seconds) * 1e3)


def test_loglog_cost_thins_many_sizes():
    sizes = 2 ** np.arange(4, 20)  # 16 sizes: at most 8 labels
    fig = plots.loglog_cost(sizes, sizes.astype(float) ** 2 * 1e-9)
    ax = fig.axes[0]
    ticks = ax.get_xticks()
    assert 0 < len(ticks) <= 8 and set(ticks) <= set(sizes.astype(float))
    assert ticks[0] == 16


# ---------------------------------------------------------- pipeline view ---


def _box_looks(fig) -> dict[str, tuple]:
    from matplotlib.patches import FancyBboxPatch

    return {
        p.get_gid()[len("pipeline-"):]: (tuple(p.get_facecolor()), p.get_linewidth())
        for p in fig.findobj(FancyBboxPatch)
        if (p.get_gid() or "").startswith("pipeline-")
    }


def test_pipeline_diagram_has_every_step_with_its_shape():
    fig = diagrams.pipeline_diagram(n=8, d_model=44, d_k=3, d_v=23)
    assert repr(fig).startswith("<figure: ") and plots._figure_title(fig)
    shown = texts(fig)
    expected = {
        "E": "n × d_model = 8 × 44", "Q": "n × d_k = 8 × 3", "K": "n × d_k = 8 × 3",
        "V": "n × d_v = 8 × 23", "S": "n × n = 8 × 8", "A": "n × n = 8 × 8",
        "AV": "n × d_v = 8 × 23", "dE": "n × d_model = 8 × 44",
        "E'": "n × d_model = 8 × 44",
    }
    assert diagrams.pipeline_shapes(8, 44, 3, 23) == expected
    for text in set(expected.values()):
        assert text in shown, text
    for formula in ("Q = E W_Q", "V = E W_V", "A = softmax(S)", "dE = A V W_up",
                    "E' = E + dE"):
        assert formula in shown, formula
    assert set(_box_looks(fig)) == set(expected)
    # sizes left out stay symbolic
    assert "n × d_v" in texts(diagrams.pipeline_diagram())
    assert "n × d_v = 8 × 23" not in texts(diagrams.pipeline_diagram())


def test_pipeline_diagram_highlight_changes_exactly_the_named_boxes():
    plain = _box_looks(diagrams.pipeline_diagram())
    assert len(set(plain.values())) == 1  # no highlight: all boxes look alike
    for chosen in (["S"], ["S", "A"], ["E'"]):
        lit = _box_looks(diagrams.pipeline_diagram(highlight=chosen))
        changed = {k for k in plain if lit[k] != plain[k]}
        assert changed == set(chosen), chosen
    assert _box_looks(diagrams.pipeline_diagram(highlight="dE")) == _box_looks(
        diagrams.pipeline_diagram(highlight=["dE"])
    )


def test_pipeline_diagram_unknown_step_names_the_choices():
    with pytest.raises(ValueError, match="choose from E, Q, K, V, S, A, AV, dE, E'"):
        diagrams.pipeline_diagram(highlight="W_V")


def test_model_heads_tiles_every_head_in_one_image():
    rng = np.random.default_rng(0)
    W = rng.random((2, 3, 4, 4))
    W /= W.sum(axis=-1, keepdims=True)
    fig = plots.model_heads(W, ["[CLS]", "a", "b", "[SEP]"], suptitle="T")
    assert len(fig.axes) == 2  # the image and the colour bar
    ax = fig.axes[0]
    # layer 1, head 2 starts at row 1 * (4 + 1), column 2 * (4 + 1)
    assert np.array_equal(fig.mosaic[5:9, 10:14], W[1, 2])
    assert np.isnan(fig.mosaic[4]).all() and np.isnan(fig.mosaic[:, 4]).all()
    assert fig.mosaic.shape == (2 * 5 - 1, 3 * 5 - 1)
    texts = [t.get_text() for t in ax.texts]
    assert texts[:3] == ["head 0", "head 1", "head 2"]
    assert "layer 1" in texts
    ylabels = [t.get_text() for t in ax.get_yticklabels()]
    assert ylabels == ["[CLS]", "a", "b", "[SEP]"] * 2
    assert len(ax.get_xticklabels()) == 3 * 4
    with pytest.raises(ValueError, match="shape"):
        plots.model_heads(W[0], ["a"] * 4)
