"""``softirr_stats.compare_groups``: two rater groups on the same items, with a permutation test.

Every coefficient is a function of rater weights, and a rater of weight 0 is a rater left out,
so the coefficient of any group of raters is one evaluation of the statistic prepared once on
all of them. The permutation test reassigns the raters to the two groups (group sizes kept):
every split is one row of rater weights, evaluated in batches; with few raters every split is
enumerated (an exact test). It is valid when the raters are exchangeable under H0 (e.g. people
drawn from one pool and assigned to two conditions at random); it is not when the groups differ
by design (humans against humans plus a model, experts against crowd workers): then use the
bootstrap interval (docs/comparing.md).
"""

import math
import warnings
from itertools import combinations
from typing import Any

import numpy as np

from softirr_stats.agreement import DegenerateWarning, as_annotations, get_coefficient
from softirr_stats.api import estimate_point, estimate_with_interval
from softirr_stats.base._validation import check_positive_int, check_seed, user_stacklevel
from softirr_stats.comparison._compare import _resolve_ci, compare_statistics, statistic_of
from softirr_stats.comparison._comparison_result import ComparisonResult

__all__ = ["compare_groups", "check_group", "check_groups"]

#: Splits evaluated per batch of rater weights.
_BATCH = 512


def check_group(group: Any, raters: tuple, name: str) -> list:
    """A group of raters as a list of rater ids of ``raters`` (ValueError naming the ids not found)."""
    if isinstance(group, str) or not hasattr(group, "__iter__"):
        raise TypeError(f"{name} must be a list of rater ids; got {group!r}")
    group = list(dict.fromkeys(group))
    missing = [r for r in group if r not in raters]
    if missing:
        raise ValueError(f"{name}: raters {missing} are not in the data; raters are {list(raters)}")
    if len(group) < 2:
        raise ValueError(f"{name} needs at least 2 raters for an agreement coefficient; got {group}")
    return group


def check_groups(group_a: Any, group_b: Any, raters: tuple, *, permutations: int = 0) -> tuple[list, list]:
    """The two groups of :func:`compare_groups` as lists of rater ids of ``raters``, checked before any work.

    A ValueError names what is wrong: ids not found, a group of fewer than two raters, the same raters twice, or
    raters in both groups with a permutation test (it reassigns raters between disjoint groups).

    Examples
    --------
    >>> check_groups(["a", "b"], ["c", "d", "c"], ("a", "b", "c", "d"))
    (['a', 'b'], ['c', 'd'])
    """
    ga = check_group(group_a, raters, "group_a")
    gb = check_group(group_b, raters, "group_b")
    if set(ga) == set(gb):
        raise ValueError(f"group_a and group_b are the same raters {ga}: nothing to compare")
    if permutations and set(ga) & set(gb):
        raise ValueError(f"the permutation test reassigns raters between disjoint groups; {sorted(set(ga) & set(gb), key=str)} "
                         "are in both: use the bootstrap interval (permutations=0)")
    return ga, gb


