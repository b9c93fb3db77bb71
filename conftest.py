"""Collects the doc tests: every ```pycon fence under docs/, as written and under the old names (tests/pycon_doctests.py),
and orders the test files for `make test`'s parallel run: the slowest first, so no worker ends alone on a long one.
"""

from __future__ import annotations

import pytest

from tests.pycon_doctests import pytest_collect_file

__all__ = ["pytest_collect_file", "pytest_collection_modifyitems"]

SLOWEST_FIRST = (
    "test_browser.py",
    "test_refresh.py",
    "test_matrix.py",
    "test_realcode.py",
    "test_migrate_adoption.py",
    "test_rehearse.py",
    "test_audit.py",
    "test_package.py",
    "test_site_build.py",
)
"""Test files by measured duration (a per-file timeline of `make test`), longest first. `pytest-xdist --dist loadfile
--no-loadscope-reorder` hands files to its workers in collection order; without that flag xdist 3.8 orders them by
their number of tests, which started the refresh test (23 tests, minutes) after ten minutes of small files."""


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    rank = {name: i for i, name in enumerate(SLOWEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))  # stable: the rest keep their order
