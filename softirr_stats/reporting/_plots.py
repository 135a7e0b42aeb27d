"""Plots of result tables (matplotlib is imported only when plotting)."""

from typing import Any

import numpy as np
import pandas as pd

from softirr_stats.base._mpltext import literal, literals

__all__ = ["plot_sensitivity"]

_REQUIRED = ("coefficient", "similarity", "chance", "value", "ci_low", "ci_high")
_MARKERS = ("o", "s", "D", "^", "v", "P", "X", "*")


def plot_sensitivity(df: pd.DataFrame, ax: Any = None, *, title: str | None = None) -> Any:
    """Forest plot of a :func:`softirr_stats.sensitivity` table.

    One row per (coefficient, similarity, chance) with a finite value: a point at the
    estimate with a horizontal bar over its interval (when the row has one). Rows are grouped
    by coefficient (in table order, separated by thin lines), coloured by similarity and
    marked by chance setting. Rows whose value is nan (skipped or undefined) are not drawn. The
    legend sits outside the axes, to their right, so that it never covers a row (save with
    ``bbox_inches="tight"`` to keep it in the image).

    Parameters
    ----------
    df : pandas.DataFrame
        The output of :func:`softirr_stats.sensitivity` (at least the columns
        ``coefficient, similarity, chance, value, ci_low, ci_high``).
    ax : matplotlib Axes, optional
        Axes to draw on (default: a new figure sized to the table).
    title : str, optional

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import pandas as pd
    >>> df = pd.DataFrame({"coefficient": ["cohen_kappa", "scott_pi"], "similarity": ["identity"] * 2,
    ...                    "chance": ["exact"] * 2, "value": [0.80, 0.79], "ci_low": [0.68, 0.67],
    ...                    "ci_high": [0.91, 0.91]})
    >>> ax = plot_sensitivity(df)
    >>> [t.get_text() for t in ax.get_yticklabels()]
    ['cohen_kappa', 'scott_pi']
    """
    if not isinstance(df, pd.DataFrame):
        raise TypeError(f"df must be a pandas DataFrame from softirr_stats.sensitivity; got {type(df).__name__}")
    missing = [c for c in _REQUIRED if c not in df.columns]
    if missing:
        raise ValueError(f"df is missing the columns {missing}; expected the output of softirr_stats.sensitivity")
    import matplotlib.pyplot as plt

    data = df[list(_REQUIRED)].copy()
    data["chance"] = data["chance"].fillna("").astype(str)
    data["similarity"] = data["similarity"].astype(str)
    data = data[np.isfinite(data["value"].to_numpy(dtype=float))]
    coefs = list(dict.fromkeys(data["coefficient"]))
    sims = list(dict.fromkeys(data["similarity"]))
    chances = list(dict.fromkeys(data["chance"]))
    if ax is None:
        _, ax = plt.subplots(figsize=(7.0, 1.0 + 0.32 * max(len(data) + len(coefs), 1)))
    colors = plt.get_cmap("tab10")
    # y positions: coefficients top to bottom, one slot per row, a gap between groups
    y = np.empty(len(data))
    centres, y_next, bounds = [], 0.0, []
    order = data["coefficient"].map({c: i for i, c in enumerate(coefs)}).to_numpy()
    for gi in range(len(coefs)):
        idx = np.flatnonzero(order == gi)
        y[idx] = -(y_next + np.arange(len(idx)))
        centres.append(-(y_next + (len(idx) - 1) / 2.0))
        y_next += len(idx) + 1.0
        bounds.append(-(y_next - 1.0))
    lo = data["ci_low"].to_numpy(dtype=float)
    hi = data["ci_high"].to_numpy(dtype=float)
    has_ci = np.isfinite(lo) & np.isfinite(hi)
    val = data["value"].to_numpy(dtype=float)
    sim_of = data["similarity"].to_numpy()
    ch_of = data["chance"].to_numpy()
    for si, sim in enumerate(sims):  # one artist per (similarity, chance), not per row
        color = colors(si % 10)
        for ci, ch in enumerate(chances):
            m = (sim_of == sim) & (ch_of == ch)
            if not m.any():
                continue
            bar = m & has_ci
            if bar.any():
                ax.hlines(y[bar], lo[bar], hi[bar], colors=[color], linewidth=1.5)
            # "exact" names both a measure and a chance setting: say which is which
            label = literal(sim if len(chances) == 1 else f"{sim}, chance {ch}" if ch else sim)
            ax.scatter(val[m], y[m], color=color, marker=_MARKERS[ci % len(_MARKERS)], zorder=3, label=label)
    for b in bounds[:-1]:
        ax.axhline(b, color="0.85", linewidth=0.8)
    ax.axvline(0.0, color="0.6", linewidth=0.8, linestyle=":")
    ax.set_yticks(centres)
    ax.set_yticklabels(literals(coefs))  # names from the data: drawn as written, never as TeX
    ax.set_xlabel("coefficient (point estimate and interval)")
    if len(data):
        # outside the axes, right of the data: a legend inside would cover rows of the plot
        ax.legend(title="similarity" if len(chances) == 1 else "similarity, chance setting", fontsize="small",
                  loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0, frameon=False)
    if title:
        ax.set_title(literal(title))
    return ax
