"""``softirr sensitivity``: the options it shares with ``softirr agree`` give the Python API's numbers."""

import json

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

import softirr_stats as sis
from softirr_stats.analysis import coefficient_registry
from softirr_stats.cli import app

runner = CliRunner()
KEYS = ("value", "observed", "expected", "ci_low", "ci_high")


@pytest.fixture
def scores_csv(tmp_path):
    rng = np.random.default_rng(0)
    truth = rng.integers(1, 6, 30)
    rows = [(f"i{i}", r, int(np.clip(t + rng.integers(-1, 2), 1, 5))) for i, t in enumerate(truth) for r in "abc"]
    path = tmp_path / "scores.csv"
    pd.DataFrame(rows, columns=["item", "rater", "label"]).to_csv(path, index=False)
    return path


def _rows(res):
    assert res.exit_code == 0, res.output
    return {(r["coefficient"], r["similarity"]): r for r in json.loads(res.stdout)["results"]}


@pytest.mark.filterwarnings("ignore::softirr_stats.DegenerateWarning")
def test_distance_options_reach_the_distance_rows_as_in_python(scores_csv):
    # sensitivity -c distance_sigma took the distance coefficients' default options only (no --distance-option)
    options = ["--distance-option", "threshold=0.2", "--distance-option", "kde=false",
               "--distance-option", "expected_pairs=400"]
    res = runner.invoke(app, ["sensitivity", str(scores_csv), "-c", "distance_sigma,distance_ks", "-m", "exact,linear",
                              "--bootstrap", "100", "--seed", "3", *options, "-f", "json"])
    rows = _rows(res)
    assert len(rows) == 4
    ann = sis.read_annotations(scores_csv)
    ci = sis.Bootstrap(n=100, seed=3)
    given = {"distance_sigma": dict(threshold=0.2, kde=False, expected_pairs=400, seed=3),
             "distance_ks": dict(expected_pairs=400, seed=3)}
    table = sis.sensitivity(ann, coefficients=["distance_sigma", "distance_ks"], similarities=[None, "linear"], ci=ci,
                            registry=coefficient_registry(given))
    for rec in table.to_dict("records"):
        row = rows[(rec["coefficient"], "exact" if rec["similarity"] == "identity" else rec["similarity"])]
        sim = None if rec["similarity"] == "identity" else rec["similarity"]
        py = sis.distance_agreement(ann, similarity=sim, method=rec["coefficient"].split("_")[1], ci=ci,
                                    **given[rec["coefficient"]])
        for key in KEYS:
            assert row[key] == pytest.approx(rec[key], abs=1e-12) and row[key] == pytest.approx(
                getattr(py, key), abs=1e-12), (rec["coefficient"], rec["similarity"], key)
    default = sis.distance_agreement(ann, similarity="linear", method="sigma")
    assert abs(rows[("distance_sigma", "linear")]["value"] - default.value) > 0.01  # the options changed it


@pytest.mark.parametrize(("args", "message"), [
    (["-c", "distance_ks", "--distance-option", "threshold=0.1"], "is an option of -c distance_sigma"),
    (["-c", "fleiss_kappa", "--distance-option", "expected_pairs=100"], "none is requested (-c fleiss_kappa)"),
    (["--distance-option", "expected_pairs=100"], "none is requested (the default coefficients, without -c)"),
    (["-c", "distance_sigma", "--distance-option", "threshold=3"], "--distance-option: threshold must be"),
    (["-c", "distance_sigma", "--distance-option", "seed=3"], "the sample's seed is --seed"),
    (["-c", "distance_sigma", "--distance-option", "bandwidth"], "takes KEY=VALUE"),
])
def test_distance_options_refused_naming_the_flag(scores_csv, args, message):
    res = runner.invoke(app, ["sensitivity", str(scores_csv), "--bootstrap", "0", *args])
    assert res.exit_code == 2 and message in " ".join(res.output.split()), res.output


def test_agree_and_sensitivity_share_one_definition_of_the_option():
    from softirr_stats.cli import _options, agree, sensitivity

    assert agree.distance_registry is sensitivity.distance_registry is _options.distance_registry
    assert agree.DistanceOpt is sensitivity.DistanceOpt is _options.DistanceOpt


@pytest.fixture
def ml_jsonl(tmp_path):
    sets = [(["a", "b"], ["a"], ["a", "b"]), (["b"], ["b"], ["b", "c"]), (["a"], [], ["a"]), (["c"], ["c"], ["b"]),
            (["a", "c"], ["a"], ["a", "c"])] * 3
    path = tmp_path / "ml.jsonl"
    rows = [{"item": f"d{i}", "rater": r, "label": lab} for i, labs in enumerate(sets)
            for r, lab in zip("pqr", labs, strict=True)]
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    return path


