# Real-browser test targets (tests/browser). Include from the Makefile, after
# VPY and STAMP are defined:   include tests/browser/browser.mk
# The browser test itself also runs inside `make test`, in two halves side by side
# (test-part-browser-1 and -2, see ATTN_BROWSER_SHARD in conftest.py).
#
#   make test-browser            only the browser test (JupyterLab + Chromium)
#   make test-browser-selfcheck  prove it fails on broken demo notebooks and on
#                                a playground with a frozen tab
#
# Needs Debian's chromium (/usr/bin/chromium; .ci/run installs it in CI) and
# the playwright pip package (in pyproject's test extra). Never
# `playwright install`. Screenshots land in build/screenshots/.

.PHONY: test-browser test-browser-selfcheck

test-browser: $(STAMP)
	$(VPY) -m pytest tests/browser -q -rs --durations=12

test-browser-selfcheck: $(STAMP)
	$(VPY) tests/browser/selfcheck.py
