"""The instructor's guide (notebooks/instructor_guide.md) stays complete and in step.

For every lesson of the lesson table it must give a plan whose minutes add up
to at most 50, whose numbered sections are the notebook's own and whose rows
give each section at least the minutes its prose takes at the guide's own
reading rate, 3 or more "predict, then
run" questions with answers, 2 or more discussion questions and the usual
misconceptions. Every explorer it names must exist, and its JupyterHub link
must be well formed and generated from the repository's one slug. The second
half feeds the checks broken guides, so that a check that cannot fail is caught.
"""

import functools
import re
import sys
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlsplit

import nbformat
import pytest

from helpers import attention, widgets

ROOT = Path(__file__).resolve().parent.parent
GUIDE = ROOT / "notebooks" / "instructor_guide.md"
MAX_MINUTES = 50

sys.path.insert(0, str(ROOT))
from tools import common, hub_link, timemodel  # noqa: E402  (tools/ is not installed)
from tools.timemodel import (INTRO, OUTSIDE, PACING, lessons, norm,  # noqa: E402
                             numbered, subsections)

# The lessons the guide plans: every lesson notebook (tools/common.lessons(),
# read from notebooks/; 00 is the start page and has no plan).
LESSONS = [stem[:2] for stem in common.lessons()]


def _slug_and_branch():
    """The repository's one record of its location (tools/common.py)."""
    from tools.common import BRANCH, REPO_SLUG
    return REPO_SLUG, BRANCH


# --------------------------------------------------------------------------
# Reading the guide
# --------------------------------------------------------------------------
def plan_tables(lesson_text: str) -> list[list[tuple[str, int]]]:
    """Each plan table as [(section, minutes), ...]; the total row comes last."""
    tables = []
    for body in subsections(lesson_text, "Plan"):
        rows = []
        for line in body.splitlines():
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if len(cells) >= 2 and re.fullmatch(r"\**\d+\**", cells[1]):
                rows.append((cells[0].strip("* "), int(cells[1].strip("*"))))
        tables.append(rows)
    return tables


def numbered_items(body: str) -> list[str]:
    """The items of a numbered markdown list (continuation lines included)."""
    return [m.group(1) for m in re.finditer(r"^\d+\.\s+(.*?)(?=^\d+\.\s|\Z)", body,
                                            flags=re.M | re.S)]


def bullets(body: str) -> list[str]:
    return re.findall(r"^- (.+)$", body, flags=re.M)


def notebook_headings(lesson: str):
    """Headings ("## ...", "### ...") of lesson NN's notebook, or None if absent."""
    found = sorted((ROOT / "notebooks").glob(f"{lesson}_*.ipynb"))
    if not found:
        return None
    nb = nbformat.read(found[0], as_version=4)
    heads = []
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            heads += re.findall(r"^#{2,3} (.+)$", cell.source, flags=re.M)
    return [norm(h) for h in heads]


def problems(text: str, headings=notebook_headings) -> list[str]:
    """Everything the guide lacks, as readable sentences (empty = complete)."""
    out = []
    found = lessons(text)
    for lesson in LESSONS:
        if lesson not in found:
            out.append(f"lesson {lesson}: no '## Lesson {lesson}' section")
            continue
        body = found[lesson]
        tables = plan_tables(body)
        if not tables or not all(tables):
            out.append(f"lesson {lesson}: no plan table with minutes")
        for rows in tables:
            *parts, (label, total) = rows or [("", 0)]
            minutes = sum(m for _, m in parts)
            if label.lower() != "total" or total != minutes:
                out.append(f"lesson {lesson}: plan rows add up to {minutes}, "
                           f"its total row says {label} {total}")
            if minutes > MAX_MINUTES:
                out.append(f"lesson {lesson}: plan takes {minutes} minutes "
                           f"(> {MAX_MINUTES})")
        if "**Time:**" not in body:
            out.append(f"lesson {lesson}: no '**Time:**' line")
        questions = [q for s in subsections(body, "Predict, then run")
                     for q in numbered_items(s)]
        answered = [q for q in questions if "**Where:**" in q and "**Answer:**" in q]
        if len(answered) < 3:
            out.append(f"lesson {lesson}: {len(answered)} predict-then-run questions "
                       "with **Where:** and **Answer:** (need 3)")
        discussion = [b for s in subsections(body, "Discussion") for b in bullets(s)]
        if len(discussion) < 2:
            out.append(f"lesson {lesson}: {len(discussion)} discussion questions "
                       "(need 2)")
        misconceptions = [b for s in subsections(body, "Misconceptions")
                          for b in bullets(s)]
        if len(misconceptions) < 2:
            out.append(f"lesson {lesson}: {len(misconceptions)} misconceptions "
                       "(need 2)")
        if "**When short of time:**" not in body:
            out.append(f"lesson {lesson}: no 'When short of time' advice")
        heads = headings(lesson)
        if heads is None:
            continue
        planned = {norm(label) for rows in tables for label, _ in rows}
        planned |= outside_rows(body)
        for label in sorted(planned):
            if numbered(label) and label not in heads:
                out.append(f"lesson {lesson}: plan row {label!r} is not a heading "
                           "of the notebook")
        for head in heads:
            if numbered(head) and head not in planned:
                out.append(f"lesson {lesson}: notebook section {head!r} "
                           "has no plan row")
        optional = re.search(r"\*\*Optional sections[^*]*:\*\*(.*?)(?:\n\n|\Z)",
                             body, re.S)
        if not optional:
            out.append(f"lesson {lesson}: no '**Optional sections:**' line")
        else:
            for name in re.findall(r'"([^"]+)"', optional.group(1)):
                if norm(name) not in heads:
                    out.append(f"lesson {lesson}: optional section {name!r} is not a "
                               "heading of the notebook")
    return out


