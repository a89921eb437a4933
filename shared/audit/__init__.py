"""Audit one match's recorded events: gapless, chained, lawful, on time and fairly dealt.

``audit_events`` needs nothing but the events: it checks that versions run 1..n, that
every hash-chain link is intact, that the match created is this match and every player
seated has an id and a name the API could have given (:mod:`shared.identity`), and that
re-deciding what was decided in the match — the recorded *player actions* and the
service's own commands (timeouts, lobby expiry) — through ``decide`` yields exactly the
recorded events, derived outcomes and deals included (:mod:`.rederive`). Once a match is
won its seed is revealed, so every shuffled deal is recomputed from the seed and the seed
is checked against the commitment recorded at creation. Before that, deals can only be
checked for consistency. A match re-chained to take an erased player's name out of its
events (:mod:`shared.rechaining`) is checked on its chain as stored, its re-chainings noted
(:func:`check_rechainings`).
"""
from .checks import RecordedChance, audit_events
from .rechained import check_rechainings
from .rederive import command_of
from .report import AuditReport, Finding

__all__ = ["AuditReport", "Finding", "RecordedChance", "audit_events", "check_rechainings", "command_of"]
