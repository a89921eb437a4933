"""``truc replay``: its lines come from the engine's fold, hands stay hidden unless revealed,
and names print as the text they are.

Each match is played in memory with the engine's ``decide`` (fixed decks for rounds 1 and 2,
a seeded chance for anything later), recorded in an ``InMemoryEventStore`` and replayed
through the click command, so what is checked is exactly what an operator reads.
"""
from __future__ import annotations

import random
import re
from collections.abc import Callable
from types import SimpleNamespace

import pytest
from click.testing import CliRunner

from services.cli import replay as replay_cli
from services.cli.replay_lines import DESCRIBERS
from services.cli.untrusted import printable
from shared.codec import encode
from shared.eventstore import InMemoryEventStore, NewEvent
from shared.rules import (
    CreateMatch,
    ExpireLobby,
    JoinMatch,
    MatchState,
    RemainderReject,
    Rules,
    Seat,
    TimeOut,
    clocked,
    deadline,
    decide,
    evolve,
    owes,
)
from shared.rules.events import EVENT_TYPES, CardPlayed, Event
from tests.unit.rules.given import command, deck_for

# Round 1, dealer B so A leads: A's KD takes trick 1, B's AC trick 2, and B leads trick 3.
ROUND_1 = {"A": "KD 9S 8H", "B": "QH AC 8C"}
DISCARDED = {"A": "9D 10D JD", "B": "9C QC JC"}  # dealt first when a redeal is accepted, never played
ROUND_2 = {"A": "JS QS 7S", "B": "10H JH KH"}  # dealer A so B leads; every card differs from round 1's
ROUND_1_TRICKS = ["trick 1: A KD, B QH → A", "trick 2: A 9S, B AC → B"]
ROUND_2_FIRST_TRICK = ["trick 1: B 10H, A JS → A"]

# Every point of a trick where round 1 can end: the cards played before it ends.
POINTS = {
    "trick-1-no-card-on-the-table": [],
    "trick-1-one-card-on-the-table": ["A KD"],
    "trick-2-no-card-on-the-table": ["A KD", "B QH"],
    "trick-2-one-card-on-the-table": ["A KD", "B QH", "A 9S"],
    "trick-3-no-card-on-the-table": ["A KD", "B QH", "A 9S", "B AC"],
    "trick-3-one-card-on-the-table": ["A KD", "B QH", "A 9S", "B AC", "B 8C"],
}
# How it ends, given the seat on turn ("A" or "B") and the other seat.
ENDINGS: dict[str, Callable[[str, str], list[str]]] = {
    "fold-by-the-seat-on-turn": lambda turn, other: [f"{turn} fold"],
    "fold-by-the-other-seat": lambda turn, other: [f"{other} fold"],
    "fold-while-a-raise-is-pending": lambda turn, other: [f"{turn} raise", f"{other} fold"],
    "rejected-raise": lambda turn, other: [f"{turn} raise", f"{other} reject"],
    "rejected-remainder": lambda turn, other: [f"{turn} remainder", f"{other} reject"],
}
CARD = re.compile(r"\b(?:10|[789JQKA])[SHDC]\b")
HOSTILE_NAMES = {  # name -> how it must print
    "[bold]x[/bold]": "[bold]x[/bold]",
    "\x1b[31mred": "\\x1b[31mred",
    "<img src=x>\u202eBot": "<img src=x>\\u202eBot",
    "two\nlines\x07\x9b": "two\\nlines\\x07\\x9b",
    "slash\\": "slash\\",
    ":smile: [link=http://x]y[/link]": ":smile: [link=http://x]y[/link]",
}
UNSAFE = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def isolated(shown: str) -> str:
    """How a name prints: between FSI and PDI, so that it cannot reorder the line around it."""
    return f"\u2068{shown}\u2069"


def unsafe_outside_names(output: str) -> list[str]:
    """The controls and bidi characters of ``output`` once each isolated name (FSI ... PDI) is taken out."""
    return UNSAFE.findall(re.sub("\u2068[^\u2066-\u2069]*\u2069", "", output))


_PREVIOUS_VALUE = Rules(remainder_reject=RemainderReject.PREVIOUS_VALUE)  # the match goes on
T0 = 1_700_000_000_000  # 2023-11-14T22:13:20Z: the time of the latest event, for the clock's commands


