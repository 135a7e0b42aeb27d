"""Regression tests: unusual but legitimate input must never give a silently wrong number."""

import warnings

import numpy as np
import pandas as pd
import pytest

import softirr_stats as sis
from softirr_stats.base._validation import SoftIRRWarning


def _write(tmp_path, text, name="a.csv", mode="w"):
    p = tmp_path / name
    if mode == "wb":
        p.write_bytes(text)
    else:
        p.write_text(text, encoding="utf-8")
    return p


# --- NA strings are labels ---------------------------------------------------------------
NA_CSV = "item,rater,label\n1,a,NA\n1,b,NA\n2,a,yes\n2,b,yes\n3,a,NA\n3,b,no\n4,a,no\n4,b,no\n"


@pytest.mark.parametrize("token", ["NA", "N/A", "None", "null", "NaN", "n/a", "nan", "NULL", "#N/A", "-"])
def test_na_strings_are_labels_by_default(tmp_path, token):
    p = _write(tmp_path, NA_CSV.replace("NA", token))
    ann = sis.read_annotations(p)
    assert token in ann.vocabulary and ann.n_ratings == 8
    assert sis.cohen_kappa(ann).value == pytest.approx(sis.cohen_kappa(sis.Annotations.from_wide(
        [["NA", "NA"], ["yes", "yes"], ["NA", "no"], ["no", "no"]])).value)


def test_na_values_opt_in_and_empty_cells_missing(tmp_path):
    p = _write(tmp_path, NA_CSV + "5,a,\n5,b,yes\n")
    ann = sis.read_annotations(p)
    assert ann.n_ratings == 9 and "" not in ann.vocabulary  # the empty cell is missing
    only = sis.read_annotations(p, na_values=["NA"])
    assert "NA" not in only.vocabulary and only.n_ratings == 6
    assert sis.read_annotations(p, na_values="NA").n_ratings == 6
    with pytest.raises(TypeError, match="na_values"):
        sis.read_annotations(p, na_values=[1])


def test_na_strings_in_tsv_and_jsonl(tmp_path):
    p = _write(tmp_path, NA_CSV.replace(",", "\t"), "a.tsv")
    assert "NA" in sis.read_annotations(p).vocabulary
    j = _write(tmp_path, '{"item": 1, "rater": "a", "label": "NA"}\n{"item": 1, "rater": "b", "label": null}\n'
               '{"item": 2, "rater": "a", "label": "x"}\n{"item": 2, "rater": "b", "label": "x"}\n', "a.jsonl")
    ann = sis.read_annotations(j)
    assert "NA" in ann.vocabulary and ann.n_ratings == 3
    assert sis.read_annotations(j, na_values=["NA"]).n_ratings == 2


# --- identifiers are text ------------------------------------------------------------------
def test_item_and_rater_identifiers_are_strings(tmp_path):
    p = _write(tmp_path, "item,rater,label\n007,01,x\n007,1,x\n7,01,y\n7,1,y\n")
    ann = sis.read_annotations(p)
    assert ann.items == ("007", "7") and ann.raters == ("01", "1")
    assert sis.cohen_kappa(ann).value == pytest.approx(1.0)  # was 0.4 with merged ids


def test_numeric_labels_stay_numeric(tmp_path):
    p = _write(tmp_path, "item,rater,label\n1,a,1\n1,b,2\n2,a,3\n2,b,3\n3,a,2\n3,b,2\n")
    ann = sis.read_annotations(p)
    assert ann.kind == "numeric" and ann.vocabulary == (1, 2, 3)
    p2 = _write(tmp_path, "item,rater,label\n1,a,1.5\n1,b,2\n2,a,3\n2,b,3\n", "f.csv")
    assert sis.read_annotations(p2).vocabulary == (1.5, 2.0, 3.0)
    p3 = _write(tmp_path, "item,rater,label\n1,a,1\n1,b,NA\n", "m.csv")
    assert sis.read_annotations(p3).kind == "categorical"  # "NA" keeps the column text


