"""Soft-agreement model: a two-component Beta mixture over equivalence scores.

Every scored label pair has a latent indicator "the two labels are equivalent". Its score
``s`` in [0, 1] (from an equivalence estimator) is drawn from ``Beta(a1, b1)`` when the
pair is equivalent and from ``Beta(a0, b0)`` when not; the two Beta components are shared
by all pair populations, which is what calibrates the raw scores. Populations:

* within-item pairs (two raters, same item): ``P(equivalent) = sigmoid(mu + u_a + u_b
  [+ v_i])`` with rater effects ``u`` (and optional item effects ``v``), non-centred;
* cross-item (chance) pairs: ``P(equivalent) = pi_chance``;
* optional gold pairs with a human 0/1 label: the component is known (semi-supervised).

Identifiability: the equivalent component has the larger mean by construction
(``mu1 = mu0 + (1 - mu0) sigmoid(d)``), which rules out label switching.

Why a shape assumption is needed at all: with any emission densities ``f0, f1``, the
decomposition ``f1' = (1 - y) f1 + y f0`` and ``p' = p / (1 - y)`` (for every pair
population) reproduces exactly the same score distributions, and it raises the kappa:
``kappa' = (p_w - p_c) / (1 - y - p_c)``. (Contaminating ``f0`` with ``f1`` instead leaves
kappa unchanged.) A parametric emission that does not fit the scores (a Beta on uniform
bands) reaches for such a contaminated ``f1`` and biases kappa upwards. The ``"monotone"``
emission removes the ambiguity with a shape assumption an equivalence estimator should
meet: the equivalent pairs' score density is non-decreasing (plus a point mass at exactly
1) and the non-equivalent pairs' non-increasing (plus a point mass at 0), under which a
contaminated ``f1`` is not admissible wherever ``f0`` falls while ``f1`` is flat.

Derived: ``pi_within`` = the share of equivalent pairs among the observed within-item
pairs (the mean of each pair's P(equivalent | its score), plus the normal approximation of
the pairs' own Bernoulli spread through the standard-normal site ``within_share_z``),
``pi_within_expected`` = the mean of the model's P(equivalent) over those pairs before
their scores are seen, ``kappa = (pi_within - pi_chance) / (1 - pi_chance)`` (recorded as
deterministic sites). ``kappa`` is therefore this study's kappa, as the plain soft
coefficient and the prediction-powered estimate are; ``pi_chance`` is the chance rate of
the population the chance pairs were sampled from.
"""

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import numpyro
import numpyro.distributions as dist
from jax.scipy.special import betaln

from softirr_stats.equivalence import resolve_label_similarity
from softirr_stats.models._priors import SoftAgreementPriors
from softirr_stats.models._table import DEFAULT_EMISSION, EMISSIONS

__all__ = [
    "PairScores",
    "beta_mixture_params",
    "cell_probabilities",
    "gap_pieces",
    "pair_scores",
    "score_cells",
    "soft_agreement",
]

#: Why the histogram emission needs gold pairs (its refusal without them; ``softirr model`` words it with its flags).
HISTOGRAM_NEEDS_GOLD = ("emission='histogram' is identified only through gold pairs (without them any share of the "
                        "non-equivalent scores can move into the equivalent component); pass gold scores and labels, "
                        "or use emission='monotone'")
_IMPOSSIBLE = 1e-8  # mass of an exact 0 under the equivalent component (1 under the other)


def _as_1d(x: Any, name: str, dtype: Any) -> np.ndarray:
    arr = np.asarray(x)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-d; got shape {arr.shape}")
    arr = np.ascontiguousarray(arr, dtype=dtype)
    arr.setflags(write=False)
    return arr


