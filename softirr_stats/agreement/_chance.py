"""Chance agreement: exact quadratic forms over the label support, or sampled label pairs.

``"exact"`` computes ``p^T S q`` over the labels that occur (dense when the support is small
or S is a matrix, blocked over rows of S otherwise, so at most ``block_rows x Ks`` scores are
in memory at once). :class:`MonteCarlo` is the seed paper's estimate from ``D`` random
permutations (eq. 12); :class:`SampledPairs` draws ``n`` independent chance pairs and reports
the standard error of the chance term. ``"auto"`` is exact when the unscored pairs it needs
are affordable (``max_exact_pairs``) and sampled pairs otherwise.
"""

from dataclasses import dataclass
from typing import Any

import numpy as np

from softirr_stats.base._jax import namespace
from softirr_stats.base._suggest import did_you_mean
from softirr_stats.base._validation import check_positive_int, check_seed
from softirr_stats.equivalence import LabelSimilarity

__all__ = ["MonteCarlo", "SampledPairs", "DenseQuad", "BlockedQuad", "IdentityQuad", "make_quad", "resolve_chance",
           "CHANCE_NAMES", "CHANCE_SYNTAX"]

CHANCE_NAMES = ("exact", "auto")
# The one text form of ``chance=`` (the Python API and every command): name -> what it means.
# ``mc:D`` may also be written ``montecarlo:D``; ``sampled:N`` also ``sampledpairs:N``.
CHANCE_SYNTAX = {
    "exact": "exact chance agreement over the labels that occur",
    "auto": "exact when affordable, else sampled label pairs",
    "mc:D": "Monte Carlo chance from D random permutations (long form montecarlo:D)",
    "sampled:N": "N independently sampled chance pairs, with a standard error (long form sampledpairs:N)",
}
_CHANCE_KINDS = {"mc": "mc", "montecarlo": "mc", "monte_carlo": "mc", "sampled": "sampled",
                 "sampledpairs": "sampled", "sampled_pairs": "sampled"}
MAX_CHANCE_DRAWS = {"mc": 100_000, "sampled": 100_000_000}  # permutations / pairs a text spec may ask for
DENSE_SUPPORT_LIMIT = 4096  # labels; a float64 block of 4096^2 is 128 MiB
DEFAULT_MAX_EXACT_PAIRS = 2_000_000  # unscored pairs "auto" accepts for an estimator
BLOCK_ELEMENTS = 2**23  # scores held at once by the blocked operator (64 MiB of float64)


@dataclass(frozen=True)
class MonteCarlo:
    """Chance agreement from ``permutations`` random permutations (seed paper, eq. 12).

    Each permutation pairs every rating with the rating at a shuffled position of the
    same chance population (for Cohen-type coefficients: rater A's labels against a
    permutation of rater B's). The standard error across permutations is reported.

    Parameters
    ----------
    permutations : int, default 3
        Number of random permutations D; the chance agreement is their mean and
        ``chance_se`` their standard error.
    seed : int, default 0
        Seed of the permutations.

    Examples
    --------
    >>> MonteCarlo(permutations=3, seed=1).permutations
    3
    """

    permutations: int = 3
    seed: int = 0

    def __post_init__(self) -> None:
        check_positive_int(self.permutations, "permutations")
        object.__setattr__(self, "seed", check_seed(self.seed))

    @property
    def label(self) -> str:
        return f"monte_carlo(D={self.permutations})"

    @property
    def text(self) -> str:
        """The text form ``chance=`` and ``--chance`` take (:data:`CHANCE_SYNTAX`), seeded apart.

        >>> MonteCarlo(permutations=5, seed=3).text
        'mc:5'
        """
        return f"mc:{self.permutations}"


