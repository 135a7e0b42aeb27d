"""Public agreement coefficients, made from the coefficient registry.

Every public function here is built by :func:`coefficient_function` from one record of
:data:`softirr_stats.agreement.COEFFICIENTS`: its signature (keyword-only options), its
docstring and its behaviour (resolve the options into a similarity and a chance family,
evaluate the point estimate, attach the interval of ``ci=``). Each takes an
:class:`~softirr_stats.Annotations` (or a wide table: rows = items, columns = raters) and
returns an :class:`~softirr_stats.AgreementResult`.
"""

import inspect
import math
import warnings
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from softirr_stats.agreement import (
    COEFFICIENTS,
    AgreementResult,
    Coefficient,
    Prepared,
    as_annotations,
    get_coefficient,
    missing_ratings_note,
    point_estimate,
)
from softirr_stats.uncertainty import attach_interval

__all__ = ["estimate_point", "estimate_with_interval", "coefficient_function", "public_function", *COEFFICIENTS]

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


def estimate_point(coef: "str | Coefficient", ann: Any, **options: Any) -> tuple[AgreementResult, Prepared]:
    """Point estimate of a registered coefficient and the prepared statistic, no interval attached.

    ``options`` are the public function's keyword options (``ci`` is ignored here).

    Examples
    --------
    >>> result, prepared = estimate_point("fleiss_kappa", [["a", "a"], ["a", "b"], ["b", "b"]])
    >>> round(result.value, 4), prepared.family.name
    (0.3333, 'pooled')
    """
    coef = get_coefficient(coef)
    opts = _options(coef, options)
    data = as_annotations(ann, opts["categories"])
    coef.check_raters(data)
    res = coef.resolve(coef, data, opts)
    result, prep = point_estimate(data, family=res.family, coefficient=res.name, sim=res.sim, chance=res.chance,
                                  extra_notes=list(res.notes))
    return _with_missing_ratings_note(coef, data, res, result), prep


def _with_missing_ratings_note(coef: Coefficient, data: Any, res: Any, result: AgreementResult) -> AgreementResult:
    """The result with a note where the common peers would use only the complete items (``MISSING_RATINGS``).

    The peers' number, the coefficient on ``data.complete_items()``, is computed only when a note is due
    (incomplete items, exact matching or weights a peer has, exact chance); it is in ``details``.
    """
    if not missing_ratings_note(coef.name, data, similarity=res.sim.name, chance=result.chance,
                                complete_value=None, call=""):
        return result
    import numpy as np

    n_complete = int((np.asarray(data.codes) >= 0).all(axis=1).sum())
    value = math.nan
    if n_complete >= 2:  # with fewer the peers' number is undefined (and no Annotations holds zero items)
        complete = data.complete_items()
        with warnings.catch_warnings():  # the peers' number, not this result: its warnings are not ours
            warnings.simplefilter("ignore")
            try:
                value = point_estimate(complete, family=res.family, coefficient=res.name, sim=res.sim,
                                       chance="exact")[0].value
            except ValueError:  # e.g. a single label on the complete items
                value = math.nan
    weights = "" if res.sim.name == "identity" else f", weights={res.sim.name!r}"
    note = missing_ratings_note(coef.name, data, similarity=res.sim.name, chance=result.chance,
                                complete_value=value, call=f"{coef.name}(ann.complete_items(){weights})")
    details = {**result.details, "complete_items_value": value, "n_complete_items": n_complete}
    return replace(result, warnings=(*result.warnings, note), details=details)


def estimate_with_interval(coef: "str | Coefficient", ann: Any, **options: Any) -> AgreementResult:
    """Evaluate a registered coefficient on ``ann`` with keyword ``options``, the interval of ``ci=`` attached.

    Examples
    --------
    >>> estimate_with_interval("percent_agreement", [["a", "a"], ["a", "b"]]).value
    0.5
    """
    coef = get_coefficient(coef)
    opts = _options(coef, options)
    result, prep = estimate_point(coef, ann, **opts)
    if opts.get("judgments") is not None or opts.get("judge") is not None:
        # judged pairs (pandas) are read only when given
        from softirr_stats.ppi import apply_ppi

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
        return estimate_with_interval(coef, opts.pop("ann"), **opts)

    fn.__name__ = fn.__qualname__ = coef.name
    fn.__module__ = __name__
    fn.__doc__ = _docstring(coef)
    fn.__signature__ = sig  # type: ignore[attr-defined]
    return fn


# The public function of every coefficient of the registry, made once from its record.
_FUNCTIONS: dict[str, Callable[..., AgreementResult]] = {name: coefficient_function(name) for name in COEFFICIENTS}


def public_function(name: str) -> Callable[..., AgreementResult]:
    """The public function of a registered coefficient (``softirr_stats.<name>``).

    The functions of the registry's coefficients are made once, at import; a coefficient
    added later with :func:`~softirr_stats.agreement.register` gets its function on first use.

    Examples
    --------
    >>> public_function("cohen_kappa") is cohen_kappa
    True
    """
    # a name outside the registry: coefficient_function's ValueError names the registered ones
    return _FUNCTIONS[name] if name in _FUNCTIONS else coefficient_function(name)


def __getattr__(name: str) -> Callable[..., AgreementResult]:
    """Coefficients registered after import (``register``) are module attributes too."""
    if name in COEFFICIENTS:
        return public_function(name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# Module-level names, for ``from softirr_stats.api._coefficients import cohen_kappa``, the package's
# lazy exports and static tools (which cannot see names written into ``globals()``): each is
# looked up in the registry's functions, never built here. test_api_surface checks that these
# names are exactly the registry's coefficients and ``softirr_stats._EXPORTS``.
percent_agreement = _FUNCTIONS["percent_agreement"]
cohen_kappa = _FUNCTIONS["cohen_kappa"]
scott_pi = _FUNCTIONS["scott_pi"]
fleiss_kappa = _FUNCTIONS["fleiss_kappa"]
conger_kappa = _FUNCTIONS["conger_kappa"]
light_kappa = _FUNCTIONS["light_kappa"]
krippendorff_alpha = _FUNCTIONS["krippendorff_alpha"]
gwet_ac1 = _FUNCTIONS["gwet_ac1"]
brennan_prediger = _FUNCTIONS["brennan_prediger"]