def explorer_names(text: str) -> set[str]:
    """Every explorer-like function name the guide mentions."""
    return set(re.findall(r"\b(\w+_explorer|parameter_calculator|first_taste)\b", text))


def hub_links(text: str) -> list[str]:
    """The URLs inside the generated hub-link region(s)."""
    regions = re.findall(re.escape(hub_link.START) + r"(.*?)" + re.escape(hub_link.END),
                         text, flags=re.S)
    return [url for r in regions for url in re.findall(r"https?://\S+", r)]


def link_problems(url: str, slug: str, branch: str) -> list[str]:
    """What is wrong with an nbgitpuller link (empty = well formed, right repo)."""
    out = []
    parts = urlsplit(url)
    if parts.scheme != "https" or not parts.netloc:
        out.append(f"not an https URL with a host: {url}")
    if not parts.path.endswith("/git-pull"):
        out.append(f"path {parts.path!r} does not end in /git-pull")
    query = parse_qs(parts.query, strict_parsing=True)
    if sorted(query) != ["branch", "repo", "urlpath"]:
        out.append(f"query keys {sorted(query)} are not branch, repo, urlpath")
        return out
    if any(len(v) != 1 for v in query.values()):
        out.append("a query key appears twice")
    if query["repo"][0] != f"https://github.com/{slug}":
        out.append(f"repo {query['repo'][0]!r} is not https://github.com/{slug}")
    if query["branch"][0] != branch:
        out.append(f"branch {query['branch'][0]!r} is not {branch!r}")
    prefix = f"lab/tree/{slug.split('/')[1]}/"
    urlpath = query["urlpath"][0]
    if not urlpath.startswith(prefix):
        out.append(f"urlpath {urlpath!r} does not open the cloned folder {prefix!r}")
    elif not (ROOT / urlpath[len(prefix):]).is_file():
        out.append(f"urlpath {urlpath!r} opens a file the repository does not have")
    if unquote(parts.query) == parts.query:
        out.append("query values are not URL-encoded")
    return out


# --------------------------------------------------------------------------
# The real guide
# --------------------------------------------------------------------------
@pytest.fixture(scope="module")
def guide():
    return GUIDE.read_text(encoding="utf-8")


def test_every_lesson_is_covered_completely(guide):
    assert problems(guide) == []


def test_plans_fit_one_period_each(guide):
    found = lessons(guide)
    for lesson in LESSONS:
        for rows in plan_tables(found[lesson]):
            assert sum(m for _, m in rows[:-1]) <= MAX_MINUTES, lesson


def test_lesson_09_is_split_into_two_periods(guide):
    # where the guide says it splits: sections 1..N in the first period, the
    # second starts at N + 1, and each section is in exactly one of the two
    body = lessons(guide)["09"]
    tables = plan_tables(body)
    assert len(tables) >= 2
    split = int(re.search(r"Split it at the end of section (\d+)", body).group(1))
    first, second = ([int(numbered(norm(label))) for label, _ in rows
                      if numbered(norm(label))] for rows in tables[:2])
    assert set(range(1, split + 1)) <= set(first) and not set(first) & set(second)
    assert min(second) == split + 1
    sections = {int(numbered(h)) for h in notebook_headings("09") if numbered(h)}
    assert set(first) | set(second) == sections


def test_named_explorers_exist(guide):
    names = explorer_names(guide)
    assert len(names) >= 8, names
    assert sorted(n for n in names if not callable(getattr(widgets, n, None))) == []


def test_presenting_names_presentation_mode_and_rise(guide):
    assert "View > Presentation Mode" in guide
    assert "jupyterlab-rise" in guide and "ipywidgets" in guide
    assert "helpers.figures.style.projector()" in guide and "projector(False)" in guide
    assert "make playground" in guide


def test_the_commands_and_calls_the_guide_names_exist(guide):
    # every `make X` is a Makefile target, every helpers.module.function( a
    # function of that module
    import importlib

    targets = set(re.findall(r"^([\w-]+):", (ROOT / "Makefile").read_text("utf-8"),
                             flags=re.M))
    named = set(re.findall(r"`make ([\w-]+)", guide))
    assert named and sorted(named - targets) == []
    calls = set(re.findall(r"\bhelpers\.([\w.]+)\.(\w+)\(", guide))
    assert ("figures.style", "projector") in calls
    for module, name in sorted(calls):
        assert callable(getattr(importlib.import_module(f"helpers.{module}"), name,
                                None)), f"helpers.{module}.{name}"


