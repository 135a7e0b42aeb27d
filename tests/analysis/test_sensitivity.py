"""sensitivity(): tidy table over coefficients x similarities x chance; forest plot."""

import math
import warnings

import matplotlib
import numpy as np
import pandas as pd
import pytest

import softirr_stats as sis
from softirr_stats.analysis import COLUMNS, coefficient_registry, sensitivity
from softirr_stats.uncertainty._analytic import Analytic

matplotlib.use("Agg")

# irrCAC::cont3x3abstractors (docs/formulas/reference_values.md): Cohen 0.7964094022 (SE 0.0589107183),
# quadratic 0.8921568627 (SE 0.0353515076), Scott 0.7962396962 (SE 0.0590547333).
CONT3X3 = np.array([[13, 0, 0], [0, 20, 7], [0, 4, 56]])
NAN = None
K12 = [[1, 1, NAN, 1], [2, 2, 3, 2], [3, 3, 3, 3], [3, 3, 3, 3], [2, 2, 2, 2], [1, 2, 3, 4], [4, 4, 4, 4],
       [1, 1, 2, 1], [2, 2, 2, 2], [NAN, 5, 5, 5], [NAN, NAN, 1, 1], [NAN, NAN, 3, NAN]]
LABELS = ["fever", "fevers", "cough", "coughing", "rash", "skin rash"]


def _rows(table):
    a, b = np.nonzero(table)
    return [[int(i), int(j)] for i, j in zip(a, b, strict=True) for _ in range(table[i, j])]


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


@pytest.fixture(scope="module")
def text_data():
    rng = np.random.default_rng(0)
    truth = rng.integers(0, len(LABELS), 50)
    pick = np.where(rng.random((50, 3)) < 0.5, truth[:, None], rng.integers(0, len(LABELS), (50, 3)))
    return np.asarray(LABELS, dtype=object)[pick].tolist()


class CountingSim:
    """A symmetric estimator that records every pair it is asked to score."""

    name = "prefix4"
    symmetric = True
    fingerprint = "test:prefix4"

    def __init__(self):
        self.calls: list[tuple[str, str]] = []

    def __call__(self, a, b):
        self.calls += list(zip(a, b, strict=True))
        return np.array([1.0 if x == y else (0.7 if x[:4] == y[:4] else 0.05) for x, y in zip(a, b, strict=True)])


def test_table_matches_reference_values_and_direct_calls():
    rows = _rows(CONT3X3)
    df = sensitivity(rows, coefficients=["cohen_kappa", "scott_pi"], similarities=[None, "quadratic"],
                     ci="analytic")
    assert list(df.columns) == list(COLUMNS)
    assert len(df) == 4
    got = df.set_index(["coefficient", "similarity"])
    assert got.loc[("cohen_kappa", "identity"), "value"] == pytest.approx(0.7964094022, abs=1e-9)
    assert got.loc[("cohen_kappa", "identity"), "se"] == pytest.approx(0.0589107183, abs=1e-9)
    assert got.loc[("cohen_kappa", "quadratic"), "value"] == pytest.approx(0.8921568627, abs=1e-9)
    assert got.loc[("cohen_kappa", "quadratic"), "se"] == pytest.approx(0.0353515076, abs=1e-9)
    assert got.loc[("scott_pi", "identity"), "se"] == pytest.approx(0.0590547333, abs=1e-9)
    direct = sis.scott_pi(rows, weights="quadratic", ci="analytic")
    row = got.loc[("scott_pi", "quadratic")]
    assert (row["value"], row["ci_low"], row["ci_high"], row["se"]) == (direct.value, direct.ci_low,
                                                                          direct.ci_high, direct.se)
    assert (df["ci_method"] == "analytic").all() and (df["n_items"] == 100).all()


def test_weight_name_reaches_alpha_as_a_similarity_matrix():
    # alpha takes no weights=: quadratic weights enter as the similarity 1 - (a-b)^2/range^2,
    # which is interval alpha (docs/formulas/reference_values.md: 0.8491071429).
    df = sensitivity(K12, coefficients=["krippendorff_alpha", "fleiss_kappa"], similarities=["quadratic"])
    got = df.set_index("coefficient")["value"]
    assert got["krippendorff_alpha"] == pytest.approx(0.8491071429, abs=1e-9)
    assert got["fleiss_kappa"] == pytest.approx(0.8649350649, abs=1e-9)  # irrCAC, docs/formulas/reference_values.md



