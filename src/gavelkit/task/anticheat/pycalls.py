"""The calls `pyeval` understands: string folding, decoding, and effects on the world.

One table maps a call's name to what it returns (a folded string, a decoded text)
or records (a read, a listing, a command, code run with exec). Kept apart from the
walker so each rule is one small function.
"""

from __future__ import annotations

import ast
import base64
import binascii
import codecs
import posixpath
from collections.abc import Callable
from typing import Any

from gavelkit.task.anticheat.shvalues import RECURSIVE, UNKNOWN

_READ = {"open", "read_text", "read_bytes", "load", "loadtxt", "read_csv", "read_json",
         "FileIO", "fdopen", "run_path", "getsize", "copyfileobj"}
_LIST = {"listdir", "scandir", "walk", "iterdir", "glob", "iglob", "rglob", "fwalk"}
_RUN = {"system", "popen", "getoutput", "getstatusoutput", "run", "call", "check_call",
        "check_output", "Popen", "spawnl", "spawnlp", "spawnv", "spawnvp", "execl", "execlp",
        "execv", "execvp", "execve", "execvpe", "create_subprocess_exec",
        "create_subprocess_shell"}
_COPY = {"copy", "copy2", "copyfile", "copytree", "move", "copyfileobj"}



def _decode(kind: str, data: Any) -> str | None:
    if not isinstance(data, str) or UNKNOWN in data:
        return None
    try:
        if kind == "b64":
            clean = data.strip()
            return base64.b64decode(clean + "=" * (-len(clean) % 4)).decode("utf-8", "replace")
        if kind == "b32":
            return base64.b32decode(data.strip()).decode("utf-8", "replace")
        if kind == "hex":
            return binascii.unhexlify(data.strip()).decode("utf-8", "replace")
        if kind == "rot13":
            return codecs.decode(data, "rot13")
        if kind == "b85":
            return base64.b85decode(data.strip()).decode("utf-8", "replace")
    except (binascii.Error, ValueError):
        return None
    return None

Fn = Callable[[Any, str, Any, list[Any], dict[str, Any], ast.Call], Any]


def _s(v: Any) -> str | None:
    return v if isinstance(v, str) else None


def _path_of(w: Any, v: Any) -> str | None:
    if isinstance(v, str):
        if v.startswith("~"):
            return w.home + v[1:]
        return v
    return None


def _join(w: Any, qual: str, recv: Any, args: list[Any], kw: dict[str, Any],
          node: ast.Call) -> Any:
    if not args:
        return None
    parts = [a if isinstance(a, str) else UNKNOWN for a in args]
    return posixpath.join(*parts)


def _str_join(recv: str, args: list[Any], kw: dict[str, Any]) -> Any:
    items = args[0] if args and isinstance(args[0], list) else None
    if items is None:
        return UNKNOWN if recv else None
    return recv.join(x if isinstance(x, str) else UNKNOWN for x in items)


def _known(v: Any) -> Any:
    return v if isinstance(v, str | int) else UNKNOWN


def _str_format(recv: str, args: list[Any], kw: dict[str, Any]) -> Any:
    try:
        return recv.format(*[_known(a) for a in args], **{k: _known(v) for k, v in kw.items()})
    except (IndexError, KeyError, ValueError):
        return UNKNOWN


def _str_replace(recv: str, args: list[Any], kw: dict[str, Any]) -> Any:
    if len(args) >= 2 and isinstance(args[0], str) and isinstance(args[1], str):
        return recv.replace(args[0], args[1])
    return None


_CODECS = {"rot13": "rot13", "hex": "hex", "base64": "b64"}


def _str_codec(recv: str, args: list[Any], kw: dict[str, Any]) -> Any:
    """`.encode`/`.decode`: rot13, hex and base64 decode; any other codec keeps the text."""
    kind = _CODECS.get(args[0].replace("_", "").lower()) if args and isinstance(
        args[0], str) else None
    return _decode(kind, recv) if kind else recv


def _str_case(name: str) -> Callable[[str, list[Any], dict[str, Any]], Any]:
    def fn(recv: str, args: list[Any], kw: dict[str, Any]) -> Any:
        return getattr(recv, name)(*[a for a in args if isinstance(a, str)][:1])
    return fn


