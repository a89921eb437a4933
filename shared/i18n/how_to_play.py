"""How to play Le Truc, in a few short sections: the one text the rules page (``GET /rules``),
the table's help panel and ``truc rules`` all say, in the ``rules`` domain of the catalogues.

The sentences follow RULES.md (its default rules) and name the game's terms as the seed texts
and the glossary (shared/i18n/glossary.md) say them in each language. The card ranking and the
raise ladder are computed from the engine itself, so the text cannot disagree with the game.
"""
from __future__ import annotations

from dataclasses import dataclass

from shared.rules.cards import RANKS
from shared.rules.variants import Rules

from . import Translator, translator

DOMAIN = "rules"


def N_(message: str) -> str:
    """Marks a sentence for extraction; it is translated where it is said."""
    return message


@dataclass(frozen=True)
class Section:
    """A heading and its paragraphs (English message ids)."""

    key: str
    title: str
    paragraphs: tuple[str, ...]
    in_help: bool = False  # also in the table's compact help panel


SECTIONS = (
    Section("aim", N_("The aim"), (
        N_("Two players play a match of rounds; the first to reach {target} points wins the match."),
    )),
    Section("cards", N_("The cards"), (
        N_("32 cards: 7, 8, 9, 10, jack, queen, king and ace of each suit."),
        N_("Suits never matter: the higher rank wins the trick, and equal ranks spoil it."),
    )),
    Section("ranking", N_("Card ranking"), (N_("From low to high: {ranking}"),), in_help=True),
    Section("deal", N_("The deal"), (
        N_("The dealer deals three cards to each player, one at a time; the other player leads the first trick."),
        N_("The dealer changes after every round."),
        N_("Before the first card or request of a round, either player may propose a redeal: accepted, "
           "both players get three new cards."),
    )),
    Section("round", N_("A round"), (
        N_("A round is at most three tricks. Whoever wins a trick leads the next."),
        N_("Two tricks win the round. A spoiled trick counts for the winner of the first trick won; "
           "three spoiled tricks make the round void, and nobody scores."),
    )),
    Section("ladder", N_("The raise ladder"), (
        N_("A round is worth 1 point. On your turn, before you play, you may ask “2 more?”; "
           "each accepted raise climbs one step: {ladder}"),
        N_("Nobody raises twice in a row: after your raise is accepted, the next must come from your opponent."),
    ), in_help=True),
    Section("remainder", N_("“My remainder”"), (
        N_("Instead of a raise you may declare “my remainder”: accepted, whoever wins this round wins the match; "
           "refused, whoever declared it wins the match."),
    )),
    Section("answers", N_("What each answer does"), (
        N_("Accept: the round is worth the new value (after “my remainder”, it decides the match)."),
        N_("Refuse: the round ends at once; whoever asked scores the value before the raise "
           "(after “my remainder”, wins the match)."),
        N_("Fold: at any moment, the round ends and your opponent scores its value "
           "(in a round that decides the match, your opponent wins the match)."),
    ), in_help=True),
    Section("clock", N_("The clock"), (
        N_("Each decision has a clock. When it runs out, the table refuses for you, or folds; "
           "running out twice in a row loses the match."),
    )),
)


def ranking() -> str:
    """The ranks from low to high, as the engine orders them."""
    return " < ".join(RANKS)


def ladder(rules: Rules = Rules()) -> str:
    """The values a round climbs through, from 1: ``1, 2, 6, 8, 10, …`` by default."""
    values = [1]
    while len(values) < 5:
        values.append(rules.next_value(values[-1]))
    return ", ".join(map(str, values)) + ", …"


def said(lang: str, rules: Rules = Rules(), help_only: bool = False) -> list[tuple[str, str, list[str]]]:
    """The sections in ``lang``: (key, title, paragraphs), the values filled in."""
    tr: Translator = translator(lang, DOMAIN)
    values = {"target": rules.target, "ranking": ranking(), "ladder": ladder(rules)}
    return [
        (section.key, tr.gettext(section.title), [tr.gettext(text, **values) for text in section.paragraphs])
        for section in SECTIONS if section.in_help or not help_only
    ]

