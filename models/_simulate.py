"""Simulators for the annotator models (validation by simulation, docs, tests)."""

from typing import Any

import numpy as np

from softirr_stats.base._validation import check_seed

__all__ = ["simulate_dawid_skene", "simulate_mace", "simulate_soft_scores"]


def _rng(seed: int) -> np.random.Generator:
    return np.random.default_rng(check_seed(seed))


def _accuracy_vector(accuracy: Any, n_raters: int, name: str = "accuracy") -> np.ndarray:
    given = np.asarray(accuracy, dtype=np.float64)
    if given.ndim > 1 or (given.ndim == 1 and given.size not in (1, n_raters)):
        raise ValueError(f"{name} must be one number or one per rater ({n_raters}); got {given.size} values")
    acc = np.broadcast_to(given, (n_raters,)).copy()
    if not np.all((acc >= 0) & (acc <= 1)):
        raise ValueError(f"{name} must lie in [0, 1]; got {acc.tolist()}")
    return acc


def _check_sizes(n_items: int, n_raters: int, n_classes: int | None = None) -> None:
    """Whole numbers of items (>= 1), raters (>= 1) and classes (>= 2) for a simulation."""
    for name, v, low in (("n_items", n_items, 1), ("n_raters", n_raters, 1), ("n_classes", n_classes, 2)):
        if v is None:
            continue
        if isinstance(v, bool) or not isinstance(v, int | np.integer) or v < low:
            raise ValueError(f"{name} must be a whole number >= {low}; got {v!r}")


def _mask(codes: np.ndarray, missing: float, rng: np.random.Generator) -> np.ndarray:
    if isinstance(missing, bool) or not isinstance(missing, int | float | np.floating) or not 0 <= missing < 1:
        raise ValueError(f"missing must be a probability in [0, 1); got {missing!r}")
    if missing:
        drop = rng.random(codes.shape) < missing
        keep = rng.integers(0, codes.shape[1], codes.shape[0])  # keep one per item
        drop[np.arange(codes.shape[0]), keep] = False
        codes = np.where(drop, -1, codes)
    return codes


def simulate_dawid_skene(n_items: int, n_raters: int, n_classes: int, accuracy: Any = 0.8,
                         *, prevalence: Any = None, missing: float = 0.0,
                         seed: int = 0) -> dict[str, np.ndarray]:
    """Simulate ratings from a Dawid-Skene model with symmetric confusions.

    Rater j answers correctly with probability ``accuracy[j]``, otherwise uniformly among
    the K - 1 wrong labels.

    Returns
    -------
    dict with ``codes`` (n_items, n_raters; -1 = missing), ``truth`` (n_items,),
    ``confusion`` (n_raters, K, K), ``prevalence`` (K,), ``accuracy`` (n_raters,)

    Parameters
    ----------
    n_items, n_raters, n_classes : int
        Sizes.
    accuracy : float or array of shape (n_raters,)
        Probability of the correct label, per rater.
    prevalence : array of shape (n_classes,), optional
        Class prevalences (default uniform).
    missing : float
        Probability that a rating is missing.
    seed : int
        Seed of the generator.

    Examples
    --------
    >>> sim = simulate_dawid_skene(5, 3, 2, accuracy=1.0, seed=1)
    >>> bool((sim["codes"] == sim["truth"][:, None]).all())
    True
    """
    rng = _rng(seed)
    _check_sizes(n_items, n_raters, n_classes)
    acc = _accuracy_vector(accuracy, n_raters)
    k = n_classes
    pi = np.full(k, 1.0 / k) if prevalence is None else np.asarray(prevalence, float)
    conf = (1 - acc)[:, None, None] / (k - 1) * (1 - np.eye(k)) + acc[:, None, None] * np.eye(k)
    truth = rng.choice(k, size=n_items, p=pi)
    cum = conf[:, truth, :].cumsum(axis=-1)  # (J, I, K)
    u = rng.random((n_raters, n_items, 1))
    codes = np.minimum((u > cum).sum(axis=-1), k - 1).T.astype(np.int32)
    codes = _mask(codes, missing, rng)
    return {"codes": codes, "truth": truth, "confusion": conf, "prevalence": pi,
            "accuracy": (pi[None, :] * np.diagonal(conf, axis1=1, axis2=2)).sum(1)}


