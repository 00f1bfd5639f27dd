"""How long a lesson takes in class: one model for every lesson, section by
section, and the instructor guide's plans held to it.

    python -m tools.timemodel [NN ...]            the model beside each plan
    python -m tools.timemodel --check             exit 1 if a plan disagrees

The guide used to time prose alone (60 words a minute) and give code cells,
figures and questions no time; two reviewers who timed the lessons found
every plan short (issue 54). This model times everything a class does, with
one set of rates for all lessons (``RATES``), and lands within the reviewers'
own estimates (±20%) for every lesson they timed without a per-lesson fit:

    lesson   01  02  03  04  05  06  07  08  09  10  14
    review   49  53  49  60  56  53  53  64  70  57  65-80

A section's minutes (``section_minutes``): its in-class prose at
``PROSE_WPM``, each code cell (``CODE_CELL`` plus ``CODE_LINE`` per line of
code that is not a comment), each figure it shows, its explorer, and its
exercise (``WARM_UP`` or ``EXERCISE``). The guide's "predict, then run"
questions add ``PREDICT`` each to the lesson (asked where their cell is).
An "### Optional" part, a section marked optional, a stretch and the
summary's reading are outside the model's class time; the intro and the
summary get ``FRAME`` minutes together.

A plan agrees with the model (``plan_problems``) when each of its tables
(one a period) holds at most 50 minutes, no row gives its section less than
``ROW_SHARE`` of the model's minutes for it, and the minutes of every row a
class does in class add up to at least ``TOTAL_SHARE`` of the model's
minutes for those sections (plus the predict questions). A row marked "—"
is done outside class: a section the notebook marks optional, or one the
lesson's "**Homework:**" line names (an exercise the class finishes at home).
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[1]
GUIDE = ROOT / "notebooks" / "instructor_guide.md"
PERIOD = 50

#: words a minute of prose read and talked through in class: a presenter
#: speaks 120-150 words a minute, and a class that stops to look at a formula
#: or ask a question goes at the slow end (the reviewers' timings fit 120)
PROSE_WPM = 120
#: minutes to run a code cell and read its output together
CODE_CELL = 0.4
#: minutes per line of code (not comments) in that cell: reading it aloud
CODE_LINE = 0.03
#: minutes to read one figure together (what is on each axis, one row)
FIGURE = 1.0
#: minutes for an explorer: two or three inputs from the class
EXPLORER = 4.0
#: minutes for the core exercise in pairs, checker included
EXERCISE = 7.0
#: minutes for a warm-up: a line or two of code and its checker
WARM_UP = 3.0
#: minutes for each "predict, then run" question: commit, run, discuss
PREDICT = 1.5
#: minutes for the intro (goals, setup cell) and the summary together
FRAME = 4.0

#: a section on a lesson's **Homework:** line is started in class and
#: finished at home: this share of its minutes is in class
HOMEWORK_SHARE = 0.5
#: a plan row may give its section this share of the model's minutes
ROW_SHARE = 0.8
#: ... and the rows done in class at least this share of their model minutes
TOTAL_SHARE = 0.9

PACING = ("*Optional: skip this section when short of time; nothing later depends "
          "on it.*")
OUTSIDE = "—"  # a plan row's minutes for a section done outside class


# --------------------------------------------------------------------------
# The guide
# --------------------------------------------------------------------------
def norm(title: str) -> str:
    """A heading reduced to lower-case words: no "Optional: " mark, markdown or
    punctuation, so "4. Optional: splitting heads, a tracker" matches the plan
    row "4. Splitting heads: a tracker"."""
    title = re.sub(r"optional:\s*", "", title, flags=re.I).lower()
    title = re.sub(r"(\d)\.(\d)", r"\1_\2", title)    # "3.1" stays one word: 3_1
    return " ".join(re.sub(r"[^\w\s$\\]", " ", title).split())


INTRO = norm("Intro and setup")


def numbered(title: str):
    """"4 temperature ..." (normalised) -> "4"; titles without a number -> None."""
    m = re.match(r"(\d+)\s", title)
    return m.group(1) if m else None


def lessons(text: str) -> dict:
    """{"01": section text, ...}: the guide cut at its "## Lesson NN" headings."""
    parts = re.split(r"^## Lesson (\d\d)\b.*$", text, flags=re.M)
    out = {}
    for k in range(1, len(parts) - 1, 2):
        body = parts[k + 1]
        out[parts[k]] = re.split(r"^## (?!#)", body, flags=re.M)[0]
    return out


def subsections(lesson_text: str, title: str) -> list[str]:
    """The bodies of every "### <title>..." subsection of one lesson."""
    parts = re.split(r"^### (.*)$", lesson_text, flags=re.M)
    return [parts[k + 1] for k in range(1, len(parts) - 1, 2)
            if parts[k].strip().lower().startswith(title.lower())]


def plan_rows(lesson_text: str) -> list[list[tuple[str, object]]]:
    """Each plan table as [(normalised section, minutes or OUTSIDE), ...],
    its total row left out."""
    tables = []
    for body in subsections(lesson_text, "Plan"):
        rows = []
        for line in body.splitlines():
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if len(cells) < 2 or cells[0].strip("* ").lower() == "total":
                continue
            if re.fullmatch(r"\d+", cells[1]):
                rows.append((norm(cells[0].strip("* ")), int(cells[1])))
            elif cells[1] == OUTSIDE:
                rows.append((norm(cells[0].strip("* ")), OUTSIDE))
        tables.append(rows)
    return tables


def _without_plans(lesson_text: str) -> str:
    """A lesson's guide text without its "### Plan" subsections."""
    parts = re.split(r"^(?=### )", lesson_text, flags=re.M)
    return "".join(p for p in parts if not p.startswith("### Plan"))


