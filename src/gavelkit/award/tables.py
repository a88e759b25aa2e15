"""The award pack's tables (tiers, rubrics, block shapes, role keys), loaded from data.

Project overrides come from gavel.toml: `[award.rubrics.A] criteria = {...}` replaces a
seat's rubric, `[award.tiers.<name>]` keys replace a tier's numbers or aliases.
"""

from __future__ import annotations

import functools

from gavelkit.core.errors import UsageError

TYPE_CHECKING = False  # typing costs start-up time that agents pay on every call
if TYPE_CHECKING:
    from typing import Any


class Tier:
    """A tier: rank, band floor of the total, panel threshold and criterion floor."""

    __slots__ = ("aliases", "band_min", "floor", "name", "rank", "threshold")

    def __init__(self, name: str, rank: int, band_min: float, threshold: float | None,
                 floor: float | None, aliases: tuple[str, ...]) -> None:
        self.name = name
        self.rank = rank
        self.band_min = band_min
        self.threshold = threshold
        self.floor = floor
        self.aliases = aliases

    def __repr__(self) -> str:
        return f"Tier({self.name!r}, rank={self.rank})"


class Budgets:
    """The iteration budgets (seed §4), from data/award/budgets.yaml."""

    __slots__ = ("last_phase", "panel_phase", "panel_rounds", "phase_fix_loops", "run_fix_loops")

    def __init__(self, phase_fix_loops: int, run_fix_loops: int, panel_rounds: int,
                 panel_phase: int, last_phase: int) -> None:
        self.phase_fix_loops = phase_fix_loops  # per phase: loop 0 plus this many fix loops
        self.run_fix_loops = run_fix_loops      # whole run, panel re-scores excluded
        self.panel_rounds = panel_rounds        # round 1 plus the re-scores
        self.panel_phase = panel_phase
        self.last_phase = last_phase


@functools.cache
def budgets() -> Budgets:
    raw = _read("budgets.yaml")
    return Budgets(**{k: int(raw[k]) for k in Budgets.__slots__})


class Seat:
    """A judge seat's role and rubric (criterion -> weight)."""

    __slots__ = ("criteria", "name", "role")

    def __init__(self, name: str, role: str, criteria: dict[str, float]) -> None:
        self.name = name
        self.role = role
        self.criteria = criteria


class Tables:
    """All award tables, loaded once per process (plain class: see core.findings)."""

    __slots__ = ("agents", "anchors", "blocks", "seats", "tiers")

    def __init__(self, tiers: dict[str, Tier], seats: dict[str, Seat],
                 anchors: tuple[tuple[str, str], ...], blocks: dict[str, Any],
                 agents: dict[str, dict[str, Any]]) -> None:
        self.tiers = tiers
        self.seats = seats
        self.anchors = anchors
        self.blocks = blocks
        self.agents = agents

    @property
    def limits(self) -> dict[str, Any]:
        return self.blocks["limits"]

    def tier_of(self, token: Any) -> Tier | None:
        """Exact token (canonical or alias) -> Tier; block enums are case-sensitive."""
        if not isinstance(token, str):
            return None
        for tier in self.tiers.values():
            if token == tier.name or token in tier.aliases:
                return tier
        return None

    def target(self, token: str) -> Tier:
        """--target and variant target_tier lookup: trimmed and case-folded; only tiers with
        a threshold qualify. A label may join names with '/' ('Finalist / 国一边缘'): every
        part that names a tier must name the same one, and one part must."""
        import re

        found: set[str] = set()
        for part in re.split(r"[/,|;()（）、]+", token):
            tier = self._target_part(part)
            if tier is not None:
                found.add(tier.name)
        if len(found) == 1:
            return self.tiers[found.pop()]
        known = sorted({n for t in self.tiers.values() if t.threshold is not None
                        for n in (t.name, *t.aliases)})
        if found:
            raise UsageError(f"target tier {token!r} names several tiers ({', '.join(sorted(found))})"
                             "; name one")
        raise UsageError(f"unknown --target tier {token!r} (known: {', '.join(known)})")

    def _target_part(self, part: str) -> Tier | None:
        key = part.strip().casefold()
        for tier in self.tiers.values():
            if tier.threshold is not None and key in [n.casefold() for n in (tier.name,
                                                                             *tier.aliases)]:
                return tier
        return None

    def band(self, total: float) -> Tier:
        """Half-open bands on the recomputed total: the highest tier whose band_min <= total."""
        best = min(self.tiers.values(), key=lambda t: t.rank)
        for tier in self.tiers.values():
            if total >= tier.band_min and tier.rank > best.rank:
                best = tier
        return best

    def hint_tier(self, token: Any) -> str | None:
        if isinstance(token, str):
            folded = token.strip().casefold()
            for tier in self.tiers.values():
                for n in (tier.name, *tier.aliases):
                    if n.casefold() == folded:
                        return n
        return None


