"""Reliability-diagram plot (matplotlib is imported only when plotting)."""

from typing import Any

from softirr_stats.base._mpltext import literal
from softirr_stats.calibration._metrics import (
    Strategy,
    expected_calibration_error,
    reliability_diagram,
)


def plot_reliability_diagram(
    scores: object,
    labels: object,
    bins: int = 10,
    strategy: Strategy = "uniform",
    *,
    ax: Any = None,
    label: str | None = None,
    show_counts: bool = True,
) -> Any:
    """Plot mean label against mean score per bin, with the diagonal of perfect calibration.

    Parameters
    ----------
    scores, labels, bins, strategy
        As in :func:`reliability_diagram`.
    ax : matplotlib Axes, optional
        Axes to draw on (default: a new figure).
    label : str, optional
        Legend label of the curve; the ECE is appended.
    show_counts : bool, default True
        Also draw the bin counts as a light histogram on a secondary y-axis.

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> ax = plot_reliability_diagram([0.1, 0.4, 0.8, 0.9], [0, 1, 1, 1], bins=5)
    >>> ax.get_xlabel()
    'mean score (estimated P(equivalent))'
    """
    table = reliability_diagram(scores, labels, bins, strategy)
    ece = expected_calibration_error(scores, labels, bins, strategy)
    import matplotlib.pyplot as plt

    if ax is None:
        _, ax = plt.subplots(figsize=(4.5, 4.5))
    ax.plot([0, 1], [0, 1], linestyle="--", color="0.5", linewidth=1, label="perfect")
    text = literal(f"{label or 'scores'} (ECE {ece:.3f}, {strategy} bins)")  # a user's label, never TeX
    ax.plot(table["mean_score"], table["mean_label"], marker="o", label=text)
    if show_counts:
        twin = ax.twinx()
        width = (table["upper"] - table["lower"]).to_numpy()
        twin.bar(table["lower"], table["count"], width=width, align="edge", alpha=0.15, color="C0")
        twin.set_ylabel("pairs per bin")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.set_xlabel("mean score (estimated P(equivalent))")
    ax.set_ylabel("mean human label (observed P(equivalent))")
    ax.set_title("Reliability diagram")
    ax.legend(loc="upper left", fontsize="small")
    return ax
