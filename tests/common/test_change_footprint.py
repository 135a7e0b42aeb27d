"""The files a contributor touches for each kind of change, counted.

Each test adds a toy of one kind through the one place that kind is declared (a record, a table
entry, a registration), checks that every consumer of the library sees it, removes it, and holds
``docs/architecture.md``'s table "Where a change goes" to the same files and count. A kind whose
consumers needed a second place would fail here: the toy is added only through its hook.

The toys carry every hook a real entry of their kind sets (a coefficient's description, doctest
examples, default rank, two-rater twin, judgments and invariances; a design's jackknife and strata;
an estimator's own class with its settings, fingerprint and spec; a reader's options and notes; a
command's options and errors), and what a fresh process builds at import (the command line's
lists, its ``--help``) is checked in a fresh process with the toy in its table.
"""

import doctest
import inspect
import json
import re
import subprocess
import sys
import textwrap
import types
from pathlib import Path

import numpy as np
import pytest

import softirr_stats as sis

pytestmark = pytest.mark.filterwarnings("ignore::softirr_stats.UnpairableItemsWarning")

ROOT = Path(__file__).resolve().parents[2]
PKG = ROOT / "softirr_stats"
CELLS = [["a", "a", "b"], ["a", "b", "b"], ["b", "b", "b"], ["c", "c", "a"], ["a", "a", "a"], ["c", "b", "c"]]

#: kind -> (row of the docs table, library files a permanent addition touches)
FOOTPRINT = {
    "coefficient": ("a coefficient on an existing chance family", {"agreement/_registry.py"}),
    "design": ("a bootstrap design", {"uncertainty/_bootstrap.py"}),
    "estimator": ("an estimator with a short name", {"equivalence/<its module>.py", "equivalence/_measures.py"}),
    "command": ("a CLI command", {"cli/<its module>.py", "cli/__init__.py"}),
    "reader": ("a reader of an annotation-tool export", {"data/_readers/<its module>.py", "data/__init__.py"}),
}
#: Done-when of issue 19: at most this many library files per kind
TARGET = {"coefficient": 1, "design": 1, "estimator": 2, "command": 2, "reader": 2}


def _where(obj: object) -> str:
    """The library file (relative to softirr_stats/) that defines ``obj``."""
    return Path(inspect.getsourcefile(inspect.unwrap(obj))).resolve().relative_to(PKG).as_posix()


def _fresh(setup: str, argv: list[str], tmp_path: Path) -> subprocess.CompletedProcess:
    """``softirr <argv>`` in a fresh interpreter after ``setup`` (which puts a toy in its table before
    the command line is imported, as a permanent entry would be at import)."""
    code = textwrap.dedent(setup) + f"\nfrom softirr_stats.cli import main\nmain({argv!r})\n"
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, timeout=300)


def _write_cells(tmp_path: Path) -> Path:
    path = tmp_path / "ratings.csv"
    rows = [f"{i},r{j},{lab}" for i, row in enumerate(CELLS) for j, lab in enumerate(row)]
    path.write_text("item,rater,label\n" + "\n".join(rows) + "\n")
    return path


def _docs_row(kind: str) -> list[str]:
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    section = text.split("## Where a change goes", 1)[1]
    rows = [[c.strip() for c in line.strip().strip("|").split("|")] for line in section.splitlines()
            if line.startswith("|")]
    row = next((r for r in rows if r[0] == FOOTPRINT[kind][0]), None)
    assert row is not None, f"docs/architecture.md has no row {FOOTPRINT[kind][0]!r}"
    return row


@pytest.mark.parametrize("kind", list(FOOTPRINT))
def test_the_docs_table_names_the_files_and_their_count(kind):
    name, files = FOOTPRINT[kind]
    cell = _docs_row(kind)[1]
    count = re.search(r"\((\d+) files?\)", cell)
    assert count is not None, f"the {name!r} row does not say how many library files: {cell!r}"
    assert int(count.group(1)) == len(files) <= TARGET[kind]
    for f in files:
        shown = f"`{f}`" if "<" not in f else f"`{f.split('<')[0]}`"  # "its module in `equivalence/`"
        assert shown in cell, f"the {name!r} row does not name {shown}: {cell!r}"
    assert "test_change_footprint.py" in _docs_row(kind)[-1]


