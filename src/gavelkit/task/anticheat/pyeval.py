"""What a piece of Python reads, lists, writes and runs, with its strings folded.

Why: `open('/srv/t' + 'asks/' + name)`, `os.path.join(root, 'oracle')`,
`glob.glob('/srv/*/oracle/*.py')`, `subprocess.run(['git', '--git-dir', d, 'show'])`
and `exec(base64.b64decode(...))` hide their paths from a pattern but not from an
evaluator. `effects(code, ctx)` walks the module in order, keeps simple variable
bindings, folds string expressions (concatenation, f-strings, `%`, `.format`,
`join`, `os.path.join`, `pathlib` `/`, slicing, base64/hex/rot13 decoding, `chr`)
and records each call that touches the file system, runs a command or runs code.
Nothing is executed. A value it cannot know is None; text with an unknown piece
carries UNKNOWN.
"""

from __future__ import annotations

import ast
import posixpath
from dataclasses import dataclass, field
from typing import Any

from gavelkit.task.anticheat.pycalls import apply
from gavelkit.task.anticheat.shvalues import RECURSIVE, UNKNOWN

MAX_STMTS = 50_000
MAX_LOOP = 8
@dataclass
class Effects:
    reads: list[str] = field(default_factory=list)
    lists: list[str] = field(default_factory=list)
    writes: list[tuple[str, str | None]] = field(default_factory=list)
    shells: list[str] = field(default_factory=list)
    argvs: list[list[str]] = field(default_factory=list)
    codes: list[str] = field(default_factory=list)
    imports: set[str] = field(default_factory=set)
    strings: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    urls: list[str] = field(default_factory=list)
    printed: list[str | None] = field(default_factory=list)
    sys_paths: list[str] = field(default_factory=list)
    parsed: bool = True


def _fname(fn: ast.expr) -> tuple[str, str]:
    """(qualified-ish name, last attribute) of a call's function."""
    if isinstance(fn, ast.Name):
        return fn.id, fn.id
    if isinstance(fn, ast.Attribute):
        base = _fname(fn.value)[0] if isinstance(fn.value, ast.Name | ast.Attribute) else ""
        return f"{base}.{fn.attr}" if base else fn.attr, fn.attr
    return "", ""


class _Walker:
    def __init__(self, cwd: str | None, home: str, env: dict[str, str]) -> None:
        self.cwd = cwd
        self.home = env.get("HOME") or home      # expanduser and Path.home() read $HOME
        self.osenv = env
        self.env: dict[str, Any] = {}
        self.fx = Effects()
        self.count = 0

    # -- statements
    def block(self, body: list[ast.stmt]) -> None:
        for st in body:
            self.count += 1
            if self.count > MAX_STMTS:
                self.fx.notes.append(f"python code over {MAX_STMTS} statements was not "
                                     "fully followed")
                return
            self.stmt(st)

    def stmt(self, st: ast.stmt) -> None:
        handler = _STMT.get(type(st))
        if handler is not None:
            handler(self, st)
        else:
            self.generic(st)

    def assign(self, st: ast.Assign) -> None:
        val = self.val(st.value)
        for t in st.targets:
            self.bind(t, val)

    def annassign(self, st: ast.AnnAssign) -> None:
        if st.value is not None:
            self.bind(st.target, self.val(st.value))
        else:
            self.generic(st)

    def with_(self, st: ast.With | ast.AsyncWith) -> None:
        for item in st.items:
            val = self.val(item.context_expr)
            if item.optional_vars is not None:
                self.bind(item.optional_vars, val)
        self.block(st.body)

    def generic(self, st: ast.stmt) -> None:
        for name, value in ast.iter_fields(st):
            if name in ("body", "orelse", "finalbody", "handlers") and isinstance(value, list):
                self._bodies(value)
            elif isinstance(value, ast.expr):
                self.val(value)
            elif name == "cases" and isinstance(value, list):
                for case in value:
                    self.block(case.body)

    def _bodies(self, value: list[Any]) -> None:
        for sub in value:
            if isinstance(sub, ast.ExceptHandler):
                self.block(sub.body)
            elif isinstance(sub, ast.stmt):
                self.block([sub])

    def augassign(self, st: ast.AugAssign) -> None:
        if isinstance(st.target, ast.Name) and isinstance(st.op, ast.Add):
            old, new = self.env.get(st.target.id), self.val(st.value)
            self.env[st.target.id] = old + new if isinstance(old, str) and isinstance(
                new, str) else (old + new if isinstance(old, list) and isinstance(new, list)
                                else None)
        else:
            self.val(st.value)

    def loop(self, st: ast.For | ast.AsyncFor) -> None:
        it = self.val(st.iter)
        values = it if isinstance(it, list) else [it]
        if self._is_walk(st.iter):
            values = [[it, RECURSIVE, RECURSIVE]] if isinstance(it, str) else [None]
        for v in values[:MAX_LOOP] or [None]:
            self.bind(st.target, v)
            self.block(st.body)
        self.block(st.orelse)

    @staticmethod
    def _is_walk(node: ast.expr) -> bool:
        return isinstance(node, ast.Call) and _fname(node.func)[1] in ("walk", "fwalk")

    def imports(self, st: ast.Import | ast.ImportFrom) -> None:
        if isinstance(st, ast.Import):
            for a in st.names:
                self.fx.imports.add(a.name.split(".")[0])
                self.env[(a.asname or a.name).split(".")[0]] = None
        elif st.module:
            self.fx.imports.add(st.module.split(".")[0])

    def bind(self, target: ast.expr, val: Any) -> None:
        if isinstance(target, ast.Name):
            self.env[target.id] = val
        elif isinstance(target, ast.Tuple | ast.List):
            vals = val if isinstance(val, list) and len(val) == len(target.elts) else \
                [RECURSIVE if isinstance(val, str) and RECURSIVE in val else None] * len(
                    target.elts)
            for t, v in zip(target.elts, vals, strict=False):
                self.bind(t, v)

    # -- expressions
    def val(self, node: ast.expr) -> Any:
        fn = _EXPR.get(type(node))
        if fn is not None:
            return fn(self, node)
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.expr):
                self.val(child)
        return None

    def s(self, node: ast.expr | None) -> str | None:
        if node is None:
            return None
        v = self.val(node)
        return v if isinstance(v, str) else None

    def call(self, node: ast.Call) -> Any:
        qual, name = _fname(node.func)
        recv = self.val(node.func.value) if isinstance(node.func, ast.Attribute) else None
        args: list[Any] = []
        for a in node.args:
            if isinstance(a, ast.Starred):     # f(*parts): the parts, when known
                v = self.val(a.value)
                args.extend(v if isinstance(v, list) else [UNKNOWN])
            else:
                args.append(self.val(a))
        kw = {k.arg: self.val(k.value) for k in node.keywords if k.arg}
        return apply(self, qual, name, recv, args, kw, node)


