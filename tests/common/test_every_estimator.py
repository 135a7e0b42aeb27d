"""Every estimator of the short-name table (``equivalence.MEASURES``) scores like a similarity.

Each name is built the way ``similarity="<name>"`` builds it (:func:`estimator_from_name`; the
model-backed ones with a tiny random model made offline, the embedding with the bundled MiniLM)
and scored on the same label pairs: every score is in [0, 1], a label scored with itself is 1,
the scores do not depend on the order of the pairs, and an estimator that says it is symmetric
gives ``s(a, b) == s(b, a)``. ``test_every_estimator_is_built_here`` fails when a name of the
table has no way to be built here, so a new estimator is held to the same checks.
"""

import re

import numpy as np
import pytest

from softirr_stats.equivalence import MEASURES, estimator_from_name, score_pairs

A = ["fever", "cough", "skin rash", "fatigue", "high fever", "fever", "a b", "rash"]
B = ["fever", "coughing", "rash", "tiredness", "fever", "cough", "b a", "skin rash"]
WORDS = sorted({w for s in A + B for w in re.findall(r"\w+", s)})

#: names whose estimator needs a model directory: name -> the conftest builder of a tiny one
MODEL_BUILDERS = {"nli": "save_tiny_nli", "llm_judge": "save_tiny_llm"}


def test_every_estimator_is_built_here():
    assert set(MEASURES) - set(MODEL_BUILDERS) == {n for n in MEASURES if _plain(n)}


def _plain(name: str) -> bool:
    """Built from its name alone (string and set estimators, the bundled embedding model)."""
    try:
        estimator_from_name(name)
    except ValueError as err:
        assert "needs a model" in str(err)
        return False
    return True


@pytest.fixture(scope="module")
def estimators(request, tmp_path_factory):
    out = {}
    for name in MEASURES:
        if name in MODEL_BUILDERS:
            build = request.getfixturevalue(MODEL_BUILDERS[name])
            path = build(tmp_path_factory.mktemp(name) / "model", WORDS)
            out[name] = estimator_from_name(f"{name}:{path}")
        else:
            out[name] = estimator_from_name(name)
        if hasattr(out[name], "progress"):
            out[name].progress = False
    return out


@pytest.mark.parametrize("name", list(MEASURES))
def test_scores_are_similarities(name, estimators):
    est = estimators[name]
    assert isinstance(est.name, str) and isinstance(est.symmetric, bool) and est.fingerprint
    s = np.asarray(score_pairs(est, A, B), dtype=float)
    assert s.shape == (len(A),) and np.isfinite(s).all()
    assert ((s >= 0.0) & (s <= 1.0)).all(), s
    assert np.asarray(score_pairs(est, A, A), dtype=float) == pytest.approx(np.ones(len(A)))
    perm = np.random.default_rng(0).permutation(len(A))
    moved = np.asarray(score_pairs(est, [A[i] for i in perm], [B[i] for i in perm]), dtype=float)
    assert moved == pytest.approx(s[perm], abs=1e-6)
    if est.symmetric:
        assert np.asarray(score_pairs(est, B, A), dtype=float) == pytest.approx(s, abs=1e-6)
