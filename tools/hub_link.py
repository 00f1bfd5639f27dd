"""The nbgitpuller link of the instructor's guide, generated from the repository slug.

`notebooks/instructor_guide.md` holds a JupyterHub link between the markers
``<!-- nbtools:hub-link -->`` and ``<!-- /nbtools:hub-link -->``. Its text is
generated here from the repository's one record of its location (the slug,
``owner/name``), so that moving the repository moves the link. The navigation
tool calls :func:`render_region` (or :func:`update_text`) with its slug;
nothing here reads the slug itself.

Only the standard library is used: this is a maintainer tool, never imported
by a notebook.
"""

from __future__ import annotations

import re
from urllib.parse import quote

START = "<!-- nbtools:hub-link -->"
END = "<!-- /nbtools:hub-link -->"

#: Placeholder address of the instructor's hub; the guide tells them to replace it.
EXAMPLE_HUB = "https://hub.example.edu"
#: The notebook the link opens after the pull.
FIRST_NOTEBOOK = "notebooks/00_start_here.ipynb"


def hub_link(slug: str, branch: str = "main", hub: str = EXAMPLE_HUB,
             notebook: str = FIRST_NOTEBOOK) -> str:
    """The nbgitpuller URL that clones ``github.com/<slug>`` into a hub account.

    ``slug`` is ``"owner/name"``; nbgitpuller clones into a folder named after
    the repository (``name``), so ``urlpath`` opens JupyterLab on
    ``name/<notebook>``. Every query value is URL-encoded.
    """
    owner, sep, name = slug.partition("/")
    if not (owner and sep and name) or "/" in name or any(c.isspace() for c in slug):
        raise ValueError(f"expected a slug 'owner/name', got {slug!r}")
    repo = quote(f"https://github.com/{slug}", safe="")
    urlpath = quote(f"lab/tree/{name}/{notebook}", safe="")
    return (f"{hub.rstrip('/')}/hub/user-redirect/git-pull"
            f"?repo={repo}&urlpath={urlpath}&branch={quote(branch, safe='')}")


def render_region(slug: str, branch: str = "main") -> str:
    """The generated region, markers included: the link in a code block."""
    return f"{START}\n```\n{hub_link(slug, branch)}\n```\n{END}"


def update_text(text: str, slug: str, branch: str = "main") -> str:
    """``text`` with its hub-link region regenerated from ``slug``.

    Raises ``ValueError`` if the markers are missing or appear more than once.
    """
    pattern = re.compile(re.escape(START) + r".*?" + re.escape(END), re.S)
    if len(pattern.findall(text)) != 1:
        raise ValueError(f"expected exactly one {START} ... {END} region")
    return pattern.sub(lambda _: render_region(slug, branch), text)
