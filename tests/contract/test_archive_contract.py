"""One contract, every archive: in memory, files under a directory, and S3 (a real ``moto_server``).

The records are real finished matches, played to the end through the command service. An
archive that passes this suite can replace another under the archiver and every reader of
archived matches without either noticing. Below the suite, what each adapter alone promises:
private files that survive a crash mid-write, and an S3 that fails fast when it is not there.
"""

from __future__ import annotations

import http.server
import os
import random
import stat
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path

import pytest

from services.api.app import Matches
from services.embedded_redis import free_port
from shared.archive import Archive, ArchivedMatch, ArchiveUnavailableError, DamagedArchiveError, archive_format
from shared.archive.files import FileArchive
from shared.archive.memory import InMemoryArchive
from shared.archive.opening import open_archive
from shared.archive.s3 import ATTEMPTS, S3Archive
from shared.config import Config
from shared.eventstore import InMemoryEventStore
from shared.ids import InvalidMatchIdError
from shared.seeds import InMemorySeeds
from tests.match_support import play_through_service
from tests.s3_server import LoopbackS3

ROOT = Path(__file__).resolve().parents[2]


def finished_matches(count: int) -> list[ArchivedMatch]:
    """``count`` real matches played to their end, as the archiver would take them from the store."""
    store, seeds = InMemoryEventStore(), InMemorySeeds()
    service = Matches(store, lambda _: None, seeds)
    played = []
    for seed in range(count):
        match_id = play_through_service(service, random.Random(seed))
        events = tuple(store.read(match_id))
        played.append(ArchivedMatch(match_id, events, seeds.get(match_id), events[-1].at))
    return played


@pytest.fixture(scope="module")
def matches() -> list[ArchivedMatch]:
    return finished_matches(3)


@dataclass
class Harness:
    """An archive, and a way behind its back to its stored bytes (to damage them, as a disk or a bucket can)."""

    archive: Archive
    stored: Callable[[str], bytes]
    plant: Callable[[str, bytes], None]


def _memory_harness() -> Harness:
    archive = InMemoryArchive()
    records = archive._records  # the dict it keeps: the only way past an in-memory archive's front

    return Harness(archive, records.__getitem__, records.__setitem__)


def _files_harness(root: Path) -> Harness:
    archive = FileArchive(root)
    path = lambda match_id: root / match_id[:2] / f"{match_id}.zst"  # noqa: E731

    def plant(match_id: str, blob: bytes) -> None:
        path(match_id).parent.mkdir(parents=True, exist_ok=True)
        path(match_id).write_bytes(blob)

    return Harness(archive, lambda match_id: path(match_id).read_bytes(), plant)


def _s3_harness(server: LoopbackS3) -> Harness:
    archive = S3Archive.from_url(f"s3://{server.bucket}/{server.new_prefix()}", server.endpoint, server.session())
    client = server.client()

    def stored(match_id: str) -> bytes:
        return client.get_object(Bucket=server.bucket, Key=archive.key(match_id))["Body"].read()

    def plant(match_id: str, blob: bytes) -> None:
        client.put_object(Bucket=server.bucket, Key=archive.key(match_id), Body=blob)

    return Harness(archive, stored, plant)


@pytest.fixture(
    params=[
        pytest.param("memory", marks=pytest.mark.unit),
        pytest.param("files", marks=pytest.mark.unit),
        pytest.param("s3", marks=pytest.mark.integration),
    ]
)
def harness(request: pytest.FixtureRequest, tmp_path: Path) -> Harness:
    if request.param == "memory":
        return _memory_harness()
    if request.param == "files":
        return _files_harness(tmp_path / "archive")
    return _s3_harness(request.getfixturevalue("s3_server"))  # lazily: memory-only runs start no server


@pytest.fixture
def archive(harness: Harness) -> Archive:
    return harness.archive


# --- the contract ----------------------------------------------------------------------------


def test_the_archive_satisfies_the_protocol(archive: Archive) -> None:
    assert isinstance(archive, Archive)


def test_a_finished_match_reads_back_exactly_as_recorded(archive: Archive, matches: list[ArchivedMatch]) -> None:
    match = matches[0]
    receipt = archive.put(match)

    read = archive.get(match.match_id)

    assert read == match
    assert read.events == match.events and read.events[-1].type == "match_won"
    assert (read.seed, read.finished_at, read.head, read.count) == (
        match.seed, match.finished_at, match.events[-1].hash, len(match.events))
    assert receipt.size == len(archive_format.encode(match))


def test_putting_the_same_match_again_leaves_an_equal_record(harness: Harness, matches: list[ArchivedMatch]) -> None:
    match = matches[0]
    first = harness.archive.put(match)
    bytes_first = harness.stored(match.match_id)

    again = harness.archive.put(match)

    assert again == first
    assert harness.stored(match.match_id) == bytes_first
    assert harness.archive.get(match.match_id) == match
    assert list(harness.archive.match_ids()) == [match.match_id]