@dataclass(frozen=True, eq=False)
class PairScores:
    """Equivalence scores of label pairs for :func:`soft_agreement`.

    Attributes
    ----------
    within_scores : ndarray of float, shape (n_within,)
        Scores of within-item pairs of ratings (two different raters, same item).
    within_raters : ndarray of int, shape (n_within, 2)
        The two raters of each within-item pair.
    within_items : ndarray of int, shape (n_within,)
        The item of each within-item pair.
    chance_scores : ndarray of float, shape (n_chance,)
        Scores of cross-item pairs (the chance population).
    n_raters, n_items : int
    within_groups : ndarray of int, shape (n_within, 2), optional
        Group (label cluster or category) of each of the two labels, for per-label
        contributions; ``group_names`` names the groups.
    gold_scores, gold_labels : ndarray, shape (n_gold,), optional
        Scores and human 0/1 equivalence judgments of labelled pairs.
    n_pairs_scored : int, default 0
        Label pairs the estimator newly scored to build these scores (each direction of a
        directional estimator counts; 0 for exact matching or a matrix).
    similarity : str, optional
        Name of the similarity that scored the pairs (``"indel"``, ``"similarity-matrix"``, ...;
        :func:`pair_scores` sets it); ``None`` for scores given directly.

    Examples
    --------
    >>> d = PairScores(within_scores=[0.9, 0.2], within_raters=[[0, 1], [0, 1]],
    ...                within_items=[0, 1], chance_scores=[0.1, 0.3, 0.05], n_raters=2,
    ...                n_items=2)
    >>> d.n_within, d.n_chance, d.n_gold
    (2, 3, 0)
    """

    within_scores: np.ndarray
    within_raters: np.ndarray
    within_items: np.ndarray
    chance_scores: np.ndarray
    n_raters: int
    n_items: int
    within_groups: np.ndarray | None = None
    group_names: tuple | None = None
    gold_scores: np.ndarray | None = None
    gold_labels: np.ndarray | None = None
    rater_names: tuple | None = None
    n_pairs_scored: int = 0
    similarity: str | None = None

    def __post_init__(self) -> None:
        ws = _as_1d(self.within_scores, "within_scores", np.float64)
        cs = _as_1d(self.chance_scores, "chance_scores", np.float64)
        for name, arr in (("within_scores", ws), ("chance_scores", cs)):
            if arr.size == 0:
                raise ValueError(f"{name} must not be empty")
            if not np.all((arr >= 0) & (arr <= 1)):
                bad = arr[~((arr >= 0) & (arr <= 1))][:3].tolist()
                raise ValueError(f"{name} must lie in [0, 1]; got values such as {bad}")
        wr = np.asarray(self.within_raters)
        if wr.ndim != 2 or wr.shape != (ws.size, 2) or not np.issubdtype(wr.dtype, np.integer):
            raise ValueError("within_raters must be an int array of shape (n_within, 2) = "
                             f"({ws.size}, 2); got dtype {wr.dtype}, shape {wr.shape}")
        wi = _as_1d(self.within_items, "within_items", np.int32)
        if wi.size != ws.size:
            raise ValueError(f"within_items must have length {ws.size}; got {wi.size}")
        if wr.min() < 0 or wr.max() >= self.n_raters:
            raise ValueError(f"within_raters must lie in [0, {self.n_raters - 1}]")
        if np.any(wr[:, 0] == wr[:, 1]):
            raise ValueError("within_raters: a within-item pair needs two different raters")
        if wi.min() < 0 or wi.max() >= self.n_items:
            raise ValueError(f"within_items must lie in [0, {self.n_items - 1}]")
        wr = np.ascontiguousarray(wr, dtype=np.int32)
        wr.setflags(write=False)
        object.__setattr__(self, "within_scores", ws)
        object.__setattr__(self, "chance_scores", cs)
        object.__setattr__(self, "within_raters", wr)
        object.__setattr__(self, "within_items", wi)
        if self.within_groups is not None:
            g = np.ascontiguousarray(np.asarray(self.within_groups), dtype=np.int32)
            if g.shape != (ws.size, 2) or g.min() < 0:
                raise ValueError(f"within_groups must be a non-negative int array of shape "
                                 f"({ws.size}, 2); got shape {g.shape}")
            g.setflags(write=False)
            object.__setattr__(self, "within_groups", g)
            n_groups = int(g.max()) + 1
            if self.group_names is not None and len(self.group_names) < n_groups:
                raise ValueError(f"group_names must name {n_groups} groups; got "
                                 f"{len(self.group_names)}")
        if (self.gold_scores is None) != (self.gold_labels is None):
            raise ValueError("gold_scores and gold_labels must be given together")
        if self.gold_scores is not None:
            gs = _as_1d(self.gold_scores, "gold_scores", np.float64)
            gl = np.asarray(self.gold_labels)
            if gl.shape != gs.shape or not np.all(np.isin(gl, (0, 1))):
                raise ValueError("gold_labels must be 0/1 with the shape of gold_scores "
                                 f"{gs.shape}; got shape {gl.shape}")
            if not np.all((gs >= 0) & (gs <= 1)):
                raise ValueError("gold_scores must lie in [0, 1]")
            object.__setattr__(self, "gold_scores", gs)
            object.__setattr__(self, "gold_labels", _as_1d(gl, "gold_labels", np.int32))

    @property
    def n_within(self) -> int:
        return int(self.within_scores.size)

    @property
    def n_chance(self) -> int:
        return int(self.chance_scores.size)

    @property
    def n_gold(self) -> int:
        return 0 if self.gold_scores is None else int(self.gold_scores.size)

    @property
    def n_groups(self) -> int:
        return 0 if self.within_groups is None else int(self.within_groups.max()) + 1


