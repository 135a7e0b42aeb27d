"""The warnings of a fitted annotator model, defined here so that the model fitters of this package (EM)
raise the same classes as :func:`softirr_stats.inference.fit`, which re-exports them."""

from softirr_stats.base._validation import SoftIRRWarning

__all__ = ["ConvergenceWarning", "FitWarning"]


class FitWarning(SoftIRRWarning):
    """The fitted annotator model cannot be trusted as it stands (base class).

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     warnings.warn("a rater gave one label only", FitWarning)
    >>> caught[0].category.__name__
    'FitWarning'
    """


class ConvergenceWarning(FitWarning):
    """MCMC diagnostics (divergences, r_hat), SVI losses or an EM run stopped at its iteration limit
    suggest an unreliable fit.

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     warnings.warn("3 divergent transitions", ConvergenceWarning)
    >>> caught[0].category.__name__
    'ConvergenceWarning'
    """
