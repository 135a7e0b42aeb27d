"""Every subcommand of the real entry point against bad input: one ``error:`` line, the documented exit code.

Exit status (docs/command_line.md, ``softirr --help``): 1 = a requested result cannot be
computed for the data, 2 = a bad option or unreadable input, 3 = an internal error (a bug),
130 = interrupted. No row may print a traceback. The table runs in process through
``softirr_stats.cli.main`` (the console script's function) with captured streams; a few rows
also run through the installed ``softirr`` script in a subprocess.
"""

import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from softirr_stats.cli import main
from softirr_stats.data import demo_path


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("abuse")
    (d / "good.csv").write_text("item,rater,label\n1,a,x\n1,b,y\n2,a,x\n2,b,x\n3,a,y\n3,b,y\n4,a,x\n4,b,x\n")
    (d / "nums.csv").write_text("item,rater,label\n1,a,1\n1,b,2\n2,a,2\n2,b,2\n3,a,1\n3,b,1\n")
    (d / "emptydir").mkdir()
    (d / "enc.csv").write_bytes(b"item,rater,label\n1,a,caf\xe9\n1,b,x\n")
    (d / "bin.csv").write_bytes(b"\x00\x01\x02binary\xff\xfe")
    (d / "deep.json").write_text("[" * 100_000)
    (d / "huge.jsonl").write_text('{"item": 1, "rater": "a", "label": 1' + "0" * 400 + '}\n'
                                  '{"item": 1, "rater": "b", "label": 2}\n')
    (d / "bad.json").write_text('{"a": [1,')
    (d / "trunc.jsonl").write_text('{"item": 1, "rater": "a", "label": "x"}\n{"item": 1, "rater": "b", "label": ')
    (d / "empty.csv").write_text("")
    (d / "header.csv").write_text("item,rater,label\n")
    (d / "cols.csv").write_text("doc,who,text\n1,a,x\n1,b,y\n")
    (d / "dup.csv").write_text("item,rater,label\n1,a,x\n1,a,y\n")
    (d / "garbage.sqlite").write_bytes(bytes(range(256)) * 12)
    con = sqlite3.connect(d / "foreign.sqlite")
    con.execute("create table scores(x text)")
    con.commit()
    con.close()
    (d / "cachedir").mkdir()
    (d / "spec_bad.json").write_text("{not json")
    (d / "sheet_bad.csv").write_bytes(b"pair_id,judgment\n\xff\xfe,1\n")
    (d / "sheet_cols.csv").write_text("a,b\n1,2\n")
    (d / "sheet_orphan.csv").write_text("pair_id,label_1,label_2,judgment\np0001,x,y,1\n")
    (d / "plan_bad.csv").write_text("label_a,label_b,q,judgment\nx,y,0.5,7\n")
    return d


# Each reading command with the options it needs to reach the reading step.
READERS = {
    "agree": ["agree", "{file}", "--bootstrap", "0"],
    "sensitivity": ["sensitivity", "{file}", "--bootstrap", "0"],
    "score": ["score", "{file}", "-m", "indel", "--cache", "{d}/fresh.sqlite", "--no-progress"],
    "model": ["model", "{file}", "--method", "svi", "--steps", "5"],
    "report": ["report", "{file}", "-o", "{d}/out.html", "--bootstrap", "0"],
    "judge plan": ["judge", "plan", "{file}", "-m", "indel", "-o", "{d}/sheet.csv"],
}
# (bad input, extra options, exit code, text the one line must contain)
FILE_CASES = [
    ("missing", "nofile.csv", [], 2, "does not exist"),
    ("empty folder", "emptydir", [], 2, "cannot tell the export format of this folder"),
    ("bad encoding", "enc.csv", [], 2, "not UTF-8 text"),
    ("binary file", "bin.csv", [], 2, "not UTF-8 text"),
    ("deep JSON", "deep.json", ["--input-format", "label-studio"], 2, "nested too deeply"),
    ("huge integer", "huge.jsonl", [], 2, ("too large", "beyond the float range")),
    ("bad JSON", "bad.json", [], 2, "not valid JSON"),
    ("truncated JSONL", "trunc.jsonl", [], 2, "line 2: not valid JSON"),
    ("empty file", "empty.csv", [], 2, "the file is empty"),
    ("header only", "header.csv", [], 2, "no rows"),
    ("missing columns", "cols.csv", [], 2, "the columns are"),
    ("unknown input format", "good.csv", ["--input-format", "xml"], 2, "--input-format must be one of"),
    ("export option on a table", "good.csv", ["--field", "x"], 2, "the options --field apply only"),
    ("reader option syntax", "good.csv", ["--reader-option", "foo"], 2, "--reader-option takes KEY=VALUE"),
    ("unknown reader option", "good.csv", ["--reader-option", "zz=1"], 2, "--reader-option zz="),
    ("bad span rule", "good.csv", ["--span-rule", "weird"], 2, "--span-rule must be"),
    ("span rule IoU", "good.csv", ["--span-rule", "overlap:2"], 2, "min_overlap"),
    ("reader option for a flag", "good.csv", ["--reader-option", "format=csv"], 2, "use --input-format"),
    # it silently won over the flag, in either order
    ("reader option for --field", "good.csv", ["--field", "a", "--reader-option", "field=b"], 2,
     "--reader-option field=... sets what --field sets: use --field instead (got --field 'a' too)"),
    ("reader option for --categories", "good.csv", ["--reader-option", "categories=[x, y]"], 2,
     "use --categories instead"),
]