@dataclass(frozen=True)
class SampledPairs:
    """Chance agreement from ``n`` independent random chance pairs (unbiased, with an SE).

    The pairs are drawn from the coefficient's exact chance distribution (Scott/Fleiss: an
    item, then one of its ratings, twice; Cohen/Conger: a rater pair, then one rating of
    each; alpha: two distinct pairable values), so only ``n`` label pairs need scoring.

    Parameters
    ----------
    n : int, default 10000
        Number of chance pairs (at least 2); ``chance_se`` is their standard error.
    seed : int, default 0
        Seed of the draws.

    Examples
    --------
    >>> SampledPairs(n=1000).label
    'sampled_pairs(n=1000)'
    """

    n: int = 10_000
    seed: int = 0

    def __post_init__(self) -> None:
        check_positive_int(self.n, "n", minimum=2)
        object.__setattr__(self, "seed", check_seed(self.seed))

    @property
    def label(self) -> str:
        return f"sampled_pairs(n={self.n})"

    @property
    def text(self) -> str:
        """The text form ``chance=`` and ``--chance`` take (:data:`CHANCE_SYNTAX`), seeded apart.

        >>> SampledPairs(n=1000).text
        'sampled:1000'
        """
        return f"sampled:{self.n}"


def resolve_chance(chance: Any, *, seed: int = 0) -> "str | MonteCarlo | SampledPairs":
    """The one resolver of ``chance=``: a name, the text form, or a chance object.

    ``"exact"`` and ``"auto"`` (:data:`CHANCE_NAMES`), the text forms of :data:`CHANCE_SYNTAX`
    (``"mc:D"``, ``"sampled:N"``; long forms ``montecarlo:D`` and ``sampledpairs:N``; case and
    spaces do not matter), or a :class:`MonteCarlo` / :class:`SampledPairs` (returned as it is).
    ``D`` and ``N`` are positive integers written in digits (at most 100000 permutations and 10**8
    sampled pairs: larger requests are refused here, before any memory is taken). The coefficient
    functions, ``sensitivity``, the runner and every command's ``--chance`` call this function.

    Parameters
    ----------
    chance : str, MonteCarlo or SampledPairs
        How the chance term is computed.
    seed : int, default 0
        Seed of the Monte Carlo permutations or sampled pairs of a text form (a chance object keeps
        its own).

    Returns
    -------
    str, MonteCarlo or SampledPairs
        ``ValueError`` naming the choices otherwise.

    Examples
    --------
    >>> resolve_chance("exact"), resolve_chance(" AUTO ")
    ('exact', 'auto')
    >>> resolve_chance("mc:20", seed=1)
    MonteCarlo(permutations=20, seed=1)
    >>> resolve_chance("montecarlo:20") == resolve_chance("mc:20")
    True
    >>> resolve_chance(SampledPairs(n=500)).n
    500
    >>> resolve_chance("sampled:1e10")
    Traceback (most recent call last):
    ...
    ValueError: chance 'sampled:1e10': N must be a positive whole number written in digits (e.g. sampled:5000)
    """
    if isinstance(chance, MonteCarlo | SampledPairs):
        return chance
    if not isinstance(chance, str):
        raise ValueError(f"chance must be one of {', '.join(CHANCE_SYNTAX)}, MonteCarlo(permutations=D) or "
                         f"SampledPairs(n=...); got {type(chance).__name__} {chance!r}")
    key = "".join(chance.split()).lower()
    if key in CHANCE_NAMES:
        return key
    kind, sep, num = key.partition(":")
    if not sep or kind not in _CHANCE_KINDS:
        raise ValueError(f"chance must be one of {', '.join(CHANCE_SYNTAX)} (long forms montecarlo:D, "
                         f"sampledpairs:N), MonteCarlo(permutations=D) or SampledPairs(n=...); got {chance!r}"
                         f"{did_you_mean(kind, [*CHANCE_NAMES, *_CHANCE_KINDS])}")
    kind = _CHANCE_KINDS[kind]
    letter = "D" if kind == "mc" else "N"
    example = "mc:20" if kind == "mc" else "sampled:5000"
    if not num.isdigit() or not num.isascii() or int(num) < 1:
        raise ValueError(f"chance {chance!r}: {letter} must be a positive whole number written in digits "
                         f"(e.g. {example})")
    count = int(num)
    if count > MAX_CHANCE_DRAWS[kind]:
        raise ValueError(f"chance {chance!r}: {letter} = {count} is more than the {MAX_CHANCE_DRAWS[kind]} a chance "
                         f"spec may ask for; use a smaller {letter} (or chance='exact')")
    return MonteCarlo(permutations=count, seed=seed) if kind == "mc" else SampledPairs(n=count, seed=seed)