def _str_affix(name: str) -> Callable[[str, list[Any], dict[str, Any]], Any]:
    def fn(recv: str, args: list[Any], kw: dict[str, Any]) -> Any:
        return getattr(recv, name)(args[0]) if args and isinstance(args[0], str) else None
    return fn


def _str_joinpath(recv: str, args: list[Any], kw: dict[str, Any]) -> Any:
    """`Path(p).joinpath(a, b)` (a Path is its text here)."""
    return posixpath.join(recv, *[a if isinstance(a, str) else UNKNOWN for a in args])


# methods of a text that give text the walk does not compute: the result is unknown
# text, never "not a string" (which would drop the path built from it)
_STR_OPAQUE = frozenset({"swapcase", "capitalize", "zfill", "center", "ljust", "rjust",
                         "expandtabs", "translate", "format_map"})


_STR_METHODS: dict[str, Callable[[str, list[Any], dict[str, Any]], Any]] = {
    "join": _str_join, "format": _str_format, "replace": _str_replace,
    "encode": _str_codec, "decode": _str_codec, "split": _str_case("split"),
    "rsplit": _str_case("rsplit"), "joinpath": _str_joinpath,
    **{n: _str_case(n) for n in ("strip", "lstrip", "rstrip", "lower", "upper", "casefold",
                                 "title")},
    **{n: _str_affix(n) for n in ("removeprefix", "removesuffix")}}


def _str_method(w: Any, name: str, recv: str, args: list[Any], kw: dict[str, Any]) -> Any:
    fn = _STR_METHODS.get(name)
    if fn is None:
        return UNKNOWN if name in _STR_OPAQUE else None
    return fn(recv, args, kw)


def _decoder(kind: str) -> Fn:
    def fn(w: Any, qual: str, recv: Any, args: list[Any], kw: dict[str, Any],
           node: ast.Call) -> Any:
        data = args[0] if args else None
        out = _decode(kind, data)
        if out is None and isinstance(data, str | type(None)):
            return UNKNOWN
        return out
    return fn


def _codecs_decode(w: Any, qual: str, recv: Any, args: list[Any], kw: dict[str, Any],
                   node: ast.Call) -> Any:
    if len(args) >= 2 and isinstance(args[1], str):
        kind = {"rot13": "rot13", "rot_13": "rot13", "hex": "hex", "base64": "b64",
                "base_64": "b64"}.get(args[1].lower())
        if kind:
            out = _decode(kind, args[0])
            return out if out is not None else UNKNOWN
    return args[0] if args and isinstance(args[0], str) else None


def _chr(w: Any, qual: str, recv: Any, args: list[Any], kw: dict[str, Any],
         node: ast.Call) -> Any:
    if args and isinstance(args[0], int) and 0 <= args[0] < 0x110000:
        return chr(args[0])
    return UNKNOWN


def _map(w: Any, qual: str, recv: Any, args: list[Any], kw: dict[str, Any],
         node: ast.Call) -> Any:
    if len(args) == 2 and isinstance(node.args[0], ast.Name) and node.args[0].id == "chr" and \
            isinstance(args[1], list):
        return [chr(x) if isinstance(x, int) and 0 <= x < 0x110000 else UNKNOWN
                for x in args[1]]
    return args[1] if len(args) == 2 and isinstance(args[1], list) else None


def _identity(w: Any, qual: str, recv: Any, args: list[Any], kw: dict[str, Any],
              node: ast.Call) -> Any:
    if not args:
        return w.cwd if qual.endswith("cwd") else None
    if len(args) > 1 and all(isinstance(a, str) for a in args):
        return posixpath.join(*args)
    return _path_of(w, args[0]) if isinstance(args[0], str) else args[0]


def _abspath(w: Any, qual: str, recv: Any, args: list[Any], kw: dict[str, Any],
             node: ast.Call) -> Any:
    p = _path_of(w, args[0]) if args else None
    if p is None:
        return None
    if not p.startswith("/") and w.cwd:
        p = posixpath.join(w.cwd, p)
    return posixpath.normpath(p)