#: the toy coefficient's record, with every field a real record sets (here: Fleiss' kappa's own)
TOY_RECORD = """
from softirr_stats.agreement import COEFFICIENTS, Coefficient
TOY = Coefficient(
    "toy_pooled", "pooled", "Scott-Fleiss agreement under another name.",
    description="A toy: Fleiss' kappa's record under another name, with every hook a real record sets.",
    default_rank=9, two_rater_twin="scott_pi", judgments=True,
    invariances=COEFFICIENTS["fleiss_kappa"].invariances,
    examples='''    Four items, two raters.

    >>> round(toy_pooled([["a", "a"], ["a", "b"], ["b", "b"], ["a", "a"]]).value, 4)
    0.4667''')
"""


def _toy_coefficient():
    space: dict = {}
    exec(TOY_RECORD, space)  # noqa: S102 - the record above, as it would stand in _registry.py
    return space["TOY"]


def test_a_coefficient_on_an_existing_family_is_one_record(tmp_path):
    from softirr_stats.agreement import COEFFICIENTS, Coefficient, register
    from softirr_stats.agreement._registry import (
        coefficient_table_markdown,
        public_exports,
        statistic_records,
    )
    from softirr_stats.analysis import coefficient_names, coefficient_registry
    from softirr_stats.api import _coefficients
    from softirr_stats.cli import _options

    assert {_where(Coefficient), _where(register)} == FOOTPRINT["coefficient"][1]
    toy = _toy_coefficient()
    fleiss = COEFFICIENTS["fleiss_kappa"]
    with register(toy):  # the one hook: what a record in _registry.py's table does at import
        fn = _coefficients.toy_pooled
        # the public function: signature, docstring and its doctest come from the record
        assert list(inspect.signature(fn).parameters) == ["ann", *toy.options] == ["ann", *fleiss.options]
        assert toy.summary in fn.__doc__ and toy.description in fn.__doc__
        tests = doctest.DocTestFinder().find(fn, "toy_pooled", globs={"toy_pooled": fn})
        assert sum(len(t.examples) for t in tests) == 1
        for t in tests:
            assert doctest.DocTestRunner().run(t).failed == 0
        want = sis.fleiss_kappa(CELLS, ci="analytic")
        got = fn(CELLS, ci="analytic")
        assert (got.value, got.se) == pytest.approx((want.value, want.se), rel=1e-12)
        assert got.coefficient == "toy_pooled"
        boot = fn(CELLS, ci=sis.Bootstrap(n=50, seed=3))
        assert boot.ci_low == pytest.approx(sis.fleiss_kappa(CELLS, ci=sis.Bootstrap(n=50, seed=3)).ci_low)
        # its claimed invariances hold (the registry-driven tests hold a permanent record to all of them)
        assert statistic_records()["toy_pooled"].invariances == fleiss.invariances
        assert fn([row[::-1] for row in CELLS]).value == pytest.approx(want.value, abs=1e-12)
        assert fn(CELLS[::-1]).value == pytest.approx(want.value, abs=1e-12)
        # prediction-powered: a judging plan for it, and judgments equal to the estimator give the soft value
        ann = sis.Annotations.from_wide(CELLS)
        plan = sis.judging_plan(ann, similarity="levenshtein", n=20, coefficient="toy_pooled", seed=1)
        judged = plan.pairs.assign(judgment=plan.pairs["score"])
        soft = sis.fleiss_kappa(ann, similarity="levenshtein").value
        with pytest.warns(UserWarning, match="judged"):  # 20 draws: the real notes on a small judged sample
            assert fn(ann, similarity="levenshtein", judgments=judged).value == pytest.approx(soft, abs=1e-12)
        # default sensitivity table: in it at its rank with 3 raters, left to its two-rater twin with 2
        table = sis.sensitivity(CELLS)
        assert "toy_pooled" in list(table["coefficient"])
        assert "toy_pooled" not in list(sis.sensitivity([row[:2] for row in CELLS])["coefficient"])
        table = sis.sensitivity(CELLS, coefficients=["toy_pooled"], similarities=[None, "levenshtein"])
        assert list(table["coefficient"]) == ["toy_pooled"] * 2
        assert "toy_pooled" in coefficient_names() and "toy_pooled" in coefficient_registry()
        assert "toy_pooled" in _options._lists()["coefficients"]  # the CLI's list, as a fresh process builds it
        assert "| `toy_pooled` |" in coefficient_table_markdown()  # the docs table
        assert sis.permutation_test("toy_pooled", CELLS, n=20, seed=0).value == pytest.approx(want.value)
        # a permanent sis.<name> export is two more places, and the export guard says so until they agree
        assert set(public_exports()["softirr_stats.api._coefficients"]) - set(sis._EXPORTS["softirr_stats.api._coefficients"]) \
            == {"toy_pooled"}
    assert "toy_pooled" not in COEFFICIENTS and not hasattr(_coefficients, "toy_pooled")
    # a fresh process with the record in the table: the command line offers and computes it
    setup = TOY_RECORD + "COEFFICIENTS[TOY.name] = TOY\n"
    out = _fresh(setup, ["agree", str(_write_cells(tmp_path)), "-c", "toy_pooled", "--format", "json"], tmp_path)
    assert out.returncode == 0, out.stderr
    rows = json.loads(out.stdout)["results"]
    assert any(r.get("coefficient") == "toy_pooled" and r.get("value") == pytest.approx(want.value, abs=1e-9)
               for r in rows), out.stdout


