"""The browser table at ``/``: plain static files and one template, no build step.

``/`` renders ``templates/table.html`` in the player's language (``?lang=``, else the
``lang`` cookie the page's picker sets, else ``Accept-Language``), with ``lang`` and ``dir``
in the HTML itself and the catalogue of the ``table`` domain inlined as JSON for the scripts.
Flask's own static route serves ``services/api/static`` under ``/static/``. The page talks
to the public API only.
"""
from __future__ import annotations

from flask import Blueprint, Response, render_template, request

from shared import i18n
from shared.i18n import how_to_play

from .language import speak

blp = Blueprint("table", __name__, template_folder="templates")

# The page keeps a bearer token in localStorage: nothing but our own files may run in it.
# (The catalogue is a JSON data block, which no browser runs.)
_CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
        "base-uri 'none'; form-action 'self'; frame-ancestors 'none'")

# Each language in its own name, for the picker.
OWN_NAMES = {"en": "English", "fi": "suomi", "nl": "Nederlands", "pa": "ਪੰਜਾਬੀ", "bn": "বাংলা", "ur": "اردو",
             "fr": "français", "ca": "català"}


def chosen_language() -> str:
    """``?lang=`` if supported, else the remembered ``lang`` cookie, else ``Accept-Language``."""
    asked = i18n.supported(request.args.get("lang")) or i18n.supported(request.cookies.get("lang"))
    return i18n.negotiate(asked, request.headers.get("Accept-Language"))


@blp.route("/", methods=["GET"])
def index() -> Response:
    """The table: register, start or join a match, and play it live."""
    return page("table.html")


@blp.route("/ratings", methods=["GET"])
@blp.route("/ratings/<id:player_id>", methods=["GET"])
def ratings(player_id: str | None = None) -> Response:
    """The leaderboard, or one player's rating over their rated matches (a chart)."""
    return page("ratings.html", player_id=player_id)


def page(template: str, **context: object) -> Response:
    """One of the browser's pages in the chosen language, its catalogue inlined, behind the CSP."""
    lang = chosen_language()
    speak(lang)  # what Content-Language says, as for every answer
    translator = i18n.translator(lang, "table")
    html = render_template(
        template, lang=lang, dir=i18n.direction(lang), _=translator.gettext,
        strings=i18n.catalogue(lang, "table"), languages=[(code, OWN_NAMES[code]) for code in i18n.LANGUAGES],
        help=how_to_play.said(lang, help_only=True),
        **context,
    )
    return page_response(html)


def page_response(html: str) -> Response:
    """A page of ours: never cached stale, our own files only (the CSP), per language and cookie."""
    response = Response(html, mimetype="text/html")
    response.headers["Cache-Control"] = "no-cache"
    response.headers["Vary"] = "Accept-Language, Cookie"
    response.headers["Content-Security-Policy"] = _CSP
    response.headers["X-Content-Type-Options"] = "nosniff"
    response.headers["Referrer-Policy"] = "same-origin"
    return response
