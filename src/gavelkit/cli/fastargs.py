"""A small argv reader for the hottest commands, so argparse loads only when needed.

Agents call `gavel award lint …` dozens of times per run; argparse (with gettext,
locale and, through its help formatter, shutil, bz2 and lzma) is a large share of
that start-up. `parse` understands exactly the plain forms: positionals, `--opt
VALUE`, `--opt=VALUE` and boolean flags. Anything else (help, an unknown or
abbreviated option, a missing value, a bad choice, `--`) returns None and the
caller runs its argparse parser, which owns every message and exit code, so a
user never sees two behaviours. tests/test_fastargs.py checks both readers agree.
"""

from __future__ import annotations

from collections.abc import Sequence
from types import SimpleNamespace

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


class Spec:
    """positionals: [(dest, choices or None, nargs '1' | '+')]; options: {flag: (dest, kind,
    choices)} with kind 'value' or 'flag'; defaults: {dest: value}."""

    def __init__(self, positionals: list[tuple[str, Sequence[str] | None, str]],
                 options: dict[str, tuple[str, str, Sequence[str] | None]],
                 defaults: dict[str, Any]) -> None:
        self.positionals = positionals
        self.options = options
        self.defaults = defaults


def parse(argv: Sequence[str], spec: Spec) -> SimpleNamespace | None:
    values: dict[str, Any] = dict(spec.defaults)
    for dest, kind, _ in spec.options.values():
        values.setdefault(dest, False if kind == "flag" else None)
    pos: list[str] = []
    i = 0
    while i < len(argv):
        a = argv[i]
        if a.startswith("-") and a != "-":
            name, eq, val = a.partition("=")
            opt = spec.options.get(name)
            if opt is None:
                return None  # help, abbreviations, unknown options, `--`: argparse decides
            dest, kind, choices = opt
            if kind == "flag":
                if eq:
                    return None
                values[dest] = True
            else:
                if not eq:
                    i += 1
                    if i >= len(argv) or (argv[i].startswith("-") and argv[i] != "-"):
                        return None
                    val = argv[i]
                if choices is not None and val not in choices:
                    return None
                values[dest] = val
        else:
            pos.append(a)
        i += 1
    for n, (dest, choices, nargs) in enumerate(spec.positionals):
        last = n == len(spec.positionals) - 1
        if nargs == "+":
            if not last or not pos:
                return None
            values[dest], pos = pos, []
        else:
            if not pos or (choices is not None and pos[0] not in choices):
                return None
            values[dest], pos = pos[0], pos[1:]
    return SimpleNamespace(**values) if not pos else None
