"""The softirr command line: demo and agree."""

import io
import json

import pandas as pd
import pytest
from typer.testing import CliRunner

from softirr_stats.cli import app

runner = CliRunner()


def test_help_lists_commands():
    out = runner.invoke(app, ["--help"])
    assert out.exit_code == 0
    assert "agree" in out.output and "demo" in out.output


def test_demo_prints_soft_coefficients_with_intervals(tmp_path):
    path = tmp_path / "demo.json"
    out = runner.invoke(app, ["demo", "--bootstrap", "200", "--no-embedding", "--json", str(path)])
    assert out.exit_code == 0, out.output
    assert "krippendorff_alpha" in out.output and "levenshtein" in out.output
    rows = json.loads(path.read_text())["results"]
    by = {(r["similarity"], r["coefficient"]): r for r in rows}
    exact, soft = by[("exact", "krippendorff_alpha")], by[("indel", "krippendorff_alpha")]
    assert soft["value"] > exact["value"]  # synonyms earn credit under a soft measure
    assert soft["ci_low"] <= soft["value"] <= soft["ci_high"]


def test_agree_on_a_csv(tmp_path):
    f = tmp_path / "a.csv"
    f.write_text("doc,who,text\n1,a,heart attack\n1,b,heart attack\n2,a,fever\n2,b,pyrexia\n"
                 "3,a,cough\n3,b,cough\n4,a,rash\n4,b,rash\n")
    out_json = tmp_path / "o.json"
    res = runner.invoke(app, ["agree", str(f), "--item", "doc", "--rater", "who", "--label", "text",
                              "-c", "cohen_kappa,krippendorff_alpha", "-m", "exact,levenshtein",
                              "--bootstrap", "100", "--json", str(out_json)])
    assert res.exit_code == 0, res.output
    rows = json.loads(out_json.read_text())["results"]
    assert len(rows) == 4 and all("value" in r for r in rows)


def test_agree_reports_bad_columns(tmp_path):
    f = tmp_path / "a.csv"
    f.write_text("doc,who,text\n1,a,x\n1,b,y\n")
    res = runner.invoke(app, ["agree", str(f)])
    assert res.exit_code == 2
    assert "the columns are" in res.output


def test_agree_rejects_unknown_coefficient(tmp_path):
    f = tmp_path / "a.csv"
    f.write_text("item,rater,label\n1,a,x\n1,b,y\n")
    res = runner.invoke(app, ["agree", str(f), "-c", "kappa_of_doom"])
    assert res.exit_code != 0


SMALL = "item,rater,label\n" + "".join(
    f"i{i},{r},{lab}\n" for i, labs in enumerate(
        [("neg", "neg", "neg"), ("pos", "pos", "neu"), ("neu", "neu", "neu"), ("pos", "pos", "pos"),
         ("neg", "neu", "neg"), ("pos", "pos", "pos"), ("neu", "neu", "neg"), ("neg", "neg", "neg")] * 3)
    for r, lab in zip(("ann_a", "ann_b", "ann_c"), labs, strict=True))


def test_agree_title_states_level_method_b_and_design(tmp_path):
    f = tmp_path / "s.csv"
    f.write_text(SMALL)
    res = runner.invoke(app, ["agree", str(f), "-c", "fleiss_kappa", "--bootstrap", "50", "--method", "basic",
                              "--design", "raters", "--level", "0.9"])
    assert res.exit_code == 0, res.output
    title = " ".join(res.stdout.split())
    assert "90% basic intervals, B = 50 bootstrap replicates, design = raters" in title
    assert "24 items, 3 raters, 3 labels" in title
    res = runner.invoke(app, ["agree", str(f), "-c", "fleiss_kappa", "--bootstrap", "50"])
    assert res.exit_code == 0, res.output  # the default method, named as resolved for 24 items
    assert "95% bca-t intervals, B = 50 bootstrap replicates, design = items" in " ".join(res.stdout.split())