def plan_homework(lesson_text: str) -> list[set[str]]:
    """For each plan table, the sections a "**Homework:**" line inside its
    "### Plan" subsection names (that way of teaching the lesson only)."""
    return [homework(body) for body in subsections(lesson_text, "Plan")]


def predict_questions(lesson_text: str) -> int:
    """How many "predict, then run" questions the lesson's guide asks."""
    return sum(len(re.findall(r"^\d+\.\s", body, flags=re.M))
               for body in subsections(lesson_text, "Predict"))


def homework(text: str) -> set[str]:
    """Sections a "**Homework:**" line sends home (their quoted names): the
    class starts them and finishes them at home, or, on a row marked "—",
    does them wholly at home."""
    return {norm(n) for line in re.findall(r"\*\*Homework:\*\*(.*?)(?:\n\n|\Z)",
                                           text, re.S)
            for n in re.findall(r'"([^"]+)"', line)}


# --------------------------------------------------------------------------
# The notebook
# --------------------------------------------------------------------------
def _words(text: str) -> int:
    return len(re.findall(r"[A-Za-z][\w'’-]*", text))


def _kind(head: str) -> str:
    head = re.sub(r"^\d+ ", "", head)
    if head.startswith("stretch"):
        return "stretch"
    if head.startswith("warm up"):
        return "warm-up"
    if head.startswith("summary"):
        return "summary"
    return "exercise" if "exercise" in head else "section"


def sections(nb) -> list[dict]:
    """A notebook's "## " sections in order, each {"head", "kind", "optional",
    "words", "code", "lines", "figures", "explorers", "exercises"}, counting
    only what is done in class: an "### " part marked optional is left out.
    Everything before section 1 is the intro; a hint or a solution (a cell
    that starts with ``<details>``) is not read in class."""
    if not hasattr(nb, "cells"):
        nb = nbformat.read(str(nb), as_version=4)
    # a notebook without numbered sections (the start page): every "## " is one
    flat = not any(numbered(norm(h)) for c in nb.cells if c.cell_type == "markdown"
                   for h in re.findall(r"^## (.+)$", c.source, flags=re.M))
    new = dict(words=0, code=0, lines=0, figures=0, explorers=0, exercises=0)
    out = [dict(head=INTRO, kind="intro", optional=False, **new)]
    part_out = False
    for cell in nb.cells:
        tags = cell.metadata.get("tags", [])
        if cell.cell_type == "markdown":
            if tags or cell.source.lstrip().startswith("<details"):
                continue  # navigation; a hint or a solution, read only if needed
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
                        flat or numbered(norm(head.group(2))) or len(out) > 1):
                    h = norm(head.group(2))
                    out.append(dict(head=h, kind=_kind(h), optional=marked, **new))
                    part_out = False
                elif head and head.group(1) == "###":
                    part_out = marked
                if not part_out:
                    out[-1]["words"] += _words("\n".join(chunk))
        elif cell.cell_type == "code" and "setup" not in tags and not part_out:
            s = out[-1]
            s["code"] += 1
            s["lines"] += sum(1 for line in cell.source.splitlines()
                              if line.strip() and not line.strip().startswith("#"))
            s["figures"] += sum("image/png" in o.get("data", {})
                                for o in cell.get("outputs", []))
            if "nbval-ignore-output" in tags and "widgets" in cell.source:
                s["explorers"] += 1
            if "NotImplementedError" in cell.source:
                s["exercises"] += 1
    return out