class Table:
    """A match played in memory: round 1 dealt with or without a redeal to come, then round 2."""

    def __init__(self, redeal: bool = False, rules: Rules = _PREVIOUS_VALUE,
                 names: tuple[str, str] = ("alice", "bob"), join: bool = True) -> None:
        first = DISCARDED if redeal else ROUND_1
        top = " ".join(a + " " + b for a, b in zip(ROUND_1["A"].split(), ROUND_1["B"].split())) if redeal else ""
        decks = (deck_for(first["B"], first["A"], top), deck_for(ROUND_2["A"], ROUND_2["B"]))
        self.state, self.events = MatchState(), []
        self.names = {"p-a": names[0], "p-b": names[1]}  # the player directory (the events seat by id)
        self._apply(CreateMatch("m1", "p-a", rules, Seat.B, None, decks))
        if join:
            self._apply(JoinMatch("p-b"))
        if redeal:
            self.play("A propose_redeal", "B accept")

    def _apply(self, action: object) -> None:
        recorded: list[Event] = decide(self.state, action, random.Random(7))
        for event in recorded:
            self.state = evolve(self.state, event)
        self.events += recorded

    def play(self, *steps: str) -> Table:
        for step in steps:
            self._apply(command(step))
        return self

    def time_out(self) -> Table:
        """The seat that owes lets its deadline pass (the latest event was at ``T0``)."""
        self.state = clocked(self.state, T0)
        self._apply(TimeOut(owes(self.state), deadline(self.state)))
        return self

    def expire(self) -> Table:
        self.state = clocked(self.state, T0)
        self._apply(ExpireLobby(T0 + 3_600_000, 3600))
        return self

    def end_round(self, ending: str) -> Table:
        turn = self.state.round.turn
        return self.play(*ENDINGS[ending](turn.value, turn.other.value))

    def store(self) -> InMemoryEventStore:
        store = InMemoryEventStore()
        store.append("m1", [encode(event) for event in self.events], 0)
        store.directory = self.names  # what the replay's read side names the players by
        return store


@pytest.fixture
def replay_of(monkeypatch: pytest.MonkeyPatch) -> Callable[..., str]:
    """What ``truc replay m1 [options]`` prints for a store, and its exit code checked."""
    def run(store: InMemoryEventStore, *options: str, exit_code: int = 0) -> str:
        directory = getattr(store, "directory", {})
        read_models = SimpleNamespace(names=lambda ids: {i: directory[i] for i in ids if i in directory})
        monkeypatch.setattr(replay_cli, "backends", lambda: SimpleNamespace(store=store, read_models=read_models))
        result = CliRunner().invoke(replay_cli.replay, ["m1", *options], env={"COLUMNS": "300"},
                                    catch_exceptions=False)
        assert result.exit_code == exit_code, result.output
        return result.output
    return run


def _tricks(text: str) -> list[str]:
    return [line.split("  ", 1)[1].strip() for line in text.splitlines() if " trick " in line]


def _played(table: Table) -> set[str]:
    return {event.card for event in table.events if isinstance(event, CardPlayed)}


def _round_1_ended(point: str, ending: str, redeal: bool) -> Table:
    table = Table(redeal).play(*POINTS[point]).end_round(ending)
    return table.play("B 10H", "A JS")


EVERY_END = [
    pytest.param(point, ending, redeal, id=f"{ending}-{point}{'-after-a-redeal' if redeal else ''}")
    for point in POINTS for ending in ENDINGS for redeal in (False, True)
]