def _getenv(w: Any, qual: str, recv: Any, args: list[Any], kw: dict[str, Any],
            node: ast.Call) -> Any:
    key = args[0] if args else None
    if (isinstance(recv, dict) and qual.endswith(".get")) or qual.endswith("getenv"):
        if isinstance(key, str) and key in w.osenv:
            return w.osenv[key]
        if key == "HOME":
            return w.home
        return args[1] if len(args) > 1 else UNKNOWN
    return None


def _fs_target(w: Any, name: str, recv: Any, args: list[Any]) -> str | None:
    """The path an open/read/list call acts on: its first argument, else the receiver
    (`Path(p).read_text()`, `Path(p).open("r")`)."""
    target = _path_of(w, args[0]) if args else _path_of(w, recv)
    if name in ("read_text", "read_bytes", "open") and isinstance(recv, str) and (
            name != "open" or not args or not isinstance(args[0], str)
            or args[0] in ("r", "rb", "w", "wb", "a")):
        return recv
    return target


def _fs_list(w: Any, name: str, recv: Any, target: str) -> Any:
    pat = target if name not in ("glob", "rglob") or not isinstance(recv, str) else \
        posixpath.join(recv, ("**/" if name == "rglob" else "") + target)
    w.fx.lists.append(pat)
    if any(c in pat for c in "*?["):
        return [pat]
    return [posixpath.join(pat, RECURSIVE)] if name != "walk" else pat


def _writes(args: list[Any], kw: dict[str, Any]) -> bool:
    """Does open() get a writing mode?"""
    mode = args[1] if len(args) > 1 and isinstance(args[1], str) else kw.get("mode")
    return isinstance(mode, str) and any(c in mode for c in "wax+")


def _fs(w: Any, qual: str, name: str, recv: Any, args: list[Any], kw: dict[str, Any]) -> Any:
    """open/read/list/copy calls: record the path; return what the call evaluates to."""
    target = _fs_target(w, name, recv, args)
    if name == "open" and _writes(args, kw):
        if target is not None:
            w.fx.writes.append((target, None))
        return target
    if name in _COPY and len(args) >= 2:
        if isinstance(args[0], str):
            w.fx.reads.append(args[0])
        return args[1]
    if target is None:
        return None
    if name in _LIST:
        return _fs_list(w, name, recv, target)
    w.fx.reads.append(target)
    return target


_SHELL_RUNNERS = ("system", "popen", "getoutput", "getstatusoutput", "create_subprocess_shell")


def _run_command(name: str, args: list[Any], kw: dict[str, Any]) -> Any:
    """What a run call runs: its command (a string or list), exec*/spawn* argument lists."""
    cmd = args[0] if args else kw.get("args")
    if name.startswith(("exec", "spawn")) and len(args) >= 2:
        cmd = [a if isinstance(a, str) else UNKNOWN for a in args[1:]] \
            if not isinstance(args[1], list) else args[1]
    return cmd


def _run(w: Any, qual: str, name: str, args: list[Any], kw: dict[str, Any]) -> Any:
    cmd = _run_command(name, args, kw)
    shell = kw.get("shell") is True or name in _SHELL_RUNNERS
    if isinstance(cmd, str):
        if shell:
            w.fx.shells.append(cmd)
        else:
            w.fx.argvs.append([cmd])
    elif isinstance(cmd, list):
        w.fx.argvs.append([c if isinstance(c, str) else UNKNOWN for c in cmd])
    return None


def _run_code(w: Any, qual: str, recv: Any, args: list[Any], kw: dict[str, Any],
              node: ast.Call) -> Any:
    code = args[0] if args else None
    if isinstance(code, str) and UNKNOWN not in code:
        w.fx.codes.append(code)
    elif isinstance(code, str):      # a string built at run time (decoded, joined, formatted)
        w.fx.notes.append(f"{qual}() runs code built at run time that could not be resolved")
    return None


def _import(w: Any, qual: str, recv: Any, args: list[Any], kw: dict[str, Any],
            node: ast.Call) -> Any:
    mod = args[0] if args else None
    if isinstance(mod, str) and UNKNOWN not in mod:
        w.fx.imports.add(mod.split(".")[0])
    elif isinstance(mod, str):    # a name built at run time (decoded, joined)
        w.fx.notes.append(f"{qual}() imports a module whose name could not be resolved")
    return None