def test_a_match_never_archived_is_none(archive: Archive, matches: list[ArchivedMatch]) -> None:
    archive.put(matches[0])
    assert archive.get("never-archived") is None
    assert archive.get(matches[1].match_id) is None


def test_match_ids_lists_every_archived_match_once(archive: Archive, matches: list[ArchivedMatch]) -> None:
    assert list(archive.match_ids()) == []
    for match in matches:
        archive.put(match)
    archive.put(matches[1])

    listed = list(archive.match_ids())

    assert sorted(listed) == sorted(match.match_id for match in matches)


def test_a_reachable_archive_passes_its_check(archive: Archive) -> None:
    assert archive.check() is None


def test_an_id_that_could_be_a_path_is_refused(archive: Archive, matches: list[ArchivedMatch]) -> None:
    with pytest.raises(InvalidMatchIdError):
        archive.put(replace(matches[0], match_id="../escaped"))
    with pytest.raises(InvalidMatchIdError):
        archive.get("ab/../../etc")


def test_a_truncated_record_is_damaged_not_half_read(harness: Harness, matches: list[ArchivedMatch]) -> None:
    match = matches[0]
    harness.archive.put(match)
    whole = harness.stored(match.match_id)
    harness.plant(match.match_id, whole[: len(whole) // 2])

    with pytest.raises(DamagedArchiveError, match="does not decode"):
        harness.archive.get(match.match_id)


def test_garbage_under_an_id_is_damaged(harness: Harness, matches: list[ArchivedMatch]) -> None:
    harness.plant(matches[0].match_id, b"not a zstandard frame at all")

    with pytest.raises(DamagedArchiveError):
        harness.archive.get(matches[0].match_id)


def test_one_flipped_byte_is_damaged(harness: Harness, matches: list[ArchivedMatch]) -> None:
    match = matches[0]
    harness.archive.put(match)
    blob = bytearray(harness.stored(match.match_id))
    blob[len(blob) // 2] ^= 0x01  # inside the compressed data: the frame's checksum no longer holds
    harness.plant(match.match_id, bytes(blob))

    with pytest.raises(DamagedArchiveError):
        harness.archive.get(match.match_id)


def test_another_matchs_record_under_an_id_is_damaged(harness: Harness, matches: list[ArchivedMatch]) -> None:
    mine, theirs = matches[0], matches[1]
    harness.archive.put(theirs)
    harness.plant(mine.match_id, harness.stored(theirs.match_id))

    with pytest.raises(DamagedArchiveError, match="not that match's"):
        harness.archive.get(mine.match_id)
    assert harness.archive.get(theirs.match_id) == theirs


# --- the files archive alone -----------------------------------------------------------------


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.lstat().st_mode)


@pytest.mark.unit
def test_files_are_private_and_fanned_out_by_the_ids_start(tmp_path: Path, matches: list[ArchivedMatch]) -> None:
    root = tmp_path / "data" / "archive"
    match = matches[0]

    receipt = FileArchive(root).put(match)

    path = root / match.match_id[:2] / f"{match.match_id}.zst"
    assert receipt.where == f"file:{match.match_id[:2]}/{match.match_id}.zst"
    assert receipt.size == path.stat().st_size
    assert (_mode(root), _mode(path.parent), _mode(path)) == (0o700, 0o700, 0o600)
    assert sorted(p.name for p in path.parent.iterdir()) == [path.name]  # no temporary file left


@pytest.mark.unit
def test_a_loosened_directory_is_tightened_at_the_next_put(tmp_path: Path, matches: list[ArchivedMatch]) -> None:
    root = tmp_path / "archive"
    root.mkdir(mode=0o755)
    root.chmod(0o755)

    FileArchive(root).put(matches[0])

    assert _mode(root) == 0o700


_CRASH_AT_RENAME = """
import os, signal, sys
from pathlib import Path
from shared.archive import archive_format
from shared.archive.files import FileArchive
match_id, record = sys.argv[1], Path(sys.argv[2]).read_bytes()
os.replace = lambda *_: os.kill(os.getpid(), signal.SIGKILL)  # the power goes between the fsync and the rename
FileArchive(Path(sys.argv[3])).put(archive_format.decode(match_id, record))
"""


def _put_and_crash_before_the_rename(root: Path, match: ArchivedMatch, tmp_path: Path) -> None:
    record = tmp_path / "record.zst"
    record.write_bytes(archive_format.encode(match))
    crashed = subprocess.run([sys.executable, "-c", _CRASH_AT_RENAME, match.match_id, str(record), str(root)],
                             cwd=ROOT, capture_output=True, timeout=30)
    assert crashed.returncode == -9, crashed.stderr.decode()


@pytest.mark.unit
def test_a_crash_before_the_rename_leaves_the_old_record(tmp_path: Path, matches: list[ArchivedMatch]) -> None:
    root, old = tmp_path / "archive", matches[0]
    FileArchive(root).put(old)
    new = replace(old, seed="another seed")

    _put_and_crash_before_the_rename(root, new, tmp_path)

    left = sorted(p.name for p in (root / old.match_id[:2]).iterdir())
    assert len(left) == 2 and left[0].startswith(f".{old.match_id}.zst.") and left[0].endswith(".tmp")
    assert FileArchive(root).get(old.match_id) == old
    assert list(FileArchive(root).match_ids()) == [old.match_id]


@pytest.mark.unit
def test_a_crash_at_a_first_put_leaves_no_record_and_a_later_put_works(
    tmp_path: Path, matches: list[ArchivedMatch],
) -> None:
    root, match = tmp_path / "archive", matches[1]

    _put_and_crash_before_the_rename(root, match, tmp_path)

    archive = FileArchive(root)
    assert [p.name.endswith(".tmp") for p in (root / match.match_id[:2]).iterdir()] == [True]
    assert archive.get(match.match_id) is None
    assert list(archive.match_ids()) == []
    archive.put(match)
    assert archive.get(match.match_id) == match
    assert list(archive.match_ids()) == [match.match_id]


@pytest.mark.unit
def test_strangers_in_the_tree_are_not_listed(tmp_path: Path, matches: list[ArchivedMatch]) -> None:
    root, match = tmp_path / "archive", matches[0]
    archive = FileArchive(root)
    archive.put(match)
    (root / "README").write_text("not a record")
    (root / "zz").mkdir()
    (root / "zz" / f"{match.match_id}.zst").write_bytes(b"in the wrong directory")
    (root / match.match_id[:2] / "notes.txt").write_text("not a record")

    assert list(archive.match_ids()) == [match.match_id]


@pytest.mark.unit
def test_a_symlink_in_a_records_place_is_not_followed(tmp_path: Path, matches: list[ArchivedMatch]) -> None:
    root, mine, theirs = tmp_path / "archive", matches[0], matches[1]
    archive = FileArchive(root)
    archive.put(mine)
    elsewhere = tmp_path / "elsewhere.zst"
    elsewhere.write_bytes(archive_format.encode(mine))
    path = root / mine.match_id[:2] / f"{mine.match_id}.zst"
    path.unlink()
    path.symlink_to(elsewhere)

    with pytest.raises(DamagedArchiveError, match="symlink"):
        archive.get(mine.match_id)
    archive.put(theirs)
    assert archive.get(theirs.match_id) == theirs


@pytest.mark.unit
def test_an_archive_that_cannot_be_written_is_unavailable(tmp_path: Path, matches: list[ArchivedMatch]) -> None:
    in_the_way = tmp_path / "archive"
    in_the_way.write_text("a file where the archive's directory should be")
    archive = FileArchive(in_the_way)

    with pytest.raises(ArchiveUnavailableError):
        archive.put(matches[0])
    with pytest.raises(ArchiveUnavailableError):
        archive.check()
    with pytest.raises(ArchiveUnavailableError):
        archive.get(matches[0].match_id)


_WRITE_PAST_A_LIMIT = """
import resource, signal, sys
from pathlib import Path
from shared.archive import archive_format, ArchiveUnavailableError
from shared.archive.files import FileArchive
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails (EFBIG) instead of killing us
resource.setrlimit(resource.RLIMIT_FSIZE, (64, 64))  # no file may grow past 64 bytes: a disk that is full
match_id, record = sys.argv[1], Path(sys.argv[2]).read_bytes()
try:
    FileArchive(Path(sys.argv[3])).put(archive_format.decode(match_id, record))
except ArchiveUnavailableError as error:
    print("unavailable:", error)
"""


@pytest.mark.unit
def test_a_disk_that_takes_no_more_is_unavailable_and_keeps_no_temporary_file(
    tmp_path: Path, matches: list[ArchivedMatch],
) -> None:
    root, match = tmp_path / "archive", matches[1]
    record = tmp_path / "record.zst"
    record.write_bytes(archive_format.encode(match))

    done = subprocess.run([sys.executable, "-c", _WRITE_PAST_A_LIMIT, match.match_id, str(record), str(root)],
                          cwd=ROOT, capture_output=True, text=True, timeout=30)

    assert done.returncode == 0 and done.stdout.startswith("unavailable:"), done.stderr
    assert "File too large" in done.stdout
    assert FileArchive(root).get(match.match_id) is None
    assert list((root / match.match_id[:2]).iterdir()) == []  # the half-written temporary file was removed


# --- the S3 archive alone --------------------------------------------------------------------


@pytest.mark.integration
def test_objects_are_keyed_under_the_prefix_by_the_ids_start(s3_server: LoopbackS3,
                                                            matches: list[ArchivedMatch]) -> None:
    prefix, match = s3_server.new_prefix(), matches[0]
    archive = S3Archive.from_url(f"s3://{s3_server.bucket}/{prefix}/", s3_server.endpoint, s3_server.session())

    receipt = archive.put(match)

    key = f"{prefix}/{match.match_id[:2]}/{match.match_id}.zst"
    head = s3_server.client().head_object(Bucket=s3_server.bucket, Key=key)
    assert receipt.where == f"s3://{s3_server.bucket}/{key}"
    assert receipt.size == head["ContentLength"]


@pytest.mark.integration
def test_match_ids_pages_through_the_listing(s3_server: LoopbackS3, matches: list[ArchivedMatch]) -> None:
    archive = S3Archive.from_url(f"s3://{s3_server.bucket}/{s3_server.new_prefix()}", s3_server.endpoint,
                                 s3_server.session())
    archive.page_size = 2
    for match in matches:
        archive.put(match)
    s3_server.client().put_object(Bucket=s3_server.bucket, Key=f"{archive.prefix}/ab/.abc.zst.1234.tmp", Body=b"")

    assert sorted(archive.match_ids()) == sorted(match.match_id for match in matches)


@pytest.mark.integration
def test_an_unreachable_s3_is_unavailable_for_every_call(matches: list[ArchivedMatch]) -> None:
    closed = f"http://127.0.0.1:{free_port()}"  # nothing listens there
    archive = S3Archive.from_url("s3://truc-archive/x", closed, LoopbackS3.session())

    with pytest.raises(ArchiveUnavailableError, match="cannot reach"):
        archive.check()
    with pytest.raises(ArchiveUnavailableError, match="cannot put"):
        archive.put(matches[0])
    with pytest.raises(ArchiveUnavailableError, match="cannot get"):
        archive.get(matches[0].match_id)
    with pytest.raises(ArchiveUnavailableError, match="cannot list"):
        list(archive.match_ids())


class _Failing(http.server.BaseHTTPRequestHandler):
    """An S3 endpoint in trouble: every request answered 503 with S3's error body (and counted)."""

    requests: list[str] = []

    def _fail(self) -> None:
        self.requests.append(self.command)
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        body = b"<Error><Code>ServiceUnavailable</Code><Message>Please reduce your request rate.</Message></Error>"
        self.send_response(503)
        self.send_header("Content-Type", "application/xml")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_GET = do_PUT = do_HEAD = do_POST = _fail

    def log_message(self, *_: object) -> None:
        pass


@pytest.fixture
def failing_s3() -> Iterator[str]:
    _Failing.requests.clear()
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Failing)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@pytest.mark.integration
def test_an_s3_answering_5xx_is_unavailable_after_its_retries(failing_s3: str, matches: list[ArchivedMatch]) -> None:
    archive = S3Archive.from_url("s3://truc-archive/x", failing_s3, LoopbackS3.session())

    with pytest.raises(ArchiveUnavailableError, match="503|ServiceUnavailable"):
        archive.check()
    assert _Failing.requests == ["HEAD"] * ATTEMPTS  # retried, a few times only
    with pytest.raises(ArchiveUnavailableError, match="ServiceUnavailable"):
        archive.put(matches[0])
    with pytest.raises(ArchiveUnavailableError, match="ServiceUnavailable"):
        archive.get(matches[0].match_id)
    with pytest.raises(ArchiveUnavailableError, match="ServiceUnavailable"):
        list(archive.match_ids())


@pytest.mark.integration
def test_a_missing_bucket_is_unavailable(s3_server: LoopbackS3, matches: list[ArchivedMatch]) -> None:
    archive = S3Archive.from_url("s3://no-such-bucket/x", s3_server.endpoint, s3_server.session())

    with pytest.raises(ArchiveUnavailableError, match="404|NoSuchBucket"):
        archive.check()
    with pytest.raises(ArchiveUnavailableError, match="NoSuchBucket"):
        archive.put(matches[0])


@pytest.mark.integration
def test_the_settings_open_the_s3_archive_they_name(s3_server: LoopbackS3, matches: list[ArchivedMatch],
                                                   monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    prefix = s3_server.new_prefix()
    for name, value in s3_server.env(prefix).items():
        monkeypatch.setenv(name, value)  # credentials and region through boto3's own chain, as in production

    archive = open_archive(Config.from_env({**os.environ, "DATA_DIR": str(tmp_path)}))

    archive.check()
    archive.put(matches[2])
    assert open_archive(Config.from_env({**os.environ, "DATA_DIR": str(tmp_path)})).get(matches[2].match_id) \
        == matches[2]
    assert list(tmp_path.iterdir()) == []  # nothing went to the files archive
