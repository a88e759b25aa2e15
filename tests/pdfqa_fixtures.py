"""PDFs for the pdfqa and contact-sheet tests, built during the test run.

Text PDFs come from gavelkit's own tiny writer (Latin in Helvetica). Chinese text is
drawn with a real CJK font embedded as a subset when one is installed (.ci/run
installs fonts-wqy-microhei), so Chinese pages carry ink as in real papers; without
one it falls back to the non-embedded STSong-Light, which extracts but draws nothing
(tests that need ink skip, see test_pdfqa_real_shapes). Encryption uses pypdf.
"""

from __future__ import annotations

from pathlib import Path

from gavelkit.award.pdf.writer import PageSpec, Rect, Text, build_pdf, find_cjk_font, xmp_packet
from gavelkit.core.findings import Finding

CJK_FONT = find_cjk_font()


def page(lines: list[str], n: int | None = None, figure: bool = True, **kw) -> PageSpec:
    p = PageSpec(**kw).lines(lines)
    if figure:
        p.figure(top=120 + 16 * len(lines), height=150)
    if n is not None:
        p.number(n)
    return p


def write(folder: Path, name: str, pages: list[PageSpec], info: dict[str, str] | None = None,
          **kw) -> str:
    path = folder / name
    kw.setdefault("cjk_font", CJK_FONT)
    path.write_bytes(build_pdf(pages, info, **kw))
    return str(path)


def paper(n_body: int = 25, ai_pages: int = 1, ai_heading: str = "Report on Use of AI") -> list[PageSpec]:
    """A paper: summary sheet, body pages with figures/tables, then the AI-use report."""
    pages = [page(["Summary", "Team Control Number: 2512345", "Problem C: data from the School "
                   "of Economics", "We build three models."], 1)]
    fig = 1
    for k in range(2, n_body + 1):
        pages.append(page([f"Section {k}", "The model is solved numerically.",
                           f"Figure {fig}: Result number {fig}", f"Table {fig}: Values {fig}"], k))
        fig += 1
    for k in range(ai_pages):
        lines = [ai_heading, "1. OpenAI ChatGPT (Nov 5, 2023 version)"] if k == 0 else \
            ["Query 2: rewrite the abstract"]
        pages.append(page(lines, n_body + k + 1))
    return pages


def as_findings(doc: dict) -> list[Finding]:
    """JSON output of a command -> Finding objects (for gk_testing.fires/clean)."""
    out = []
    for d in doc.get("findings", []) + doc.get("qa_findings", []):
        out.append(Finding(d["code"], d["severity"], d["message"], d.get("path", ""),
                           d.get("line", 0), d.get("col", 0), d.get("hint"),
                           d.get("unusable", False), d.get("data", {})))
    return out


__all__ = ["PageSpec", "Rect", "Text", "as_findings", "page", "paper", "write", "xmp_packet"]