def test_help_explains_columns_and_shows_defaults():
    res = runner.invoke(app, ["agree", "--help"], env={"COLUMNS": "200"})
    text = " ".join(res.output.split())
    assert "notes = numbers of the notes" in text and "seconds" not in text and "pairs scored = distinct label pairs" in text
    assert "[default: 1000]" in text and "[default: auto]" in text and "[default: 0.95]" in text


@pytest.mark.parametrize("fmt", ["csv", "json", "markdown", "latex"])
def test_every_format(tmp_path, fmt):
    f = tmp_path / "s.csv"
    f.write_text(SMALL)
    res = runner.invoke(app, ["agree", str(f), "-c", "fleiss_kappa,gwet_ac1", "--bootstrap", "0", "--format", fmt])
    assert res.exit_code == 0, res.output
    out = res.stdout
    if fmt == "csv":
        df = pd.read_csv(io.StringIO(out))
        assert list(df["coefficient"]) == ["fleiss_kappa", "gwet_ac1"]
        assert df["value"].between(-1, 1).all()
    elif fmt == "json":
        payload = json.loads(out)
        assert payload["meta"]["bootstrap"] == 0 and len(payload["results"]) == 2
        assert payload["results"][0]["ci_low"] is None  # nan -> null
    elif fmt == "markdown":
        # the paper table: exact matching is the default setting, so no measure column; no timing column
        assert "| fleiss_kappa |" in out and "--:" in out and "seconds" not in out and "| exact |" not in out
    else:
        assert "\\begin{tabular}" in out and "fleiss\\_kappa" in out and "\\caption{" in out and "\\toprule" in out


def test_agree_cache_stores_scores(tmp_path):
    f = tmp_path / "s.csv"
    f.write_text(SMALL)
    db = tmp_path / "scores.sqlite"
    args = ["agree", str(f), "-m", "levenshtein", "--bootstrap", "0", "--cache", str(db), "-f", "json"]
    first = runner.invoke(app, args)
    assert first.exit_code == 0, first.output
    assert db.exists() and db.stat().st_size > 0
    second = runner.invoke(app, args)
    v1, v2 = (json.loads(r.stdout)["results"][0]["value"] for r in (first, second))
    assert v1 == v2


def test_sensitivity_table_json_and_plot(tmp_path):
    f = tmp_path / "s.csv"
    f.write_text(SMALL)
    png, out = tmp_path / "forest.png", tmp_path / "sens.json"
    res = runner.invoke(app, ["sensitivity", str(f), "-c", "fleiss_kappa,gwet_ac1,cohen_kappa",
                              "-m", "exact,levenshtein", "--chance", "exact,mc:3", "--bootstrap", "50",
                              "--plot", str(png), "--json", str(out)])
    assert res.exit_code == 0, res.output
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    rows = json.loads(out.read_text())["results"]
    got = {(r["coefficient"], r["similarity"], r["chance"]) for r in rows}
    assert ("fleiss_kappa", "levenshtein", "monte_carlo(D=3)") in got and ("gwet_ac1", "exact", "exact") in got
    fk = next(r for r in rows if (r["coefficient"], r["similarity"], r["chance"]) == ("fleiss_kappa", "exact", "exact"))
    assert fk["ci_low"] <= fk["value"] <= fk["ci_high"]
    skipped = [r for r in rows if r["coefficient"] == "cohen_kappa"]
    assert skipped and all(r["value"] is None and "2 raters" in "; ".join(r["warnings"]) for r in skipped)
    assert "B = 50 bootstrap replicates" in " ".join(res.stdout.split())


def test_sensitivity_rejects_bad_chance(tmp_path):
    f = tmp_path / "s.csv"
    f.write_text(SMALL)
    res = runner.invoke(app, ["sensitivity", str(f), "--chance", "mc:x", "--bootstrap", "0"])
    assert res.exit_code == 2
    assert res.stderr.startswith("error: --chance mc:x")


