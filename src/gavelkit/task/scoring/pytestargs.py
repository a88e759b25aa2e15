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


def parse_pytest_args(args: list[Any], plugin_names: set[str] | None = None,
                      task_dir: Any = None) -> PytestArgs:
    """Parse and vet; `plugin_names` are the pytest11 plugin names of the environment;
    a task's `gavel-judge.toml` [pytest_options] can add or change table entries."""
    options, ini = _tables(task_dir)
    plugins = plugin_names or set()
    res = PytestArgs()
    toks = [str(a) for a in args]
    i = 0
    while i < len(toks):
        tok = toks[i]
        i += 1
        if not tok.startswith("-") or tok == "-":
            res.dropped.append({"args": [tok], "why": "a test path or stray value: the test "
                                "files come from the expected node ids"})
            continue
        if tok == "--":
            res.dropped.append({"args": toks[i - 1:], "why": "test paths after '--': the test "
                                "files come from the expected node ids"})
            break
        name, val = _split(tok, options)
        if tok.startswith("-p") and not tok.startswith("--"):
            group = [tok]
            val = tok[2:] or None
            if val is None:
                if i < len(toks):
                    val = toks[i]
                    group.append(val)
                    i += 1
                else:
                    res.dropped.append({"args": group, "why": "-p without a plugin name"})
                    continue
            if val.startswith("no:"):
                res.kept += ["-p", val]
                res.disabled_plugins.append(val[3:])
            elif val in plugins:
                res.kept += ["-p", val]
            else:
                res.refused.append({"args": group, "why": f"loads {val!r} as a plugin: only "
                                    "pytest11 plugins of the scoring environment may be loaded "
                                    "(a module name could be candidate code)"})
            continue
        spec = options.get(name)
        if spec is None and not tok.startswith("--") and len(tok) > 2 \
                and all(options.get("-" + c, {}).get("value") == "none" for c in tok[1:]):
            # a cluster of short flags such as -vs: each judged on its own
            for c in tok[1:]:
                _apply(res, ["-" + c], options["-" + c], "-" + c)
            continue
        if spec is None:
            group = [tok]
            if val is None and i < len(toks) and not toks[i].startswith("-"):
                group.append(toks[i])
                i += 1
            res.dropped.append({"args": group, "why": "option unknown to gavel (dropped with "
                                "any value it may take; add it to the task's gavel-judge.toml "
                                "[pytest_options.option] to keep it)"})
            continue
        group = [tok]
        kind = spec.get("value", "none")
        if val is None and kind == "required":
            if i < len(toks):
                val = toks[i]
                group.append(val)
                i += 1
            else:
                res.dropped.append({"args": group, "why": f"{name} is missing its value"})
                continue
        elif val is None and kind == "optional" and i < len(toks) \
                and not toks[i].startswith("-"):
            val = toks[i]
            group.append(val)
            i += 1
        if spec.get("policy") == "ini":
            key = (val or "").partition("=")[0].strip()
            rule = ini.get(key, {"policy": "keep"})
            _apply(res, group, rule, f"{name} {key}")
            continue
        _apply(res, group, spec, name)
    return res


def _apply(res: PytestArgs, group: list[str], spec: dict[str, str], name: str) -> None:
    policy = spec.get("policy", "drop")
    if policy == "keep":
        res.kept += group
    elif policy == "refuse":
        res.refused.append({"args": group, "why": spec.get("why", f"{name} is not allowed")})
    else:
        res.dropped.append({"args": group, "why": spec.get("why", "not used by gavel")})
