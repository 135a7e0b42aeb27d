"""The files a contributor touches for each kind of change, counted.

Each test adds a toy of one kind through the one place that kind is declared (a record, a table
entry, a registration), checks that every consumer of the library sees it, removes it, and holds
``docs/architecture.md``'s table "Where a change goes" to the same files and count. A kind whose
consumers needed a second place would fail here: the toy is added only through its hook.
"""

import inspect
import re
import sys
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
    "estimator": ("an estimator with a short name", {"equivalence/<its module>.py", "equivalence/_label_similarity.py"}),
    "command": ("a CLI command", {"cli/<its module>.py", "cli/__init__.py"}),
}
#: Done-when of issue 19: at most this many library files per kind
TARGET = {"coefficient": 1, "design": 1, "estimator": 2, "command": 2}


def _where(obj: object) -> str:
    """The library file (relative to softirr_stats/) that defines ``obj``."""
    return Path(inspect.getsourcefile(inspect.unwrap(obj))).resolve().relative_to(PKG).as_posix()


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


def test_a_coefficient_on_an_existing_family_is_one_record():
    from softirr_stats.api import _coefficients
    from softirr_stats.agreement import COEFFICIENTS, Coefficient, register
    from softirr_stats.agreement._registry import coefficient_table_markdown, public_exports
    from softirr_stats.analysis import coefficient_names, coefficient_registry
    from softirr_stats.cli import _options

    assert {_where(Coefficient), _where(register)} == FOOTPRINT["coefficient"][1]
    toy = Coefficient("toy_pooled", "pooled", "Scott-Fleiss agreement under another name.", default_rank=None)
    with register(toy):  # the one hook: what a record in _registry.py's table does at import
        want = sis.fleiss_kappa(CELLS, ci="analytic")
        got = _coefficients.toy_pooled(CELLS, ci="analytic")
        assert (got.value, got.se) == pytest.approx((want.value, want.se), rel=1e-12)
        assert got.coefficient == "toy_pooled"
        boot = _coefficients.toy_pooled(CELLS, ci=sis.Bootstrap(n=50, seed=3))
        assert boot.ci_low == pytest.approx(sis.fleiss_kappa(CELLS, ci=sis.Bootstrap(n=50, seed=3)).ci_low)
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


def _half_design(stat, cfg, strata, start, stop):
    """Toy design: each item kept twice or dropped, with probability 1/2 (weights 0 or 2)."""
    from softirr_stats.uncertainty._bootstrap import unit_weights

    u = unit_weights(stat.n_items, cfg, start, stop, bayesian=True)  # a stream keyed by (seed, replicate)
    return 2.0 * (u > np.log(2.0)), None


def test_a_bootstrap_design_is_one_record():
    from softirr_stats.uncertainty import DESIGNS
    from softirr_stats.uncertainty._bootstrap import BOOTSTRAP_DESIGNS, BootstrapDesign

    assert {_where(BootstrapDesign)} == FOOTPRINT["design"][1]
    assert DESIGNS == tuple(BOOTSTRAP_DESIGNS)  # the public list is read from the records
    BOOTSTRAP_DESIGNS["half"] = BootstrapDesign("half", "items", _half_design, None, strata=False,
                                                description="toy: items kept twice or dropped")
    try:
        cfg = sis.Bootstrap(n=40, design="half", seed=1)
        res = sis.fleiss_kappa(CELLS, ci=cfg)
        assert res.details["bootstrap_design"] == "half" and res.ci_low <= res.value <= res.ci_high
        table = sis.sensitivity(CELLS, coefficients=["fleiss_kappa", "krippendorff_alpha"], ci=cfg)
        assert table["ci_low"].notna().all()
        multi = sis.cross_kappa(CELLS, CELLS, ci=cfg)
        assert np.isfinite(multi.ci_low)
        with pytest.raises(ValueError, match="no jackknife"):  # what the record says it cannot do
            sis.fleiss_kappa(CELLS, ci=sis.Bootstrap(n=40, design="half", method="bca"))
    finally:
        del BOOTSTRAP_DESIGNS["half"]
    with pytest.raises(ValueError, match="design"):
        sis.Bootstrap(design="half")


def test_an_estimator_with_a_short_name_is_its_class_and_one_table_entry():
    from softirr_stats.analysis import measure_names, resolve_measures
    from softirr_stats.cli import _options
    from softirr_stats.equivalence import (
        MEASURES,
        Levenshtein,
        estimator_from_name,
        from_spec,
        to_spec,
    )

    assert _where(estimator_from_name) in FOOTPRINT["estimator"][1]  # it reads MEASURES, defined beside it
    toy_module = types.ModuleType("softirr_toy_measure")  # the estimator's own module

    class ToyEdit(Levenshtein):
        """Levenshtein under another name."""

    ToyEdit.__module__, ToyEdit.__qualname__ = toy_module.__name__, "ToyEdit"
    toy_module.ToyEdit = ToyEdit
    sys.modules[toy_module.__name__] = toy_module
    MEASURES["toy_edit"] = "softirr_toy_measure:ToyEdit"  # the one table entry
    try:
        assert type(estimator_from_name("toy_edit")) is ToyEdit
        assert type(resolve_measures(["toy_edit"], sis.Annotations.from_wide(CELLS))[0][1]) is ToyEdit
        assert "toy_edit" in measure_names() and "toy_edit" in _options._lists()["measures"]
        want = sis.fleiss_kappa(CELLS, similarity="levenshtein").value
        assert sis.fleiss_kappa(CELLS, similarity="toy_edit").value == pytest.approx(want, rel=1e-12)
        table = sis.sensitivity(CELLS, coefficients=["fleiss_kappa"], similarities=["toy_edit"])
        assert table["value"].iloc[0] == pytest.approx(want, rel=1e-12)
        spec = to_spec(ToyEdit())
        assert type(from_spec(spec)) is ToyEdit  # a class with a short name is on the spec allow-list
    finally:
        del MEASURES["toy_edit"]
        del sys.modules[toy_module.__name__]
    with pytest.raises(ValueError, match="similarity must be one of"):
        estimator_from_name("toy_edit")
    with pytest.raises(ValueError, match="allow"):
        from_spec(spec)


def test_a_cli_command_is_one_module_and_one_registration(capsys):
    from softirr_stats import cli

    assert _where(cli.register) == "cli/__init__.py"
    assert all(_where(m).startswith("cli/") and hasattr(m, "command") for m in cli.COMMANDS)
    toy = types.ModuleType("toy")  # the command's own module
    toy.NAME, toy.EPILOG = "toy", "Columns: none."

    def command(count: int = 1) -> None:
        """A toy command."""
        if count < 0:
            raise ValueError("count must be >= 0")
        print("toy " * count)

    toy.command = command
    cli.register(toy)  # what its entry in COMMANDS does at import
    try:
        with pytest.raises(SystemExit) as ex:
            cli.main(["--help"])
        assert ex.value.code == 0 and "toy" in capsys.readouterr().out
        with pytest.raises(SystemExit) as ex:
            cli.main(["toy", "--count", "2"])
        assert ex.value.code == 0 and "toy toy" in capsys.readouterr().out
        with pytest.raises(SystemExit) as ex:
            cli.main(["toy", "--count", "-1"])
        assert ex.value.code == 2 and capsys.readouterr().err == "error: count must be >= 0\n"
    finally:
        cli.app.registered_commands[:] = [c for c in cli.app.registered_commands if c.name != "toy"]
    assert "toy" not in {c.name for c in cli.app.registered_commands}
