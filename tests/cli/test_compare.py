"""``softirr compare`` from the real entry point, and the report's Comparisons section."""

import io
import json

import numpy as np
import pandas as pd
import pytest

import softirr_stats as sis
from softirr_stats.comparison import FewHumansWarning

pytestmark = pytest.mark.filterwarnings("ignore::softirr_stats.DegenerateWarning")


@pytest.fixture()
def files(tmp_path):
    rng = np.random.default_rng(0)
    n = 70
    truth = rng.integers(0, 3, n)
    rows = []
    for r, p in [("h1", 0.7), ("h2", 0.7), ("h3", 0.6), ("h4", 0.6), ("llm", 0.8)]:
        lab = np.where(rng.random(n) < p, truth, rng.integers(0, 3, n))
        rows += [(f"d{i}", r, ["cat", "dog", "cow"][k]) for i, k in enumerate(lab)]
    one = tmp_path / "round1.csv"
    pd.DataFrame(rows, columns=["item", "rater", "label"]).to_csv(one, index=False)
    two = tmp_path / "round2.csv"
    df = pd.DataFrame(rows, columns=["item", "rater", "label"]).sample(frac=1.0, random_state=1)
    df.assign(item=df["item"].str.replace("d", "e")).to_csv(two, index=False)
    return one, two


def test_two_files_equal_the_python_api(run_cli, files, tmp_path):
    one, two = files
    code, out, err = run_cli("compare", str(one), str(two), "-c", "fleiss_kappa", "--bootstrap", "300", "-f",
                             "json", "--json", str(tmp_path / "c.json"))
    assert code == 0, err
    row = json.loads(out)["results"][0]
    a = sis.fleiss_kappa(sis.read_annotations(one))
    b = sis.fleiss_kappa(sis.read_annotations(two))
    py = sis.compare(a, b, ci=sis.Bootstrap(n=300, seed=0), labels=("round1.csv", "round2.csv"))
    assert row["difference"] == pytest.approx(py.difference, abs=1e-14) == 0.0
    assert (row["ci_low"], row["ci_high"]) == pytest.approx((py.ci_low, py.ci_high), abs=1e-12)
    assert row["method"] == "independent jackknife-t" == py.method and row["n_common"] == 0
    assert (row["se"], row["p_value"]) == pytest.approx((py.se, py.p_value), abs=1e-12)
    assert json.loads((tmp_path / "c.json").read_text())["results"][0]["difference"] == row["difference"]


def test_two_rounds_by_the_same_raters_on_the_same_items(run_cli, files, tmp_path):
    # the files were merged to choose the measures, and the same rater on the same item in both was refused as a
    # clash; the default method was the percentile where the Python API's default is auto (the jackknife-t here)
    one, _ = files
    df = pd.read_csv(one)
    rng = np.random.default_rng(5)
    flip = rng.random(len(df)) < 0.2
    df.loc[flip, "label"] = rng.choice(["cat", "dog", "cow"], int(flip.sum()))
    two = tmp_path / "round2_same.csv"
    df.to_csv(two, index=False)
    code, out, err = run_cli("compare", str(one), str(two), "-c", "krippendorff_alpha", "--bootstrap", "200",
                             "-f", "json")
    assert code == 0, err
    row = json.loads(out)["results"][0]
    a = sis.krippendorff_alpha(sis.read_annotations(one))
    b = sis.krippendorff_alpha(sis.read_annotations(two))
    py = sis.compare(a, b, ci=sis.Bootstrap(n=200, seed=0))
    assert row["n_common"] == 70 and row["method"] == "paired jackknife-t" == py.method
    assert (row["difference"], row["ci_low"], row["ci_high"], row["p_value"]) == pytest.approx(
        (py.difference, py.ci_low, py.ci_high, py.p_value), abs=1e-12)


@pytest.mark.parametrize("fmt", ["table", "csv", "json", "markdown", "latex"])
def test_every_mode_in_every_format(run_cli, files, fmt):
    one, _ = files
    b = ["--bootstrap", "100"]  # the candidate test and the analytic interval take no bootstrap
    for args in (["--groups", "h1,h2;h3,h4", "--permutations", "50", *b], ["--candidate", "llm"],
                 ["--reference", "h1", "-c", "cohen_kappa", *b], ["--leave-one-out", "-c", "fleiss_kappa", *b],
                 ["-m", "exact", "-m", "levenshtein", *b], ["-c", "fleiss_kappa", "-c", "gwet_ac1", "--analytic"]):
        code, out, err = run_cli("compare", str(one), *args, "-f", fmt)
        assert code == 0, (args, err)
        assert out.strip(), args


def test_bad_options_are_one_error_line(run_cli, files):
    one, two = files
    code, _, err = run_cli("compare", str(one), "--candidate", "gpt")
    assert code == 2 and err.count("error:") == 1 and "--candidate 'gpt' is not a rater" in err
    code, _, err = run_cli("compare", str(one), str(two), "--reference", "h1")
    assert code == 2 and "give exactly one of" in err
    code, _, err = run_cli("compare", str(one), "--groups", "h1,h2")
    assert code == 2 and "two groups separated by ';'" in err
    code, _, err = run_cli("compare", str(one))
    assert code == 2 and "give exactly one of" in err


def test_groups_name_raters_whose_names_hold_a_comma_or_a_semicolon_in_double_quotes(run_cli, tmp_path):
    # --groups split on ',' and ';' with no way around it: a rater named "Smith, J" could not be named
    rng = np.random.default_rng(3)
    names = ["Smith, J", "Lee", 'Kim; "K"', "Park"]
    rows = [(f"d{i}", r, ["x", "y", "z"][rng.integers(3)]) for i in range(40) for r in names]
    path = tmp_path / "names.csv"
    pd.DataFrame(rows, columns=["item", "rater", "label"]).to_csv(path, index=False)
    ann = sis.read_annotations(path)
    py = sis.compare_groups(ann, ["Smith, J", "Lee"], ['Kim; "K"', "Park"], coefficient="fleiss_kappa",
                            ci=sis.Bootstrap(n=100))
    spec = '"Smith, J", Lee; "Kim; ""K""",Park'
    d = _cmp_json(run_cli, str(path), "--groups", spec, "-c", "fleiss_kappa", "--bootstrap", "100")
    _same_comparison(d["results"][0], py)
    # unquoted, the name is split, and the error says how to name it
    code, _, err = run_cli("compare", str(path), "--groups", "Smith, J,Lee;Park", "--bootstrap", "100")
    assert code == 2 and "['Smith', 'J'] are not in the file" in err and 'double quotes' in err, err
    code, _, err = run_cli("compare", str(path), "--groups", '"Smith, J,Lee;Park', "--bootstrap", "100")
    assert code == 2 and "closing quote" in err, err


def test_groups_parse_as_before_without_quotes():
    from softirr_stats.cli.compare import parse_groups

    raters = ("a", "b", "c", 'd"e', "f g")
    assert parse_groups(" a , b ;c,, d\"e ", raters) == (["a", "b"], ["c", 'd"e'])
    assert parse_groups('a;"f g"', raters) == (["a"], ["f g"])


def test_report_has_a_comparisons_section(files):
    one, _ = files
    ann = sis.read_annotations(one)
    c = sis.compare_groups(ann, ["h1", "h2"], ["h3", "h4"], ci=sis.Bootstrap(n=100))
    html = sis.reporting.build_report(ann, comparisons=[c])
    assert 'id="comparisons"' in html and "difference of each comparison" in html
    assert 'id="comparisons"' not in sis.reporting.build_report(ann)


