"""Ground-truth agreement on concept identities (before synonym replacement).

Small vectorised numpy functions, independent of the library's coefficients, so the
reproduction can check the library against them:

- :func:`cohen_kappa_codes` and :func:`scott_pi_codes` for two raters' concept codes,
  batched over leading axes (populations);
- :func:`set_agreement` for set-valued labels: item-level Jaccard or Dice of concept sets,
  with exact chance agreement over all cross pairs (a set-level kappa).
"""

from __future__ import annotations

import warnings

import numpy as np

__all__ = ["cohen_kappa_codes", "scott_pi_codes", "set_agreement", "incidence"]


def _check_codes(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    a = np.asarray(a)
    b = np.asarray(b)
    if a.shape != b.shape or a.ndim < 1 or a.shape[-1] == 0:
        raise ValueError(f"codes: expected two equal, non-empty shapes, got {a.shape} and {b.shape}")
    if not (np.issubdtype(a.dtype, np.integer) and np.issubdtype(b.dtype, np.integer)):
        raise TypeError(f"codes: expected integer arrays, got {a.dtype} and {b.dtype}")
    if a.min() < 0 or b.min() < 0:
        raise ValueError("codes: expected non-negative codes (no missing values)")
    return a, b


def _marginals(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    lead = a.shape[:-1]
    n = a.shape[-1]
    k = int(max(a.max(), b.max())) + 1
    m = int(np.prod(lead, dtype=np.int64))
    off = (np.arange(m) * k)[:, None]
    q1 = np.bincount((a.reshape(m, n) + off).ravel(), minlength=m * k).reshape(*lead, k) / n
    q2 = np.bincount((b.reshape(m, n) + off).ravel(), minlength=m * k).reshape(*lead, k) / n
    p_o = (a == b).mean(axis=-1)
    return p_o, q1, q2


def _ratio(p_o: np.ndarray, p_e: np.ndarray, name: str) -> np.ndarray:
    den = 1.0 - p_e
    bad = np.isclose(den, 0.0)
    if np.any(bad):
        warnings.warn(f"{name}: expected agreement is 1 (a single category); value is nan",
                      RuntimeWarning, stacklevel=3)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(bad, np.nan, (p_o - p_e) / np.where(bad, 1.0, den))


def cohen_kappa_codes(a: np.ndarray, b: np.ndarray) -> np.ndarray | float:
    """Cohen's kappa of two raters' integer codes along the last axis.

    Examples
    --------
    >>> round(float(cohen_kappa_codes(np.array([0, 0, 1, 1]), np.array([0, 1, 1, 1]))), 10)
    0.5
    """
    a, b = _check_codes(a, b)
    p_o, q1, q2 = _marginals(a, b)
    out = _ratio(p_o, (q1 * q2).sum(axis=-1), "cohen_kappa_codes")
    return float(out) if out.ndim == 0 else out


def scott_pi_codes(a: np.ndarray, b: np.ndarray) -> np.ndarray | float:
    """Scott's pi (pooled marginals) of two raters' integer codes along the last axis.

    Examples
    --------
    >>> round(float(scott_pi_codes(np.array([0, 0, 1, 1]), np.array([0, 1, 1, 1]))), 10)
    0.4666666667
    """
    a, b = _check_codes(a, b)
    p_o, q1, q2 = _marginals(a, b)
    q = (q1 + q2) / 2.0
    out = _ratio(p_o, (q * q).sum(axis=-1), "scott_pi_codes")
    return float(out) if out.ndim == 0 else out


def incidence(sets: list[frozenset[str]] | list[set[str]], universe: dict[str, int]) -> np.ndarray:
    """Boolean item x concept incidence matrix of a list of concept sets."""
    rows = np.repeat(np.arange(len(sets)), [len(s) for s in sets])
    cols = np.fromiter((universe[c] for s in sets for c in s), dtype=np.int64, count=rows.size)
    out = np.zeros((len(sets), len(universe)), dtype=bool)
    out[rows, cols] = True
    return out


def set_agreement(a: np.ndarray, b: np.ndarray, measure: str = "jaccard") -> dict[str, float]:
    """Set-level agreement of two raters' concept sets, with exact chance.

    Parameters
    ----------
    a, b : bool arrays, shape (n_items, n_concepts)
        Incidence matrices (see :func:`incidence`).
    measure : {"jaccard", "dice"}
        Item similarity ``|A&B|/|A|B|`` or ``2|A&B|/(|A|+|B|)``.

    Returns
    -------
    dict with ``observed`` (mean similarity of paired items), ``expected`` (mean over all
    ``n_items**2`` cross pairs, i.e. the expectation under independent marginals),
    ``kappa = (observed - expected) / (1 - expected)`` (Cohen-type), ``expected_pooled``
    (mean over all ``(2 n_items)**2`` pairs of the pooled sets, self-pairs included) and
    ``pi`` (Scott-type, with ``expected_pooled``).

    Examples
    --------
    >>> A = np.array([[1, 1, 0], [0, 1, 1]], bool); B = np.array([[1, 0, 0], [0, 1, 1]], bool)
    >>> r = set_agreement(A, B, "jaccard"); round(r["observed"], 6), round(r["expected"], 6)
    (0.75, 0.458333)
    """
    if measure not in ("jaccard", "dice"):
        raise ValueError(f"measure: expected one of ['dice', 'jaccard'], got {measure!r}")
    a = np.asarray(a, dtype=bool)
    b = np.asarray(b, dtype=bool)
    if a.shape != b.shape or a.ndim != 2:
        raise ValueError(f"a, b: expected equal 2-d shapes, got {a.shape} and {b.shape}")
    n = a.shape[0]
    both = np.concatenate([a, b]).astype(np.float64)
    inter = both @ both.T  # (2n, 2n): |X_i & X_j| over the pooled sets
    size = both.sum(1)
    with np.errstate(divide="ignore", invalid="ignore"):
        if measure == "jaccard":
            sim = inter / (size[:, None] + size[None, :] - inter)
        else:
            sim = 2.0 * inter / (size[:, None] + size[None, :])
    sim = np.where(np.isfinite(sim), sim, 1.0)  # two empty sets agree
    cross = sim[:n, n:]
    p_o = float(np.mean(np.diag(cross)))
    p_e = float(np.mean(cross))
    p_e_pooled = float(np.mean(sim))
    name = f"set_agreement({measure})"
    kappa = float(_ratio(np.asarray(p_o), np.asarray(p_e), name))
    pi = float(_ratio(np.asarray(p_o), np.asarray(p_e_pooled), name))
    return {"observed": p_o, "expected": p_e, "kappa": kappa,
            "expected_pooled": p_e_pooled, "pi": pi}