def test_pacing_convention_is_stated_in_its_exact_words(guide):
    assert "**Time:** about N minutes in class." in guide
    assert ("*Optional: skip this section when short of time; nothing later depends "
            "on it.*") in guide


def test_hub_link_is_generated_from_the_one_slug(guide):
    slug, branch = _slug_and_branch()
    urls = hub_links(guide)
    assert len(urls) == 1
    assert link_problems(urls[0], slug, branch) == []
    assert hub_link.update_text(guide, slug, branch) == guide, (
        "the hub-link region is stale: regenerate it with tools/hub_link.py")


def test_readme_links_the_guide():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "notebooks/instructor_guide.md" in readme


# --------------------------------------------------------------------------
# tools/hub_link.py, by hand-worked example
# --------------------------------------------------------------------------
def test_hub_link_hand_worked():
    assert hub_link.hub_link("ann/attn", branch="dev", hub="https://hub.x.org/") == (
        "https://hub.x.org/hub/user-redirect/git-pull"
        "?repo=https%3A%2F%2Fgithub.com%2Fann%2Fattn"
        "&urlpath=lab%2Ftree%2Fattn%2Fnotebooks%2F00_start_here.ipynb&branch=dev")


@pytest.mark.parametrize("bad", ["", "noslash", "a/b/c", "/name", "owner/", "a b/c"])
def test_hub_link_rejects_bad_slugs(bad):
    with pytest.raises(ValueError):
        hub_link.hub_link(bad)


def test_update_text_replaces_a_stale_region_and_only_it():
    stale = f"before\n{hub_link.START}\nold link\n{hub_link.END}\nafter\n"
    new = hub_link.update_text(stale, "ann/attn")
    assert new.startswith("before\n") and new.endswith("\nafter\n")
    assert "old link" not in new and hub_link.hub_link("ann/attn") in new
    assert hub_link.update_text(new, "ann/attn") == new
    with pytest.raises(ValueError):
        hub_link.update_text("no markers here", "ann/attn")
    with pytest.raises(ValueError):
        hub_link.update_text(stale + stale, "ann/attn")


# --------------------------------------------------------------------------
# The checks catch broken guides
# --------------------------------------------------------------------------
def _lesson_01(guide):
    return lessons(guide)["01"]


def plan_row_lines(lesson_text: str) -> list[str]:
    """The lines of a lesson's plan tables that give a section minutes (the
    total rows left out), as written in the guide."""
    return [line for body in subsections(lesson_text, "Plan")
            for line in body.splitlines()
            if re.fullmatch(r"\|[^|]+\|\s*\d+\s*\|.*", line.strip())
            and not line.strip("| ").lower().startswith("**total")]


def with_minutes(line: str, minutes: int) -> str:
    """A plan row with its minutes replaced."""
    cells = line.split("|")
    return "|".join(cells[:2] + [f" {minutes} "] + cells[3:])


def test_check_catches_a_plan_over_50_minutes(guide):
    body = _lesson_01(guide)
    row = plan_row_lines(body)[0]
    minutes = int(row.split("|")[2])
    broken = guide.replace(body, body.replace(row, with_minutes(row, minutes + 10), 1))
    assert broken != guide
    assert any("lesson 01: plan" in p for p in problems(broken))
    # the same row made longer than a whole period, the total row adjusted
    total = next(line for line in body.splitlines()
                 if line.strip("| ").lower().startswith("**total"))
    new_total = sum(m for _, m in plan_tables(body)[0][:-1]) + MAX_MINUTES
    over = body.replace(row, with_minutes(row, minutes + MAX_MINUTES), 1).replace(
        total, f"| **Total** | **{new_total}** | |")
    found = problems(guide.replace(body, over))
    assert any("lesson 01: plan takes" in p for p in found)
    assert not any("add up to" in p for p in found)


def test_check_catches_a_missing_answer(guide):
    body = _lesson_01(guide)
    broken_body = body.replace("**Answer:**", "Answer:")
    assert any("lesson 01" in p and "predict" in p
               for p in problems(guide.replace(body, broken_body)))


def test_check_catches_a_missing_lesson(guide):
    broken = guide.replace("## Lesson 05 ·", "## Lessen 05 ·")
    assert "lesson 05: no '## Lesson 05' section" in problems(broken)


def test_check_catches_a_renamed_section(guide):
    # each numbered heading of lesson 02 in turn, renamed in the notebook
    for old in [h for h in notebook_headings("02") if numbered(h)]:
        new = old + " renamed"

        def fake(lesson, old=old, new=new):
            heads = notebook_headings(lesson)
            return [new if h == old else h for h in heads] if lesson == "02" else heads
        found = problems(guide, headings=fake)
        assert any(f"{old!r} is not a heading" in p for p in found), old
        assert any(f"{new!r} has no plan row" in p for p in found), old


def test_check_catches_an_unknown_explorer():
    assert "heads_explorer" in explorer_names("try `heads_explorer` now")
    assert not callable(getattr(widgets, "heads_explorer", None))


