"""The gate of a single-document transcript: the actions prepared on the whole document
(gate.Gate.prepare), and the outputs that cannot matter replaced by OUTPUT_SKIPPED. Split
from scan.py, which walks the files and keeps the verdict."""

from __future__ import annotations

from typing import Any

from gavelkit.task.anticheat.analyze import Analyzer
from gavelkit.task.anticheat.places import Context
from gavelkit.task.anticheat.trajectory.events import Event


def out_matcher(ctx: Context, engine: str) -> Any:
    from gavelkit.task.anticheat import prefilter

    key = f"out:{engine}"
    if key not in ctx.matchers:
        lits = [x.encode() for x in ctx.surface_lits] + [x.encode() for x in ctx.sig_files]
        ctx.matchers[key] = prefilter.Matcher(lits, engine) if lits else None
    return ctx.matchers[key]



class _Skipped:
    """An output the document gate found nothing in: counted, never read."""


OUTPUT_SKIPPED: Any = _Skipped()


def gate_document(ctx: Context, matcher: Any, an: Analyzer, events: list[Event]) -> None:
    """Give the analyser a gate prepared on the whole document, and replace the outputs
    that cannot matter by OUTPUT_SKIPPED. An output matters when it names a forbidden
    place or an oracle test file, could reproduce protected lines (the fingerprints'
    prefilter), or moves the shell ("Shell cwd was reset"); each is one pass over the
    document's outputs, the few outputs it finds then checked one by one."""
    from gavelkit.task.anticheat.gate import Gate

    an.gate = Gate(ctx, lambda text: matcher.found(text.encode("utf-8", "surrogatepass")),
                   matcher.engine)
    an.gate.prepare(events)
    outs = [k for k, ev in enumerate(events) if ev.tool == "output" and ev.output]
    an.check_outputs = True
    keep = _outputs_that_matter(ctx, matcher.engine, [events[k].output or "" for k in outs])
    for n, k in enumerate(outs):
        if n not in keep:
            events[k] = OUTPUT_SKIPPED


def _outputs_that_matter(ctx: Context, engine: str, texts: list[str]) -> set[int]:
    """The outputs that name a forbidden place or oracle file, could reproduce protected
    lines, or move the shell: one pass for all their literals and one for base64 runs
    find the candidates, each candidate is then checked as `Analyzer` would."""
    from gavelkit.task.anticheat.gatemarks import mark, starts_of

    if not texts:
        return set()
    raws = [t.encode("utf-8", "surrogatepass") for t in texts]
    joined, starts = b"\n".join(raws), starts_of(map(len, raws))
    cand = [0] * len(texts)
    mark(_candidates(ctx, engine).span, joined, starts, cand, _LIT)
    fp = ctx.fingerprints
    if fp is not None:
        mark(_span_of(fp.b64), joined, starts, cand, _RUN)
    om = out_matcher(ctx, engine)

    def matters(k: int) -> bool:
        # an output the literal pass did not mark holds none of the literals (the marks
        # cover every text a match overlaps), one the run pass did not mark no base64
        # run: the checks that look for them cannot find one there
        lit = bool(cand[k] & _LIT)
        if lit and ((om is not None and om.found(raws[k])) or CWD_RESET in raws[k]):
            return True
        return fp is not None and fp.might(texts[k], raws[k], tokens=lit,
                                           blocks=bool(cand[k] & _RUN))

    return {k for k, c in enumerate(cand) if c and matters(k)}


_LIT, _RUN = 1, 2     # the output passes' marks: a literal, a base64 run
CWD_RESET = b"Shell cwd was reset"


def _candidates(ctx: Context, engine: str) -> Any:
    """One matcher for every literal an output check looks for (surface names, oracle
    files, the fingerprints' tokens, the shell's folder reset)."""
    from gavelkit.task.anticheat import prefilter

    key = f"outputs:{engine}"
    if key not in ctx.matchers:
        lits = [x.encode() for x in (*ctx.surface_lits, *ctx.sig_files)] + [CWD_RESET]
        fp = ctx.fingerprints
        if fp is not None:
            if fp.matcher is None:
                fp.compile(engine)
            lits += [t.encode() for t in fp.tokens]
        ctx.matchers[key] = prefilter.Matcher(lits, engine)
    return ctx.matchers[key]


def _span_of(rx: Any) -> Any:
    from gavelkit.task.anticheat.prefilter import span_search

    return span_search(rx)
