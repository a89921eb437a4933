"""docker-compose.yml and deploy/prometheus.yml, checked without Docker: what can be read off them."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
SERVICES = {"redis", "api", "projector", "timer", "pairer", "bot", "prometheus"}


class _UniqueKeys(yaml.SafeLoader):
    """YAML as compose reads it: a key given twice in one mapping is an error, not the last one winning."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen = [key.value for key, _ in node.value if isinstance(key, yaml.ScalarNode) and key.value != "<<"]
        repeated = {key for key in seen if seen.count(key) > 1}
        if repeated:
            raise yaml.constructor.ConstructorError(None, None, f"keys given twice: {sorted(repeated)}",
                                                    node.start_mark)
        return super().construct_mapping(node, deep=deep)


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    return yaml.load((ROOT / "docker-compose.yml").read_text(), Loader=_UniqueKeys)  # noqa: S506 - a safe loader


@pytest.fixture(scope="module")
def prometheus() -> dict[str, Any]:
    return yaml.safe_load((ROOT / "deploy/prometheus.yml").read_text())


def environment(service: dict[str, Any]) -> dict[str, str]:
    return {name: str(value) for name, value in (service.get("environment") or {}).items()}


def test_every_service_of_the_stack_is_there(compose: dict[str, Any]) -> None:
    assert SERVICES <= set(compose["services"])


def test_every_command_runs_a_module_that_exists(compose: dict[str, Any]) -> None:
    for name, service in compose["services"].items():
        command = service.get("command") or []
        if command[:2] != ["python", "-m"]:
            continue
        module = command[2]
        assert importlib.util.find_spec(module) is not None, f"{name}: no module {module}"
        if importlib.util.find_spec(module).submodule_search_locations:  # a package: it needs a __main__
            assert importlib.util.find_spec(f"{module}.__main__") is not None, f"{name}: {module} has no __main__"


def test_the_bot_token_has_no_default_anywhere(compose: dict[str, Any]) -> None:
    seen = 0
    for service in compose["services"].values():
        token = environment(service).get("BOT_TOKEN")
        if token is not None:
            seen += 1
            assert re.fullmatch(r"\$\{BOT_TOKEN:\?[^}]+\}", token), token  # compose refuses to start without it
    assert seen == 2  # the API and the bot


def test_the_services_log_json_and_reach_redis(compose: dict[str, Any]) -> None:
    for name in ("api", "projector", "timer", "bot"):
        assert environment(compose["services"][name]).get("LOG_FORMAT") == "json", name
    for name in ("api", "projector", "timer"):
        assert environment(compose["services"][name])["REDIS_URL"].startswith("redis://redis:"), name


def test_the_health_checks_mean_ready(compose: dict[str, Any]) -> None:
    api, projector = compose["services"]["api"], compose["services"]["projector"]
    port = environment(api)["PORT"]
    assert f"http://127.0.0.1:{port}/health" in " ".join(api["healthcheck"]["test"])
    assert projector["healthcheck"]["test"][1:] == ["python", "-m", "services.projector", "health"]
    assert compose["services"]["bot"]["depends_on"]["api"]["condition"] == "service_healthy"


def test_prometheus_scrapes_the_api_and_every_worker_on_their_ports(
    compose: dict[str, Any], prometheus: dict[str, Any],
) -> None:
    services = compose["services"]
    mounted = [volume.split(":")[0] for volume in services["prometheus"]["volumes"]]
    assert "./deploy/prometheus.yml" in mounted
    jobs = {job["job_name"]: job for job in prometheus["scrape_configs"]}
    ports = {"api": environment(services["api"])["PORT"],
             **{name: environment(services[name])["METRICS_PORT"] for name in ("projector", "timer")}}
    for service, port in ports.items():
        (discovery,) = jobs[service]["dns_sd_configs"]
        assert discovery["names"] == [service] and str(discovery["port"]) == port
        assert jobs[service].get("metrics_path", "/metrics") == "/metrics"
    for name in ("projector", "timer"):
        assert ports[name] in [str(port) for port in services[name]["expose"]]
        assert environment(services[name])["HOST"] == "0.0.0.0"  # else its metrics listen on its own loopback only


def test_the_lanes_are_not_pinned_so_scaling_the_workers_needs_no_restart(compose: dict[str, Any]) -> None:
    assert "CATCH_UP_LANES" not in environment(compose["services"]["api"])



def test_the_archive_settings_name_the_minio_service_its_bucket_and_its_credentials(compose: dict[str, Any]) -> None:
    archive, services = compose["x-archive"], compose["services"]
    minio, bucket_job = services["minio"], services["minio-bucket"]
    bucket = archive["ARCHIVE_URL"].removeprefix("s3://").split("/")[0]
    assert archive["ARCHIVE_S3_ENDPOINT"] == f"http://minio:{minio['expose'][0]}"
    assert f"archive/{bucket}" in bucket_job["command"][0]  # the bucket the archive writes to is made once
    assert bucket_job["depends_on"]["minio"]["condition"] == "service_healthy"
    assert "minio-data:/data" in minio["volumes"] and "minio-data" in compose["volumes"]
    for job in (minio, bucket_job):
        assert environment(job)["MINIO_ROOT_USER"] == archive["AWS_ACCESS_KEY_ID"]
        assert environment(job)["MINIO_ROOT_PASSWORD"] == archive["AWS_SECRET_ACCESS_KEY"]
    assert archive["AWS_SECRET_ACCESS_KEY"] == "${MINIO_ROOT_PASSWORD:-}"  # no default password ...
    assert "-lt 8" in minio["command"][0] and "exit 1" in minio["command"][0]  # ... and MinIO stops without one
    assert all(port.startswith("127.0.0.1:") for port in minio["ports"])  # the console: this host only