@pytest.mark.slow  # NumPyro compiles the model: a minute or more on a busy machine
def test_model_svi_posterior_interval(tmp_path):
    f = tmp_path / "s.csv"
    f.write_text(SMALL)
    res = runner.invoke(app, ["model", str(f), "--method", "svi", "--steps", "60", "-f", "json"])
    assert res.exit_code == 0, res.output
    payload = json.loads(res.stdout)
    rows = {r["quantity"]: r for r in payload["results"]}
    k = rows["kappa"]
    assert k["lower"] <= k["mean"] <= k["upper"] and -1 <= k["mean"] <= 1
    assert {"accuracy[ann_a]", "accuracy[ann_b]", "accuracy[ann_c]"} <= set(rows)
    assert "95% equal-tailed posterior intervals, SVI, 60 steps" in payload["title"]  # one default level
    diag = payload["meta"]["diagnostics"]  # r_hat / ESS / divergences / predictive check travel with the JSON
    assert diag["method"] == "svi" and diag["n_divergent"] == 0 and 0 <= diag["ppc_p_value"] <= 1
    assert isinstance(diag["caveats"], list)


def test_model_table_shows_the_fit_diagnostics_and_caveats(tmp_path):
    f = tmp_path / "s.csv"
    f.write_text(SMALL)
    res = runner.invoke(app, ["model", str(f), "--method", "svi", "--steps", "60", "-f", "markdown"])
    assert res.exit_code == 0, res.output
    out = res.stdout
    assert "| diagnostic |" in out and "predictive check p (fleiss_kappa)" in out and "divergent transitions" in out
    assert "Fit diagnostics (" in out
    res = runner.invoke(app, ["model", str(f), "--method", "svi", "--steps", "60"])  # the terminal table
    assert res.exit_code == 0, res.output
    assert "| diagnostic |" not in res.stdout and "┃ diagnostic" in res.stdout and "Fit diagnostics (" in res.stdout


def test_header_item_count_matches_items_used(tmp_path):
    f = tmp_path / "u.csv"
    f.write_text("item,rater,label\n1,a,x\n1,b,x\n2,a,y\n2,b,x\n3,a,\n3,b,\n4,a,y\n4,b,y\n5,a,z\n")
    res = runner.invoke(app, ["agree", str(f), "-c", "cohen_kappa", "--bootstrap", "0", "-f", "json"])
    assert res.exit_code == 0, res.output
    payload = json.loads(res.stdout)
    used = payload["results"][0]["n_items"]
    assert f"{payload['meta']['n_items']} items ({used} used)" in payload["title"]
    assert "warning: UnpairableItemsWarning" in res.stderr
    assert "note: 1 of 5 items have no rating" in res.stderr  # how the file was read: a note


def test_na_values_passed_only_when_given(tmp_path, monkeypatch):
    import softirr_stats as sis

    f = tmp_path / "na.csv"
    f.write_text("item,rater,label\n1,a,NA\n1,b,NA\n2,a,x\n2,b,y\n3,a,x\n3,b,x\n")
    seen = []
    real = sis.read_annotations

    def fake(path, *, item="item", rater="rater", label="label", format=None, categories=None, na_values=None):
        seen.append(na_values)
        return real(path, item=item, rater=rater, label=label)

    monkeypatch.setattr(sis.data, "read_annotations", fake)
    for extra in ([], ["--na-values", "NA", "--na-values", "n/a,None"]):
        res = runner.invoke(app, ["agree", str(f), "--bootstrap", "0", *extra])
        assert res.exit_code == 0, res.output
    assert seen == [None, ["NA", "n/a", "None"]]


def test_na_values_without_reader_support_is_a_clean_error(tmp_path, monkeypatch):
    import softirr_stats as sis

    f = tmp_path / "na.csv"
    f.write_text("item,rater,label\n1,a,NA\n1,b,NA\n")
    real = sis.read_annotations
    monkeypatch.setattr(sis.data, "read_annotations", lambda path, *, item="item", rater="rater", label="label":
                        real(path, item=item, rater=rater, label=label))
    res = runner.invoke(app, ["agree", str(f), "--na-values", "NA"])
    assert res.exit_code == 2 and res.stderr.startswith("error: cannot read") and "--na-values is not an option" in res.stderr


RATINGS = [[1, 2, 2], [3, 3, 3], [4, 5, 4], [2, 2, 1], [5, 5, 5], [1, 1, 2], [3, 4, 3], [2, 3, 2], [4, 4, 4],
           [1, 1, 1], [2, 2, 3], [5, 4, 5]]


