"""Find the gavelkit this skill runs on and hand a script's arguments to it.

The scripts next to this file (and `python3 _gavel.py pdf_qa.sh ARGS...` from pdf_qa.sh)
call `main(SCRIPT, ARGS)`; run directly with gavel's own words (`python3 _gavel.py award
status work/RUN_ID`) it runs any gavel command on the skill's gavelkit. The gavelkit used is, in this order: this skill's own copy in
`scripts/_gavelkit/` (put there by `gavel skills install`, so the folder works on its own
wherever it is copied), the gavelkit checkout this folder lies in, or a gavelkit installed
for this Python. Kept byte-identical in every skill folder (tests/test_skill_standalone.py).
"""

import os
import sys

HERE = os.path.dirname(os.path.realpath(__file__))


def _skill_name():
    """The `name:` of ../SKILL.md (what `gavel skills install --only` takes)."""
    try:
        with open(os.path.join(HERE, "..", "SKILL.md"), encoding="utf-8") as fh:
            for line in fh.read(4096).splitlines()[1:]:
                if line.startswith("name:"):
                    return line.split(":", 1)[1].strip()
    except (OSError, ValueError):
        pass
    return os.path.basename(os.path.dirname(HERE))


def main(script, argv):
    if sys.version_info < (3, 11):
        import shlex

        words = ["python3.11", os.path.join(HERE, script), *argv]
        again = " ".join(shlex.quote(w) for w in words)  # shlex.join is 3.8+
        sys.stderr.write(f"{script}: needs Python 3.11 or newer; {sys.executable} is "
                         f"{sys.version.split()[0]}. Run it with a newer one, e.g.:\n"
                         f"    {again}\n")
        return 2
    for where in (os.path.join(HERE, "_gavelkit"), os.path.join(HERE, "..", "..", "..", "src")):
        if os.path.isfile(os.path.join(where, "gavelkit", "cli", "skill_launch.py")):
            sys.path.insert(0, os.path.normpath(where))
            break
    try:
        from gavelkit.cli.skill_launch import run
    except ImportError:
        import shlex

        dest = os.path.dirname(os.path.dirname(HERE))
        fix = shlex.join(["gavel", "skills", "install", "--only", _skill_name(), "--dest", dest])
        sys.stderr.write(
            f"{script}: no gavelkit to run on: this skill folder has no copy of its own "
            f"({os.path.join(HERE, '_gavelkit')} is missing: it was copied from a source "
            f"checkout, not installed) and {sys.executable} has none installed. Install the "
            f"skill with its copy, from any machine or Python that has gavel:\n    {fix}\n")
        return 2
    return run(script, argv)


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.stderr.write("usage: python3 _gavel.py COMMAND [ARGS...]   (the words of `gavel "
                         "COMMAND ...`, e.g. award status work/RUN_ID)\n")
        sys.exit(2)
    sys.exit(main(sys.argv[1], sys.argv[2:]))