def section_minutes(s: dict) -> float:
    """The model's minutes for one section (``sections``), predict questions
    apart. A stretch is timed like an exercise; the summary's reading is in
    ``FRAME``."""
    if s["kind"] == "summary":
        return 0.0
    exercise = WARM_UP if s["kind"] == "warm-up" else EXERCISE
    return (s["words"] / PROSE_WPM + s["code"] * CODE_CELL + s["lines"] * CODE_LINE
            + s["figures"] * FIGURE + s["explorers"] * EXPLORER
            + min(s["exercises"], 1) * exercise)


def notebook(lesson: str) -> Path:
    return next((ROOT / "notebooks").glob(f"{lesson}_*.ipynb"))


def lesson_model(lesson: str, guide_text: str | None = None, nb=None) -> dict:
    """The model of lesson NN: {"sections": {head: minutes} for every section
    (the intro with ``FRAME``), "optional": heads the notebook marks optional
    or that are a stretch, "predict": minutes of the guide's predict
    questions, "core": minutes of everything but the optional sections, the
    stretch and the homework, predict questions included}."""
    guide_text = GUIDE.read_text(encoding="utf-8") if guide_text is None else guide_text
    body = lessons(guide_text).get(lesson, "")
    secs = sections(notebook(lesson) if nb is None else nb)
    minutes = {s["head"]: section_minutes(s) for s in secs}
    minutes[INTRO] += FRAME
    optional = {s["head"] for s in secs if s["optional"] or s["kind"] == "stretch"}
    predict = predict_questions(body) * PREDICT
    home = homework(_without_plans(body))
    core = sum(m * (HOMEWORK_SHARE if h in home else 1)
               for h, m in minutes.items() if h not in optional) + predict
    return {"sections": minutes, "optional": optional, "predict": predict,
            "homework": home, "core": core}


def _ways(tables):
    """Plan tables grouped into ways of teaching the lesson (09: two periods,
    or one period only): a table whose sections repeat an earlier table's
    starts a new way."""
    ways, seen = [[]], set()
    for rows in tables:
        heads = {h for h, m in rows if m != OUTSIDE}
        if heads & seen:
            ways.append([])
            seen = set()
        ways[-1].append(rows)
        seen |= heads
    return ways


def needs(model: dict, rows, home=None) -> dict:
    """{head: the model's minutes for that plan row}: its section's minutes
    (half for a section on the **Homework:** line: started in class,
    finished at home), a warm-up without a row of its own counted with the
    row after it, and the predict questions spread over the rows in
    proportion."""
    secs, order = model["sections"], list(model["sections"])
    home = model["homework"] if home is None else home
    in_class = [h for h, m in rows if m != OUTSIDE and h in secs]
    out = {h: secs.get(h, 0.0) * (HOMEWORK_SHARE if h in home else 1)
           for h in in_class}
    for head, minutes in secs.items():
        if head.startswith("warm up") and head not in dict(rows):
            later = [h for h in in_class if h in secs
                     and order.index(h) > order.index(head)]
            if later:
                out[later[0]] += minutes
    whole = sum(out.values()) or 1
    share = model["predict"] * whole / max(sum(
        m for h, m in secs.items() if h not in model["optional"]), 1e-9)
    return {h: m * (1 + share / whole) for h, m in out.items()}


def plan_problems(guide_text: str, lesson: str, nb=None) -> list[str]:
    """Where lesson NN's plan disagrees with the model (empty: it agrees)."""
    body = lessons(guide_text).get(lesson)
    if body is None:
        return [f"lesson {lesson}: no '## Lesson {lesson}' section in the guide"]
    model = lesson_model(lesson, guide_text, nb)
    tables = plan_rows(body)
    if not tables:
        return [f"lesson {lesson}: no plan"]
    out = []
    for rows in tables:
        total = sum(m for _, m in rows if m != OUTSIDE)
        if total > PERIOD:
            out.append(f"lesson {lesson}: a plan of {total} minutes, more than one "
                       f"period ({PERIOD})")
    extra = dict(zip(map(id, tables), plan_homework(body)))
    for way in _ways(tables):
        rows = [r for table in way for r in table]
        planned = dict(rows)
        home = model["homework"].union(*(extra[id(t)] for t in way))
        for head, minutes in model["sections"].items():
            if head not in planned and minutes > 0 and not head.startswith("warm up"):
                out.append(f"lesson {lesson}: section {head!r} ({minutes:.0f} "
                           "model minutes) has no plan row")
            elif planned.get(head) == OUTSIDE and head not in (
                    model["optional"] | home):
                out.append(f"lesson {lesson}: {head!r} is planned outside class "
                           f"({OUTSIDE}) but is neither optional in the notebook "
                           "nor named on the lesson's **Homework:** line")
        need = needs(model, rows, home)
        for head, minutes in need.items():
            if planned[head] < ROW_SHARE * minutes - 0.5:
                out.append(f"lesson {lesson}: {head!r} gets {planned[head]} minutes; "
                           f"the model gives it {minutes:.1f}")
        given = sum(planned[h] for h in need)
        if given < TOTAL_SHARE * sum(need.values()) - 0.5:
            out.append(f"lesson {lesson}: the plan gives {given} minutes where the "
                       f"model needs {sum(need.values()):.0f} for the same sections "
                       f"(at least {TOTAL_SHARE:.0%} of it)")
    return out


