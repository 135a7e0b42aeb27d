"""The scoring plan holds exactly the pairs the coefficients ask for; fill_cache resumes."""

import sqlite3

import numpy as np
import pytest

import softirr_stats as sis
from softirr_stats.analysis import cached_estimator, scoring_plan
from softirr_stats.equivalence import Cached, Exact, Levenshtein, fill_cache

COEFS = ["percent_agreement", "cohen_kappa", "scott_pi", "fleiss_kappa", "conger_kappa", "light_kappa",
         "krippendorff_alpha", "gwet_ac1", "brennan_prediger"]
TAKES_CHANCE = {"cohen_kappa", "scott_pi", "fleiss_kappa", "conger_kappa", "krippendorff_alpha"}


def _ann(n_items=40, n_raters=2, seed=0):
    rng = np.random.default_rng(seed)
    words = ["fever", "fevre", "high fever", "cough", "coughing", "dry cough", "rash", "skin rash", "headache",
             "head ache", "migraine", "nausea"]
    rows = rng.choice(words, size=(n_items, n_raters)).astype(object)
    rows[rng.random(rows.shape) < 0.1] = None
    return sis.Annotations.from_wide(rows.tolist())


@pytest.mark.filterwarnings("ignore:.*items have (one|no) rating")
@pytest.mark.parametrize("chance", ["exact", "auto", sis.SampledPairs(n=60, seed=3),
                                    sis.MonteCarlo(permutations=2, seed=1)], ids=str)
def test_plan_covers_every_pair_the_coefficients_ask_for(tmp_path, chance):
    ann = _ann()
    coefs = COEFS if isinstance(chance, str) else sorted(TAKES_CHANCE - {"cohen_kappa", "scott_pi"}) + ["cohen_kappa"]
    plan = scoring_plan(ann, Levenshtein(), coefficients=coefs, chance=chance)
    assert plan.n_pairs > 0 and set(plan.requested) == set(coefs)
    path = tmp_path / "s.sqlite"
    rep = plan.run(path, batch_size=7, progress=False)
    assert rep.n_scored == rep.n_written == plan.n_pairs and rep.n_cached == 0
    assert plan.n_missing(path) == 0
    for name in coefs:
        fn = getattr(sis, name)
        kw = {"chance": chance} if name in TAKES_CHANCE else {}
        cached = Cached(Levenshtein(), path)
        with np.errstate(all="ignore"):
            got = fn(ann, similarity=cached, **kw).value
            want = fn(ann, similarity=Levenshtein(), **kw).value
        assert cached.n_misses == 0, f"{name}: {cached.n_misses} pairs were not in the plan"
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)


def test_plan_is_minimal_and_canonical():
    ann = [["fever", "fevre", "fever"], ["cough", "cough", "coughing"], ["rash", "rash", "rash"]]
    plan = scoring_plan(ann, Levenshtein(), coefficients=["percent_agreement"])
    assert sorted(zip(plan.a.tolist(), plan.b.tolist(), strict=True)) == [("cough", "coughing"), ("fever", "fevre")]
    assert plan.requested == {"percent_agreement": 2}
    assert scoring_plan(ann, Exact(), coefficients=COEFS).n_pairs == 0  # exact matching scores nothing
    extra = scoring_plan(ann, Levenshtein(), coefficients=[], extra_pairs=(["x", "fevre", "y"], ["y", "fever", "y"]))
    assert sorted(zip(extra.a.tolist(), extra.b.tolist(), strict=True)) == [("fever", "fevre"), ("x", "y")]


def test_plan_bad_input():
    with pytest.raises(ValueError, match="coefficient must be"):
        scoring_plan([["a", "b"]], Levenshtein(), coefficients=["fleiss"])
    with pytest.raises(ValueError, match="at least one"):
        scoring_plan([["a", "b"]], Levenshtein(), coefficients=[])
    with pytest.raises(TypeError, match="extra_pairs"):
        scoring_plan([["a", "b"]], Levenshtein(), coefficients=[], extra_pairs="ab")


def test_fill_cache_resumes_after_interruption(tmp_path):
    rng = np.random.default_rng(1)
    words = ["".join(rng.choice(list("abcde"), 5)) for _ in range(60)]
    a, b = rng.choice(words, 500).tolist(), rng.choice(words, 500).tolist()
    path = tmp_path / "s.sqlite"

    class Stop(Exception):
        pass

    def stop_after_three(done, total):
        if done >= 30:
            raise Stop

    with pytest.raises(Stop):
        fill_cache(Levenshtein(), a, b, path, batch_size=10, progress=False, on_batch=stop_after_three)
    con = sqlite3.connect(path)
    assert con.execute("SELECT COUNT(*) FROM scores").fetchone()[0] == 30  # three committed batches kept
    rep = fill_cache(Levenshtein(), a, b, path, batch_size=10, progress=False)
    assert rep.n_cached == 30 and rep.n_scored == rep.n_pairs - 30 == rep.n_written
    fresh = tmp_path / "fresh.sqlite"
    fill_cache(Levenshtein(), a, b, fresh, batch_size=10, progress=False)
    q = "SELECT a, b, score FROM scores ORDER BY a, b"
    assert con.execute(q).fetchall() == sqlite3.connect(fresh).execute(q).fetchall()
    assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    again = fill_cache(Levenshtein(), a, b, path, batch_size=10, progress=False)
    assert again.n_scored == 0 and again.n_cached == again.n_pairs


def test_fill_cache_validates(tmp_path):
    with pytest.raises(ValueError, match="batch_size"):
        fill_cache(Levenshtein(), ["a"], ["b"], tmp_path / "s.sqlite", batch_size=0)
    with pytest.raises(TypeError, match="backend"):
        fill_cache(Levenshtein(), ["a"], ["b"], tmp_path / "s.sqlite", backend="gpu")
    with pytest.raises(ValueError, match="cache wraps"):
        fill_cache(Levenshtein(), ["a"], ["b"], Cached(Exact(), tmp_path / "s.sqlite"))


def test_cached_estimator_hook(tmp_path):
    path = tmp_path / "s.sqlite"
    assert cached_estimator(None, path) is None and isinstance(cached_estimator(Exact(), path), Exact)
    est = cached_estimator(Levenshtein(), path)
    assert isinstance(est, Cached) and cached_estimator(est, path) is est
    fill_cache(Levenshtein(), ["fever"], ["fevre"], path, progress=False)
    sis.percent_agreement([["fever", "fevre"]], similarity=est)
    assert est.n_hits == 1 and est.n_misses == 0