def test_bootstrap_0_is_refused_where_the_answer_is_an_interval(run_cli, files):
    # --bootstrap 0 made no interval request, which compare() reads as its default Bootstrap(): 2000 replicates,
    # while meta.bootstrap said 0
    one, two = files
    for args in (["-c", "fleiss_kappa,gwet_ac1"], ["--groups", "h1,h2;h3,h4"],
                 ["--groups", "h1,h2;h3,h4", "--permutations", "10"], [str(two)]):
        code, out, err = run_cli("compare", str(one), *args, "--bootstrap", "0")
        assert code == 2 and out == "", (args, err)
        assert "--bootstrap 0 gives no interval" in err and "--bootstrap N" in err and "--analytic" in err, args
    # per rater, --bootstrap 0 is the point estimates
    code, out, err = run_cli("compare", str(one), "--reference", "h1", "--bootstrap", "0", "-f", "json")
    assert code == 0, err
    d = json.loads(out)
    assert d["results"][0]["ci_low"] is None and "no interval (--bootstrap 0)" in d["title"]
    assert d["meta"]["bootstrap"] == 0 and "design" not in d["meta"]


def test_title_and_meta_state_the_interval_used(run_cli, files):
    one, _ = files
    code, out, err = run_cli("compare", str(one), "-c", "fleiss_kappa,gwet_ac1", "--bootstrap", "200",
                             "--level", "0.9", "--seed", "4", "-f", "json")
    assert code == 0, err
    d = json.loads(out)
    used = d["results"][0]["method"].rpartition(" ")[2].removeprefix("bootstrap-")  # the method auto chose
    assert used == "jackknife-t"  # the title said bca-t, the method auto stands for on one statistic
    assert f"90% {used} intervals, B = 200 bootstrap replicates, design = items, seed = 4" in d["title"]
    assert (d["meta"]["bootstrap"], d["meta"]["level"], d["meta"]["seed"]) == (200, 0.9, 4)
    code, out, err = run_cli("compare", str(one), "-c", "fleiss_kappa,gwet_ac1", "--analytic", "-f", "json")
    d = json.loads(out)
    assert code == 0 and "95% analytic (delta-method) intervals" in d["title"]
    assert d["meta"]["analytic"] is True and not {"bootstrap", "design", "method", "seed"} & set(d["meta"])


def test_reference_uses_the_coefficient_given(run_cli, files):
    # -c was ignored: every rater got Cohen's kappa, whatever was asked
    one, _ = files
    code, out, err = run_cli("compare", str(one), "--reference", "h1", "-c", "gwet_ac1", "--bootstrap", "100",
                             "-f", "json")
    assert code == 0, err
    d = json.loads(out)
    py = sis.against_reference(sis.read_annotations(one), "h1", coefficient="gwet_ac1",
                               ci=sis.Bootstrap(n=100, seed=0))
    assert [r["value"] for r in d["results"]] == pytest.approx(py.by_rater["value"].tolist(), abs=1e-12)
    assert [r["ci_low"] for r in d["results"]] == pytest.approx(py.by_rater["ci_low"].tolist(), abs=1e-12)
    assert "gwet_ac1 of each rater with h1" in d["title"]
    code, out, err = run_cli("compare", str(one), "--reference", "h1", "--bootstrap", "0", "-f", "json")
    assert code == 0 and "cohen_kappa of each rater" in json.loads(out)["title"]  # the Python default
    code, _, err = run_cli("compare", str(one), "--reference", "h1", "-c", "gwet_ac1,cohen_kappa")
    assert code == 2 and "--reference takes one -c" in err


def test_groups_permutations_use_the_seed(run_cli, tmp_path):
    # compare_groups was called without seed=: every --seed gave the same random splits
    rng = np.random.default_rng(3)
    truth = rng.integers(0, 3, 30)
    rows = [(f"i{i}", f"r{r}", "abc"[truth[i] if rng.random() < 0.6 else rng.integers(0, 3)])
            for i in range(30) for r in range(6)]
    path = tmp_path / "six.csv"
    pd.DataFrame(rows, columns=["item", "rater", "label"]).to_csv(path, index=False)
    ann = sis.read_annotations(path)
    for seed in (1, 2):
        code, out, err = run_cli("compare", str(path), "--groups", "r0,r1,r2;r3,r4,r5", "--permutations", "10",
                                 "--bootstrap", "50", "--seed", str(seed), "-f", "json")
        assert code == 0, err
        d = json.loads(out)
        py = sis.compare_groups(ann, ["r0", "r1", "r2"], ["r3", "r4", "r5"], coefficient="krippendorff_alpha",
                                ci=sis.Bootstrap(n=50, seed=seed), permutations=10, seed=seed)
        assert d["meta"]["permutation_p_value"] == py.details["permutation_p_value"]
        assert d["results"][0]["p_value"] == py.p_value and f"seed = {seed}" in d["title"]
    other = sis.compare_groups(ann, ["r0", "r1", "r2"], ["r3", "r4", "r5"], coefficient="krippendorff_alpha",
                               ci=sis.Bootstrap(n=50, seed=2), permutations=10, seed=1)
    assert other.details["permutation_p_value"] != py.details["permutation_p_value"]  # the seed matters here


@pytest.fixture()
def scores(tmp_path):
    rng = np.random.default_rng(2)
    truth = rng.integers(1, 6, 60)
    rows = [(f"i{i}", r, int(np.clip(truth[i] + rng.integers(-1, 2), 1, 5))) for i in range(60)
            for r in ("a", "b", "c", "d")]
    path = tmp_path / "scores.csv"
    pd.DataFrame(rows, columns=["item", "rater", "label"]).to_csv(path, index=False)
    return path


def test_statistics_of_scores_are_compared_or_refused(run_cli, scores):
    # -c icc2,icc3 ended in "internal error (AttributeError: module 'softirr_stats' has no attribute 'icc2')"
    from softirr_stats.api import score_statistic

    code, out, err = run_cli("compare", str(scores), "-c", "icc2,icc3", "--bootstrap", "100", "-f", "json")
    assert code == 0, err
    row = json.loads(out)["results"][0]
    ann = sis.read_annotations(scores)
    py = sis.compare(score_statistic("icc2", ann), score_statistic("icc3", ann), ci=sis.Bootstrap(n=100, seed=0))
    assert (row["difference"], row["ci_low"], row["p_value"]) == pytest.approx((py.difference, py.ci_low, py.p_value))
    assert (row["A"], row["B"]) == ("icc2", "icc3")
    for args, needle in ((["--groups", "a,b;c,d", "-c", "icc2"], "-c icc2 is a statistic of numeric scores"),
                         (["--leave-one-out", "-c", "kendall_w"], "--leave-one-out takes a coefficient of the registry"),
                         (["--reference", "a", "-c", "multilabel_fleiss"], "is a multi-label baseline"),
                         (["-c", "icc2", "-m", "exact", "-m", "levenshtein"], "-c icc2 takes no -m")):
        code, _, err = run_cli("compare", str(scores), *args)
        assert code == 2 and needle in err and "internal error" not in err, (args, err)