def _half_design(stat, cfg, strata, start, stop):
    """Toy design: each item kept twice or dropped, with probability 1/2 (weights 0 or 2), within strata."""
    from softirr_stats.uncertainty._bootstrap import unit_weights

    u = unit_weights(stat.n_items, cfg, start, stop, strata=strata, bayesian=True)  # keyed by (seed, replicate)
    return 2.0 * (u > np.log(2.0)), None


def _half_jackknife(cfg, items, n_items, n_raters):
    """Its jackknife (for BCa): each item left out in turn, the raters kept."""
    yield 1.0 - np.eye(n_items), None


def test_a_bootstrap_design_is_one_record():
    from softirr_stats.uncertainty import DESIGNS
    from softirr_stats.uncertainty._bootstrap import BOOTSTRAP_DESIGNS, BootstrapDesign

    assert {_where(BootstrapDesign)} == FOOTPRINT["design"][1]
    assert DESIGNS == tuple(BOOTSTRAP_DESIGNS)  # the public list is read from the records
    # every field a real record sets: its unit, draw, jackknife, flags, strata and description
    BOOTSTRAP_DESIGNS["half"] = BootstrapDesign("half", "items", _half_design, _half_jackknife,
                                                resamples_items=True, strata=True,
                                                description="toy: items kept twice or dropped")
    try:
        cfg = sis.Bootstrap(n=40, design="half", seed=1)
        res = sis.fleiss_kappa(CELLS, ci=cfg)
        assert res.details["bootstrap_design"] == "half" and res.ci_low <= res.value <= res.ci_high
        assert sis.fleiss_kappa(CELLS, ci=cfg).ci_low == res.ci_low  # replicates keyed by the seed
        bca = sis.fleiss_kappa(CELLS, ci=sis.Bootstrap(n=40, design="half", method="bca", seed=1))
        assert bca.ci_low <= bca.value <= bca.ci_high  # its jackknife gives BCa
        strata = sis.fleiss_kappa(CELLS, ci=sis.Bootstrap(n=40, design="half", seed=1, strata=[0, 0, 0, 1, 1, 1]))
        assert strata.ci_low <= strata.value <= strata.ci_high
        table = sis.sensitivity(CELLS, coefficients=["fleiss_kappa", "krippendorff_alpha"], ci=cfg)
        assert table["ci_low"].notna().all()
        multi = sis.cross_kappa(CELLS, CELLS, ci=cfg)
        assert np.isfinite(multi.ci_low)
        paired = sis.compare(res, sis.gwet_ac1(CELLS, ci=cfg))  # one draw of its weights for both
        assert np.isfinite(paired.ci_low) and paired.ci_low <= paired.difference <= paired.ci_high
    finally:
        del BOOTSTRAP_DESIGNS["half"]
    with pytest.raises(ValueError, match="design"):
        sis.Bootstrap(design="half")


