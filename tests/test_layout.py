"""The package's import rules (DESIGN.md "Shape"): arrows point down, no circles.

cli -> packs (award, task) -> core -> data. A pack never imports `gavelkit.cli`
or the other pack; `core` imports no pack; module-level imports form no cycle.
Imports inside functions count too: a lazy import is still an arrow, and a
circle of lazy imports is still two modules that cannot be understood apart.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src"
PKG = SRC / "gavelkit"
FIGQA = PKG / "award" / "figures" / "figqa.py"
MAX_LINES = 550  # "about 500": gate_e.py (535) holds one gate and stays whole


def _modname(path: Path) -> str:
    rel = path.relative_to(SRC).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imports(path: Path) -> list[str]:
    """Every gavelkit module the file imports, at module level or inside functions."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    mod = _modname(path)
    is_pkg = path.name == "__init__.py"
    out: list[str] = []
    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                pkg = mod.split(".") if is_pkg else mod.split(".")[:-1]
                pkg = pkg[: len(pkg) - node.level + 1]
                base = ".".join([*pkg, base] if base else pkg)
            names = [base] + [f"{base}.{a.name}" for a in node.names]
        for name in names:
            if name.startswith("gavelkit"):
                out.append(name)
    return out


def _modules() -> dict[str, Path]:
    return {_modname(p): p for p in PKG.rglob("*.py")}


def _layer(mod: str) -> str:
    parts = mod.split(".")
    return parts[1] if len(parts) > 1 else ""


def _resolve(name: str, mods: dict[str, Path]) -> str | None:
    while name and name not in mods:
        name = name.rpartition(".")[0]
    return name or None


FORBIDDEN = {
    "award": {"cli", "task"},
    "task": {"cli", "award"},
    "core": {"cli", "award", "task"},
    "data": {"cli", "award", "task", "core"},
}


def test_arrows_point_down() -> None:
    mods = _modules()
    bad = []
    for mod, path in mods.items():
        for name in _imports(path):
            target = _resolve(name, mods)
            if target and _layer(target) in FORBIDDEN.get(_layer(mod), set()):
                bad.append(f"{mod} imports {target}")
    assert not bad, "\n".join(sorted(set(bad)))


def test_no_import_cycles() -> None:
    mods = _modules()
    graph: dict[str, set[str]] = {m: set() for m in mods}
    for mod, path in mods.items():
        for name in _imports(path):
            target = _resolve(name, mods)
            if target and target != mod and not mod.startswith(target + "."):
                graph[mod].add(target)
    cycles: list[list[str]] = []
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(m: str) -> None:
        state[m] = 1
        stack.append(m)
        for n in sorted(graph[m]):
            if state.get(n) == 1:
                cycles.append([*stack[stack.index(n):], n])
            elif n not in state:
                visit(n)
        stack.pop()
        state[m] = 2

    for m in sorted(graph):
        if m not in state:
            visit(m)
    assert not cycles, "\n".join(" -> ".join(c) for c in cycles)


@pytest.mark.parametrize("pack", ["award", "task"])
def test_packs_are_grouped_by_capability(pack: str) -> None:
    """Only shared tables and the package marker sit at a pack's top level."""
    loose = sorted(p.name for p in (PKG / pack).glob("*.py")
                   if p.name not in {"__init__.py", "tables.py", "config.py", "judgedata.py"})
    assert loose == []


def test_modules_stay_small() -> None:
    big = [f"{p.relative_to(SRC)}: {n}" for p in PKG.rglob("*.py")
           if p != FIGQA and (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES]
    assert not big, "split these along their seams:\n" + "\n".join(big)


def test_figqa_stands_alone() -> None:
    """The seed copies figqa.py into a submission: it may import nothing of ours."""
    assert not _imports(FIGQA)