@pytest.mark.parametrize("broken, complaint", [
    ("https://hub.x.org/hub/user-redirect/git-pull"
     "?repo=https%3A%2F%2Fgithub.com%2Fother%2Frepo"
     "&urlpath=lab%2Ftree%2Frepo%2Fnotebooks%2F00_start_here.ipynb&branch=main",
     "repo"),
    ("https://hub.x.org/hub/user-redirect/git-pul?repo=x&urlpath=y&branch=main",
     "git-pull"),
    ("https://hub.x.org/hub/user-redirect/git-pull?repo=x&branch=main", "query keys"),
])
def test_link_check_catches_broken_links(broken, complaint):
    slug, branch = _slug_and_branch()
    assert any(complaint in p for p in link_problems(broken, slug, branch))


# --------------------------------------------------------------------------
# The numbers the guide quotes from explorers are what the explorers show
# --------------------------------------------------------------------------
def _row(ex, token):
    """{key: weight rounded to 2 places} of one query row of a pattern explorer."""
    i = ex.tokens.index(token)
    return {k: round(float(w), 2) for k, w in zip(ex.tokens, ex.weights[i])}


@functools.cache
def _pattern(temperature=1.0, scaling=True):
    ex = widgets.pattern_explorer()
    ex.temperature.value = temperature
    ex.scaling.value = scaling
    return _row(ex, "creature")


@functools.cache
def _update(sentence):
    return widgets.update_explorer(sentence).sense_note


@functools.cache
def _mask_off_row_a():
    ex = widgets.mask_explorer()
    ex.mask.value = False
    return _row(ex, "a")


@functools.cache
def _qk_scores(sentence, token):
    ex = widgets.qk_explorer(sentence, token=token)
    return {k: round(float(s), 2) for k, s in zip(ex.tokens, ex.scores)}


@functools.cache
def _cross(target):
    ex = widgets.cross_explorer(target=target)
    return {t: round(float(ex.weights[i].max()), 2) for i, t in enumerate(ex.tokens)}


@functools.cache
def _sense(sentence):
    ex = widgets.sense_explorer(sentence)
    i = ex.prediction.target_index
    return ex.sense, round(float(ex.probs.max()), 3), _row(ex, ex.tokens[i])


@functools.cache
def _previous_token_head():
    ex = widgets.multi_head_explorer("the cat sat on the mat")
    ex.head.value = "previous token"
    return [round(float(w), 2) for w in ex.weights.max(axis=1)]


def _note(sentence):
    """(before, sense, after) of update_explorer's sense note, e.g.
    "before: tie (0.79 each) → after: money (0.83)" -> (0.79, "money", 0.83)."""
    m = re.fullmatch(r"before: tie \((\S+) each\) → after: (\w+) \((\S+)\)",
                     _update(sentence))
    assert m, _update(sentence)
    return float(m.group(1)), m.group(2), float(m.group(3))


ROAD = "I drove across the road to get to the other bank"
RIVER = "I swam across the river to get to the other bank"
MOVED = "a creature fluffy blue roamed the verdant forest"
DEFAULT = "a fluffy blue creature roamed the verdant forest"

# What the guide says, with {n} where it quotes a number and {w} a word, and
# what the explorer shows, in the same order. The numbers are read from the
# guide, not copied here: rewording the guide around them, or new numbers
# that the explorer shows, needs no edit of this table. A number agrees when
# the explorer's value, rounded to the digits the guide prints, is it.
EXPLORER_CLAIMS = [
    ("at temperature 1 the row reads fluffy {n}, blue {n}, verdant {n}",
     lambda: [_pattern(1.0)[k] for k in ("fluffy", "blue", "verdant")]),
    ("it drops to {n} (fluffy {n}, blue {n})",
     lambda: [_pattern(0.5)[k] for k in ("verdant", "fluffy", "blue")]),
    ("At 2.0 the row flattens to {n}, {n}, {n}",
     lambda: [_pattern(2.0)[k] for k in ("fluffy", "blue", "verdant")]),
    ("sharper: fluffy {n}, blue {n}, verdant {n}",
     lambda: [_pattern(scaling=False)[k] for k in ("fluffy", "blue", "verdant")]),
    ('"before: tie ({n} each) → after: {w} ({n})" for the road',
     lambda: _note(ROAD)),
    ('"→ after: {w} ({n})" for the river', lambda: _note(RIVER)[1:]),
    ('how sure? **Answer:** "before: tie ({n} each) → after: {w} ({n})"',
     lambda: _note("take a biopsy of the mole")),
    ("`the river bank had money` into `update_explorer`: it says {w} ({n})",
     lambda: _note("the river bank had money")[1:]),
    ("ahead: the {n}, verdant {n}, roamed {n}",
     lambda: [_mask_off_row_a()[k] for k in ("the", "verdant", "roamed")]),
    ("*verdant*, with {n}, five tokens after *creature*; *fluffy* and *blue* drop "
     "to {n} and {n}",
     lambda: [_qk_scores(MOVED, "creature")[k] for k in ("verdant", "fluffy", "blue")]),
    ("*creature* scores *fluffy* {n}, while *fluffy* scores *creature* {n}",
     lambda: [_qk_scores(DEFAULT, "creature")["fluffy"],
              _qk_scores(DEFAULT, "fluffy")["creature"]]),
    ("*noir* still finds *black* ({n}) and *chat* finds *cat* ({n})",
     lambda: [_cross("le noir chat dort")[k] for k in ("noir", "chat")]),
    ("**Answer:** {w}, with probability {n}; *bank* puts {n} on itself",
     lambda: (lambda s: [s[0], s[1], s[2]["bank"]])(_sense("we saw the bank"))),
    ("{w} ({n}): *bank* gives {n} to *river* and only {n} to *cash*",
     lambda: (lambda s: [s[0], s[1], s[2]["river"], s[2]["cash"]])(
         _sense("she paid cash at the bank near the river"))),
    ("one step back with {n} (the second row, *cat*, gives {n} to *the*); the first "
     "token has no previous token and keeps {n} on itself",
     lambda: (lambda w: [w[2] if len(set(w[2:])) == 1 else f"rows 3+ {w[2:]}",
                         w[1], w[0]])(_previous_token_head())),
    ("`attention_params`: {n} weights in 12 layers",
     lambda: [attention.attention_parameters(768, 64, 12, 12)["total"]]),
]

