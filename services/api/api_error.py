"""The one shape every error is answered in: ``{"error": code, "message": sentence, **detail}``.

A sentence stays an English template with values until answered, then is translated
(:mod:`.language`); codes never change. Which outcome gets which answer: :mod:`.error_handlers`."""
from __future__ import annotations

from typing import Any

from shared.i18n import Translator, translator
from shared.rules.rule_errors import N_

from .language import Plural, translated_fields, translator_now


class ApiError(Exception):
    """An error answered as ``{"error": code, "message": ..., **detail}`` with ``status``.

    ``message`` is an English template; ``params`` fill in its ``{placeholders}`` (a
    :class:`Plural` is said in the answer's language too). ``.message`` is the English sentence.
    """

    def __init__(
        self, status: int, code: str, message: str | Plural, *, headers: dict[str, str] | None = None,
        params: dict[str, Any] | None = None, **detail: Any,
    ) -> None:
        self.template, self.params = message, params or {}
        english = _said(translator("en"), message, self.params)
        super().__init__(english)
        self.status, self.code, self.message, self.detail = status, code, english, detail
        self.headers = headers or {}

    def response(self) -> tuple[dict[str, Any], int, dict[str, str]]:
        tr = translator_now()
        detail = dict(self.detail)
        if "fields" in detail:
            detail["fields"] = translated_fields(detail["fields"], tr)
        return {"error": self.code, "message": _said(tr, self.template, self.params), **detail}, self.status, \
            self.headers


def _said(tr: Translator, template: str | Plural, params: dict[str, Any]) -> str:
    values = {name: value.said(tr) if hasattr(value, "said") else value for name, value in params.items()}
    if isinstance(template, Plural):
        return tr.ngettext(template.singular, template.plural, template.count, **values)
    return tr.gettext(template, **values)


def invalid(message: str, fields: dict[str, Any] | None = None, **params: Any) -> ApiError:
    return ApiError(400, "INVALID_REQUEST", message, params=params, fields=fields or {})


_NO_SUCH = {"match": N_("There is no such match."), "player": N_("There is no such player."),
            "session": N_("You have no such session.")}


def not_found(what: str = "match") -> ApiError:
    return ApiError(404, "NOT_FOUND", _NO_SUCH[what])
