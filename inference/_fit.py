"""``fit``: run NUTS or SVI on an annotator model and return a :class:`Posterior`."""


import sys
import warnings
from collections.abc import Callable
from typing import Any

import jax
import numpy as np
import optax
from numpyro import handlers
from numpyro.infer import MCMC, NUTS, SVI, Predictive, Trace_ELBO, init_to_mean
from numpyro.infer.autoguide import AutoMultivariateNormal, AutoNormal

from softirr_stats._jax import _ensure_initialised
from softirr_stats._validation import check_choice
from softirr_stats.inference._config import ConvergenceWarning, NutsConfig, SviConfig
from softirr_stats.inference._kinds import MODEL_KINDS
from softirr_stats.inference._posterior import Posterior
from softirr_stats.models import (
    MODEL_SPECS,
    soft_agreement,
)

__all__ = ["fit", "resolve_model", "resolve_progress", "warn_divergences"]

SOFT_NAMES = ("soft", "soft_agreement")


def resolve_model(model: Any) -> tuple[str, str, Callable[..., None]]:
    """Return ``(name, kind, function)``; kind is "categorical", "soft" or "custom".

    Examples
    --------
    >>> resolve_model("dawid_skene")[:2]
    ('dawid_skene', 'categorical')
    """
    if isinstance(model, str):
        if model in MODEL_SPECS:
            return model, "categorical", MODEL_SPECS[model].model
        if model in SOFT_NAMES:
            return "soft_agreement", "soft", soft_agreement
        raise ValueError(f"model must be one of {sorted([*MODEL_SPECS, *SOFT_NAMES])} or a "
                         f"NumPyro model function; got {model!r}")
    if not callable(model):
        raise TypeError(f"model must be a model name or a NumPyro model function; got "
                        f"{type(model).__name__}")
    for name, spec in MODEL_SPECS.items():
        if spec.model is model:
            return name, "categorical", model
    if model is soft_agreement:
        return "soft_agreement", "soft", model
    return getattr(model, "__name__", "model"), "custom", model


def _prepare_data(kind: str, data: Any) -> Any:
    return MODEL_KINDS[kind].encode(data)  # each kind owns its encoding (inference/_kinds.py)


def _schedule(cfg: SviConfig) -> optax.Schedule | float:
    if cfg.schedule == "cosine":
        return optax.cosine_decay_schedule(cfg.learning_rate, cfg.steps, alpha=cfg.final_fraction)
    if cfg.schedule == "exponential":
        return optax.exponential_decay(cfg.learning_rate, cfg.steps, cfg.final_fraction)
    return cfg.learning_rate


def resolve_progress(progress: bool | None) -> bool:
    """``None`` (the default) means: show progress bars when stderr is a terminal.

    Examples
    --------
    >>> resolve_progress(False), resolve_progress(True)
    (False, True)
    """
    if progress is None:
        return bool(getattr(sys.stderr, "isatty", lambda: False)())
    if not isinstance(progress, bool):
        raise TypeError(f"progress must be True, False or None; got {progress!r}")
    return progress


def warn_divergences(diverging: np.ndarray, stacklevel: int = 3) -> int:
    """Warn (:class:`ConvergenceWarning`) when any post-warmup transition diverged.

    Returns the number of divergent transitions.

    Examples
    --------
    >>> warn_divergences(np.zeros((2, 10), bool))
    0
    """
    n_div = int(np.asarray(diverging).sum())
    if n_div:
        warnings.warn(f"{n_div} divergent transitions out of {np.asarray(diverging).size} "
                      "post-warmup draws: the posterior may be biased; raise target_accept "
                      "or reparametrise", ConvergenceWarning, stacklevel=stacklevel)
    return n_div


def _run_nuts(model: Callable, data: Any, key: jax.Array, cfg: NutsConfig,
              kwargs: dict, progress: bool) -> tuple[dict, dict]:
    kernel = NUTS(model, target_accept_prob=cfg.target_accept,
                  max_tree_depth=cfg.max_tree_depth, init_strategy=init_to_mean())
    mcmc = MCMC(kernel, num_warmup=cfg.num_warmup, num_samples=cfg.num_samples,
                num_chains=cfg.num_chains, chain_method=cfg.chain_method, progress_bar=progress)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="There are not enough devices")
        mcmc.run(key, data, extra_fields=("diverging",), **kwargs)
    samples = {k: np.asarray(v) for k, v in mcmc.get_samples(group_by_chain=True).items()}
    diverging = np.asarray(mcmc.get_extra_fields(group_by_chain=True)["diverging"])
    warn_divergences(diverging, stacklevel=4)
    return samples, {"diverging": diverging}


def _deterministic_sites(model: Callable, data: Any, kwargs: dict) -> list[str]:
    tr = handlers.trace(handlers.seed(model, jax.random.key(0))).get_trace(data, **kwargs)
    return [name for name, site in tr.items() if site["type"] == "deterministic"]


