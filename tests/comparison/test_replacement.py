"""``softirr_stats.replacement_test``: the alternative annotator test against its authors' implementation.

Reference: Calderon, Reichart & Dror (ACL 2025), code and data at github.com/nitaytech/AltTest
(``alt_test_example.ipynb``, function ``alt_test``; data ``data/mtbench`` and ``data/cebab_stars``).
The fixtures ``tests/fixtures/alttest_mtbench.csv`` (3 humans, GPT-4o, Gemini Pro, Mistral v0.3; labels
model_a / model_b / tie, scored by accuracy, epsilon 0.2 as in the notebook) and
``tests/fixtures/alttest_cebab_stars.csv`` (10 humans, GPT-4o and Mistral v0.3; 1-5 stars, scored by
neg_rmse, epsilon 0.1) are those files in long form, item ids renumbered. The p-values, advantage
probabilities and winning rates below were produced by running the authors' ``alt_test`` function
on the original JSON files; the notebook prints the rounded ones (mtbench: winning rate 0.00 and
advantage probability 0.77 / 0.76 / 0.68).
"""

import pathlib

import numpy as np
import pandas as pd
import pytest

import softirr_stats as sis
from softirr_stats.base._validation import SoftIRRWarning
from softirr_stats.comparison._replacement import FewHumansWarning, benjamini_yekutieli

pytestmark = pytest.mark.filterwarnings("ignore::softirr_stats.comparison._replacement.FewHumansWarning")

DATA = pathlib.Path(__file__).resolve().parents[1] / "fixtures"

# alt_test(llm, humans, scoring_function, epsilon) of the authors' notebook: (winning rate, advantage prob,
# per-human p-values, per-human advantage probabilities)
MTBENCH = {
    "gpt-4o": (0.0, 0.7728101478101479,
               {"author_0": 0.01918244093228336, "author_4": 0.026002982435099666, "expert_24": 0.314542003206683},
               {"author_0": 0.7702702702702703, "author_4": 0.8095238095238095, "expert_24": 0.7386363636363636}),
    "gemini_pro": (0.0, 0.7645128895128894,
                   {"author_0": 0.04996886964090339, "author_4": 0.431250670838641, "expert_24": 0.050784314523462916},
                   {"author_0": 0.7702702702702703, "author_4": 0.7619047619047619,
                    "expert_24": 0.7613636363636364}),
    "mistral-v03": (0.0, 0.6831929331929332,
                    {"author_0": 0.5911554306342248, "author_4": 0.273432453672038, "expert_24": 0.5955940845895182},
                    {"author_0": 0.6891891891891891, "author_4": 0.6785714285714286,
                     "expert_24": 0.6818181818181818}),
}
CEBAB_STARS = {
    "gpt-4o": (0.9, 0.8985877019326693,
               {"w197": 2.4276658490796463e-09, "w40": 8.619430438019487e-58, "w152": 0.0031170323526773774,
                "w198": 1.227342223659651e-10, "w162": 5.500871532128429e-11, "w168": 3.085695878457195e-07,
                "w44": 0.22958860580059584, "w2": 1.0960539294659997e-05, "w65": 4.047349679759104e-05,
                "w91": 4.537813757664703e-05}),
    "mistral-v03": (0.5, 0.8290684214741388,
                    {"w197": 0.00253084525215389, "w40": 1.2369562363846994e-58, "w152": 0.09654332072923211,
                     "w198": 8.481458295999129e-05, "w162": 2.4772067494761723e-06, "w168": 0.0032322634315530515,
                     "w44": 0.041143434625558264, "w2": 0.18588364843162564, "w65": 0.054898499932841946,
                     "w91": 0.4503382983481283}),
}


def _load(name):
    return sis.Annotations.from_long(pd.read_csv(DATA / f"alttest_{name}.csv"), item="item", rater="rater",
                                     label="label")


@pytest.mark.parametrize("llm", sorted(MTBENCH))
def test_mtbench_accuracy_matches_the_authors(llm):
    ann = _load("mtbench")
    humans = ["author_0", "author_4", "expert_24"]
    r = sis.replacement_test(ann.subset_raters([*humans, llm]), llm, epsilon=0.2)
    omega, rho, p, adv = MTBENCH[llm]
    assert (r.omega, r.passed, r.n_humans) == (omega, False, 3)
    assert r.rho == pytest.approx(rho, abs=1e-12)
    got = r.by_human.set_index("human")
    for h in humans:
        assert got.loc[h, "p_value"] == pytest.approx(p[h], rel=1e-9, abs=1e-15)
        assert got.loc[h, "candidate_advantage"] == pytest.approx(adv[h], abs=1e-12)
    assert got["n_items"].tolist() == [74, 84, 88]
    assert f"{r.rho:.2f}" == {"gpt-4o": "0.77", "gemini_pro": "0.76", "mistral-v03": "0.68"}[llm]  # the notebook


