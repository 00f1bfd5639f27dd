"""The playground (notebooks/playground.ipynb): an app notebook with every
explorer in tabs, stored without outputs, outside the lesson list. Its
code runs here without a browser; tests/browser/test_playground.py drives
it in Voila."""

from __future__ import annotations

import copy
import os

import ipywidgets
import pytest

from helpers.figures import style
from helpers import widgets as W
from tools import common, form, nav

PLAYGROUND = common.NOTEBOOKS_DIR / "playground.ipynb"


@pytest.fixture(scope="module")
def playground():
    """The namespace after running the playground's code cells."""
    nb = common.read(PLAYGROUND)
    ns = {}
    here = os.getcwd()
    os.chdir(common.NOTEBOOKS_DIR)
    try:
        for cell in nb.cells:
            if cell.cell_type == "code":
                exec(common.source_of(cell), ns)
        ns["sizes while shown"] = style.current()
        menu = ns["playground"]
        # pages are made when first shown: only the first one is made now
        ns["made at first"] = [isinstance(p, ipywidgets.Widget) for p in menu.pages]
        for i in range(len(menu.pages)):
            menu.page_at(i)
        ns["dpi while shown"] = {page.children[1].figure.dpi for page in menu.pages}
    finally:
        os.chdir(here)
        style.projector(False)
    yield ns
    ns["playground"].close()
    W.base.in_app(False)  # the playground's wording ends with its module


def test_playground_is_an_app_outside_the_lessons():
    assert PLAYGROUND.name in common.APPS
    assert PLAYGROUND not in common.notebook_paths()
    assert common.app_paths() == [PLAYGROUND]
    names, titles = nav._series()
    assert PLAYGROUND.name not in names
    assert "playground" not in nav.lesson_list_cell(names, titles)
    assert form.app_problems(PLAYGROUND) == []


def test_an_app_with_stored_outputs_is_reported_and_sync_clears_them(tmp_path):
    nb = common.read(PLAYGROUND)
    run = copy.deepcopy(nb)
    code = next(c for c in run.cells if c.cell_type == "code" and c.source)
    code.execution_count = 1
    path = tmp_path / "playground.ipynb"
    common.write(run, path)
    assert any("stored outputs" in p for p in form.app_problems(path))
    assert nav.sync_app(path)
    assert form.app_problems(path) == []


def test_every_explorer_has_a_tab_with_a_one_line_instruction(playground):
    tabs = playground["TABS"]
    # the tabs are the one table of explorers, row by row, in its order
    assert [(t, make.__name__, hint) for t, make, hint in tabs] == [
        (row.tab, row.name, row.instruction) for row in W.EXPLORERS]
    assert len(tabs) == len(W.EXPLORERS) >= 14
    assert {make.__name__ for _, make, _ in tabs} <= set(W.__all__)
    for title, _, hint in tabs:
        assert hint and "\n" not in hint and len(hint) <= 90, title
    menu = playground["playground"]
    assert isinstance(menu, W.PageMenu) and len(menu.pages) == len(tabs)
    assert [label for label, _ in menu.menu.options] == [t for t, _, _ in tabs]
    for page, (_, _, hint) in zip(menu.pages, tabs):
        label, explorer = page.children
        assert label.value == hint
        assert explorer.draw_count >= 1 and explorer.last_error is None
        # no note in the default state, except from an explorer that narrates
        assert explorer.message == "" or getattr(explorer, "narrates", False)


def test_the_first_page_is_made_first_and_the_others_when_shown(playground):
    made = playground["made at first"]
    assert made[0] and not any(made[1:]), made


def test_a_missing_model_is_explained_for_a_page_without_code(monkeypatch):
    base = W.base
    monkeypatch.setattr(W.output, "_IN_APP", [True])

    def missing():
        raise RuntimeError("run load() once with an internet connection")

    model, why = base.load_or_explain(missing, "The real model", "tokenizers")
    assert model is None and "load()" not in why and "cell" in why
    assert "reload this page" in why and len(why) < 220
    model, why = base.load_or_explain(lambda: __import__("no_such_pkg_x"),
                                      "The real model", "tokenizers")
    assert "reload this page" in why and "no_such_pkg_x" in why


def test_the_menu_makes_a_page_given_as_a_function_when_shown():
    made = []

    def make(i):
        def build():
            made.append(i)
            return ipywidgets.Label(value=str(i))
        return build

    menu = W.PageMenu(["a", "b", "c"], [make(i) for i in range(3)])
    assert made == [0]
    menu.menu.value = 2
    assert made == [0, 2] and menu.page.children[0].value == "2"
    menu.menu.value = 0
    assert made == [0, 2]
    menu.close()


def test_playground_draws_in_projection_mode(playground):
    assert playground["sizes while shown"] is style.PROJECTOR
    assert playground["dpi while shown"] == {style.PROJECTOR.explorer_dpi}
    assert "attn-projector" in playground["playground"]._dom_classes


def test_the_menu_shows_one_page_at_a_time_and_steps_round():
    pages = [ipywidgets.Label(value=str(i)) for i in range(3)]
    menu = W.PageMenu(["a", "b", "c"], pages)
    assert menu.page.children == (pages[0],) and menu.index == 0
    menu.menu.value = 2
    assert menu.page.children == (pages[2],)
    menu.next.click()
    assert menu.index == 0 and menu.page.children == (pages[0],)
    menu.previous.click()
    assert menu.index == 2
    menu.close()


def test_the_playground_speaks_of_the_page_not_of_hidden_code():
    intro = common.source_of(common.read(PLAYGROUND).cells[0])
    assert "code below" not in intro and "menu" in intro
