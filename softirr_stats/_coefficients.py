"""Public agreement coefficients, made from the coefficient registry.

Every function here is built by :func:`coefficient_function` from one record of
:data:`softirr_stats.agreement.COEFFICIENTS`: its signature (keyword-only options), its
docstring and its behaviour (resolve the options into a similarity and a chance family,
evaluate the point estimate, attach the interval of ``ci=``). Each takes an
:class:`~softirr_stats.Annotations` (or a wide table: rows = items, columns = raters) and
returns an :class:`~softirr_stats.AgreementResult`.
"""

import inspect
from collections.abc import Callable
from typing import Any

from softirr_stats.agreement import (
    COEFFICIENTS,
    AgreementResult,
    Coefficient,
    Prepared,
    as_annotations,
    get_coefficient,
    point_estimate,
)
from softirr_stats.uncertainty import attach_interval

__all__ = ["compute", "estimate", "coefficient_function", "permutation_test", *COEFFICIENTS]

_DEFAULTS: dict[str, Any] = {"level": "nominal", "weights": None, "similarity": None, "chance": "exact",
                             "categories": None, "ci": None, "judgments": None, "judge": None}

_PARAM_DOCS = {
    "level": ("{'nominal', 'ordinal', 'interval', 'ratio'}, default 'nominal'",
              "Krippendorff's metric. ``similarity=`` needs ``level='nominal'``; interval and ratio need "
              "numeric labels; ordinal ranks labels in numeric or declared ``categories=`` order."),
    "weights": ("None, str or array of shape (K, K), default None",
                "Categorical agreement weights: ``'identity'``, ``'linear'``, ``'quadratic'``, ``'ordinal'``, "
                "``'radical'``, ``'ratio'``, ``'circular'``, ``'bipolar'`` (built on numeric label values, else "
                "on positions in ``categories=``), or a K x K matrix indexed like ``ann.vocabulary``."),
    "similarity": ("None, estimator, callable, measure name or array of shape (K, K), default None",
                   "Soft agreement: ``P(a == b)`` from an equivalence estimator, any callable "
                   "``(a_seq, b_seq) -> scores``, a measure name (``'levenshtein'``, ``'embedding'``, ...) or a "
                   "matrix indexed like ``ann.vocabulary``. None is exact matching."),
    "chance": ("'exact', 'auto', MonteCarlo or SampledPairs, default 'exact'",
               "How chance agreement is computed: exactly over the label support, the seed paper's Monte Carlo "
               "permutations, or sampled label pairs (with the chance term's standard error)."),
    "categories": ("sequence, optional",
                   "The declared label universe, in order; unused categories count where the definition needs "
                   "them (q for AC1 and Brennan-Prediger, positions for named weights)."),
    "ci": ("None, 'analytic', Analytic or Bootstrap, default None",
           "Interval: ``'analytic'`` / ``Analytic(level, population)`` for the linearised variance (where one "
           "exists) or ``Bootstrap(n, design, method, level, seed)``."),
    "judgments": ("DataFrame from read_judgments, optional",
                  "Judged label pairs of a ``judging_plan``: the result is the prediction-powered estimate of the "
                  "coefficient computed with the judgments (``details['ppi']``; docs/ppi.md)."),
    "judge": ("estimator or callable, optional",
              "An expensive equivalence estimator that judges the planned pairs itself (instead of "
              "``judgments=``)."),
}


def _options(coef: Coefficient, options: dict[str, Any]) -> dict[str, Any]:
    opts = {**{k: _DEFAULTS[k] for k in coef.options}, **options}
    unknown = sorted(set(opts) - set(coef.options))
    if unknown:
        raise TypeError(f"{coef.name}() got unexpected keyword arguments {unknown}; it takes {list(coef.options)}")
    return opts


def estimate(coef: "str | Coefficient", ann: Any, **options: Any) -> tuple[AgreementResult, Prepared]:
    """Point estimate of a registered coefficient and the prepared statistic (no interval).

    ``options`` are the public function's keyword options (``ci`` is ignored here).

    Examples
    --------
    >>> result, prepared = estimate("fleiss_kappa", [["a", "a"], ["a", "b"], ["b", "b"]])
    >>> round(result.value, 4), prepared.family.name
    (0.3333, 'pooled')
    """
    coef = get_coefficient(coef)
    opts = _options(coef, options)
    data = as_annotations(ann, opts["categories"])
    coef.check_raters(data)
    res = coef.resolve(coef, data, opts)
    return point_estimate(data, family=res.family, coefficient=res.name, sim=res.sim, chance=res.chance,
                          extra_notes=list(res.notes))


def compute(coef: "str | Coefficient", ann: Any, **options: Any) -> AgreementResult:
    """Evaluate a registered coefficient on ``ann`` with keyword ``options``, interval included.

    Examples
    --------
    >>> compute("percent_agreement", [["a", "a"], ["a", "b"]]).value
    0.5
    """
    coef = get_coefficient(coef)
    opts = _options(coef, options)
    result, prep = estimate(coef, ann, **opts)
    if opts.get("judgments") is not None or opts.get("judge") is not None:
        # judged pairs (pandas) are read only when given
        from softirr_stats.uncertainty._ppi_intervals import apply_ppi

        return apply_ppi(result, prep, opts["judgments"], opts["judge"], opts["ci"])
    return attach_interval(result, prep, opts["ci"])