#: the toy estimator's own module, as it would stand in equivalence/: a class with a name, symmetry,
#: constructor parameters that enter its fingerprint and spec, input checks and a vectorised score
TOY_ESTIMATOR = """
import numpy as np
from softirr_stats.equivalence import BaseEstimator


class ToyPrefix(BaseEstimator):
    \"\"\"Share of the first ``n`` characters two labels have in common, position by position.\"\"\"

    name = "toy_prefix"
    symmetric = True

    def __init__(self, n: int = 3) -> None:
        if not isinstance(n, int) or n < 1:
            raise ValueError(f"n must be a positive integer; got {n!r}")
        self.n = n

    def _settings(self):
        return {"n": self.n}

    def _score(self, a, b):
        n = self.n
        pa = np.array([s[:n].ljust(n, chr(0)) for s in map(str, a)], dtype=f"<U{n}").view("<U1").reshape(-1, n)
        pb = np.array([s[:n].ljust(n, chr(0)) for s in map(str, b)], dtype=f"<U{n}").view("<U1").reshape(-1, n)
        return (pa == pb).mean(axis=1)
"""
TOY_ESTIMATOR_SETUP = f"""
import sys, types
toy_module = types.ModuleType("softirr_toy_measure")
exec({TOY_ESTIMATOR!r}, toy_module.__dict__)
sys.modules["softirr_toy_measure"] = toy_module
from softirr_stats.equivalence import MEASURES
MEASURES["toy_prefix"] = "softirr_toy_measure:ToyPrefix"
"""


def test_an_estimator_with_a_short_name_is_its_class_and_one_table_entry(tmp_path):
    from softirr_stats.analysis import measure_names, resolve_measures
    from softirr_stats.cli import _options
    from softirr_stats.equivalence import (
        MEASURES,
        Cached,
        estimator_from_name,
        from_spec,
        to_spec,
    )

    # the one table, in the file the footprint names (estimator_from_name and the spec allow-list read it)
    assert "\nMEASURES: dict[str, str] = {" in (PKG / "equivalence" / "_measures.py").read_text()
    space: dict = {}
    exec(TOY_ESTIMATOR_SETUP, space)  # noqa: S102 - its module, and its one table entry
    ToyPrefix = sys.modules["softirr_toy_measure"].ToyPrefix
    try:
        est = estimator_from_name("toy_prefix")
        assert type(est) is ToyPrefix and est.n == 3
        assert type(resolve_measures(["toy_prefix"], sis.Annotations.from_wide(CELLS))[0][1]) is ToyPrefix
        assert "toy_prefix" in measure_names() and "toy_prefix" in _options._lists()["measures"]
        # the engine's contract on it: equal labels 1, scores in [0, 1]
        assert est(["abcd", "abx", "zzz"], ["abcd", "abc", "abc"]).tolist() == [1.0, pytest.approx(2 / 3), 0.0]
        with pytest.raises(ValueError, match="n must be"):
            ToyPrefix(n=0)
        want = sis.fleiss_kappa(CELLS, similarity=ToyPrefix()).value
        assert sis.fleiss_kappa(CELLS, similarity="toy_prefix").value == pytest.approx(want, rel=1e-12)
        table = sis.sensitivity(CELLS, coefficients=["fleiss_kappa"], similarities=["toy_prefix"])
        assert table["value"].iloc[0] == pytest.approx(want, rel=1e-12)
        # its parameters enter its fingerprint (the cache key) and its spec
        assert ToyPrefix(n=2).fingerprint != ToyPrefix(n=3).fingerprint
        spec = to_spec(ToyPrefix(n=2))
        back = from_spec(spec)  # a class with a short name is on the spec allow-list
        assert type(back) is ToyPrefix and back.n == 2
        cached = Cached(ToyPrefix(n=2), tmp_path / "pairs.sqlite")
        assert cached(["abcd"], ["axcd"]).tolist() == [0.5] and cached.n_misses == 1
        again = Cached(ToyPrefix(n=2), tmp_path / "pairs.sqlite")  # read back under its fingerprint
        assert again(["abcd"], ["axcd"]).tolist() == [0.5] and (again.n_hits, again.n_misses) == (1, 0)
        other = Cached(ToyPrefix(n=3), tmp_path / "pairs.sqlite")  # another setting: another key
        assert other(["abcd"], ["axcd"]).tolist() == [pytest.approx(2 / 3)] and other.n_hits == 0
    finally:
        del MEASURES["toy_prefix"]
        del sys.modules["softirr_toy_measure"]
    with pytest.raises(ValueError, match="similarity must be one of"):
        estimator_from_name("toy_prefix")
    with pytest.raises(ValueError, match="allow"):
        from_spec(spec)
    # a fresh process with the entry in the table: --similarity offers and uses it
    out = _fresh(TOY_ESTIMATOR_SETUP, ["agree", str(_write_cells(tmp_path)), "-c", "fleiss_kappa",
                                       "--similarity", "toy_prefix", "--format", "json"], tmp_path)
    assert out.returncode == 0, out.stderr
    assert "toy_prefix" in out.stdout and f"{want:.4f}"[:5] in out.stdout
    helped = _fresh(TOY_ESTIMATOR_SETUP, ["agree", "--help"], tmp_path)
    assert "toy_prefix" in helped.stdout


