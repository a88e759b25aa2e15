"""One walk for the shape tests (issue 23): radon's rank of every block in a set of files,
and the functions longer than a limit. The area tests (test_shape_task/award/judge) and the
project-wide one (test_shape.py) hold different limits over the same measurements."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class AreaShape:
    lines: int = 0  # newline count of the files that count for density
    rated_c: list[str] = field(default_factory=list)  # "file:block" rated C
    worse: list[str] = field(default_factory=list)  # "file:line block rated R (n)", D or worse

    @property
    def c_density(self) -> float:
        return len(self.rated_c) * 1000 / self.lines


def area_shape(files: list[Path], standalone: frozenset[Path] = frozenset()) -> AreaShape:
    """radon's cc_visit ranks over `files`; a standalone file counts for "D or worse" only."""
    from radon.complexity import cc_rank, cc_visit  # a test extra: measured, never skipped

    out = AreaShape()
    for p in files:
        text = p.read_text("utf-8")
        for b in cc_visit(text):
            rank = cc_rank(b.complexity)
            if rank not in "ABC":
                out.worse.append(f"{p.name}:{b.lineno} {b.name} rated {rank} ({b.complexity})")
            elif rank == "C" and p not in standalone:
                out.rated_c.append(f"{p.name}:{b.name}")
        if p not in standalone:
            out.lines += text.count("\n")
    return out


def function_lengths(path: Path) -> list[tuple[str, int, int]]:
    """(name, first line, length in lines) of every function and method in the file."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [(n.name, n.lineno, (n.end_lineno or n.lineno) - n.lineno + 1)
            for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]


def long_functions(files: list[Path], limit: int) -> list[str]:
    """"file:line name is n lines" for every function over `limit` lines."""
    return [f"{p.name}:{line} {name} is {n} lines" for p in files
            for name, line, n in function_lengths(p) if n > limit]
