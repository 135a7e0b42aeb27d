"""How far the monotone emission identifies kappa: the population range per score shape.

The soft model's monotone emission explains the within-item scores as ``g = p F1 + (1 - p)
F0`` and the chance scores as ``h = q F1 + (1 - q) F0``, with ``F1`` (equivalent pairs)
non-decreasing and ``F0`` (non-equivalent pairs) non-increasing on ``n_bins`` equal cells, a
mass at exactly 1 for ``F1`` and at exactly 0 for ``F0``. Other components can explain the
same ``g`` and ``h`` exactly: ``F1' = a F1 + (1 - a) F0`` with ``F0' = F0``, ``p' = p / a``,
``q' = q / a`` whenever ``F1'`` is still a non-negative, non-decreasing density (``a < 1``:
some of the non-equivalent shape counted equivalent; ``a > 1``: the reverse). The coefficient
becomes ``(p - q) / (a - q)``; moving ``F0`` as well changes ``p'`` and ``q'`` but not the
coefficient. Every constraint is linear in ``a``, so the feasible ``a`` form an interval
around 1 and the coefficients the scores cannot tell apart form an interval around the
truth: the population's *identified range*. A score of exactly 0 belongs to the
non-equivalent component alone, so a non-equivalent mass at 0 keeps ``a`` at 1.

This is the range with the true densities (exact cell masses of the shapes of
:mod:`paper_repro.soft_model_robustness`) and the design's population rates (3 raters of
accuracy 0.6 / 0.7 / 0.8 naming one of 40 concepts: ``p = mean(a_i a_j) + (1 - mean(a_i
a_j)) / 40``, ``q = 1 / 40``). A fitted model does not reach its ends exactly (its densities
are noisy and smooth, so the exact constraints bind at once), but its likelihood is nearly
flat along the range and the posterior sits where the emission's prior puts it: on
``heavy_tails`` the truth is the range's upper end and every NUTS miss fell below it; a
flatter prior on the emission's pieces moves the posterior mean along the range (see
docs/annotator_models.md, "Where the scores leave kappa open").

Usage::

    python paper_repro/soft_model_identification.py          # the markdown table
"""

import pathlib
import sys

import numpy as np

#: The design of the simulated studies (paper_repro.soft_model_robustness.simulate_study).
ACCURACY = (0.6, 0.7, 0.8)
N_CONCEPTS = 40


def identified_range(f1, f0, kappa: float, pi_chance: float, *, zero_mass: bool = False,
                     tol: float = 1e-12) -> tuple[float, float]:
    """The smallest and largest kappa that explain the same score distributions.

    Parameters
    ----------
    f1, f0 : array_like, shape (n_bins + 2,)
        Cell masses of the equivalent and non-equivalent components: ``n_bins`` equal cells
        of (0, 1), then the masses at exactly 0 and exactly 1.
    kappa, pi_chance : float
        The coefficient and the chance rate ``q`` (the within-item rate is ``q + kappa (1 -
        q)``).
    zero_mass : bool
        Whether a score of exactly 0 occurs (then ``F1'`` may put no mass there).
    tol : float
        Slack of each linear constraint.

    Examples
    --------
    Bands with a gap between them leave nothing open; a uniform tail that both share does:

    >>> band = np.r_[np.zeros(6), np.full(4, 0.25), 0.0, 0.0]
    >>> flip = [*range(9, -1, -1), 10, 11]
    >>> [round(x, 4) for x in identified_range(band, band[flip], 0.5, 0.1)]
    [0.5, 0.5]
    >>> tail = 0.85 * band + 0.15 * np.r_[np.full(10, 0.1), 0.0, 0.0]
    >>> [round(x, 4) for x in identified_range(tail, tail[flip], 0.5, 0.1)]
    [0.4636, 0.5]
    """
    f1, f0 = np.asarray(f1, np.float64), np.asarray(f0, np.float64)
    if f1.shape != f0.shape or f1.ndim != 1 or f1.size < 4:
        raise ValueError(f"f1 and f0 must be 1-d cell masses of one length >= 4 (n_bins + 2); "
                         f"got shapes {f1.shape} and {f0.shape}")
    nb = f1.size - 2
    d = f1 - f0
    # constraints u + a v >= 0: F1' = F0 + a (F1 - F0) non-negative on the cells and
    # non-decreasing over the continuous ones; with zeros, F1'(0) stays within [0, F1(0)]
    u = [f0[:nb], np.diff(f0[:nb])]
    v = [d[:nb], np.diff(d[:nb])]
    if zero_mass:
        u += [d[nb:nb + 1], f0[nb:nb + 1]]
        v += [-d[nb:nb + 1], d[nb:nb + 1]]
    u, v = np.concatenate(u) + tol, np.concatenate(v)
    with np.errstate(divide="ignore"):
        bound = -u / v
    p = pi_chance + kappa * (1.0 - pi_chance)
    a_lo = min(max(np.max(bound[v > 0], initial=-np.inf), p, pi_chance), 1.0)
    a_hi = max(np.min(bound[v < 0], initial=np.inf), 1.0)
    ends = [kappa * (1.0 - pi_chance) / (a - pi_chance) for a in (a_lo, a_hi)]
    return float(min(ends)), float(max(ends))


