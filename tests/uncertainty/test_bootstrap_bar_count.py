"""The bar of a slow bootstrap counts every replicate once (the timing chunk was counted twice)."""

import warnings

import pytest

import softirr_stats as sis
from softirr_stats.agreement import point_estimate, resolve_similarity
from softirr_stats.uncertainty import _bootstrap


def test_the_slow_bootstrap_bar_ends_at_n(monkeypatch):
    bars = []

    real = _bootstrap._warn_slow_bootstrap

    def kept(*args, **kwargs):
        bar = real(*args, **kwargs)
        bars.append(bar)
        return bar

    monkeypatch.setattr(_bootstrap, "BOOTSTRAP_BUDGET_SECONDS", 0.0)  # every bootstrap counts as slow
    monkeypatch.setattr(_bootstrap, "_warn_slow_bootstrap", kept)
    ann = sis.Annotations.from_wide([["a", "a"], ["a", "b"], ["b", "b"], ["a", "a"], ["b", "a"]])
    _, prep = point_estimate(ann, family="pooled", coefficient="fleiss_kappa", sim=resolve_similarity(ann))
    cfg = sis.Bootstrap(n=40, seed=0, chunk_size=16, progress=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", _bootstrap.BootstrapCostWarning)
        reps = _bootstrap.bootstrap_replicates(prep, cfg)
    assert reps["value"].shape == (40,)
    assert len(bars) == 1 and bars[0] is not None
    assert bars[0].n == pytest.approx(40)  # 16 + 16 + 8, each chunk once


def test_the_cost_warning_points_at_the_users_call(monkeypatch):
    """The warning's line is the caller's (a hard-coded stack level pointed inside the package)."""
    monkeypatch.setattr(_bootstrap, "BOOTSTRAP_BUDGET_SECONDS", 0.0)
    table = [["a", "a"], ["a", "b"], ["b", "b"], ["a", "a"], ["b", "a"]] * 5  # 25 items: no few-items warning
    with pytest.warns(_bootstrap.BootstrapCostWarning) as rec:
        sis.fleiss_kappa(table, ci=sis.Bootstrap(n=40, seed=0, chunk_size=16, progress=False))
    assert [w.filename for w in rec if issubclass(w.category, _bootstrap.BootstrapCostWarning)] == [__file__]
