"""Startup module that `rehearse` puts first on the PYTHONPATH of the command it runs.

Python imports `sitecustomize` at startup. This one takes its folder off `sys.path`, runs the `sitecustomize` it
shadowed (if any), and, when `CHECKPOINTING_V6_PREVIEW` asks for it, arranges for the v6 preview to be applied as
soon as the process imports transformers. A process that never imports transformers is left alone.
"""

import os
import sys


class _Refuse:
    """Stops the process, with the reason, when it imports transformers."""

    def __init__(self, reason: str) -> None:
        self.reason = reason

    def find_spec(self, name: str, path: object = None, target: object = None) -> None:
        if name == "transformers":
            print(f"rehearse: error: {self.reason}", file=sys.stderr)
            raise SystemExit(2)


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
        from checkpointing_migrate.rehearse import preview
    except ImportError:
        source = os.environ.get("CHECKPOINTING_V6_PREVIEW_PATH")
        if source:
            sys.path.append(source)  # last: it never shadows what the program itself imports
        try:
            from checkpointing_migrate.rehearse import preview
        except ImportError as exc:
            # This Python cannot load the preview (e.g. it lacks PyYAML). Running it without the preview would pass
            # for a rehearsal, so it fails, but only if it imports transformers: other tools of the command run on.
            sys.meta_path.insert(0, _Refuse(f"cannot load the v6 preview in {sys.executable}: {exc}"))
            return
    try:
        if preview.requested():
            preview.install_on_import()
    except preview.PreviewError as exc:
        print(f"rehearse: error: {exc}", file=sys.stderr)
        raise SystemExit(2) from None


_bootstrap()