ROWS = [pytest.param([*(a.replace("{file}", "{d}/" + f) for a in READERS[cmd]), *extra], code, text,
                     id=f"{cmd}: {name}")
        for cmd in READERS for name, f, extra, code, text in FILE_CASES]

# Options of each command (the good file), and the other commands.
G = "{d}/good.csv"
OPTION_ROWS = [
    # agree
    (["agree", G, "-m", "levenstein"], 2, "unknown --similarity 'levenstein'"),
    (["agree", G, "-c", "kappa_of_doom"], 2, "unknown --coefficient 'kappa_of_doom'"),
    (["agree", G, "--chance", "sampled:1e10"], 2, "--chance sampled:1e10"),
    (["agree", G, "--chance", "sampled:10000000000"], 2, "more than the 100000000"),
    (["agree", G, "--chance", "mc:0"], 2, "positive whole number"),
    (["agree", G, "--chance", "permutation"], 2, "chance must be one of"),
    (["agree", G, "--bootstrap", "1"], 2, "--bootstrap must be 0"),
    (["agree", G, "--bootstrap", "-5"], 2, "--bootstrap must be 0"),
    (["agree", G, "--bootstrap", "1000000000"], 2, "more replicates than any interval needs"),
    (["agree", G, "--bootstrap", "x"], 2, "Invalid value for '--bootstrap'"),
    (["agree", G, "--design", "cluster"], 2, "--design cluster needs --cluster COLUMN"),
    (["agree", G, "--method", "studentized"], 2, "--method must be one of"),
    (["agree", G, "--method", "bcat"], 2, "(did you mean 'bca-t'?)"),
    (["agree", G, "--design", "item"], 2, "(did you mean 'items' or 'items+raters'?)"),
    (["agree", G, "-f", "JSON"], 2, "(did you mean 'json'?)"),
    (["agree", G, "--level", "1.5"], 2, "--level must lie strictly between 0 and 1"),
    (["agree", G, "--level", "nan"], 2, "--level must lie strictly between 0 and 1"),
    (["agree", G, "--seed", "-1"], 2, "--seed must be a non-negative integer"),
    (["agree", G, "-f", "html"], 2, "--format must be one of"),
    (["agree", G, "--json", "{d}/emptydir"], 2, "--json"),
    (["agree", G, "--json", "{d}/no/such/dir/o.json"], 2, "cannot be written"),
    # an output that is an input would overwrite the data (the file was silently replaced by the results)
    (["agree", G, "--bootstrap", "0", "--json", G], 2, "is an input of this command"),
    (["describe", G, "--json", G], 2, "is an input of this command"),
    (["judge", "plan", G, "-m", "indel", "-n", "2", "-o", G], 2, "is an input of this command"),
    (["sensitivity", G, "-c", "fleiss_kappa", "--bootstrap", "0", "--plot", "{d}/p.png", "--json", "{d}/p.png"], 2,
     "is an input of this command"),
    (["agree", G, "-m", "levenshtein", "--cache", "{d}/garbage.sqlite", "--bootstrap", "0"], 2,
     "--cache {d}/garbage.sqlite is not a usable softirr score cache"),
    (["agree", G, "-m", "levenshtein", "--cache", "{d}/foreign.sqlite", "--bootstrap", "0"], 2,
     "--cache {d}/foreign.sqlite is not a usable softirr score cache"),
    (["agree", G, "-m", "levenshtein", "--cache", "{d}/cachedir", "--bootstrap", "0"], 2, "--cache"),
    (["agree", "{d}/nums.csv", "-m", "levenshtein", "--bootstrap", "0"], 2,
     "--similarity levenshtein cannot score these labels"),
    (["agree", "{d}/nums.csv", "-m", "levenshtein", "--bootstrap", "0"], 2,  # the remedy as flags, not classes
     "for numbers use -m exact, or a distance weight: -m linear"),
    (["score", "{d}/nums.csv", "-m", "levenshtein", "--cache", "{d}/s.sqlite"], 2,  # before any scoring
     "labels that are not text need no scores: softirr agree -m exact"),
    (["agree", G, "-m", "nli"], 2, "--similarity nli needs --model"),
    (["agree", G, "-m", "@{d}/nospec.json"], 2, "cannot read the estimator spec"),
    (["agree", G, "-m", "@{d}/spec_bad.json"], 2, "not valid JSON"),
    (["agree", G, "-m", "{{\"cls\": 3"], 2, "--similarity"),
    (["agree", G, "--judgments", "{d}/nosheet.csv"], 2, "--judgments {d}/nosheet.csv does not exist"),
    (["agree", G, "--judgments", "{d}/sheet_bad.csv"], 2, "not UTF-8 text"),
    (["agree", G, "--judgments", "{d}/sheet_cols.csv"], 2, "needs the columns pair_id and judgment"),
    (["agree", G, "--judgments", "{d}/sheet_orphan.csv"], 2, "its plan"),
    (["agree", G, "--judgments", "{d}/plan_bad.csv"], 2, "judgment must lie in [0, 1]"),
    (["agree", G, "-c", "cohen_kappa,fleiss_kappa", "--bootstrap", "0", "--nope"], 2, "No such option: --nope"),
    (["agree"], 2, "Missing argument"),
    # sensitivity
    (["sensitivity", G, "-m", "quadratik"], 2, "unknown --similarity 'quadratik'"),
    (["sensitivity", G, "-c", "alpha"], 2, "unknown --coefficient 'alpha'"),
    (["sensitivity", G, "--chance", "mc:2.5"], 2, "positive whole number"),
    (["sensitivity", G, "--plot", "{d}/forest.gif"], 2, "--plot"),
    (["sensitivity", G, "--plot", "{d}/emptydir"], 2, "is a directory"),
    (["sensitivity", G, "-m", "levenshtein", "--cache", "{d}/garbage.sqlite", "--bootstrap", "0"], 2, "--cache"),
    (["sensitivity", G, "--level", "0"], 2, "--level"),
    # score
    (["score", G, "-m", "exact"], 2, "--similarity exact needs no scores"),
    (["score", G, "-m", "levenstein"], 2, "unknown --similarity 'levenstein'"),
    (["score", G, "--batch-size", "0"], 2, "--batch-size must be a positive integer"),
    (["score", G, "--cache", "{d}/garbage.sqlite", "--no-progress"], 2, "--cache {d}/garbage.sqlite"),
    (["score", G, "--cache", "{d}/foreign.sqlite", "--no-progress"], 2, "not a softirr score cache"),
    (["score", G, "--cache", "{d}/cachedir"], 2, "--cache {d}/cachedir is a directory"),
    (["score", G, "--chance", "sampled:1e10"], 2, "--chance sampled:1e10"),
    (["score", G, "-c", "kappa"], 2, "unknown --coefficient 'kappa'"),
    (["score", G, "-m", "llm_judge"], 2, "--similarity llm_judge needs --model"),
    (["score", G, "--json", "{d}/emptydir"], 2, "--json"),
    # model
    (["model", G, "--model", "dawid_skeen"], 2, "unknown --model 'dawid_skeen'"),
    (["model", G, "--method", "hmc"], 2, "unknown --method 'hmc'"),
    (["model", G, "--level", "2"], 2, "--level must lie strictly between 0 and 1"),
    (["model", G, "--method", "svi", "--steps", "0"], 2, "--steps must be a positive integer"),
    (["model", G, "--chains", "0"], 2, "--chains must be a positive integer"),
    (["model", G, "--model", "soft"], 2, "--model soft needs a soft --similarity"),
    (["model", G, "-m", "jacard"], 2, "unknown --similarity 'jacard'"),
    (["model", G, "-f", "yaml"], 2, "--format must be one of"),
    # report
    (["report", G, "-o", "{d}/report.txt"], 2, "must end in .html"),
    (["report", G, "-o", "{d}/emptydir"], 2, "--output"),
    (["report", G, "-o", "{d}/r.html", "-m", "levenstein"], 2, "unknown --similarity 'levenstein'"),
    (["report", G, "-o", "{d}/r.html", "--chance", "sampled:1e10"], 2, "--chance sampled:1e10"),
    (["report", G, "-o", "{d}/r.html", "--model", "soft"], 2, "unknown --model 'soft'"),
    (["report", G, "-o", "{d}/r.html", "--model-steps", "0"], 2, "--model-steps"),
    (["report", G, "-o", "{d}/r.html", "-c", "kappa"], 2, "unknown --coefficient 'kappa'"),
    (["report", G, "-o", "{d}/r.html", "--judgments", "{d}/sheet_bad.csv"], 2, "--judgments"),
    (["report", G, "-o", "{d}/r.html", "-m", "levenshtein", "--cache", "{d}/garbage.sqlite", "--bootstrap", "0"],
     2, "--cache {d}/garbage.sqlite"),
    # demo
    (["demo", "--bootstrap", "1"], 2, "--bootstrap must be 0"),
    (["demo", "-f", "pdf"], 2, "--format must be one of"),
    (["demo", "--json", "{d}/emptydir"], 2, "--json"),
    (["demo", "--seed", "-2"], 2, "--seed"),
    # judge plan
    (["judge", "plan", G, "-m", "exact"], 2, "--similarity exact needs no judge"),
    (["judge", "plan", G, "-m", "indel", "-n", "0"], 2, "-n must be a positive number"),
    (["judge", "plan", G, "-m", "indel", "-o", "{d}/sheet.txt"], 2, "must end in .csv"),
    (["judge", "plan", G, "-m", "indel", "-c", "light_kappa"], 2, "unknown --coefficient 'light_kappa'"),
    (["judge", "plan", G, "-m", "indel", "--strategy", "greedy"], 2, "unknown --strategy 'greedy'"),
    (["judge", "plan", G, "-m", "indel", "-o", "{d}/emptydir"], 2, "must end in .csv"),
    (["judge", "plan", G], 2, "Missing option '--similarity'"),
    (["judge", "plan", "{d}/nums.csv", "-m", "levenshtein"], 2, "cannot score these labels"),
    # the command line itself
    (["frobnicate"], 2, "No such command 'frobnicate'"),
    (["agree", G, "-c", "cohen_kappa", "--bootstrap", "0", "extra.csv"], 2, "does not exist"),
]