def _read(name: str) -> dict[str, Any]:
    """Tables are YAML: the C loader is already imported for the blocks, TOML is not."""
    import yaml

    from gavelkit.data import file

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    with open(file("award", name), encoding="utf-8") as fh:
        return yaml.load(fh, Loader=loader)


def _check(cfg: dict[str, Any], key: str, defaults: dict[str, Any],
           config_path: str | None) -> None:
    """An override table must hold what the defaults hold (no text threshold, no NaN)."""
    from gavelkit.core.config import find_config
    from gavelkit.core.typecheck import check_like

    over = cfg.get(key)
    if over is None:
        return
    where = str(config_path or find_config() or "gavel.toml")
    template = next(iter(defaults.values()), {})
    if not isinstance(over, dict):
        check_like({}, over, where, f"award.{key}")
    for name, table in over.items():
        check_like(defaults.get(name, template), table, where, f"award.{key}.{name}")


@functools.cache
def open_blocking() -> tuple[str, ...]:
    """The severities an open issue blocks a gate with (blocks.yaml gate.open_blocking;
    seed §2: blocker and high): the one list every check and status reads. A tuple: a
    severity read from a block may be any YAML value, a list among them (not hashable)."""
    return tuple(_read("blocks.yaml")["gate"]["open_blocking"])


@functools.cache
def load_tables(config_path: str | None = None) -> Tables:
    from gavelkit.core.config import load_config, section

    cfg = section(load_config(config_path), "award")
    tiers_raw = _read("tiers.yaml")["tiers"]
    _check(cfg, "tiers", tiers_raw, config_path)
    for name, override in section(cfg, "tiers").items():
        tiers_raw.setdefault(name, {}).update(override)
    tiers = {
        name: Tier(name, int(t["rank"]), float(t.get("band_min", 0.0)),
                   float(t["threshold"]) if "threshold" in t else None,
                   float(t["floor"]) if "floor" in t else None,
                   tuple(t.get("aliases", ())))
        for name, t in tiers_raw.items()
    }
    rub = _read("rubrics.yaml")
    seats_raw = rub["seats"]
    _check(cfg, "rubrics", seats_raw, config_path)
    for name, override in section(cfg, "rubrics").items():
        seats_raw.setdefault(name, {}).update(override)
    seats = {name: Seat(name, str(s.get("role", "")), {k: float(v) for k, v in s["criteria"].items()})
             for name, s in seats_raw.items()}
    anchors = tuple((a["band"], a["meaning"]) for a in rub.get("anchors", []))
    blocks = _read("blocks.yaml")
    blocks["limits"]["round_max"] = budgets().panel_rounds  # one owner: budgets.yaml
    agents = _read("roles.yaml")["agents"]
    for name, override in section(cfg, "agents").items():
        agents[name] = override
    return Tables(tiers, seats, anchors, blocks, agents)