@pytest.mark.parametrize(("args", "needle"), [
    (["-c", "fleiss_kappa,gwet_ac1", "--analytic", "--bootstrap", "1"], "--bootstrap is not used with --analytic"),
    (["-c", "fleiss_kappa,gwet_ac1", "--analytic", "--design", "raters"], "--design is not used with --analytic"),
    (["-c", "fleiss_kappa,gwet_ac1", "--analytic", "--method", "basic"], "--method is not used with --analytic"),
    (["-c", "fleiss_kappa,gwet_ac1", "--analytic", "--seed", "3"], "--seed is not used with --analytic"),
    (["-c", "fleiss_kappa,gwet_ac1", "--epsilon", "0.2"], "--epsilon is an option of --candidate"),
    (["-c", "fleiss_kappa,gwet_ac1", "--humans", "h1,h2"], "--humans is an option of --candidate"),
    (["--reference", "h1", "--permutations", "5"], "--permutations is an option of --groups"),
    (["--leave-one-out", "--independent"], "--independent is an option of FILE FILE2"),
    (["--leave-one-out", "--bootstrap", "0", "--design", "raters"], "--design is not used with --bootstrap 0"),
    (["--candidate", "llm", "-c", "fleiss_kappa"], "--coefficient is not used with --candidate"),
    (["--candidate", "llm", "--bootstrap", "100"], "--bootstrap is not used with --candidate"),
    (["--candidate", "llm", "--level", "0.9"], "--level is not used with --candidate"),
    (["--candidate", "llm", "--scoring", "neg_rmse", "-m", "levenshtein"],
     "--similarity is not used with --scoring neg_rmse"),
    (["--candidate", "llm", "--epsilon", "1.5"], "--epsilon must be in [0, 1)"),
    (["--candidate", "llm", "--q", "2"], "--q must lie strictly between 0 and 1"),
    (["--candidate", "llm", "--scoring", "rmse"], "unknown --scoring 'rmse'"),
    (["--candidate", "llm", "--min-items-per-human", "0"], "--min-items-per-human must be a positive number"),
])
def test_options_a_mode_does_not_use_are_refused(run_cli, files, args, needle):
    # each was accepted and silently ignored (--epsilon 1.5 failed as a data error, exit 1)
    one, _ = files
    code, out, err = run_cli("compare", str(one), *args)
    assert code == 2 and out == "", (args, err)
    assert needle in err and err.count("\n") == 1, (args, err)


def test_candidate_scoring_q_and_min_items_reach_the_test(run_cli, scores):
    # numeric ratings were always scored by exact matching (no --scoring), with --q and the minimum fixed
    ann = sis.read_annotations(scores)
    code, out, err = run_cli("compare", str(scores), "--candidate", "d", "-f", "json")
    assert code == 0, err
    exact = json.loads(out)
    assert any("--scoring neg_rmse" in w for w in exact["meta"]["warnings"])
    assert exact["meta"]["omega"] == sis.replacement_test(ann, "d").omega
    code, out, err = run_cli("compare", str(scores), "--candidate", "d", "--scoring", "neg_rmse", "--q", "0.1",
                             "--epsilon", "0.15", "--min-items-per-human", "20", "-f", "json")
    assert code == 0, err
    d = json.loads(out)
    py = sis.replacement_test(ann, "d", scoring="neg_rmse", q=0.1, epsilon=0.15, min_items_per_human=20)
    assert (d["meta"]["omega"], d["meta"]["rho"]) == (py.omega, py.rho)
    assert [r["p_value"] for r in d["results"]] == pytest.approx(py.by_human["p_value"].tolist())
    meta = d["meta"]
    assert (meta["scoring"], meta["q"], meta["epsilon"], meta["min_items_per_human"]) == ("neg_rmse", 0.1, 0.15, 20)
    assert not {"coefficient", "bootstrap", "design", "method", "level", "seed"} & set(meta)
    assert not any("--scoring neg_rmse" in w for w in meta["warnings"])


def test_candidate_options_are_the_functions():
    import inspect

    from softirr_stats.cli import compare as cmd
    from softirr_stats.comparison._replacement import SCORINGS

    assert cmd.SCORINGS == SCORINGS
    py = inspect.signature(sis.replacement_test).parameters
    cli = inspect.signature(cmd.command).parameters
    for name in ("scoring", "epsilon", "q", "min_items_per_human"):
        assert cli[name].default == py[name].default, name


@pytest.fixture()
def study(tmp_path):
    """Six humans and an LLM on 80 items, codes 0-2; human a3 rated only 20 items (too few to be tested)."""
    rng = np.random.default_rng(3)
    t = rng.choice(3, 80, p=[.3, .5, .2])
    wide = pd.DataFrame({r: np.where(rng.random(80) < s, t, rng.choice(3, 80, p=[.3, .5, .2]))
                         for r, s in [("a1", .63), ("a2", .63), ("a3", .63), ("b1", .77), ("b2", .77), ("b3", .77),
                                      ("llm", .8)]})
    long = wide.rename_axis("item").reset_index().melt("item", var_name="rater", value_name="label")
    path = tmp_path / "study.csv"
    long[~((long.rater == "a3") & (long.item >= 20))].to_csv(path, index=False)
    return path


def test_candidate_csv_and_table_say_which_humans_were_tested_and_the_verdict(run_cli, study, monkeypatch):
    # the csv and table left out `tested` (an untested human read as a loss: a3,20,...,False) and no format but
    # JSON carried the verdict
    monkeypatch.setenv("COLUMNS", "160")  # the table's width: every column shown
    with pytest.warns(FewHumansWarning, match=r"humans \['a3'\] have fewer than 30 usable items"):
        py = sis.replacement_test(sis.read_annotations(study), "llm")
    by = py.by_human.set_index("human")
    assert not by.loc["a3", "tested"] and py.passed  # the data are what the test is about
    code, out, err = run_cli("compare", str(study), "--candidate", "llm", "-f", "csv")
    assert code == 0, err
    got = pd.read_csv(io.StringIO(out)).set_index("human")
    assert got["tested"].tolist() == by["tested"].tolist() and not got.loc["a3", "tested"]
    assert got["candidate_wins"].tolist() == by["candidate_wins"].tolist()
    for col in ("candidate_advantage", "human_advantage", "mean_difference", "t", "p_value"):
        np.testing.assert_allclose(got[col], by[col], rtol=0, atol=1e-12, equal_nan=True)
    # the verdict in every row (a csv has no title), as agree's csv carries its level and interval method
    assert (got["candidate"] == "llm").all() and got["passed"].tolist() == [py.passed] * len(got)
    for col in ("omega", "rho", "epsilon", "q"):
        np.testing.assert_allclose(got[col], getattr(py, col), rtol=0, atol=1e-12)
    code, out, err = run_cli("compare", str(study), "--candidate", "llm")  # the table
    assert code == 0, err
    head = next(line for line in out.splitlines() if "human" in line and "p_value" in line)
    assert "tested" in head and "candidate_wins" in head
    names = [c.strip() for c in head.split("┃")]
    a3 = [c.strip() for c in next(line for line in out.splitlines() if " a3 " in line).split("│")]
    assert (a3[names.index("tested")], a3[names.index("candidate_wins")]) == ("False", "False")
    flat = " ".join(out.split())
    assert "[PASSED]" in flat and f"omega = {py.omega:.2f}" in flat and f"rho = {py.rho:.3f}" in flat
    assert "not tested: a3" in flat
    code, out, err = run_cli("compare", str(study), "--candidate", "llm", "-f", "json")
    d = json.loads(out)
    assert (d["meta"]["candidate"], d["meta"]["passed"]) == ("llm", py.passed)
    assert not {"omega", "passed"} & set(d["results"][0])  # JSON keeps the verdict in meta