SAID_NUMBER = r"(−?\d[\d,]*(?:\.\d+)?)"


def said(text: str, claim: str):
    """The numbers (as printed) and words the guide fills a claim's {n} and {w}
    with, or None when the guide does not say it (line breaks do not matter)."""
    pattern = (re.escape(claim).replace(r"\{n\}", SAID_NUMBER)
               .replace(r"\{w\}", r"(\w+)"))
    m = re.search(pattern, " ".join(text.split()))
    return list(m.groups()) if m else None


def disagreements(printed: list[str], shown) -> list[str]:
    """Each place where the guide's value is not the explorer's (empty = true)."""
    shown = list(shown)
    if len(shown) != len(printed):
        return [f"the guide gives {printed}, the explorer {shown}"]
    out = []
    for p, s in zip(printed, shown):
        if re.fullmatch(SAID_NUMBER, p) and not isinstance(s, str):
            digits = len(p.split(".")[1]) if "." in p else 0
            value = float(p.replace(",", "").replace("−", "-"))
            if abs(round(float(s), digits) - value) > 1e-9:
                out.append(f"the guide says {p}, "
                           f"the explorer shows {float(s):.{digits}f}")
        elif p != s:
            out.append(f"the guide says {p!r}, the explorer shows {s!r}")
    return out


@pytest.mark.parametrize("claim, shown", EXPLORER_CLAIMS,
                         ids=[c for c, _ in EXPLORER_CLAIMS])
def test_explorer_numbers_in_the_guide_are_true(guide, claim, shown):
    printed = said(guide, claim)
    assert printed is not None, (
        f"the guide no longer says {claim!r}: update EXPLORER_CLAIMS")
    assert disagreements(printed, shown()) == [], claim


def test_explorer_claim_check_catches_a_wrong_number_or_word(guide):
    claim, shown = EXPLORER_CLAIMS[1]
    printed = said(guide, claim)
    assert disagreements(printed, shown()) == []
    wrong = [printed[0][:-1] + str((int(printed[0][-1]) + 1) % 10)] + printed[1:]
    found = disagreements(wrong, shown())
    assert len(found) == 1 and found[0].startswith(f"the guide says {wrong[0]}")
    assert disagreements(["money", "0.83"], ["river", 0.83]) != []
    assert disagreements(["0.83"], [0.834]) == []
    assert disagreements(["0.8"], [0.86]) != []
    assert disagreements(["28,311,552"], [28_311_552]) == []
    assert disagreements(["−1.69"], [-1.69]) == [] and disagreements(["1.69"], [-1.69])
    assert said("it drops to\n0.03 (fluffy 0.57, blue 0.39)", claim) == [
        "0.03", "0.57", "0.39"]
    assert said("it falls to 0.03 (fluffy 0.57, blue 0.39)", claim) is None


# --------------------------------------------------------------------------
# The numbers the guide quotes from notebook cells are in those notebooks
# --------------------------------------------------------------------------
def notebook_text(lesson: str) -> str:
    """Markdown and stored text outputs of lesson NN's notebook, in one string."""
    path = sorted((ROOT / "notebooks").glob(f"{lesson}_*.ipynb"))[0]
    nb = nbformat.read(path, as_version=4)
    parts = []
    for cell in nb.cells:
        parts.append(cell.source)
        for out in cell.get("outputs", []):
            parts.append(out.get("text", ""))
            parts.append(out.get("data", {}).get("text/plain", ""))
    return "\n".join(parts)


# a decimal (0.73) or a number with thousands commas (1,572,864)
NUMBER = r"(?<![\w.])\d[\d,]*\.\d+|\d{1,3}(?:,\d{3})+"


def unsourced_numbers(guide_text: str, lesson: str, text: str) -> list[str]:
    """Decimal numbers in cell-based answers that the notebook does not print."""
    body = lessons(guide_text)[lesson]
    missing = []
    for section in subsections(body, "Predict, then run"):
        for item in numbered_items(section):
            if explorer_names(item):
                continue                      # checked against the explorers above
            answer = item.split("**Answer:**", 1)[-1]
            for number in re.findall(NUMBER, answer):
                if number not in text:
                    missing.append(number)
    return missing