def _share(minutes: dict, total: int) -> dict:
    """Whole minutes in proportion to ``minutes`` that add up to ``total``
    (largest remainders first), each at least 1."""
    whole = sum(minutes.values()) or 1
    raw = {h: max(1.0, m * total / whole) for h, m in minutes.items()}
    out = {h: int(r) for h, r in raw.items()}
    for h in sorted(raw, key=lambda h: raw[h] - out[h], reverse=True):
        if sum(out.values()) >= total:
            break
        out[h] += 1
    return out


def fit_plans(guide_text: str, lesson: str, nb=None) -> str:
    """The guide with lesson NN's plan minutes set from the model
    (:func:`needs`), each table scaled down to PERIOD minutes where the
    model asks for more (a lesson whose model is over by more than
    1/TOTAL_SHARE names homework or drops an optional section first, by
    hand: ``plan_problems`` says so). Rows marked "—", the section names
    and "What happens" stay; the total row follows."""
    body = lessons(guide_text)[lesson]
    model = lesson_model(lesson, guide_text, nb)
    new_body = body
    for plan in subsections(body, "Plan"):
        lines = {}
        for line in plan.splitlines():
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if (len(cells) >= 2 and re.fullmatch(r"\d+", cells[1])
                    and cells[0].strip("* ").lower() != "total"):
                lines[line] = norm(cells[0].strip("* "))
        if not lines:
            continue
        need = needs(model, [(h, 0) for h in lines.values()],
                     model["homework"] | homework(plan))
        # a row that is no section of the notebook (a recap) keeps its minutes
        kept = {head: int(line.split("|")[2]) for line, head in lines.items()
                if head not in need}
        minutes = _share(need, min(PERIOD - sum(kept.values()),
                                   round(sum(need.values()))))
        minutes.update(kept)
        new_plan = plan
        for line, head in lines.items():
            cells = line.split("|")
            cells[2] = f" {minutes[head]} "
            new_plan = new_plan.replace(line, "|".join(cells), 1)
        new_plan = re.sub(r"(\| \*\*Total\*\* \| \*\*)\d+(\*\*)",
                          lambda m: f"{m.group(1)}{sum(minutes.values())}{m.group(2)}",
                          new_plan)
        new_body = new_body.replace(plan, new_plan, 1)
    return guide_text.replace(body, new_body, 1)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("lessons", nargs="*", help="NN ... (default: every lesson)")
    ap.add_argument("--check", action="store_true",
                    help="list every disagreement; exit 1 if there is one")
    ap.add_argument("--write-guide", action="store_true",
                    help="set the plans' minutes from the model (fit_plans)")
    args = ap.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    from tools import common
    guide_text = GUIDE.read_text(encoding="utf-8")
    chosen = args.lessons or [stem[:2] for stem in common.lessons()] + ["00"]
    if args.write_guide:
        for lesson in chosen:
            if lesson in lessons(guide_text):
                guide_text = fit_plans(guide_text, lesson)
        GUIDE.write_text(guide_text, encoding="utf-8")
    problems = []
    print(f"{'lesson':6} {'core':>5} {'predict':>8} {'plan':>5}  "
          "sections (model minutes)")
    for lesson in sorted(set(chosen)):
        model = lesson_model(lesson, guide_text)
        body = lessons(guide_text).get(lesson, "")
        plan = sum(m for rows in plan_rows(body) for _, m in rows if m != OUTSIDE)
        parts = ", ".join(f"{h.split()[0] if numbered(h) else h[:12]} {m:.0f}"
                          for h, m in model["sections"].items() if m >= 0.5)
        print(f"{lesson:6} {model['core']:5.0f} {model['predict']:8.1f} {plan:5}  "
              f"{parts}")
        problems += plan_problems(guide_text, lesson)
    if args.check or problems:
        print("\n".join(problems) if problems else "every plan agrees with the model")
    return 1 if (args.check and problems) else 0


if __name__ == "__main__":
    sys.exit(main())