def _fill(args, d):
    return [a.replace("{d}", str(d)) for a in args]


def _check(code, out, err, want_code, text):
    assert "Traceback" not in out and "Traceback" not in err
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1, err
    assert lines[0].startswith("error: "), err
    texts = (text,) if isinstance(text, str) else text
    assert any(t in lines[0] for t in texts), lines[0]
    assert code == want_code, (code, err)
    if want_code == 2:
        assert out == "", out  # nothing was computed


@pytest.mark.parametrize(("args", "code", "text"), ROWS + [pytest.param(a, c, t, id=" ".join(a[:3]) + f": {t[:30]}")
                                                            for a, c, t in OPTION_ROWS])
def test_bad_input_is_one_line_with_the_documented_exit_code(files, capsys, args, code, text):
    with pytest.raises(SystemExit) as ex:
        main(_fill(args, files))
    out = capsys.readouterr()
    _check(ex.value.code, out.out, out.err, code, text if not isinstance(text, str) else
           text.replace("{d}", str(files)))


def test_the_table_is_big_enough():
    assert len(ROWS) + len(OPTION_ROWS) >= 80


def test_a_coefficient_that_cannot_be_computed_exits_1_with_one_line(files, capsys):
    with pytest.raises(SystemExit) as ex:
        main(["agree", str(demo_path()), "-c", "cohen_kappa", "--bootstrap", "0"])
    out = capsys.readouterr()
    lines = [ln for ln in out.err.splitlines() if ln.strip()]
    assert ex.value.code == 1 and len(lines) == 1 and "cannot be computed for these data" in lines[0]
    assert "cohen_kappa" in out.out  # the table is still printed


