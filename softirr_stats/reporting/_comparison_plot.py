"""Comparisons in reports: a plot of each difference with its interval, and the report section."""

import math
from collections.abc import Sequence
from typing import Any

__all__ = ["plot_comparisons", "comparison_section"]


def plot_comparisons(results: Sequence[Any], ax: Any = None) -> Any:
    """Each comparison's difference ``A - B`` as a point with its interval, zero marked.

    Parameters
    ----------
    results : sequence of ComparisonResult
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib Figure

    Examples
    --------
    >>> from softirr_stats.comparison import ComparisonResult
    >>> r = ComparisonResult("A", "B", 0.6, 0.5, 0.1, 1.2, 0.02, 0.18, 0.04, 0.95, 0.01, "paired delta method",
    ...                      "analytic", True, 50, 50, 50)
    >>> fig = plot_comparisons([r])
    >>> len(fig.axes[0].lines) >= 1
    True
    """
    import matplotlib.pyplot as plt

    results = list(results)
    if not results:
        raise ValueError("results is empty: nothing to plot")
    if ax is None:
        fig, ax = plt.subplots(figsize=(7.0, 0.5 + 0.45 * len(results)))
    else:
        fig = ax.figure
    ys = list(range(len(results)))[::-1]
    for y, r in zip(ys, results, strict=True):
        if math.isfinite(r.ci_low) and math.isfinite(r.ci_high):
            ax.plot([r.ci_low, r.ci_high], [y, y], color="#1f3a5f", lw=2)
        ax.plot([r.difference], [y], "o", color="#c0392b" if r.p_value < 1 - r.level else "#1f3a5f")
    ax.axvline(0.0, color="#888", lw=1, ls="--")
    ax.set_yticks(ys)
    ax.set_yticklabels([f"{r.label_a} − {r.label_b}" for r in results])
    ax.set_xlabel("difference A − B with its interval")
    fig.tight_layout()
    return fig


def comparison_section(results: Sequence[Any]) -> str:
    """The body of the report's comparison section: the plot, the table and each method note.

    Parameters
    ----------
    results : sequence of ComparisonResult

    Returns
    -------
    str
        HTML (the plot as an inline PNG, with its SVG and PDF downloads).

    Examples
    --------
    >>> from softirr_stats.comparison import ComparisonResult
    >>> r = ComparisonResult("A", "B", 0.6, 0.5, 0.1, 1.2, 0.02, 0.18, 0.04, 0.95, 0.01, "paired delta method",
    ...                      "analytic", True, 50, 50, 50)
    >>> "<img" in comparison_section([r])
    True
    """
    from softirr_stats.reporting._figure_html import figure_html

    results = list(results)
    img = figure_html(plot_comparisons(results), "difference of each comparison with its interval")
    tables = "".join(r._repr_html_() for r in results)
    note = ("<p><small>Paired comparisons evaluate both statistics on one draw of bootstrap weights per replicate "
            "(shared items), so their correlation is in the interval; whether two separate intervals overlap says "
            "nothing reliable about a difference. Red points: p below 1 − level.</small></p>")
    return img + tables.replace("<caption>ComparisonResult</caption>", "") + note