def _log_scores(s: np.ndarray, eps: float) -> tuple[jnp.ndarray, jnp.ndarray]:
    if isinstance(s, jax.Array):  # traced scores (a study vectorised over data sets)
        s = jnp.clip(s.astype(jnp.float32), eps, 1.0 - eps)
        return jnp.log(s), jnp.log1p(-s)
    s = np.clip(s, eps, 1.0 - eps)
    return jnp.asarray(np.log(s), dtype=jnp.float32), jnp.asarray(np.log1p(-s),
                                                                  dtype=jnp.float32)


def _beta_logpdf(log_s: jnp.ndarray, log1m_s: jnp.ndarray, a: jnp.ndarray,
                 b: jnp.ndarray) -> jnp.ndarray:
    return (a - 1.0) * log_s + (b - 1.0) * log1m_s - betaln(a, b)


def beta_mixture_params(params: dict) -> tuple[jnp.ndarray, jnp.ndarray]:
    """Beta parameters ``(a, b)``, each shape (..., 2), [non-equivalent, equivalent].

    Parameters
    ----------
    params : dict
        One posterior draw (or a batch): ``mean_logit0`` (logit of the non-equivalent mean),
        ``mean_gap_logit`` (the equivalent mean's gap above it, on the logit scale) and
        ``concentration`` (shape (..., 2), ``a + b`` of each component).

    Examples
    --------
    >>> import jax.numpy as jnp
    >>> a, b = beta_mixture_params({"mean_logit0": jnp.array(0.0),
    ...                             "mean_gap_logit": jnp.array(0.0),
    ...                             "concentration": jnp.array([4.0, 4.0])})
    >>> a.tolist(), b.tolist()
    ([2.0, 3.0], [2.0, 1.0])
    """
    mu0 = jax.nn.sigmoid(params["mean_logit0"])
    mu1 = mu0 + (1.0 - mu0) * jax.nn.sigmoid(params["mean_gap_logit"])
    mu = jnp.stack([mu0, mu1], axis=-1)
    conc = params["concentration"]
    return mu * conc, (1.0 - mu) * conc


def score_cells(scores: Any, n_bins: int) -> np.ndarray:
    """Cell of each score: ``0..n_bins-1`` equal cells of (0, 1), ``n_bins`` = exactly 0,
    ``n_bins + 1`` = exactly 1.

    Parameters
    ----------
    scores : array_like
        Scores in [0, 1].
    n_bins : int
        Equal cells of the open interval (0, 1).

    Examples
    --------
    >>> score_cells([0.0, 0.05, 0.5, 0.99, 1.0], 10).tolist()
    [10, 0, 5, 9, 11]
    """
    if isinstance(scores, jax.Array):  # traced scores (a study vectorised over data sets)
        cell = jnp.minimum((scores * n_bins).astype(jnp.int32), n_bins - 1)
        return jnp.where(scores <= 0.0, n_bins, jnp.where(scores >= 1.0, n_bins + 1, cell))
    s = np.asarray(scores, dtype=np.float64)
    cell = np.minimum((s * n_bins).astype(np.int64), n_bins - 1)
    cell = np.where(s <= 0.0, n_bins, np.where(s >= 1.0, n_bins + 1, cell))
    return cell.astype(np.int32)


def _monotone_log_density(params: dict, n_bins: int) -> jnp.ndarray:
    """``(2, n_bins + 2)`` log density / log mass per cell of [non-equivalent, equivalent].

    Equivalent: a point mass at exactly 1 plus a mixture of ``U[e_b, 1]`` (non-decreasing);
    non-equivalent: a point mass at exactly 0 plus a mixture of ``U[0, e_{b+1}]``
    (non-increasing). A score of exactly 0 from an equivalent pair (or exactly 1 from a
    non-equivalent one) gets the negligible mass ``_IMPOSSIBLE``.
    """
    edges = jnp.linspace(0.0, 1.0, n_bins + 1, dtype=jnp.float32)
    w1, w0 = params["equiv_weights"], params["nonequiv_weights"]
    f1 = jnp.cumsum(w1 / (1.0 - edges[:-1]))
    f0 = jnp.cumsum((w0 / edges[1:])[::-1])[::-1]
    tiny = jnp.log(jnp.asarray(_IMPOSSIBLE, dtype=f1.dtype))
    m0, m1 = params["nonequiv_atoms"], params["equiv_atoms"]  # [P(atom), P(continuous)]
    # a cell no piece covers (the pieces dropped across a score gap, see
    # ``gap_pieces``) has density 0: floored (``jnp.maximum`` passes no gradient to the 0)
    floor = jnp.asarray(_IMPOSSIBLE * 1e-4, dtype=f1.dtype)
    f0, f1 = jnp.maximum(f0, floor), jnp.maximum(f1, floor)
    out = [jnp.concatenate([jnp.log(m0[1]) + jnp.log(f0), jnp.log(m0[:1]), tiny[None]]),
           jnp.concatenate([jnp.log(m1[1]) + jnp.log(f1), tiny[None], jnp.log(m1[:1])])]
    return jnp.stack(out)


