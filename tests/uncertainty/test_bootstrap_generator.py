"""The replicate generator: keyed by (seed, stream, block of replicates), so replicate b does
not depend on the chunking; chunks come in a handful of shapes whatever B is."""

import numpy as np
import pytest

import softirr_stats as sis
from softirr_stats.agreement import prepare, resolve_similarity
from softirr_stats.data import Annotations
from softirr_stats.uncertainty import Bootstrap, draw_weights
from softirr_stats.uncertainty._bootstrap import REPLICATE_BLOCK, replicate_chunk


def _prep(n_items=37, n_raters=4, family="pooled"):
    rng = np.random.default_rng(0)
    table = rng.choice(list("abc"), (n_items, n_raters)).astype(object)
    table[rng.random(table.shape) < 0.1] = None
    ann = Annotations.from_wide(table)
    return prepare(ann, family, resolve_similarity(ann))


@pytest.mark.parametrize("design", ["items", "raters", "items+raters", "bayesian", "cluster"])
def test_replicate_b_is_the_same_under_any_slicing(design):
    prep = _prep()
    extra = {"cluster": [i // 3 for i in range(prep.n)]} if design == "cluster" else {}
    cfg = Bootstrap(n=100, design=design, seed=7, **extra)
    full = draw_weights(prep, cfg, 0, 100)
    for start, stop in [(0, 1), (5, 40), (REPLICATE_BLOCK - 1, REPLICATE_BLOCK + 1), (63, 100)]:
        part = draw_weights(prep, cfg, start, stop)
        for a, b in zip(full, part, strict=True):
            if a is None:
                assert b is None
            else:
                np.testing.assert_array_equal(b, a[start:stop])
    padded = draw_weights(prep, cfg, 90, 100, pad_to=32)  # pad_to draws the replicates that follow
    assert next(x for x in padded if x is not None).shape[0] == 32


def test_seeds_and_streams_differ():
    prep = _prep()
    a = draw_weights(prep, Bootstrap(n=20, seed=1), 0, 20)[0]
    b = draw_weights(prep, Bootstrap(n=20, seed=2), 0, 20)[0]
    assert not np.array_equal(a, b)
    assert len({tuple(r) for r in a}) == 20  # no two replicates alike
    c, v, _ = draw_weights(_prep(n_items=4, n_raters=4), Bootstrap(n=20, design="items+raters", seed=1), 0, 20)
    assert not np.array_equal(c, v)  # item and rater streams are independent


def test_interval_does_not_depend_on_chunk_size():
    table = np.random.default_rng(3).choice(list("abcd"), (60, 3)).tolist()
    base = sis.fleiss_kappa(table, ci=Bootstrap(n=150, seed=4))
    for chunk in (7, 16, 150):
        other = sis.fleiss_kappa(table, ci=Bootstrap(n=150, seed=4, chunk_size=chunk))
        np.testing.assert_allclose(other.details["replicates"], base.details["replicates"], rtol=0, atol=1e-13)


def test_chunks_come_in_a_handful_of_shapes():
    small, big = _prep(), _prep(n_items=300_000, n_raters=2, family="percent")
    sizes = {replicate_chunk(small, Bootstrap(n=b)) for b in (2, 10, 50, 99, 500, 1000, 2000, 10_000)}
    assert sizes <= {64, 128, 256, 512}
    assert replicate_chunk(big, Bootstrap(n=2000)) * 300_000 * 8 <= 128 * 2**20  # memory bound kept
    assert replicate_chunk(small, Bootstrap(n=2000, chunk_size=33)) == 33
