"""Integrity evidence inside the test process, set up before any candidate code runs.

Copied next to gavel's result plugin (under the same random name plus `_guard`) and
imported by it when pytest loads the plugin with `-p`: after pytest's own modules, before
the oracle's conftest.py (which imports the candidate's package). It takes:

- a snapshot of the runner's callables: every function, method and class of pytest,
  `_pytest.*` and pluggy, and of the modules the configuration names (`builtins`,
  `unittest.case`, `re`, ...), and which module objects they are;
- the registered hook implementations (from `pytest_addoption`, which pytest calls when
  it registers the plugin);
- an audit hook (PEP 578: it cannot be removed) that records what code of the candidate
  does to the process: frame access, `__code__` replacement, heap walks, ctypes, tracing,
  reads of /proc/*/mem;
- the verified rewrite: pytest's assertion rewriting of test modules and conftest files
  is done from source bytes whose digest gavel took from the oracle before the run
  (pytest's .pyc cache is never read), and the code objects it compiles are hashed.

`check` compares at the end: changed callables, hook implementations from outside the
oracle and the environment, test functions whose code is not what the oracle file
compiles to, modules of the target package outside the candidate, standard-library or
runner modules loaded from elsewhere, oracle helpers shadowed, a trace function left set.
The parent decides what the evidence means (task/scoring/integrity.py).
Standard library and pytest only: it runs in the task's environment.
"""

import hashlib
import os
import sys

WATCH_EVENTS = frozenset({
    "sys._getframe", "sys._current_frames", "object.__getattr__", "object.__setattr__",
    "gc.get_objects", "gc.get_referrers", "gc.get_referents", "ctypes.dlopen",
    "ctypes.dlsym", "ctypes.cdata", "ctypes.addressof", "sys.settrace", "sys.setprofile",
    "sys.addaudithook", "open",
})
_FRAME_ATTRS = frozenset({"tb_frame", "gi_frame", "cr_frame", "ag_frame", "f_back"})
_CODE_ATTRS = frozenset({"__code__", "__defaults__", "__kwdefaults__", "__closure__"})


def code_digest(co, _seen=None):
    """A digest of a code object and the code objects it holds (its bytecode, names,
    constants, variable names, first line)."""
    h = hashlib.sha256()
    h.update(co.co_code)
    h.update(repr((co.co_names, co.co_varnames, co.co_freevars, co.co_cellvars,
                   co.co_argcount, co.co_kwonlyargcount, co.co_flags,
                   co.co_firstlineno)).encode())
    for c in co.co_consts:
        if hasattr(c, "co_code"):
            h.update(code_digest(c).encode())
        else:
            h.update(repr(c).encode("utf-8", "replace"))
    return h.hexdigest()[:32]


def _qualname(co):
    return getattr(co, "co_qualname", co.co_name)


def walk_codes(co, out):
    """{qualname: [digest, ...]} of every code object in a module's code."""
    for c in co.co_consts:
        if hasattr(c, "co_code"):
            out.setdefault(_qualname(c), []).append(code_digest(c))
            walk_codes(c, out)
    return out


def _stdlib_dirs():
    """The standard library's folder: where `os` came from, which is sysconfig's stdlib
    (and platstdlib) on POSIX, without importing sysconfig in every test process;
    sysconfig only where `os` has no file."""
    where = getattr(os, "__file__", None)
    if where:
        return (os.path.dirname(os.path.realpath(where)) + os.sep,)
    import sysconfig

    paths = sysconfig.get_paths()
    return tuple({os.path.realpath(paths[k]) + os.sep
                  for k in ("stdlib", "platstdlib") if paths.get(k)})


def _is_runner(name):
    return name in ("pytest", "builtins") or name.startswith(("_pytest", "pluggy"))


def _module_callables(name, mod, out):
    """The public callables of one watched module (all but dunders for the runner's own
    modules), and the methods of the classes it defines: {(module, class or "", name):
    (the namespace it lives in, the object)}. The objects themselves are kept, never
    their id(): an id can be reused once its object is gone, and every id() call is an
    audit event. The namespace is the live one, so the end-of-session check looks each
    entry up again instead of walking every module a second time."""
    try:
        ns = vars(mod)
        items = list(ns.items())
    except TypeError:
        return
    skip = "__" if _is_runner(name) else "_"  # a library's private state is its own
    for attr, val in items:
        if attr.startswith(skip) and attr != "__import__":
            continue
        if callable(val):
            out[(name, "", attr)] = (ns, val)
        if isinstance(val, type) and getattr(val, "__module__", None) == name:
            _class_callables(name, attr, val, out)