def gap_pieces(data: "PairScores", n_bins: int, min_gap: float = 0.1
               ) -> tuple[np.ndarray, np.ndarray] | None:
    """Pieces of the monotone emission a score gap leaves to the prior alone.

    When the pooled within-item, chance and gold scores split into two groups with an empty
    interval between them (:func:`softirr_stats.models._soft_separation.score_gap`), the
    equivalent pieces ``U[e_b, 1]`` that start at or below the largest score under the gap,
    and the non-equivalent pieces ``U[0, e_{b+1}]`` that end at or above the smallest score
    over it, put density on the other group's scores. Nothing in the data asks for them: no
    score falls where they would be needed, so their weight is the prior's, and every pair on
    the wrong side of the gap would get a small P(equivalent) (or P(non-equivalent)) from it,
    which biases ``pi_within`` (the contaminated-component ridge of the mixture).
    ``soft_agreement(..., drop_gap_pieces=True)`` gives those pieces no weight.

    Parameters
    ----------
    data : PairScores
        The pair scores the model is fitted to (within-item, chance and gold scores are pooled).
    n_bins : int
        Pieces of the monotone emission (``monotone_bins`` of the model).
    min_gap : float, default 0.1
        The narrowest empty interval of scores that counts as a gap.

    Returns
    -------
    (equiv_keep, nonequiv_keep) or None
        Boolean masks of shape ``(n_bins,)`` of the pieces kept, or None when the scores do
        not separate (every piece kept).

    Examples
    --------
    >>> d = PairScores(within_scores=[0.1, 0.2, 0.8, 0.9], within_raters=[[0, 1]] * 4,
    ...                within_items=[0, 1, 2, 3], chance_scores=[0.1, 0.3, 0.7],
    ...                n_raters=2, n_items=4)
    >>> keep1, keep0 = gap_pieces(d, 10)
    >>> keep1.nonzero()[0].tolist(), keep0.nonzero()[0].tolist()
    ([4, 5, 6, 7, 8, 9], [0, 1, 2, 3, 4, 5, 6])
    """
    from softirr_stats.models._soft_separation import pair_scores_gap

    gap = pair_scores_gap(data, min_gap=min_gap)
    if gap is None:
        return None
    lo, hi = gap
    # cells of the equal grid holding the two scores next to the gap (atoms: beyond the grid)
    c_lo = -1 if lo <= 0.0 else min(int(lo * n_bins), n_bins - 1)
    c_hi = n_bins if hi >= 1.0 else min(int(hi * n_bins), n_bins - 1)
    b = np.arange(n_bins)
    keep1, keep0 = b > c_lo, b < c_hi
    if not keep1.any() or not keep0.any():
        return None
    return keep1, keep0


def _histogram_log_density(params: dict, n_bins: int) -> jnp.ndarray:
    """``(2, n_bins + 2)`` log density / log mass per cell of [non-equivalent, equivalent]
    for the free histogram emission: Dirichlet weights over the ``n_bins`` equal cells and
    the two atoms (exact 0, exact 1), each component its own (``nonequiv_hist``,
    ``equiv_hist``)."""
    w = jnp.stack([params["nonequiv_hist"], params["equiv_hist"]])
    scale = jnp.concatenate([jnp.full((n_bins,), float(n_bins), dtype=w.dtype),
                             jnp.ones(2, dtype=w.dtype)])
    return jnp.log(w * scale)


def cell_log_density(params: dict, emission: str, n_bins: int) -> jnp.ndarray:
    """``(2, n_bins + 2)`` log density per equal cell (then exact 0, exact 1) of
    [non-equivalent, equivalent] for the ``"monotone"`` and ``"histogram"`` emissions."""
    if emission == "histogram":
        return _histogram_log_density(params, n_bins)
    return _monotone_log_density(params, n_bins)