def test_an_unexpected_library_error_is_an_internal_error_line(files, capsys, monkeypatch):
    import softirr_stats.analysis as analysis

    def boom(*_a, **_k):
        raise ZeroDivisionError("a bug")

    analysis.read_input  # noqa: B018 - load the lazy attribute, then replace it
    monkeypatch.setattr(analysis, "read_input", boom)
    with pytest.raises(SystemExit) as ex:
        main(["agree", str(files / "good.csv")])
    out = capsys.readouterr()
    assert ex.value.code == 2 and "cannot read" in out.err and "a bug" in out.err  # a reading failure names the file
    monkeypatch.undo()
    monkeypatch.setattr("softirr_stats.cli.agree.grid_rows", boom)
    with pytest.raises(SystemExit) as ex:
        main(["agree", str(files / "good.csv"), "--bootstrap", "0"])
    out = capsys.readouterr()
    assert ex.value.code == 3 and out.err.startswith("error: internal error (ZeroDivisionError: a bug)")
    assert out.err.count("\n") == 1


def test_memory_and_disk_errors_are_one_line(files, capsys, monkeypatch):
    import errno

    def no_memory(*_a, **_k):
        raise MemoryError()

    monkeypatch.setattr("softirr_stats.cli.agree.grid_rows", no_memory)
    with pytest.raises(SystemExit) as ex:
        main(["agree", str(files / "good.csv"), "--bootstrap", "0"])
    out = capsys.readouterr()
    assert ex.value.code == 2 and "out of memory" in out.err and out.err.count("\n") == 1

    def disk_full(*_a, **_k):
        raise OSError(errno.ENOSPC, "No space left on device", str(files / "o.json"))

    monkeypatch.setattr("softirr_stats.cli.agree.grid_rows", disk_full)
    with pytest.raises(SystemExit) as ex:
        main(["agree", str(files / "good.csv"), "--bootstrap", "0"])
    out = capsys.readouterr()
    assert ex.value.code == 2 and f"disk full writing {files / 'o.json'}" in out.err


