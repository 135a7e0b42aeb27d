"""Frozen configuration objects for NUTS and SVI."""

from dataclasses import dataclass
from typing import Literal

import numpy as np

from softirr_stats.base._validation import (
    check_choice,
    check_level,
    check_positive_int,
)
from softirr_stats.models import ConvergenceWarning, FitWarning  # defined there: EM raises them too

__all__ = [
    "AUTO_BATCH_MIN_ITEMS",
    "DEFAULT_LEVEL",
    "AUTO_BATCH_SIZE",
    "ConvergenceWarning",
    "FitWarning",
    "NutsConfig",
    "PredictiveCheckWarning",
    "PriorDominatedWarning",
    "SviConfig",
    "SviDivergedError",
    "interval_columns",
]

#: The one default interval level of every model function, the CLI and the report.
DEFAULT_LEVEL = 0.95


class SviDivergedError(ValueError):
    """SVI ended with variational parameters that are not numbers: no posterior can be drawn from them.

    Examples
    --------
    >>> issubclass(SviDivergedError, ValueError)
    True
    """


class PredictiveCheckWarning(FitWarning):
    """The posterior predictive check fails: the model does not reproduce the data.

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     warnings.warn("posterior predictive p = 0.01", PredictiveCheckWarning)
    >>> caught[0].category.__name__
    'PredictiveCheckWarning'
    """


class PriorDominatedWarning(FitWarning):
    """The posterior of the reported quantity barely moved from its prior.

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     warnings.warn("the posterior barely moved from the prior", PriorDominatedWarning)
    >>> caught[0].category.__name__
    'PriorDominatedWarning'
    """


#: The most SVI steps, and NUTS iterations (warm-up and kept) per chain, of one fit: JAX counts a loop's steps in
#: a 32-bit integer (64-bit JAX is off), and a longer run overflowed after its estimate was printed.
MAX_STEPS = 2**31 - 1


def _check_run_length(total: int, name: str) -> None:
    """``total`` loop steps of a fit, at most :data:`MAX_STEPS` (``name`` says what was counted)."""
    if total > MAX_STEPS:
        raise ValueError(f"{name} must be at most {MAX_STEPS} (2**31 - 1, what JAX's 32-bit step counter counts); "
                         f"got {total}")


@dataclass(frozen=True)
class NutsConfig:
    """Settings of a NUTS run (numpyro ``MCMC(NUTS(...))``).

    Attributes
    ----------
    num_warmup, num_samples : int
        Warm-up (adaptation) and kept iterations per chain.
    num_chains : int
        Number of chains; r_hat needs >= 2 to be informative (split r_hat is reported
        for one chain).
    chain_method : {"vectorized", "sequential", "parallel"}
        How chains run; ``"vectorized"`` batches them on one device.
    target_accept : float, optional
        Target acceptance probability of the step-size adaptation. None (the default): the
        model kind's, 0.8, and 0.9 for the soft model (smaller steps: fewer divergent
        transitions on separable scores; docs/annotator_models.md).
    max_tree_depth : int
    rhat_threshold : float
        Warn (``ConvergenceWarning``) when any parameter's r_hat exceeds it.
    nuisance_rhat_threshold : float
        The same for the elements of the model's nuisance sites (the soft model's emission
        pieces, intercept and rater z: weakly identified one by one, while the quantities
        built from them stay under ``rhat_threshold``): ``Posterior.model_kind.nuisance_sites``
        names them (docs/annotator_models.md, "Convergence of the soft model's NUTS fits").

    Examples
    --------
    >>> NutsConfig(num_chains=4).chain_method
    'vectorized'
    """

    num_warmup: int = 500
    num_samples: int = 500
    num_chains: int = 2
    chain_method: Literal["vectorized", "sequential", "parallel"] = "vectorized"
    target_accept: float | None = None
    max_tree_depth: int = 10
    rhat_threshold: float = 1.01
    nuisance_rhat_threshold: float = 1.05

    def __post_init__(self) -> None:
        check_positive_int(self.num_warmup, "num_warmup", 0)
        check_positive_int(self.num_samples, "num_samples")
        _check_run_length(int(self.num_warmup) + int(self.num_samples), "num_warmup + num_samples")
        check_positive_int(self.num_chains, "num_chains")
        check_positive_int(self.max_tree_depth, "max_tree_depth")
        check_choice("chain_method", self.chain_method, ["vectorized", "sequential", "parallel"])
        if self.target_accept is not None and not 0.0 < self.target_accept < 1.0:
            raise ValueError(f"target_accept must be in (0, 1); got {self.target_accept!r}")
        if not self.rhat_threshold > 1.0:
            raise ValueError(f"rhat_threshold must be > 1; got {self.rhat_threshold!r}")
        if not self.nuisance_rhat_threshold >= self.rhat_threshold:
            raise ValueError("nuisance_rhat_threshold must be >= rhat_threshold "
                             f"({self.rhat_threshold!r}); got {self.nuisance_rhat_threshold!r}")


AUTO_BATCH_MIN_ITEMS = 50_000
"""``SviConfig(batch_size="auto")`` fits on minibatches from this many items up."""