def _ratings_csv(tmp_path):
    f = tmp_path / "ratings.csv"
    f.write_text("item,rater,label\n" + "".join(f"i{i},r{j},{v}\n" for i, row in enumerate(RATINGS)
                                                for j, v in enumerate(row)))
    return f


def test_agree_analytic_gives_the_python_apis_analytic_intervals(tmp_path):
    # --analytic did not exist: the exact-F interval of the ICCs and the delta-method SE of the chance-corrected
    # coefficients (Python: ci="analytic") were out of the shell's reach
    import softirr_stats as sis

    f = _ratings_csv(tmp_path)
    res = runner.invoke(app, ["agree", str(f), "--analytic", "--level", "0.9", "-c",
                              "fleiss_kappa,krippendorff_alpha,icc2,icc1k,light_kappa,kendall_w", "-m",
                              "exact", "-f", "json"])
    assert res.exit_code == 0, res.output
    payload = json.loads(res.stdout)
    assert payload["meta"]["analytic"] is True and not {"bootstrap", "design", "method"} & set(payload["meta"])
    assert "90% analytic intervals" in payload["title"]
    rows = {r["coefficient"]: r for r in payload["results"]}
    ann = sis.read_annotations(f)
    ci = sis.Analytic(level=0.9)
    want = {"fleiss_kappa": sis.fleiss_kappa(ann, ci=ci), "krippendorff_alpha": sis.krippendorff_alpha(ann, ci=ci),
            "icc2": sis.icc(ann, form="ICC2", ci=ci), "icc1k": sis.icc(ann, form="ICC1k", ci=ci)}
    for name, py in want.items():
        got = rows[name]
        assert (got["value"], got["ci_low"], got["ci_high"]) == (py.value, py.ci_low, py.ci_high), name
        assert got["ci_method"] == py.ci_method
    assert rows["fleiss_kappa"]["se"] == want["fleiss_kappa"].se and rows["icc2"]["ci_method"] == "exact-F"
    for name in ("light_kappa", "kendall_w"):  # no analytic interval: the value, and a note saying so
        assert rows[name]["ci_low"] is None and rows[name]["value"] is not None
        assert "no analytic interval" in "; ".join(rows[name]["warnings"]), name
        assert "--bootstrap N without --analytic" in "; ".join(rows[name]["warnings"]) and "ci=" not in "; ".join(rows[name]["warnings"])


def test_agree_analytic_weighted_rows_equal_the_python_api(tmp_path):
    import softirr_stats as sis

    f = _ratings_csv(tmp_path)
    res = runner.invoke(app, ["agree", str(f), "--analytic", "-c", "fleiss_kappa,krippendorff_alpha", "-m",
                              "quadratic", "-f", "json"])
    assert res.exit_code == 0, res.output
    rows = {r["coefficient"]: r for r in json.loads(res.stdout)["results"]}
    ann = sis.read_annotations(f)
    for name, py in (("fleiss_kappa", sis.fleiss_kappa(ann, weights="quadratic", ci="analytic")),
                     ("krippendorff_alpha", sis.krippendorff_alpha(ann, similarity="quadratic", ci="analytic"))):
        assert (rows[name]["value"], rows[name]["ci_low"], rows[name]["ci_high"], rows[name]["se"]) == (
            py.value, py.ci_low, py.ci_high, py.se), name


@pytest.mark.parametrize("command", ["agree", "sensitivity", "report"])
@pytest.mark.parametrize("given", [["--bootstrap", "200"], ["--design", "raters"], ["--method", "basic"],
                                   ["--bootstrap", "0"]])
def test_analytic_refuses_the_bootstrap_options_naming_both(tmp_path, command, given):
    f = _ratings_csv(tmp_path)
    res = runner.invoke(app, [command, str(f), "--analytic", *given, "-o" if command == "report" else "-f",
                              str(tmp_path / "r.html") if command == "report" else "json"])
    assert res.exit_code == 2, res.output
    assert res.stderr.startswith(f"error: {given[0]} is not used with --analytic"), res.stderr
    assert not (tmp_path / "r.html").exists()


