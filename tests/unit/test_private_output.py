"""private_output: a file for its owner alone, whole or not at all."""
from __future__ import annotations

import stat

import pytest

from shared.private_files import private_output


@pytest.mark.parametrize("replace", [False, True])
def test_a_write_that_fails_leaves_no_file_and_keeps_the_one_there(tmp_path, replace):
    kept = tmp_path / "kept"
    if replace:
        kept.write_text("old\n")
    with pytest.raises(RuntimeError), private_output(kept, replace=replace) as file:
        file.write(b"half")
        raise RuntimeError("the writer failed")
    assert [path.name for path in tmp_path.iterdir()] == (["kept"] if replace else [])
    if replace:
        assert kept.read_text() == "old\n"


def test_a_new_file_is_the_owners_alone_and_an_existing_one_is_refused(tmp_path):
    path = tmp_path / "new"
    with private_output(path) as file:
        file.write(b"x")
    assert stat.S_IMODE(path.stat().st_mode) == 0o600 and path.read_bytes() == b"x"
    with pytest.raises(FileExistsError), private_output(path):
        pass
    assert path.read_bytes() == b"x"
