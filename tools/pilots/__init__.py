"""Pilot scripts: trainers with every switch of past experiments (data/README.md)."""