def _print(w: Any, qual: str, recv: Any, args: list[Any], kw: dict[str, Any],
           node: ast.Call) -> Any:
    sep = kw.get("sep", " ")
    w.fx.printed.append(sep.join(a for a in args) if all(isinstance(a, str) for a in args)
                        and isinstance(sep, str) else None)
    return None


def _urlopen(w: Any, qual: str, recv: Any, args: list[Any], kw: dict[str, Any],
             node: ast.Call) -> Any:
    if args and isinstance(args[0], str):
        w.fx.urls.append(args[0])
    return None


def _syspath(w: Any, qual: str, recv: Any, args: list[Any], kw: dict[str, Any],
             node: ast.Call) -> Any:
    p = args[-1] if args else None
    if isinstance(p, str):
        w.fx.sys_paths.append(p)
    return None


_BY_QUAL: dict[str, Fn] = {
    "os.path.join": _join, "posixpath.join": _join, "path.join": _join,
    "base64.b64decode": _decoder("b64"), "b64decode": _decoder("b64"),
    "base64.standard_b64decode": _decoder("b64"), "base64.urlsafe_b64decode": _decoder("b64"),
    "base64.decodebytes": _decoder("b64"), "base64.b32decode": _decoder("b32"),
    "base64.b85decode": _decoder("b85"), "bytes.fromhex": _decoder("hex"),
    "binascii.unhexlify": _decoder("hex"), "binascii.a2b_hex": _decoder("hex"),
    "binascii.a2b_base64": _decoder("b64"), "codecs.decode": _codecs_decode,
    "chr": _chr, "map": _map, "str": _identity, "bytes": _identity, "Path": _identity,
    "pathlib.Path": _identity, "PurePath": _identity, "PosixPath": _identity,
    "os.fspath": _identity, "os.path.expanduser": _identity, "os.path.normpath": _abspath,
    "os.path.abspath": _abspath, "os.path.realpath": _abspath, "os.getcwd": _identity,
    "Path.cwd": _identity, "os.environ.get": _getenv, "os.getenv": _getenv,
    "exec": _run_code, "eval": _run_code, "compile": _run_code,
    "__import__": _import, "importlib.import_module": _import, "import_module": _import,
    "print": _print, "urlopen": _urlopen, "urllib.request.urlopen": _urlopen,
    "requests.get": _urlopen, "sys.path.insert": _syspath, "sys.path.append": _syspath,
    "os.path.dirname": lambda w, q, r, a, k, n: posixpath.dirname(a[0]) if a and isinstance(
        a[0], str) else None,
    "os.path.basename": lambda w, q, r, a, k, n: posixpath.basename(a[0]) if a and isinstance(
        a[0], str) else None,
    "Path.home": lambda w, q, r, a, k, n: w.home,
    "os.path.expandvars": _identity, "list": lambda w, q, r, a, k, n: a[0] if a else None,
    "sorted": lambda w, q, r, a, k, n: a[0] if a else None,
}


def _runs(qual: str, name: str) -> bool:
    """Is this call one that runs a command (os.system, subprocess.run, …)?"""
    return name in _RUN and (qual.startswith(("os.", "subprocess.", "sp.", "pty."))
                             or qual in ("asyncio.create_subprocess_exec",
                                         "asyncio.create_subprocess_shell")
                             or (qual == name and name not in ("run", "call")))


def _by_name(qual: str, name: str) -> Fn | None:
    fn = _BY_QUAL.get(qual) or (_BY_QUAL.get(name) if "." not in qual else None)
    if fn is None and qual.endswith(".join") and qual.split(".")[0] in ("os", "posixpath"):
        fn = _join
    return fn


def apply(w: Any, qual: str, name: str, recv: Any, args: list[Any], kw: dict[str, Any],
          node: ast.Call) -> Any:
    fn = _by_name(qual, name)
    if fn is not None:
        return fn(w, qual, recv, args, kw, node)
    if _runs(qual, name):
        return _run(w, qual, name, args, kw)
    if name in _READ or name in _LIST or name in _COPY:
        return _fs(w, qual, name, recv, args, kw)
    if isinstance(recv, str):
        return _str_method(w, name, recv, args, kw)
    if name in ("getsource", "getsourcefile", "getfile"):
        w.fx.strings.append("__getsource__")
    return None