@pytest.mark.filterwarnings("ignore::softirr_stats.DegenerateWarning", "ignore::softirr_stats.FewUnitsWarning")
def test_categories_of_set_labels_give_the_python_rows(ml_jsonl):
    # the command line declared --categories as the label universe at reading; Python's sensitivity(categories=)
    # refused it for set-valued labels
    # (a fleiss_kappa row beside them took the flag and ignored it: a coefficient other than the multilabel ones
    # is refused with --categories on sets, tests/cli/test_categories_and_gold_n.py)
    universe = ["c", "a", "d", "b"]
    names = ["multilabel_fleiss", "multilabel_ac1", "multilabel_pabak"]
    res = runner.invoke(app, ["sensitivity", str(ml_jsonl), "-c", ",".join(names), "--bootstrap", "200",
                              "--categories", ",".join(universe), "-f", "json"])
    rows = {c: r for (c, _), r in _rows(res).items()}
    ann = sis.read_annotations(ml_jsonl)
    table = sis.sensitivity(ann, coefficients=names, categories=universe, ci=sis.Bootstrap(n=200, seed=0))
    assert list(table["coefficient"]) == names
    for rec in table.to_dict("records"):
        for key in KEYS:
            assert rows[rec["coefficient"]][key] == pytest.approx(rec[key], abs=1e-12), (rec["coefficient"], key)
    py = sis.multilabel_agreement(ann, baseline="ac1", labels=universe)
    assert rows["multilabel_ac1"]["value"] == pytest.approx(py.value, abs=1e-12)


@pytest.mark.parametrize("command", ["agree", "sensitivity"])
def test_a_row_that_did_not_run_reports_no_items_used(scores_csv, command):
    # the skipped cohen_kappa row (3 raters) reported all 30 items in n_items
    res = runner.invoke(app, [command, str(scores_csv), "-c", "cohen_kappa,fleiss_kappa", "--bootstrap", "0",
                              "--keep-going", "-f", "json"])
    got = json.loads(res.stdout)
    rows = {r["coefficient"]: r for r in got["results"]}
    assert rows["cohen_kappa"]["value"] is None and rows["cohen_kappa"]["n_items"] == 0
    assert rows["fleiss_kappa"]["n_items"] == 30
    assert "30 items, 3 raters" in got["title"] and "used)" not in got["title"]


@pytest.mark.parametrize("command", ["agree", "sensitivity"])
@pytest.mark.filterwarnings("ignore::softirr_stats.DegenerateWarning")
def test_declared_categories_are_said_not_to_change_the_icc(scores_csv, command):
    # --categories had no effect on the icc2 row and said nothing there
    args = [command, str(scores_csv), "-c", "icc2,brennan_prediger", "--bootstrap", "0", "-f", "json"]
    plain = {r["coefficient"]: r for r in json.loads(runner.invoke(app, args).stdout)["results"]}
    res = runner.invoke(app, [*args, "--categories", "1,2,3,4,5,6"])
    rows = {r["coefficient"]: r for r in json.loads(res.stdout)["results"]}
    assert rows["icc2"]["value"] == plain["icc2"]["value"]
    assert "icc2 is a statistic of the numeric scores: the declared categories (6) do not change it" in \
        rows["icc2"]["warnings"]
    assert rows["brennan_prediger"]["value"] != plain["brennan_prediger"]["value"]  # the unused 6 counts there
    assert not any("declared categories" in w for w in rows["brennan_prediger"]["warnings"])


@pytest.mark.filterwarnings("ignore::softirr_stats.DegenerateWarning")
@pytest.mark.parametrize("method", ["permutation", "analytic"])
def test_test_gives_the_columns_and_notes_of_agree_test(scores_csv, method):
    # sensitivity had no --test: ICC's F test (and the coefficients' tests of agree --test) could not be reached
    args = [str(scores_csv), "-c", "icc2,fleiss_kappa,gwet_ac1", "-m", "exact,linear", "--bootstrap", "0",
            "--test", "--test-method", method, "--alternative", "greater", "--seed", "2", "-f", "json"]
    agree, sens = (json.loads(runner.invoke(app, [c, *args]).stdout) for c in ("agree", "sensitivity"))
    rows = _rows_of(sens)
    assert rows.keys() == _rows_of(agree).keys() and len(rows) == 6  # icc2 x linear: a skipped row
    for key, row in _rows_of(agree).items():
        for col in ("value", "z", "p_value_greater", "test", "benchmark", "warnings"):
            assert rows[key].get(col) == row.get(col), (key, col)
    icc = rows[("icc2", "exact")]
    ann = sis.read_annotations(scores_csv)
    f_test = sis.icc(ann, form="ICC2")
    assert icc["p_value_greater"] == pytest.approx(f_test.p_value, abs=1e-15) and icc["test"].startswith("F test")
    assert rows[("fleiss_kappa", "exact")]["z"] is not None and rows[("gwet_ac1", "linear")]["z"] is not None
    for key in ("test", "alternative", "null"):
        assert sens["meta"][key] == agree["meta"][key]
    assert sens["meta"]["test"] == method and sens["meta"]["alternative"] == "greater"
    notes = [n for n in agree["meta"]["warnings"] if n.startswith("p (greater)")]
    assert notes and all(n in sens["meta"]["warnings"] for n in notes)


def _rows_of(payload):
    return {(r["coefficient"], r["similarity"]): r for r in payload["results"]}


def test_test_options_are_refused_as_agree_refuses_them(scores_csv):
    for extra, message in ((["--test-method", "analytic"], "add --test"),
                           (["--test", "--null", "0.3"], "applies to --test-method analytic only"),
                           (["--test", "--test-method", "exact"], "--test-method")):
        res = runner.invoke(app, ["sensitivity", str(scores_csv), "--bootstrap", "0", *extra])
        assert res.exit_code == 2 and message in " ".join(res.output.split()), (extra, res.output)
    from softirr_stats.cli import _grid, agree, sensitivity

    for name in ("TestOpt", "TestMethodOpt", "AlternativeOpt", "NullOpt", "add_tests"):
        assert getattr(agree, name) is getattr(sensitivity, name) is getattr(_grid, name)