def cell_probabilities(params: dict, emission: str, n_bins: int) -> jnp.ndarray:
    """``(2, n_bins)`` probability of each equal score cell (exact 0 and 1 folded into the
    first and last cells) under [non-equivalent, equivalent], for one posterior draw.

    Parameters
    ----------
    params : dict
        One posterior draw of the emission's sites.
    emission : {"beta", "monotone", "histogram"}
        The score model of :func:`soft_agreement`.
    n_bins : int
        Equal cells of (0, 1).

    Examples
    --------
    >>> import jax.numpy as jnp
    >>> p = {"mean_logit0": jnp.array(0.0), "mean_gap_logit": jnp.array(0.0),
    ...      "concentration": jnp.array([4.0, 4.0])}
    >>> [round(float(x), 4) for x in cell_probabilities(p, "beta", 2).sum(1)]
    [1.0, 1.0]
    """
    if emission == "beta":
        from jax.scipy.special import betainc

        a, b = beta_mixture_params(params)
        edges = jnp.linspace(0.0, 1.0, n_bins + 1, dtype=jnp.float32)
        cdf = betainc(a[:, None], b[:, None], edges[None, :])
        return jnp.diff(cdf, axis=1)
    dens = jnp.exp(cell_log_density(params, emission, n_bins))
    cont = dens[:, :n_bins] / n_bins
    return cont.at[:, 0].add(dens[:, n_bins]).at[:, -1].add(dens[:, n_bins + 1])


def _component_loglik(params: dict, emission: str, scores: np.ndarray,
                      priors: SoftAgreementPriors) -> tuple[jnp.ndarray, jnp.ndarray]:
    """Per-score log density under [non-equivalent, equivalent]."""
    if emission == "beta":
        a, b = beta_mixture_params(params)
        ls, l1s = _log_scores(scores, priors.score_eps)
        return _beta_logpdf(ls, l1s, a[0], b[0]), _beta_logpdf(ls, l1s, a[1], b[1])
    table = cell_log_density(params, emission, priors.monotone_bins)
    cells = jnp.asarray(score_cells(scores, priors.monotone_bins))
    return table[0][cells], table[1][cells]


def within_logits(params: dict, data: PairScores) -> jnp.ndarray:
    """Logit of P(equivalent) of each within-item pair, shape (n_within,).

    The intercept, plus the rater effects of both raters and the item effect when the draw
    has them.

    Parameters
    ----------
    params : dict
        One posterior draw: ``intercept`` and optionally ``rater_scale`` / ``rater_z`` and
        ``item_scale`` / ``item_z``.
    data : PairScores
        The pairs (their raters and items).

    Examples
    --------
    >>> import jax.numpy as jnp
    >>> d = PairScores(within_scores=[0.9, 0.2], within_raters=[[0, 1], [0, 1]],
    ...                within_items=[0, 1], chance_scores=[0.1], n_raters=2, n_items=2)
    >>> p = {"intercept": jnp.array(0.5), "rater_scale": jnp.array(1.0), "rater_z": jnp.array([0.1, -0.3])}
    >>> [round(float(x), 4) for x in within_logits(p, d)]
    [0.3, 0.3]
    """
    eta = params["intercept"] * jnp.ones(data.n_within, dtype=jnp.float32)
    if "rater_z" in params:
        u = params["rater_scale"] * params["rater_z"]
        wr = jnp.asarray(data.within_raters)
        eta = eta + u[wr[:, 0]] + u[wr[:, 1]]
    if "item_z" in params:
        v = params["item_scale"] * params["item_z"]
        eta = eta + v[jnp.asarray(data.within_items)]
    return eta


def within_responsibilities(params: dict, data: PairScores, emission: str,
                            priors: SoftAgreementPriors) -> jnp.ndarray:
    """P(equivalent | score) of each within-item pair for one draw, shape (n_within,)."""
    eta = within_logits(params, data)
    l0, l1 = _component_loglik(params, emission, data.within_scores, priors)
    lp1, lp0 = jax.nn.log_sigmoid(eta) + l1, jax.nn.log_sigmoid(-eta) + l0
    return jnp.exp(lp1 - jnp.logaddexp(lp1, lp0))


