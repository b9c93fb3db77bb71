"""git's ignore rules in the stdlib (a project may not be a git repository, git may not be installed): `.gitignore`
lines, and `--exclude` globs, compiled to regular expressions with gitignore(5)'s semantics: the last matching line
wins, `!` re-includes, a leading or inner `/` anchors, a trailing `/` matches folders only, `*` and `?` stop at `/`,
`**` spans folders; a deeper file wins over a shallower one, and an ignored folder is not entered.
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass

from checkpointing_migrate.project import repository_root


@dataclass(frozen=True)
class Pattern:
    """One compiled line."""

    regex: re.Pattern[str]
    """Matches a path relative to the pattern's folder, `/`-separated."""
    negated: bool
    folders_only: bool
    source: str
    """The line as written (for messages and tests)."""
    last_part: bool = False
    """It can only match a path's last part (no `/`, `[` or `**` in it), so that part alone is matched."""


def _translate(glob: str) -> str:
    """The regex of a `/`-separated glob (no leading `/`, no trailing `/`), `**` handled as git does."""
    out = []
    i, n = 0, len(glob)
    while i < n:
        c = glob[i]
        if glob.startswith("**", i) and (i == 0 or glob[i - 1] == "/") and (i + 2 == n or glob[i + 2] == "/"):
            if i + 2 == n:
                out.append(".*")  # `x/**`: everything inside x
                i += 2
            else:
                out.append("(?:.*/)?")  # `**/x`, `a/**/b`: zero or more folders
                i += 3
        elif c == "*":
            out.append("[^/]*")
            i += 1
        elif c == "?":
            out.append("[^/]")
            i += 1
        elif c == "[":
            end = glob.find("]", i + 2 if glob[i + 1 : i + 2] in ("!", "^", "]") else i + 1)
            if end < 0:
                out.append(re.escape(c))
                i += 1
                continue
            body = glob[i + 1 : end]
            if body[:1] in ("!", "^"):
                body = "^" + body[1:]
            group = "[" + body.replace("\\", "\\\\").replace("[", "\\[") + "]"
            try:
                re.compile(group)
            except re.error:  # `[z-a]`: no character matches it, as in git
                group = "(?!)"
            out.append(group)
            i = end + 1
        elif c == "\\" and i + 1 < n:
            out.append(re.escape(glob[i + 1]))
            i += 2
        else:
            out.append(re.escape(c))
            i += 1
    return "".join(out)


def compile_line(line: str) -> Pattern | None:
    """The pattern of one `.gitignore` line; `None` for a blank line or a comment."""
    source = line
    line = line.rstrip("\n").rstrip("\r")
    stripped = line.rstrip(" ")
    if stripped.endswith("\\") and len(stripped) < len(line):
        stripped += " "  # `foo\ ` keeps its escaped trailing space
    line = stripped
    if not line or line.startswith("#"):
        return None
    negated = line.startswith("!")
    if negated:
        line = line[1:]
    elif line.startswith(("\\!", "\\#")):
        line = line[1:]
    folders_only = line.endswith("/")
    line = line.rstrip("/")
    if not line:
        return None
    anchored = "/" in line  # a slash at the start or in the middle anchors it; a trailing one was removed above
    line = line.lstrip("/")
    body = _translate(line)
    regex = body if anchored or line.startswith("**/") else _ANYWHERE + body
    last_part = not anchored and "[" not in line and "**" not in line  # nothing in it can match a `/`
    return Pattern(re.compile(regex + r"\Z", re.DOTALL), negated, folders_only, source.strip(), last_part)


def compile_lines(text: str) -> tuple[Pattern, ...]:
    """The patterns of a whole `.gitignore` file, in order."""
    return tuple(p for p in (compile_line(line) for line in text.splitlines()) if p is not None)


@dataclass(frozen=True)
class Level:
    """The patterns of one ignore file, and the folder they are relative to."""

    folder: str
    """Absolute, normalised."""
    patterns: tuple[Pattern, ...]

    @functools.cached_property
    def any(self) -> re.Pattern[str]:
        """Matches what at least one pattern matches: one C-level test rejects most paths of a walk."""
        return _either(p.regex.pattern for p in self.patterns)

    @functools.cached_property
    def _last_parts(self) -> re.Pattern[str]:
        """`any` for the patterns that match a path's last part alone (`build`, `*.pyc`), without the leading
        `(?:.*/)?` that made the test try every `/` of a long path for each of them."""
        return _either(p.regex.pattern.removeprefix(_ANYWHERE) for p in self.patterns if p.last_part)

    @functools.cached_property
    def _others(self) -> re.Pattern[str]:
        return _either(p.regex.pattern for p in self.patterns if not p.last_part)

    def may_match(self, relative: str) -> bool:
        """What `any.match(relative)` says (`relative`: `/`-separated), found faster."""
        return bool(self._last_parts.match(relative[relative.rfind("/") + 1 :]) or self._others.match(relative))


_ANYWHERE = "(?:.*/)?"
"""How the regex of a pattern that matches at any depth starts (`compile_line`)."""


def _either(patterns: Iterable[str]) -> re.Pattern[str]:
    return re.compile("|".join(f"(?:{p})" for p in patterns) or r"(?!)", re.DOTALL)


def decide(levels: list[Level], path: str, is_folder: bool) -> bool | None:
    """Whether the absolute, normalised `path` is ignored by `levels` (shallowest first): `True`, `False` (re-included by a `!`
    line), or `None` when no line matches it."""
    for level in reversed(levels):
        prefix = level.folder if level.folder.endswith(os.sep) else level.folder + os.sep
        if not path.startswith(prefix):  # both normalised: a prefix test, not `relpath` (most of a walk's time)
            continue
        relative = path[len(prefix) :].replace(os.sep, "/")
        if not level.may_match(relative):
            continue
        for pattern in reversed(level.patterns):
            if pattern.folders_only and not is_folder:
                continue
            if pattern.regex.match(relative):
                return not pattern.negated
    return None


def read_level(folder: str, name: str = ".gitignore") -> Level | None:
    """The ignore file `name` in `folder` (`.git/info/exclude` too), or `None` when there is none or it cannot be
    read (git too ignores an unreadable ignore file)."""
    try:
        with open(os.path.join(folder, name), encoding="utf-8", errors="replace") as f:
            patterns = compile_lines(f.read())
    except OSError:
        return None
    return Level(folder, patterns) if patterns else None


def levels_above(top: str) -> list[Level]:
    """The ignore files that apply to the folder `top` from above it: `.git/info/exclude` and every `.gitignore`
    from the repository's root down to `top`'s parent; none outside a repository (a folder's own `.gitignore` is
    read by the walk)."""
    root = repository_root(top)
    if root is None:
        return []
    levels = [read_level(root, os.path.join(".git", "info", "exclude"))]
    relative = os.path.relpath(top, root)
    folder = root
    for part in [] if relative == "." else relative.split(os.sep):
        levels.append(read_level(folder))
        folder = os.path.join(folder, part)
    return [level for level in levels if level is not None]