def test_alpha_under_irrcac_weights():
    # irrCAC krippen.alpha.raw(cac.raw4raters, weights=...), printed to 5 decimals (docs/formulas/reference_values.md);
    # irrCAC's "ordinal" weights are not Krippendorff's ordinal metric (that is level="ordinal").
    ref = {"ordinal": 0.83364, "linear": 0.80038, "circular": 0.78998, "bipolar": 0.83499, "ratio": 0.79740}
    df = sensitivity(K12, coefficients=["krippendorff_alpha"], similarities=list(ref))
    got = df.set_index("similarity")["value"]
    for name, value in ref.items():
        assert round(got[name], 5) == value


def test_scores_are_shared_across_coefficients(text_data):
    est = CountingSim()
    coefs = ["fleiss_kappa", "conger_kappa", "krippendorff_alpha", "gwet_ac1", "brennan_prediger",
             "percent_agreement", "light_kappa"]
    df = sensitivity(text_data, coefficients=coefs, similarities=[("prefix", est)])
    pairs = {tuple(sorted(p)) for p in est.calls}
    assert len(est.calls) == len(pairs) == math.comb(len(LABELS), 2)  # each label pair scored once
    assert df["n_pairs_scored"].sum() == len(pairs) and df.attrs["n_pairs_scored"] == {"prefix": len(pairs)}
    assert df["n_pairs_scored"].iloc[0] == len(pairs)  # the first row scores, the rest reuse
    for name in ("conger_kappa", "krippendorff_alpha", "gwet_ac1"):  # same as a direct call
        direct = getattr(sis, name)(text_data, similarity=CountingSim())
        assert df.set_index("coefficient").loc[name, "value"] == pytest.approx(direct.value, abs=1e-12)


def test_a_two_rater_coefficient_on_more_raters_names_the_ones_to_use(text_data):
    """cohen_kappa on 3 raters was skipped without a word on what to use (Python's cohen_kappa names them)."""
    df = sensitivity(text_data, coefficients=["cohen_kappa", "scott_pi"], similarities=[None])
    said = dict(zip(df["coefficient"], df["warnings"], strict=True))
    assert said["cohen_kappa"] == ("skipped: cohen_kappa needs exactly 2 raters; the data have 3 (use conger_kappa, "
                                   "fleiss_kappa, light_kappa or krippendorff_alpha)")
    assert said["scott_pi"].endswith("(use fleiss_kappa, conger_kappa, light_kappa or krippendorff_alpha)")
    with pytest.raises(ValueError, match=r"got 3 \(use conger_kappa, fleiss_kappa, light_kappa or krippendorff"):
        sis.cohen_kappa(text_data)


def test_grid_shape_note_rows_and_names(text_data):
    df = sensitivity(text_data, coefficients=["fleiss_kappa", "gwet_ac1", "cohen_kappa", "light_kappa"],
                     similarities=[None, "levenshtein"], chance=["exact", sis.MonteCarlo(permutations=2)],
                     ci="analytic")
    # fleiss: 2 sims x 2 chances; ac1 and light take no chance option: 2 rows each; cohen: note rows
    counts = df["coefficient"].value_counts().to_dict()
    assert counts == {"fleiss_kappa": 4, "gwet_ac1": 2, "cohen_kappa": 4, "light_kappa": 2}
    cohen = df[df["coefficient"] == "cohen_kappa"]
    assert cohen["value"].isna().all() and cohen["warnings"].str.contains("needs exactly 2 raters").all()
    mc = df[(df["coefficient"] == "fleiss_kappa") & (df["chance"] == "monte_carlo(D=2)")]
    assert mc["value"].notna().all() and mc["se"].isna().all()
    assert mc["warnings"].str.contains("no analytic interval").all()
    light = df[df["coefficient"] == "light_kappa"]
    assert light["value"].notna().all() and light["ci_low"].isna().all()
    exact = df[(df["coefficient"] == "fleiss_kappa") & (df["chance"] == "exact")]
    assert (exact["ci_low"] < exact["value"]).all() and (exact["value"] < exact["ci_high"]).all()
    assert set(df["similarity"]) == {"identity", "levenshtein"}


