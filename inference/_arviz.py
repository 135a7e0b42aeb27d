"""The one place that calls arviz (supports arviz 0.x ``InferenceData``).

arviz 1.x replaced ``InferenceData`` by xarray's ``DataTree``; it is detected and
refused with a clear message rather than failing somewhere inside arviz.
"""

from collections.abc import Mapping
from typing import Any

import numpy as np

__all__ = ["arviz_major_version", "to_inference_data"]


def arviz_major_version() -> int:
    """Major version of the installed arviz."""
    import arviz

    return int(str(arviz.__version__).split(".")[0])


def to_inference_data(posterior: Mapping[str, np.ndarray],
                      sample_stats: Mapping[str, np.ndarray] | None = None) -> Any:
    """Build an ``arviz.InferenceData`` from arrays shaped (chain, draw, ...).

    Parameters
    ----------
    posterior : mapping of str to ndarray
        Posterior draws, each of shape (n_chains, n_draws, *site_shape).
    sample_stats : mapping of str to ndarray, optional
        Sampler statistics (e.g. ``diverging``), each (n_chains, n_draws).

    Returns
    -------
    arviz.InferenceData

    Raises
    ------
    ImportError
        When arviz >= 1 (``DataTree`` based) is installed.

    Examples
    --------
    >>> idata = to_inference_data({"kappa": np.zeros((2, 5))})
    >>> dict(idata.posterior.sizes)
    {'chain': 2, 'draw': 5}
    """
    major = arviz_major_version()
    if major >= 1:
        raise ImportError(
            f"softirr_stats supports arviz 0.x (InferenceData) only; arviz {major}.x uses "
            "xarray DataTree, which is not supported yet. Install 'arviz<1' or use "
            "Posterior.samples directly.")
    import arviz

    post = {k: np.asarray(v) for k, v in posterior.items()}
    stats = None if sample_stats is None else {k: np.asarray(v) for k, v in sample_stats.items()}
    return arviz.from_dict(posterior=post, sample_stats=stats)
