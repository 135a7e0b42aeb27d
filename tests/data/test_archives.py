"""Archives, compressed files and pipes (issue 35 rows 14-17; docs/unusual_input.md "Archives and pipes").

Built from INCEpTION's own test files (``tests/fixtures/real_exports/webanno``, from the INCEpTION
repository's curation test resources): each row of the table is a project export zip laid out
in a way INCEpTION never writes, and what the reader must do with it.
"""

import gzip
import os
import sys
import threading
import warnings
import zipfile
import zlib
from pathlib import Path

import pytest
from typer.testing import CliRunner

import softirr_stats as sis
from softirr_stats.data._input import UNPACK_ENV, InputTooLarge

pytestmark = pytest.mark.filterwarnings("ignore::softirr_stats.data.ExportWarning")

SRC = Path(__file__).resolve().parents[1] / "fixtures" / "real_exports" / "webanno" / "simpleSpanDiffIncompleteTest"


def _zip(path, entries):
    """A zip of ``(archive name, source file)`` entries, written in order (a name may repeat)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # zipfile: "Duplicate name"
        with zipfile.ZipFile(path, "w") as zf:
            for name, src in entries:
                zf.write(SRC / src, name)
    return path


def _read(path):
    return sis.read_annotations(path, format="webanno-tsv", feature="PosValue")


GOOD = [("annotation/s.txt/user1.tsv", "user1.tsv"), ("annotation/s.txt/user2.tsv", "user2.tsv")]

# (case, entries, expected raters or the error's words)
INCEPTION = [
    ("as INCEpTION writes it", GOOD, ("user1", "user2")),
    ("row14: two entries of one name", [*GOOD, ("annotation/s.txt/user2.tsv", "user1.tsv")],
     "holds 2 entries named 'annotation/s.txt/user2.tsv'"),
    ("row15: one user's file for one document under two paths",
     [*GOOD, ("backup/annotation/s.txt/user2.tsv", "user2.tsv")], "user 'user2' has two files for document 's.txt'"),
    ("row16: curation/annotation/doc/x.tsv is not a rater",
     [*GOOD, ("curation/annotation/s.txt/x.tsv", "curator.tsv")], ("user1", "user2")),
    ("curation/doc/CURATION_USER.tsv", [*GOOD, ("curation/s.txt/CURATION_USER.tsv", "curator.tsv")],
     ("user1", "user2")),
    ("a wrapping folder", [(f"project/{n}", s) for n, s in GOOD], ("user1", "user2")),
]


@pytest.mark.parametrize("case, entries, expected", INCEPTION, ids=[c[0] for c in INCEPTION])
def test_inception_zip_layouts(tmp_path, case, entries, expected):
    path = _zip(tmp_path / "project.zip", entries)
    if isinstance(expected, str):
        with pytest.raises(ValueError, match=expected.replace("(", r"\(").replace("*", r"\*")):
            _read(path)
        return
    ann = _read(path)
    assert ann.raters == expected
    if any(n.startswith("curation/") for n, _ in entries):
        assert any("under curation/ (the curated result) skipped" in n for n in ann.read_notes)


def test_row15_two_paths_in_a_folder_are_refused_too(tmp_path):
    for sub in ("a/annotation/s.txt", "b/annotation/s.txt"):
        (tmp_path / sub).mkdir(parents=True)
        (tmp_path / sub / "user1.tsv").write_bytes((SRC / "user1.tsv").read_bytes())
    (tmp_path / "a/annotation/s.txt/user2.tsv").write_bytes((SRC / "user2.tsv").read_bytes())
    with pytest.raises(ValueError, match="user 'user1' has two files for document 's.txt'"):
        _read(tmp_path)


def test_row16_curation_folder_is_skipped_in_a_folder(tmp_path):
    for name, src in [*GOOD, ("curation/annotation/s.txt/x.tsv", "curator.tsv")]:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_bytes((SRC / src).read_bytes())
    ann = _read(tmp_path)
    assert ann.raters == ("user1", "user2")
    assert any("under curation/" in n for n in ann.read_notes)


def test_row14_doccano_zip_with_two_entries_of_one_name(tmp_path):
    path = tmp_path / "doccano.zip"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        with zipfile.ZipFile(path, "w") as zf:
            zf.writestr("alice.jsonl", '{"id": 1, "text": "x", "label": ["a"]}\n')
            zf.writestr("bob.jsonl", '{"id": 1, "text": "x", "label": ["a"]}\n')
            zf.writestr("bob.jsonl", '{"id": 1, "text": "x", "label": ["b"]}\n')
    with pytest.raises(ValueError, match="holds 2 entries named 'bob.jsonl'"):
        sis.read_annotations(path, format="doccano")


# ---------------------------------------------------------------------------------------- row 17
def _bomb_zip(path, nbytes, name="annotation/s.txt/user1.tsv", copies=1):
    """A zip whose entries unpack to ``nbytes`` zeros each (about 1,000 times smaller packed)."""
    block = b"\0" * (1 << 20)
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for k in range(copies):
            with zf.open(name if copies == 1 else f"annotation/d{k}.txt/user{k}.tsv", "w", force_zip64=True) as fh:
                for _ in range(nbytes >> 20):
                    fh.write(block)
    return path


def _gzip_bomb(path, nbytes, isize=None):
    """A gzip stream of ``nbytes`` zeros; ``isize`` overrides the size its trailer declares."""
    block = b"\0" * (1 << 20)
    comp = zlib.compressobj(9, zlib.DEFLATED, 31)
    with open(path, "wb") as fh:
        for _ in range(nbytes >> 20):
            fh.write(comp.compress(block))
        tail = comp.flush()
        if isize is not None:
            tail = tail[:-4] + (isize % 2**32).to_bytes(4, "little")
        fh.write(tail)
    return path


# (case, build(tmp_path) -> path, read options, the error's words); the cap is lowered to 8 MiB
BOMBS = [
    ("zip entry over the cap", lambda t: _bomb_zip(t / "bomb.zip", 16 << 20), {"format": "webanno-tsv"},
     r"bomb.zip:annotation/s.txt/user1.tsv: this entry unpacks to 16.0 MiB \(from .* packed\), over the cap of "
     r"8.0 MiB"),
    ("zip entries together over the cap", lambda t: _bomb_zip(t / "many.zip", 3 << 20, copies=4),
     {"format": "webanno-tsv"}, r"many.zip: its 4 entries unpack to 12.0 MiB together, over the cap of 8.0 MiB"),
    ("gzip stream declaring its size", lambda t: _gzip_bomb(t / "bomb.jsonl.gz", 16 << 20), {"format": "doccano"},
     r"bomb.jsonl.gz: a gzip file that unpacks to more than 8.0 MiB, over the cap of 8.0 MiB"),
    ("gzip stream lying about its size", lambda t: _gzip_bomb(t / "liar.jsonl.gz", 16 << 20, isize=100),
     {"format": "doccano"}, r"liar.jsonl.gz: a gzip file that unpacks to more than 8.0 MiB, over the cap"),
]


@pytest.mark.parametrize("case, build, options, words", BOMBS, ids=[b[0] for b in BOMBS])
def test_row17_unpacking_is_capped(tmp_path, monkeypatch, case, build, options, words):
    monkeypatch.setenv(UNPACK_ENV, "8M")
    path = build(tmp_path)
    with pytest.raises(InputTooLarge, match=words) as err:
        sis.read_annotations(path, **options)
    assert f"{UNPACK_ENV}=8G" in str(err.value)  # how to raise it


def test_row17_a_raised_cap_lets_a_genuine_archive_through(tmp_path, monkeypatch):
    path = _zip(tmp_path / "project.zip", GOOD)
    monkeypatch.setenv(UNPACK_ENV, "100")
    with pytest.raises(InputTooLarge, match="over the cap of 100 bytes"):
        _read(path)
    monkeypatch.setenv(UNPACK_ENV, "1M")
    assert _read(path).raters == ("user1", "user2")
    monkeypatch.setenv(UNPACK_ENV, "lots")
    with pytest.raises(ValueError, match="SOFTIRR_MAX_UNPACKED must be a positive size"):
        _read(path)


def test_row17_a_zip_bomb_is_refused_before_unpacking(tmp_path):
    """3 MB packed, 3 GiB unpacked, under the default cap: refused from the sizes the archive declares,
    before a byte is unpacked (so in well under a second, with no memory to speak of)."""
    import time

    path = tmp_path / "bomb.zip"
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("annotation/s.txt/user1.tsv", b"")
    # declare 3 GiB for the entry, as a real bomb's directory does (zipfile stops at the declared size)
    with zipfile.ZipFile(path) as zf:
        info = zf.infolist()[0]
    raw = bytearray(path.read_bytes())
    central = raw.rfind(b"PK\x01\x02")
    raw[central + 24:central + 28] = (3 << 30).to_bytes(4, "little")
    path.write_bytes(bytes(raw))
    assert info.file_size == 0
    t0 = time.perf_counter()
    with pytest.raises(InputTooLarge, match=r"this entry unpacks to 3.0 GiB .* over the cap of 1.0 GiB"):
        _read(path)
    assert time.perf_counter() - t0 < 5


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
def test_row17_a_device_is_refused_at_once():
    with pytest.raises(ValueError, match="/dev/zero: a character device, not an annotation file"):
        sis.read_annotations("/dev/zero")
    with pytest.raises(ValueError, match="a character device"):
        sis.read_annotations("/dev/zero", format="csv")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
@pytest.mark.parametrize("cap, ok", [(None, True), ("100", False)])
def test_row17_a_pipe_is_read_under_the_cap(tmp_path, monkeypatch, cap, ok):
    if cap:
        monkeypatch.setenv(UNPACK_ENV, cap)
    fifo = tmp_path / "pipe.csv"
    os.mkfifo(fifo)
    text = "item,rater,label\n" + "".join(f"{i},a,x\n{i},b,x\n" for i in range(20))

    def feed():
        try:
            with open(fifo, "w") as fh:
                fh.write(text)
        except BrokenPipeError:
            pass

    writer = threading.Thread(target=feed, daemon=True)
    writer.start()
    if ok:
        assert sis.read_annotations(fifo).n_items == 20
    else:
        with pytest.raises(InputTooLarge, match="the pipe carries more than 100 bytes"):
            sis.read_annotations(fifo)
    writer.join(5)


# (input, words expected in the one error line); never the out-of-memory advice
CLI = [
    ("/dev/zero", "a character device"),
    ("bomb.zip", "over the cap of"),
]


CLI_CASES = [pytest.param(*c, id=c[0], marks=pytest.mark.skipif(c[0] == "/dev/zero" and not os.path.exists("/dev/zero"),
                                                               reason="needs /dev/zero")) for c in CLI]


@pytest.mark.parametrize("what, words", CLI_CASES)
def test_row17_command_line_says_what_is_too_large(tmp_path, monkeypatch, what, words):
    from softirr_stats.cli import app

    if what == "/dev/zero":
        target = "/dev/zero"
    else:
        monkeypatch.setenv(UNPACK_ENV, "4M")
        target = str(_bomb_zip(tmp_path / what, 8 << 20))
    out = CliRunner().invoke(app, ["agree", target, "--bootstrap", "0"])
    assert out.exit_code == 2, out.output
    assert words in out.output and "out of memory" not in out.output and "--bootstrap" not in out.output


def test_gzip_export_under_the_cap_reads_as_before(tmp_path):
    path = tmp_path / "alice.jsonl.gz"
    path.write_bytes(gzip.compress(b'{"id": 1, "text": "x", "label": ["a"]}\n{"id": 2, "text": "y", "label": ["b"]}\n'))
    assert sis.read_annotations(path, format="doccano").n_items == 2


def _ratings_jsonl(n_items=50):
    return [f'{{"item": {i}, "rater": "{r}", "label": "{"xy"[(i + len(r)) % 2]}"}}\n'.encode()
            for i in range(n_items) for r in "ab"]


def test_a_gzip_file_of_several_members_is_read_whole(tmp_path):
    """``cat a.gz b.gz``, ``gzip >>``, pigz and bgzip write several gzip members (RFC 1952): all are read."""
    lines = _ratings_jsonl()
    path = tmp_path / "multi.jsonl.gz"
    path.write_bytes(gzip.compress(b"".join(lines[:60])) + gzip.compress(b"".join(lines[60:])) + b"\0" * 512)
    assert sis.read_annotations(path, format="jsonl").n_ratings == 100


@pytest.mark.parametrize("cap", [None, "8G"])
def test_a_cut_gzip_file_is_refused_not_read_in_part(tmp_path, monkeypatch, cap):
    """A file cut off after its 60th line: its last four bytes are data, not the size; refused under any cap."""
    if cap:
        monkeypatch.setenv(UNPACK_ENV, cap)
    comp = zlib.compressobj(9, zlib.DEFLATED, 31)
    path = tmp_path / "cut.jsonl.gz"
    head = b"".join(_ratings_jsonl()[:60])
    path.write_bytes(comp.compress(head) + comp.flush(zlib.Z_FULL_FLUSH))
    with pytest.raises(ValueError, match=rf"cut.jsonl.gz: the gzip file ends early: damaged or cut off "
                                         rf"\({len(head)} bytes unpacked so far\)") as err:
        sis.read_annotations(path, format="jsonl")
    assert not isinstance(err.value, InputTooLarge)
    whole = gzip.compress(b"".join(_ratings_jsonl()))
    path.write_bytes(whole[:-3])  # cut inside the trailer: the data is there, its check is not
    with pytest.raises(ValueError, match="ends early"):
        sis.read_annotations(path, format="jsonl")
    path.write_bytes(whole + b"garbage")
    with pytest.raises(ValueError, match=r"holds 7 bytes after its compressed data that are not gzip"):
        sis.read_annotations(path, format="jsonl")


def test_the_cap_counts_every_member_of_a_gzip_file(tmp_path, monkeypatch):
    monkeypatch.setenv(UNPACK_ENV, "1M")
    path = tmp_path / "members.jsonl.gz"
    path.write_bytes(gzip.compress(b" " * (600 << 10)) * 2)  # two members of 600 KiB, each under the cap
    with pytest.raises(InputTooLarge, match=r"unpacks to more than 1.0 MiB, over the cap of 1.0 MiB"):
        sis.read_annotations(path, format="jsonl")


@pytest.mark.parametrize("format", [None, "doccano", "webanno-tsv"])
def test_a_cut_zip_is_named_a_damaged_archive(tmp_path, format):
    """A zip cut off in a download has no directory: it was 'cannot tell the format' (or, with format=,
    'not UTF-8 text' from reading the archive's bytes as text)."""
    path = tmp_path / "project.zip"
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("alice.jsonl", '{"id": 1, "text": "x", "label": ["a"]}\n' * 50)
    path.write_bytes(path.read_bytes()[:-30])
    with pytest.raises(ValueError, match=r"^project.zip: a damaged zip archive: it starts as one, but its directory"):
        sis.read_annotations(path, **({} if format is None else {"format": format}))


def test_a_gzipped_table_says_how_to_read_it(tmp_path):
    path = tmp_path / "t.csv"
    path.write_bytes(gzip.compress(b"item,rater,label\n1,a,x\n1,b,x\n"))
    with pytest.raises(ValueError, match=r"t.csv: a gzip-compressed file, not UTF-8 text; decompress it first"):
        sis.read_annotations(path)


# pipes and devices are POSIX: on Windows the module does not apply (it runs everywhere else, CI included)
pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="pipes and devices are POSIX")


