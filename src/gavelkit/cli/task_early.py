"""Start the test process of `gavel task run|solvability` before argparse and the command's
own modules load (task.scoring.warm), from the plain argv forms read by fastargs.

Every millisecond before the prestart is on the critical path of a short suite. Anything
fastargs does not read exactly (help, abbreviations, a repeated --remove-path, both
solution options) returns None here, and the command prestarts after its argparse parser
instead; tests/test_scoring_warm.py checks that both readers agree on what matters.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# value options common to both commands (flags: --offline, -q/--quiet)
_VALUES = {"--out": "out", "--package": "package", "--python": "python", "--install": "install",
           "--timeout": "timeout", "--file-timeout": "file_timeout", "--memory-mb": "memory_mb",
           "--tmp-mb": "tmp_mb",
           "--isolation": "isolation", "--group": "group", "--repeat": "repeat",
           "--format": "format"}
_CHOICES = {"--install": ("auto", "never"), "--isolation": ("auto", "bwrap", "none"),
            "--group": ("auto", "file", "run"), "--format": ("text", "json")}
_OWN = {"run": {"--solution": "solution", "--solution-package": "spec", "--role": "role",
                "--reference-run": "reference_run"},
        "solvability": {"--reference": "solution", "--reference-package": "spec",
                        "--threshold": "threshold"}}


def spec(command: str) -> Any:
    from gavelkit.cli.fastargs import Spec

    opts: dict[str, tuple[str, str, Any]] = {
        flag: (dest, "value", _CHOICES.get(flag)) for flag, dest in _VALUES.items()}
    for flag, dest in _OWN[command].items():
        opts[flag] = (dest, "value", ("candidate", "reference") if flag == "--role" else None)
    opts.update({"--offline": ("offline", "flag", None), "-q": ("quiet", "flag", None),
                 "--quiet": ("quiet", "flag", None)})
    return Spec([("task", None, "1")], opts, {"install": "auto", "isolation": "auto",
                                              "memory_mb": "4096"})


def read(command: str, argv: list[str]) -> Any:
    """What the prestart needs, or None when the command's parser must decide."""
    from gavelkit.cli.fastargs import parse

    a = parse(argv, spec(command))
    if a is None or (a.solution is None) == (a.spec is None):
        return None
    try:
        a.memory_mb = int(a.memory_mb)
    except ValueError:
        return None
    return a if a.memory_mb > 0 else None


def early(words: tuple[str, ...], argv: list[str]) -> Any:
    """A prestarted Warm (or the NotStarted reason) registered for this argv (warm.claim
    takes it), or None when the command's parser must decide."""
    a = read(words[-1], argv)
    if a is None:
        return None
    from gavelkit.task.scoring import warm

    w = warm.prestart(a.task, solution=a.solution, spec=a.spec, install=a.install,
                      python=a.python, isolation=a.isolation, memory_mb=a.memory_mb)
    warm.EARLY[tuple(argv)] = w
    return w