@pytest.mark.parametrize("reveal", [False, True], ids=["hidden", "revealed"])
@pytest.mark.parametrize(("point", "ending", "redeal"), EVERY_END)
def test_a_round_that_ends_mid_trick_keeps_its_cards_out_of_the_next_rounds_tricks(
    replay_of, point, ending, redeal, reveal,
):
    played = POINTS[point]
    output = replay_of(_round_1_ended(point, ending, redeal).store(), *(["--reveal"] if reveal else []))

    round_1, round_2 = output.split("Round 2")
    assert _tricks(round_1) == ROUND_1_TRICKS[:len(played) // 2]
    assert _tricks(round_2) == ROUND_2_FIRST_TRICK
    assert "round won by" in round_1 and "on the table" not in round_2
    if len(played) % 2:
        assert f"left on the table: {played[-1]}" in round_1
    else:
        assert "left on the table" not in output


@pytest.mark.parametrize(("point", "ending", "redeal"), EVERY_END)
def test_without_reveal_no_card_shows_that_was_not_played(replay_of, point, ending, redeal):
    table = _round_1_ended(point, ending, redeal)

    output = replay_of(table.store())

    assert set(CARD.findall(output)) <= _played(table)
    assert "new hands" not in output and not re.search(r"dealer [AB] · ", output)


@pytest.mark.parametrize(("point", "ending", "redeal"), EVERY_END)
def test_with_reveal_every_dealt_and_redealt_hand_shows(replay_of, point, ending, redeal):
    output = replay_of(_round_1_ended(point, ending, redeal).store(), "--reveal")

    first = DISCARDED if redeal else ROUND_1
    assert f"Round 1 · dealer B · A: {first['A']} · B: {first['B']}" in output
    assert (f"accepts the redeal · new hands A: {ROUND_1['A']} · B: {ROUND_1['B']}" in output) is redeal
    assert f"Round 2 · dealer A · A: {ROUND_2['A']} · B: {ROUND_2['B']}" in output


def test_a_rejected_remainder_wins_the_match_and_a_finished_match_shows_its_hands(replay_of):
    table = Table(rules=Rules()).play("A KD", "B remainder", "A reject")

    output = replay_of(table.store())

    assert "B rejects the remainder" not in output and "A rejects the remainder" in output
    assert "round won by B (+12, remainder_rejected) → A 0 · B 12 · left on the table: A KD" in output
    assert "Match won by B 0–12" in output
    assert f"Round 1 · dealer B · A: {ROUND_1['A']} · B: {ROUND_1['B']}" in output


@pytest.mark.parametrize(("steps", "unrecorded", "settled", "on_table"), [
    (["A KD", "B QH", "A 9S"], 0, 1, "A 9S"),
    (["A KD", "B QH"], 1, 0, "A KD, B QH"),  # stopped between the second card and the trick's outcome
], ids=["one-card", "two-cards"])
def test_stopping_mid_trick_shows_what_is_on_the_table_from_the_state(replay_of, steps, unrecorded, settled, on_table):
    table = Table().play(*steps)

    output = replay_of(table.store(), "--at", str(len(table.events) - unrecorded))

    assert _tricks(output) == ROUND_1_TRICKS[:settled]
    assert output.splitlines()[-1].endswith(f"on the table: {on_table}")


@pytest.mark.parametrize(("name", "shown"), HOSTILE_NAMES.items(), ids=range(len(HOSTILE_NAMES)))
def test_a_hostile_name_prints_as_plain_text_without_terminal_controls(replay_of, name, shown):
    table = Table(names=(name, name)).play("A KD", "A fold")

    output = replay_of(table.store(), "--reveal")

    assert f" · A: {isolated(shown)} · " in output and f"B: {isolated(shown)} joins" in output
    assert not unsafe_outside_names(output)


def test_a_timeout_says_whose_time_ran_out_and_marks_the_decision_it_made(replay_of):
    output = replay_of(Table().time_out().store())

    assert "A's time ran out · deadline 2023-11-14T22:14:20.000Z" in output
    assert "A folds (by default: the time ran out)" in output
    assert "round won by B (+1, fold)" in output and output.count("(by default") == 1


def test_a_second_timeout_in_a_row_abandons_the_match(replay_of):
    output = replay_of(Table().time_out().play("B 10H").time_out().store())

    assert "A's time ran out again, twice in a row" in output
    assert output.splitlines()[-1].endswith("Match won by B 0–1 · A abandoned it: time ran out twice in a row")


def test_a_resignation_ends_the_match_and_says_who_resigned(replay_of):
    output = replay_of(Table().play("A KD", "B resign").store())

    assert "Match won by A 0–0 · B resigned" in output
    assert f"Round 1 · dealer B · A: {ROUND_1['A']}" in output  # a finished match hides nothing


def test_a_match_won_on_score_says_so(replay_of):
    table = Table(rules=Rules()).play("A KD", "B remainder", "A reject")

    assert "Match won by B 0–12 · on score" in replay_of(table.store())


@pytest.mark.parametrize(("name", "shown"), HOSTILE_NAMES.items(), ids=range(len(HOSTILE_NAMES)))
def test_a_match_cancelled_by_its_creator_names_the_creator_as_plain_text(replay_of, name, shown):
    output = replay_of(Table(names=(name, "bob"), join=False).play("A cancel").store())

    assert output.splitlines()[-1].endswith(f"Match cancelled by its creator {isolated(shown)}")
    assert not unsafe_outside_names(output)


def test_a_match_nobody_joined_in_time_says_it_expired(replay_of):
    output = replay_of(Table(join=False).expire().store())

    assert output.splitlines()[-1].endswith("Match cancelled: it expired, nobody joined in time")


def test_every_event_the_engine_records_has_a_describer():
    assert set(DESCRIBERS) == set(EVENT_TYPES.values())


def test_printable_shows_controls_and_bidi_characters_as_their_escapes():
    assert printable("a\x1b[2Jb\u202ec\u2066d\x85e\tf") == "a\\x1b[2Jb\\u202ec\\u2066d\\x85e\\tf"
    assert printable("Zoé ♠ 7H") == "Zoé ♠ 7H"


def test_an_event_this_code_cannot_read_stops_the_replay_after_what_came_before(replay_of):
    store = Table().play("A KD", "B QH").store()
    store.append("m1", [NewEvent("card_burnt", {"card": "[red]x"})], len(store.read("m1")))

    output = replay_of(store, exit_code=1)

    assert "trick 1: A KD, B QH → A" in output
    assert "cannot replay further" in output and "'card_burnt'" in output
