"""Typed readers (and atomic writers where the judge writes) for real task files.

Every reader returns `(value, findings)`: a malformed row becomes a finding at
its line and the rest of the file is still read; an unreadable file gives
`(None, [finding with unusable=True])`.

- `spec.read_spec` -> Spec (H2/H3 tree, exact heading text)
- `spec_test_map.read_spec_test_map` -> SpecTestMap (header keys, rows, extra tables)
- `nodeids.read_nodeids` -> NodeIds; `nodeids.func_key` compares key forms
- `taxonomy.read_taxonomy` -> Taxonomy (`taxonomy_key` or `test_id`)
- `task_json.read_task_json` / `update_task_json` -> TaskJson (BOM, key order kept)
- `score.read_score` -> ScoreResult (one type for candidate and reference)
- `pipeline_state.read_pipeline_state` / `render_transition` -> PipelineState
- `candidates.read_candidates` / `render_with_superseded` -> Ledger
"""
