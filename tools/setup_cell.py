# @title Setup: run this cell first (in Colab it installs the helpers)
import os, subprocess, sys  # noqa: E401
REPO, BRANCH = "__REPO__", "__BRANCH__"
HOME = "/content/" + REPO.split("/")[1]  # where Colab keeps the project
if "google.colab" in sys.modules and not os.path.isdir(HOME):  # fetch and install
    for cmd in (["git", "clone", "-q", "--depth=1", "-b", BRANCH,
                 f"https://github.com/{REPO}.git", HOME],
                [sys.executable, "-m", "pip", "install", "-q", "-e", HOME]):
        if subprocess.run(cmd, capture_output=True).returncode:
            raise SystemExit(f"Setup failed: {' '.join(cmd)}. Check internet access.")
for root in (HOME, os.path.abspath("..")):  # Colab, or JupyterLab/Binder in notebooks/
    if os.path.isdir(root + "/helpers") and root not in sys.path:
        sys.path.insert(0, root)
import helpers  # noqa: E402
helpers.setup_notebook(colab_home=HOME)
