"""``base._provenance``: what a kept result records of its inputs, files and export folders alike."""

import hashlib
import json
import os
import pathlib
import shutil

import pytest

from softirr_stats.base._provenance import file_sha256, input_records, path_sha256
from softirr_stats.cli import main

BRATIAA = pathlib.Path(__file__).resolve().parents[1] / "fixtures" / "bratiaa_example"


def _tree_digest(root: pathlib.Path) -> str:
    """The folder digest written out by hand: sorted ``relpath NUL sha256 LF`` lines of every file."""
    lines = sorted(f"{p.relative_to(root).as_posix()}\0{hashlib.sha256(p.read_bytes()).hexdigest()}\n"
                   for p in root.rglob("*") if p.is_file())
    return hashlib.sha256("".join(lines).encode()).hexdigest()


def test_a_file_is_its_own_sha256(tmp_path):
    p = tmp_path / "a.csv"
    p.write_bytes(b"item,rater,label\n1,a,x\n")
    assert path_sha256(p) == file_sha256(p) == hashlib.sha256(p.read_bytes()).hexdigest()


def test_a_folder_is_the_digest_of_its_files(tmp_path):
    copy = tmp_path / "project"
    shutil.copytree(BRATIAA, copy)
    digest = path_sha256(copy)
    assert digest == _tree_digest(copy) == path_sha256(BRATIAA)  # where the folder sits does not count
    (copy / "Lisa" / "extra.ann").write_text("")
    assert path_sha256(copy) != digest  # a file added
    (copy / "Lisa" / "extra.ann").unlink()
    assert path_sha256(copy) == digest
    first = next(p for p in sorted(copy.rglob("*.ann")) if p.stat().st_size)
    first.rename(first.with_name("renamed.ann"))
    assert path_sha256(copy) != digest  # a file renamed, same bytes


def test_links_are_not_followed(tmp_path):
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "a.ann").write_text("T1\tX 0 1\ta\n")
    before = path_sha256(tmp_path / "d")
    outside = tmp_path / "outside.txt"
    outside.write_text("secret")
    os.symlink(outside, tmp_path / "d" / "link.ann")
    assert path_sha256(tmp_path / "d") == before


def test_input_records_take_folders():
    assert input_records([BRATIAA]) == [{"path": str(BRATIAA), "sha256": _tree_digest(BRATIAA)}]


def test_agree_and_report_on_an_export_folder_record_it(capsys, tmp_path):
    # an export folder (brat, INCEpTION) is an input like a file: its JSON meta and the report's provenance
    # name it with the digest of its files (hashing it as a file failed with "Is a directory")
    with pytest.raises(SystemExit) as exit_:
        main(["agree", str(BRATIAA), "-c", "fleiss_kappa", "--bootstrap", "0", "-f", "json"])
    out, err = capsys.readouterr()
    assert exit_.value.code == 0, err
    assert json.loads(out)["meta"]["inputs"] == [{"path": str(BRATIAA), "sha256": _tree_digest(BRATIAA)}]
    page = tmp_path / "r.html"
    with pytest.raises(SystemExit) as exit_:
        main(["report", str(BRATIAA), "-c", "fleiss_kappa", "--bootstrap", "0", "-o", str(page)])
    out, err = capsys.readouterr()
    assert exit_.value.code == 0, err
    assert _tree_digest(BRATIAA) in page.read_text()


def test_an_unreadable_file_in_a_folder_is_recorded_not_fatal(tmp_path, monkeypatch):
    # the digest is taken after the work is done (JSON meta, the report): a file the reader never opened must not
    # turn a finished result into a traceback
    from softirr_stats.base import _provenance

    (tmp_path / "a.ann").write_text("T1\tX 0 1\ta\n")
    (tmp_path / "locked.bin").write_bytes(b"\0")
    real = _provenance.file_sha256

    def refuse(path):
        if str(path).endswith("locked.bin"):
            raise PermissionError(13, "Permission denied", str(path))
        return real(path)

    monkeypatch.setattr(_provenance, "file_sha256", refuse)
    want = hashlib.sha256((f"a.ann\0{real(tmp_path / 'a.ann')}\n" + "locked.bin\0unreadable (PermissionError)\n")
                          .encode()).hexdigest()
    assert path_sha256(tmp_path) == want