def simulate_mace(n_items: int, n_raters: int, n_classes: int, competence: Any = 0.8, *,
                  missing: float = 0.0, seed: int = 0) -> dict[str, np.ndarray]:
    """Simulate ratings from MACE: competent with probability ``competence[j]``, else spam.

    Spamming raters draw labels from a rater-specific distribution ``epsilon[j]``
    (Dirichlet(1)). True P(correct) is ``theta + (1 - theta) sum_c pi_c epsilon_jc``.

    Returns
    -------
    dict with ``codes``, ``truth``, ``theta``, ``epsilon``, ``accuracy``

    Parameters
    ----------
    n_items, n_raters, n_classes : int
        Sizes.
    competence : float or array of shape (n_raters,)
        Probability that a rater is not spamming, per rater.
    missing : float
        Probability that a rating is missing.
    seed : int
        Seed of the generator.

    Examples
    --------
    >>> simulate_mace(4, 2, 3, seed=0)["codes"].shape
    (4, 2)
    """
    rng = _rng(seed)
    _check_sizes(n_items, n_raters, n_classes)
    theta = _accuracy_vector(competence, n_raters, "competence")
    k = n_classes
    eps = rng.dirichlet(np.ones(k), size=n_raters)
    truth = rng.integers(0, k, n_items)
    competent = rng.random((n_items, n_raters)) < theta
    spam = (rng.random((n_items, n_raters, 1)) > eps.cumsum(-1)[None]).sum(-1)
    codes = np.where(competent, truth[:, None], np.minimum(spam, k - 1)).astype(np.int32)
    codes = _mask(codes, missing, rng)
    acc = theta + (1 - theta) * eps.mean(axis=1)
    return {"codes": codes, "truth": truth, "theta": theta, "epsilon": eps, "accuracy": acc}


def simulate_soft_scores(n_items: int, n_raters: int, *, intercept: float = 1.0,
                         rater_sd: float = 0.5, pi_chance: float = 0.1,
                         means: tuple[float, float] = (0.25, 0.75),
                         concentrations: tuple[float, float] = (8.0, 8.0),
                         n_chance: int | None = None, n_gold: int = 0,
                         seed: int = 0) -> dict[str, Any]:
    """Simulate equivalence scores from the soft-agreement model (all raters rate all items).

    Returns
    -------
    dict with ``data`` (:class:`~softirr_stats.models.PairScores`), ``kappa`` (true soft
    kappa over the simulated design: the share of equivalent pairs among the simulated
    within-item pairs against ``pi_chance``), ``pi_within`` (that share),
    ``pi_within_expected`` (the mean of the pairs' equivalence probabilities), ``rater_effect``

    Parameters
    ----------
    n_items, n_raters : int
        Sizes (every rater rates every item).
    intercept : float
        Logit of the within-pair equivalence probability.
    rater_sd : float
        Standard deviation of the rater effects on that logit.
    pi_chance : float
        Equivalence probability of chance (cross-item) pairs.
    means, concentrations : tuple of float
        Beta emission of the (not equivalent, equivalent) components.
    n_chance : int, optional
        Number of chance pairs (default: as many as within-item pairs).
    n_gold : int
        Pairs with a known equivalence label.
    seed : int
        Seed of the generator.

    Examples
    --------
    >>> sim = simulate_soft_scores(10, 3, seed=0)
    >>> sim["data"].n_within
    30
    """
    from softirr_stats.models._soft import PairScores

    rng = _rng(seed)
    u = rng.normal(0.0, rater_sd, n_raters)
    ja, jb = np.triu_indices(n_raters, 1)
    items = np.repeat(np.arange(n_items), ja.size)
    ra, rb = np.tile(ja, n_items), np.tile(jb, n_items)
    p = 1.0 / (1.0 + np.exp(-(intercept + u[ra] + u[rb])))
    m, c = np.asarray(means, float), np.asarray(concentrations, float)
    a, b = m * c, (1 - m) * c

    def draw(z: np.ndarray) -> np.ndarray:
        return rng.beta(a[z], b[z])

    z_w = (rng.random(p.size) < p).astype(int)
    n_chance = p.size if n_chance is None else n_chance
    z_c = (rng.random(n_chance) < pi_chance).astype(int)
    gold = {}
    if n_gold:
        z_g = rng.integers(0, 2, n_gold)
        gold = {"gold_scores": draw(z_g), "gold_labels": z_g}
    data = PairScores(within_scores=draw(z_w), within_raters=np.stack([ra, rb], 1),
                      within_items=items, chance_scores=draw(z_c), n_raters=n_raters,
                      n_items=n_items, **gold)
    pw = float(z_w.mean())
    return {"data": data, "pi_within": pw, "pi_within_expected": float(p.mean()),
            "kappa": (pw - pi_chance) / (1 - pi_chance), "rater_effect": u}