# --- files that cannot be read name the file ---------------------------------------------
def test_empty_undecodable_and_shifted_files(tmp_path):
    with pytest.raises(ValueError, match=r"e\.csv: the file is empty"):
        sis.read_annotations(_write(tmp_path, "", "e.csv"))
    with pytest.raises(ValueError, match=r"e\.jsonl: the file is empty"):
        sis.read_annotations(_write(tmp_path, "\n\n", "e.jsonl"))
    with pytest.raises(ValueError, match=r"latin\.csv: not UTF-8"):
        sis.read_annotations(_write(tmp_path, "item,rater,label\n1,a,caf\xe9\n".encode("latin-1"), "latin.csv", "wb"))
    with pytest.raises(ValueError, match=r"shift\.csv: some rows have more fields than the header"):
        sis.read_annotations(_write(tmp_path, "item,rater,label\n1,a,x,oops\n1,b,y,z\n", "shift.csv"))
    with pytest.warns(SoftIRRWarning, match="trailing"):
        ann = sis.read_annotations(_write(tmp_path, "item,rater,label\n1,a,x,\n1,b,x,\n2,a,y,\n2,b,y,\n", "tc.csv"))
    assert ann.items == ("1", "2") and ann.raters == ("a", "b") and ann.vocabulary == ("x", "y")


# --- unicode normalisation is opt-in --------------------------------------------------------
def test_unicode_normalisation_opt_in(tmp_path):
    decomposed, composed = "cafe\u0301", "caf\u00e9"
    wide = [[decomposed, composed], ["x", "x"], ["y", "y"]]
    assert len(sis.Annotations.from_wide(wide).vocabulary) == 4  # default: exact
    ann = sis.Annotations.from_wide(wide, normalize="NFC")
    assert ann.vocabulary == (composed, "x", "y")
    assert sis.cohen_kappa(ann).value == pytest.approx(1.0)
    folded = sis.Annotations.from_wide([["Heart", "heart"], ["x", "X"]], normalize="casefold")
    assert folded.vocabulary == ("heart", "x")
    sets = sis.Annotations.from_wide([[{decomposed}, {composed}], [{"a"}, {"a"}]], normalize="NFC")
    assert sets.vocabulary == (frozenset({"a"}), frozenset({composed}))
    p = _write(tmp_path, f"item,rater,label\n1,a,{decomposed}\n1,b,{composed}\n")
    assert sis.read_annotations(p, normalize="NFC").vocabulary == (composed,)
    with pytest.raises(ValueError, match="normalize must be one of"):
        sis.Annotations.from_wide(wide, normalize="nfc")


# --- bootstraps that cannot vary are refused; intervals stay in range ----------------------
from softirr_stats.agreement._evaluator import DegenerateWarning  # noqa: E402

TABLE = np.random.default_rng(0).integers(0, 3, (12, 3)).tolist()


@pytest.mark.parametrize("kwargs, exc, fragment", [
    (dict(chunk_size=-3), ValueError, "chunk_size must be >= 1"),
    (dict(chunk_size=2.5), TypeError, "chunk_size must be an integer"),
    (dict(seed=1.5), TypeError, "seed must be an integer"),
    (dict(seed=2**70), ValueError, r"seed must be an integer in \[0, 2\*\*63 - 1\]"),
    (dict(seed=-1), ValueError, "seed must be an integer"),
    (dict(seed=True), TypeError, "seed must be an integer"),
])
def test_bootstrap_arguments_validated_up_front(kwargs, exc, fragment):
    with pytest.raises(exc, match=fragment):
        sis.Bootstrap(n=10, **kwargs)


