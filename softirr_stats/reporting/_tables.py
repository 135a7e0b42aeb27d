"""Result tables for papers: Markdown and LaTeX from a result, a list of results or a DataFrame."""

from collections.abc import Sequence
from typing import Any

import pandas as pd

from softirr_stats._format import Style, level_text, render
from softirr_stats.agreement._result import AgreementResult

__all__ = ["to_latex", "to_markdown"]


def _as_frame(obj: Any) -> pd.DataFrame:
    if isinstance(obj, pd.DataFrame):
        return obj
    if isinstance(obj, Sequence) and not isinstance(obj, str) and obj and \
            all(isinstance(r, AgreementResult) for r in obj):
        return pd.concat([r.to_frame() for r in obj], ignore_index=True)
    raise TypeError("expected a pandas DataFrame (e.g. from sensitivity()), an AgreementResult or a "
                    f"non-empty list of AgreementResults; got {type(obj).__name__}")


def _interval_note(df: pd.DataFrame) -> str | None:
    """One sentence on how the intervals were made, when the table's rows share it."""
    if "ci_method" not in df.columns:
        return None
    methods = {m for m in df["ci_method"].dropna() if m}
    if len(methods) != 1:
        return None
    level = df["level"].dropna().unique() if "level" in df.columns else []
    parts = [f"{level_text(level[0]) + ' ' if len(level) == 1 else ''}{methods.pop()}"]
    for key, name in (("bootstrap_n", "B"), ("bootstrap_design", "design")):
        if key in df.columns and df[key].dropna().nunique() == 1:
            parts.append(f"{name}={df[key].dropna().iloc[0]}")
    return "Intervals: " + ", ".join(parts) + "."


def _render(obj: Any, style: Style, digits: int, columns: Sequence[str] | None, caption: str | None,
            label: str | None) -> str:
    if isinstance(obj, AgreementResult) and columns is None:
        if style == "markdown":
            table = obj.to_markdown(digits=digits)
            return table if caption is None else f"{table}\n\n{caption}"
        return obj.to_latex(digits=digits, caption=caption, label=label)
    df = _as_frame(obj.to_frame() if isinstance(obj, AgreementResult) else obj)
    note = _interval_note(df)
    if style == "markdown":
        text = " ".join(x for x in (caption, note) if x) or None
        return render(df, style, digits=digits, columns=columns, caption=text)
    if caption is not None and note:
        caption = f"{caption.rstrip().rstrip('.')}. {note}"
    return render(df, style, digits=digits, columns=columns, caption=caption, label=label)


def to_markdown(obj: Any, *, digits: int = 3, columns: Sequence[str] | None = None,
                caption: str | None = None) -> str:
    """A Markdown (pipe) table of agreement results.

    Parameters
    ----------
    obj : DataFrame, AgreementResult or list of AgreementResult
        E.g. the table :func:`softirr_stats.sensitivity` returns, or several coefficients.
    digits : int
        Decimals of the numbers (significant digits for very small or large ones).
    columns : list of str, optional
        Columns to show (``"ci"`` for the ``[ci_low, ci_high]`` interval). Default for result
        tables: coefficient, similarity and chance (when not all the defaults), value, interval,
        SE, items and raters; any other DataFrame shows every column.
    caption : str, optional
        A paragraph under the table; a sentence on how the intervals were made follows it when
        every row shares the method.

    Examples
    --------
    >>> import softirr_stats as sis
    >>> from softirr_stats import reporting
    >>> x = [["a", "a", "a"], ["b", "b", "a"], ["b", "b", "b"], ["c", "c", "c"], ["a", "b", "a"]]
    >>> rs = [sis.fleiss_kappa(x, ci="analytic"), sis.krippendorff_alpha(x, ci="analytic")]
    >>> print(reporting.to_markdown(rs))
    | Coefficient | Value | 95% CI | SE | Items | Raters |
    | :-- | --: | --: | --: | --: | --: |
    | fleiss_kappa | 0.583 | [-0.195, 1.000] | 0.280 | 5 | 3 |
    | krippendorff_alpha | 0.611 | [-0.168, 1.000] | 0.280 | 5 | 3 |
    <BLANKLINE>
    Intervals: 95% analytic.
    """
    return _render(obj, "markdown", digits, columns, caption, None)


def to_latex(obj: Any, *, digits: int = 3, columns: Sequence[str] | None = None, caption: str | None = None,
             label: str | None = None) -> str:
    r"""A booktabs LaTeX table of agreement results (a ``table`` float with a caption or label).

    Takes what :func:`to_markdown` takes; ``label`` is the ``\label`` key. Needs
    ``\usepackage{booktabs}``.

    Parameters
    ----------
    obj : AgreementResult, list of results or DataFrame
        As for :func:`to_markdown`.
    digits : int
        Decimals of the values.
    columns : sequence of str, optional
        Columns to show (default: the agreement columns present).
    caption : str, optional
        Caption of the ``table`` float.
    label : str, optional
        ``\label`` key of the ``table`` float.

    Returns
    -------
    str

    Examples
    --------
    >>> import pandas as pd
    >>> from softirr_stats import reporting
    >>> df = pd.DataFrame({"coefficient": ["cohen_kappa"], "similarity": ["quadratic"],
    ...                    "value": [0.8921], "ci_low": [0.8228], "ci_high": [0.9614], "level": [0.95]})
    >>> print(reporting.to_latex(df))
    \begin{tabular}{llrr}
    \toprule
    Coefficient & Similarity & Value & 95\% CI \\
    \midrule
    cohen\_kappa & quadratic & 0.892 & {}[0.823, 0.961] \\
    \bottomrule
    \end{tabular}
    """
    return _render(obj, "latex", digits, columns, caption, label)
