"""ARCHIVE_URL and ARCHIVE_S3_ENDPOINT: which archive a deployment opens, and a bad URL stopping the start."""

from __future__ import annotations

from pathlib import Path

import pytest

from shared.archive.files import FileArchive
from shared.archive.opening import ArchiveSettingError, open_archive
from shared.archive.s3 import S3Archive
from shared.config import Config


def settings(tmp_path: Path, **env: str) -> Config:
    return Config.from_env({"DATA_DIR": str(tmp_path), **env})


def test_no_archive_url_means_the_files_archive_under_the_data_dir(tmp_path: Path) -> None:
    for configured in (settings(tmp_path), settings(tmp_path, ARCHIVE_URL="file:")):
        archive = open_archive(configured)
        assert isinstance(archive, FileArchive) and archive.root == tmp_path.resolve() / "archive"
    assert not (tmp_path / "archive").exists()  # opening touches nothing: the first put or check does


def test_a_file_url_may_name_its_directory(tmp_path: Path) -> None:
    for url in (f"file:{tmp_path}/kept", f"file://{tmp_path}/kept"):
        archive = open_archive(settings(tmp_path / "data", ARCHIVE_URL=url))
        assert isinstance(archive, FileArchive) and archive.root == tmp_path / "kept"


def test_an_s3_url_names_the_bucket_and_prefix_at_the_endpoint_given(tmp_path: Path) -> None:
    archive = open_archive(settings(tmp_path, ARCHIVE_URL="s3://matches/le-truc/archive/",
                                    ARCHIVE_S3_ENDPOINT="http://minio:9000"))

    assert isinstance(archive, S3Archive)
    assert (archive.bucket, archive.prefix) == ("matches", "le-truc/archive")
    assert archive.key("abcdef") == "le-truc/archive/ab/abcdef.zst"
    assert archive._client.meta.endpoint_url == "http://minio:9000"
    assert archive._client.meta.config.s3 == {"addressing_style": "path"}  # MinIO takes no bucket.host names
    assert archive._client.meta.config.connect_timeout <= 5 and archive._client.meta.config.read_timeout <= 10


def test_an_unknown_scheme_stops_the_start(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="ARCHIVE_URL must be file:"):
        settings(tmp_path, ARCHIVE_URL="ftp://archive.example/matches")
    with pytest.raises(ArchiveSettingError, match="ARCHIVE_URL must be file:"):
        open_archive(Config(redis_url="", queue_url="", archive_url="gs://bucket"))


def test_an_s3_url_without_a_bucket_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ArchiveSettingError, match="names no bucket"):
        open_archive(settings(tmp_path, ARCHIVE_URL="s3:///prefix"))