def _second_round(study, tmp_path):
    """``study`` with a fifth of its labels redrawn: a second round on the same items."""
    df = pd.read_csv(study)
    rng = np.random.default_rng(8)
    flip = rng.random(len(df)) < 0.2
    df.loc[flip, "label"] = rng.integers(0, 3, int(flip.sum()))
    path = tmp_path / "study2.csv"
    df.to_csv(path, index=False)
    return path


_CMP_KEYS = ("value_a", "value_b", "difference", "ci_low", "ci_high", "se", "p_value")


def _cmp_json(run_cli, *args):
    code, out, err = run_cli("compare", *args, "-f", "json")
    assert code == 0, (args, err)
    return json.loads(out)


def _same_comparison(row, py):
    got, want = [row[k] for k in _CMP_KEYS], [getattr(py, k) for k in _CMP_KEYS]
    np.testing.assert_allclose(np.array(got, dtype=float), np.array(want, dtype=float), rtol=0, atol=1e-12)


@pytest.mark.filterwarnings("ignore::softirr_stats.base._validation.SoftIRRWarning")
def test_similarity_takes_agrees_categorical_weights_in_every_mode(run_cli, study, tmp_path):
    # -m took only equivalence measures ("unknown --similarity 'quadratic'") where softirr agree -m and the Python
    # functions' weights= take categorical weights
    ann = sis.read_annotations(study)
    boot = sis.Bootstrap(n=200, seed=0)
    # --candidate: replacement_test(weights=)
    d = _cmp_json(run_cli, str(study), "--candidate", "llm", "-m", "quadratic")
    py = sis.replacement_test(ann, "llm", weights="quadratic")
    assert py.similarity == "quadratic" and d["meta"]["similarity"] == "quadratic"
    np.testing.assert_allclose([d["meta"]["omega"], d["meta"]["rho"]], [py.omega, py.rho], rtol=0, atol=1e-12)
    np.testing.assert_allclose(pd.DataFrame(d["results"])[["candidate_advantage", "human_advantage", "t", "p_value"]]
                               .to_numpy(dtype=float), py.by_human[["candidate_advantage", "human_advantage", "t",
                                                                     "p_value"]].to_numpy(dtype=float),
                               rtol=0, atol=1e-12, equal_nan=True)
    assert abs(py.rho - sis.replacement_test(ann, "llm").rho) > 1e-6  # the weights reached the test
    # --groups: compare_groups(weights=) where the coefficient takes weights; alpha takes the weight name as
    # similarity= (the same matrix), as softirr agree passes it
    for coef, kw in (("fleiss_kappa", {"weights": "linear"}), ("krippendorff_alpha", {"similarity": "linear"})):
        d = _cmp_json(run_cli, str(study), "--groups", "a1,a2;b1,b2", "-c", coef, "-m", "linear", "--bootstrap", "200")
        _same_comparison(d["results"][0], sis.compare_groups(ann, ["a1", "a2"], ["b1", "b2"], coefficient=coef,
                                                             ci=boot, **kw))
    # FILE FILE2
    two = _second_round(study, tmp_path)
    d = _cmp_json(run_cli, str(study), str(two), "-c", "fleiss_kappa", "-m", "quadratic", "--bootstrap", "200")
    a, b = (sis.fleiss_kappa(sis.read_annotations(f), weights="quadratic") for f in (study, two))
    _same_comparison(d["results"][0], sis.compare(a, b, ci=boot))
    # two -m (weights against exact matching) and two -c (both with the weights), analytic
    d = _cmp_json(run_cli, str(study), "-c", "fleiss_kappa", "-m", "quadratic", "-m", "exact", "--analytic")
    py = sis.compare(sis.fleiss_kappa(ann, weights="quadratic"), sis.fleiss_kappa(ann), ci="analytic")
    _same_comparison(d["results"][0], py)
    assert d["results"][0]["A"] == "fleiss_kappa (quadratic)" and py.difference != 0.0
    d = _cmp_json(run_cli, str(study), "-c", "fleiss_kappa", "-c", "gwet_ac1", "-m", "ordinal", "--analytic")
    _same_comparison(d["results"][0], sis.compare(sis.fleiss_kappa(ann, weights="ordinal"),
                                                  sis.gwet_ac1(ann, weights="ordinal"), ci="analytic"))
    # --reference and --leave-one-out
    d = _cmp_json(run_cli, str(study), "--reference", "llm", "-m", "quadratic", "--bootstrap", "0")
    py = sis.against_reference(ann, "llm", coefficient="cohen_kappa", weights="quadratic").by_rater
    np.testing.assert_allclose(pd.DataFrame(d["results"])[["value", "observed", "expected"]].to_numpy(dtype=float),
                               py[["value", "observed", "expected"]].to_numpy(dtype=float), rtol=0, atol=1e-12)
    d = _cmp_json(run_cli, str(study), "--leave-one-out", "-c", "fleiss_kappa", "-m", "quadratic", "--bootstrap", "0")
    py = sis.leave_one_rater_out(ann, "fleiss_kappa", weights="quadratic")
    cols = ["kappa_vs_rest", "value_without", "change"]
    np.testing.assert_allclose(pd.DataFrame(d["results"])[cols].to_numpy(dtype=float), py[cols].to_numpy(dtype=float),
                               rtol=0, atol=1e-12)
    # --cross-replication: cross_kappa takes the weight name as similarity= (it has no weights=)
    d = _cmp_json(run_cli, str(study), str(two), "--cross-replication", "-m", "quadratic", "--bootstrap", "0")
    py = sis.cross_kappa(ann, sis.read_annotations(two), similarity="quadratic")
    row = d["results"][0]
    np.testing.assert_allclose([row[k] for k in ("value", "normalized", "irr_x", "irr_y")],
                               [py.value, py.normalized, py.irr_x, py.irr_y], rtol=0, atol=1e-12)
    assert row["similarity"] == "quadratic" and py.similarity == "quadratic"


def test_similarity_names_and_refusals_are_agrees(run_cli, study, tmp_path):
    from softirr_stats.cli._options import SIMILARITIES, WEIGHTS

    code, _, err = run_cli("compare", str(study), "--candidate", "llm", "-m", "quadratik")
    assert code == 2 and "unknown --similarity 'quadratik' (did you mean 'quadratic'?)" in err
    assert all(w in err for w in WEIGHTS)  # the choices are agree's: measures and weights
    code, out, _ = run_cli("compare", "--help")
    assert all(name in " ".join(out.replace("│", " ").split()) for name in SIMILARITIES)
    # where the weights cannot apply, one error naming the flags
    code, _, err = run_cli("compare", str(study), "--leave-one-out", "-c", "krippendorff_alpha:interval", "-m",
                           "quadratic", "--bootstrap", "0")
    assert code == 2 and "-c krippendorff_alpha:interval takes no -m" in err
    code, _, err = run_cli("compare", str(study), "--candidate", "llm", "--scoring", "neg_rmse", "-m", "linear")
    assert code == 2 and "is not used with --scoring neg_rmse" in err
    cats = pd.read_csv(study).assign(label=lambda df: df["label"].map({0: "cat", 1: "dog", 2: "cow"}))
    cats.to_csv(tmp_path / "cats.csv", index=False)
    code, _, err = run_cli("compare", str(tmp_path / "cats.csv"), "--candidate", "llm", "-m", "quadratic")
    assert code == 1 and err.count("error:") == 1 and "--similarity quadratic orders the labels" in err


