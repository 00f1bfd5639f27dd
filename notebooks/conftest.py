# For nbval (make test): the playground is an app stored without outputs
# (Voila runs it; tests/browser/test_playground.py drives it), so there is
# nothing stored to compare it with.
collect_ignore = ["playground.ipynb"]