@pytest.mark.parametrize("lesson", LESSONS)
def test_cell_numbers_in_the_guide_are_the_notebooks(guide, lesson):
    assert unsourced_numbers(guide, lesson, notebook_text(lesson)) == []


def test_cell_number_check_catches_a_wrong_number(guide):
    # every number a cell-based answer of lesson 01 quotes, in turn, changed
    # into one the notebook does not print
    text, body = notebook_text("01"), lessons(guide)["01"]
    items = [item for section in subsections(body, "Predict, then run")
             for item in numbered_items(section) if not explorer_names(item)]
    quoted = [(item, number) for item in items
              for number in re.findall(NUMBER, item.split("**Answer:**", 1)[-1])]
    assert quoted, "lesson 01's answers quote no number of a cell"
    for item, number in quoted:
        wrong = number + "9"
        while wrong in text:
            wrong += "9"
        ask, answer = item.split("**Answer:**", 1)
        broken = guide.replace(item, ask + "**Answer:**"
                               + re.sub(rf"(?<![\w.]){re.escape(number)}(?![\d,]*\d)",
                                        wrong, answer, count=1), 1)
        assert broken != guide
        assert unsourced_numbers(broken, "01", text) == [wrong], number


def marked_optional(lesson: str) -> set[str]:
    """Normalised headings of lesson NN's sections that carry the pacing line."""
    found = sorted((ROOT / "notebooks").glob(f"{lesson}_*.ipynb"))
    nb = nbformat.read(found[0], as_version=4)
    out = set()
    for cell in nb.cells:
        if cell.cell_type == "markdown" and PACING in cell.source:
            head = re.search(r"^#{2,3} (.+)$", cell.source, flags=re.M)
            assert head, f"lesson {lesson}: a pacing line in a cell with no heading"
            out.add(norm(head.group(1)))
    return out


def guide_optional(body: str) -> set[str]:
    """The sections a lesson's '**Optional sections...:**' line names, normalised."""
    line = re.search(r"\*\*Optional sections[^*]*:\*\*(.*?)(?:\n\n|\Z)", body, re.S)
    if not line:
        return set()
    return {norm(name) for name in re.findall(r'"([^"]+)"', line.group(1))}


@pytest.mark.parametrize("lesson", LESSONS)
def test_guide_and_notebook_mark_the_same_sections_optional(guide, lesson):
    """One marking in both places: a section the guide calls optional carries the
    notebook's pacing line, and every section with that line is in the guide's list."""
    assert guide_optional(lessons(guide)[lesson]) == marked_optional(lesson)


def test_lesson_09_splits_where_the_guide_splits(guide):
    said = re.search(r"Split it at the end of section (\d+)", lessons(guide)["09"])
    nb = nbformat.read(next((ROOT / "notebooks").glob("09_*.ipynb")), as_version=4)
    text = " ".join(" ".join(c.source.split()) for c in nb.cells
                    if c.cell_type == "markdown")
    written = re.search(r"The split falls at the end of section (\d+)", text)
    assert said and written and said.group(1) == written.group(1)
    # a section after the split in the first period is an exercise on it
    first = [norm(label) for label, _ in plan_tables(lessons(guide)["09"])[0]]
    late = [h for h in first if numbered(h) and int(numbered(h)) > int(said.group(1))]
    assert late and all("exercise" in h for h in late), late


def prose_words_and_code_cells(lesson: str) -> tuple[int, int]:
    """Words of a lesson's prose (markdown, navigation left out) and its code cells
    (the setup cell left out): the counts the guide's timing paragraph quotes."""
    path = next((ROOT / "notebooks").glob(f"{lesson}_*.ipynb"))
    nb = nbformat.read(path, as_version=4)
    words = sum(len(re.findall(r"[A-Za-z][\w'’-]*", c.source)) for c in nb.cells
                if c.cell_type == "markdown" and not c.metadata.get("tags"))
    code = sum(1 for c in nb.cells if c.cell_type == "code" and c.source.strip()
               and "setup" not in c.metadata.get("tags", []))
    return words, code


def test_the_guides_word_and_cell_counts_are_the_notebooks(guide):
    m = re.search(r"(?i)each notebook has ([\d,]+)–([\d,]+) words of prose\s+"
                  r"\(optional\s+sections included\)\s+and (\d+)–(\d+) code cells",
                  guide)
    assert m, "the timing paragraph's counts are not where the test expects them"
    lo, hi, c_lo, c_hi = (int(x.replace(",", "")) for x in m.groups())
    counts = {lesson: prose_words_and_code_cells(lesson) for lesson in LESSONS}
    for lesson, (words, code) in counts.items():
        assert lo <= words <= hi and c_lo <= code <= c_hi, (lesson, words, code)
    # the range is the notebooks' own, not a loose bound: each end within 5%
    words = [w for w, _ in counts.values()]
    assert min(words) <= 1.05 * lo and max(words) >= 0.95 * hi, (min(words), max(words))



# --------------------------------------------------------------------------
# The plans fit their minutes at the guide's own reading rate
# --------------------------------------------------------------------------
def _words(text: str) -> int:
    """Words as the timing paragraph counts them (prose_words_and_code_cells)."""
    return len(re.findall(r"[A-Za-z][\w'’-]*", text))


