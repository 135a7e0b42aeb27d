"""The one place that calls arviz.

Supported: arviz 0.20 to 0.23 (``InferenceData``; the range pinned in ``pyproject.toml``,
tested with 0.23.4). arviz 1.x replaced ``InferenceData`` by xarray's ``DataTree``; it is
detected and refused with a clear message rather than failing somewhere inside arviz.

arviz 0.23 prints a ``FutureWarning`` banner about its coming refactor on its first import of
the day; it says nothing about this package's use of it, so it is silenced here (every other
warning of arviz is left alone).
"""

import warnings
from collections.abc import Mapping
from types import ModuleType
from typing import Any

import numpy as np

__all__ = ["SUPPORTED", "arviz_major_version", "import_arviz", "to_inference_data"]

#: The arviz versions this adapter is written for.
SUPPORTED = ">=0.20,<1"


def import_arviz() -> ModuleType:
    """``import arviz`` without its refactor ``FutureWarning`` banner.

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     az = import_arviz()
    >>> [w for w in caught if "refactor" in str(w.message)]
    []
    """
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=r"\s*ArviZ is undergoing a major refactor",
                                category=FutureWarning)
        import arviz
    return arviz


def arviz_major_version() -> int:
    """Major version of the installed arviz."""
    return int(str(import_arviz().__version__).split(".")[0])


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
            f"softirr_stats supports arviz 0.x ({SUPPORTED}, InferenceData) only; arviz {major}.x uses "
            "xarray DataTree, which is not supported yet. Install 'arviz<1' or use "
            "Posterior.samples directly.")
    arviz = import_arviz()
    post = {k: np.asarray(v) for k, v in posterior.items()}
    stats = None if sample_stats is None else {k: np.asarray(v) for k, v in sample_stats.items()}
    return arviz.from_dict(posterior=post, sample_stats=stats)
