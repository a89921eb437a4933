"""The S3-compatible archive (AWS S3, MinIO, ...): one object per match, from ``ARCHIVE_URL=s3://bucket/prefix``.

An object's key is ``prefix/ab/abcdef….zst`` (the files archive's layout under a prefix).
``put_object`` is atomic in S3: a reader sees the whole previous object or the whole new
one, never part of either, so no temporary key is needed. The endpoint is
``ARCHIVE_S3_ENDPOINT`` when set (MinIO's address: path-style requests, as MinIO needs);
unset, boto3's own chain decides (``AWS_ENDPOINT_URL_S3``, ``AWS_ENDPOINT_URL``, AWS itself),
as it does for the region and the credentials (``AWS_ACCESS_KEY_ID`` ..., a profile, an
instance role).

Every call is bounded (a few seconds to connect or read, three attempts in all), so an
unreachable S3 holds a worker seconds, not minutes. What fails is
:class:`ArchiveUnavailableError` to the caller, whatever the cause (no route, a timeout, a
5xx, refused credentials, a missing bucket): either way the archive cannot be used now, the
match stays where it was, and ``check()`` says why. Only a missing key means "not archived".
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, TypeVar

import boto3
from botocore.config import Config as ClientConfig
from botocore.exceptions import BotoCoreError, ClientError

from shared.archive import archive_format
from shared.archive.layout import match_id_of, record_name
from shared.archive.port import ArchivedMatch, ArchiveUnavailableError, Receipt

CONNECT_TIMEOUT_S = 2
READ_TIMEOUT_S = 5  # a record is some kilobytes: a read that stalls longer will not finish
ATTEMPTS = 3  # the first try and two retries (botocore's "standard" mode, with backoff)
PAGE_SIZE = 1000  # keys per listing page (S3's own most)
_MISSING = {"NoSuchKey", "404"}
T = TypeVar("T")


def s3_client(endpoint: str | None = None, session: boto3.Session | None = None) -> Any:
    """A boto3 S3 client with bounded timeouts and retries (path-style at an explicit endpoint)."""
    config = ClientConfig(
        connect_timeout=CONNECT_TIMEOUT_S, read_timeout=READ_TIMEOUT_S,
        retries={"total_max_attempts": ATTEMPTS, "mode": "standard"},
        s3={"addressing_style": "path"} if endpoint else None,
    )
    return (session or boto3.Session()).client("s3", endpoint_url=endpoint or None, config=config)


def parse_s3_url(url: str) -> tuple[str, str]:
    """``s3://bucket/prefix`` → (bucket, prefix without slashes at either end); ValueError without a bucket."""
    if not url.startswith("s3://"):
        raise ValueError(f"an S3 archive's URL starts with s3://, not {url!r}")
    bucket, _, prefix = url[len("s3://"):].partition("/")
    if not bucket:
        raise ValueError(f"ARCHIVE_URL names no bucket: {url!r} (s3://bucket/prefix)")
    return bucket, prefix.strip("/")


class S3Archive:
    """The :class:`~shared.archive.port.Archive` contract, one object per match in ``bucket`` under ``prefix``."""

    def __init__(self, client: Any, bucket: str, prefix: str = "") -> None:
        self._client = client
        self.bucket = bucket
        self.prefix = prefix.strip("/")
        self.page_size = PAGE_SIZE

    @classmethod
    def from_url(cls, url: str, endpoint: str | None = None, session: boto3.Session | None = None) -> S3Archive:
        """The archive ``ARCHIVE_URL`` names, at ``endpoint`` (or boto3's)."""
        bucket, prefix = parse_s3_url(url)
        return cls(s3_client(endpoint, session), bucket, prefix)

    def key(self, match_id: str) -> str:
        """The object key of a match's record."""
        name = record_name(match_id)
        return f"{self.prefix}/{name}" if self.prefix else name

    def put(self, match: ArchivedMatch) -> Receipt:
        """Write the match's object (atomic in S3); ArchiveUnavailableError if S3 cannot take it."""
        blob, key = archive_format.encode(match), self.key(match.match_id)
        _unavailable_on_error(f"put {key}", lambda: self._client.put_object(
            Bucket=self.bucket, Key=key, Body=blob, ContentType="application/zstd"))
        return Receipt(f"s3://{self.bucket}/{key}", len(blob))

    def get(self, match_id: str) -> ArchivedMatch | None:
        """The match archived under ``match_id``, or None; DamagedArchiveError for a record not whole."""
        key = self.key(match_id)

        def read() -> bytes | None:
            try:
                answer = self._client.get_object(Bucket=self.bucket, Key=key)
            except ClientError as error:
                if error.response.get("Error", {}).get("Code") in _MISSING:
                    return None
                raise
            with answer["Body"] as body:
                return body.read()

        blob = _unavailable_on_error(f"get {key}", read)
        return None if blob is None else archive_format.decode(match_id, blob)

    def match_ids(self) -> Iterator[str]:
        """Every archived id, paging through ``list_objects_v2`` under the prefix."""
        start = f"{self.prefix}/" if self.prefix else ""
        pages = self._client.get_paginator("list_objects_v2").paginate(
            Bucket=self.bucket, Prefix=start, PaginationConfig={"PageSize": self.page_size})
        try:
            for page in pages:
                for item in page.get("Contents", ()):
                    match_id = match_id_of(item["Key"][len(start):])
                    if match_id is not None:
                        yield match_id
        except (BotoCoreError, ClientError) as error:
            raise ArchiveUnavailableError(f"cannot list s3://{self.bucket}/{start}: {error}") from error

    def check(self) -> None:
        """Return if the bucket answers (a HEAD: cheap); ArchiveUnavailableError if it does not."""
        _unavailable_on_error(f"reach s3://{self.bucket}", lambda: self._client.head_bucket(Bucket=self.bucket))


def _unavailable_on_error(doing: str, call: Callable[[], T]) -> T:
    """``call()``, any failure of boto3's or S3's raised as ArchiveUnavailableError (after its retries)."""
    try:
        return call()
    except ClientError as error:
        code = error.response.get("Error", {}).get("Code", "?")
        raise ArchiveUnavailableError(f"the archive cannot {doing}: S3 answered {code}: {error}") from error
    except BotoCoreError as error:
        raise ArchiveUnavailableError(f"the archive cannot {doing}: {error}") from error