def test_default_coefficients_follow_the_number_of_raters(text_data):
    two = sensitivity(_rows(CONT3X3))
    assert list(two["coefficient"]) == ["cohen_kappa", "scott_pi", "krippendorff_alpha", "gwet_ac1",
                                        "brennan_prediger", "percent_agreement"]
    many = sensitivity(text_data)
    assert list(many["coefficient"])[:2] == ["fleiss_kappa", "conger_kappa"]
    assert many["value"].notna().all()


def test_analytic_config_changes_level_and_population():
    rows = _rows(CONT3X3)
    base = sensitivity(rows, coefficients=["cohen_kappa"], ci="analytic").iloc[0]
    narrow = sensitivity(rows, coefficients=["cohen_kappa"], ci=Analytic(level=0.9, population=400)).iloc[0]
    assert narrow["level"] == 0.9
    assert narrow["se"] == pytest.approx(base["se"] * math.sqrt(1 - 100 / 400), rel=1e-12)
    assert narrow["ci_high"] - narrow["ci_low"] < base["ci_high"] - base["ci_low"]


def test_multilabel_baselines_for_set_labels():
    reg = coefficient_registry()
    if "multilabel_fleiss" not in reg:  # pragma: no cover - depends on the lead's module
        pytest.fail("multilabel_agreement should be importable")
    rng = np.random.default_rng(2)
    x = (rng.random((30, 3, 4)) < 0.35).astype(int)
    x[:, 1] = np.where(rng.random((30, 4)) < 0.7, x[:, 0], x[:, 1])
    ann = sis.Annotations.from_multilabel(x)
    df = sensitivity(ann, coefficients=["multilabel_fleiss", "multilabel_ac1", "multilabel_pabak"],
                     similarities=[None, "jaccard"])
    ok = df[df["value"].notna()].set_index("coefficient")["value"]
    from softirr_stats.api._statistics import multilabel_agreement

    for base in ("fleiss", "ac1", "pabak"):
        assert ok[f"multilabel_{base}"] == pytest.approx(multilabel_agreement(ann, baseline=base).value, abs=1e-12)
    skipped = df[df["similarity"] == "jaccard"]
    assert len(skipped) == 3 and skipped["warnings"].str.contains("takes no similarity").all()


def test_categories_are_the_label_universe_of_set_labels():
    # sensitivity(set annotations, categories=) was refused ("categories= applies to categorical or numeric labels,
    # not sets"), while multilabel_agreement(labels=) and the command line's --categories took the universe
    sets = [({"a", "b"}, {"a"}, {"a", "b"}), ({"b"}, {"b"}, {"b", "c"}), ({"a"}, set(), {"a"}), ({"c"}, {"c"}, {"b"}),
            ({"a", "c"}, {"a"}, {"a", "c"})] * 3
    ann = sis.Annotations.from_wide([list(row) for row in sets])
    universe = ["c", "a", "d", "b"]  # "d": selected by no rating
    ci = sis.Bootstrap(n=200, seed=1)
    names = ["multilabel_fleiss", "multilabel_ac1", "multilabel_pabak", "fleiss_kappa"]
    df = sensitivity(ann, coefficients=names, categories=universe, ci=ci).set_index("coefficient")
    for base in ("fleiss", "ac1", "pabak"):
        py = sis.multilabel_agreement(ann, baseline=base, labels=universe, ci=ci)
        got = df.loc[f"multilabel_{base}"]
        np.testing.assert_allclose([got[k] for k in ("value", "observed", "expected", "ci_low", "ci_high")],
                                   [py.value, py.observed, py.expected, py.ci_low, py.ci_high], rtol=0, atol=1e-12)
    assert abs(df.loc["multilabel_ac1", "value"] - sis.multilabel_agreement(ann, baseline="ac1").value) > 0.1
    # the other rows compare the sets themselves, as without the universe
    assert df.loc["fleiss_kappa", "value"] == pytest.approx(sis.fleiss_kappa(ann).value, abs=1e-12)
    # a wide table of sets takes it too; a universe without a selected label is refused naming both
    wide = sensitivity([list(row) for row in sets], coefficients=["multilabel_ac1"], categories=universe)
    assert wide["value"].iloc[0] == pytest.approx(df.loc["multilabel_ac1", "value"], abs=1e-12)
    with pytest.raises(ValueError, match=r"categories= is the label universe .*\['b'\] is not among them"):
        sensitivity(ann, coefficients=["multilabel_ac1"], categories=["a", "c"])
    with pytest.raises(TypeError, match="labels must be a sequence of label names"):
        sensitivity(ann, coefficients=["multilabel_ac1"], categories="abc")


