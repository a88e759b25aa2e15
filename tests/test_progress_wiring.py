"""Long-running library calls report progress through a plain callback."""

from __future__ import annotations

from pathlib import Path


def test_scan_reports_bytes_read(tmp_path: Path) -> None:
    from gavelkit.task.anticheat.scan import scan_trajectories

    lines = ['{"type":"assistant","message":{"content":[{"type":"tool_use","name":"Bash",'
             f'"id":"t{i}","input":{{"command":"ls /tmp/x{i}"}}}}]}}}}' for i in range(2000)]
    files = []
    for n in range(3):
        p = tmp_path / f"s{n}.jsonl"
        p.write_text("\n".join(lines) + "\n")
        files.append(str(p))
    seen: list[tuple[int, int]] = []
    res = scan_trajectories(files, package="cleo", progress=lambda d, t: seen.append((d, t)))
    assert res.verdict in ("CLEAN", "UNVERIFIABLE", "CHEAT_DETECTED")
    total = sum(Path(f).stat().st_size for f in files)
    assert seen[-1] == (total, total)
    assert [d for d, _ in seen] == sorted(d for d, _ in seen)