def lesson_sections(lesson: str, nb=None) -> list[dict]:
    """Lesson NN's "## " sections in notebook order, each as {"head": normalised
    heading, "words": words of its in-class prose, "optional": True if the whole
    section carries the pacing line, "optional words": words of its "### " parts
    that carry the pacing line, which run to the next heading}. Everything before
    section 1 (title, goals, "Before you start") is "intro and setup"; navigation
    cells are left out; a "#" line inside a ``` fence is not a heading. ``nb``:
    a notebook to read instead of lesson NN's."""
    if nb is None:
        nb = nbformat.read(next((ROOT / "notebooks").glob(f"{lesson}_*.ipynb")),
                           as_version=4)
    sections = [{"head": INTRO, "words": 0, "optional": False, "optional words": 0}]
    in_optional_part = False
    for cell in nb.cells:
        if cell.cell_type != "markdown" or cell.metadata.get("tags"):
            continue
        chunks, fenced = [[]], False
        for line in cell.source.splitlines():
            if line.lstrip().startswith("```"):
                fenced = not fenced
            if not fenced and re.match(r"#{2,3} ", line):
                chunks.append([])
            chunks[-1].append(line)
        for chunk in chunks:
            head = re.match(r"(#{2,3}) (.+)", chunk[0]) if chunk else None
            marked = PACING in "\n".join(chunk[:3])
            if head and head.group(1) == "##" and (
                    numbered(norm(head.group(2))) or len(sections) > 1):
                sections.append({"head": norm(head.group(2)), "words": 0,
                                 "optional": marked, "optional words": 0})
                in_optional_part = False
            elif head and head.group(1) == "###":
                in_optional_part = marked
            key = "optional words" if in_optional_part else "words"
            sections[-1][key] += _words("\n".join(chunk))
    return sections


def outside_rows(lesson_text: str) -> set[str]:
    """Normalised labels of plan rows whose minutes are "—": done outside class."""
    return {norm(cells[0].strip("* "))
            for body in subsections(lesson_text, "Plan")
            for line in body.splitlines()
            for cells in [[c.strip() for c in line.strip().strip("|").split("|")]]
            if len(cells) >= 2 and cells[1] == OUTSIDE}


def test_pacing_check_counts_what_it_should():
    """Optional parts are left out only when marked, and the intro, fences and
    navigation are handled as documented: on a hand-made notebook, then on
    every lesson's own marks."""
    from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

    nb = new_notebook(cells=[
        new_markdown_cell("[Contents](00.ipynb) nav words",
                          metadata={"tags": ["nav-top"]}),
        new_markdown_cell("# 07 · Title\n\n## What you will learn\n- alpha beta"),
        new_code_cell("x = 1  # code words are not prose"),
        new_markdown_cell("## 1. First part\none two\n```python\n## fenced\n```"),
        new_markdown_cell(f"### Aside\n{PACING}\nthree four"),
        new_markdown_cell("five six"),                 # still the optional aside
        new_markdown_cell(f"## 2. Second\n{PACING}\nseven"),
        new_markdown_cell("## Summary\neight"),
    ])
    got = {s["head"]: (s["words"], s["optional"], s["optional words"])
           for s in lesson_sections("07", nb)}
    pacing = _words(PACING)
    assert got == {
        INTRO: (7, False, 0),             # Title / What you will learn / alpha beta
        "1 first part": (6, False, 1 + pacing + 4),  # ... one two python fenced
        "2 second": (1 + pacing + 1, True, 0),
        "summary": (2, False, 0),
    }
    for lesson in LESSONS:
        # each section the notebook marks optional is counted as optional
        sections = lesson_sections(lesson)
        whole = {s["head"] for s in sections if s["optional"]}
        parts = sum(s["optional words"] for s in sections)
        marked = marked_optional(lesson)
        assert marked & {s["head"] for s in sections} <= whole, lesson
        assert (parts > 0) == bool(marked - whole), lesson
    for lesson in LESSONS:
        words, _ = prose_words_and_code_cells(lesson)
        counted = sum(s["words"] + s["optional words"] for s in lesson_sections(lesson))
        assert counted == words, lesson                  # every prose word, once


# --------------------------------------------------------------------------
# The time model (tools/timemodel.py): every plan is true
# --------------------------------------------------------------------------
@pytest.mark.parametrize("lesson", ["00"] + LESSONS)
def test_every_plan_agrees_with_the_time_model(guide, lesson):
    """Each table at most one period, each row at least ROW_SHARE of the
    model's minutes for its section, the rows together at least TOTAL_SHARE,
    and nothing sent outside class that is neither optional nor homework."""
    assert timemodel.plan_problems(guide, lesson) == []


