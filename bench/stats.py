"""Figures of a benchmark: a median of several runs with its min and max, and percentiles."""
from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Spread:
    """The median of several runs, with the smallest and largest run."""

    median: float
    low: float
    high: float
    runs: tuple[float, ...]

    @classmethod
    def of(cls, runs: Sequence[float]) -> Spread:
        """The spread of ``runs`` (at least one)."""
        if not runs:
            raise ValueError("a spread needs at least one run")
        return cls(statistics.median(runs), min(runs), max(runs), tuple(runs))

    def to_json(self, digits: int = 3) -> dict[str, Any]:
        """``{"median", "min", "max", "runs"}``, rounded."""
        return {
            "median": round(self.median, digits), "min": round(self.low, digits), "max": round(self.high, digits),
            "spread": round(self.spread, digits), "runs": [round(run, digits) for run in self.runs],
        }

    @property
    def spread(self) -> float:
        """The largest run less the smallest."""
        return self.high - self.low

    def text(self, fmt: str = ",.0f", unit: str = "", spread: bool = False) -> str:
        """``median [min..max]`` in ``fmt``, then ``spread S`` if asked."""
        said = f"{self.median:{fmt}}{unit} [{self.low:{fmt}}..{self.high:{fmt}}]"
        return f"{said} spread {self.spread:{fmt}}" if spread else said


def percentile(samples: Sequence[float], pct: float) -> float:
    """The ``pct``-th percentile of ``samples`` (nearest rank: a value that was measured)."""
    if not samples:
        return math.nan
    ordered = sorted(samples)
    rank = max(1, math.ceil(pct / 100 * len(ordered)))
    return ordered[rank - 1]


@dataclass(frozen=True)
class Figure:
    """One line of the results table: a measured spread beside its baseline and target."""

    name: str
    value: Spread
    unit: str
    baseline: Spread | None = None
    baseline_name: str = ""
    ratio: Spread | None = None  # the run-by-run ratio the target applies to
    target: str = ""
    met: bool | None = None
    fmt: str = ",.0f"
    spread: bool = False  # print each spread's max - min beside it

    def to_json(self) -> dict[str, Any]:
        """The figure as JSON (spreads as median/min/max/runs)."""
        return {
            "name": self.name, "unit": self.unit, "value": self.value.to_json(),
            "baseline_name": self.baseline_name or None,
            "baseline": self.baseline.to_json() if self.baseline else None,
            "ratio": self.ratio.to_json() if self.ratio else None,
            "target": self.target or None, "met": self.met,
        }


def table(figures: Sequence[Figure]) -> str:
    """A plain-text table: figure, value, baseline, ratio, target and whether it holds."""
    rows = [("figure", "median [min..max]", "baseline (same run)", "ratio", "target", "")]
    for f in figures:
        baseline = f"{f.baseline_name}: {f.baseline.text(f.fmt, spread=f.spread)}" if f.baseline else ""
        ratio = f.ratio.text(".2f", spread=f.spread) if f.ratio else ""
        verdict = "" if f.met is None else ("met" if f.met else "NOT MET")
        value = f"{f.value.text(f.fmt, spread=f.spread)} {f.unit}".rstrip()
        rows.append((f.name, value, baseline, ratio, f.target, verdict))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip() for row in rows]
    lines.insert(1, "  ".join("-" * width for width in widths))
    return "\n".join(lines)
