"""Markdown files rendered from Jinja2 templates (data/templates/*.md.j2).

The judge's diagnosis report and its request files are text a person reads and a program
re-reads (the Q-A/Q-B table is filled in by hand). Their layout lives in templates, their
values in small view functions. Like the HTML reports, a template fails on a value the
view does not hold (StrictUndefined): a missing section is an error, not a blank. No
autoescaping (Markdown, not HTML); `cell` makes a value safe inside a table cell.
"""

from __future__ import annotations

import functools
from typing import Any


def cell(value: Any) -> str:
    """A value inside a Markdown table cell: `|` escaped, one line."""
    return str(value).replace("|", "\\|").replace("\n", " ")


def pct(value: Any) -> str:
    return "n/a" if value is None else f"{value:.1%}"


@functools.cache
def _env() -> Any:
    import jinja2

    from gavelkit.data import path

    env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(path("templates"))),
                             autoescape=False, trim_blocks=True, lstrip_blocks=True,
                             keep_trailing_newline=True, undefined=jinja2.StrictUndefined)
    env.filters["cell"] = cell
    env.filters["pct"] = pct
    return env


def render(template: str, strip: bool = True, **ctx: Any) -> str:
    """The rendered text; `strip`: ending in exactly one newline."""
    text = _env().get_template(template).render(**ctx)
    return text.rstrip() + "\n" if strip else text