def test_no_arguments_shows_the_help(capsys):
    with pytest.raises(SystemExit) as ex:
        main([])
    out = capsys.readouterr()
    assert ex.value.code == 2 and "Usage" in out.out and "Traceback" not in out.err


CONSOLE_ROWS = [
    (["agree", "{d}/enc.csv"], 2, "not UTF-8 text"),
    (["agree", "{d}/good.csv", "--chance", "sampled:1e10"], 2, "--chance sampled:1e10"),
    (["score", "{d}/good.csv", "--cache", "{d}/garbage.sqlite", "--no-progress"], 2, "--cache"),
    (["sensitivity", "{d}/deep.json", "--input-format", "label-studio"], 2, "nested too deeply"),
    (["judge", "plan", "{d}/good.csv", "-m", "exact"], 2, "needs no judge"),
    (["agree", "{d}/good.csv", "--nope"], 2, "No such option"),
]


@pytest.mark.parametrize(("args", "code", "text"), CONSOLE_ROWS)
def test_the_console_script(files, args, code, text):
    exe = shutil.which("softirr", path=str(Path(sys.executable).parent))
    assert exe is not None, "the softirr console script is not installed in this environment"
    proc = subprocess.run([exe, *_fill(args, files)], capture_output=True, text=True, timeout=300, check=False)
    _check(proc.returncode, proc.stdout, proc.stderr, code, text.replace("{d}", str(files)))