@pytest.fixture()
def ordinal_files(tmp_path):
    rng = np.random.default_rng(4)
    truth = rng.integers(0, 5, 60)
    rows = [(i, r, int(np.clip(t + rng.integers(-1, 2), 0, 4))) for i, t in enumerate(truth) for r in "abcd"]
    one, two = tmp_path / "o1.csv", tmp_path / "o2.csv"
    pd.DataFrame(rows, columns=["item", "rater", "label"]).to_csv(one, index=False)
    pd.DataFrame(rows[:180], columns=["item", "rater", "label"]).to_csv(two, index=False)
    return one, two


def test_krippendorffs_levels_of_measurement_in_every_mode(run_cli, ordinal_files):
    """-c krippendorff_alpha:ordinal (agree's spelling) is Python's level="ordinal" in compare's
    modes too; it was refused as an unknown coefficient. -m beside a non-nominal level is refused."""
    one, two = ordinal_files
    ci = ("--bootstrap", "200")
    code, out, err = run_cli("compare", str(one), str(two), "-c", "krippendorff_alpha:ordinal", *ci, "-f", "json")
    assert code == 0, err
    row = json.loads(out)["results"][0]
    want = [sis.krippendorff_alpha(sis.read_annotations(f), level="ordinal").value for f in (one, two)]
    assert (row["value_a"], row["value_b"]) == pytest.approx(want, abs=1e-14)
    code, out, err = run_cli("compare", str(one), "-c", "krippendorff_alpha:ordinal,krippendorff_alpha:interval",
                             *ci, "-f", "json")
    assert code == 0, err
    row = json.loads(out)["results"][0]
    ann = sis.read_annotations(one)
    assert (row["value_a"], row["value_b"]) == pytest.approx(
        [sis.krippendorff_alpha(ann, level=lv).value for lv in ("ordinal", "interval")], abs=1e-14)
    code, out, err = run_cli("compare", str(one), "--groups", "a,b;c,d", "-c", "krippendorff_alpha:ordinal", *ci,
                             "-f", "json")
    assert code == 0, err
    groups = sis.compare_groups(ann, ["a", "b"], ["c", "d"], coefficient="krippendorff_alpha", level="ordinal",
                                ci=sis.Bootstrap(n=200, seed=0))
    assert json.loads(out)["results"][0]["difference"] == pytest.approx(groups.difference, abs=1e-14)
    code, _, err = run_cli("compare", str(one), "-c", "krippendorff_alpha:ordinal", "-m", "levenshtein,exact")
    assert code == 2 and "takes no -m" in err


def test_level_forms_are_named_in_the_groups_rows_and_the_reference_title(run_cli, ordinal_files):
    """--groups labelled ordinal alphas 'krippendorff_alpha of a, b' and --reference titled 'krippendorff_alpha of
    each rater with a', as if nominal; the worst items of --reference are ranked by the level's metric."""
    one, _ = ordinal_files
    ann = sis.read_annotations(one)
    code, out, err = run_cli("compare", str(one), "--groups", "a,b;c,d", "-c", "krippendorff_alpha:ordinal",
                             "--bootstrap", "100", "-f", "json")
    assert code == 0, err
    row = json.loads(out)["results"][0]
    assert (row["A"], row["B"]) == ("krippendorff_alpha:ordinal of a, b", "krippendorff_alpha:ordinal of c, d")
    assert row["value_a"] == pytest.approx(sis.krippendorff_alpha(ann.subset_raters(["a", "b"]), level="ordinal").value,
                                           abs=1e-14)
    code, out, err = run_cli("compare", str(one), "--reference", "a", "-c", "krippendorff_alpha:ordinal",
                             "--bootstrap", "0", "-f", "json")
    assert code == 0, err
    got = json.loads(out)
    assert "krippendorff_alpha:ordinal of each rater with a" in got["title"]
    py = sis.against_reference(ann, "a", coefficient="krippendorff_alpha", level="ordinal", top=20)
    assert got["meta"]["worst_items_similarity"] == "ordinal-distance"
    assert [w["mean_similarity"] for w in got["meta"]["worst_items"]] == pytest.approx(
        py.disagreements.mean_similarity.tolist(), abs=1e-14)
    code, out, err = run_cli("compare", str(one), "--groups", "a,b;c,d", "--bootstrap", "100", "-f", "json")
    assert code == 0, err
    assert json.loads(out)["results"][0]["A"] == "krippendorff_alpha of a, b"  # the plain name stays plain


def _mc(seed=0):
    from softirr_stats.agreement import resolve_chance

    return resolve_chance("mc:5", seed=seed)


@pytest.mark.filterwarnings("ignore::softirr_stats.comparison._compare.ComparisonWarning")  # said in the notes
def test_chance_reaches_the_compared_coefficients(run_cli, files):
    # the coefficients compare computes had no chance setting on the command line: always exact chance
    one, two = files
    ann, ann2 = sis.read_annotations(one), sis.read_annotations(two)
    ci = sis.Bootstrap(n=100, seed=0)
    boot = ("--bootstrap", "100", "--chance", "mc:5", "-f", "json")
    # FILE FILE2
    code, out, err = run_cli("compare", str(one), str(two), "-c", "fleiss_kappa", *boot)
    assert code == 0, err
    d = json.loads(out)
    row = d["results"][0]
    py = sis.compare(sis.fleiss_kappa(ann, chance=_mc()), sis.fleiss_kappa(ann2, chance=_mc()), ci=ci,
                     labels=("round1.csv", "round2.csv"))
    exact = sis.fleiss_kappa(ann).value
    assert row["value_a"] == pytest.approx(py.value_a, abs=1e-12) and abs(py.value_a - exact) > 1e-6
    assert (row["difference"], row["ci_low"], row["ci_high"]) == pytest.approx(
        (py.difference, py.ci_low, py.ci_high), abs=1e-12)
    assert d["meta"]["chance"] == "mc:5"
    # two -c: the coefficient with its own chance term (AC1) gets a note, not the setting
    code, out, err = run_cli("compare", str(one), "-c", "krippendorff_alpha,gwet_ac1", *boot)
    assert code == 0, err
    row = json.loads(out)["results"][0]
    py = sis.compare(sis.krippendorff_alpha(ann, chance=_mc()), sis.gwet_ac1(ann), ci=ci)
    assert (row["value_a"], row["value_b"], row["difference"], row["ci_low"], row["ci_high"]) == pytest.approx(
        (py.value_a, py.value_b, py.difference, py.ci_low, py.ci_high), abs=1e-12)
    assert ("gwet_ac1 takes no --chance (its own chance term, none, or a statistic of scores): --chance mc:5 not used "
            "for it") in json.loads(out)["meta"]["warnings"]
    # --groups
    code, out, err = run_cli("compare", str(one), "--groups", "h1,h2;h3,h4", *boot)
    assert code == 0, err
    py = sis.compare_groups(ann, ["h1", "h2"], ["h3", "h4"], coefficient="krippendorff_alpha", ci=ci, chance=_mc())
    row = json.loads(out)["results"][0]
    assert (row["difference"], row["ci_low"], row["ci_high"]) == pytest.approx(
        (py.difference, py.ci_low, py.ci_high), abs=1e-12)
    # --reference
    code, out, err = run_cli("compare", str(one), "--reference", "h1", *boot)
    assert code == 0, err
    py = sis.against_reference(ann, "h1", coefficient="cohen_kappa", ci=ci, chance=_mc())
    got = json.loads(out)["results"]
    np.testing.assert_allclose([[r["value"], r["ci_low"], r["expected"]] for r in got],
                               py.by_rater[["value", "ci_low", "expected"]].to_numpy(dtype=float), rtol=0, atol=1e-12)
    # --leave-one-out, point estimates: --seed seeds the Monte Carlo chance, so it is not refused
    code, out, err = run_cli("compare", str(one), "--leave-one-out", "--bootstrap", "0", "--chance", "mc:5",
                             "--seed", "3", "-f", "json")
    assert code == 0, err
    py = sis.leave_one_rater_out(ann, "krippendorff_alpha", chance=_mc(3))
    np.testing.assert_allclose([r["change"] for r in json.loads(out)["results"]], py["change"], rtol=0, atol=1e-12)


