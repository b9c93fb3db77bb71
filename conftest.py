"""Collects the doc tests: every ```pycon fence under docs/, as written and under the old names (tests/pycon_doctests.py)."""

from tests.pycon_doctests import pytest_collect_file

__all__ = ["pytest_collect_file"]