def test_validation_errors(text_data):
    with pytest.raises(ValueError, match="coefficients must be names from"):
        sensitivity(text_data, coefficients=["kappa"])
    with pytest.raises(ValueError, match="similarity must be one of"):
        sensitivity(text_data, similarities=["levenstein"])
    with pytest.raises(TypeError, match="similarity must be None"):  # the one resolver's message
        sensitivity(text_data, similarities=[3.5])
    with pytest.raises(ValueError, match="ci must be"):
        sensitivity(text_data, ci="bootstrap")
    with pytest.raises(ValueError, match="chance must be"):
        sensitivity(text_data, chance=["permutation"])
    for arg in ("coefficients", "chance", "similarities"):  # coefficients=[] gave an empty table
        with pytest.raises(ValueError, match=f"{arg} must list at least one"):
            sensitivity(text_data, **{arg: []})


def test_forest_plot_draws_one_point_per_finite_row(text_data):
    from matplotlib.collections import LineCollection, PathCollection

    from softirr_stats.reporting import plot_sensitivity

    df = sensitivity(text_data, coefficients=["fleiss_kappa", "krippendorff_alpha", "cohen_kappa", "light_kappa"],
                     similarities=[None, "indel"], ci="analytic")
    ax = plot_sensitivity(df)
    n_points = sum(len(c.get_offsets()) for c in ax.collections if isinstance(c, PathCollection))
    n_bars = sum(len(c.get_segments()) for c in ax.collections if isinstance(c, LineCollection))
    assert n_points == int(df["value"].notna().sum()) == 6  # cohen rows are notes (3 raters)
    assert n_bars == int(df["ci_low"].notna().sum()) == 4  # light has no analytic interval
    assert [t.get_text() for t in ax.get_yticklabels()] == ["fleiss_kappa", "krippendorff_alpha", "light_kappa"]
    assert len(ax.get_legend().get_texts()) == 2  # one colour per similarity
    with pytest.raises(ValueError, match="missing the columns"):
        plot_sensitivity(pd.DataFrame({"value": [1.0]}))
    matplotlib.pyplot.close("all")


def test_bootstrap_interval_passes_through():
    rows = _rows(CONT3X3)
    boot = sis.Bootstrap(n=200, seed=3)
    df = sensitivity(rows, coefficients=["cohen_kappa"], ci=boot)
    direct = sis.cohen_kappa(rows, ci=boot)
    row = df.iloc[0]
    assert row["ci_method"] == "bootstrap-bca-t"  # method="auto" at 100 items
    assert (row["ci_low"], row["ci_high"], row["se"]) == (direct.ci_low, direct.ci_high, direct.se)


def test_docs_examples_run(tmp_path, monkeypatch):
    # docs/uncertainty.md and docs/sensitivity.md: the >>> examples carry irrCAC's numbers. They run
    # in a temporary folder: the forest-plot example saves sensitivity.pdf into the working directory
    import doctest
    import pathlib

    docs = pathlib.Path(__file__).resolve().parents[2] / "docs"
    monkeypatch.chdir(tmp_path)
    results = [doctest.testfile(str(docs / page), module_relative=False) for page in ("uncertainty.md",
                                                                                        "sensitivity.md")]
    assert sum(r.failed for r in results) == 0 and sum(r.attempted for r in results) >= 8
    assert (tmp_path / "sensitivity.pdf").stat().st_size > 1000  # written here, not into the checkout


def test_the_public_names_are_the_analysis_functions():
    import softirr_stats as sis
    from softirr_stats import analysis

    assert analysis.sensitivity is sis.sensitivity
    assert analysis.scoring_plan is sis.scoring_plan