@pytest.mark.filterwarnings("ignore::softirr_stats.comparison._compare.ComparisonWarning")  # said in the notes
def test_leave_one_out_chance_reaches_the_coefficients_and_says_kappa_vs_rest_is_exact(run_cli, files):
    # --chance reached value_without but not kappa_vs_rest, and nothing said so
    one, _ = files
    ann = sis.read_annotations(one)
    code, out, err = run_cli("compare", str(one), "--leave-one-out", "--bootstrap", "100", "--chance", "mc:5",
                             "--seed", "3", "-f", "json")
    assert code == 0, err
    got = json.loads(out)
    rows = pd.DataFrame(got["results"])
    py = sis.leave_one_rater_out(ann, "krippendorff_alpha", ci=sis.Bootstrap(n=100, seed=3), chance=_mc(3))
    cols = ["kappa_vs_rest", "vs_rest_ci_low", "vs_rest_ci_high", "value_without", "without_ci_low",
            "without_ci_high", "change", "change_ci_low", "change_ci_high"]
    np.testing.assert_allclose(rows[cols].to_numpy(dtype=float), py[cols].to_numpy(dtype=float), rtol=0, atol=1e-12)
    exact = sis.leave_one_rater_out(ann, "krippendorff_alpha")
    np.testing.assert_allclose(rows["kappa_vs_rest"], exact["kappa_vs_rest"], rtol=0, atol=1e-12)
    assert np.abs(rows["value_without"] - exact["value_without"]).max() > 1e-6  # the setting reached it
    note = ("kappa_vs_rest: chance agreement exact (the rater's and the rest's label shares over the full label "
            "similarity); the chance setting ({}) applies to value_all, value_without and change")
    # Python names the setting by its label; the command line as --chance spells it (it showed Python's label)
    assert py.attrs["vs_rest_notes"][-1] == note.format("monte_carlo(D=5)") and py.attrs["chance"] == "monte_carlo(D=5)"
    assert note.format("--chance mc:5") in got["meta"]["warnings"], got["meta"]["warnings"]
    assert not any("monte_carlo(" in w for w in got["meta"]["warnings"])
    # the interval rule of kappa_vs_rest's interval is shown (it was left out), in the command's spelling
    rule = next(n for n in py.attrs["vs_rest_notes"] if n.startswith("method='auto'"))
    assert "kappa_vs_rest: " + rule.replace("method='auto'", "--method auto") in got["meta"]["warnings"]
    assert rule.startswith("method='auto': BCa with t quantiles, 69 df")
    assert got["meta"]["vs_rest_method"] == py.attrs["vs_rest_method"] == "bootstrap-bca-t"
    code, out, err = run_cli("compare", str(one), "--leave-one-out", "--bootstrap", "100", "--chance", "mc:5",
                             "--seed", "3")
    assert code == 0, err
    shown = " ".join(out.split())
    assert "kappa_vs_rest: --method auto: BCa with t quantiles, 69 df" in shown and "(--chance mc:5) applies" in shown
    code, out, err = run_cli("compare", "--help")
    assert "kappa_vs_rest's chance term is always exact" in " ".join(out.replace("│", " ").split())


@pytest.mark.parametrize(("args", "needle"), [
    (["-c", "fleiss_kappa,gwet_ac1", "--chance", "bogus"], "--chance bogus: chance must be one of exact, auto, mc:D"),
    (["-c", "fleiss_kappa,gwet_ac1", "--chance", "mc:0"], "--chance mc:0: chance 'mc:0': D must be a positive whole number"),
    (["-c", "fleiss_kappa,gwet_ac1", "--chance", "exact,mc:5"], "--chance takes one setting in softirr compare"),
    (["-c", "gwet_ac1,brennan_prediger", "--chance", "mc:5"],
     "--chance is not used with -c gwet_ac1, brennan_prediger"),
    (["--candidate", "llm", "--chance", "mc:5"], "--chance is not used with --candidate"),
    (["--leave-one-out", "--bootstrap", "0", "--chance", "exact", "--seed", "3"],
     "--seed is not used with --bootstrap 0"),
])
def test_bad_chance_is_refused_in_cli_spelling(run_cli, files, args, needle):
    one, _ = files
    code, out, err = run_cli("compare", str(one), *args)
    assert code == 2 and out == "", (args, err)
    assert needle in err and err.count("\n") == 1, (args, err)


def test_compare_refuses_the_distance_measures(run_cli, files):
    one, two = files
    code, _, err = run_cli("compare", str(one), str(two), "-c", "distance_ks")
    assert code == 2 and "does not take -c distance_ks" in err and "softirr agree" in err


# --- compare FILE FILE2 --cross-replication (cross_kappa, Wong, Paritosh & Aroyo 2021) ---------------------------


@pytest.fixture()
def replications(tmp_path):
    """Two replications of one task: the same 40 items (a few only in one), other raters, some ratings missing."""
    rng = np.random.default_rng(1)
    truth = rng.integers(0, 3, 40)

    def replication(raters, p, drop):
        rows = [(f"d{i}", r, ["neg", "neu", "pos"][t if rng.random() < p else rng.integers(0, 3)])
                for i, t in enumerate(truth) if i not in drop for r in raters if rng.random() >= 0.1]
        return pd.DataFrame(rows, columns=["item", "rater", "label"])

    x, y = tmp_path / "x.csv", tmp_path / "y.csv"
    replication(["a1", "a2", "a3"], 0.8, {0, 1}).to_csv(x, index=False)
    replication(["b1", "b2"], 0.6, {5}).to_csv(y, index=False)
    return x, y


_XRR_KEYS = ("value", "normalized", "irr_x", "irr_y", "observed", "expected", "ci_low", "ci_high")


@pytest.mark.parametrize("extra", [[], ["--item-weights", "equal"], ["-m", "indel"]])
def test_cross_replication_equals_cross_kappa(replications, extra, tmp_path):
    from typer.testing import CliRunner

    from softirr_stats.cli import app

    x, y = replications
    out = tmp_path / "x.json"
    res = CliRunner().invoke(app, ["compare", str(x), str(y), "--cross-replication", "--bootstrap", "200", *extra,
                                   "--json", str(out)])
    assert res.exit_code == 0, res.output
    row = json.loads(out.read_text())["results"][0]
    weights = extra[1] if extra[:1] == ["--item-weights"] else "ratings"
    sim = sis.equivalence.Indel() if "indel" in extra else None
    py = sis.cross_kappa(sis.read_annotations(x), sis.read_annotations(y), similarity=sim, item_weights=weights,
                         ci=sis.Bootstrap(n=200, seed=0))
    for key in _XRR_KEYS:
        assert row[key] == pytest.approx(getattr(py, key), abs=1e-12), key
    assert (row["n_items"], row["n_items_only_x"], row["n_items_only_y"]) == (
        py.n_items, py.details["n_items_only_x"], py.details["n_items_only_y"])
    assert row["n_items_only_x"] > 0 and row["n_items_only_y"] > 0  # items in one replication only are ignored
    assert row["item_weights"] == weights and row["level"] == "nominal"