class DenseQuad:
    """``p^T S q`` with S dense over the support (batched; NumPy or JAX, as its input)."""

    def __init__(self, s_sub: np.ndarray) -> None:
        self.S = np.asarray(s_sub, dtype=np.float64)  # converted inside the caller's x64 scope
        self.total = float(s_sub.sum())

    def __call__(self, p: Any, q: Any) -> Any:
        xp = namespace(p)
        k = self.S.shape[0]  # inputs may be padded with zero-mass labels beyond the support
        p, q = xp.asarray(p)[..., :k], xp.asarray(q)[..., :k]
        return xp.sum((p @ xp.asarray(self.S, dtype=p.dtype)) * q, axis=-1)  # no eager einsum: it re-jits


class BlockedQuad:
    """``p^T S q`` accumulated over row blocks of S scored on demand (each block once per call).

    Callers batch every form they need into one call (leading axes), so S is scored once.
    ``n_scored`` is this operator's own tally of the label pairs its passes sent to the
    estimator (from the counts ``block`` returns); the similarity is only read.
    """

    def __init__(self, sim: LabelSimilarity, support: np.ndarray, block_rows: int = 1024) -> None:
        self.sim = sim
        self.support = support
        # at most BLOCK_ELEMENTS scores in memory at once, however large the support
        self.block_rows = max(1, min(int(block_rows), BLOCK_ELEMENTS // max(len(support), 1)))
        self._total: float | None = None
        self.cost: Any = None  # ScoringCost set by prepare(): drives the progress bar
        self.progress: bool | None = None
        self.n_scored = 0

    def __call__(self, p: Any, q: Any) -> Any:
        xp = namespace(p)
        p = np.asarray(p)[..., : len(self.support)]  # drop zero-mass padding labels
        q = np.asarray(q)[..., : len(self.support)]
        out = np.zeros(np.broadcast_shapes(p.shape[:-1], q.shape[:-1]))
        total = 0.0
        from softirr_stats.agreement._cost import ScoringCost, bar_callback, scoring_progress

        # a vectorised estimator scores whole row blocks, so a symmetric one meets each label pair
        # in two blocks: count distinct pairs, as the dense path and the bar's total do
        twice = 2 if (self.sim.vectorised_matrix and self.sim.symmetric) else 1
        with scoring_progress(self.cost or ScoringCost(0, 0.0, 0), self.progress):
            bar = bar_callback()
            on_scored = None if bar is None else (lambda n: bar(n // twice))
            raw = 0
            for r0 in range(0, len(self.support), self.block_rows):  # loop over blocks of S, not pairs
                rows = self.support[r0:r0 + self.block_rows]
                blk = self.sim.block(rows, self.support, on_scored)
                raw += blk.n_scored
                total += blk.values.sum()
                out += np.einsum("...k,...k->...", p[..., r0:r0 + len(rows)] @ blk.values, q)
        self.n_scored += raw // twice
        self._total = total
        return xp.asarray(out)

    @property
    def total(self) -> float:
        if self._total is None:
            self(np.zeros(len(self.support)), np.zeros(len(self.support)))
        return float(self._total)  # type: ignore[arg-type]


class IdentityQuad:
    """``p^T I q``: exact matching needs no similarity matrix at all."""

    def __init__(self, n: int) -> None:
        self.total = float(n)

    def __call__(self, p: Any, q: Any) -> Any:
        xp = namespace(p)
        return xp.sum(xp.asarray(p) * xp.asarray(q), axis=-1)


def make_quad(sim: LabelSimilarity, support: np.ndarray,
              on_scored: Any = None) -> "tuple[DenseQuad | BlockedQuad | IdentityQuad, int]":
    """The cheapest exact operator for ``p^T S q`` over ``support``, and the label pairs scored to build it.

    ``on_scored(n)`` (optional) is told of newly scored pairs as they come (a progress bar).
    """
    if sim.is_identity:
        return IdentityQuad(len(support)), 0
    if sim.is_matrix or len(support) <= DENSE_SUPPORT_LIMIT:
        s = sim.block(support, support, on_scored)
        return DenseQuad(s.values), s.n_scored
    return BlockedQuad(sim, support), 0
