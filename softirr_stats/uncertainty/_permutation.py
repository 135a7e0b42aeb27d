"""Permutation test of H0: no agreement beyond chance, for any coefficient (hard or soft).

Under H0 the raters' labels are independent of one another. Permuting each rater's labels over
the items that rater rated (independently per rater; the pattern of missing ratings, every
rater's label distribution and every item's number of ratings are kept) draws data sets from
that null; the coefficient's permutation distribution is its null distribution, whatever the
coefficient, the similarity (soft agreement) or the weights. No peer package offers it.

Vectorised as the bootstrap is: a block of ``b`` permuted copies of the data is stacked into
one data set of ``b * n`` items, prepared once, and evaluated for ``b`` item-weight vectors,
each the indicator of one copy (every coefficient is a function of item weights, so a copy's
weights give that copy's coefficient exactly). Blocks are sized to bound memory; there is no
loop over permutations. The similarity object is shared, so a scored similarity scores no new
label pair (the labels are those of the data).

The p-value is two-sided, ``min(1, 2 min(P_upper, P_lower))``, with the observed value counted
among the permuted ones (Phipson & Smyth 2010: never 0) and ties at ``T`` counted half (mid-p):
``P_upper = (#{T_b > T} + (#{T_b = T} + 1) / 2) / (B + 1)``, the mid-p form of
``(1 + #{T_b >= T}) / (B + 1)``, and ``P_lower`` the same below ``T``. ``alternative="greater"``
(H1: more agreement than independent raters give, the natural one-sided test of agreement beyond
chance) reports ``P_upper`` and ``"less"`` ``P_lower``; the two-sided p-value is twice the smaller.
Agreement coefficients on small categorical data take few distinct values (Fleiss' kappa is
linear in the observed agreement when the marginals are fixed), so counting ties fully makes the
test conservative (3.7% at the 5% level in the null simulation of
``benchmarks/permutation_size.py``); the mid-p keeps the size at the nominal level for continuous
statistics and close to it under ties.
``z = (T - mean(T_b)) / sd(T_b)``; nan, with a note and a ``DegenerateWarning``, where ``sd(T_b)`` is zero up to
rounding (every permuted data set gives the same value: :data:`DEGENERATE_SD`).
"""

import math
import warnings
from dataclasses import dataclass, replace

import numpy as np

from softirr_stats.agreement import AgreementResult, DegenerateWarning, Prepared, evaluate, prepare
from softirr_stats.base._validation import (
    check_choice,
    check_positive_int,
    check_seed,
    user_stacklevel,
)
from softirr_stats.data import Annotations
from softirr_stats.uncertainty._hypothesis import ALTERNATIVES

__all__ = ["Permutation", "permutation_values", "attach_permutation", "permute_codes"]

#: ``details["test_hypothesis"]`` of the permutation test.
PERMUTATION_HYPOTHESIS = "no agreement beyond chance: the raters label independently of one another"

#: A permutation SD at most this share of the statistic's scale (``max(1, |T|, |mean|)``) is zero up to rounding: the
#: permutation distribution is one value, and ``z`` is nan.
DEGENERATE_SD = 1e-10

_BLOCK_ENTRIES = 4_000_000  # item-weight entries per block: b * (b * n) float64, about 32 MB


@dataclass(frozen=True)
class Permutation:
    """A permutation test request (H0: coefficient = 0, labels independent between raters).

    Parameters
    ----------
    n : int
        Number of permutations (B); the smallest attainable p-value is ``1 / (B + 1)``.
    seed : int
        Seed of the permutation generator (NumPy SFC64); one generator per block of
        permutations keyed by (seed, block), so a permutation does not depend on the chunking.
    chunk_size : int, optional
        Permutations per stacked block (default: about 32 MB of item weights).

    Examples
    --------
    >>> Permutation(n=999, seed=1)
    Permutation(n=999, seed=1, chunk_size=None)
    """

    n: int = 2000
    seed: int = 0
    chunk_size: int | None = None

    def __post_init__(self) -> None:
        check_positive_int(self.n, "n")
        object.__setattr__(self, "seed", check_seed(self.seed))
        if self.chunk_size is not None:
            check_positive_int(self.chunk_size, "chunk_size")


_BLOCK = 256  # permutations per generator block (the generator is keyed by (seed, block))


