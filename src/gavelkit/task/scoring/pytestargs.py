"""A task's `oracle.pytest_args`, parsed the way pytest would read them, then vetted.

A filter that keeps tokens starting with "-" loses option values: `-p no:cacheprovider`
became `-p`, pytest then loaded the first test file as a plugin and every test failed.
Here every option is looked up in a table (`data/judge/pytest_options.toml`) that says
whether it takes a value and whether gavel keeps it, drops it (it owns that setting or it
only changes output) or refuses it (it would let outside code in or change what counts);
an option and its value are always kept or dropped together. What is left out, and why,
is returned so the run can record and show it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(slots=True)
class PytestArgs:
    kept: list[str] = field(default_factory=list)
    dropped: list[dict[str, Any]] = field(default_factory=list)
    refused: list[dict[str, Any]] = field(default_factory=list)
    disabled_plugins: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"kept": self.kept, "dropped": self.dropped, "refused": self.refused,
                "disabled_plugins": self.disabled_plugins}

    def lines(self) -> list[str]:
        """One line per left-out option, for the text output."""
        out = [f"pytest_args refused: {' '.join(d['args'])} ({d['why']})" for d in self.refused]
        out += [f"pytest_args dropped: {' '.join(d['args'])} ({d['why']})" for d in self.dropped]
        return out


def _tables(task_dir: Any = None) -> tuple[dict[str, dict[str, str]], dict[str, dict[str, str]]]:
    from gavelkit.task.judgedata import for_task

    t = for_task("pytest_options", task_dir)
    return t["option"], t["ini"]


def _split(tok: str, options: dict[str, dict[str, str]]) -> tuple[str, str | None]:
    """(option name, attached value or None) for one token starting with '-'."""
    if tok.startswith("--"):
        name, eq, val = tok.partition("=")
        return name, (val if eq else None)
    if len(tok) > 2:
        name = tok[:2]
        if options.get(name, {}).get("value") in ("required", "optional"):
            return name, tok[2:]
    return tok, None


class _Cursor:
    """The tokens still to read."""

    def __init__(self, toks: list[str]) -> None:
        self.toks, self.i = toks, 0

    def more(self) -> bool:
        return self.i < len(self.toks)

    def next(self) -> str:
        self.i += 1
        return self.toks[self.i - 1]

    def value(self) -> str | None:
        """The next token as an option's value, when there is one."""
        return self.next() if self.more() else None

    def loose_value(self) -> str | None:
        """The next token as an optional value: only when it is no option itself."""
        return self.next() if self.more() and not self.toks[self.i].startswith("-") else None


def parse_pytest_args(args: list[Any], plugin_names: set[str] | None = None,
                      task_dir: Any = None) -> PytestArgs:
    """Parse and vet; `plugin_names` are the pytest11 plugin names of the environment;
    a task's `gavel-judge.toml` [pytest_options] can add or change table entries."""
    options, ini = _tables(task_dir)
    res = PytestArgs()
    cur = _Cursor([str(a) for a in args])
    while cur.more():
        tok = cur.next()
        if not tok.startswith("-") or tok == "-":
            res.dropped.append({"args": [tok], "why": "a test path or stray value: the test "
                                "files come from the expected node ids"})
        elif tok == "--":
            res.dropped.append({"args": cur.toks[cur.i - 1:], "why": "test paths after '--': "
                                "the test files come from the expected node ids"})
            break
        elif tok.startswith("-p") and not tok.startswith("--"):
            _plugin(res, tok, cur, plugin_names or set())
        else:
            _option(res, tok, cur, options, ini)
    return res


def _plugin(res: PytestArgs, tok: str, cur: _Cursor, plugins: set[str]) -> None:
    """`-p NAME`: a pytest11 plugin of the environment, or `no:NAME`; never a module."""
    group = [tok]
    val = tok[2:] or None
    if val is None:
        val = cur.value()
        if val is None:
            res.dropped.append({"args": group, "why": "-p without a plugin name"})
            return
        group.append(val)
    if val.startswith("no:"):
        res.kept += ["-p", val]
        res.disabled_plugins.append(val[3:])
    elif val in plugins:
        res.kept += ["-p", val]
    else:
        res.refused.append({"args": group, "why": f"loads {val!r} as a plugin: only "
                            "pytest11 plugins of the scoring environment may be loaded "
                            "(a module name could be candidate code)"})


def _option(res: PytestArgs, tok: str, cur: _Cursor, options: dict[str, dict[str, str]],
            ini: dict[str, dict[str, str]]) -> None:
    name, val = _split(tok, options)
    spec = options.get(name)
    if spec is None and not tok.startswith("--") and len(tok) > 2 \
            and all(options.get("-" + c, {}).get("value") == "none" for c in tok[1:]):
        for c in tok[1:]:  # a cluster of short flags such as -vs: each judged on its own
            _apply(res, ["-" + c], options["-" + c], "-" + c)
        return
    group = [tok]
    if spec is None:
        extra = cur.loose_value() if val is None else None
        res.dropped.append({"args": group + ([extra] if extra else []), "why": "option "
                            "unknown to gavel (dropped with any value it may take; add it to "
                            "the task's gavel-judge.toml [pytest_options.option] to keep it)"})
        return
    kind = spec.get("value", "none")
    if val is None and kind in ("required", "optional"):
        val = cur.value() if kind == "required" else cur.loose_value()
        if val is None and kind == "required":
            res.dropped.append({"args": group, "why": f"{name} is missing its value"})
            return
        if val is not None:
            group.append(val)
    if spec.get("policy") == "ini":
        key = (val or "").partition("=")[0].strip()
        _apply(res, group, ini.get(key, {"policy": "keep"}), f"{name} {key}")
        return
    _apply(res, group, spec, name)


def _apply(res: PytestArgs, group: list[str], spec: dict[str, str], name: str) -> None:
    policy = spec.get("policy", "drop")
    if policy == "keep":
        res.kept += group
    elif policy == "refuse":
        res.refused.append({"args": group, "why": spec.get("why", f"{name} is not allowed")})
    else:
        res.dropped.append({"args": group, "why": spec.get("why", "not used by gavel")})