@pytest.mark.parametrize("llm", sorted(CEBAB_STARS))
def test_cebab_stars_neg_rmse_matches_the_authors(llm):
    ann = _load("cebab_stars")
    humans = [r for r in ann.raters if str(r).startswith("w")]
    r = sis.replacement_test(ann.subset_raters([*humans, llm]), llm, scoring="neg_rmse", epsilon=0.1)
    omega, rho, p = CEBAB_STARS[llm]
    assert r.omega == pytest.approx(omega, abs=1e-15) and r.n_humans == 10
    assert r.rho == pytest.approx(rho, abs=1e-12)
    got = r.by_human.set_index("human")["p_value"]
    for h, v in p.items():
        assert got[h] == pytest.approx(v, rel=1e-8, abs=1e-300)


def test_soft_similarity_with_exact_matrix_equals_exact_and_soft_moves_the_scores():
    ann = _load("mtbench").subset_raters(["author_0", "author_4", "expert_24", "gpt-4o"])
    exact = sis.replacement_test(ann, "gpt-4o", epsilon=0.2)
    eye = sis.replacement_test(ann, "gpt-4o", epsilon=0.2, similarity=np.eye(len(ann.vocabulary)))
    pd.testing.assert_frame_equal(exact.by_human, eye.by_human)
    # a tie counted as half agreement with either model (labels: model_a, model_b, tie)
    S = np.eye(3)
    S[2, :2] = S[:2, 2] = 0.5
    soft = sis.replacement_test(ann, "gpt-4o", epsilon=0.2, similarity=S)
    assert soft.similarity != exact.similarity and not np.allclose(soft.by_human.p_value, exact.by_human.p_value)


def test_benjamini_yekutieli_matches_statsmodels():
    multitest = pytest.importorskip("statsmodels.stats.multitest")
    rng = np.random.default_rng(0)
    for _ in range(20):
        p = rng.random(rng.integers(2, 12)) ** 3
        expected = multitest.multipletests(p, alpha=0.05, method="fdr_by")[0]
        np.testing.assert_array_equal(benjamini_yekutieli(p, 0.05), expected)


def test_candidate_like_the_humans_does_not_pass_at_epsilon_zero():
    rng = np.random.default_rng(3)
    truth = rng.integers(0, 3, 200)
    table = np.column_stack([np.where(rng.random(200) < 0.7, truth, rng.integers(0, 3, 200)) for _ in range(5)])
    r = sis.replacement_test(table.tolist(), candidate=4, epsilon=0.0)
    assert not r.passed and r.n_items == 200 and 0.6 < r.rho < 0.95


def test_warnings_and_errors():
    rows = [["a", "a", "a"], ["b", "b", "a"], ["a", "b", "b"]] * 12
    with pytest.warns(FewHumansWarning, match="only 2 humans tested"):
        sis.replacement_test(rows, candidate=2)
    with pytest.warns(FewHumansWarning, match="only 36 items"):
        sis.replacement_test(rows, candidate=2)
    with pytest.raises(ValueError, match="candidate 'llm' is not a rater of the data"):
        sis.replacement_test(rows, candidate="llm")
    with pytest.raises(ValueError, match="at least 2 human annotators"):
        sis.replacement_test(rows, candidate=2, humans=[0])
    with pytest.raises(ValueError, match="needs numeric labels"):
        sis.replacement_test(rows, candidate=2, scoring="neg_rmse")
    with pytest.raises(ValueError, match="epsilon must be a number in \\[0, 1\\)"):
        sis.replacement_test(rows, candidate=2, epsilon=1.5)
    with pytest.raises(ValueError, match="scoring"):
        sis.replacement_test(rows, candidate=2, scoring="f1")
    with pytest.raises(ValueError, match="no human has 100 usable items"):
        sis.replacement_test(rows, candidate=2, min_items_per_human=100)


def test_result_formats():
    ann = _load("mtbench").subset_raters(["author_0", "author_4", "expert_24", "gpt-4o"])
    r = sis.replacement_test(ann, "gpt-4o", epsilon=0.2)
    assert "FAILED" in str(r) and r.to_markdown().count("\n|") >= 4 and "\\toprule" in r.to_latex()
    assert r.to_dict()["omega"] == 0.0 and list(r.to_frame().human) == ["author_0", "author_4", "expert_24"]
    assert "<table>" in r._repr_html_()


def test_numpy_scalars_are_numbers_for_epsilon_and_q():
    ann = _load("mtbench")
    humans = ["author_0", "author_4", "expert_24"]
    llm = sorted(MTBENCH)[0]
    sub = ann.subset_raters([*humans, llm])
    plain = sis.replacement_test(sub, llm, epsilon=0.25, q=0.5)
    numpy = sis.replacement_test(sub, llm, epsilon=np.float32(0.25), q=np.float64(0.5))  # refused before
    assert numpy.rho == plain.rho and numpy.omega == plain.omega
    with pytest.raises(ValueError, match="epsilon must be a number"):
        sis.replacement_test(sub, llm, epsilon=True)


