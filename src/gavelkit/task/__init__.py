"""Task pack: judging spec-to-repo benchmark tasks (seed 002, "task-judge").

Library entry points (the judge of issue 8 builds on these):

- `gavelkit.task.formats.load.load_task(dir, config=None, ledger=None) -> Task`:
  every file of a task folder parsed (spec, map, kept ids, taxonomy, task.json,
  scores, PIPELINE_STATE.md, CANDIDATES.md, oracle test files) + findings.
- `gavelkit.task.pipeline.state`: `transition(dir, to, note)`, `plan_transition`,
  `init_state`, `allowed_next` (guards/caps/loops from data/task_states.toml).
- `gavelkit.task.pipeline.oracle`: `record_digests`, `compare_digests`, `check_oracle`
  (the REOPENED_S3 protocol).
- `gavelkit.task.gates.run_gates(task, "DEF") -> GateReport`.
- `gavelkit.task.gates.spotcheck`: `sample`, `build`, `render`, `verify` (Gates A/C).
- `gavelkit.task.formats.*`: typed readers and atomic writers per file format.
- `gavelkit.task.formats.testsrc`: AST reading of oracle tests (assertion kinds).
"""