def test_cross_replication_at_a_level_and_in_every_format(tmp_path):
    from typer.testing import CliRunner

    from softirr_stats.cli import app

    rng = np.random.default_rng(2)
    truth = rng.integers(1, 6, 30)
    files = []
    for k, raters in enumerate((["a", "b", "c"], ["d", "e"])):
        rows = [(f"i{i}", r, int(np.clip(t + rng.integers(-1, 2), 1, 5))) for i, t in enumerate(truth) for r in raters]
        files.append(tmp_path / f"s{k}.csv")
        pd.DataFrame(rows, columns=["item", "rater", "label"]).to_csv(files[-1], index=False)
    args = ["compare", *map(str, files), "--cross-replication", "-c", "krippendorff_alpha:interval", "--bootstrap", "0"]
    py = sis.cross_kappa(*(sis.read_annotations(f) for f in files), level="interval")
    res = CliRunner().invoke(app, [*args, "-f", "json"])
    assert res.exit_code == 0, res.output
    row = json.loads(res.stdout)["results"][0]
    for key in ("value", "normalized", "irr_x", "irr_y", "observed", "expected"):
        assert row[key] == pytest.approx(getattr(py, key), abs=1e-12), key
    assert row["level"] == "interval" and row["ci_low"] is None
    res = CliRunner().invoke(app, [*args, "-f", "csv"])
    assert res.exit_code == 0 and float(pd.read_csv(io.StringIO(res.stdout))["value"][0]) == pytest.approx(py.value)
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 0 and "kappa_x" in res.output and "krippendorff_alpha:interval" in res.output


@pytest.mark.parametrize(("args", "message"), [
    (["-c", "fleiss_kappa"], "-c takes krippendorff_alpha"),
    (["-c", "krippendorff_alpha:ordinal"], "-c takes krippendorff_alpha"),
    (["--analytic"], "--analytic is not used with --cross-replication"),
    (["--design", "raters"], "--design raters resamples raters"),
    (["--chance", "exact"], "--chance is not used with --cross-replication"),
    (["--independent"], "--independent is an option of FILE FILE2"),
    (["--item-weights", "items"], "unknown --item-weights 'items'"),
    (["--permutations", "10"], "--permutations is an option of --groups"),
])
def test_cross_replication_refuses_what_does_not_apply(replications, args, message, run_cli):
    x, y = replications
    code, _, err = run_cli("compare", str(x), str(y), "--cross-replication", *args)
    assert code == 2 and message in err, err


def test_item_weights_only_with_cross_replication(replications, run_cli):
    x, y = replications
    code, _, err = run_cli("compare", str(x), str(y), "--item-weights", "equal")
    assert code == 2 and "--item-weights is an option of --cross-replication" in err
    code, _, err = run_cli("compare", str(x), "--cross-replication")
    assert code == 2 and "give two files" in err


def test_item_weights_choices_are_cross_kappas():
    from softirr_stats.agreement import ITEM_WEIGHTS
    from softirr_stats.cli.compare import ITEM_WEIGHTS as CLI_ITEM_WEIGHTS

    assert tuple(ITEM_WEIGHTS) == CLI_ITEM_WEIGHTS


def test_two_small_studies_are_flagged_by_the_smaller_study(run_cli, write_ratings, tmp_path):
    """Two studies of 12 items each: 24 in the union, and no note, though each coefficient rests on 12 items. The
    note counts each study's items and names both (partly shared: the shared ones too); it is compare's own."""
    one = write_ratings(tmp_path / "one.csv", seed=1, n=12)
    two = write_ratings(tmp_path / "two.csv", seed=2, n=12)
    code, out, err = run_cli("compare", one, two, "--independent", "--bootstrap", "400")
    assert code == 0, err
    said = " ".join((out + err).split())
    assert ("12 items resampled (fewer than 20) in each of the two independent samples (a: 12 items, b: 12; each "
            "coefficient's interval, and so the difference's, rests on its own sample)") in said, said
    longer = write_ratings(tmp_path / "longer.csv", seed=2, n=30)  # items i0-i29: i0-i11 shared with one.csv
    code, out, err = run_cli("compare", one, longer, "--bootstrap", "400")
    assert code == 0, err
    said = " ".join((out + err).split())
    assert ("12 items resampled (fewer than 20) in the smaller of the two partly shared samples (a: 12 items, b: 30, "
            "12 of them shared;") in said, said
    a, b = (sis.krippendorff_alpha(sis.read_annotations(f)) for f in (one, longer))
    with pytest.warns(sis.FewUnitsWarning):  # the Python API's note, word for word
        r = sis.compare(a, b, ci=sis.Bootstrap(n=400), labels=("one.csv", "longer.csv"))
    assert [w for w in r.warnings if "(fewer than 20)" in w][0] in said


def test_cross_replication_takes_a_single_rater_replication(tmp_path, run_cli):
    """One expert against a crowd: the expert's file has one rater, kappa_x is defined (IRR_Y is not)."""
    x, y = tmp_path / "x2.csv", tmp_path / "y1.csv"
    x.write_text("item,rater,label\n1,a,A\n1,b,A\n2,a,B\n2,b,B\n3,a,A\n3,b,B\n4,a,A\n4,b,A\n5,a,B\n5,b,A\n")
    y.write_text("item,rater,label\n1,expert,A\n2,expert,B\n3,expert,B\n4,expert,A\n5,expert,A\n")
    code, out, err = run_cli("compare", x, y, "--cross-replication", "--bootstrap", "0", "-f", "json")
    assert code == 0, err
    d = json.loads(out)
    row = d["results"][0]
    assert row["value"] == pytest.approx(7 / 12, abs=1e-12)  # 1 - (1/5) / (24/50), by hand
    py = sis.cross_kappa(sis.read_annotations(x), pd.read_csv(y, dtype=str).pivot(index="item", columns="rater",
                                                                                values="label"))
    assert row["value"] == pytest.approx(py.value, abs=1e-12) and row["irr_x"] == pytest.approx(py.irr_x, abs=1e-12)
    assert row["irr_y"] is None and row["normalized"] is None
    assert any("IRR_Y is undefined: replication Y has a single rater" in w for w in d["meta"]["warnings"])
    assert not any("has one annotator" in w for w in d["meta"]["warnings"])
    code, _, err = run_cli("agree", y, "--bootstrap", "0")  # elsewhere a single rater is still refused
    assert code == 2 and "agreement needs at least two raters; got 1" in err


def _round_csv(path, labels, seed, prefix):
    rng = np.random.default_rng(seed)
    rows = [(f"{prefix}{i}", f"h{j}", labels[rng.integers(len(labels))]) for i in range(40) for j in range(3)]
    pd.DataFrame(rows, columns=["item", "rater", "label"]).to_csv(path, index=False)
    return path