def _with_a_part_time_human(n=120, part=20, seed=1):
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, 4, n)

    def lab(p):
        return np.where(rng.random(n) < p, rng.integers(0, 4, n), truth).astype(float)

    df = pd.DataFrame({"h1": lab(0.3), "h2": lab(0.3), "h3": lab(0.3), "h4": lab(0.3), "llm": lab(0.15)})
    df.loc[part:, "h4"] = np.nan
    return df


def test_an_untested_human_is_warned_about_and_shown_as_not_tested():
    # h4 (20 items < 30) was skipped with no warning, "3 of 3 humans", and a p-value and "no" in the tables
    with pytest.warns(FewHumansWarning, match=r"humans \['h4'\] have fewer than 30 usable items"):
        r = sis.replacement_test(_with_a_part_time_human(), candidate="llm", epsilon=0.1)
    assert "3 of 3 tested humans; not tested: h4" in str(r)
    row = r.by_human.set_index("human").loc["h4"]
    assert not row.tested and np.isnan(row.p_value) and np.isnan(row.t) and not row.candidate_wins
    md = r.to_markdown()
    assert "| Tested |" in md and "| h4 | 20 | 1.000 | -0.350 | no | — | — | — |" in md
    assert "& no & -- & -- & --" in r.to_latex().replace("—", "--") and "<td>no</td><td>—</td>" in r._repr_html_()


def test_a_human_with_one_item_has_no_t_test_as_in_scipy():
    from scipy.stats import ttest_1samp

    rows = []
    for i in range(40):
        rows += [(i, "h1", "a" if i % 3 else "b"), (i, "h2", "a" if (i + 1) % 3 else "b"),
                 (i, "llm", "a" if i % 3 else "b")]
    rows.append((0, "h3", "b"))
    ann = sis.Annotations.from_long(pd.DataFrame(rows, columns=["item", "rater", "label"]))
    with pytest.warns(FewHumansWarning, match=r"humans \['h3'\] have a single usable item"):
        r = sis.replacement_test(ann, "llm", epsilon=0.1, min_items_per_human=1)
    h3 = r.by_human.set_index("human").loc["h3"]
    with np.errstate(divide="ignore", invalid="ignore"):  # the authors' test: nan, not rejected
        authors = ttest_1samp([h3.mean_difference], 0.1, alternative="less")
    assert np.isnan(authors.pvalue) and np.isnan(h3.p_value) and np.isnan(h3.t)  # t = -inf, p = 0 before
    assert h3.tested and not h3.candidate_wins and r.omega == pytest.approx(2 / 3)


def test_options_the_scoring_does_not_use_are_refused_and_the_raised_minimum_warned():
    ann = _load("cebab_stars")
    with pytest.raises(ValueError, match="scoring='neg_rmse' .* takes no similarity="):
        sis.replacement_test(ann, "gpt-4o", scoring="neg_rmse", similarity=np.eye(5))
    with pytest.raises(ValueError, match="takes no weights="):
        sis.replacement_test(ann, "gpt-4o", scoring="neg_rmse", weights="quadratic")
    rows = [["a", "a", "a", "a"], ["b", "b", "a", "b"], ["a", "b", "b", "b"]] * 20
    with pytest.warns(SoftIRRWarning, match="min_humans_per_item=1 is raised to 2"):
        one = sis.replacement_test(rows, candidate=3, min_humans_per_item=1)
    assert one.rho == sis.replacement_test(rows, candidate=3).rho
    with pytest.raises(ValueError, match="min_items_per_human must be a whole number >= 1"):
        sis.replacement_test(rows, candidate=3, min_items_per_human=0)


def test_tables_print_a_tiny_p_in_scientific_form_with_the_authors_digits():
    """The per-human table printed p with three significant digits, and a p that underflows as "0"; it now prints
    p as every table does (base._format.format_p): three decimals, two significant digits below 0.0001."""
    ann = _load("cebab_stars")
    humans = [r for r in ann.raters if str(r).startswith("w")]
    r = sis.replacement_test(ann.subset_raters([*humans, "gpt-4o"]), "gpt-4o", scoring="neg_rmse", epsilon=0.1)
    rows = {line.split(" | ")[0].lstrip("| "): line.split(" | ") for line in r.to_markdown().splitlines()
            if line.startswith("| w")}
    for h, p in CEBAB_STARS["gpt-4o"][2].items():  # the authors' p, to the printed digits
        shown = rows[h][6]
        assert shown == (f"{p:.2g}" if p < 1e-4 else f"{p:.3f}"), (h, shown, p)
    assert rows["w40"][6] == "8.6e-58" and rows["w152"][6] == "0.003"
    from dataclasses import replace

    under = replace(r, by_human=r.by_human.assign(p_value=0.0))
    assert all(line.split(" | ")[6] == "&lt;1e-300" for line in under.to_markdown().splitlines()
               if line.startswith("| w"))