def _run_svi(model: Callable, data: Any, key: jax.Array, cfg: SviConfig,
             kwargs: dict, progress: bool) -> tuple[dict, dict]:
    guide_cls = AutoNormal if cfg.guide == "normal" else AutoMultivariateNormal
    guide = guide_cls(model, init_loc_fn=init_to_mean(),
                      init_scale=cfg.init_scale)
    svi = SVI(model, guide, optax.adam(_schedule(cfg)), Trace_ELBO(num_particles=cfg.num_particles))
    k_fit, k_draw = jax.random.split(key)
    result = svi.run(k_fit, cfg.steps, data, progress_bar=progress, **kwargs)
    losses = np.asarray(result.losses)
    if not np.all(np.isfinite(losses[-max(1, cfg.steps // 10):])):
        warnings.warn("SVI loss is not finite at the end of optimisation: lower the "
                      "learning_rate or check the data", ConvergenceWarning, stacklevel=3)
    k_guide, k_model = jax.random.split(k_draw)
    latent = Predictive(guide, params=result.params, num_samples=cfg.num_draws)(
        k_guide, data, **kwargs)
    draws = dict(latent)
    det = _deterministic_sites(model, data, kwargs)
    if det:  # run the model per draw (sequentially: the likelihood can be large)
        draws.update(Predictive(model, posterior_samples=latent, return_sites=det,
                                parallel=False)(k_model, data, **kwargs))
    samples = {k: np.asarray(v)[None] for k, v in draws.items()
               if k != "obs" and not k.startswith("_")}
    return samples, {"losses": losses, "guide": guide, "params": result.params}


def fit(model: Any, data: Any, method: str = "nuts", seed: int = 0,
        config: NutsConfig | SviConfig | None = None, *, priors: Any = None,
        progress: bool | None = None, **model_kwargs: Any) -> Posterior:
    """Fit an annotator model by NUTS or SVI.

    Parameters
    ----------
    model : callable or str
        A model of :mod:`softirr_stats.models` (e.g. ``models.dawid_skene``) or its name
        (``"dawid_skene"``, ``"mace"``, ``"soft"``, ...), or any NumPyro model taking
        ``(data, priors=..., **model_kwargs)`` (then only samples, ``summary``,
        ``interval`` and ``to_arviz`` are available).
    data : Annotations, AnnotationData, codes array or PairScores
        Categorical models encode annotations with
        :func:`softirr_stats.models.encode_annotations`; the soft model takes
        :class:`~softirr_stats.models.PairScores` (or Annotations, scored by exact match).
    method : {"nuts", "svi"}
    seed : int
        Seed of the ``jax.random`` key (also used for post-processing draws).
    config : NutsConfig or SviConfig, optional
        Defaults to ``NutsConfig()`` / ``SviConfig()``.
    priors : prior config, optional
        The model's prior dataclass (default: the model's defaults).
    progress : bool, optional
        Progress bar of the NUTS chains (numpyro's) or of the SVI steps (tqdm). Default:
        shown when stderr is a terminal; ``False`` silences it.
    **model_kwargs
        Passed to the model (e.g. ``item_effects=True`` for the soft model).

    Returns
    -------
    Posterior

    Warns
    -----
    ConvergenceWarning
        NUTS: divergent transitions, or r_hat above ``config.rhat_threshold``; SVI: a
        non-finite loss.

    Examples
    --------
    >>> import numpy as np
    >>> from softirr_stats import models
    >>> codes = np.array([[0, 0, 0], [1, 1, 0], [1, 1, 1], [0, 0, 1]] * 5)
    >>> post = fit(models.dawid_skene, codes, method="svi",
    ...            config=SviConfig(steps=100, num_draws=100))
    >>> post.samples["beta"].shape
    (100, 3, 2, 2)
    """
    method = check_choice("method", method, ["nuts", "svi"])
    _ensure_initialised()  # NumPyro's programs go to the persistent compile cache too
    show = resolve_progress(progress)
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer):
        raise TypeError(f"seed must be an int; got {seed!r}")
    name, kind, fn = resolve_model(model)
    if config is None:
        config = NutsConfig() if method == "nuts" else SviConfig()
    expected = NutsConfig if method == "nuts" else SviConfig
    if not isinstance(config, expected):
        raise TypeError(f"config for method={method!r} must be a {expected.__name__}; got "
                        f"{type(config).__name__}")
    data = _prepare_data(kind, data)
    kwargs = {"priors": priors, **model_kwargs}
    key = jax.random.key(int(seed))
    k_run, k_post = jax.random.split(key)
    if method == "nuts":
        samples, extra = _run_nuts(fn, data, k_run, config, kwargs, show)
    else:
        samples, extra = _run_svi(fn, data, k_run, config, kwargs, show)
    extra["model"] = fn
    post = Posterior(model_name=name, kind=kind, samples_by_chain=samples, data=data,
                     method=method, priors=priors, model_kwargs=model_kwargs, extra=extra,
                     key=k_post)
    if method == "nuts":
        threshold = config.rhat_threshold
        bad = post._rhat_offenders(threshold)
        if bad:
            shown = ", ".join(f"{p} ({r:.3f})" for p, r in bad[:10])
            more = "" if len(bad) <= 10 else f" and {len(bad) - 10} more"
            warnings.warn(f"r_hat > {threshold} for {len(bad)} parameter(s): {shown}{more}; "
                          "run longer chains or more of them", ConvergenceWarning, stacklevel=2)
    return post