def _constant(w: _Walker, node: ast.Constant) -> Any:
    v = node.value
    if isinstance(v, bytes):
        v = v.decode("utf-8", "replace")
    if isinstance(v, str):
        w.fx.strings.append(v)
    return v


def _name(w: _Walker, node: ast.Name) -> Any:
    return w.env.get(node.id)


def _joined(w: _Walker, node: ast.JoinedStr) -> Any:
    out: list[str] = []
    for part in node.values:
        if isinstance(part, ast.Constant):
            out.append(str(part.value))
        elif isinstance(part, ast.FormattedValue):
            v = w.val(part.value)
            out.append(str(v) if isinstance(v, str | int) else UNKNOWN)
    text = "".join(out)
    w.fx.strings.append(text)
    return text


def _add(w: _Walker, a: Any, b: Any) -> Any:
    if (isinstance(a, str) and isinstance(b, str)) or (isinstance(a, list) and isinstance(
            b, list)):
        res = a + b
        if isinstance(res, str):
            w.fx.strings.append(res)
        return res
    return UNKNOWN if isinstance(a, str) or isinstance(b, str) else None


def _div(w: _Walker, a: Any, b: Any) -> Any:
    return posixpath.join(a, b) if isinstance(a, str) and isinstance(b, str) else _NO_STR


def _mod(w: _Walker, a: Any, b: Any) -> Any:
    if not isinstance(a, str):
        return _NO_STR
    vals = b if isinstance(b, list) else [b]
    try:
        return a % tuple(v if isinstance(v, str | int) else UNKNOWN for v in vals)
    except (TypeError, ValueError):
        return UNKNOWN


def _mult(w: _Walker, a: Any, b: Any) -> Any:
    return a * min(b, 64) if isinstance(a, str) and isinstance(b, int) else _NO_STR


_NO_STR = object()      # the operator's string rule does not apply: numbers may
_STR_OPS: dict[type, Any] = {ast.Add: _add, ast.Div: _div, ast.Mod: _mod, ast.Mult: _mult}


def _binop(w: _Walker, node: ast.BinOp) -> Any:
    a, b = w.val(node.left), w.val(node.right)
    rule = _STR_OPS.get(type(node.op))
    if rule is not None:
        res = rule(w, a, b)
        if res is not _NO_STR:
            return res
    if isinstance(a, int) and isinstance(b, int) and not isinstance(node.op, ast.Pow):
        return _arith(a, b, node.op)
    return None


