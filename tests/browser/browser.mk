# Real-browser test targets (tests/browser). Include from the Makefile, after
# VPY and STAMP are defined:   include tests/browser/browser.mk
# `make test` runs part of it (test-part-browser in the Makefile: every explorer
# in one JupyterLab notebook, and the playground in Voila).
#
#   make test-browser            the whole browser test: also every lesson's Run All
#                                in JupyterLab (JupyterLab + Chromium)
#   make test-browser-selfcheck  prove it fails on broken demo notebooks and on
#                                a playground with a frozen tab
#
# Needs Debian's chromium (/usr/bin/chromium; .ci/run installs it in CI) and
# the playwright pip package (in pyproject's test extra). Never
# `playwright install`. Screenshots land in build/screenshots/.

#   make test-pointer            point at any number (issue 51): in JupyterLab one
#                                explorer a lesson hovered, read by keys, picked
#                                and guessed (test_pointer.py), and the playground
#                                at 720p (test_playground_pointer.py); .ci/run
#                                runs it after make test (minutes, not seconds)

.PHONY: test-browser test-browser-selfcheck test-pointer

test-browser: $(STAMP)
	$(VPY) -m pytest tests/browser -q -rs --durations=12

test-pointer: $(STAMP)
	@echo "== point at any number: read-outs, keys, picks and guesses in JupyterLab and the playground"
	$(VPY) -m pytest tests/browser/test_pointer.py tests/browser/test_playground_pointer.py \
	  -q -rs -s --durations=4

test-browser-selfcheck: $(STAMP)
	$(VPY) tests/browser/selfcheck.py
