"""Startup module that `rehearse` puts first on the PYTHONPATH of the command it runs.

Python imports `sitecustomize` at startup. This one takes its folder off `sys.path`, runs the `sitecustomize` it
shadowed (if any), and, when `CHECKPOINTING_V6_PREVIEW` asks for it, arranges for the v6 preview to be applied as
soon as the process imports transformers. A process that never imports transformers is left alone.
"""

import os
import sys


def _bootstrap() -> None:
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != here]
    this = sys.modules.pop(__name__)
    try:
        import sitecustomize  # noqa: F401  # the one this file shadowed, if there is one
    except ImportError:
        pass
    finally:
        sys.modules.setdefault(__name__, this)
    try:
        from generator.rehearse import preview
    except ImportError:
        source = os.environ.get("CHECKPOINTING_V6_PREVIEW_PATH")
        if not source:
            raise
        sys.path.append(source)  # last: it never shadows what the program itself imports
        from generator.rehearse import preview
    try:
        if preview.requested():
            preview.install_on_import()
    except preview.PreviewError as exc:
        print(f"rehearse: error: {exc}", file=sys.stderr)
        raise SystemExit(2) from None


_bootstrap()