def shape_cells(shape: str, n_bins: int = 20) -> tuple[np.ndarray, np.ndarray]:
    """Exact cell masses ``(f1, f0)`` of a shape of :func:`paper_repro.soft_model_robustness.
    draw_scores`: ``n_bins`` equal cells of (0, 1), then the masses at exactly 0 and 1.

    Examples
    --------
    >>> f1, f0 = shape_cells("bands", 20)
    >>> [round(float(x), 12) for x in (f1.sum(), f0.sum(), f1[:12].max(), f0[7:].max())]
    [1.0, 1.0, 0.0, 0.0]
    """
    from scipy import stats

    edges = np.linspace(0.0, 1.0, n_bins + 1)
    none = np.zeros(2)

    def unif(lo: float, hi: float) -> np.ndarray:
        width = np.clip(np.minimum(edges[1:], hi) - np.maximum(edges[:-1], lo), 0.0, None)
        return np.r_[width / (hi - lo), none]

    def beta(a: float, b: float) -> np.ndarray:
        return np.r_[np.diff(stats.beta.cdf(edges, a, b)), none]

    at0, at1 = np.r_[np.zeros(n_bins), 1.0, 0.0], np.r_[np.zeros(n_bins), 0.0, 1.0]
    table = {
        "bands": (unif(0.6, 1.0), unif(0.0, 0.35)),
        "point_masses": (0.5 * at1 + 0.5 * unif(0.6, 1.0), 0.5 * at0 + 0.5 * unif(0.0, 0.35)),
        "bimodal": (0.5 * beta(40, 14) + 0.5 * beta(60, 3), 0.5 * beta(3, 30) + 0.5 * beta(20, 30)),
        "heavy_tails": (0.85 * unif(0.6, 1.0) + 0.15 * unif(0.0, 1.0),
                        0.85 * unif(0.0, 0.4) + 0.15 * unif(0.0, 1.0)),
        "overlap": (beta(6.0, 3.0), beta(3.0, 6.0)),
        "calibrated": (beta(1.7, 0.7), beta(0.7, 1.7)),
        "shared_floor": (0.8 * beta(3.0, 1.0) + 0.2 * unif(0.0, 1.0),
                         0.8 * beta(1.0, 3.0) + 0.2 * unif(0.0, 1.0)),
    }
    if shape not in table:
        raise ValueError(f"shape must be one of {sorted(table)}; got {shape!r}")
    return table[shape]


def population_rates(accuracy=ACCURACY, n_concepts: int = N_CONCEPTS) -> tuple[float, float]:
    """``(p, q)``: the design's population share of equivalent within-item pairs (mean over
    the rater pairs) and of equivalent cross-item pairs.

    Examples
    --------
    >>> [round(x, 4) for x in population_rates()]
    [0.4995, 0.025]
    """
    a = np.asarray(accuracy, np.float64)
    i, j = np.triu_indices(a.size, 1)
    both = a[i] * a[j]
    return float(np.mean(both + (1.0 - both) / n_concepts)), 1.0 / n_concepts


def monotone(f1: np.ndarray, f0: np.ndarray, n_bins: int) -> bool:
    """Whether the shape is in the monotone emission's family (``F1`` non-decreasing and
    ``F0`` non-increasing over the continuous cells; no mass at the other's atom)."""
    return bool(np.all(np.diff(f1[:n_bins]) >= -1e-9) and np.all(np.diff(f0[:n_bins]) <= 1e-9)
                and f1[n_bins] == 0.0 and f0[n_bins + 1] == 0.0)


def table(n_bins: int = 20) -> str:
    """Markdown: per shape, the population kappa and the range the scores leave open."""
    from paper_repro.soft_model_robustness import FRESH_SHAPES, SIMULATED_SHAPES

    p, q = population_rates()
    kappa = (p - q) / (1.0 - q)
    lines = ["| shape | in the monotone family | kappa | identified range | width | truth at |",
             "|---|---|---|---|---|---|"]
    for shape in (*SIMULATED_SHAPES, *FRESH_SHAPES):
        f1, f0 = shape_cells(shape, n_bins)
        if not monotone(f1, f0, n_bins):
            lines.append(f"| {shape} | no | {kappa:.4f} | - | - | - |")
            continue
        lo, hi = identified_range(f1, f0, kappa, q, zero_mass=bool(f0[n_bins] > 0))
        where = ("the point" if hi - lo < 1e-9 else "the upper end" if hi - kappa < 1e-9
                 else "the lower end" if kappa - lo < 1e-9
                 else f"{(kappa - lo) / (hi - lo):.0%} of the way up")
        lines.append(f"| {shape} | yes | {kappa:.4f} | [{lo:.4f}, {hi:.4f}] | {hi - lo:.4f} | "
                     f"{where} |")
    return "\n".join(lines)


def main() -> None:
    if not __package__:
        sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
    print(table())


if __name__ == "__main__":
    main()