#: the toy command's own module, as it would stand in cli/: NAME, EPILOG and a command reading
#: FILE with the shared reader options, checking its own option, printing through the shared output
TOY_COMMAND = """
from pathlib import Path
from typing import Annotated

import typer

from softirr_stats.cli._errors import fail
from softirr_stats.cli._options import (
    FormatOpt, InputFormatOpt, ItemOpt, LabelOpt, NaOpt, RaterOpt, ReaderOpt, check_format, read, reader_options,
)
from softirr_stats.cli._output import emit

NAME = "toy"
EPILOG = "Columns: rater, ratings."


def command(
    file: Annotated[list[Path], typer.Argument(help="annotation file(s)")],
    least: Annotated[int, typer.Option(help="only raters with at least this many ratings")] = 0,
    item: ItemOpt = "item", rater: RaterOpt = "rater", label: LabelOpt = "label", na: NaOpt = None,
    input_format: InputFormatOpt = None, reader_option: ReaderOpt = None, fmt: FormatOpt = "table",
) -> None:
    \"\"\"How many ratings each rater gave.\"\"\"
    check_format(fmt)
    if least < 0:
        fail(f"--least must be >= 0; got {least}")
    ann, notes = read(file, item, rater, label, na, input_format, reader_options(extra=reader_option))
    counts = (ann.codes >= 0).sum(axis=0)
    rows = [{"rater": str(r), "ratings": int(c)} for r, c in zip(ann.raters, counts) if c >= least]
    emit(rows, ["rater", "ratings"], fmt, "ratings per rater")
"""
TOY_COMMAND_SETUP = f"""
import sys, types
toy = types.ModuleType("softirr_toy_command")
exec({TOY_COMMAND!r}, toy.__dict__)
from softirr_stats import cli
cli.register(toy)  # what its entry in COMMANDS does at import
"""


def test_a_cli_command_is_one_module_and_one_registration(tmp_path, capsys):
    from softirr_stats import cli

    assert _where(cli.register) == "cli/__init__.py"
    assert all(_where(m).startswith("cli/") and hasattr(m, "command") for m in cli.COMMANDS)
    assert all(isinstance(m.NAME, str) and hasattr(m, "EPILOG") for m in cli.COMMANDS)
    toy = types.ModuleType("softirr_toy_command")  # the command's own module
    exec(TOY_COMMAND, toy.__dict__)  # noqa: S102
    cli.register(toy)  # what its entry in COMMANDS does at import
    path = _write_cells(tmp_path)
    try:
        with pytest.raises(SystemExit) as ex:
            cli.main(["--help"])
        assert ex.value.code == 0 and "toy" in capsys.readouterr().out
        with pytest.raises(SystemExit) as ex:
            cli.main(["toy", "--help"])
        helped = capsys.readouterr().out
        assert ex.value.code == 0 and "Columns: rater, ratings." in helped and "--input-format" in helped
        assert "Exit status" in helped or "exit" in helped.lower()  # the shared exit-status epilog
        with pytest.raises(SystemExit) as ex:
            cli.main(["toy", str(path), "--format", "json"])
        assert ex.value.code == 0
        assert {r["rater"]: r["ratings"] for r in json.loads(capsys.readouterr().out)["results"]} == \
            {"r0": 6, "r1": 6, "r2": 6}
        for argv, fragment in ((["toy", str(path), "--least", "-1"], "error: --least must be >= 0; got -1\n"),
                               (["toy", str(tmp_path / "missing.csv")], "does not exist"),
                               (["toy", str(path), "--item", "doc"], "doc")):
            with pytest.raises(SystemExit) as ex:  # inside the error boundary: one line, exit 2
                cli.main(argv)
            err = capsys.readouterr().err
            assert ex.value.code == 2 and err.startswith("error: ") and err.count("\n") == 1 and fragment in err
    finally:
        cli.app.registered_commands[:] = [c for c in cli.app.registered_commands if c.name != "toy"]
    assert "toy" not in {c.name for c in cli.app.registered_commands}