def test_degenerate_designs_are_refused():
    with pytest.raises(ValueError, match="needs at least 2 clusters to resample; got 1 in total"):
        sis.fleiss_kappa(TABLE, ci=sis.Bootstrap(n=50, design="cluster", cluster=[0] * 12))
    with pytest.raises(ValueError, match="needs at least 2 items per stratum to resample; got 1 in 12 of 12 strata"):
        sis.fleiss_kappa(TABLE, ci=sis.Bootstrap(n=50, strata=list(range(12))))
    with pytest.raises(ValueError, match="needs at least 2 items per stratum to resample; got 1 in 1 of 3 strata"):
        sis.fleiss_kappa(TABLE, ci=sis.Bootstrap(n=50, design="bayesian", strata=[0] * 6 + [1] * 5 + [2]))
    two = [row[:2] for row in TABLE]
    with pytest.raises(ValueError, match="resamples raters and needs at least 3; got 2"):
        sis.cohen_kappa(two, ci=sis.Bootstrap(n=50, design="raters"))
    with pytest.raises(ValueError, match="resamples raters and needs at least 3"):
        sis.krippendorff_alpha(two, ci=sis.Bootstrap(n=50, design="items+raters"))
    ok = sis.fleiss_kappa(TABLE, ci=sis.Bootstrap(n=50, design="cluster", cluster=[i // 3 for i in range(12)]))
    assert ok.ci_low < ok.ci_high and ok.se > 1e-6


def test_mostly_nan_or_identical_replicates_warn():
    from softirr_stats.uncertainty._bootstrap import replicate_problem

    assert "6 of 9 bootstrap replicates are undefined" in replicate_problem(np.r_[[np.nan] * 6, 0.1, 0.2, 0.3])
    assert replicate_problem(np.r_[[np.nan] * 3, np.linspace(0, 1, 6)]) == ""
    # kappa 0 in every resample that has the one disagreement, nan in the others
    with pytest.warns(DegenerateWarning, match="finite bootstrap replicates are identical"):
        r = sis.cohen_kappa([["a", "a"]] * 9 + [["a", "b"]], ci=sis.Bootstrap(n=200, seed=1))
    assert abs(r.value) < 1e-12 and r.ci_high - r.ci_low < 1e-12 and any("understates" in w for w in r.warnings)


def test_every_replicate_undefined_says_there_is_no_interval_once():
    """Every rating one label: kappa is undefined on every resample. The notes said the 200 replicates were left out
    of the interval, "no finite replicates", and that the interval "rests on the few where the coefficient exists"."""
    with pytest.warns(DegenerateWarning, match="all 200 bootstrap replicates are undefined"):
        r = sis.cohen_kappa([["x", "x"]] * 25, ci=sis.Bootstrap(n=200, seed=0))
    assert np.isnan(r.value) and np.isnan(r.ci_low) and np.isnan(r.ci_high) and r.details["n_nan_replicates"] == 200
    about = [w for w in r.warnings if "replicates" in w]
    assert about == ["all 200 bootstrap replicates are undefined (nan): the coefficient exists on no resample, so "
                     "there is no interval"], r.warnings
    assert not any("rests on the few" in w or "no finite replicates" in w for w in r.warnings)
    with pytest.warns(DegenerateWarning, match="finite bootstrap replicates are identical"):
        r = sis.percent_agreement([["a", "b"]] * 8, ci=sis.Bootstrap(n=100))
    assert r.ci_low == r.ci_high == 0.0 and any("understates" in w for w in r.warnings)


def test_basic_bootstrap_limits_clipped_to_the_range():
    near_perfect = [["a", "a"]] * 18 + [["b", "b"]] * 18 + [["a", "b"], ["c", "c"], ["c", "c"], ["b", "b"]]
    raw = sis.cohen_kappa(near_perfect, ci=sis.Bootstrap(n=400, method="percentile", seed=2))
    r = sis.cohen_kappa(near_perfect, ci=sis.Bootstrap(n=400, method="basic", seed=2))
    assert 2 * r.value - raw.ci_low > 1.0  # the unclipped basic upper limit
    assert r.ci_high == 1.0 and any("truncated at 1" in w for w in r.warnings)
    assert r.ci_low == pytest.approx(2 * r.value - raw.ci_high)


# --- ordered weights need an order; SEs need enough pairs; counts agree ----------------------
def test_named_weights_on_text_labels_need_categories():
    table = [["low", "medium"], ["high", "high"], ["medium", "medium"], ["low", "high"]]
    with pytest.raises(ValueError, match=r"weights='linear' orders the labels.*categories="):
        sis.cohen_kappa(table, weights="linear")
    with pytest.raises(ValueError, match="categories="):
        sis.fleiss_kappa(table, weights="quadratic")
    ordered = sis.cohen_kappa(table, weights="linear", categories=["low", "medium", "high"])
    assert np.isfinite(ordered.value)
    assert sis.cohen_kappa(table, weights="identity").value == pytest.approx(sis.cohen_kappa(table).value)
    assert np.isfinite(sis.cohen_kappa([[1, 2], [3, 3], [2, 2], [1, 3]], weights="linear").value)


def test_sampled_pairs_se_needs_enough_pairs():
    table = np.random.default_rng(1).integers(0, 4, (30, 2)).tolist()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateWarning)
        r = sis.scott_pi(table, chance=sis.SampledPairs(n=2))
    assert np.isnan(r.chance_se) and any("fewer than the 30" in w for w in r.warnings)
    big = sis.scott_pi(table, chance=sis.SampledPairs(n=4000))
    assert 0 < big.chance_se < 0.05 and not any("chance_se is nan" in w for w in big.warnings)


def test_unpairable_warning_and_result_agree_on_the_count():
    df = pd.DataFrame({"item": [1, 1, 2, 3, 3, 4], "rater": ["a", "b", "a", "a", "b", "a"],
                       "label": ["x", "x", "y", "x", "y", None]})
    ann = sis.Annotations.from_long(df)
    with pytest.warns(sis.UnpairableItemsWarning) as rec:
        r = sis.fleiss_kappa(ann)
    shown = [str(w.message) for w in rec if issubclass(w.category, sis.UnpairableItemsWarning)]
    # item 2 has one rating, item 4 none: said apart (the one that counts nowhere was said to count in chance)
    assert shown[0].startswith("1 of 4 items have one rating") and "; 1 of 4 items have no rating" in shown[0]
    assert shown[0] in r.warnings


# --- long work says so: cost estimate, auto budget, progress, long labels, bounded blocks ----
def _vocab_table(k, seed=0):
    rng = np.random.default_rng(seed)
    words = [f"w{i:04d}x{'y' * (i % 7)}" for i in range(k)]
    return [[words[rng.integers(k)], words[rng.integers(k)]] for _ in range(k)]


def test_auto_switches_to_sampled_pairs_beyond_the_time_budget(monkeypatch):
    import time as _time

    from softirr_stats.agreement import _evaluator

    def slow(a, b):
        _time.sleep(2e-4 * len(a))
        return [float(x[:4] == y[:4]) for x, y in zip(a, b, strict=False)]

    est = sis.equivalence.as_estimator(slow, symmetric=True)
    table = _vocab_table(80)
    monkeypatch.setattr(_evaluator, "AUTO_BUDGET_SECONDS", 0.05)
    r = sis.fleiss_kappa(table, similarity=est, chance="auto")
    assert r.chance.startswith("sampled_pairs") and np.isfinite(r.chance_se)
    assert any("chose SampledPairs" in w and "budget 0.05 s" in w and "ms per pair" in w for w in r.warnings)
    monkeypatch.setattr(_evaluator, "AUTO_BUDGET_SECONDS", 3600.0)
    r = sis.fleiss_kappa(table, similarity=est, chance="auto")
    assert r.chance == "exact" and any("chose exact" in w and "estimated" in w for w in r.warnings)


def test_progress_bar_only_when_asked_or_on_a_terminal(monkeypatch, capsys):
    from softirr_stats.agreement import _cost, prepare, resolve_similarity

    ann = sis.Annotations.from_wide(_vocab_table(60))
    monkeypatch.setattr(_cost, "PROGRESS_AFTER_SECONDS", 0.0)

    def slow(a, b):
        return [0.5] * len(a)

    for progress, shown in ((True, True), (False, False), (None, False)):  # pytest's stderr is no terminal
        sim = resolve_similarity(ann, similarity=sis.equivalence.as_estimator(slow, symmetric=True))
        prepare(ann, "pooled", sim, progress=progress)
        err = capsys.readouterr().err
        assert ("scoring label pairs" in err) == shown, (progress, err[-300:])


def test_long_labels_warn_and_blocks_stay_bounded():
    from softirr_stats.agreement._chance import BlockedQuad
    from softirr_stats.agreement._cost import LONG_LABEL_CHARS, CostWarning

    long_a, long_b = "a" * (LONG_LABEL_CHARS + 1), "a" * LONG_LABEL_CHARS + "b"
    with pytest.warns(CostWarning, match=r"1 label\(s\) are longer than 10000 characters.*'levenshtein' is slow: "
                                         r"edit distances cost O\(length\^2\) per pair\. Consider"):
        sis.fleiss_kappa([[long_a, "x"], ["x", "x"], ["y", "y"]], similarity=sis.equivalence.Levenshtein())
    with pytest.warns(CostWarning, match=r"'<lambda>' is slow: model-based estimators truncate long inputs"):
        sis.fleiss_kappa([[long_a, "x"], ["x", "x"], ["y", "y"]],
                         similarity=lambda a, b: np.array([float(x == y) for x, y in zip(a, b, strict=True)]))
    with warnings.catch_warnings():  # set measures count each label's tokens once: nothing to warn of
        warnings.simplefilter("error", CostWarning)
        for measure in ("jaccard", "masi"):
            sis.fleiss_kappa([[long_a, "x"], ["x", "x"], ["y", "y"]], similarity=measure)
    with warnings.catch_warnings():
        warnings.simplefilter("error", CostWarning)
        sis.fleiss_kappa([[long_a, long_b], ["x", "x"]])  # exact matching scores nothing: no warning
    from softirr_stats.equivalence import ScoredSimilarity

    sim = ScoredSimilarity(sis.equivalence.Levenshtein(), tuple(f"l{i}" for i in range(200_000)))
    assert BlockedQuad(sim, np.arange(200_000)).block_rows * 200_000 <= 2**23