def test_a_gzipped_json_export_is_told_by_its_content(tmp_path):
    """``x.jsonl.gz`` / ``x.json.gz`` exports are guessed as ``x.jsonl`` is (they asked for format= before); what is
    read equals the explicit format's reading."""
    import gzip
    import json

    from softirr_stats.data._readers import guess_format

    rows = [{"item": i, "rater": r, "label": "ab"[(i * (k + 1)) % 2]} for i in range(6) for k, r in enumerate("xy")]
    long = tmp_path / "long.jsonl.gz"
    long.write_bytes(gzip.compress("".join(json.dumps(r) + "\n" for r in rows).encode()))
    records = tmp_path / "records.json.gz"
    records.write_bytes(gzip.compress(json.dumps(rows).encode()))
    doccano = tmp_path / "doccano.jsonl.gz"
    doccano.write_bytes(gzip.compress(b"".join(json.dumps({"id": i, "text": "t", "label": ["a"]}).encode() + b"\n"
                                               for i in range(3))))
    assert [guess_format(p) for p in (long, records, doccano)] == ["jsonl", "jsonl", "doccano"]
    ann = sis.read_annotations(long)
    assert ann.raters == ("x", "y") and ann.n_items == 6
    assert ann.codes.tolist() == sis.read_annotations(long, format="jsonl").codes.tolist()
    damaged = tmp_path / "damaged.jsonl.gz"
    damaged.write_bytes(b"not gzip")
    with pytest.raises(ValueError, match="damaged.jsonl.gz: a gzip file that cannot be decompressed"):
        sis.read_annotations(damaged)
