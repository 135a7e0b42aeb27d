"""Vectorised agreement kernels for coverage studies: many simulated studies x many replicates in one call.

Complete designs (every item rated by every rater), nominal labels coded 0..K-1. Each function takes the
labels of ``S`` studies and item weights ``W`` of shape (S, B, n) (bootstrap counts, or 1 - eye for the
jackknife) and returns (S, B) values. They reproduce ``Prepared.evaluate`` of the library for the same
weights (checked by :func:`check_against_library`); the studies use them so that thousands of studies
run in seconds.
"""

from __future__ import annotations

import numpy as np


def counts(labels: np.ndarray, k: int) -> np.ndarray:
    """(S, n, R) labels -> (S, n, K) per-item category counts."""
    return (labels[..., None] == np.arange(k)).sum(axis=2).astype(np.float64)


def fleiss(labels: np.ndarray, W: np.ndarray, k: int) -> np.ndarray:
    """Fleiss' kappa (pooled chance) for weights ``W`` (S, B, n)."""
    N = counts(labels, k)
    r = labels.shape[2]
    agree = (N * (N - 1)).sum(axis=2) / (r * (r - 1))  # (S, n)
    tot = W.sum(axis=2)
    po = np.einsum("sbi,si->sb", W, agree) / tot
    p = np.einsum("sbi,sik->sbk", W, N) / (r * tot[..., None])
    pe = (p * p).sum(axis=2)
    with np.errstate(invalid="ignore", divide="ignore"):
        return (po - pe) / (1.0 - pe)


def alpha(labels: np.ndarray, W: np.ndarray, k: int) -> np.ndarray:
    """Krippendorff's alpha (nominal) for weights ``W`` (S, B, n)."""
    N = counts(labels, k)
    r = labels.shape[2]
    do_i = (N * (r - N)).sum(axis=2) / (r - 1)  # (S, n): sum_{k != l} n_ik n_il / (r - 1)
    nk = np.einsum("sbi,sik->sbk", W, N)
    tot = nk.sum(axis=2)
    do = np.einsum("sbi,si->sb", W, do_i)
    with np.errstate(invalid="ignore", divide="ignore"):
        return 1.0 - (tot - 1.0) * do / (tot * tot - (nk * nk).sum(axis=2))


def cohen(labels: np.ndarray, W: np.ndarray, k: int) -> np.ndarray:
    """Cohen's kappa (per-rater chance), two raters, for weights ``W`` (S, B, n)."""
    a = labels[..., 0][..., None] == np.arange(k)
    b = labels[..., 1][..., None] == np.arange(k)
    tot = W.sum(axis=2)
    po = np.einsum("sbi,si->sb", W, (labels[..., 0] == labels[..., 1]).astype(float)) / tot
    p1 = np.einsum("sbi,sik->sbk", W, a.astype(float)) / tot[..., None]
    p2 = np.einsum("sbi,sik->sbk", W, b.astype(float)) / tot[..., None]
    pe = (p1 * p2).sum(axis=2)
    with np.errstate(invalid="ignore", divide="ignore"):
        return (po - pe) / (1.0 - pe)


KERNELS = {"fleiss_kappa": fleiss, "krippendorff_alpha": alpha, "cohen_kappa": cohen}


def check_against_library(seed: int = 5) -> None:
    """Each kernel equals the library's prepared statistic for random bootstrap weights (to 1e-10)."""
    import softirr_stats as sis
    from softirr_stats.agreement import point_estimate, resolve_similarity
    from softirr_stats.data import Annotations

    rng = np.random.default_rng(seed)
    fam = {"fleiss_kappa": "pooled", "krippendorff_alpha": "alpha", "cohen_kappa": "per_rater"}
    for name, fn in KERNELS.items():
        r = 2 if name == "cohen_kappa" else 3
        lab = rng.integers(0, 3, (1, 25, r))
        ann = Annotations(lab[0].astype(np.int32), [0, 1, 2], kind="numeric")
        _, prep = point_estimate(ann, family=fam[name], coefficient=name, sim=resolve_similarity(ann))
        C = rng.multinomial(25, np.full(25, 1 / 25), size=7).astype(float)
        want = np.asarray(prep.evaluate(C, None, None)["value"])
        got = fn(lab, C[None], 3)[0]
        if not np.allclose(want, got, rtol=0, atol=1e-10):
            raise RuntimeError(f"{name}: vectorised kernel {got} != library {want}")
        one = getattr(sis, name)(ann).value
        if not np.isclose(one, fn(lab, np.ones((1, 1, 25)), 3)[0, 0], rtol=0, atol=1e-12):
            raise RuntimeError(f"{name}: point estimate differs from the library")


if __name__ == "__main__":
    check_against_library()
    print("vectorised kernels == library: ok")