def test_notes_where_an_option_means_less_than_its_name(text_data):
    """AC1 with chance mc:5 ran with its own chance term, labelled as if asked; -m ordinal with alpha read as
    Krippendorff's ordinal alpha. Both silent before."""
    from softirr_stats.agreement import MonteCarlo

    ann = sis.Annotations.from_wide([[1, 2, 2], [3, 3, 4], [1, 1, 1], [2, 3, 2], [4, 4, 3], [2, 2, 2]])
    df = sensitivity(ann, coefficients=["gwet_ac1", "fleiss_kappa"], chance=["exact", MonteCarlo(5, seed=0)])
    ac1 = df[df["coefficient"] == "gwet_ac1"]
    assert len(ac1) == 1 and "gwet_ac1 has its own chance term; chance monte_carlo(D=5) not used" in ac1["warnings"].iloc[0]
    assert not df[df["coefficient"] == "fleiss_kappa"]["warnings"].str.contains("own chance term").any()
    alpha = sensitivity(ann, coefficients=["krippendorff_alpha"], similarities=[None, "ordinal"])
    notes = dict(zip(alpha["similarity"], alpha["warnings"], strict=True))
    assert "not Krippendorff's ordinal alpha" in notes["ordinal"] and "ordinal alpha" not in notes["identity"]
    assert alpha.attrs["warnings"][1][-1] == notes["ordinal"].split("; ")[-1]


def test_percent_agreement_is_noted_as_having_no_chance_term():
    """The note said "percent_agreement has its own chance term": it has none."""
    from softirr_stats.agreement import MonteCarlo

    ann = sis.Annotations.from_wide([[1, 2, 2], [3, 3, 4], [1, 1, 1], [2, 3, 2], [4, 4, 3], [2, 2, 2]])
    df = sensitivity(ann, coefficients=["percent_agreement", "gwet_ac1"], chance=["exact", MonteCarlo(5, seed=0)])
    notes = dict(zip(df["coefficient"], df["warnings"], strict=True))
    assert "percent_agreement has no chance term; chance monte_carlo(D=5) not used" in notes["percent_agreement"]
    assert "gwet_ac1 has its own chance term; chance monte_carlo(D=5) not used" in notes["gwet_ac1"]


def test_weights_without_a_none_entry_is_refused():
    """weights= is used for the None entry of similarities=; without one it was silently ignored, while a single
    coefficient refuses weights= with a similarity. Refused here too, naming both."""
    ann = sis.Annotations.from_wide([[1, 2, 2], [3, 3, 4], [1, 1, 1], [2, 3, 2], [4, 4, 3], [2, 2, 2]])
    with pytest.raises(ValueError, match=r"weights='quadratic' is used for the None entry of similarities=, and "
                                         r"similarities= has none"):
        sensitivity(ann, coefficients=["fleiss_kappa"], similarities=["linear"], weights="quadratic")
    df = sensitivity(ann, coefficients=["fleiss_kappa"], similarities=[None, "linear"], weights="quadratic")
    assert df["similarity"].tolist() == ["quadratic", "linear"]
    assert df["value"].iloc[0] == pytest.approx(sis.fleiss_kappa(ann, weights="quadratic").value, abs=1e-12)


def test_level_forms_run_krippendorffs_levels():
    """The table had no way to ask for Krippendorff's ordinal (interval, ratio) alpha: only similarities, and -m
    ordinal is Gwet's ordinal weights."""
    ann = sis.Annotations.from_wide([[1, 2, 2], [3, 3, 4], [1, 1, 1], [2, 3, 2], [4, 4, 3], [2, 2, 2], [5, 4, 5]])
    names = [f"krippendorff_alpha:{level}" for level in ("nominal", "ordinal", "interval", "ratio")]
    df = sensitivity(ann, coefficients=names, similarities=[None, "quadratic"], chance=["exact", "mc:5"])
    for name in names:
        level = name.partition(":")[2]
        want = sis.krippendorff_alpha(ann, level=level).value
        got = df[(df["coefficient"] == name) & (df["similarity"] == "identity") & (df["chance"] == "exact")]
        assert got["value"].tolist() == [want], name
    weighted = df[(df["similarity"] == "quadratic") & (df["chance"] != "monte_carlo(D=5)")].set_index("coefficient")
    assert weighted.loc["krippendorff_alpha:nominal", "value"] == sis.krippendorff_alpha(
        ann, similarity="quadratic").value  # the nominal level takes a similarity, as level="nominal" does
    for name in names[1:]:  # the other levels are their own distance: a note row, never the similarity dropped
        assert weighted.loc[name, "warnings"] == f"skipped: {name} takes no similarity or weights"
    ordinal = df[df["coefficient"] == "krippendorff_alpha:ordinal"]
    assert "chance monte_carlo(D=5) not used" in ordinal["warnings"].iloc[0]  # its chance is its own
    with pytest.raises(ValueError, match="krippendorff_alpha:ordinal"):
        sensitivity(ann, coefficients=["krippendorff_alpha:ordnial"])


