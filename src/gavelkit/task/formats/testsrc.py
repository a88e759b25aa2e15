"""What the oracle test files say, read from their AST (never imported or run).

Per test function: its checks, each classified as test-filter's assertion
kinds, and a one-line summary for the spot-check table. Classification rules
(they are the rule doc of TSK-E005):

- failure_path check: `pytest.raises(...)` / `self.assertRaises*`, `assert not X`,
  `assert X is None|False`, `assert X == None|False`, `assert X != 0` or
  `assert X > 0` where X names an exit/return code, `assertFalse`,
  `assertIsNone`, and a call to a helper whose own checks are all failure_path.
- positive check (besides plain asserts): `pytest.warns(W)` / `pytest.deprecated_call()`
  as a context manager or with the callable: the test fails when the warning is not
  emitted.
- shape check: `assert isinstance(...)|hasattr(...)|callable(...)`,
  `assert type(x) is T`, `assert len(x) <op> n`, `assertIsInstance`,
  `assert X is not None`.
- positive check: any other `assert` / `self.assert*` (equality, membership,
  truthiness of a produced value, exit code == 0, output content).

A test is `positive` if any check is positive; else `failure_path` if any
check is; else `shape` if any; else `no_check`. Helpers defined in the same
module (any function a test calls by name) are followed, so a test whose only
check is `_assert_usage_failure(...)` is failure_path.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from pathlib import Path

from gavelkit.core.errors import InputError
from gavelkit.core.findings import Finding
from gavelkit.core.textio import read_text

KINDS = ("positive", "failure_path", "shape", "no_check")
_CODE_WORDS = ("exit_code", "returncode", "return_code", "exitcode", "status_code", "rc", "code",
               "status")
_FAIL_ASSERTS = {"assertRaises", "assertRaisesRegex", "assertRaisesRegexp", "assertFalse",
                 "assertIsNone", "assertWarns"}
_SHAPE_ASSERTS = {"assertIsInstance", "assertIsNotNone", "assertNotIsInstance"}


@dataclass(slots=True)
class Assertion:
    kind: str
    summary: str
    line: int


@dataclass(slots=True)
class TestFunc:
    name: str
    qualname: str  # Class.name or name
    line: int
    checks: list[Assertion] = field(default_factory=list)
    calls: set[str] = field(default_factory=set)
    kind: str = "no_check"


@dataclass(slots=True)
class TestModule:
    path: str
    tests: dict[str, TestFunc] = field(default_factory=dict)  # qualname -> TestFunc
    helpers: dict[str, TestFunc] = field(default_factory=dict)
    fixture_refs: list[tuple[str, int]] = field(default_factory=list)  # (relative path, line)

    def find(self, name: str) -> TestFunc | None:
        if name in self.tests:
            return self.tests[name]
        hits = [t for q, t in self.tests.items() if q.rsplit(".", 1)[-1] == name]
        return hits[0] if len(hits) == 1 else None


def _short(node: ast.AST, limit: int = 90) -> str:
    try:
        text = ast.unparse(node)
    except Exception:  # pragma: no cover - unparse handles all parsed nodes
        text = type(node).__name__
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _is_const(node: ast.AST, *values: object) -> bool:
    return isinstance(node, ast.Constant) and any(
        node.value is v if v is None or isinstance(v, bool) else node.value == v for v in values)


def _names_code(node: ast.AST) -> bool:
    text = _short(node, 200).lower()
    tail = text.rsplit(".", 1)[-1].rstrip("()")
    return tail in _CODE_WORDS or any(w in text for w in _CODE_WORDS[:5])


def classify_assert(test: ast.expr) -> str:
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return "failure_path"
    if isinstance(test, ast.Call) and isinstance(test.func, ast.Name) and test.func.id in (
            "isinstance", "hasattr", "callable", "issubclass"):
        return "shape"
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        return _classify_compare(test.left, test.ops[0], test.comparators[0])
    return "positive"


def _classify_compare(left: ast.expr, op: ast.cmpop, right: ast.expr) -> str:
    if isinstance(op, ast.Is | ast.Eq) and (_is_const(right, None) or _is_const(right, False)):
        return "failure_path"
    if _shape_compare(left, op, right):
        return "shape"
    if _names_code(left) and _nonzero_code(op, right):
        return "failure_path"
    return "positive"


def _shape_compare(left: ast.expr, op: ast.cmpop, right: ast.expr) -> bool:
    """`X is not None`, `len(x) <op> n`, `type(x) is T`."""
    if isinstance(op, ast.IsNot) and _is_const(right, None):
        return True
    return (isinstance(left, ast.Call) and isinstance(left.func, ast.Name)
            and left.func.id in ("len", "type"))


def _nonzero_code(op: ast.cmpop, right: ast.expr) -> bool:
    """`!= 0`, `> 0` or `== N` (an int other than 0): the code says the command failed."""
    if isinstance(op, ast.NotEq | ast.Gt):
        return _is_const(right, 0)
    return (isinstance(op, ast.Eq) and isinstance(right, ast.Constant)
            and isinstance(right.value, int) and not isinstance(right.value, bool)
            and right.value != 0)


def _unittest_kind(attr: str) -> str:
    """The check kind of a `self.assert*` method."""
    if attr in _FAIL_ASSERTS:
        return "failure_path"
    return "shape" if attr in _SHAPE_ASSERTS else "positive"


class _Visitor(ast.NodeVisitor):
    def __init__(self, func: TestFunc) -> None:
        self.f = func

    def visit_Assert(self, node: ast.Assert) -> None:
        self.f.checks.append(Assertion(classify_assert(node.test), "assert " + _short(node.test),
                                   node.lineno))
        self.generic_visit(node)

    def _raises(self, call: ast.Call) -> str | None:
        fn = call.func
        name = fn.attr if isinstance(fn, ast.Attribute) else fn.id if isinstance(fn, ast.Name) else ""
        if name in ("raises", "assertRaises", "assertRaisesRegex", "assertRaisesRegexp"):
            exc = _short(call.args[0]) if call.args else "exception"
            return f"raises {exc}"
        return None

    @staticmethod
    def _warns(call: ast.Call) -> str | None:
        """`pytest.warns(W)` / `pytest.deprecated_call()`: the test fails when the promised
        warning is not emitted, so it is a check (of a call that succeeds: positive)."""
        fn = call.func
        name = fn.attr if isinstance(fn, ast.Attribute) else fn.id if isinstance(fn, ast.Name) else ""
        if name == "warns":
            return f"warns {_short(call.args[0]) if call.args else 'warning'}"
        if name == "deprecated_call":
            return "warns DeprecationWarning"
        return None

    def visit_With(self, node: ast.With) -> None:
        for item in node.items:
            if isinstance(item.context_expr, ast.Call):
                r = self._raises(item.context_expr)
                if r:
                    self.f.checks.append(Assertion("failure_path", r, node.lineno))
                w = self._warns(item.context_expr)
                if w:
                    self.f.checks.append(Assertion("positive", w, node.lineno))
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        fn = node.func
        if isinstance(fn, ast.Attribute):
            check = self._call_check(node, fn)
            if check is not None:
                self.f.checks.append(check)
        elif isinstance(fn, ast.Name):
            self.f.calls.add(fn.id)
        self.generic_visit(node)

    def _call_check(self, node: ast.Call, fn: ast.Attribute) -> Assertion | None:
        """`self.assert*(...)`, `pytest.raises(X, f, *args)`, `pytest.warns(W, f, *args)`."""
        attr = fn.attr
        if attr.startswith("assert") and isinstance(fn.value, ast.Name) and fn.value.id == "self":
            return Assertion(_unittest_kind(attr), _short(node), node.lineno)
        if attr == "raises" and len(node.args) > 1:
            return Assertion("failure_path", f"raises {_short(node.args[0])}", node.lineno)
        if attr in ("warns", "deprecated_call") and len(node.args) > (attr == "warns"):
            return Assertion("positive", self._warns(node) or "warns", node.lineno)
        return None


def _fixture_refs(tree: ast.AST, suffixes: tuple[str, ...]) -> list[tuple[str, int]]:
    """Relative file paths a module reaches via __file__, open() or Path() literals."""
    out: list[tuple[str, int]] = []
    for node in ast.walk(tree):
        ref = None
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
            ref = _file_div_ref(node)
        elif isinstance(node, ast.Call) and node.args:
            ref = _call_ref(node, suffixes)
        if ref is not None:
            out.append((ref, node.lineno))
    return _outermost(out)


def _outermost(out: list[tuple[str, int]]) -> list[tuple[str, int]]:
    """A `/` chain is reported once, at its outermost node: inner prefixes are dropped."""
    out.sort(key=lambda t: (t[1], -len(t[0])))
    dedup: list[tuple[str, int]] = []
    for ref in out:
        if dedup and dedup[-1][1] == ref[1] and dedup[-1][0].startswith(ref[0]):
            continue
        dedup.append(ref)
    return dedup


def _literal_strs(nodes: list[ast.expr]) -> list[str] | None:
    """The string constants of `nodes`, None unless every one is a string constant."""
    parts = [n.value for n in nodes if isinstance(n, ast.Constant) and isinstance(n.value, str)]
    return parts if parts and len(parts) == len(nodes) else None


def _file_div_ref(node: ast.BinOp) -> str | None:
    """`Path(__file__).parent / "data" / "x.toml"` -> data/x.toml (../ per extra .parent)."""
    chain: list[ast.expr] = []
    cur: ast.expr = node
    while isinstance(cur, ast.BinOp) and isinstance(cur.op, ast.Div):
        chain.append(cur.right)
        cur = cur.left
    base = _short(cur, 400)
    parts = _literal_strs(list(reversed(chain))) if "__file__" in base else None
    if parts is None:
        return None
    return "../" * max(base.count(".parent") - 1, 0) + "/".join(parts)


def _call_ref(node: ast.Call, suffixes: tuple[str, ...]) -> str | None:
    """`os.path.join(<__file__ dir>, "a", "b")` or `open("x.json")` / `Path("x.toml")`."""
    name = _short(node.func, 100)
    if name == "os.path.join":
        if "__file__" not in _short(node.args[0], 400):
            return None
        parts = _literal_strs(node.args[1:])
        return "/".join(parts) if parts else None
    if name not in ("open", "Path", "pathlib.Path", "io.open"):
        return None
    a = node.args[0]
    if not (isinstance(a, ast.Constant) and isinstance(a.value, str)):
        return None
    v = a.value
    local = not v.startswith(("/", "~")) and "://" not in v
    return v if local and v.lower().endswith(suffixes) else None


def _compile_error(tree: ast.Module, path: str) -> list[Finding]:
    """What only the compiler rejects (a `from __future__` import after other code, as in
    nbformat's graduated oracle): pytest's collection fails on it just the same. Compiling
    runs nothing."""
    try:
        compile(tree, path, "exec", dont_inherit=True)
    except SyntaxError as exc:
        return [Finding("TSK-E007", "error",
                        f"test file does not compile: {exc.msg} (collection would fail and zero "
                        "the whole layer)", path, exc.lineno or 0, exc.offset or 0)]
    except (ValueError, RecursionError):  # pathological trees: the parse already said enough
        return []
    return []


def parse_module(text: str, path: str, suffixes: tuple[str, ...] = (".json", ".toml")) -> tuple[TestModule | None, list[Finding]]:
    try:
        tree = ast.parse(text, filename=path)
    except SyntaxError as exc:
        return None, [Finding("TSK-E007", "error",
                              f"test file does not parse: {exc.msg} (collection would fail and "
                              "zero the whole layer)", path, exc.lineno or 0, exc.offset or 0)]
    compiled = _compile_error(tree, path)
    mod = TestModule(path)

    def add(fn: ast.FunctionDef | ast.AsyncFunctionDef, cls: str | None) -> None:
        q = f"{cls}.{fn.name}" if cls else fn.name
        tf = TestFunc(fn.name, q, fn.lineno)
        v = _Visitor(tf)
        for stmt in fn.body:
            v.visit(stmt)
        if fn.name.startswith("test") and (cls is None or cls.startswith("Test")):
            mod.tests[q] = tf
        else:
            mod.helpers[fn.name] = tf

    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            add(node, None)
        elif isinstance(node, ast.ClassDef):
            for sub in node.body:
                if isinstance(sub, ast.FunctionDef | ast.AsyncFunctionDef):
                    add(sub, node.name)
    memo: dict[str, str] = {}

    def kind_of(tf: TestFunc, stack: tuple[str, ...]) -> str:
        kinds = {c.kind for c in tf.checks}
        for callee in sorted(tf.calls):
            h = mod.helpers.get(callee)
            if h is None or callee in stack:
                continue
            if callee not in memo:
                memo[callee] = kind_of(h, (*stack, callee))
            if memo[callee] != "no_check":
                kinds.add(memo[callee])
        for k in KINDS[:3]:
            if k in kinds:
                return k
        return "no_check"

    for tf in mod.tests.values():
        tf.kind = kind_of(tf, ())
    mod.fixture_refs = _fixture_refs(tree, suffixes)
    return mod, compiled


def read_module(path: str | Path, suffixes: tuple[str, ...] = (".json", ".toml")) -> tuple[TestModule | None, list[Finding]]:
    try:
        text = read_text(path)
    except InputError as exc:
        return None, [exc.to_finding()]
    return parse_module(text, str(path), suffixes)


def summarize(tf: TestFunc, limit: int = 3) -> str:
    if not tf.checks:
        return f"no assertions ({tf.kind})"
    parts = [c.summary for c in tf.checks[:limit]]
    more = len(tf.checks) - limit
    return "; ".join(parts) + (f"; +{more} more" if more > 0 else "")
