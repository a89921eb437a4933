"""Every refusal of a use case has one HTTP answer: a status, a stable code and a sentence."""
from services.api.app.application_errors import (
    ApplicationError,
    CustomTermsError,
    KeyInUseError,
    KeyReusedError,
    VersionConflictError,
)
from services.api.error_handlers import answer
from shared.rules import RuleCode, RuleError


def test_every_application_error_is_answered_with_a_code_and_a_sentence():
    for kind in ApplicationError.__subclasses__():
        error = kind(3, 4) if kind is VersionConflictError else kind(1, (3, 0)) if kind is CustomTermsError \
            else kind("m1")
        reply = answer(error)
        assert 400 <= reply.status < 600 and reply.code.isupper() and reply.message.endswith("."), kind


def test_a_version_conflict_tells_the_version_the_match_is_at():
    reply = answer(VersionConflictError(3, 4))
    assert (reply.status, reply.code, reply.detail) == (412, "VERSION_CONFLICT", {"version": 4})
    assert reply.message == "The match moved on: you acted on version 3, it is at 4."


def test_a_reused_key_is_422_and_a_key_still_in_use_409():
    assert (answer(KeyReusedError("m1")).status, answer(KeyInUseError("m1")).status) == (422, 409)


def test_a_rule_refusal_is_409_with_the_rules_code():
    reply = answer(RuleError(RuleCode.NOT_YOUR_TURN, "Wait for your turn."))
    assert (reply.status, reply.code, reply.message) == (409, "NOT_YOUR_TURN", "Wait for your turn.")
