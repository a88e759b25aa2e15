"""Templates fail on missing data (issue 23 item 8): a report that silently prints a blank
where a value should be misleads the reader, so every template renders with StrictUndefined,
and what is legitimately optional is asked for explicitly."""

from __future__ import annotations

import jinja2
import pytest

from gavelkit.core import htmlreport, mdtemplate


@pytest.mark.parametrize("name", ["diagnosis_report.md.j2", "filter_correction_request.md.j2",
                                  "spec_patch_request.md.j2"])
def test_markdown_templates_fail_on_a_missing_value(name: str) -> None:
    with pytest.raises(jinja2.UndefinedError):
        mdtemplate.render(name, r={"id": "t"})


def test_a_view_missing_one_key_names_it() -> None:
    r = {"id": "t", "date": "2026-01-01", "reasons": ["x"], "gates": []}
    assert mdtemplate.render("spec_patch_request.md.j2", r={**r, "type": "spec_gap"}).startswith(
        "# Spec Patch Request - t\n")  # near miss: complete
    with pytest.raises(jinja2.UndefinedError, match="type"):
        mdtemplate.render("spec_patch_request.md.j2", r=r)


@pytest.mark.parametrize("name", ["task_report.html.j2", "fleet_report.html.j2",
                                  "award_report.html.j2"])
def test_html_templates_fail_on_a_missing_value(name: str) -> None:
    with pytest.raises(jinja2.UndefinedError):
        htmlreport.render(name, d={}, charts={})


def test_markdown_cells_stay_in_their_cell() -> None:
    assert mdtemplate.cell("a | b\nc") == "a \\| b c"
