"""``softirr_stats.permutation_test``: a permutation test of H0 "no agreement beyond chance" for any coefficient."""

from collections.abc import Callable
from typing import Any

from softirr_stats.agreement import AgreementResult, get_coefficient
from softirr_stats.api._coefficients import _options, estimate_point
from softirr_stats.base._validation import check_choice
from softirr_stats.uncertainty import attach_interval

__all__ = ["permutation_test"]


def permutation_test(coefficient: "str | Callable[..., AgreementResult]", ann: Any, *, n: int = 2000, seed: int = 0,
                     chunk_size: int | None = None, alternative: str = "two-sided", **options: Any) -> AgreementResult:
    """A coefficient with a permutation test of H0: no agreement beyond chance (any coefficient, soft too).

    Each rater's labels are permuted over the items that rater rated, independently per rater
    (missing ratings stay where they are), ``n`` times; the coefficient's values on the permuted
    data sets are its null distribution. ``result.p_value`` is two-sided by default
    (``min(1, 2 min(P_upper, P_lower))``, the observed value counted among the permuted ones and
    ties counted half, ``P_upper = (#{T_b > T} + (#{T_b = T} + 1) / 2) / (n + 1)``, the mid-p form of
    ``(1 + #{T_b >= T}) / (n + 1)``); ``alternative="greater"`` gives ``P_upper`` (H1: more agreement
    than independent raters give) and ``"less"`` ``P_lower``. ``result.z`` is ``(value - mean) / sd``
    of the permuted values. Any ``ci=`` interval is computed as usual and
    kept. The permuted data sets are stacked and evaluated in batches, as the bootstrap is.

    Parameters
    ----------
    coefficient : str or coefficient function
        ``"fleiss_kappa"``, ``softirr_stats.fleiss_kappa``, ... (any registered coefficient).
    ann : Annotations or table
        The annotations.
    n : int
        Number of permutations (the smallest p-value is ``1 / (n + 1)``).
    seed : int
        Seed of the permutations.
    chunk_size : int, optional
        Permutations per stacked batch.
    alternative : {"two-sided", "greater", "less"}, default "two-sided"
        H1 of ``result.p_value``; ``details`` keeps ``p_value_greater`` and ``p_value_less``.
    **options
        The coefficient's keyword options (``weights=``, ``similarity=``, ``level=``, ``ci=``, ...);
        chance must be exact.

    Returns
    -------
    AgreementResult
        With ``z``, ``p_value`` and ``details["test"]``, ``details["alternative"]``.

    Examples
    --------
    >>> rows = [["a", "a"], ["b", "b"], ["a", "a"], ["b", "b"], ["c", "c"], ["c", "c"], ["a", "b"]] * 2
    >>> r = permutation_test("fleiss_kappa", rows, n=199, seed=0)
    >>> round(r.value, 4), bool(r.p_value < 0.05)
    (0.7846, True)
    """
    from softirr_stats.uncertainty import ALTERNATIVES, Permutation, attach_permutation

    check_choice("alternative", alternative, ALTERNATIVES)
    cfg = Permutation(n=n, seed=seed, chunk_size=chunk_size)
    name = coefficient if isinstance(coefficient, str) else getattr(coefficient, "__name__", coefficient)
    coef = get_coefficient(name)
    opts = _options(coef, options)
    if opts.get("judgments") is not None or opts.get("judge") is not None:
        raise ValueError("permutation_test does not take judgments= / judge= (a prediction-powered estimate)")
    result, prep = estimate_point(coef, ann, **opts)
    result = attach_interval(result, prep, opts.get("ci"))
    return attach_permutation(result, prep, cfg, alternative=alternative)