def test_sensitivity_and_report_take_analytic(tmp_path):
    import softirr_stats as sis

    f = _ratings_csv(tmp_path)
    res = runner.invoke(app, ["sensitivity", str(f), "--analytic", "-c", "fleiss_kappa,icc3", "--chance",
                              "exact,sampled:40", "--seed", "2", "-f", "json"])
    assert res.exit_code == 0, res.output
    rows = json.loads(res.stdout)["results"]
    ann = sis.read_annotations(f)
    fk = next(r for r in rows if r["coefficient"] == "fleiss_kappa" and r["chance"] == "exact")
    py = sis.fleiss_kappa(ann, ci="analytic")
    assert (fk["ci_low"], fk["ci_high"]) == (py.ci_low, py.ci_high)
    icc3 = next(r for r in rows if r["coefficient"] == "icc3")
    assert (icc3["ci_low"], icc3["ci_high"]) == (sis.icc(ann, form="ICC3", ci="analytic").ci_low,
                                                 sis.icc(ann, form="ICC3", ci="analytic").ci_high)
    sampled = next(r for r in rows if r["coefficient"] == "fleiss_kappa" and r["chance"] != "exact")
    assert sampled["ci_low"] is None and "no analytic interval" in "; ".join(sampled["warnings"])
    assert "--chance exact" in "; ".join(sampled["warnings"]) and "chance='exact'" not in "; ".join(sampled["warnings"])
    page = tmp_path / "r.html"
    res = runner.invoke(app, ["report", str(f), "--analytic", "--level", "0.9", "-c", "fleiss_kappa", "-o",
                              str(page)])
    assert res.exit_code == 0, res.output
    assert "90% analytic intervals" in page.read_text()


def test_agree_gives_krippendorffs_ordinal_alpha_by_its_level(tmp_path):
    # -c took no level: -m ordinal with alpha is Gwet's ordinal weights, and Krippendorff's ordinal alpha
    # (krippendorff_alpha(ann, level="ordinal")) had no route from the shell
    import krippendorff
    import numpy as np

    import softirr_stats as sis

    rows = [[1, 2, 2, 1], [3, 3, 3, 4], [4, 5, 4, 4], [2, 2, 1, 2], [5, 5, 5, 4], [1, 1, 2, 1], [3, 4, 3, 3],
            [2, 3, 2, 2], [4, 4, 4, 5], [1, 1, 1, 1], [2, 2, 3, None], [5, 4, 5, 5]]
    f = tmp_path / "ordinal.csv"
    f.write_text("item,rater,label\n" + "".join(f"i{i},r{j},{v}\n" for i, row in enumerate(rows)
                                                for j, v in enumerate(row) if v is not None))
    res = runner.invoke(app, ["agree", str(f), "-c", "krippendorff_alpha:ordinal,krippendorff_alpha:interval",
                              "--bootstrap", "0", "--test", "-f", "json"])
    assert res.exit_code == 0, res.output
    got = {r["coefficient"]: r for r in json.loads(res.stdout)["results"]}
    ann = sis.read_annotations(f)
    data = np.array([[np.nan if v is None else v for v in row] for row in rows], dtype=float).T  # raters x items
    for level in ("ordinal", "interval"):
        value = got[f"krippendorff_alpha:{level}"]["value"]
        assert value == sis.krippendorff_alpha(ann, level=level).value
        assert value == pytest.approx(krippendorff.alpha(reliability_data=data, level_of_measurement=level), abs=1e-12)
        assert got[f"krippendorff_alpha:{level}"]["p_value"] is not None  # --test takes the level too
    assert got["krippendorff_alpha:ordinal"]["value"] != sis.krippendorff_alpha(ann, similarity="ordinal").value
    res = runner.invoke(app, ["agree", str(f), "-m", "ordinal", "--bootstrap", "0", "-f", "json"])
    note = "; ".join(json.loads(res.stdout)["results"][0]["warnings"])
    assert "not Krippendorff's ordinal alpha" in note and "-c krippendorff_alpha:ordinal" in note
    res = runner.invoke(app, ["agree", str(f), "-c", "krippendorff_alpha:ordinal", "-m", "quadratic", "--bootstrap",
                              "0"])
    assert res.exit_code == 1 and "krippendorff_alpha:ordinal takes no similarity" in res.stderr
    res = runner.invoke(app, ["agree", str(f), "-c", "krippendorff_alpha:ordnial"])
    assert res.exit_code == 2 and "did you mean 'krippendorff_alpha:ordinal'" in res.stderr.lower()


