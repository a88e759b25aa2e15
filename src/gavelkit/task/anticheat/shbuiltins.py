"""Shell builtins and parameter expansion for the evaluator: what they change, what they print.

`cd`/`pushd`/`popd` move the session's folder, `export`/`declare`/`read`/`unset` set
its variables, `eval`/`source` run text in it; `${X:-w}`, `${X#p}`, `${X/a/b}`,
`${X:1:3}`, `$((…))` are computed where the value is known. Each builtin returns what
the command prints (None: unknown).
"""

from __future__ import annotations

import re
from typing import Any

from gavelkit.task.anticheat.shstate import SimpleCommand, resolve_path
from gavelkit.task.anticheat.shvalues import UNKNOWN, stdout


def var_op(sh: Any, val: str, name: str, op: str) -> str:
    unset = val == UNKNOWN or val == ""
    m = re.match(r"^(:?)([-=+?])(.*)$", op, re.S)
    if m:
        colon, kind, word = m.groups()
        empty = unset if colon else val == UNKNOWN
        if kind in "-=":
            if not empty:
                return val
            alt = sh.scalar(word)
            if kind == "=":
                sh.st.env[name] = alt
            return alt
        if kind == "+":
            return "" if empty else sh.scalar(word)
        return val
    if UNKNOWN in val:
        return val
    return _trim_or_replace(sh, val, op)


def _trim_or_replace(sh: Any, val: str, op: str) -> str:
    import fnmatch

    m = re.match(r"^(##|#|%%|%)(.*)$", op, re.S)
    if m:
        kind, pat = m.group(1), sh.scalar(m.group(2))
        rx = fnmatch.translate(pat).removesuffix("\\Z").removeprefix("(?s:").removesuffix(")")
        try:
            if kind.startswith("#"):
                mm = re.match(f"(?s)({rx})" if kind == "##" else f"(?s)({_lazy(rx)})", val)
                return val[mm.end():] if mm else val
            for cut in (range(len(val) + 1) if kind == "%%" else range(len(val), -1, -1)):
                if re.fullmatch(f"(?s){rx}", val[cut:]):
                    return val[:cut]
        except re.error:
            return UNKNOWN
        return val
    m = re.match(r"^(//?)([^/]*)/?(.*)$", op, re.S)
    if m:
        old, new = sh.scalar(m.group(2)), sh.scalar(m.group(3))
        return val.replace(old, new) if m.group(1) == "//" else val.replace(old, new, 1)
    m = re.match(r"^:(-?\d+)(?::(-?\d+))?$", op.replace(" ", ""))
    if m:
        start = int(m.group(1))
        end = None if m.group(2) is None else (start + int(m.group(2)) if int(m.group(2)) >= 0
                                               else int(m.group(2)))
        return val[start:end]
    if op in ("^^", ",,", "^", ","):
        return val.upper() if op.startswith("^") else val.lower()
    return UNKNOWN


def _lazy(rx: str) -> str:
    return rx.replace(".*", ".*?")


def arith(expr: str, env: dict[str, str]) -> str:
    text = re.sub(r"\$?\{?([A-Za-z_]\w*)\}?", lambda m: env.get(m.group(1), "0")
                  if env.get(m.group(1), "0").lstrip("-").isdigit() else "0", expr)
    if not re.fullmatch(r"[\d\s+\-*/%()<>=!&|^~]*", text) or len(text) > 200:
        return UNKNOWN
    try:
        return str(int(eval(text.replace("/", "//"), {"__builtins__": {}}, {})))
    except Exception:
        return UNKNOWN


# -- builtins: each returns what the command prints (None: unknown)


def _cd(sh: Any, sc: SimpleCommand) -> str | None:
    args = [a for a in sc.argv[1:] if not a.startswith("-") or a == "-"]
    st = sh.st
    target = args[0] if args else st.home
    old = st.cwd
    st.cwd = st.oldpwd if target == "-" else resolve_path(target, st.cwd, st.home)
    st.oldpwd = old
    return ""


def _pushd(sh: Any, sc: SimpleCommand) -> str | None:
    sh.st.dirstack.append(sh.st.cwd)
    return _cd(sh, sc)


def _popd(sh: Any, sc: SimpleCommand) -> str | None:
    if sh.st.dirstack:
        sh.st.oldpwd, sh.st.cwd = sh.st.cwd, sh.st.dirstack.pop()
    return ""


def _declare(sh: Any, sc: SimpleCommand) -> str | None:
    for a in sc.argv[1:]:
        if a.startswith("-") or "=" not in a:
            continue
        name, _, val = a.partition("=")
        if re.fullmatch(r"[A-Za-z_]\w*", name):
            sh.st.env[name] = val
    return ""


def _unset(sh: Any, sc: SimpleCommand) -> str | None:
    for a in sc.argv[1:]:
        sh.st.env.pop(a, None)
    return ""


def _read(sh: Any, sc: SimpleCommand) -> str | None:
    names = [a for a in sc.argv[1:] if re.fullmatch(r"[A-Za-z_]\w*", a)]
    known = sc.heredoc.split("\n", 1)[0] if sc.heredoc is not None else None
    for n in names or ["REPLY"]:
        sh.st.env[n] = known if known is not None and len(names) <= 1 else UNKNOWN
    return ""


def _eval(sh: Any, sc: SimpleCommand) -> str | None:
    text = " ".join(sc.argv[1:])
    sh.script(text, "eval", list(sh.st.positional))
    return None


def _source(sh: Any, sc: SimpleCommand) -> str | None:
    if len(sc.argv) < 2:
        return ""
    body = sh.st.file(sc.argv[1], sc.cwd)
    if body is not None:
        sub = type(sh)(sh.st, sh.out, sh.notes, sh.depth + 1, f"source {sc.argv[1]}")
        sub.run(body.replace(UNKNOWN, "UNRESOLVED"))
    return ""


def _set(sh: Any, sc: SimpleCommand) -> str | None:
    args = sc.argv[1:]
    if "--" in args:
        sh.st.positional = args[args.index("--") + 1:]
    return ""


def _shift(sh: Any, sc: SimpleCommand) -> str | None:
    n = int(sc.argv[1]) if len(sc.argv) > 1 and sc.argv[1].isdigit() else 1
    sh.st.positional = sh.st.positional[n:]
    return ""


def _printf_v(sh: Any, sc: SimpleCommand) -> str | None:
    if len(sc.argv) > 2 and sc.argv[1] == "-v":
        val = stdout("printf", sc.argv[3:], None, sc.cwd)
        sh.st.env[sc.argv[2]] = val if val is not None else UNKNOWN
        return ""
    return stdout("printf", sc.argv[1:], sc.heredoc, sc.cwd)


def _mapfile(sh: Any, sc: SimpleCommand) -> str | None:
    names = [a for a in sc.argv[1:] if re.fullmatch(r"[A-Za-z_]\w*", a)]
    sh.st.env[names[-1] if names else "MAPFILE"] = (
        sc.heredoc.replace("\n", " ") if sc.heredoc is not None else UNKNOWN)
    return ""


BUILTINS = {"cd": _cd, "pushd": _pushd, "popd": _popd, "export": _declare,
             "declare": _declare, "typeset": _declare, "local": _declare,
             "readonly": _declare, "unset": _unset, "read": _read, "eval": _eval,
             "source": _source, ".": _source, "set": _set, "shift": _shift,
             "printf": _printf_v, "mapfile": _mapfile, "readarray": _mapfile}