def test_time_model_hand_worked():
    from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

    words = " ".join(["word"] * 240)  # two minutes at 120 words a minute
    nb = new_notebook(cells=[
        new_markdown_cell("# 07 · Title"),
        new_markdown_cell(f"## 1. First\n{words}"),
        new_code_cell("x = 1\n# a comment\ny = 2", outputs=[
            {"output_type": "display_data", "data": {"image/png": "", "text/plain": ""},
             "metadata": {}}]),
        new_markdown_cell(f"<details><summary>Solution</summary>{words}</details>"),
        new_markdown_cell(f"### Aside\n{PACING}\n{words}"),
        new_code_cell("z = 3"),                          # in the optional part
        new_markdown_cell("## 2. Exercise: do it"),
        new_code_cell("def f():\n    raise NotImplementedError"),
        new_markdown_cell("## Summary\n" + words),
    ])
    secs = {s["head"]: s for s in timemodel.sections(nb)}
    first = secs["1 first"]
    assert (first["words"], first["code"], first["lines"], first["figures"]) == (
        241, 1, 2, 1)                                   # "First" and 240 words
    assert timemodel.section_minutes(first) == pytest.approx(
        241 / 120 + 0.4 + 2 * 0.03 + 1.0)
    assert timemodel.section_minutes(secs["2 exercise do it"]) == pytest.approx(
        3 / 120 + 0.4 + 2 * 0.03 + 7.0)
    assert timemodel.section_minutes(secs["summary"]) == 0


def _lesson_body(guide, lesson):
    return lessons(guide)[lesson]


def test_time_model_check_catches_short_plans_and_hidden_homework(guide):
    body = _lesson_body(guide, "05")
    assert timemodel.plan_problems(guide, "05") == []
    model = timemodel.lesson_model("05", guide)
    # the longest non-intro section's row cut to one minute
    rows = {norm(row.split("|")[1]): row for row in body.splitlines()
            if row.startswith("| ") and '"' not in row.split("|")[1]}
    head = max((h for h in model["sections"] if numbered(h) and h in rows
                and h not in model["optional"]), key=model["sections"].get)
    line = rows[head]
    short = guide.replace(line, with_minutes(line, 1))
    assert any(repr(head) in p and "the model gives it" in p
               for p in timemodel.plan_problems(short, "05"))
    # the same row sent outside class without saying so
    hidden = guide.replace(line, with_minutes(line, OUTSIDE))
    assert any("neither optional" in p for p in timemodel.plan_problems(hidden, "05"))
    # named as homework, it may go: the complaint is gone
    title = line.split("|")[1].strip()
    moved = lessons(hidden)["05"]
    named = hidden.replace(moved, moved + f'\n**Homework:** "{title}".\n\n')
    assert not any("neither optional" in p
                   for p in timemodel.plan_problems(named, "05"))


def test_time_model_fits_a_plan_it_can(guide):
    body = _lesson_body(guide, "01")
    line = next(row for row in body.splitlines() if row.startswith("| 1."))
    broken = guide.replace(line, with_minutes(line, 1))
    assert timemodel.plan_problems(broken, "01")
    assert timemodel.plan_problems(timemodel.fit_plans(broken, "01"), "01") == []


@pytest.mark.parametrize("lesson", LESSONS)
def test_in_class_words_the_guide_quotes_are_the_counters(guide, lesson):
    """"in-class prose (2,119 words ..." in a lesson's section is what
    tools/wordcount counts for that lesson now."""
    from tools import wordcount

    quoted = re.findall(r"in-class prose (?:\(|is )([\d,]+) words",
                        " ".join(lessons(guide)[lesson].split()))
    path = next((ROOT / "notebooks").glob(f"{lesson}_*.ipynb"))
    for number in quoted:
        assert int(number.replace(",", "")) == wordcount.in_class_words(path), (
            f"lesson {lesson}: the guide quotes {number} in-class words; "
            f"python -m tools.wordcount {path.relative_to(ROOT)} counts otherwise")


def test_the_guide_states_the_models_rates(guide):
    text = " ".join(guide.split())
    for said in (f"{timemodel.PROSE_WPM} words a minute",
                 f"code cell {timemodel.CODE_CELL} minutes",
                 f"{timemodel.CODE_LINE} a line",
                 f"{timemodel.FIGURE:g} minute a figure",
                 f"{timemodel.EXPLORER:g} minutes an explorer",
                 f"{timemodel.WARM_UP:g} minutes a warm-up",
                 f"{timemodel.EXERCISE:g} the core exercise",
                 f"{timemodel.PREDICT:g} minutes each",
                 f"at least {timemodel.ROW_SHARE:.0%}",
                 f"at least {timemodel.TOTAL_SHARE:.0%}"):
        assert said in text, said


@pytest.mark.parametrize("lesson", LESSONS)
def test_the_model_minutes_the_guide_quotes_are_the_models(guide, lesson):
    """"the time model gives this lesson N minutes" (everything in class but
    the optional parts and the stretch) is what tools/timemodel.py gives now."""
    body = " ".join(lessons(guide)[lesson].split())
    model = timemodel.lesson_model(lesson, guide)
    full = sum(m for h, m in model["sections"].items()
               if h not in model["optional"]) + model["predict"]
    for said in re.findall(r"time model gives this lesson (\d+) minutes", body):
        assert int(said) == round(full), (
            f"lesson {lesson}: the guide says {said} model minutes; "
            f"python -m tools.timemodel {lesson} gives {full:.0f}")
