"""The guide's JupyterHub path works: nbgitpuller pulls this repository.

The instructor's guide hands the series to a class with an nbgitpuller link.
This test does, offline, what the link makes the hub do: nbgitpuller's
``GitPuller`` clones a ``file://`` copy of this repository into a fresh
folder named as the link expects, and a second pull brings the instructor's
new commit while keeping a student's own edit.
"""

import os
import shutil
import subprocess
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

pull = pytest.importorskip(
    "nbgitpuller.pull",
    reason="nbgitpuller is not installed "
    "(it is in the 'test' extra: pip install -e '.[test]')",
)
if shutil.which("git") is None:
    pytest.skip("git is not installed", allow_module_level=True)

ROOT = Path(__file__).resolve().parent.parent

# Commits made here must not depend on the machine's git configuration.
GIT_ENV = {**os.environ,
           "GIT_AUTHOR_NAME": "Instructor", "GIT_AUTHOR_EMAIL": "i@example.org",
           "GIT_COMMITTER_NAME": "Instructor", "GIT_COMMITTER_EMAIL": "i@example.org"}


def git(*args, cwd):
    return subprocess.run(["git", *args], cwd=cwd, env=GIT_ENV, check=True,
                          capture_output=True, text=True).stdout.strip()


def run_pull(source: Path, target: Path, branch: str) -> str:
    """Pull ``source`` into ``target`` as the hub's git-pull handler would."""
    puller = pull.GitPuller(f"file://{source}", str(target), branch=branch)
    return "".join(puller.pull())


def test_gitpuller_clones_and_updates_a_file_url(tmp_path):
    source = tmp_path / "source"
    git("clone", "--quiet", "--no-hardlinks", str(ROOT), str(source), cwd=tmp_path)
    branch = git("rev-parse", "--abbrev-ref", "HEAD", cwd=source)

    # The folder the guide's link opens: lab/tree/<repository name>/notebooks/...
    guide = (ROOT / "notebooks" / "instructor_guide.md").read_text(encoding="utf-8")
    url = next(u for u in guide.split() if "/git-pull?" in u)
    urlpath = parse_qs(urlsplit(url).query)["urlpath"][0]
    folder, notebook = urlpath.removeprefix("lab/tree/").split("/", 1)
    home = tmp_path / "home"
    home.mkdir()
    target = home / folder

    run_pull(source, target, branch)
    assert (target / notebook).is_file()
    assert (target / "helpers" / "attention" / "core.py").is_file()

    # A student edits a notebook; the instructor commits something new.
    student_file = target / "notebooks" / "01_embeddings.ipynb"
    student_file.write_text(student_file.read_text() + "\n", encoding="utf-8")
    (source / "NEW_FOR_CLASS.md").write_text("homework\n", encoding="utf-8")
    git("add", "NEW_FOR_CLASS.md", cwd=source)
    git("commit", "--quiet", "-m", "homework", cwd=source)

    run_pull(source, target, branch)
    assert (target / "NEW_FOR_CLASS.md").read_text() == "homework\n"
    assert student_file.read_text().endswith("}\n\n"), "the student's edit was lost"

