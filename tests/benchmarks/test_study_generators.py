"""The study scripts of issue 34 at smoke size: benchmarks/agreement_test_size.py (size of the tests of
agreement) and benchmarks/span_f1_coverage.py (span F1 intervals). Their generators' population values
are the ones docs/uncertainty.md and docs/coverage.md state, and agree with large simulations; the
vectorised statistics equal the library's."""

import importlib.util
import pathlib
import sys

import numpy as np
import pandas as pd
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _module(name: str):
    spec = importlib.util.spec_from_file_location(name, ROOT / "benchmarks" / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod  # a dataclass resolves its annotations through its module
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="module")
def ats():
    return _module("agreement_test_size")


@pytest.fixture(scope="module")
def span():
    return _module("span_f1_coverage")


# --------------------------------------------------------------------------- tests of agreement

#: docs/uncertainty.md, "Tests of agreement": population values of the fresh generator
SPARSE_ORDINAL = {("fleiss_kappa", False): -0.0168, ("fleiss_kappa", True): -0.0522,
                  ("krippendorff_alpha", False): -0.0157, ("krippendorff_alpha", True): -0.0498}


def test_population_values_are_the_documented_ones_and_a_large_simulations(ats):
    sc = ats.SCENARIOS["sparse_ordinal"]
    lab = ats.simulate(np.random.default_rng(1), 200_000, sc.margins, sc.missing)
    counts = ats.label_counts(lab, sc.k)
    for (coef, soft), documented in SPARSE_ORDINAL.items():
        sim = sc.soft if soft else np.eye(sc.k)
        pop = ats.population(coef, sc.margins, sim, sc.missing)
        assert pop == pytest.approx(documented, abs=5e-5)
        assert float(ats.coefficients(counts, sim)[coef]) == pytest.approx(pop, abs=0.0015)  # ~3 SE
    # with the same missing rate for every rater the value is the complete-data one (the team's generators)
    for name, documented in (("unequal", -0.0202), ("opposed", -0.0772), ("exchangeable", 0.0)):
        sc = ats.SCENARIOS[name]
        for coef in ats.COEFFICIENTS:
            pop = ats.population(coef, sc.margins, np.eye(sc.k), sc.missing)
            assert pop == pytest.approx(ats.population(coef, sc.margins, np.eye(sc.k)), abs=1e-12)
            assert pop == pytest.approx(documented, abs=5e-5)


def test_rater_dependent_missingness_is_drawn_per_rater(ats):
    sc = ats.SCENARIOS["sparse_ordinal"]
    lab = ats.simulate(np.random.default_rng(0), 40_000, sc.margins, sc.missing)
    np.testing.assert_allclose((lab < 0).mean(axis=0), sc.missing, atol=0.01)
    for r in range(len(sc.margins)):
        seen = lab[lab[:, r] >= 0, r]
        np.testing.assert_allclose(np.bincount(seen, minlength=sc.k) / len(seen), sc.margins[r], atol=0.015)


def test_vectorised_permutation_test_equals_the_library(ats, monkeypatch):
    ats.check_library(n_perm=49, copies=2)  # coefficients on permuted copies and p-values == the library's
    exact = ats.coefficients
    monkeypatch.setattr(ats, "coefficients", lambda c, s: {k: v + 1e-6 for k, v in exact(c, s).items()})
    with pytest.raises(RuntimeError, match="library"):  # a coefficient off by 1e-6 is caught
        ats.check_library(n_perm=19, copies=1)


def test_permuted_copies_keep_each_raters_labels_and_are_uniform(ats):
    lab = np.array([[0, 1], [1, -1], [2, 2], [3, -1]])
    perm = ats.permute_labels(np.stack([lab, lab]), 4000, np.random.default_rng(0))
    assert perm.shape == (2, 4000, 4, 2)
    assert ((perm < 0) == (lab < 0)).all() and (np.sort(perm, axis=2) == np.sort(lab, axis=0)).all()
    # rater 0's label 0 lands on each of the 4 items a quarter of the time
    np.testing.assert_allclose((perm[0, :, :, 0] == 0).mean(axis=0), 0.25, atol=0.03)


def test_null_size_smoke(ats, tmp_path):
    """A tiny resumable run writes both per-study files and a summary with every cell it ran."""
    args = ["--studies", "6", "--permutations", "39", "--out", str(tmp_path), "--scenarios", "unequal",
            "sparse_ordinal"]
    ats.main(args)
    ats.main(args)  # resumed: nothing added
    cells = [c for c in ats.CELLS if c[0] in ("unequal", "sparse_ordinal")]
    perm = pd.read_csv(tmp_path / "permutation_studies.csv.gz")
    assert len(perm) == 6 * len(cells) and perm["p_permutation"].between(0, 1).all()
    summary = pd.read_csv(tmp_path / "summary.csv")
    assert len(summary) == len(cells) and (summary["permutation_studies"] == 6).all()
    assert (summary["analytic_studies"] == 6).all() and set(summary["n_items"]) == {40, 100}
    # the analytic and permutation rows are the same data sets: the same estimates
    rows = pd.read_csv(tmp_path / "test_size_studies.csv.gz").merge(
        perm, on=["scenario", "coefficient", "soft", "n_items", "study"], suffixes=("", "_perm"))
    np.testing.assert_allclose(rows["estimate"], rows["estimate_perm"], atol=1e-12)


# --------------------------------------------------------------------------- span F1

#: docs/coverage.md, "Span F1": the generators' population values
SPAN_TRUTH = {"lognormal": 0.6070, "clustered": 0.4301, "reproduce": 0.8205}


@pytest.mark.parametrize("generator", ["lognormal", "clustered", "reproduce"])
def test_span_population_values(span, generator):
    assert span.truth(generator) == pytest.approx(SPAN_TRUTH[generator], abs=5e-5)
    tp, tot = span.document_counts(generator, np.random.default_rng(2), 1, 100_000)
    big = span.f1(tp, tot, np.ones((1, 1, 100_000)))[0, 0]
    assert big == pytest.approx(span.truth(generator), abs=0.004)


def test_clustered_generator_as_spans_equals_the_library(span):
    span.check_library("clustered", 20)  # F1, the default interval and bca-t == sis.span_agreement
    sim = span.simulate_clustered(np.random.default_rng(3), 2, 30)
    assert (sim["m"] == 0).any()  # documents without entities
    tp, tot = span.clustered_counts(sim)
    assert tp.shape == (2, 3, 30) and (tp <= tot / 2).all()
    table = span.clustered_spans(sim, study=1)
    assert table["document"].nunique() == 30 and set(table["type"].dropna()) <= set(span.TYPES)


def test_span_smoke_run(span, tmp_path):
    span.main(["--generator", "clustered", "--studies", "4", "--boot", "50", "--documents", "20",
               "--chunk", "2", "--out", str(tmp_path)])
    rows = pd.read_csv(tmp_path / "studies_clustered.csv.gz")
    assert len(rows) == 4 * len(span.METHODS) and (rows["low"] <= rows["high"]).all()
    summary = pd.read_csv(tmp_path / "summary.csv")
    assert set(summary["method"]) == set(span.METHODS) and (summary["studies"] == 4).all()
