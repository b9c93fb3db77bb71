"""The pytest plugin: `pytest --v6-preview` (or `CHECKPOINTING_V6_PREVIEW=1`) runs the session under the v6 preview.

Registered for everyone who installs the package (entry point `pytest11`), so it must cost nothing otherwise: it
imports only pytest and the package's two-line `__init__`s until the option or the variable asks for the preview.
Then the preview is applied before collection, announced in the report header, and undone when the session ends.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import pytest

from checkpointing_migrate.rehearse import ENV_VAR

if TYPE_CHECKING:  # only for the checker: importing `preview` is what an unasked session must not pay
    from checkpointing_migrate.rehearse.preview import Preview

_APPLIED: pytest.StashKey[Preview] = pytest.StashKey()


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.getgroup("checkpointing").addoption(
        "--v6-preview",
        action="store_true",
        default=False,
        help="run as transformers would behave once the old gradient_checkpointing names are removed "
        f"(the removals planned in aliases.yaml); also on with {ENV_VAR}=1",
    )


def pytest_configure(config: pytest.Config) -> None:
    if not config.getoption("v6_preview") and not os.environ.get(ENV_VAR, "").strip():
        return  # the common case: nothing asked for the preview, nothing more is imported
    from checkpointing_migrate.rehearse import preview

    try:
        if config.getoption("v6_preview") or preview.requested():
            config.stash[_APPLIED] = preview.activate()
    except preview.PreviewError as exc:
        raise pytest.UsageError(f"--v6-preview: {exc}") from None


def pytest_report_header(config: pytest.Config) -> str | None:
    applied = config.stash.get(_APPLIED, None)
    return applied.announcement() if applied is not None else None


def pytest_unconfigure(config: pytest.Config) -> None:
    if config.stash.get(_APPLIED, None) is not None:
        del config.stash[_APPLIED]
        from checkpointing_migrate.rehearse import preview

        preview.deactivate()