AUTO_BATCH_SIZE = 4096
"""Items per minibatch chosen by ``batch_size="auto"`` (when minibatching)."""


@dataclass(frozen=True)
class SviConfig:
    """Settings of a stochastic variational inference run (numpyro ``SVI`` + optax).

    Attributes
    ----------
    steps : int
        Optimisation steps.
    learning_rate : float
        Peak learning rate of optax ``adam``.
    schedule : {"cosine", "exponential", "constant"}
        Learning-rate schedule: cosine decay to ``final_fraction * learning_rate``,
        exponential decay to the same end value, or constant.
    final_fraction : float
        End learning rate as a fraction of the peak.
    guide : {"normal", "multivariate_normal"}
        ``AutoNormal`` (mean field) or ``AutoMultivariateNormal`` (full covariance; use
        it only with few parameters).
    num_draws : int
        Posterior draws taken from the fitted guide.
    num_particles : int
        ELBO particles per step.
    init_scale : float
        Initial scale of the guide.
    batch_size : int, "auto" or None
        Items per minibatch (subsampled SVI; see ``docs/annotator_models.md``): each step
        uses the ELBO of a batch of items, scaled by ``n_items / batch_size`` (unbiased),
        taking the items in a new random order each epoch. The categorical models can be
        minibatched (the item-effect ones with ``guide="normal"``: their per-item
        effects are sampled inside the batch); the soft model cannot (``ValueError``).
        ``None``: every step sees all items. ``"auto"`` (default): full batch below
        ``AUTO_BATCH_MIN_ITEMS`` (50,000) items, and batches of ``AUTO_BATCH_SIZE``
        (4,096) items above it for those models.
    local_steps : int
        Minibatch SVI of the item-effect models (item difficulty, logistic random
        effects) only: before each step, this many steps on the batch's per-item guide
        parameters alone, the global ones held (each visit of an item then brings its
        effects close to their optimum given the globals). Each step costs
        ``local_steps + 1`` gradient evaluations.

    Examples
    --------
    >>> SviConfig(steps=500).guide
    'normal'
    >>> SviConfig(batch_size=1024).batch_size
    1024
    """

    steps: int = 2000
    learning_rate: float = 0.02
    schedule: Literal["cosine", "exponential", "constant"] = "cosine"
    final_fraction: float = 0.05
    guide: Literal["normal", "multivariate_normal"] = "normal"
    num_draws: int = 1000
    num_particles: int = 1
    init_scale: float = 0.05
    batch_size: int | Literal["auto"] | None = "auto"
    local_steps: int = 10

    def __post_init__(self) -> None:
        if self.batch_size is not None and not (isinstance(self.batch_size, str)
                                                and self.batch_size == "auto"):
            if isinstance(self.batch_size, bool) or not isinstance(self.batch_size,
                                                                   int | np.integer):
                raise ValueError(f"batch_size must be a positive int, 'auto' or None; got "
                                 f"{self.batch_size!r}")
            check_positive_int(self.batch_size, "batch_size")
            object.__setattr__(self, "batch_size", int(self.batch_size))
        check_positive_int(self.steps, "steps")
        _check_run_length(int(self.steps), "steps")
        check_positive_int(self.local_steps, "local_steps")
        check_positive_int(self.num_draws, "num_draws")
        check_positive_int(self.num_particles, "num_particles")
        check_choice("schedule", self.schedule, ["cosine", "exponential", "constant"])
        check_choice("guide", self.guide, ["normal", "multivariate_normal"])
        for name in ("learning_rate", "init_scale"):
            if not getattr(self, name) > 0:
                raise ValueError(f"{name} must be > 0; got {getattr(self, name)!r}")
        if not 0.0 < self.final_fraction <= 1.0:
            raise ValueError(f"final_fraction must be in (0, 1]; got {self.final_fraction!r}")


def interval_columns(level: float, prefix: str = "") -> tuple[str, str]:
    """Names of the two columns of an equal-tailed posterior interval at ``level``: the level is in the name.

    Every posterior table (``Posterior.summary``, ``rater_accuracy``, ``rater_agreement``,
    ``pair_agreement``, ``label_contributions``, ``calibration_map``) names its interval this way, so
    a table printed in a notebook says its level, and a table at another level cannot be mistaken for it
    (arviz's ``hdi_3%`` / ``hdi_97%`` name the quantiles instead). ``attrs["level"]`` carries the level too.

    Parameters
    ----------
    level : float
        The interval's level, in (0, 1).
    prefix : str
        Put before the names (``"kappa_"`` for a second interval in the same table).

    Returns
    -------
    (str, str)
        ``("lower_95%", "upper_95%")`` at level 0.95.

    Examples
    --------
    >>> interval_columns(0.95)
    ('lower_95%', 'upper_95%')
    >>> interval_columns(0.975, "kappa_")
    ('kappa_lower_97.5%', 'kappa_upper_97.5%')
    """
    from softirr_stats.base._format import level_text

    pct = level_text(check_level(level))
    return f"{prefix}lower_{pct}", f"{prefix}upper_{pct}"