def compare_groups(ann: Any, group_a: Any, group_b: Any, *, coefficient: str = "fleiss_kappa", ci: Any = None,
                   permutations: int = 0, seed: int = 0, **options: Any) -> ComparisonResult:
    """Compare the agreement of two rater groups on the same items (paired), with an optional permutation test.

    Parameters
    ----------
    ann : Annotations or wide table
        The annotations of both groups.
    group_a, group_b : list of rater ids
        The two groups (at least 2 raters each; they may share raters for the bootstrap, not for
        the permutation test).
    coefficient : str
        A registered coefficient (``"fleiss_kappa"``, ``"krippendorff_alpha"``, ...).
    ci : None, "analytic", Analytic or Bootstrap
        The interval of the difference (None: ``Bootstrap()``); see :func:`compare`.
    permutations : int
        0: no permutation test. Otherwise the number of random splits of the raters into groups
        of the same sizes (every split when there are at most that many: an exact test); the
        result's ``p_value`` is then the permutation p-value (two-sided, ``|difference|``), and
        ``details["bootstrap_p_value"]`` keeps the interval's.
    seed : int
        Seed of the random splits.
    **options
        The coefficient's options (``similarity=``, ``weights=``, ``level=``, ...).

    Returns
    -------
    ComparisonResult

    Examples
    --------
    >>> import numpy as np, softirr_stats as sis
    >>> rng = np.random.default_rng(0)
    >>> truth = rng.integers(0, 3, 60)
    >>> noisy = lambda p: np.where(rng.random(60) < p, rng.integers(0, 3, 60), truth)
    >>> table = np.column_stack([noisy(0.1), noisy(0.1), noisy(0.1), noisy(0.6), noisy(0.6), noisy(0.6)])
    >>> r = sis.compare_groups(table.tolist(), [0, 1, 2], [3, 4, 5], ci=sis.Bootstrap(n=500), permutations=1000)
    >>> r.details["n_permutations"], r.details["permutation_exact"], round(r.p_value, 2)
    (20, True, 0.1)
    """
    coef = get_coefficient(coefficient)
    data = as_annotations(ann, options.get("categories"))
    check_positive_int(permutations, "permutations", minimum=0)
    seed = check_seed(seed)
    ga, gb = check_groups(group_a, group_b, data.raters, permutations=permutations)
    a = estimate_with_interval(coef, data.subset_raters(ga), **options, ci=None)
    b = estimate_with_interval(coef, data.subset_raters(gb), **options, ci=None)
    cfg = _resolve_ci(a, b, ci)
    level = options.get("level")
    name = f"{coef.name}:{level}" if isinstance(level, str) and level != "nominal" else coef.name  # as -c says it
    labels = (f"{name} of {', '.join(map(str, ga))}", f"{name} of {', '.join(map(str, gb))}")
    out = compare_statistics(a, b, statistic_of(a, "group_a"), statistic_of(b, "group_b"), cfg, labels)
    if not permutations:
        return out
    if options.get("judgments") is not None or options.get("judge") is not None:
        raise ValueError("the permutation test does not take judgments= / judge= (a prediction-powered estimate)")
    both = ga + gb
    _, stat = estimate_point(coef, data.subset_raters(both), **{k: v for k, v in options.items() if k != "ci"})
    if not stat.rater_designs:
        raise ValueError(f"{coef.name} cannot weight raters, so its groups cannot be permuted; use the bootstrap")
    n_r, n_a = len(both), len(ga)
    n_splits = math.comb(n_r, n_a)
    exact = n_splits <= permutations
    if exact:
        masks = np.zeros((n_splits, n_r))
        picks = np.fromiter((j for c in combinations(range(n_r), n_a) for j in c), dtype=np.int64,
                            count=n_splits * n_a).reshape(n_splits, n_a)
        np.put_along_axis(masks, picks, 1.0, axis=1)
    else:
        rng = np.random.Generator(np.random.SFC64(np.random.SeedSequence([seed, 0x67727073])))
        keys = rng.random((permutations, n_r))
        masks = (np.argsort(keys, axis=1) < n_a).astype(np.float64)
    observed = np.r_[np.ones(n_a), np.zeros(n_r - n_a)][None, :]
    diffs = []
    for b0 in range(0, len(masks), _BATCH):
        m = masks[b0:b0 + _BATCH]
        va = np.asarray(stat.evaluate(None, m)["value"], dtype=np.float64)
        vb = np.asarray(stat.evaluate(None, 1.0 - m)["value"], dtype=np.float64)
        diffs.append(va - vb)
    d = np.concatenate(diffs)
    d_obs = float(np.asarray(stat.evaluate(None, observed)["value"])[0]
                  - np.asarray(stat.evaluate(None, 1.0 - observed)["value"])[0])
    p, said = permutation_p_value(d, d_obs, exact)
    if said:
        warnings.warn(f"compare_groups: {said}", DegenerateWarning, stacklevel=user_stacklevel())
    details = {**out.details, "bootstrap_p_value": out.p_value, "permutation_p_value": p,
               "n_permutations": int(len(d)), "n_undefined_splits": int((~np.isfinite(d)).sum()),
               "permutation_exact": exact, "permutation_replicates": d,
               "test": ("exact permutation test over every split of the raters" if exact
                        else f"permutation test over {len(d)} random splits of the raters") +
               " (raters exchangeable between the groups under H0)"}
    from dataclasses import replace

    return replace(out, p_value=float(p), details=details, warnings=(*out.warnings, *([said] if said else [])))


def permutation_p_value(d: np.ndarray, d_obs: float, exact: bool) -> tuple[float, str]:
    """Two-sided permutation p-value of ``|d_obs|`` among the splits' differences ``d``, and what to say about it.

    Splits whose difference is undefined (a group whose coefficient is nan, e.g. raters who all give one
    label) leave the reference distribution: they are neither extreme nor counted. An undefined observed
    difference has no p-value (nan).

    Examples
    --------
    >>> permutation_p_value(np.array([0.1, -0.3, np.nan, 0.2]), 0.2, exact=True)
    (0.6666666666666666, '1 of 4 splits of the raters give an undefined difference and are left out of the p-value')
    >>> permutation_p_value(np.array([0.1, 0.2]), float("nan"), exact=True)[0]
    nan
    """
    if not math.isfinite(d_obs):
        return math.nan, "the observed difference is undefined (a group's coefficient is nan): no permutation p-value"
    finite = d[np.isfinite(d)]
    said = ""
    if len(finite) < len(d):
        said = (f"{len(d) - len(finite)} of {len(d)} splits of the raters give an undefined difference and are left "
                f"out of the p-value")
    if len(finite) == 0:
        return math.nan, "every split of the raters gives an undefined difference: no permutation p-value"
    tol = 1e-12 * max(1.0, abs(d_obs))
    extreme = float(np.sum(np.abs(finite) >= abs(d_obs) - tol))
    return (extreme / len(finite) if exact else (1.0 + extreme) / (len(finite) + 1.0)), said