def soft_agreement(data: PairScores, priors: SoftAgreementPriors | None = None, *,
                   rater_effects: bool = True, item_effects: bool = False,
                   emission: str = DEFAULT_EMISSION, drop_gap_pieces: bool = False) -> None:
    """Soft-agreement model over equivalence scores of within-item and chance pairs.

    Sites: the emission's (``emission="beta"``: ``mean_logit0``, ``mean_gap_logit``
    (scalars), ``concentration`` (2,); ``"monotone"``: ``equiv_weights``,
    ``nonequiv_weights``, ``equiv_atoms``, ``nonequiv_atoms``), ``pi_chance``, ``intercept`` (scalars), ``rater_scale``, ``rater_z`` (J,) when
    ``rater_effects``, ``item_scale``, ``item_z`` (I,) when ``item_effects``;
    ``within_share_z``; deterministic ``component_mean`` (2,), ``pi_within_expected``,
    ``pi_within``, ``kappa``.

    Parameters
    ----------
    data : PairScores
    priors : SoftAgreementPriors, optional
    rater_effects, item_effects : bool
        Random effects on the logit of the within-item equivalence probability.
    emission : {"monotone", "beta", "histogram"}, default "monotone"
        Score distribution of each component: one Beta each (sites ``mean_logit0``,
        ``mean_gap_logit``, ``concentration``), or (the default, :data:`DEFAULT_EMISSION`)
        shape-constrained histograms on
        ``priors.monotone_bins`` equal cells: a non-decreasing density for equivalent pairs
        (mixture of ``U[e_b, 1]``, weights ``equiv_weights``) plus a point mass at exactly
        1, and a non-increasing one for non-equivalent pairs (mixture of ``U[0, e_b]``,
        ``nonequiv_weights``) plus a point mass at exactly 0 (``equiv_atoms`` =
        [P(1), P(continuous)], ``nonequiv_atoms`` = [P(0), P(continuous)]). The
        monotone shape holds for bands, exact 0/1, heavy tails and calibrated probabilities,
        where the Beta emission's kappa is biased upwards: see docs/annotator_models.md.
        ``"histogram"`` (needs gold pairs):
        free Dirichlet weights (total concentration
        ``priors.histogram_concentration``) per component over the same cells and the atoms
        (``equiv_hist``, ``nonequiv_hist``), for shapes neither family holds (bimodal);
        the gold pairs identify it.
    drop_gap_pieces : bool, default False
        ``"monotone"`` only: when the pooled scores separate (an empty interval of width
        >= 0.1 with >= 1% of the scores on each side), the pieces that would put density
        across the gap get no weight (:func:`gap_pieces`; sites ``equiv_weights_kept`` /
        ``nonequiv_weights_kept``, and ``equiv_weights`` / ``nonequiv_weights`` become
        deterministic). Their weight is otherwise the prior's alone and biases
        ``pi_within`` upwards; dropping them removes the bias, but the SVI interval is then
        too narrow (docs/annotator_models.md, "Separable scores"), so it is not the default
        and ``Posterior.score_check`` warns on such fits as well.

    Examples
    --------
    >>> import numpy as np
    >>> from numpyro.infer.util import log_density
    >>> d = PairScores(within_scores=[0.9, 0.8], within_raters=[[0, 1], [0, 1]],
    ...                within_items=[0, 1], chance_scores=[0.1, 0.2], n_raters=2, n_items=2)
    >>> p = {"mean_logit0": 0.0, "mean_gap_logit": 0.0, "concentration": np.array([5., 5.]),
    ...      "pi_chance": 0.1, "intercept": 1.0, "within_share_z": 0.0}
    >>> lp, _ = log_density(soft_agreement, (d,), {"rater_effects": False, "emission": "beta"}, p)
    >>> bool(np.isfinite(lp))
    True
    """
    if not isinstance(data, PairScores):
        raise TypeError(f"soft_agreement expects PairScores (see softirr_stats.models."
                        f"pair_scores); got {type(data).__name__}")
    if priors is None:
        priors = SoftAgreementPriors()
    elif not isinstance(priors, SoftAgreementPriors):
        raise TypeError(f"priors for soft_agreement must be a SoftAgreementPriors; got "
                        f"{type(priors).__name__}")
    if emission not in EMISSIONS:
        raise ValueError(f"emission must be one of {list(EMISSIONS)}; got {emission!r}")
    if emission == "histogram" and not data.n_gold:
        raise ValueError(HISTOGRAM_NEEDS_GOLD)
    f32 = jnp.float32
    params: dict = {}
    if emission == "beta":
        params["mean_logit0"] = numpyro.sample("mean_logit0", dist.Normal(
            f32(0.0), priors.mean_logit_scale))
        params["mean_gap_logit"] = numpyro.sample("mean_gap_logit", dist.Normal(
            f32(0.0), priors.mean_logit_scale))
        params["concentration"] = numpyro.sample("concentration", dist.LogNormal(
            jnp.full((2,), np.log(priors.concentration_loc), dtype=f32),
            priors.concentration_scale))
    elif emission == "histogram":
        nb = priors.monotone_bins
        alpha = priors.histogram_concentration / (nb + 2)
        for name in ("equiv_hist", "nonequiv_hist"):
            params[name] = numpyro.sample(name, dist.Dirichlet(jnp.full(nb + 2, alpha, dtype=f32)))
    else:
        nb = priors.monotone_bins
        alpha = priors.monotone_concentration / nb
        keep = gap_pieces(data, nb) if drop_gap_pieces else None
        for i, name in enumerate(("equiv_weights", "nonequiv_weights")):
            if keep is None:
                params[name] = numpyro.sample(name, dist.Dirichlet(jnp.full(nb, alpha,
                                                                            dtype=f32)))
                continue
            # the pieces across the score gap get no weight (see gap_pieces): a Dirichlet
            # over the others, scattered into the full vector of pieces
            idx = np.flatnonzero(keep[i])
            w = numpyro.sample(f"{name}_kept", dist.Dirichlet(jnp.full(idx.size, alpha,
                                                                       dtype=f32)))
            full = jnp.zeros(w.shape[:-1] + (nb,), dtype=f32).at[..., idx].set(w)
            params[name] = numpyro.deterministic(name, full)
        for name in ("equiv_atoms", "nonequiv_atoms"):
            params[name] = numpyro.sample(name, dist.Dirichlet(jnp.ones(2, dtype=f32)))
    params["intercept"] = numpyro.sample("intercept", dist.Normal(f32(0.0),
                                                                  priors.intercept_scale))
    pi_chance = numpyro.sample("pi_chance", dist.Beta(f32(1.0), f32(1.0)))
    if rater_effects and data.n_raters > 1:
        params["rater_scale"] = numpyro.sample("rater_scale", dist.HalfNormal(
            f32(priors.effect_scale)))
        params["rater_z"] = numpyro.sample("rater_z", dist.Normal(
            jnp.zeros(data.n_raters, dtype=f32), 1.0))
    if item_effects and data.n_items > 1:
        params["item_scale"] = numpyro.sample("item_scale", dist.HalfNormal(
            f32(priors.effect_scale)))
        params["item_z"] = numpyro.sample("item_z", dist.Normal(
            jnp.zeros(data.n_items, dtype=f32), 1.0))
    if emission == "beta":
        a, b = beta_mixture_params(params)
        numpyro.deterministic("component_mean", a / (a + b))
    else:
        mids = (jnp.arange(priors.monotone_bins, dtype=f32) + 0.5) / priors.monotone_bins
        probs = cell_probabilities(params, emission, priors.monotone_bins)
        numpyro.deterministic("component_mean", probs @ mids)
    eta = within_logits(params, data)
    l0, l1 = _component_loglik(params, emission, data.within_scores, priors)
    lp1, lp0 = jax.nn.log_sigmoid(eta) + l1, jax.nn.log_sigmoid(-eta) + l0
    lmix = jnp.logaddexp(lp1, lp0)
    ll = lmix.sum()
    l0, l1 = _component_loglik(params, emission, data.chance_scores, priors)
    ll = ll + jnp.logaddexp(jnp.log(pi_chance) + l1, jnp.log1p(-pi_chance) + l0).sum()
    if data.n_gold:
        l0, l1 = _component_loglik(params, emission, data.gold_scores, priors)
        ll = ll + jnp.where(jnp.asarray(data.gold_labels) == 1, l1, l0).sum()
    numpyro.factor("obs", ll)
    numpyro.deterministic("pi_within_expected", jax.nn.sigmoid(eta).mean())
    # the share of equivalent pairs among the observed within-item pairs: each pair's
    # P(equivalent | its score) plus, through a standard-normal site the data do not inform,
    # the normal approximation of the Bernoulli spread of the pairs' own indicators
    resp = jnp.exp(lp1 - lmix)
    n_w = data.n_within
    share_z = numpyro.sample("within_share_z", dist.Normal(f32(0.0), f32(1.0)))
    share_sd = jnp.sqrt(jnp.sum(resp * (1.0 - resp))) / n_w
    pi_within = numpyro.deterministic("pi_within", jnp.clip(resp.mean() + share_sd * share_z,
                                                            0.0, 1.0))
    numpyro.deterministic("kappa", (pi_within - pi_chance) / (1.0 - pi_chance))


