"""The reports in a real headless browser: they load with no console message (no script
error, no blocked external load) and render; a screenshot of each is written.

Needs Debian's `chromium` (or `chromium-browser`) on PATH; skipped otherwise. Set
GAVEL_SCREENSHOTS=DIR to keep the screenshots.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from report_util import judged_task
from task_helpers import copy_good, edit

pytestmark = pytest.mark.browser

CONSOLE = re.compile(r":CONSOLE[:(]\d*\)?\]\s*(.*)")


def _chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    pytest.skip("no chromium on PATH (apt-get install -y chromium); browser check skipped")


def _run(browser: str, page: Path, tmp: Path, *action: str,
         fragment: str = "") -> subprocess.CompletedProcess[str]:
    cmd = [browser, "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
           "--disable-extensions", "--hide-scrollbars", "--window-size=1280,2400",
           f"--user-data-dir={tmp / 'profile'}", "--enable-logging=stderr", "--v=0",
           *action, page.resolve().as_uri() + fragment]
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=90,
                              env={**os.environ, "HOME": str(tmp)})
    except subprocess.TimeoutExpired:
        pytest.skip("chromium did not finish within 90 s on this machine")


def _load(browser: str, page: Path, tmp: Path) -> Path:
    shot = tmp / (page.stem + ".png")
    res = _run(browser, page, tmp, f"--screenshot={shot}")
    console = [m.group(1) for m in CONSOLE.finditer(res.stderr)]
    assert console == [], f"console messages from {page.name}: {console}"
    assert shot.is_file() and shot.stat().st_size > 5000, res.stderr[-2000:]
    keep = os.environ.get("GAVEL_SCREENSHOTS")
    if keep:
        Path(keep).mkdir(parents=True, exist_ok=True)
        shutil.copy(shot, Path(keep) / shot.name)
    return shot


def test_reports_load_cleanly_in_chromium(root: Path, tmp_path: Path) -> None:
    from gavelkit.award.runs.report import build
    from gavelkit.core.htmlreport import write
    from gavelkit.task.judging.report import build_fleet, build_task

    browser = _chromium()
    run = next((root / "examples/award-run/work").iterdir())
    pages = tmp_path / "pages"
    award = pages / "award-report.html"
    write(str(award), build(run, pdfqa=False).html)
    task_dir = judged_task(tmp_path / "t")
    task = pages / "task-report.html"
    write(str(task), build_task(task_dir).html)
    fleet = pages / "fleet-report.html"
    other = copy_good(tmp_path / "g", "other_task")
    edit(other / "task.json", '"instance_id": "task_good"', '"instance_id": "other_task"')
    write(str(fleet), build_fleet([task_dir, other]).html)
    for page in (award, task, fleet):
        _load(browser, page, tmp_path)
    # the fleet table's script runs: counter, filters and sort order from the URL fragment
    for fragment, shown, first in (("#sort=-task", "2 of 2 shown", "task_good"),
                                   ("#state=SELECTED&sort=candidate", "1 of 2 shown", "other_task")):
        dom = _run(browser, fleet, tmp_path, "--dump-dom", fragment=fragment)
        assert shown in dom.stdout, (fragment, dom.stderr[-2000:])
        ids = re.findall(r'<td data-v="(task_good|other_task)">', dom.stdout)
        assert ids and ids[0] == first, (fragment, ids)
        assert not CONSOLE.findall(dom.stderr)