def _arith(a: int, b: int, op: ast.operator) -> Any:
    try:
        return eval(compile(ast.Expression(ast.BinOp(ast.Constant(a), op, ast.Constant(b))),
                            "<n>", "eval"))
    except (ArithmeticError, TypeError, ValueError):
        return None


def _seq(w: _Walker, node: ast.List | ast.Tuple) -> Any:
    return [w.val(e) for e in node.elts]


def _subscript(w: _Walker, node: ast.Subscript) -> Any:
    base = w.val(node.value)
    sl = node.slice
    if isinstance(sl, ast.Slice):
        return _slice(w, base, sl)
    idx = w.val(sl)
    if isinstance(base, dict) and isinstance(idx, str):
        return base.get(idx)
    if isinstance(base, list | str) and isinstance(idx, int) and -len(base) <= idx < len(base):
        return base[idx]
    return None


def _slice(w: _Walker, base: Any, sl: ast.Slice) -> Any:
    """A slice of a known text or list; a bound that was given but is not a known number
    makes the text unknown (`s[::-1]` with a step the walk could not read is not `s`)."""
    parts = (sl.lower, sl.upper, sl.step)
    vals = [w.val(x) if x is not None else None for x in parts]
    if any(x is not None and not isinstance(v, int) for x, v in zip(parts, vals, strict=True)):
        return UNKNOWN if isinstance(base, str) else None
    lo, hi, step = vals
    if isinstance(base, str | list) and step != 0:
        return base[lo:hi:step]
    return None


def _unary(w: _Walker, node: ast.UnaryOp) -> Any:
    v = w.val(node.operand)
    if isinstance(v, int) and not isinstance(v, bool) and isinstance(node.op, ast.USub | ast.UAdd):
        return -v if isinstance(node.op, ast.USub) else v
    return None


def _attribute(w: _Walker, node: ast.Attribute) -> Any:
    base = w.val(node.value)
    qual = _fname(node)[0]
    if qual == "os.environ":
        return dict(w.osenv)
    if qual in ("os.sep", "os.path.sep"):
        return "/"
    if isinstance(base, str) and node.attr == "parent":
        return posixpath.dirname(base.rstrip("/"))
    if isinstance(base, str) and node.attr in ("name", "stem"):
        return posixpath.basename(base)
    return None


def _ifexp(w: _Walker, node: ast.IfExp) -> Any:
    w.val(node.test)
    a, b = w.val(node.body), w.val(node.orelse)
    return a if a is not None else b


def _compare(w: _Walker, node: ast.expr) -> Any:
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.expr):
            w.val(child)
    return None


def _comp(w: _Walker, node: ast.ListComp | ast.GeneratorExp | ast.SetComp) -> Any:
    for gen in node.generators:
        it = w.val(gen.iter)
        w.bind(gen.target, it[0] if isinstance(it, list) and it else (
            it if isinstance(it, str) else None))
    elt = w.val(node.elt)
    return [elt] if elt is not None else None


def _lambda(w: _Walker, node: ast.Lambda) -> Any:
    w.val(node.body)
    return None


_STMT: dict[type, Any] = {ast.Assign: _Walker.assign, ast.AnnAssign: _Walker.annassign,
                          ast.AugAssign: _Walker.augassign, ast.For: _Walker.loop,
                          ast.AsyncFor: _Walker.loop, ast.Import: _Walker.imports,
                          ast.ImportFrom: _Walker.imports, ast.With: _Walker.with_,
                          ast.AsyncWith: _Walker.with_}
_EXPR: dict[type, Any] = {ast.Constant: _constant, ast.Name: _name, ast.JoinedStr: _joined,
                          ast.BinOp: _binop, ast.List: _seq, ast.Tuple: _seq,
                          ast.Subscript: _subscript, ast.Attribute: _attribute,
                          ast.Call: _Walker.call, ast.IfExp: _ifexp, ast.Compare: _compare,
                          ast.BoolOp: _compare, ast.ListComp: _comp, ast.GeneratorExp: _comp,
                          ast.SetComp: _comp, ast.Lambda: _lambda, ast.UnaryOp: _unary}


def effects(code: str, cwd: str | None = None, home: str = "/root",
            env: dict[str, str] | None = None) -> Effects:
    """Walk `code` (Python source) and return what it does to files, commands and code."""
    w = _Walker(cwd, home, env or {})
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        w.fx.parsed = False
        return w.fx
    try:
        w.block(tree.body)
    except RecursionError:
        w.fx.notes.append("python code nested too deeply to follow")
    return w.fx


__all__ = ["Effects", "effects"]
