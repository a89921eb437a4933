"""``APPEND_ACK``: which acknowledgement an append waits for, read once with the other settings."""
import pytest

from shared.config import Config


@pytest.mark.parametrize(("given", "expected"), [(None, "master"), ("", "master"), ("master", "master"),
                                                 ("replica", "replica"), (" Replica ", "replica")])
def test_an_append_waits_for_the_master_unless_a_replica_is_asked_for(given, expected) -> None:
    env = {"REDIS_URL": "redis://unused"} | ({} if given is None else {"APPEND_ACK": given})
    config = Config.from_env(env)
    assert config.append_ack == expected and config.append_ack_timeout_ms == 500


def test_the_replica_wait_is_settable() -> None:
    config = Config.from_env({"REDIS_URL": "redis://unused", "APPEND_ACK": "replica", "APPEND_ACK_TIMEOUT_MS": "1500"})
    assert config.append_ack_timeout_ms == 1500


@pytest.mark.parametrize("wrong", ["replicas", "all", "1", "wait"])
def test_anything_else_stops_the_start_with_its_name(wrong) -> None:
    with pytest.raises(ValueError, match="APPEND_ACK"):
        Config.from_env({"REDIS_URL": "redis://unused", "APPEND_ACK": wrong})
