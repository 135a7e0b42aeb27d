"""The one entry point from ``ci=`` to an interval, for any prepared statistic.

``ci`` is validated here and nowhere else: None (no interval), ``"analytic"`` or
:class:`Analytic` (the linearised variance, where the statistic has one), or
:class:`Bootstrap` (any design the statistic allows).
"""

from typing import TYPE_CHECKING, Any

from softirr_stats.agreement import AgreementResult, Statistic
from softirr_stats.base._suggest import did_you_mean

if TYPE_CHECKING:
    from softirr_stats.uncertainty._analytic import Analytic
    from softirr_stats.uncertainty._bootstrap import Bootstrap

__all__ = ["check_ci", "attach_interval"]


def check_ci(ci: Any, *, analytic: bool = True, rater_designs: str = "",
             no_analytic: str = "", judged_designs: str = "") -> "Analytic | Bootstrap | None":
    """The one resolver of ``ci=``: validate it; ``"analytic"`` becomes ``Analytic()``.

    ``analytic=False``: the statistic has no analytic variance. ``rater_designs``: when not
    empty, the reason the statistic's raters cannot be resampled (refuses those designs).
    ``judged_designs``: likewise for the designs that resample judged label pairs. Which design
    is which is read from its record's flags (``BootstrapDesign.resamples_raters``, ``resamples_judged``).

    Parameters
    ----------
    ci : Any
        The user's ``ci=``.
    analytic : bool
        Whether the statistic has an analytic variance.
    rater_designs : str
        Why raters cannot be resampled ('' when they can).
    no_analytic : str
        Why the statistic has no analytic variance (used in the message when ``analytic`` is False).
    judged_designs : str
        Why the statistic has no judged label pairs to resample ('' when it has, or when the design's
        own check applies).

    Returns
    -------
    Analytic, Bootstrap or None

    Examples
    --------
    >>> check_ci("analytic")
    Analytic(level=0.95, population=None, form='auto')
    >>> check_ci("bootstrap")
    Traceback (most recent call last):
    ...
    ValueError: ci must be None, 'analytic', softirr_stats.Analytic(...) or softirr_stats.Bootstrap(...); got 'bootstrap' (did you mean ci=softirr_stats.Bootstrap()?)
    """
    if ci is None:  # no interval: the interval modules (and NumPy's random generators) stay unloaded
        return None
    from softirr_stats.uncertainty._analytic import Analytic
    from softirr_stats.uncertainty._bootstrap import BOOTSTRAP_DESIGNS, Bootstrap

    if isinstance(ci, Bootstrap):
        rec = BOOTSTRAP_DESIGNS[ci.design]
        for refused, why in ((rec.resamples_raters, rater_designs), (rec.resamples_judged, judged_designs)):
            if refused and why:
                raise ValueError(f"Bootstrap design {ci.design!r} is not supported here: {why}; use design='items', "
                                 "'cluster' or 'bayesian'")
        return ci
    if isinstance(ci, Analytic) or (isinstance(ci, str) and ci == "analytic"):
        if not analytic and no_analytic:  # the statistic's own reason
            raise ValueError(f"{no_analytic}; use ci=softirr_stats.Bootstrap(...) for an interval")
        if not analytic:
            raise ValueError(f"ci must be None or softirr_stats.Bootstrap(...) for this statistic (no analytic "
                             f"variance is implemented); got {ci!r}")
        return ci if isinstance(ci, Analytic) else Analytic()
    hint = ""
    if isinstance(ci, str) and (ci.strip().lower() == "bootstrap" or did_you_mean(ci, ["bootstrap"])):
        hint = " (did you mean ci=softirr_stats.Bootstrap()?)"
    elif isinstance(ci, str):
        hint = did_you_mean(ci, ["analytic"])
    raise ValueError(f"ci must be None, 'analytic', softirr_stats.Analytic(...) or softirr_stats.Bootstrap(...); "
                     f"got {ci!r}{hint}")


def attach_interval(result: AgreementResult, stat: Statistic, ci: Any) -> AgreementResult:
    """``result`` with the interval ``ci`` asks for, computed on the prepared statistic ``stat``.

    Parameters
    ----------
    result : AgreementResult
        The point estimate.
    stat : Statistic
        The prepared statistic the interval is computed on.
    ci : None, "analytic", Analytic or Bootstrap
        Validated here (:func:`check_ci`); None returns ``result`` unchanged.

    Returns
    -------
    AgreementResult

    Examples
    --------
    >>> import softirr_stats as sis
    >>> r = sis.fleiss_kappa([["a", "a"], ["a", "b"], ["b", "b"], ["a", "a"]], ci="analytic")
    >>> r.ci_method
    'analytic'
    """
    why = "" if stat.rater_designs else stat.no_rater_designs
    cfg = check_ci(ci, analytic=stat.supports_analytic, rater_designs=why, no_analytic=stat.no_analytic)
    # the prepared statistic and the interval request travel with the result: softirr_stats.compare
    # re-evaluates both statistics of a comparison on one shared batch of weights
    result.details.update(statistic=stat, ci_request=cfg)
    if cfg is None:
        return result
    from softirr_stats.uncertainty._analytic import attach_analytic, attach_own_variance
    from softirr_stats.uncertainty._bootstrap import Bootstrap, attach_bootstrap

    if isinstance(cfg, Bootstrap):
        return attach_bootstrap(result, stat, cfg)
    if stat.analytic_variance is not None:  # a statistic with its own linearised variance
        return attach_own_variance(result, stat, cfg)
    return attach_analytic(result, stat, cfg)
