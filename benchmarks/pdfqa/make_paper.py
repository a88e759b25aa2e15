"""Build the 25-page benchmark paper with matplotlib's PdfPages.

Each page has a running header, body text, a figure (3,000-point scatter, line
plots, a heat map or bars) with a "Figure N:" caption, and a page number.
Planted defects, so both pipelines have something to find: "Figure 4:" appears
twice, page 14 is empty except header and number, page 25 is the AI-use report.
"""

from __future__ import annotations

import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
from matplotlib.backends.backend_pdf import PdfPages

LOREM = ("The model couples a logistic growth term with a transport network. We calibrate "
         "the parameters on ten years of data and test the forecast on a hold-out year.")


def main(out: str, pages: int = 25) -> None:
    rng = np.random.default_rng(0)
    fig_no = 0
    with PdfPages(out, metadata={"Creator": "matplotlib", "Title": "Benchmark paper"}) as pdf:
        for k in range(1, pages + 1):
            fig = plt.figure(figsize=(8.27, 11.69))
            fig.text(0.1, 0.96, "Team Control Number 2512345", fontsize=8)
            fig.text(0.5, 0.03, str(k), fontsize=9, ha="center")
            if k == 14:
                pdf.savefig(fig)
                plt.close(fig)
                continue
            if k == pages:
                fig.text(0.1, 0.9, "Report on Use of AI", fontsize=14)
                fig.text(0.1, 0.86, "1. OpenAI ChatGPT: grammar suggestions for section 3.", fontsize=10)
                pdf.savefig(fig)
                plt.close(fig)
                continue
            title = "Summary" if k == 1 else f"Section {k}"
            fig.text(0.1, 0.9, title, fontsize=14)
            for j in range(6):
                fig.text(0.1, 0.86 - j * 0.02, LOREM[: 60 + 7 * j], fontsize=9)
            ax = fig.add_axes((0.15, 0.3, 0.7, 0.35))
            kind = k % 4
            if kind == 0:
                ax.scatter(rng.normal(size=3000), rng.normal(size=3000), s=2)
            elif kind == 1:
                x = np.linspace(0, 10, 400)
                for m in range(4):
                    ax.plot(x, np.sin(x + m) * (m + 1), label=f"scenario {m}")
                ax.legend()
            elif kind == 2:
                ax.imshow(rng.random((60, 80)), cmap="viridis")
            else:
                ax.bar(range(12), rng.random(12))
            ax.set_xlabel("time (years)")
            ax.set_ylabel("value")
            fig_no += 1
            number = 4 if fig_no == 5 else fig_no
            fig.text(0.1, 0.24, f"Figure {number}: Result of experiment {fig_no}", fontsize=10)
            pdf.savefig(fig)
            plt.close(fig)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "paper25.pdf")
