"""What an audit found: the failures, each naming the first bad event, and notes on what was checked."""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Finding:
    version: int
    check: str  # versions | chain | identity | rules | time | deal | seed | read_models
    message: str


@dataclass
class AuditReport:
    match_id: str
    events: int
    failures: list[Finding] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.failures

    def fail(self, version: int, check: str, message: str) -> None:
        self.failures.append(Finding(version, check, message))
