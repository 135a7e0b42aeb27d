"""Prior sensitivity: the same model and data fitted under several prior configurations."""

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from softirr_stats.base._validation import check_level
from softirr_stats.inference._config import DEFAULT_LEVEL, NutsConfig, SviConfig

__all__ = ["prior_sensitivity"]


def _labelled(priors: Any) -> list[tuple[str, Any]]:
    """``[(label, prior config), ...]`` from a mapping or a sequence of prior configs."""
    if isinstance(priors, Mapping):
        items = [(str(k), v) for k, v in priors.items()]
    elif isinstance(priors, Sequence) and not isinstance(priors, str | bytes):
        items = [(repr(p), p) for p in priors]
    else:
        raise TypeError(f"priors must be a sequence or a mapping of prior configurations (e.g. "
                        f"[SoftAgreementPriors(), SoftAgreementPriors(monotone_concentration=20)]); "
                        f"got {type(priors).__name__}")
    if len(items) < 2:
        raise ValueError(f"prior_sensitivity needs at least two prior configurations (the first "
                         f"is the reference); got {len(items)}")
    return items


def prior_sensitivity(model: Any, data: Any, priors: Any, *, method: str = "nuts", seed: int = 0,
                      config: NutsConfig | SviConfig | None = None, site: str = "kappa",
                      level: float = DEFAULT_LEVEL, progress: bool | None = None,
                      **model_kwargs: Any) -> pd.DataFrame:
    """Fit one model to the same data under each prior configuration and compare a site.

    A sensitivity analysis of the posterior to the prior: every fit uses the same data,
    method, seed and settings, only ``priors`` changes. The first configuration is the
    reference; each row gives the posterior mean, sd and equal-tailed ``level`` interval of
    ``site`` and the shift of the mean from the reference's, also in reference posterior sds.
    A shift of a sizeable share of the sd means the data leave the quantity partly to the
    prior: e.g. the soft model's kappa on scores that both components spread over the same
    range, which the monotone emission identifies only within a range where the prior on its
    pieces places the posterior (docs/annotator_models.md, "Where the scores leave kappa
    open"; there ``monotone_concentration`` 20 against the default 4 moved kappa by 0.3-1.8
    posterior sds).

    Parameters
    ----------
    model, data, method, seed, config, progress, **model_kwargs
        As in :func:`softirr_stats.inference.fit`, the same for every fit.
    priors : sequence or mapping of prior configurations
        At least two, the model's prior dataclass each (a mapping gives the row labels; a
        sequence is labelled by each configuration's ``repr``). The first is the reference.
    site : str, default "kappa"
        A sampled or derived site with one value per draw, or a derived quantity of
        :meth:`Posterior.draws` (the categorical models' model-implied ``kappa``,
        ``kappa_cohen``, ...).
    level : float, default 0.95

    Returns
    -------
    pandas.DataFrame
        One row per configuration, indexed by its label: ``mean``, ``sd``, ``lower``,
        ``upper``, ``shift`` (mean minus the reference's mean) and ``shift_in_sd`` (``shift``
        over the reference's sd). ``attrs["posteriors"]`` holds the fits.

    Raises
    ------
    TypeError
        ``priors`` is not a sequence or mapping.
    ValueError
        Fewer than two configurations; ``site`` not a scalar site or derived quantity of the
        model; ``level`` outside (0, 1).

    Warns
    -----
    The fits' own warnings (``ConvergenceWarning``, the soft model's score check) pass through.

    Examples
    --------
    >>> from softirr_stats import models
    >>> from softirr_stats.inference import SviConfig
    >>> data = models.simulate_soft_scores(40, 3, seed=1)["data"]
    >>> table = prior_sensitivity("soft", data, {
    ...     "default": models.SoftAgreementPriors(),
    ...     "flat pieces": models.SoftAgreementPriors(monotone_concentration=20.0)},
    ...     method="svi", config=SviConfig(steps=300), level=0.9, progress=False)
    >>> table.columns.tolist()
    ['mean', 'sd', 'lower', 'upper', 'shift', 'shift_in_sd']
    >>> float(table.loc["default", "shift"])
    0.0
    """
    from softirr_stats.inference._fit import fit

    level = check_level(level)
    items = _labelled(priors)
    rows, posts = {}, {}
    for label, prior in items:
        post = fit(model, data, method=method, seed=seed, config=config, priors=prior,
                   progress=progress, **model_kwargs)
        try:
            draws = np.asarray(post.draws(site), np.float64)
        except KeyError:
            draws = None
        if draws is None or draws.ndim != 1:
            scalar = sorted([k for k, v in post.samples.items() if np.asarray(v).ndim == 1]
                            + list(post.model_kind.derived_names))
            raise ValueError(f"site must be a scalar site or derived quantity of the model, one "
                             f"of {scalar}; got {site!r}")
        lo, hi = post.interval(site, level)
        rows[label] = {"mean": float(draws.mean()), "sd": float(draws.std(ddof=1)),
                       "lower": float(lo), "upper": float(hi)}
        posts[label] = post
    table = pd.DataFrame.from_dict(rows, orient="index")
    ref = table.iloc[0]
    table["shift"] = table["mean"] - ref["mean"]
    with np.errstate(divide="ignore", invalid="ignore"):
        table["shift_in_sd"] = table["shift"] / ref["sd"]
    table.index.name = "priors"
    table.attrs["posteriors"] = posts
    table.attrs["site"], table.attrs["level"] = site, level
    return table
