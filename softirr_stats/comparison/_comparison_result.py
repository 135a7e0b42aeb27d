"""The result of comparing two agreement statistics: both values, the difference, its interval and test."""

import html
import math
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any

from softirr_stats.base._format import (
    ZERO_TOL,
    fixed_number,
    format_interval,
    format_number,
    format_p,
    html_table,
    latex_table,
    level_text,
    markdown_table,
)

if TYPE_CHECKING:  # pandas loads when a table is asked for
    import pandas as pd

__all__ = ["ComparisonResult"]


def _p_clause(p: float, digits: int, equals: str) -> str:
    """``p = 0.0300``, ``p = 3.2e-21`` or, for a p that underflowed, ``p < 1e-300`` (:func:`format_p`).

    Examples
    --------
    >>> _p_clause(0.03, 4, " = "), _p_clause(0.0, 3, "="), _p_clause(float("nan"), 3, "=")
    ('p = 0.0300', 'p<1e-300', 'p=nan')
    """
    text = format_p(p, digits, "nan")
    return f"p{equals.replace('=', '<')}{text[1:]}" if text.startswith("<") else f"p{equals}{text}"


@dataclass(frozen=True)
class ComparisonResult:
    """Two agreement statistics compared: ``difference = value_a - value_b`` with its interval and test.

    Attributes
    ----------
    label_a, label_b : str
        What each statistic is (coefficient, measure, chance; or the rater group).
    value_a, value_b : float
        The two statistics.
    difference : float
        ``value_a - value_b``.
    ratio : float
        ``value_a / value_b`` where both are positive (a ratio of agreement coefficients means
        something only then), else nan.
    ci_low, ci_high, se : float
        Interval and standard error of the difference (nan when undefined).
    level : float
        Confidence level.
    p_value : float
        Two-sided p-value of H0: the two population values are equal (``details["test"]`` says which test).
    method : str
        How the interval was made, e.g. ``"paired bootstrap-percentile"`` or ``"paired delta method"``.
    design : str
        The resampling design (``"items"``, ``"cluster"``, ...) or ``"analytic"``.
    paired : bool
        True when the two statistics share items (their errors are correlated and the
        replicates are paired item by item).
    n_items_a, n_items_b, n_common : int
        Items of each statistic and items they share.
    warnings : tuple of str
    details : dict
        Replicates of both values and of the difference, the bootstrap's seed, the ratio's interval,
        the check that the replicates are those of the inputs' own intervals, the permutation test,
        and ``interval_rule`` (what ``method="auto"`` stood for: information, not a warning).

    Examples
    --------
    >>> r = ComparisonResult("alpha (embedding)", "alpha (indel)", 0.62, 0.55, 0.07, 1.127, 0.01, 0.13, 0.03,
    ...                      0.95, 0.03, "paired bootstrap-percentile", "items", True, 80, 80, 80)
    >>> print(r)
    alpha (embedding) - alpha (indel) = 0.0700, 95% CI [0.0100, 0.1300] (paired bootstrap-percentile, design=items), p = 0.0300; 80 items shared
    """

    label_a: str
    label_b: str
    value_a: float
    value_b: float
    difference: float
    ratio: float
    ci_low: float
    ci_high: float
    se: float
    level: float
    p_value: float
    method: str
    design: str
    paired: bool
    n_items_a: int
    n_items_b: int
    n_common: int
    warnings: tuple[str, ...] = ()
    details: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    def to_dict(self) -> dict[str, Any]:
        """Flat dict of the scalar fields (JSON-friendly); warnings joined with ``"; "``; with a bootstrap
        also ``n_replicates``, ``seed`` and ``interval_rule``."""
        out = {f.name: getattr(self, f.name) for f in fields(self) if f.name != "details"}
        out["warnings"] = "; ".join(self.warnings)
        for key in ("test", "n_replicates", "seed", "interval_rule", "ratio_ci_low", "ratio_ci_high",
                    "permutation_p_value", "n_permutations"):
            if key in self.details:
                out[key] = self.details[key]
        return out

    def to_frame(self) -> "pd.DataFrame":
        """One-row tidy DataFrame of :meth:`to_dict` (unrounded)."""
        import pandas as pd

        return pd.DataFrame([self.to_dict()])

    def _items_text(self) -> str:
        if self.n_items_a == self.n_items_b == self.n_common:
            return f"{self.n_common} items shared"
        return f"{self.n_items_a} and {self.n_items_b} items, {self.n_common} shared"

    def __str__(self) -> str:
        # the difference and its bounds are on a coefficient's scale: zero up to floating-point error prints as zero
        text = f"{self.label_a} - {self.label_b} = {fixed_number(self.difference, 4, 'nan')}"
        if math.isfinite(self.ci_low) or math.isfinite(self.ci_high):
            text += (f", {level_text(self.level)} CI [{fixed_number(self.ci_low, 4, 'nan')}, "
                     f"{fixed_number(self.ci_high, 4, 'nan')}] ({self.method}, design={self.design})")
        if math.isfinite(self.p_value):
            text += f", {_p_clause(self.p_value, 4, ' = ')}"
        text += f"; {self._items_text()}"
        if self.warnings:
            text += f" ({len(self.warnings)} warning{'s' if len(self.warnings) > 1 else ''}: see .warnings)"
        return text

    def __repr__(self) -> str:
        return (f"ComparisonResult({self.label_a} - {self.label_b} = "
                f"{format_number(self.difference, 3, 'nan', zero=ZERO_TOL)} "
                f"{format_interval(self.ci_low, self.ci_high, 3, '[nan, nan]')}, {_p_clause(self.p_value, 3, '=')}, "
                f"{self.method}, paired={self.paired})")

    # ------------------------------------------------------------------ tables
    def _table(self, digits: int, na: str) -> tuple[list[str], list[list[str]], list[str]]:
        short = f"{level_text(self.level)} CI".strip()
        cols = [("A", self.label_a, "l"), ("B", self.label_b, "l"),
                ("Value A", format_number(self.value_a, digits, na, zero=ZERO_TOL), "r"),
                ("Value B", format_number(self.value_b, digits, na, zero=ZERO_TOL), "r"),
                ("Difference", format_number(self.difference, digits, na, zero=ZERO_TOL), "r"),
                (short, format_interval(self.ci_low, self.ci_high, digits, na), "r"),
                ("SE", format_number(self.se, digits, na), "r"),
                ("p", format_p(self.p_value, digits, na), "r"),
                ("Items", str(self.n_common) if self.paired and self.n_items_a == self.n_items_b == self.n_common
                 else f"{self.n_items_a} / {self.n_items_b}", "r")]
        return [c[0] for c in cols], [[c[1] for c in cols]], [c[2] for c in cols]

    def _note(self) -> str:
        parts = [f"Difference A - B; interval: {level_text(self.level)} {self.method}, design={self.design}"]
        if "n_replicates" in self.details:
            parts[0] += f", B={self.details['n_replicates']}"
        if "seed" in self.details:
            parts[0] += f", seed={self.details['seed']}"
        if "interval_rule" in self.details:
            parts.append(self.details["interval_rule"])
        if "test" in self.details:
            parts.append(f"test: {self.details['test']}")
        parts.append(self._items_text())
        text = "; ".join(parts) + "."
        if self.warnings:
            text += " Warnings: " + "; ".join(self.warnings) + "."
        return text

    def to_markdown(self, *, digits: int = 3, note: bool = True) -> str:
        """A one-row Markdown table (both values, the difference, its interval, SE, p, items) and a note.

        Examples
        --------
        >>> r = ComparisonResult("A", "B", 0.6, 0.5, 0.1, 1.2, 0.02, 0.18, 0.04, 0.95, 0.01, "paired delta method",
        ...                      "analytic", True, 50, 50, 50)
        >>> print(r.to_markdown(note=False))
        | A | B | Value A | Value B | Difference | 95% CI | SE | p | Items |
        | :-- | :-- | --: | --: | --: | --: | --: | --: | --: |
        | A | B | 0.600 | 0.500 | 0.100 | [0.020, 0.180] | 0.040 | 0.010 | 50 |
        """
        header, rows, align = self._table(digits, "—")
        table = markdown_table(header, rows, align)
        return f"{table}\n\n{self._note()}" if note else table

    def to_latex(self, *, digits: int = 3, caption: str | None = None, label: str | None = None) -> str:
        r"""A one-row booktabs LaTeX table; with a caption, a ``table`` float whose caption ends with the note.

        Examples
        --------
        >>> r = ComparisonResult("A", "B", 0.6, 0.5, 0.1, 1.2, 0.02, 0.18, 0.04, 0.95, 0.01, "paired delta method",
        ...                      "analytic", True, 50, 50, 50)
        >>> r.to_latex().splitlines()[0]
        '\\begin{tabular}{llrrrrrrr}'
        """
        header, rows, align = self._table(digits, "--")
        if caption is not None:
            caption = f"{caption.rstrip().rstrip('.')}. {self._note()}" if caption.strip() else self._note()
        return latex_table(header, rows, align, caption=caption, label=label)

    def _repr_html_(self) -> str:
        """A small HTML table for notebooks and the report.

        Examples
        --------
        >>> r = ComparisonResult("A", "B", 0.6, 0.5, 0.1, 1.2, 0.02, 0.18, 0.04, 0.95, 0.01, "paired delta method",
        ...                      "analytic", True, 50, 50, 50)
        >>> r._repr_html_().startswith("<table")
        True
        """
        return html_table(*self._table(3, "—"), "ComparisonResult") + f"<p><small>{html.escape(self._note())}</small></p>"