# --- agree -c distance_ks / distance_sigma (distance_agreement, Braylan, Alonso & Lease 2022) ---------------------


@pytest.fixture
def scores_csv(tmp_path):
    import numpy as np

    rng = np.random.default_rng(0)
    truth = rng.integers(1, 6, 30)
    rows = [(f"i{i}", r, int(np.clip(t + rng.integers(-1, 2), 1, 5))) for i, t in enumerate(truth) for r in "abc"]
    path = tmp_path / "scores.csv"
    pd.DataFrame(rows, columns=["item", "rater", "label"]).to_csv(path, index=False)
    return path


@pytest.mark.filterwarnings("ignore::softirr_stats.DegenerateWarning")
def test_agree_distance_rows_equal_distance_agreement(scores_csv, tmp_path):
    import softirr_stats as sis

    out = tmp_path / "d.json"
    res = runner.invoke(app, ["agree", str(scores_csv), "-c", "distance_ks,distance_sigma", "-m", "exact,linear",
                              "--bootstrap", "200", "--json", str(out)])
    assert res.exit_code == 0, res.output
    rows = {(r["coefficient"], r["similarity"]): r for r in json.loads(out.read_text())["results"]}
    assert len(rows) == 4
    ann = sis.read_annotations(scores_csv)
    for (coef, sim), row in rows.items():
        py = sis.distance_agreement(ann, similarity=None if sim == "exact" else sim, method=coef.split("_")[1],
                                    ci=sis.Bootstrap(n=200, seed=0))
        for key in ("value", "observed", "expected", "ci_low", "ci_high"):
            assert row[key] == pytest.approx(getattr(py, key), abs=1e-12), (coef, sim, key)
    assert rows[("distance_ks", "linear")]["value"] != rows[("distance_ks", "exact")]["value"]  # -m reaches it


def test_agree_distance_options_reach_distance_agreement(scores_csv):
    import softirr_stats as sis

    res = runner.invoke(app, ["agree", str(scores_csv), "-c", "distance_sigma,distance_ks", "-m", "linear",
                              "--bootstrap", "0", "--seed", "3", "--distance-option", "threshold=0.2",
                              "--distance-option", "kde=false", "--distance-option", "expected_pairs=400",
                              "-f", "json"])
    assert res.exit_code == 0, res.output
    rows = {r["coefficient"]: r for r in json.loads(res.stdout)["results"]}
    ann = sis.read_annotations(scores_csv)
    sigma = sis.distance_agreement(ann, similarity="linear", method="sigma", threshold=0.2, kde=False,
                                   expected_pairs=400, seed=3)
    ks = sis.distance_agreement(ann, similarity="linear", method="ks", expected_pairs=400, seed=3)
    assert rows["distance_sigma"]["value"] == pytest.approx(sigma.value, abs=1e-12)
    assert rows["distance_ks"]["value"] == pytest.approx(ks.value, abs=1e-12)
    assert rows["distance_ks"]["expected"] == pytest.approx(ks.expected, abs=1e-12)
    default = sis.distance_agreement(ann, similarity="linear", method="sigma")
    assert abs(default.value - sigma.value) > 0.01  # the options changed the number


