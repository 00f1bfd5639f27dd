"""Maintainer tools (never imported by a notebook); see tools/README.md."""