def permute_codes(codes: np.ndarray, seed: int, start: int, stop: int) -> np.ndarray:
    """Permutations ``start..stop-1`` of the codes: each rater's labels shuffled over the items it rated.

    Parameters
    ----------
    codes : ndarray of int, shape (n, R)
        ``-1`` marks a missing rating (missing cells stay where they are).
    seed : int
    start, stop : int
        Permutation indices; permutation ``b`` is the same whatever the range it is drawn in.

    Returns
    -------
    ndarray of shape (stop - start, n, R)

    Examples
    --------
    >>> c = np.array([[0, 1], [1, -1], [2, 2]])
    >>> p = permute_codes(c, 0, 0, 3)
    >>> bool((p[:, 1, 1] == -1).all()), sorted(p[0, :, 0].tolist()), sorted(p[0, :, 1].tolist())
    (True, [0, 1, 2], [-1, 1, 2])
    """
    n, r = codes.shape
    missing = codes < 0
    # target cells: each rater's observed items in order (missing ones after them)
    tgt = np.argsort(missing, axis=0, kind="stable")  # (n, R)
    out = np.empty((stop - start, n, r), dtype=codes.dtype)
    for blk in range(start // _BLOCK, (stop - 1) // _BLOCK + 1):  # generator blocks, not permutations
        rng = np.random.Generator(np.random.SFC64([seed, blk]))
        keys = rng.random((_BLOCK, n, r)) + 2.0 * missing  # observed first, in random order
        src = np.argsort(keys, axis=1)  # (BLOCK, n, R)
        lo, hi = max(start, blk * _BLOCK), min(stop, (blk + 1) * _BLOCK)
        s = src[lo - blk * _BLOCK: hi - blk * _BLOCK]
        perm = np.take_along_axis(np.broadcast_to(codes, (len(s), n, r)), s, axis=1)
        block = np.empty_like(perm)
        np.put_along_axis(block, np.broadcast_to(tgt, perm.shape), perm, axis=1)
        out[lo - start: hi - start] = block
    return out


def permutation_values(prep: Prepared, cfg: Permutation) -> np.ndarray:
    """The coefficient on ``cfg.n`` permuted data sets (nan where undefined), shape (cfg.n,).

    Parameters
    ----------
    prep : Prepared
        The prepared coefficient on the observed data (exact chance).
    cfg : Permutation

    Examples
    --------
    >>> import softirr_stats as sis
    >>> from softirr_stats.agreement import point_estimate, resolve_similarity
    >>> ann = sis.Annotations.from_wide([["a", "a"], ["a", "b"], ["b", "b"], ["a", "a"], ["b", "a"]])
    >>> _, prep = point_estimate(ann, family="pooled", coefficient="fleiss_kappa", sim=resolve_similarity(ann))
    >>> v = permutation_values(prep, Permutation(n=50, seed=0))
    >>> v.shape, bool(np.all(v <= 1.0))
    ((50,), True)
    """
    if prep.chance_pairs is not None:
        raise ValueError(f"a permutation test needs chance='exact' (this estimate used {prep.chance_label}): "
                         "a sampled chance term would add its own noise to every permuted value")
    ann: Annotations = prep.ann
    codes = np.asarray(ann.codes)
    n, r = codes.shape
    b = cfg.chunk_size or max(1, int(math.sqrt(_BLOCK_ENTRIES / max(n, 1))))
    b = min(b, cfg.n)
    eye = np.repeat(np.eye(b), n, axis=1)  # (b, b * n): the indicator of each stacked copy
    out = np.empty(cfg.n)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # permuted copies may be degenerate: nan, counted below
        for start in range(0, cfg.n, b):  # blocks of permutations, each evaluated in one batch
            stop = min(cfg.n, start + b)
            perm = permute_codes(codes, cfg.seed, start, start + b)  # full blocks: one compiled shape
            stacked = Annotations(perm.reshape(b * n, r), ann.vocabulary, raters=ann.raters, kind=ann.kind,
                                  categories=ann.categories, label_universe=ann.label_universe)
            p = prepare(stacked, prep.family, prep.sim)
            vals = np.asarray(evaluate(p, eye)["value"], dtype=np.float64)
            out[start:stop] = vals[: stop - start]
    return out


def attach_permutation(result: AgreementResult, prep: Prepared, cfg: Permutation, *,
                       alternative: str = "two-sided") -> AgreementResult:
    """``result`` with a permutation test of H0: no agreement beyond chance (``z``, ``p_value``).

    Any interval already on ``result`` is kept.

    Parameters
    ----------
    result : AgreementResult
        The estimate on the observed data.
    prep : Prepared
        Its prepared coefficient.
    cfg : Permutation
    alternative : {"two-sided", "greater", "less"}, default "two-sided"
        Which p-value ``p_value`` is: ``min(1, 2 min(P_upper, P_lower))``, ``P_upper`` (H1: more
        agreement than independent raters give) or ``P_lower``.

    Returns
    -------
    AgreementResult
        ``details``: ``permutation_n``, ``permutation_seed``, ``permutation_mean``,
        ``permutation_sd``, ``n_nan_permutations``, ``alternative``, ``p_value_greater``
        (``P_upper``), ``p_value_less`` (``P_lower``), ``test_hypothesis``.

    Examples
    --------
    >>> import softirr_stats as sis
    >>> from softirr_stats.agreement import point_estimate, resolve_similarity
    >>> rows = [["a", "a"], ["b", "b"], ["a", "a"], ["b", "b"], ["c", "c"], ["c", "c"], ["a", "b"]]
    >>> ann = sis.Annotations.from_wide(rows * 2)
    >>> res, prep = point_estimate(ann, family="pooled", coefficient="fleiss_kappa", sim=resolve_similarity(ann))
    >>> out = attach_permutation(res, prep, Permutation(n=199, seed=0))
    >>> bool(out.p_value < 0.05), out.details["test"]
    (True, 'permutation (labels permuted within raters), B=199')
    """
    if not isinstance(cfg, Permutation):
        raise TypeError(f"cfg must be softirr_stats.Permutation(...); got {type(cfg).__name__}")
    check_choice("alternative", alternative, ALTERNATIVES)
    vals = permutation_values(prep, cfg)
    ok = np.isfinite(vals)
    t = float(result.value)
    notes = list(result.warnings)
    z = two_sided = greater = less = math.nan
    m = int(ok.sum())
    mean = sd = math.nan
    if not math.isfinite(t):
        notes.append("permutation test undefined: the coefficient is undefined (nan)")
    elif m == 0:
        notes.append("permutation test undefined: the coefficient is undefined on every permuted data set")
    else:
        v = vals[ok]
        eps = 1e-12 * max(1.0, abs(t))  # a permuted value equal to T up to rounding counts as a tie
        above, below = np.count_nonzero(v > t + eps), np.count_nonzero(v < t - eps)
        ties = m - above - below + 1.0  # the observed value is one of the ties
        upper = (above + 0.5 * ties) / (m + 1.0)
        lower = (below + 0.5 * ties) / (m + 1.0)
        two_sided = min(1.0, 2.0 * min(upper, lower))
        greater, less = float(upper), float(lower)
        mean = float(v.mean())
        sd = float(v.std(ddof=1)) if m > 1 else math.nan
        if sd <= DEGENERATE_SD * max(1.0, abs(t), abs(mean)):  # zero up to rounding, on the statistic's scale
            notes.append(f"permutation test degenerate: every permuted data set gives the same {result.coefficient} "
                         f"({mean:.6g}; sd {sd:.3g} of the permuted values, zero up to rounding), so z is undefined "
                         "(nan) and the p-value only says whether the observed value equals that one value (e.g. "
                         "every label distinct, as exact matching of continuous scores gives: use a coefficient of "
                         "scores or a distance)")
            warnings.warn(notes[-1], DegenerateWarning, stacklevel=user_stacklevel())
        z = (t - mean) / sd if sd > DEGENERATE_SD * max(1.0, abs(t), abs(mean)) else math.nan
        if m < cfg.n:
            notes.append(f"permutation test: {cfg.n - m} of {cfg.n} permuted data sets give an undefined coefficient "
                         "and are left out")
    p = {"two-sided": two_sided, "greater": greater, "less": less}[alternative]
    method = f"permutation (labels permuted within raters), B={cfg.n}"
    if alternative != "two-sided":
        method += f"; one-sided, H1: {'more' if alternative == 'greater' else 'less'} agreement than chance"
    out = result.with_test(z, p, method, permutation_n=cfg.n, permutation_seed=cfg.seed, permutation_mean=mean,
                           permutation_sd=sd, n_nan_permutations=int(cfg.n - m), alternative=alternative,
                           p_value_greater=greater, p_value_less=less, test_hypothesis=PERMUTATION_HYPOTHESIS)
    return replace(out, warnings=tuple(notes))

