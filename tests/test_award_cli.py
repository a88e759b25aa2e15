"""The lint CLI as agents call it: formats, exit codes, globs, the seed launcher, schemas."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from award_util import card, dump, gate, handoff, memo, variant, write
from gk_testing import cli, cli_json

LAUNCHER = Path(__file__).resolve().parent.parent / "skills/mathodology-award-gates/scripts/lint_run.py"


def test_text_output_has_locations(tmp_path: Path) -> None:
    p = write(tmp_path, "g.yaml", gate(verdict="pass"))
    rc, out, _ = cli("award", "lint", "gate", str(p))
    assert rc == 1
    assert f"{p}:4:12: AWD-G005 error: verdict: pass with open" in out
    assert out.rstrip().endswith("-> FAIL")


def test_json_and_sarif(tmp_path: Path) -> None:
    p = write(tmp_path, "g.yaml", gate(verdict="pass"))
    rc, doc = cli_json("award", "lint", "gate", str(p))
    assert rc == 1 and doc["exit_code"] == 1 and doc["counts"]["error"] == 1
    f = doc["findings"][0]
    assert (f["code"], f["line"], f["col"]) == ("AWD-G005", 4, 12)
    assert doc["files"][0]["blocks"][0]["ok"] is False
    rc, out, _ = cli("award", "lint", "gate", str(p), "--format", "sarif")
    sarif = json.loads(out)
    assert sarif["version"] == "2.1.0"
    run = sarif["runs"][0]
    assert run["tool"]["driver"]["rules"][0]["id"] == "AWD-G005"
    loc = run["results"][0]["locations"][0]["physicalLocation"]
    assert loc["region"] == {"startLine": 4, "startColumn": 12}


def test_sarif_validates_against_schema_shape(tmp_path: Path) -> None:
    p = write(tmp_path, "c.yaml", card(target_tier="outstanding"))
    _, out, _ = cli("award", "lint", "scorecard", str(p), "--format", "sarif")
    doc = json.loads(out)
    res = doc["runs"][0]["results"][0]
    assert res["level"] == "error" and res["ruleIndex"] == 0 and res["message"]["text"]


def test_clean_exit_zero_and_quiet(tmp_path: Path) -> None:
    p = write(tmp_path, "m.yaml", memo())
    rc, out, _ = cli("award", "lint", "memo", str(p))
    assert rc == 0 and "-> PASS" in out
    w = write(tmp_path, "h.yaml", handoff(agent="mathodology-codr"))
    rc, out, _ = cli("award", "lint", "handoff", str(w), "--quiet")
    assert rc == 0 and "AWD-H018" not in out


@pytest.mark.parametrize(("content", "rc"), [(b"", 2), (b"\x00\x01", 2), (b"gate: [\n", 2),
                                             (b"gate:\n  phase: 4\n  phase: 5\n", 1)])
def test_unreadable_vs_rule_breaking(tmp_path: Path, content: bytes, rc: int) -> None:
    p = tmp_path / "x.yaml"
    p.write_bytes(content)
    got, out, err = cli("award", "lint", "gate", str(p))
    assert got == rc
    assert "Traceback" not in out + err


def test_missing_file_exit_2_and_others_still_checked(tmp_path: Path) -> None:
    good = write(tmp_path, "g.yaml", gate(verdict="pass"))
    rc, doc = cli_json("award", "lint", "gate", str(tmp_path / "nope.yaml"), str(good))
    assert rc == 2
    codes = {f["code"] for f in doc["findings"]}
    assert {"GK-IO001", "AWD-G005"} <= codes


def test_usage_errors(tmp_path: Path) -> None:
    p = write(tmp_path, "g.yaml", gate())
    assert cli("award", "lint", "gate", str(p), "--agent", "mathodology-coder")[0] == 2
    assert cli("award", "lint", "bogus", str(p))[0] == 2
    assert cli("award", "lint")[0] == 2
    assert cli("award", "lint", "handoff", str(p), "--run-dir", str(tmp_path / "nope"))[0] == 2
    assert cli("award", "nothing")[0] == 2
    assert cli("nothing")[0] == 2


def test_glob_expansion(tmp_path: Path) -> None:
    for i in range(3):
        write(tmp_path, f"gates/phase-4-loop-{i}.yaml", gate(loop=i))
    rc, doc = cli_json("award", "lint", "gate", str(tmp_path / "gates" / "phase-4-loop-*.yaml"))
    assert rc == 0 and len(doc["files"]) == 3


def test_one_md_with_several_kinds(tmp_path: Path) -> None:
    md = ("# log\n```yaml\n" + dump(handoff()) + "```\n\n```yml\n" + dump(gate()) +
          "```\n\n~~~yaml\n" + dump(variant()) + "~~~\n")
    p = write(tmp_path, "log.md", md)
    for kind in ("handoff", "gate", "variant"):
        rc, doc = cli_json("award", "lint", kind, str(p))
        assert rc == 0, doc
        assert [b["kind"] for b in doc["files"][0]["blocks"]] == [kind]


def run_launcher(*args: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(LAUNCHER), *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=60)


def test_seed_launcher_invocations(tmp_path: Path, subprocess_env: dict[str, str]) -> None:
    run = tmp_path / "work" / "r1"
    logs = run / "phase-logs"
    logs.mkdir(parents=True)
    (logs / "phase4.md").write_text("```yaml\n" + dump(handoff()) + "```\n")
    (run / "outputs" / "figures").mkdir(parents=True)  # the artifact the handoff names
    (run / "outputs" / "figures" / "sens.pdf").write_bytes(b"%PDF")
    cards = run / "scorecards"
    for s in "ABC":
        write(cards, f"phase7-seat-{s}-round-1.yaml", card(s))
    env = subprocess_env
    r = run_launcher("handoff", "work/r1/phase-logs/phase4.md", "--agent", "mathodology-coder",
                     cwd=tmp_path, env=env)
    assert r.returncode == 0, r.stdout + r.stderr
    r = run_launcher("aggregate", "work/r1/scorecards/phase7-seat-*-round-1.yaml", "--target",
                     "outstanding", cwd=tmp_path, env=env)
    assert r.returncode == 0 and "RESULT: PASS" in r.stdout
    r = run_launcher("--self-test", cwd=tmp_path, env=env)
    assert r.returncode == 0 and "lint self-test: OK" in r.stdout
    r = run_launcher("handoff", "work/r1/phase-logs/phase4.md", "--agent", "mathodology-codr",
                     cwd=tmp_path, env=env)
    assert r.returncode == 2 and "unknown agent" in r.stderr
    r = run_launcher("gate", "work/r1/phase-logs/phase4.md", cwd=tmp_path, env=env)
    assert r.returncode == 1 and "no 'gate' block found" in r.stdout
    r = run_launcher("scorecard", "--self-test", cwd=tmp_path, env=env)
    assert r.returncode == 2  # --self-test only as the first argument


@pytest.mark.parametrize("kind", ["handoff", "gate", "scorecard", "memo", "variant"])
def test_schema_accepts_good_and_rejects_bad(kind: str) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    rc, out, _ = cli("award", "schema", kind)
    assert rc == 0
    schema = json.loads(out)
    jsonschema.Draft202012Validator.check_schema(schema)
    v = jsonschema.Draft202012Validator(schema)
    good = {"handoff": handoff, "gate": gate, "scorecard": card, "memo": memo,
            "variant": variant}[kind]()
    assert not list(v.iter_errors(good))
    bad = json.loads(json.dumps(good))
    body = next(iter(bad.values()))
    body.pop(next(iter(body)))
    assert list(v.iter_errors(bad))


def test_selftest_json_and_schema_text() -> None:
    rc, out, _ = cli("award", "self-test", "--format", "json")
    doc = json.loads(out)
    assert rc == 0 and doc["ok"] and len(doc["cases"]) >= 16
    rc, out, _ = cli("award", "schema", "scorecard", "--format", "text")
    assert rc == 0 and "target_tier" in out and out.lstrip().startswith("$schema")
