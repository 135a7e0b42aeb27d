"""The exact chance pass's time estimate counts what an estimator does per pair, not what it does
once: a first call that opens a cache file or loads a model is not multiplied by every pair."""

import time
import warnings

import numpy as np

import softirr_stats as sis
from softirr_stats.equivalence import as_estimator

SETUP_SECONDS = 0.4  # paid on the first call only


def _slow_start():
    calls = []

    def score(a, b):
        if not calls:
            time.sleep(SETUP_SECONDS)
        calls.append(len(a))
        return np.array([float(x[:1] == y[:1]) for x, y in zip(a, b, strict=True)])

    return as_estimator(score, name="slow_start", symmetric=True), calls


def _annotations(n_labels=130, seed=0):
    rng = np.random.default_rng(seed)
    labels = [f"{chr(97 + k % 26)}{k}" for k in range(n_labels)]
    rows = [[labels[k], labels[(k + int(rng.integers(0, 3))) % n_labels]] for k in range(n_labels)]
    return sis.Annotations.from_wide(rows)


def test_a_once_only_setup_is_not_counted_per_pair():
    est, calls = _slow_start()
    ann = _annotations()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = sis.fleiss_kappa(ann, similarity=est, chance="auto")
    (note,) = [n for n in res.warnings if n.startswith("chance='auto' chose")]
    # 8,385 label pairs: the setup spread as 0.4 s / 63 probed pairs would be ~53 s; a pair costs microseconds
    assert note.startswith("chance='auto' chose exact over 130 labels"), note
    seconds = float(note.split("estimated about ")[1].split(" s ")[0])
    assert seconds < 5.0, note
    assert "measured on 63" in note and calls[0] == 1  # the first probed pair was scored alone, untimed


def test_the_probed_pairs_are_kept_and_every_pair_is_scored_once():
    est, calls = _slow_start()
    ann = _annotations(40)
    res = sis.fleiss_kappa(ann, similarity=est, chance="exact")
    plain = as_estimator(lambda a, b: np.array([float(x[:1] == y[:1]) for x, y in zip(a, b, strict=True)]),
                         name="plain", symmetric=True)
    assert res.value == sis.fleiss_kappa(ann, similarity=plain, chance="exact").value
    assert calls[0] == 1 and sum(calls) == 40 * 39 // 2  # the probe's pairs (warm-up included) not scored again