def test_two_files_whose_number_of_categories_differs_are_refused_naming_categories(run_cli, tmp_path):
    # gwet_ac1 took q from each file's own labels (3 and 2) and compared the two: the difference was mostly q
    one = _round_csv(tmp_path / "r1.csv", "abc", 0, "x")
    two = _round_csv(tmp_path / "r2.csv", "ab", 1, "y")
    code, out, err = run_cli("compare", one, two, "-c", "gwet_ac1", "--bootstrap", "200")
    assert code == 2 and out == ""
    error = [line for line in err.splitlines() if line.startswith("error:")]
    assert len(error) == 1 and "--categories" in error[0] and "q = 3" in error[0] and "q = 2" in error[0]
    code, out, err = run_cli("compare", one, two, "-c", "gwet_ac1", "--bootstrap", "200", "--categories", "a,b,c",
                             "-f", "json")
    assert code == 0, err
    row = json.loads(out)["results"][0]
    b = sis.gwet_ac1(sis.read_annotations(two), categories=["a", "b", "c"])
    assert abs(row["value_b"] - b.value) < 1e-12


def test_two_files_whose_weights_are_built_on_other_categories_are_refused_naming_them(run_cli, tmp_path):
    # AC2's linear weights on each file's own labels (1, 2, 3 and 1, 2, 5: q = 3 both) weigh 1 and 2 0.5 and 0.75:
    # the two were compared, the difference partly the weights'; ordinal weights count positions (4 is two steps
    # from 2 among 1, 2, 3, 4 and one among 1, 2, 4)
    one = _round_csv(tmp_path / "r1.csv", [1, 2, 3], 0, "x")
    two = _round_csv(tmp_path / "r2.csv", [1, 2, 5], 1, "y")
    code, out, err = run_cli("compare", one, two, "-c", "gwet_ac1", "-m", "linear", "--bootstrap", "200")
    assert code == 2 and out == ""
    error = [line for line in err.splitlines() if line.startswith("error:")]
    assert len(error) == 1, err
    assert "r1.csv's [1, 2, 3] and r2.csv's [1, 2, 5]" in error[0] and "--categories 1,2,3,5" in error[0], error
    code, out, err = run_cli("compare", one, two, "-c", "gwet_ac1", "-m", "linear", "--bootstrap", "200",
                             "--categories", "1,2,3,5", "-f", "json")
    assert code == 0, err
    b = sis.gwet_ac1(sis.read_annotations(two), categories=[1, 2, 3, 5], weights="linear")
    assert abs(json.loads(out)["results"][0]["value_b"] - b.value) < 1e-12
    # kappa reads the distances up to a common scale: 1, 2, 3 against 1, 2, 5 weigh 1 and 2 alike for it
    code, out, err = run_cli("compare", one, two, "-c", "fleiss_kappa", "-m", "linear", "--bootstrap", "200")
    assert code == 0, err
    three = _round_csv(tmp_path / "r3.csv", [1, 2, 3, 4], 2, "z")
    four = _round_csv(tmp_path / "r4.csv", [1, 2, 4], 3, "w")
    code, out, err = run_cli("compare", three, four, "-c", "fleiss_kappa", "-m", "ordinal", "--bootstrap", "200")
    assert code == 2 and "--categories 1,2,3,4" in err and "r3.csv's [1, 2, 3, 4] and r4.csv's [1, 2, 4]" in err


def test_compare_json_numbers_are_numbers_with_the_ratio_and_the_test(run_cli, files, tmp_path):
    # n_items was a string ("80", or "80 / 60 (40 shared)") beside the integer n_items_a; the ratio, its interval
    # and the test behind the p-value were left out
    one, _ = files
    df = pd.read_csv(one)
    part = tmp_path / "part.csv"
    df[df["item"].isin([f"d{i}" for i in range(20, 70)])].assign(
        label=lambda d: d["label"].where(d["rater"] != "h1", "cat")).to_csv(part, index=False)
    code, out, err = run_cli("compare", one, part, "-c", "fleiss_kappa", "--bootstrap", "300", "-f", "json")
    assert code == 0, err
    row = json.loads(out)["results"][0]
    py = sis.compare(sis.fleiss_kappa(sis.read_annotations(one)), sis.fleiss_kappa(sis.read_annotations(part)),
                     ci=sis.Bootstrap(n=300, seed=0)).to_dict()
    assert "n_items" not in row and row["items"] == "70 / 50 (50 shared)"
    for key in ("n_items_a", "n_items_b", "n_common"):
        assert type(row[key]) is int and row[key] == py[key]
    for key in ("value_a", "value_b", "difference", "ci_low", "ci_high", "se", "p_value", "ratio", "ratio_ci_low",
                "ratio_ci_high"):
        assert isinstance(row[key], float) and abs(row[key] - py[key]) < 1e-12, key
    assert row["test"] == py["test"] and row["test"].startswith("inversion of the")
    code, out, err = run_cli("compare", one, part, "-c", "fleiss_kappa", "--bootstrap", "300", "-f", "csv")
    csv = pd.read_csv(io.StringIO(out))
    assert {"ratio", "ratio_ci_low", "ratio_ci_high", "test", "n_items_a"} <= set(csv.columns)
    assert "n_items" not in csv.columns and abs(csv["ratio"][0] - py["ratio"]) < 1e-12


@pytest.mark.parametrize(("groups", "more", "said"), [
    ("h1,h2;llm", [], "--groups: the second group needs at least 2 raters for an agreement coefficient; got llm"),
    ("h1,h2;h2,h1", [], "--groups names the same raters in both groups"),
    ("h1,h2;h2,h3", ["--permutations", "10"], "are in both: use the bootstrap interval (--permutations 0)"),
])
def test_bad_groups_are_a_usage_error(run_cli, files, groups, more, said):
    """A group of one rater, the same group twice or shared raters with --permutations exited 1 (a coefficient that
    cannot be computed for the data); a bad option exits 2."""
    one, _ = files
    code, out, err = run_cli("compare", str(one), "--groups", groups, *more, "--bootstrap", "50")
    assert code == 2 and out == "" and err.count("error:") == 1, err
    assert said in err, err


def test_a_group_of_one_rater_is_a_bad_groups_option(run_cli, files):
    """``--groups 'h1;h2,h3'`` said "group_a needs at least 2 raters" (a Python name) and exited 1, as if the data were
    at fault: the option is, so it names --groups and exits 2."""
    one, _ = files
    code, _, err = run_cli("compare", str(one), "--groups", "h1;h2,h3", "--bootstrap", "50")
    assert code == 2 and err.count("error:") == 1, err
    assert err.startswith("error: --groups: the first group needs at least 2 raters") and "group_a" not in err, err
    code, _, err = run_cli("compare", str(one), "--groups", "h1,h2;h2,h1", "--bootstrap", "50")
    assert code == 2 and err.startswith("error: --groups names the same raters in both groups"), err


def test_a_chance_other_than_exact_is_named_in_the_title(run_cli, files):
    """The table of ``--chance mc:5`` said nothing of the Monte Carlo chance its values used (csv and json did)."""
    one, _ = files
    code, out, err = run_cli("compare", str(one), "-c", "fleiss_kappa,krippendorff_alpha", "--chance", "mc:5", "--bootstrap",
                             "50")
    assert code == 0, err
    assert "chance = monte_carlo(D=5)" in " ".join(out.split()), out
    code, out, err = run_cli("compare", str(one), "-c", "fleiss_kappa,krippendorff_alpha", "--bootstrap", "50")
    assert code == 0 and "chance =" not in out, out
