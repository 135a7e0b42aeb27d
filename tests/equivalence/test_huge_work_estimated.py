"""Work that may be huge is estimated before it starts (issue 35, rows 18-19).

- A long label is never compared with itself (rapidfuzz's ``cdist`` over a support would:
  O(length^2) for a known answer; a 5 MB label took over 20 minutes).
- An edit-distance call estimated to take long is announced on stderr *before* it runs
  (warnings raised inside a command are only shown after the work).
- An exact chance pass expected to be slow prints its estimate as one plain line when stderr
  is not a terminal (no bar there), once, before the pass.
The Ctrl-C side (the long call stops within 2 s) is in tests/cli/test_interrupts.py.
"""

import random

import numpy as np
import pytest

import softirr_stats as sis
from softirr_stats.agreement import _cost, prepare, resolve_similarity
from softirr_stats.equivalence import Indel, Lcs, Levenshtein, _string


def _text(n, seed):
    rnd = random.Random(seed)
    return "".join(rnd.choice("abcdefgh ") for _ in range(n))


@pytest.fixture()
def spy(monkeypatch):
    """Record every (a, b) string pair rapidfuzz is asked to compare."""
    from rapidfuzz import process

    seen = []
    real_cdist, real_cpdist = process.cdist, process.cpdist

    def cdist(a, b, **kw):
        seen.extend((x, y) for x in a for y in b)
        return real_cdist(a, b, **kw)

    def cpdist(a, b, **kw):
        seen.extend(zip(a, b, strict=True))
        return real_cpdist(a, b, **kw)

    monkeypatch.setattr(process, "cdist", cdist)
    monkeypatch.setattr(process, "cpdist", cpdist)
    return seen


LONG = _text(50_000, 1)
SHAPES = {
    "one long label, rated twice": [[LONG, LONG], ["x", "y"], ["x", "x"]],
    "one long label among short": [[LONG, "x"], ["x", "y"], ["y", "y"]],
    "long label with a near copy": [[LONG, LONG[:-1] + "Z"], ["x", "y"], ["x", "x"]],
}


@pytest.mark.parametrize("estimator", [Levenshtein, Indel, Lcs])
@pytest.mark.parametrize("shape", list(SHAPES))
def test_a_long_label_is_never_compared_with_itself(spy, estimator, shape):
    res = sis.krippendorff_alpha(SHAPES[shape], similarity=estimator())
    assert np.isfinite(res.value)
    assert not [1 for a, b in spy if a == b and len(a) > _string.LONG_LABEL]


@pytest.mark.parametrize("estimator", [Levenshtein, Indel, Lcs])
def test_matrix_with_long_labels_equals_the_dense_path(estimator):
    from rapidfuzz import process

    labels = np.array([_text(3_000, 2), "abc", _text(3_000, 3), "abd", _text(3_000, 2)], dtype=object)
    est = estimator()
    got = est.matrix(labels, labels[::-1])
    want = process.cdist(labels.tolist(), labels[::-1].tolist(), scorer=est._scorer(), dtype=np.float64)
    np.testing.assert_allclose(got, want, atol=1e-12)


def test_a_long_edit_distance_is_announced_before_it_runs(monkeypatch, capsys):
    from rapidfuzz import process

    said_before = []

    def fake(a, b, **kw):  # do not pay for it: record what stderr held when the work would start
        said_before.append(capsys.readouterr().err)
        return np.zeros(len(a))

    monkeypatch.setattr(process, "cpdist", fake)
    monkeypatch.delenv("SOFTIRR_PROGRESS", raising=False)
    a, b = _text(500_000, 4), _text(500_000, 5)  # 2.5e11 cells: tens of seconds
    Levenshtein()([a], [b])
    assert said_before and "note: levenshtein: scoring 1 label pair(s)" in said_before[0]
    assert "up to about" in said_before[0] and "Ctrl-C stops it" in said_before[0]
    Levenshtein()(["short"], ["shirt"])  # a cheap call says nothing
    assert said_before[-1] == ""
    monkeypatch.setenv("SOFTIRR_PROGRESS", "0")
    Levenshtein()([a], [b])
    assert said_before[-1] == ""


def _vocab_table(n):
    return [[f"label {i}", f"label {i + 1}"] for i in range(n)]


@pytest.mark.parametrize("progress, env, shown", [(None, None, True), (False, None, False), (None, "0", False),
                                                   (True, None, False)])
def test_a_slow_exact_pass_prints_its_estimate_without_a_terminal(monkeypatch, capsys, progress, env, shown):
    ann = sis.Annotations.from_wide(_vocab_table(60))
    monkeypatch.setattr(_cost, "PROGRESS_AFTER_SECONDS", 0.0)
    if env is None:
        monkeypatch.delenv("SOFTIRR_PROGRESS", raising=False)
    else:
        monkeypatch.setenv("SOFTIRR_PROGRESS", env)
    calls = []

    def slow(a, b):
        calls.append(capsys.readouterr().err)
        return [0.5] * len(a)

    sim = resolve_similarity(ann, similarity=sis.equivalence.as_estimator(slow, symmetric=True))
    prepare(ann, "pooled", sim, progress=progress)
    err = "".join(calls) + capsys.readouterr().err
    line = [x for x in err.splitlines() if x.startswith("note: exact chance agreement")]
    assert bool(line) == shown, err[-400:]
    if shown:
        assert len(line) == 1 and "label pairs" in line[0] and "ms per pair" in line[0]
        assert "--chance auto" in line[0]
        assert any(line[0] in c for c in calls[1:]), "the estimate comes before the pass"
