"""What the 409 ``CUSTOM_TERMS`` answer tells a joiner: which terms the creator of the match chose.

Decks and starting scores may let the creator know the joiner's cards; a short clock or a
small target only make the match a practice table. Either way it never counts, and the
sentence says the terms so the joiner knows what they are accepting.
"""
from __future__ import annotations

from dataclasses import dataclass

from shared.i18n import Translator
from shared.rules.rule_errors import N_

from .app.application_errors import CustomTermsError

_KNOWS_CARDS = N_("The creator of this match chose {terms}, so they may know your cards and it never counts on "
                  "the scoreboard; join with {accept} to play it anyway.")
_PRACTICE = N_("The creator of this match chose {terms}, so it never counts on the scoreboard; join with {accept} "
               "to play it anyway.")


def sentence(error: CustomTermsError) -> str:
    """The answer's sentence: whether the creator may know the joiner's cards decides it."""
    return _KNOWS_CARDS if error.decks or error.start_scores else _PRACTICE


@dataclass(frozen=True)
class Terms:
    """What the creator of a custom match chose, said in the answer's language."""

    error: CustomTermsError

    def said(self, tr: Translator) -> str:
        chosen = self._chosen(tr)
        if not chosen:
            return tr.gettext("the terms of this match")
        listed = chosen[0]
        for item in chosen[1:-1]:
            listed = tr.gettext("{first}, {second}", first=listed, second=item)
        if len(chosen) > 1:
            listed = tr.gettext("{first} and {second}", first=listed, second=chosen[-1])
        return listed

    def _chosen(self, tr: Translator) -> list[str]:
        error, chosen = self.error, []
        if error.decks:
            chosen.append(tr.ngettext("the order of the cards of round {count}",
                                      "the order of the cards of rounds 1-{count}", error.decks))
        if error.start_scores:
            chosen.append(tr.gettext("the starting scores {a}-{b}", a=error.start_scores[0], b=error.start_scores[1]))
        if error.turn_seconds is not None:
            chosen.append(tr.ngettext("a clock of {count} second a turn", "a clock of {count} seconds a turn",
                                      error.turn_seconds))
        if error.target is not None:
            chosen.append(tr.ngettext("a target of {count} point", "a target of {count} points", error.target))
        return chosen
