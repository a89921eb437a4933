"""``GET /rules?lang=``: how to play, as a page of its own in the player's language.

The same sections as the table's help panel and ``truc rules`` (:mod:`shared.i18n.how_to_play`),
chosen like the table's language (``?lang=``, the picker's cookie, ``Accept-Language``).
"""
from __future__ import annotations

from flask import Blueprint, Response, render_template

from shared import i18n
from shared.i18n import how_to_play

from .browser_table import OWN_NAMES, chosen_language, page_response
from .language import speak

blp = Blueprint("rules", __name__, template_folder="templates")


@blp.route("/rules", methods=["GET"])
def rules() -> Response:
    """The rules page: the aim, the cards, a round, raises, "my remainder", the answers, the clock."""
    lang = chosen_language()
    speak(lang)
    html = render_template(
        "rules.html", lang=lang, dir=i18n.direction(lang), _=i18n.translator(lang, "table").gettext,
        sections=how_to_play.said(lang), languages=[(code, OWN_NAMES[code]) for code in i18n.LANGUAGES],
    )
    return page_response(html)