# ----------------------------------------------------------------------------- builder
def _pairs_within(items: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Indices (first, second) of all pairs of rows sharing an item; rows sorted by item."""
    n = items.size
    if n == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    starts = np.r_[0, np.flatnonzero(np.diff(items)) + 1]
    sizes = np.diff(np.r_[starts, n])
    pos = np.arange(n) - np.repeat(starts, sizes)
    later = np.repeat(sizes, sizes) - pos - 1  # partners after each row
    first = np.repeat(np.arange(n), later)
    offs = np.arange(first.size) - np.repeat(np.cumsum(later) - later, later)
    return first, first + offs + 1


def pair_scores(ann: Any, similarity: Any = None, *, n_chance: int | None = None,
                groups: Sequence[Any] | None = None, gold: tuple | None = None,
                seed: int = 0) -> PairScores:
    """Score within-item and chance pairs of an annotation set for :func:`soft_agreement`.

    Parameters
    ----------
    ann : Annotations
        Anything with ``.codes`` (items x raters, -1 = missing) and ``.vocabulary``.
    similarity : None, str, (K, K) array, estimator, callable or a resolved similarity
        Anything :func:`softirr_stats.equivalence.resolve_label_similarity` accepts: ``None``
        = exact match; a measure name; a (K, K) array indexed like ``ann.vocabulary`` (unit
        diagonal, symmetrised); an equivalence estimator / callable ``(a_seq, b_seq) ->
        scores`` (each distinct vocabulary pair scored once; a directional one symmetrised,
        as for the coefficients); or a similarity object shared with other statistics, whose
        memo of scored pairs is reused.
    n_chance : int, optional
        Number of cross-item pairs sampled (uniformly over pairs of ratings of different
        items). Default ``max(n_within, 1000)``.
    groups : sequence, optional
        Group (cluster / category) of each vocabulary entry, length K, for per-label
        contributions. Default: each label is its own group.
    gold : (scores, labels), optional
        Human-judged pairs: scores in [0, 1] and 0/1 equivalence judgments.
    seed : int
        Seed of the chance-pair sample.

    Returns
    -------
    PairScores

    Examples
    --------
    >>> import numpy as np
    >>> class Ann:
    ...     codes = np.array([[0, 0, 1], [1, 1, 1]])
    ...     vocabulary = ("a", "b")
    >>> ps = pair_scores(Ann(), n_chance=10)
    >>> ps.within_scores.tolist(), ps.within_raters.tolist()
    ([1.0, 0.0, 0.0, 1.0, 1.0, 1.0], [[0, 1], [0, 2], [1, 2], [0, 1], [0, 2], [1, 2]])
    """
    codes = np.asarray(ann.codes)
    vocabulary = tuple(ann.vocabulary)
    if codes.ndim != 2:
        raise ValueError(f"ann.codes must have shape (n_items, n_raters); got {codes.shape}")
    k = len(vocabulary)
    items, raters = np.nonzero(codes >= 0)  # row-major: sorted by item
    labels = codes[items, raters]
    first, second = _pairs_within(items)
    if first.size == 0:
        raise ValueError("no item has two or more ratings: there are no within-item pairs")
    ca, cb = labels[first], labels[second]
    sim = resolve_label_similarity(vocabulary, similarity)
    within = sim.pairs(ca, cb)
    if n_chance is None:
        n_chance = max(first.size, 1000)
    if not (isinstance(n_chance, int | np.integer) and n_chance >= 1):
        raise ValueError(f"n_chance must be a positive int; got {n_chance!r}")
    if np.unique(items).size < 2:
        raise ValueError("chance pairs need ratings on at least two different items")
    rng = np.random.default_rng(seed)
    pa = np.zeros(0, np.int64)
    pb = np.zeros(0, np.int64)
    while pa.size < n_chance:
        m = 2 * (n_chance - pa.size) + 16
        xa, xb = rng.integers(0, items.size, m), rng.integers(0, items.size, m)
        keep = items[xa] != items[xb]
        pa, pb = np.r_[pa, xa[keep]], np.r_[pb, xb[keep]]
    pa, pb = pa[:n_chance], pb[:n_chance]
    chance = sim.pairs(labels[pa], labels[pb])
    if groups is None:
        gid, names = np.arange(k), vocabulary
    else:
        groups = list(groups)
        if len(groups) != k:
            raise ValueError(f"groups must give one group per vocabulary entry ({k}); got "
                             f"{len(groups)}")
        names_list: list = []
        lookup: dict = {}
        gid = np.empty(k, dtype=np.int64)
        for i, g in enumerate(groups):
            if g not in lookup:
                lookup[g] = len(names_list)
                names_list.append(g)
            gid[i] = lookup[g]
        names = tuple(names_list)
    gold_scores = gold_labels = None
    if gold is not None:
        gold_scores, gold_labels = gold
    rater_names = tuple(getattr(ann, "raters", ())) or None
    return PairScores(
        within_scores=within.values, within_raters=np.stack([raters[first], raters[second]], axis=1),
        within_items=items[first], chance_scores=chance.values, n_raters=codes.shape[1],
        n_items=codes.shape[0], within_groups=np.stack([gid[ca], gid[cb]], axis=1),
        group_names=names, gold_scores=gold_scores, gold_labels=gold_labels,
        rater_names=rater_names, n_pairs_scored=within.n_scored + chance.n_scored, similarity=sim.name)
