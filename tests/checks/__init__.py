"""The checker tests, one file per lesson: tests/checks/test_lessonNN.py.

A package, so that its conftest (the shared asserts) is imported as
``checks.conftest`` and never replaces ``tests/conftest.py``.
"""