def _docstring(coef: Coefficient) -> str:
    lines = [coef.summary, ""]
    if coef.description:
        lines += [coef.description, ""]
    lines += ["Parameters", "----------", "ann : Annotations or a wide table (DataFrame, array or nested lists)",
              "    Rows = items, columns = raters; None / NaN = missing."
              + (" Exactly two raters." if coef.raters == "two" else "")]
    for opt in coef.options:
        kind, text = _PARAM_DOCS[opt]
        lines += [f"{opt} : {kind}", f"    {text}"]
    lines += ["", "Returns", "-------", "AgreementResult", "    ``value``, ``observed``, ``expected``, the interval "
              "(``ci_low``, ``ci_high``, ``se``) when ``ci=`` is given, ``warnings`` and ``details``."]
    if coef.examples:
        lines += ["", "Examples", "--------", *[ln[4:] if ln.startswith("    ") else ln
                                                for ln in coef.examples.splitlines()]]
    return "\n    ".join(lines) + "\n    "


def coefficient_function(coef: "str | Coefficient") -> Callable[..., AgreementResult]:
    """The public function of a registered coefficient: signature and docstring from its record.

    Examples
    --------
    >>> import inspect
    >>> list(inspect.signature(coefficient_function("gwet_ac1")).parameters)
    ['ann', 'weights', 'similarity', 'categories', 'ci', 'judgments', 'judge']
    """
    coef = get_coefficient(coef)
    params = [inspect.Parameter("ann", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=Any)]
    params += [inspect.Parameter(o, inspect.Parameter.KEYWORD_ONLY, default=_DEFAULTS[o], annotation=Any)
               for o in coef.options]
    sig = inspect.Signature(params, return_annotation=AgreementResult)

    def fn(*args: Any, **kwargs: Any) -> AgreementResult:
        bound = sig.bind(*args, **kwargs)  # TypeError for positional options or unknown keywords
        bound.apply_defaults()
        opts = dict(bound.arguments)
        return compute(coef, opts.pop("ann"), **opts)

    fn.__name__ = fn.__qualname__ = coef.name
    fn.__module__ = __name__
    fn.__doc__ = _docstring(coef)
    fn.__signature__ = sig  # type: ignore[attr-defined]
    return fn


percent_agreement = coefficient_function("percent_agreement")
cohen_kappa = coefficient_function("cohen_kappa")
scott_pi = coefficient_function("scott_pi")
fleiss_kappa = coefficient_function("fleiss_kappa")
conger_kappa = coefficient_function("conger_kappa")
light_kappa = coefficient_function("light_kappa")
krippendorff_alpha = coefficient_function("krippendorff_alpha")
gwet_ac1 = coefficient_function("gwet_ac1")
brennan_prediger = coefficient_function("brennan_prediger")


def permutation_test(coefficient: "str | Callable[..., AgreementResult]", ann: Any, *, n: int = 2000, seed: int = 0,
                     chunk_size: int | None = None, **options: Any) -> AgreementResult:
    """A coefficient with a permutation test of H0: no agreement beyond chance (any coefficient, soft too).

    Each rater's labels are permuted over the items that rater rated, independently per rater
    (missing ratings stay where they are), ``n`` times; the coefficient's values on the permuted
    data sets are its null distribution. ``result.p_value`` is two-sided
    (``min(1, 2 min(P_upper, P_lower))``, the observed value counted among the permuted ones and
    ties counted half, ``P_upper = (#{T_b > T} + (#{T_b = T} + 1) / 2) / (n + 1)``) and ``result.z`` is
    ``(value - mean) / sd`` of the permuted values. Any ``ci=`` interval is computed as usual and
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
    **options
        The coefficient's keyword options (``weights=``, ``similarity=``, ``level=``, ``ci=``, ...);
        chance must be exact.

    Returns
    -------
    AgreementResult
        With ``z``, ``p_value`` and ``details["test"]``.

    Examples
    --------
    >>> rows = [["a", "a"], ["b", "b"], ["a", "a"], ["b", "b"], ["c", "c"], ["c", "c"], ["a", "b"]] * 2
    >>> r = permutation_test("fleiss_kappa", rows, n=199, seed=0)
    >>> round(r.value, 4), bool(r.p_value < 0.05)
    (0.7846, True)
    """
    from softirr_stats.uncertainty import Permutation, attach_permutation

    cfg = Permutation(n=n, seed=seed, chunk_size=chunk_size)
    name = coefficient if isinstance(coefficient, str) else getattr(coefficient, "__name__", coefficient)
    coef = get_coefficient(name)
    opts = _options(coef, options)
    if opts.get("judgments") is not None or opts.get("judge") is not None:
        raise ValueError("permutation_test does not take judgments= / judge= (a prediction-powered estimate)")
    result, prep = estimate(coef, ann, **opts)
    result = attach_interval(result, prep, opts.get("ci"))
    return attach_permutation(result, prep, cfg)
