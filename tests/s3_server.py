"""A real S3 endpoint for tests: ``moto_server`` (moto's S3 over HTTP) on a free loopback port.

The archive's S3 adapter meets it as it would meet MinIO or AWS: boto3 over a socket, no
in-process patching. Its data lives in the server's memory and dies with it; tests share one
server and bucket, and each keeps to a prefix of its own.
"""

from __future__ import annotations

import functools
import shutil
import subprocess
import sys
import time
import urllib.error
import urllib.request
import uuid
from pathlib import Path
from typing import Any

import boto3

from services.embedded_redis import LOOPBACK, free_port

BUCKET = "truc-archive"
REGION = "us-east-1"
_CREDENTIALS = {"aws_access_key_id": "testing", "aws_secret_access_key": "testing"}  # moto takes any
_START_S = 30.0


def moto_server_binary() -> str:
    """``moto_server`` beside this interpreter (the venv's), else on the PATH."""
    beside = Path(sys.executable).with_name("moto_server")
    found = str(beside) if beside.is_file() else shutil.which("moto_server")
    if found is None:
        raise RuntimeError("moto_server is not installed (pip install 'moto[server]')")
    return found


@functools.cache
def _session() -> boto3.Session:
    return boto3.Session(region_name=REGION, **_CREDENTIALS)


class LoopbackS3:
    """One ``moto_server`` process on 127.0.0.1 with the bucket :data:`BUCKET` made."""

    bucket = BUCKET

    def __init__(self, log_dir: Path) -> None:
        self.port = free_port()
        self._log = log_dir / "moto_server.log"
        self._process: subprocess.Popen[bytes] | None = None

    @property
    def endpoint(self) -> str:
        """The server's address, for ``ARCHIVE_S3_ENDPOINT``."""
        return f"http://{LOOPBACK}:{self.port}"

    def start(self) -> None:
        """Start the server, wait until it answers, and make the bucket."""
        with self._log.open("wb") as log:
            self._process = subprocess.Popen([moto_server_binary(), "-H", LOOPBACK, "-p", str(self.port)],
                                             stdout=log, stderr=subprocess.STDOUT)
        self._wait_until_it_answers()
        self.client().create_bucket(Bucket=self.bucket)

    def stop(self) -> None:
        """Stop the server (its data goes with it)."""
        if self._process is not None and self._process.poll() is None:
            self._process.terminate()
            try:
                self._process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait()

    @staticmethod
    def session() -> boto3.Session:
        """A boto3 session with the credentials and region the server takes (one, kept: each costs ~0.4 s)."""
        return _session()

    def client(self) -> Any:
        """A plain boto3 S3 client of the server (to plant or inspect objects behind an archive's back)."""
        return self.session().client("s3", endpoint_url=self.endpoint)

    def new_prefix(self) -> str:
        """A prefix no other test uses: an empty archive in the shared bucket."""
        return f"test-{uuid.uuid4().hex[:12]}"

    def env(self, prefix: str) -> dict[str, str]:
        """The settings a service process needs to archive under ``prefix`` here."""
        return {"ARCHIVE_URL": f"s3://{self.bucket}/{prefix}", "ARCHIVE_S3_ENDPOINT": self.endpoint,
                "AWS_ACCESS_KEY_ID": _CREDENTIALS["aws_access_key_id"],
                "AWS_SECRET_ACCESS_KEY": _CREDENTIALS["aws_secret_access_key"], "AWS_DEFAULT_REGION": REGION}

    def _wait_until_it_answers(self) -> None:
        deadline = time.monotonic() + _START_S
        while time.monotonic() < deadline:
            if self._process is not None and self._process.poll() is not None:
                raise RuntimeError(f"moto_server exited at its start: {self._log.read_text()[-2000:]}")
            try:
                with urllib.request.urlopen(f"{self.endpoint}/moto-api/", timeout=1):
                    return
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                time.sleep(0.05)
        self.stop()
        raise RuntimeError(f"moto_server did not answer within {_START_S:.0f} s: {self._log.read_text()[-2000:]}")