def _class_callables(name, cname, cls, out):
    ns = vars(cls)
    for cattr, cval in list(ns.items()):
        if _method_like(cval):
            out[(name, cname, cattr)] = (ns, cval)


def _method_like(val):
    return isinstance(val, (staticmethod, classmethod, property)) or \
        type(val).__name__ in ("function", "method_descriptor")


def _label(key):
    name, cname, attr = key
    return f"{name}:{cname}.{attr}" if cname else f"{name}:{attr}"


_EVENT_WHAT = {"gc": "walked the heap ({})", "ctypes": "used ctypes ({})"}


def _trace_left():
    """A trace or profile function still set at the end of the session (None: none)."""
    import threading

    if getattr(threading, "_trace_hook", None) or getattr(threading, "_profile_hook", None):
        return "a thread trace or profile function is set"
    if sys.gettrace() is not None or sys.getprofile() is not None:
        return "a trace or profile function is set at the end of the session"
    return None


class Guard:
    """The snapshot, the audit record and the checks of one test process."""

    def __init__(self, cfg, send):
        self.cfg = cfg
        self.send = send
        self.work = os.path.realpath(cfg.get("work") or "/nonexistent") + os.sep
        self.oracle = cfg.get("oracle_code") or {}  # worktree-relative path -> sha256
        self.candidate = tuple(os.path.realpath(p) + os.sep for p in cfg.get("candidate", []))
        self.candidate_raw = tuple(p.rstrip(os.sep) + os.sep for p in cfg.get("candidate", []))
        self.env = tuple(os.path.realpath(p) + os.sep for p in cfg.get("env_dirs", []))
        self.plugdir = os.path.realpath(os.path.dirname(os.path.abspath(__file__))) + os.sep
        self.stdlib = _stdlib_dirs()
        self.verified = {}  # worktree-relative path -> {qualname: [digests]}
        self._where = {}  # file name -> where() (tracebacks repeat the same files)
        self.unverified = []
        self.changed_sources = []
        self.events = {}
        self.strong = []
        self.busy = False
        self.hooks = None
        self.watch = tuple(cfg.get("watch_modules") or ())
        self._real = {}  # path -> realpath (one lstat per file once its folder is known)
        self.walked = set()
        self.callables = self._callables()
        self.module_objs = {n: m for n, m in sys.modules.items() if self._watched(n)}

    # ---- snapshot ------------------------------------------------------------------
    def _watched(self, name):
        return _is_runner(name) or name in self.watch

    def _callables(self):
        """{(module, class, name): (namespace, object)} (_module_callables) of the watched
        modules not walked before (all of them at the snapshot; at the rewrite's install,
        those imported since)."""
        out = {}
        for name, mod in list(sys.modules.items()):
            if mod is not None and self._watched(name) and name not in self.walked:
                _module_callables(name, mod, out)
                self.walked.add(name)
        return out

    def real(self, path):
        """os.path.realpath, remembered per folder: a file that is not itself a link
        resolves to its folder's real path plus its name."""
        got = self._real.get(path)
        if got is None:
            if not os.path.isabs(path):  # relative to a working folder that may change
                return os.path.realpath(path)
            head, tail = os.path.split(path)
            folder = self._real.get(head)
            if folder is None:
                folder = self._real[head] = os.path.realpath(head or ".")
            plain = tail not in ("", ".", "..") and not os.path.islink(path)
            got = os.path.join(folder, tail) if plain else os.path.realpath(path)
            self._real[path] = got
        return got

    def _own_code(self, obj):
        """Is a replacement the runner's or the standard library's own code (pytest swaps
        some of its functions during a session, catch_warnings swaps warnings')?"""
        for _ in range(4):  # bound method, property, functools.partial, a wrapper
            inner = next((getattr(obj, a) for a in ("__func__", "fget", "func", "__wrapped__")
                          if getattr(obj, a, None) is not None), None)
            if inner is None or getattr(obj, "__code__", None) is not None:
                break
            obj = inner
        code = getattr(obj, "__code__", None)
        if code is None:
            return False
        real = self.real(code.co_filename)
        return not self.is_candidate(code.co_filename) and (
            real.startswith(self.env) or real.startswith(self.stdlib)
            or real.startswith(self.plugdir))

    def snapshot_hooks(self, pm):
        self.hooks = self._hookimpls(pm)

    @staticmethod
    def _hookimpls(pm):
        out = {}
        for hname in dir(pm.hook):
            if not hname.startswith("pytest_"):
                continue
            caller = getattr(pm.hook, hname, None)
            try:
                impls = caller.get_hookimpls()
            except Exception:
                continue
            for impl in impls:
                out[(hname, id(impl.function))] = impl
        return out

    # ---- the audit hook ------------------------------------------------------------
    def caller_file(self, depth=2):
        """The first frame above the audited call that is not the standard library."""
        f = sys._getframe(depth)
        for _ in range(6):
            if f is None:
                return "", 0
            fn = f.f_code.co_filename
            if not fn.startswith(self.stdlib) and not fn.startswith("<frozen"):
                return fn, f.f_lineno
            f = f.f_back
        return "", 0

    def where(self, fn):
        """Which code a file is: candidate, oracle, pytest, env, stdlib, gavel, frozen, other."""
        got = self._where.get(fn)
        if got is None:
            got = self._where[fn] = self._classify(fn)
        return got

    def _classify(self, fn):
        if fn.startswith("<frozen"):
            return "frozen"
        if self.is_candidate(fn):
            return "candidate"
        real = self.real(fn)
        if real.startswith(self.work):
            return "oracle"
        if real.startswith(self.plugdir):
            return "gavel"
        if real.startswith(self.env):
            rest = real[len(next(e for e in self.env if real.startswith(e))):]
            return "pytest" if rest.startswith(("_pytest/", "pluggy/", "pytest/")) else "env"
        if real.startswith(self.stdlib):
            return "stdlib"
        return "other"

    def _guarded(self, fn):
        """Code of the oracle or of the test runner (whose functions must stay as they are)."""
        return self.where(fn) in ("oracle", "pytest", "gavel")

    def is_candidate(self, fn):
        return bool(fn) and (fn.startswith(self.candidate_raw) or fn.startswith(self.candidate))

    def hook(self):
        """The audit hook. Python calls it for every audited event of the process (~17k in
        a 300-test session, most of them reads of `__code__` or `__defaults__`), so the
        first filter is a closure over local names and does no attribute lookup or call:
        most opens and attribute reads are nothing to record."""
        watch, frame_attrs, code_attrs = WATCH_EVENTS, _FRAME_ATTRS, _CODE_ATTRS
        guard = self

        def audit(event, args):
            if event not in watch:
                return
            if event == "object.__getattr__":
                if len(args) < 2 or args[1] not in frame_attrs:
                    return
            elif event == "object.__setattr__":
                if len(args) < 2 or args[1] not in code_attrs:
                    return
            elif event == "open":
                p = args[0] if args else None
                if not (isinstance(p, str) and p.startswith("/proc/") and p.endswith("/mem")):
                    return
            guard.audit(event, args)
        return audit

    def audit(self, event, args):
        """Record one event that passed the hook's filter (never while gavel's own code
        looks at frames or files: `busy`)."""
        if self.busy:
            return
        self.busy = True
        try:
            self._record(event, args)
        except Exception:  # the audit hook must never break the run
            pass
        finally:
            self.busy = False

    def _record(self, event, args):
        fn, line = self.caller_file(4)  # caller_file, _record, audit, the hook, the event
        if not self.is_candidate(fn):
            return
        key = (event, fn, line)
        first = key not in self.events
        self.events[key] = self.events.get(key, 0) + 1
        strong = self._what(event, args)
        if strong and first and len(self.strong) < 50:
            self.strong.append({"event": event, "what": strong, "file": fn, "line": line})

    def _what(self, event, args):
        """What an audited event from the candidate's code did ('' for nothing notable)."""
        if event == "sys._getframe" and args and hasattr(args[0], "f_code"):
            target = args[0].f_code.co_filename
            if self.real(target).startswith(self.work):
                return "took a frame of the oracle's test code"
            return "took a frame"  # its own, or a caller's: confirmed with its source
        if event == "object.__getattr__":
            return f"took a frame ({args[1]})"
        if event == "object.__setattr__":
            return self._code_replaced(args)
        if event in ("sys.settrace", "sys.setprofile"):
            return f"installed a {'trace' if event.endswith('trace') else 'profile'} function"
        if event == "open":
            return "opened process memory"
        return _EVENT_WHAT.get(event.partition(".")[0], "").format(event)

    def _code_replaced(self, args):
        """The __code__ of the oracle's or the runner's functions replaced; defaults set on a
        generated function (the namedtuple idiom) or on its own functions are the
        candidate's business."""
        code = getattr(args[0], "__code__", None)  # the function's code until now
        owner = code.co_filename if code is not None else ""
        if args[1] == "__code__" and owner and self._guarded(owner):
            return f"replaced the {args[1]} of {getattr(args[0], '__qualname__', '?')} from {owner}"
        return ""

    # ---- the verified rewrite ------------------------------------------------------
    def install_rewrite(self):
        """pytest's assertion rewriting from verified source; its .pyc cache never read."""
        try:
            import _pytest.assertion.rewrite as rw
        except ImportError:
            return
        import ast
        import importlib.util

        rewrite_asserts, parse, compile_ = rw.rewrite_asserts, ast.parse, compile
        guard = self

        def _rewrite_test(fn, config):
            source = fn.read_bytes()
            strfn = str(fn)
            guard.note_source(strfn, source)
            tree = parse(source, filename=strfn)
            rewrite_asserts(tree, source, strfn, config)
            co = compile_(tree, strfn, "exec", dont_inherit=True)
            guard.note_code(strfn, co)
            return importlib.util.source_hash(source), co

        rw._rewrite_test = _rewrite_test
        rw._read_pyc = lambda *a, **k: None
        rw._write_pyc = lambda *a, **k: False
        for attr in ("_rewrite_test", "_read_pyc", "_write_pyc"):  # gavel's own replacements
            self.callables[(rw.__name__, "", attr)] = (vars(rw), getattr(rw, attr))
        self.callables.update(self._callables())  # what got imported since the snapshot

    def rel(self, path):
        real = self.real(path)
        return real[len(self.work):] if real.startswith(self.work) else None

    def note_source(self, path, source):
        rel = self.rel(path)
        if rel is None:
            return
        want = self.oracle.get(rel)
        got = hashlib.sha256(source).hexdigest()
        if want is None:
            self.unverified.append(rel)
        elif want != got:
            self.changed_sources.append(rel)

    def note_code(self, path, co):
        rel = self.rel(path)
        if rel is not None:
            self.verified[rel] = walk_codes(co, {})

    # ---- per test --------------------------------------------------------------------
    def test_code(self, item):
        """'' when the test function's code is what its oracle file compiles to, else why."""
        co = self._oracle_code(getattr(item, "function", None) or getattr(item, "obj", None))
        if co is None:
            code = getattr(getattr(item, "function", None), "__code__", None)
            if code is not None and not self.is_oracle_or_env(code.co_filename):
                return f"its code comes from {code.co_filename}, not from the oracle"
            return ""
        rel = self.rel(co.co_filename)
        table = self.verified.get(rel)
        if table is None:
            return ""  # not rewritten by pytest (plain asserts): checked at the end
        if code_digest(co) not in table.get(_qualname(co), ()):
            return f"its code differs from what {rel} compiles to"
        return ""

    def _oracle_code(self, fn):
        """The code of the function (or of what it wraps) that lives in an oracle file."""
        for _ in range(8):
            co = getattr(fn, "__code__", None)
            if co is not None and self.rel(co.co_filename) is not None:
                return co
            fn = getattr(fn, "__wrapped__", None)
        return None

    def is_oracle_or_env(self, fn):
        real = self.real(fn)
        return real.startswith(self.work) or real.startswith(self.env) or \
            real.startswith(self.stdlib) or real.startswith(self.plugdir)

    # ---- end of session ----------------------------------------------------------------
    def check(self, pm):
        """The integrity evidence of the whole session (a dict for the parent)."""
        self.busy = True
        out = {"changed_callables": [], "foreign_hooks": [], "modules": [],
               "changed_sources": sorted(set(self.changed_sources)),
               "unverified_sources": sorted(set(self.unverified)),
               "trace": None, "audit": self.strong,
               "audit_counts": len(self.events)}
        try:
            out["changed_callables"] = self._changed_callables()
            out["foreign_hooks"] = self._foreign_hooks(pm)
            out["modules"] = self._modules() + self._always_equal()
            out["trace"] = _trace_left()
        finally:
            self.busy = False
        return out

    def _changed_callables(self):
        """Entries whose name now holds another callable (a deleted one, or one set to a
        plain value, is no rebinding of the runner: as before), unless that is the runner's
        or the standard library's own code."""
        gone = object()
        changed = []
        for key, (ns, obj) in self.callables.items():
            now = ns.get(key[2], gone)
            if now is obj or now is gone:
                continue
            if (callable(now) if not key[1] else _method_like(now)) and not self._own_code(now):
                changed.append(_label(key))
        out = sorted(changed)[:40]
        return out + sorted(f"module {n} replaced" for n, m in self.module_objs.items()
                            if sys.modules.get(n) is not m)[:10]

    def _foreign_hooks(self, pm):
        if self.hooks is None:
            return ["hook implementations were not snapshotted before the conftest files"]
        out = []
        for key, impl in self._hookimpls(pm).items():
            if key in self.hooks:
                continue
            code = getattr(impl.function, "__code__", None)
            fn = code.co_filename if code is not None else ""
            if fn and self.is_oracle_or_env(fn):
                continue
            out.append(f"{key[0]} from {fn or type(impl.plugin).__name__}")
        return sorted(set(out))[:20]

    def _always_equal(self):
        """Classes of the candidate whose instances are equal to anything (a bare
        object() included): what a value returned to pass `assert got == expected`
        without computing it looks like. Honest __eq__ methods compare something."""
        pkg = (self.cfg.get("package") or "").partition(".")[0]
        out = []
        for name, mod in list(sys.modules.items()):
            if pkg and name.partition(".")[0] == pkg:
                out += [f"{name}.{attr} instances are equal to anything (its __eq__ is true "
                        "for a bare object())" for attr, cls in list(vars(mod).items())
                        if self._equal_to_anything(cls)]
        return out[:10]

    def _equal_to_anything(self, cls):
        if not isinstance(cls, type) or "__eq__" not in vars(cls):
            return False
        eq = vars(cls)["__eq__"]
        code = getattr(eq, "__code__", None)
        if code is None or not self.is_candidate(code.co_filename):
            return False
        try:
            return eq(cls.__new__(cls), object()) is True
        except Exception:
            return False

    def _modules(self):
        """Modules of the target package outside the candidate; standard-library names
        from anywhere but the standard library; oracle helpers loaded from elsewhere."""
        pkg = self.cfg.get("package") or ""
        stdnames = set(getattr(sys, "stdlib_module_names", ()))
        judged = stdnames | {pkg.partition(".")[0], "_pytest", "pytest", "pluggy"}
        out = []
        for name, mod in list(sys.modules.items()):
            if name.partition(".")[0] not in judged:  # no rule for it: not resolved at all
                continue
            f = getattr(mod, "__file__", None)
            why = self._misplaced(name, self.real(f), pkg, stdnames) if isinstance(f, str) \
                else ""
            if why:
                out.append(why)
        return out[:20]

    def _misplaced(self, name, real, pkg, stdnames):
        top = name.partition(".")[0]
        if pkg and top == pkg and self.candidate and not real.startswith(self.candidate):
            return f"{name} loaded from {real}, outside the candidate"
        if top in stdnames and not real.startswith(self.stdlib):
            return f"standard-library module {name} loaded from {real}"
        if top in ("_pytest", "pytest", "pluggy") and self.env and not real.startswith(self.env):
            return f"runner module {name} loaded from {real}"
        return ""