#: the toy reader's own module, as it would stand in data/_readers/: a reader function with its
#: options (an encoding, a choice), its errors naming file and line, and notes for the result
TOY_READER = """
from pathlib import Path

from softirr_stats.data._readers._common import Rating, Where, read_text, text_lines


def read_toy_pipes(path: Path, *, encoding: str = "utf-8", case: str = "keep"):
    \"\"\"Ratings from a file of ``item|rater|label`` lines; ``case="lower"`` lower-cases the labels.\"\"\"
    if case not in ("keep", "lower"):
        raise ValueError(f"case must be 'keep' or 'lower'; got {case!r}")
    ratings = []
    for n, line in enumerate(text_lines(read_text(path, encoding)), start=1):
        if not line.strip():
            continue
        parts = line.split("|")
        if len(parts) != 3:
            raise ValueError(f"{path.name}, line {n}: expected item|rater|label; got {line!r}")
        item, rater, label = (p.strip() for p in parts)
        ratings.append(Rating(item, rater, label.lower() if case == "lower" else label, Where(path.name, n, "line")))
    return ratings, [f"{path.name}: read {len(ratings)} pipe-separated ratings"]
"""
TOY_READER_SETUP = f"""
import sys, types
toy = types.ModuleType("softirr_stats.data._readers.toy_pipes")
exec({TOY_READER!r}, toy.__dict__)
sys.modules[toy.__name__] = toy
import softirr_stats.data as data
data.EXPORT_FORMATS["toy-pipes"] = ("toy_pipes", "read_toy_pipes")
data.INPUT_FORMATS = (*data.TABLE_FORMATS, *data.EXPORT_FORMATS)  # as its line computes it at import
"""


def test_a_reader_is_one_module_and_one_table_entry(tmp_path, monkeypatch):
    import softirr_stats.data as data
    from softirr_stats.data import _io
    from softirr_stats.data._readers import reader_options

    assert _where(_io.read_annotations) == "data/_io.py"  # the readers' one entry point reads the table
    path = tmp_path / "ratings.pipes"
    path.write_text("".join(f"{i}|r{j}|{lab.upper()}\n" for i, row in enumerate(CELLS) for j, lab in enumerate(row)))
    monkeypatch.setitem(sys.modules, "softirr_stats.data._readers.toy_pipes", types.ModuleType("toy_pipes"))
    exec(TOY_READER, sys.modules["softirr_stats.data._readers.toy_pipes"].__dict__)  # noqa: S102
    monkeypatch.setitem(data.EXPORT_FORMATS, "toy-pipes", ("toy_pipes", "read_toy_pipes"))  # the one entry
    assert reader_options("toy-pipes") == {"encoding": "utf-8", "case": "keep"}
    ann = sis.read_annotations(path, format="toy-pipes", case="lower")
    assert tuple(ann.vocabulary) == ("a", "b", "c") and ann.n_items == len(CELLS) and ann.n_raters == 3
    assert ann.read_notes == (f"{path.name}: read 18 pipe-separated ratings",)
    assert sis.fleiss_kappa(ann).value == pytest.approx(sis.fleiss_kappa(CELLS).value, abs=1e-12)
    with pytest.raises(ValueError, match="unknown option.*valid options: \\['encoding', 'case'\\]"):
        sis.read_annotations(path, format="toy-pipes", cases="lower")
    bad = tmp_path / "bad.pipes"
    bad.write_text("1|r0|a\n2|r0\n")
    with pytest.raises(ValueError, match=r"bad.pipes, line 2: expected item\|rater\|label"):
        sis.read_annotations(bad, format="toy-pipes")
    # a fresh process with the entry in the table: --input-format offers it, --reader-option reaches it
    argv = ["agree", str(path), "--input-format", "toy-pipes", "--reader-option", "case=lower", "-c",
            "fleiss_kappa", "--format", "json"]
    out = _fresh(TOY_READER_SETUP, argv, tmp_path)
    assert out.returncode == 0, out.stderr
    assert f"{sis.fleiss_kappa(CELLS).value:.4f}"[:5] in out.stdout
    helped = _fresh(TOY_READER_SETUP, ["agree", "--help"], tmp_path)
    assert "toy-pipes" in helped.stdout