def test_score_statistics_have_no_chance_term_rather_than_their_own():
    """icc2 with chance mc:5 was noted as having 'its own chance term'; an ICC has none. Its value is icc's."""
    from softirr_stats.agreement import MonteCarlo

    sf = [[9, 2, 5, 8], [6, 1, 3, 2], [8, 4, 6, 8], [7, 1, 2, 6], [10, 5, 6, 9], [6, 2, 4, 7]]
    df = sensitivity(sf, coefficients=["icc2", "kendall_w"], chance=["exact", MonteCarlo(5, seed=0)])
    assert len(df) == 2
    for name, note in zip(df["coefficient"], df["warnings"], strict=True):
        assert note == f"{name} has no chance term (a statistic of numeric scores); chance monte_carlo(D=5) not used"
    assert df["value"].iloc[0] == pytest.approx(sis.icc(sf, form="ICC2").value, abs=1e-12)
    assert df["value"].iloc[0] == pytest.approx(0.2897637795275591, abs=1e-12)  # pingouin ICC(A,1); S&F .29


def test_rows_that_did_not_run_used_no_items(text_data):
    """A skipped or failed row reported every item of the data in n_items; it used none (0, as n_pairs_scored)."""
    df = sensitivity(text_data, coefficients=["fleiss_kappa", "cohen_kappa", "multilabel_fleiss", "gwet_ac1"],
                     similarities=[None, "levenshtein"])
    ran = df["value"].notna()
    skipped = df["warnings"].str.startswith("skipped:")
    assert skipped.sum() == 4 and not ran[skipped].any()  # cohen and multilabel_fleiss, each measure
    assert (df.loc[skipped, "n_items"] == 0).all() and (df.loc[skipped, "n_pairs_scored"] == 0).all()
    assert (df.loc[ran, "n_items"] == len(text_data)).all() and df["n_items"].dtype.kind == "i"
    failed = sensitivity([["a", "b"], ["b", "a"]], coefficients=["krippendorff_alpha:ratio"])
    assert failed["warnings"].iloc[0].startswith("error:") and failed["n_items"].iloc[0] == 0



def test_declared_categories_are_said_not_to_enter_the_score_statistics():
    """categories= declared with icc / Lin's CCC / Kendall's W changed nothing there and said nothing."""
    sf = [[9, 2, 5, 8], [6, 1, 3, 2], [8, 4, 6, 8], [7, 1, 2, 6], [10, 5, 6, 9], [6, 2, 4, 7]]
    names = ["icc2", "kendall_w", "brennan_prediger"]
    plain = sensitivity(sf, coefficients=names)
    declared = sensitivity(sf, coefficients=names, categories=list(range(1, 12)))
    for name, note in zip(declared["coefficient"], declared["warnings"], strict=True):
        said = "declared categories" in note
        assert said == (name != "brennan_prediger"), (name, note)
    scores = declared["coefficient"] != "brennan_prediger"
    assert declared.loc[scores, "value"].tolist() == plain.loc[scores, "value"].tolist()
    assert declared["value"].iloc[2] != plain["value"].iloc[2]  # an unused category counts for Brennan-Prediger
    note = declared["warnings"].iloc[0]
    assert note == ("icc2 is a statistic of the numeric scores: the declared categories (11) do not change it")
    two = sensitivity([row[:2] for row in sf], coefficients=["lin_ccc"], categories=list(range(1, 12)))
    assert "declared categories" in two["warnings"].iloc[0]