@pytest.mark.parametrize(("args", "message"), [
    (["-c", "distance_ks", "--distance-option", "threshold=0.1"], "is an option of -c distance_sigma"),
    (["-c", "fleiss_kappa", "--distance-option", "expected_pairs=100"], "none is requested"),
    (["-c", "distance_sigma", "--distance-option", "threshold=3"], "--distance-option: threshold must be"),
    (["-c", "distance_sigma", "--distance-option", "seed=3"], "the sample's seed is --seed"),
    (["-c", "distance_sigma", "--distance-option", "bandwidth"], "takes KEY=VALUE"),
    (["-c", "distance_sigma", "--distance-option", "threshold=0.1", "--distance-option", "threshold=0.2"],
     "--distance-option threshold=0.1 and --distance-option threshold=0.2 both set threshold: give it once"),
])
def test_agree_distance_options_refused_naming_the_flag(scores_csv, args, message):
    res = runner.invoke(app, ["agree", str(scores_csv), "--bootstrap", "0", *args])
    assert res.exit_code == 2 and message in res.output, res.output


def test_agree_distance_row_without_analytic_interval_says_why(scores_csv):
    res = runner.invoke(app, ["agree", str(scores_csv), "-c", "distance_ks", "--analytic", "-f", "json"])
    assert res.exit_code == 0, res.output
    row = json.loads(res.stdout)["results"][0]
    assert "no analytic variance" in "; ".join(row["warnings"]) and row["ci_low"] is None


def test_report_takes_the_distance_options_of_agree(scores_csv, tmp_path):
    """``softirr report`` ran the distance rows with their default options only: it takes --distance-option now,
    through the same layer as agree and sensitivity (cli._options.DistanceOpt, distance_registry)."""
    import softirr_stats as sis

    ann = sis.read_annotations(scores_csv)
    page = tmp_path / "r.html"
    res = runner.invoke(app, ["report", str(scores_csv), "-c", "distance_ks,distance_sigma", "-m", "linear",
                              "--bootstrap", "0", "--seed", "3", "--distance-option", "expected_pairs=400",
                              "--distance-option", "threshold=0.3", "-o", str(page)])
    assert res.exit_code == 0, res.output
    sigma = sis.distance_agreement(ann, similarity="linear", method="sigma", threshold=0.3, expected_pairs=400, seed=3)
    ks = sis.distance_agreement(ann, similarity="linear", method="ks", expected_pairs=400, seed=3)
    default = [sis.distance_agreement(ann, similarity="linear", method=m).value for m in ("sigma", "ks")]
    assert min(abs(sigma.value - default[0]), abs(ks.value - default[1])) > 0.03  # the options change both numbers
    section = page.read_text().split('id="coefficients"')[1].split("</section>")[0]
    for coef, py in (("distance_ks", ks), ("distance_sigma", sigma)):
        row = next(r for r in section.split("<tr>") if f"<td>{coef}</td>" in r)
        assert f'<td class="num">{py.value:.4f}</td>' in row and f'<td class="num">{py.expected:.4f}</td>' in row, row
    bad = runner.invoke(app, ["report", str(scores_csv), "-c", "distance_ks", "--distance-option", "threshold=0.1",
                              "-o", str(page)])
    assert bad.exit_code == 2 and "is an option of -c distance_sigma" in bad.output, bad.output
    for command in ("agree", "sensitivity", "report"):  # one option, one help text, wherever the rows are
        shown = " ".join(runner.invoke(app, [command, "--help"], env={"COLUMNS": "250"}).output.replace("│", " ").split())
        assert "--distance-option" in shown and "an option of the distance_ks / distance_sigma rows" in shown, command


@pytest.mark.parametrize("command", ["agree", "sensitivity"])
def test_a_single_chance_other_than_exact_is_shown_in_the_table(run_cli, write_ratings, tmp_path, command):
    """With one --chance mc:5 the table left out the chance column (shown only for two settings or more), so a Monte
    Carlo value read as the exact one; csv and json named it. Shown whenever a row's chance is not exact (or none)."""
    data = write_ratings(tmp_path / "d.csv")
    code, out, err = run_cli(command, data, "-c", "fleiss_kappa", "--chance", "mc:5", "--bootstrap", "0", "-f", "table")
    assert code == 0, err
    assert "chance" in out and "monte_carlo(D=5)" in out, out
    code, out, err = run_cli(command, data, "-c", "fleiss_kappa", "--bootstrap", "0", "-f", "table")
    assert code == 0 and "chance" not in out, out  # the default, exact chance: no column
