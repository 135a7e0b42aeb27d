"""A self-contained HTML agreement report (inline CSS, plots as base64 PNG; no external resources).

:func:`build_report` returns the HTML as a string; ``softirr report FILE -o report.html`` is a
thin wrapper around it. Heavy modules (matplotlib, the annotator models) are imported only
when the section that needs them is built.
"""

import datetime as _dt
import html
import math
import platform
import warnings
from collections.abc import Callable, Sequence
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from softirr_stats.base._format import fixed_number, format_p, is_p_column, level_text
from softirr_stats.base._mpltext import literal, literals
from softirr_stats.base._validation import is_warning_text
from softirr_stats.reporting._figure_html import figure_html as _png
from softirr_stats.reporting._symbols import CHANCE_FREE, labelled, symbol

__all__ = ["build_report", "data_summary", "pairwise_agreement", "model_summary", "weighted_reliability",
           "SECTIONS"]

#: Section ids, in page order (a section that does not apply to the data is left out).
SECTIONS = ("headline", "summary", "coefficients", "sensitivity", "labels", "raters", "ppi", "calibration", "model",
            "provenance")
_TITLES = {"headline": "Headline", "summary": "Data summary", "coefficients": "Coefficients with intervals",
           "sensitivity": "Sensitivity forest plot", "labels": "Label-wise decomposition (multi-label)",
           "raters": "Rater-level agreement", "ppi": "Prediction-powered agreement (judged pairs)",
           "calibration": "Calibration of the measure against judgments",
           "model": "Annotator model", "comparisons": "Comparisons", "provenance": "Provenance"}
_PACKAGES = ("softirr_stats", "numpy", "pandas", "scipy", "jax", "numpyro", "matplotlib", "rapidfuzz")

_CSS = """
body{font-family:-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;margin:0;background:#f6f7f9;color:#1d232b}
main{max-width:1080px;margin:0 auto;padding:24px 32px 48px}
header{background:#1f3a5f;color:#fff;padding:20px 32px}
header h1{margin:0 0 4px;font-size:1.55em} header p{margin:0;opacity:.85}
nav{background:#e8edf3;padding:8px 32px;font-size:.92em} nav a{margin-right:16px;color:#1f3a5f;text-decoration:none}
section{background:#fff;border:1px solid #dde2e8;border-radius:6px;padding:12px 22px 18px;margin:18px 0}
h2{font-size:1.2em;margin:8px 0 10px;color:#1f3a5f}
table{border-collapse:collapse;font-size:.9em;margin:6px 0}
th,td{padding:4px 10px;border-bottom:1px solid #e3e7ec;text-align:left;vertical-align:top}
th{background:#f0f3f7;font-weight:600} td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
p.headline{margin:4px 0 2px} p.headline .big{font-size:2em;font-weight:600;color:#1f3a5f}
p.headline .which{margin-left:10px;padding:2px 8px;border-radius:10px;background:#e8edf3;font-size:.9em}
figure{margin:0} figcaption{margin-top:2px}
p.note{color:#55606d;font-size:.88em;margin:6px 0} .warn{color:#8a4b00}
p.caveat{background:#fff4e5;border-left:4px solid #e08a00;padding:6px 10px;margin:6px 0;font-size:.9em}
td.ok{color:#1d6b2f} td.check{color:#a33a00;font-weight:600}
img{max-width:100%;height:auto;display:block;margin:8px 0}
.kv td:first-child{color:#55606d;white-space:nowrap} .grid{display:flex;flex-wrap:wrap;gap:24px}
code{background:#f0f3f7;padding:1px 4px;border-radius:3px;font-size:.9em;word-break:break-all}
"""


# ------------------------------------------------------------------------------ small helpers
def _esc(x: Any) -> str:
    return html.escape(str(x), quote=True)


def _num(x: Any, digits: int = 4, column: str = "") -> str:
    """A number of a table: integers as they are, others with ``digits`` decimals, zero up to floating-point error
    as ``0.0000`` (never ``-0.0000``); a p-value (``column`` is one) below 0.0001 in scientific form
    (:func:`~softirr_stats.base._format.format_p`); ``""`` when missing."""
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return ""
    if isinstance(x, int | np.integer):
        return str(int(x))
    return format_p(x, digits, "") if is_p_column(column) else fixed_number(x, digits)


def _table(df: pd.DataFrame, digits: int = 4, max_rows: int | None = None) -> str:
    """An HTML table (escaped); numeric columns right-aligned."""
    shown = df if max_rows is None else df.head(max_rows)
    num = {c: pd.api.types.is_numeric_dtype(df[c]) and not pd.api.types.is_bool_dtype(df[c]) for c in df.columns}
    head = "".join(f"<th>{_esc(c)}</th>" for c in df.columns)
    body = []
    for row in shown.itertuples(index=False):
        cells = "".join(f'<td class="num">{_esc(_num(v, digits, str(c)))}</td>' if num[c] else f"<td>{_esc('' if v is None else v)}</td>"
                        for c, v in zip(df.columns, row, strict=True))
        body.append(f"<tr>{cells}</tr>")
    more = "" if max_rows is None or len(df) <= max_rows else f'<p class="note">first {max_rows} of {len(df)} rows</p>'
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>{more}"


def _kv(pairs: Sequence[tuple[str, Any]]) -> str:
    rows = "".join(f"<tr><td>{_esc(k)}</td><td>{v}</td></tr>" for k, v in pairs)
    return f'<table class="kv"><tbody>{rows}</tbody></table>'


def _label_text(x: Any) -> str:
    if isinstance(x, frozenset | set):
        return "{" + ", ".join(sorted(map(str, x))) + "}"
    return str(x)


def _versions() -> list[tuple[str, str]]:
    out = [("python", platform.python_version())]
    for name in _PACKAGES:
        try:
            out.append((name, metadata.version(name.replace("_", "-"))))
        except metadata.PackageNotFoundError:
            try:
                out.append((name, metadata.version(name)))
            except metadata.PackageNotFoundError:
                out.append((name, "not installed"))
    return out




# ------------------------------------------------------------------------------ computations
def data_summary(ann: Any) -> dict[str, Any]:
    """Counts describing the annotations: items, raters, labels, ratings, missing and unpairable items.

    Examples
    --------
    >>> import softirr_stats as sis
    >>> ann = sis.Annotations.from_wide([["a", "a"], ["b", None], ["a", "b"]])
    >>> s = data_summary(ann)
    >>> s["n_items"], s["n_ratings"], s["missing_cells"], s["unpairable_items"]
    (3, 5, 1, 1)
    """
    codes = np.asarray(ann.codes)
    per_item = (codes >= 0).sum(axis=1)
    return {
        "n_items": int(ann.n_items), "n_raters": int(ann.n_raters), "n_labels": len(ann.vocabulary),
        "label_kind": str(ann.kind), "n_ratings": int((codes >= 0).sum()),
        "missing_cells": int((codes < 0).sum()), "cells": int(codes.size),
        "unpairable_items": int((per_item == 1).sum()), "unrated_items": int((per_item == 0).sum()),
        "first_unpairable": [str(x) for x in np.asarray(ann.items, dtype=object)[per_item < 2][:5]],
        "ratings_per_rater": pd.Series((codes >= 0).sum(axis=0), index=[str(r) for r in ann.raters]),
    }


def pairwise_agreement(ann: Any, similarity: Any = None) -> pd.DataFrame:
    """Cohen's kappa of every pair of raters on the items both rated (R x R, nan on the diagonal).

    A pair with fewer than two shared items, or a degenerate kappa, is nan.

    Examples
    --------
    >>> import softirr_stats as sis
    >>> ann = sis.Annotations.from_wide([["a", "a", "b"], ["b", "b", "b"], ["a", "a", "a"], ["b", "b", "a"]])
    >>> pairwise_agreement(ann).round(2).to_numpy().tolist()
    [[nan, 1.0, 0.0], [1.0, nan, 0.0], [0.0, 0.0, nan]]
    """
    import softirr_stats

    raters = list(ann.raters)
    codes = np.asarray(ann.codes)
    if callable(similarity):  # one similarity object: each label pair scored once for all rater pairs
        from softirr_stats.agreement import resolve_similarity

        similarity = resolve_similarity(ann, similarity=similarity)
    out = np.full((len(raters), len(raters)), np.nan)
    for j in range(len(raters)):  # R (R - 1) / 2 rater pairs: a handful
        for k in range(j + 1, len(raters)):
            both = (codes[:, j] >= 0) & (codes[:, k] >= 0)
            if both.sum() < 2:
                continue
            sub = ann.subset_raters([raters[j], raters[k]])
            keep = (np.asarray(sub.codes) >= 0).all(axis=1)
            pair = type(ann)(np.asarray(sub.codes)[keep], sub.vocabulary, items=list(np.asarray(sub.items,
                             dtype=object)[keep]), raters=[raters[j], raters[k]], kind=sub.kind)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                try:
                    out[j, k] = out[k, j] = softirr_stats.cohen_kappa(pair, similarity=similarity).value
                except (ValueError, TypeError):
                    pass
    names = [str(r) for r in raters]
    return pd.DataFrame(out, index=names, columns=names)


def model_summary(result: Any, raters: Sequence[Any], level: float) -> pd.DataFrame:
    """Tidy posterior summary of :func:`softirr_stats.annotator_agreement`'s result.

    Rows ``kappa``, ``observed``, ``expected`` and (categorical models) ``accuracy[rater]``;
    columns ``quantity, mean, sd, lower, upper`` (the interval at ``level``; nan where the
    result does not carry one).
    """
    nan = math.nan
    rows = [{"quantity": "kappa", "mean": result.value, "sd": result.se, "lower": result.ci_low,
             "upper": result.ci_high},
            {"quantity": "observed", "mean": result.observed, "sd": nan, "lower": nan, "upper": nan},
            {"quantity": "expected", "mean": result.expected, "sd": nan, "lower": nan, "upper": nan}]
    post = result.details.get("posterior")
    if post is not None and result.coefficient == "model_kappa":  # a categorical model: its kind has rater_accuracy
        acc = post.rater_accuracy(level=level)
        names = list(raters)
        low, high = acc.columns[-2:]  # the interval's columns, named with its level
        for r in acc.to_dict("records"):
            j = r["rater"]
            name = names[int(j)] if isinstance(j, int | np.integer) and 0 <= int(j) < len(names) else j
            rows.append({"quantity": f"accuracy[{name}]", "mean": float(r["accuracy"]), "sd": float(r["sd"]),
                         "lower": float(r[low]), "upper": float(r[high])})
    return pd.DataFrame(rows, columns=["quantity", "mean", "sd", "lower", "upper"])


# ------------------------------------------------------------------------------ sections
def _interval(lo: float, hi: float) -> str:
    return f" [{fixed_number(lo, 3)}, {fixed_number(hi, 3)}]" if np.isfinite(lo) and np.isfinite(hi) else ""


def _headline_html(df: pd.DataFrame, ppi: dict[str, Any], ci_text: str, soft_name: str) -> str:
    """The number the design supports, first, and why it is that one."""
    if ppi:
        res, est, (jo, j_lo, j_hi) = ppi["result"], ppi["estimator_only"], ppi["judge_only"]
        name = ppi["coefficient"]
        lead = (f"{symbol(name)} = {fixed_number(res.value, 3)}{_interval(res.ci_low, res.ci_high)}",
                "prediction-powered")
        why = (f"You judged {ppi['n_judged']} pairs ({ppi['n_draws']} draws of the judging plan), so the lead number "
               f"is the prediction-powered {name}: the measure ({ppi['measure']}) on every pair, corrected by the "
               "judgments of the sampled pairs. It estimates agreement as your judges see it, with an interval "
               "that counts both sources of error. Beside it: from the measure alone "
               f"{fixed_number(est.value, 3)}{_interval(est.ci_low, est.ci_high)} (biased wherever the measure and "
               f"the judges disagree), from the judgments alone {fixed_number(jo, 3)}{_interval(j_lo, j_hi)} "
               "(unbiased, wider).")
    else:
        shown = _first_chance(df)  # the lead number is one of the coefficients table's
        first = shown[np.isfinite(shown["value"].to_numpy(dtype=float))]
        if not len(first):
            return '<p class="note">No coefficient could be computed for these data (see the notes below).</p>'
        soft_rows = first[first["similarity"] == soft_name]
        row = (soft_rows if len(soft_rows) else first).iloc[0]
        name = str(row["coefficient"])
        lead = (f"{symbol(name)} = {fixed_number(row['value'], 3)}"
                f"{_interval(float(row['ci_low']), float(row['ci_high']))}",
                f"similarity {row['similarity']}, chance {row['chance'] or 'n/a'}")
        how = (f"with its interval ({ci_text})" if np.isfinite(float(row["ci_low"]))
               else "as a point estimate: no interval was asked for (--bootstrap N, or ci= in Python, adds one)")
        why = (f"No judgments were given, so the lead number is {name} under the "
               f"{'soft measure ' + str(row['similarity']) if row['similarity'] != 'exact' else 'exact match'}"
               f" {how}. Every other setting is in the tables below; judging a sample of label pairs "
               "(softirr judge plan) would make it prediction-powered.")
    return (f'<p class="headline"><span class="big">{_esc(lead[0])}</span> <span class="which">'
            f"{_esc(lead[1])}</span></p><p class=\"note\">{_esc(why)}</p>")


def _section(sid: str, body: str) -> str:
    return f'<section id="{sid}"><h2>{_esc(_TITLES[sid])}</h2>{body}</section>'


def _summary_html(ann: Any, s: dict[str, Any], warns: Sequence[str], reading: Sequence[str] = ()) -> str:
    pct = 100.0 * s["missing_cells"] / max(s["cells"], 1)
    unp = str(s["unpairable_items"])
    if s["unpairable_items"]:
        unp += f' <span class="warn">(they add no observed agreement; first: {_esc(", ".join(s["first_unpairable"]))})</span>'
    kv = _kv([("items", s["n_items"]), ("raters", s["n_raters"]),
              ("distinct labels", f'{s["n_labels"]} ({_esc(s["label_kind"])})'), ("ratings", s["n_ratings"]),
              ("missing cells (item x rater)", f'{s["missing_cells"]} of {s["cells"]} ({pct:.1f}%)'),
              ("unpairable items (one rating)", unp), ("unrated items (no rating)", s["unrated_items"])])
    # the tables of softirr describe (Annotations.describe / label_counts): per rater, then the labels by rater
    per_rater = ann.describe()[["rater", "items_rated", "labels_used", "top_label"]].rename(
        columns={"items_rated": "items rated", "labels_used": "labels used", "top_label": "top label"})
    per_rater["top label"] = per_rater["top label"].map(_label_text)
    top = ann.label_counts(top=10)
    if ann.n_raters > 6:  # a column per rater would not fit beside the other tables
        top = top.iloc[:, [-1]]  # all raters ("all", or "(all)" beside a rater named so)
    top = top.reset_index()
    first = top.columns[0]  # the label ("label", or "(label)" beside a rater so named)
    top[first] = top[first].map(_label_text)  # a new column: numbers become their texts
    # how the data were read (a note; a warning raised while reading is shown as one), then the data's warnings
    notes = "".join(f'<p class="note{" warn" if is_warning_text(w) else ""}">{_esc(w)}</p>' for w in reading)
    notes += "".join(f'<p class="note warn">{_esc(w)}</p>' for w in warns if w not in reading)
    return (f'<div class="grid"><div>{kv}</div><div><h3>Ratings per rater</h3>{_table(per_rater)}</div>'
            f'<div><h3>Most frequent labels</h3>{_table(top)}</div></div>{notes}')


def _footnoted(df: pd.DataFrame, col: str) -> tuple[pd.DataFrame, str]:
    """Replace the free-text ``col`` by note numbers; return the table and the numbered notes."""
    texts = df[col].fillna("").astype(str)
    notes = list(dict.fromkeys(t for t in texts if t))
    marks = texts.map(lambda t: f"[{notes.index(t) + 1}]" if t else "")
    listing = "".join(f'<p class="note">[{i}] {_esc(t)}</p>' for i, t in enumerate(notes, 1))
    return df.assign(**{col: marks}).rename(columns={col: "note"}), listing


def _first_chance(df: pd.DataFrame) -> pd.DataFrame:
    """The rows of the sensitivity table under the first chance setting: each coefficient x measure once.

    A coefficient whose chance term takes a setting has one row per setting, in the order asked for
    (``chance=("exact", "mc:50")``), so its first row is the first setting's; a coefficient with a chance term
    of its own (percent agreement's none, AC1's, Brennan-Prediger's) has one row, kept whatever its chance
    label, and so does a row that failed or was skipped. (A coefficient asked for twice is shown once.)
    """
    return df[~df.duplicated(["coefficient", "similarity"], keep="first")]


def _coefficients_html(df: pd.DataFrame, ci_text: str) -> str:
    view = _first_chance(df)[["coefficient", "similarity", "chance", "value", "ci_low", "ci_high", "se", "observed",
                              "expected", "n_items", "warnings"]].rename(columns={"n_items": "items"})
    view.insert(0, "symbol", view["coefficient"].map(symbol))
    view, notes = _footnoted(view, "warnings")
    settings = df["chance"][df.duplicated(["coefficient", "similarity"], keep=False)].nunique()
    chance = ("chance: the chance term (the first chance setting asked for; the forest plot shows them all)"
              if settings > 1 else "chance: the chance term")
    return (f'<p class="note">{_esc(ci_text)}. value: the coefficient (at most 1); ci_low, ci_high: the '
            f"interval; se: standard error; observed, expected: observed and chance agreement (proportions); {chance}"
            "; items: items used.</p>" + _table(view) + notes)


def _sensitivity_html(df: pd.DataFrame) -> str:
    import matplotlib.pyplot as plt

    from softirr_stats.reporting import plot_sensitivity

    finite = np.isfinite(df["value"].to_numpy(dtype=float))
    if not finite.any():
        return '<p class="note">No setting gave a finite value; nothing to plot.</p>'
    free = df["coefficient"].isin(CHANCE_FREE).to_numpy()
    parts = [(df[~free], "chance-corrected coefficient (0 = chance, at most 1)"),
             (df[free], "percent agreement (a proportion in [0, 1], no chance correction)")]
    parts = [(d.assign(coefficient=d["coefficient"].map(labelled)), x) for d, x in parts if len(d)]
    heights = [1.0 + 0.32 * max(len(d) + d["coefficient"].nunique(), 1) for d, _ in parts]
    fig, axes = plt.subplots(len(parts), 1, figsize=(7.5, sum(heights)), squeeze=False,
                             gridspec_kw={"height_ratios": heights})
    for (d, xlabel), ax in zip(parts, axes[:, 0], strict=True):
        plot_sensitivity(d, ax=ax)
        ax.set_xlabel(xlabel)
    plt.tight_layout()
    return ('<p class="note">Each row: one coefficient x measure x chance setting; the point is the estimate, the '
            "bar its interval. Percent agreement is not chance-corrected, so it has its own axis.</p>"
            + _png(fig, "sensitivity forest plot"))


def _labels_html(ann: Any, ci: Any) -> str:
    from softirr_stats import multilabel_agreement
    from softirr_stats.uncertainty import Analytic, check_ci

    none = isinstance(check_ci(ci), Analytic)  # an analytic request: the multi-label baseline has no variance
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = multilabel_agreement(ann, ci=ci) if ci is not None and not none else multilabel_agreement(ann)
    by = res.by_label.copy()
    ci_txt = "" if math.isnan(res.ci_low) else f" [{fixed_number(res.ci_low, 4)}, {fixed_number(res.ci_high, 4)}]"
    if none:
        ci_txt = " (no analytic interval: the multi-label baseline has none; a bootstrap gives one)"
    return (f'<p>Multi-label agreement (pooled baseline): <b>{fixed_number(res.value, 4)}</b>{_esc(ci_txt)}; observed '
            f"{res.observed:.4f}, expected {res.expected:.4f}, floor (minimum feasible agreement) {res.floor:.4f}.</p>"
            '<p class="note">One row per label: prevalence (share of ratings with the label), observed and '
            "expected agreement on it, its coefficient, and its weight in the overall value.</p>" + _table(by))


#: Most raters the report's pairwise section shows: R (R - 1) / 2 kappas (435 at 30 raters, a heatmap of
#: 24 inches); beyond it the section says why it was left out (1,200 raters took minutes for 719,400 pairs).
MAX_PAIRWISE_RATERS = 30


def _raters_left_out(n_raters: int) -> str:
    """The raters section of a study with more raters than :data:`MAX_PAIRWISE_RATERS`: why, and how to get it."""
    pairs = n_raters * (n_raters - 1) // 2
    return (f'<p class="note">Pairwise agreement is shown for up to {MAX_PAIRWISE_RATERS} raters; these data have '
            f"{n_raters:,} ({pairs:,} rater pairs, each a Cohen's kappa of its own and a cell of a heatmap too large to "
            "read), so it was left out. To see it for a chosen group of raters, report them alone: in Python "
            f"<code>build_report(ann.subset_raters([...]))</code> with at most {MAX_PAIRWISE_RATERS} of them, or a "
            "file with only their ratings.</p>")


def _raters_html(ann: Any, measure: str, estimator: Any) -> str:
    import matplotlib.pyplot as plt

    if ann.n_raters > MAX_PAIRWISE_RATERS:
        return _raters_left_out(int(ann.n_raters))
    mat = pairwise_agreement(ann, similarity=estimator)
    r = len(mat)
    fig, ax = plt.subplots(figsize=(1.6 + 0.75 * r, 1.2 + 0.65 * r))
    im = ax.imshow(mat.to_numpy(), vmin=-1, vmax=1, cmap="RdBu")
    ax.set_xticks(range(r), literals(mat.columns), rotation=45, ha="right")  # names drawn as written, never as TeX
    ax.set_yticks(range(r), literals(mat.index))
    vals = mat.to_numpy()
    for (i, j), v in np.ndenumerate(vals):
        if np.isfinite(v):
            ax.text(j, i, f"{v:.2f}".replace("-0.00", "0.00"), ha="center", va="center", fontsize=9, color="white" if abs(v) > 0.6 else "black")
    fig.colorbar(im, ax=ax, shrink=0.8, label="Cohen's kappa")
    ax.set_title(literal(f"pairwise Cohen's kappa ({measure})"), fontsize=10)
    others = np.where(np.eye(r, dtype=bool), np.nan, vals)
    with np.errstate(invalid="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a rater whose every pairwise kappa is undefined: nan
        mean_kappa = np.nanmean(others, axis=1) if r > 1 else np.full(r, np.nan)
    means = pd.DataFrame({"rater": mat.index, "mean kappa with the others": mean_kappa})
    return (f'<p class="note">Cohen\'s kappa of each pair of raters on the items both rated ({_esc(measure)}; the '
            "first soft measure when one is given); a rater who agrees less with everyone stands out as a pale "
            "row.</p>"
            f'<div class="grid"><div>{_png(fig, "pairwise Cohen kappa heatmap")}</div><div>{_table(means)}</div></div>')


def weighted_reliability(scores: Any, labels: Any, weights: Any = None, bins: int = 10) -> pd.DataFrame:
    """Reliability table of scores against judgments with sampling weights (equal-width bins).

    The judged pairs of a judging plan are drawn with unequal probabilities ``q``, so they are
    not a simple random sample of the pairs the coefficient uses: each judged pair stands for
    ``draws / q`` pairs (Horvitz-Thompson weights), and the bin means and the calibration error
    are weighted accordingly. Unit weights give the ordinary reliability diagram.

    Parameters
    ----------
    scores, labels : array-like of float in [0, 1]
        The measure's score and the judgment of each judged pair.
    weights : array-like of float > 0, optional
        Sampling weights (default: 1 each).
    bins : int
        Equal-width bins on [0, 1].

    Returns
    -------
    DataFrame
        One row per non-empty bin: ``lower, upper, count, weight`` (share of the total weight),
        ``mean_score, mean_label`` (weighted). ``attrs["ece"]`` is the weighted expected
        calibration error ``sum_b w_b |mean_label_b - mean_score_b|``, ``attrs["brier"]`` the
        weighted Brier score.

    Examples
    --------
    >>> t = weighted_reliability([0.1, 0.15, 0.9], [0, 1, 1], weights=[1.0, 3.0, 1.0], bins=2)
    >>> t[["count", "weight", "mean_label"]].round(3).to_numpy().tolist()
    [[2.0, 0.8, 0.75], [1.0, 0.2, 1.0]]
    >>> round(t.attrs["ece"], 4)
    0.5
    """
    s = np.asarray(scores, dtype=np.float64).ravel()
    y = np.asarray(labels, dtype=np.float64).ravel()
    w = np.ones_like(s) if weights is None else np.asarray(weights, dtype=np.float64).ravel()
    if not (s.shape == y.shape == w.shape):
        raise ValueError(f"scores, labels and weights must have the same length; got {s.size}, {y.size}, {w.size}")
    if s.size == 0:
        raise ValueError("no judged pairs: scores is empty")
    for name, x in (("scores", s), ("labels", y)):
        if not np.all((x >= 0) & (x <= 1)):
            raise ValueError(f"{name} must lie in [0, 1]")
    if not np.all(np.isfinite(w) & (w > 0)):
        raise ValueError("weights must be finite and positive")
    if not isinstance(bins, int) or bins < 1:
        raise ValueError(f"bins must be a positive integer; got {bins!r}")
    b = np.minimum((s * bins).astype(np.int64), bins - 1)
    count = np.bincount(b, minlength=bins).astype(np.float64)
    wsum = np.bincount(b, weights=w, minlength=bins)
    ms = np.bincount(b, weights=w * s, minlength=bins)
    my = np.bincount(b, weights=w * y, minlength=bins)
    keep = count > 0
    share = wsum / w.sum()
    with np.errstate(invalid="ignore", divide="ignore"):
        table = pd.DataFrame({"lower": np.arange(bins)[keep] / bins, "upper": (np.arange(bins)[keep] + 1) / bins,
                              "count": count[keep], "weight": share[keep], "mean_score": ms[keep] / wsum[keep],
                              "mean_label": my[keep] / wsum[keep]})
    table.attrs["ece"] = float(np.sum(table["weight"] * np.abs(table["mean_label"] - table["mean_score"])))
    table.attrs["brier"] = float(np.sum(w * (s - y) ** 2) / w.sum())
    return table


def _judged_weights(judgments: pd.DataFrame) -> tuple[np.ndarray | None, str]:
    """``draws / q`` per judged pair when the sheet carries the plan's ``q``; else None."""
    if "q" not in judgments.columns:
        return None, ("the judgments carry no sampling probabilities q, so they are weighted equally (as if a "
                      "simple random sample of the pairs)")
    q = pd.to_numeric(judgments["q"], errors="coerce").to_numpy(dtype=float)
    m = (pd.to_numeric(judgments["draws"], errors="coerce").to_numpy(dtype=float) if "draws" in judgments.columns
         else np.ones_like(q))
    if not (np.all(np.isfinite(q) & (q > 0)) and np.all(np.isfinite(m) & (m > 0))):
        raise ValueError("judgments: q must be a probability in (0, 1] and draws a positive count on every row")
    return m / q, ("each judged pair weighted by draws / q (its sampling probability in the judging plan), so "
                   "the diagram describes the pairs the coefficient uses, not the judged sample")


def _scores(judgments: pd.DataFrame, estimator: Any) -> np.ndarray:
    a = judgments["label_a"].astype(str).tolist()
    b = judgments["label_b"].astype(str).tolist()
    if estimator is None:
        return np.asarray([x == z for x, z in zip(a, b, strict=True)], dtype=float)
    return np.asarray(estimator(a, b), dtype=float)


def _calibration_html(judgments: pd.DataFrame, measure_name: str, estimator: Any) -> str:
    import matplotlib.pyplot as plt

    y = judgments["judgment"].to_numpy(dtype=float)
    scores = _scores(judgments, estimator)
    w, how = _judged_weights(judgments)
    rd = weighted_reliability(scores, y, w, bins=10)
    fig, ax = plt.subplots(figsize=(5.5, 4.5))
    ax.plot([0, 1], [0, 1], color="0.6", linestyle="--", linewidth=1, label="perfect calibration")
    ax.plot(rd["mean_score"], rd["mean_label"], color="tab:blue", linewidth=1, alpha=0.6,
            label=literal(f"{measure_name} (weighted ECE {rd.attrs['ece']:.3f})"))
    ax.scatter(rd["mean_score"], rd["mean_label"], s=12 + 400 * rd["weight"], color="tab:blue", zorder=3,
               label="bin (area: share of the weighted pairs)")
    ax2 = ax.twinx()
    ax2.bar((rd["lower"] + rd["upper"]) / 2, rd["weight"], width=0.09, color="tab:blue", alpha=0.15)
    ax2.set_ylabel("share of the (weighted) pairs")
    ax2.set_ylim(0, max(1.0, float(rd["weight"].max()) * 1.1))
    ax.set_zorder(ax2.get_zorder() + 1)
    ax.patch.set_visible(False)
    ax.set(xlim=(0, 1), ylim=(0, 1), xlabel="mean score (estimated P(equivalent))",
           ylabel="mean judgment" + (" (weighted by 1/q)" if w is not None else ""))
    ax.legend(loc="upper left", fontsize=8, frameon=True)
    kv = _kv([("similarity", _esc(measure_name)), ("judged pairs", len(y)),
              ("weighting", "draws / q" if w is not None else "none (no q column)"),
              ("expected calibration error (weighted)", f"{rd.attrs['ece']:.4f}"),
              ("Brier score (weighted)", f"{rd.attrs['brier']:.4f}")])
    return (f'<p class="note">Scores of the measure (estimated P(equivalent)) against the judgments; points on the '
            f"diagonal are well calibrated; {_esc(how)}.</p>"
            f'<div class="grid"><div>{_png(fig, "reliability diagram weighted by 1/q")}</div><div>{kv}'
            f"{_table(rd[['lower', 'upper', 'count', 'weight', 'mean_score', 'mean_label']].astype({'count': int}))}"
            "</div></div>")


def _ppi_coefficient(judgments: pd.DataFrame, df: pd.DataFrame) -> str | None:
    from softirr_stats.ppi import COEFFICIENT_FAMILIES

    if "coefficient" in judgments.columns:
        named = [c for c in dict.fromkeys(judgments["coefficient"].astype(str)) if c in COEFFICIENT_FAMILIES]
        if named:
            return named[0]
    return next((c for c in dict.fromkeys(df["coefficient"]) if c in COEFFICIENT_FAMILIES), None)


def _ppi_html(ann: Any, judgments: pd.DataFrame, measure_name: str, estimator: Any, coefficient: str,
              ci: Any, level: float, out: dict[str, Any] | None = None) -> str:
    from scipy.stats import norm

    from softirr_stats.api import public_function
    from softirr_stats.ppi import read_judgments
    from softirr_stats.uncertainty import BOOTSTRAP_DESIGNS, Bootstrap

    judged = read_judgments(judgments)
    if ci is None or (isinstance(ci, Bootstrap) and BOOTSTRAP_DESIGNS[ci.design].resamples_raters):
        ci_used: Any = "analytic"  # the delta method: the designs over raters do not apply to judged pairs
    else:
        ci_used = ci
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = public_function(coefficient)(ann, similarity=estimator, judgments=judged, ci=ci_used)
        est = public_function(coefficient)(ann, similarity=estimator, ci=ci_used)
    info = res.details["ppi"]
    z = float(norm.ppf((1 + level) / 2))
    jo, sej = info["judge_only"], info["se_judge_only"]
    j_lo, j_hi = max(jo - z * sej, -1.0), min(jo + z * sej, 1.0)  # a chance-corrected coefficient is at most 1
    clipped = " (clipped to [-1, 1])" if (j_lo, j_hi) != (jo - z * sej, jo + z * sej) else ""
    rows = pd.DataFrame([
        {"estimate": "prediction-powered", "value": res.value, "lower": res.ci_low, "upper": res.ci_high,
         "se": res.se, "uses": f"{info['n_draws']} judged draws + the measure on every pair"},
        {"estimate": "judge-only", "value": jo, "lower": j_lo, "upper": j_hi, "se": sej,
         "uses": f"{info['n_draws']} judged draws only (normal approximation{clipped})"},
        {"estimate": "estimator-only", "value": est.value, "lower": est.ci_low, "upper": est.ci_high, "se": est.se,
         "uses": f"the measure ({measure_name}) on every pair, no judgments"}])
    if out is not None:  # for the headline
        out.update(result=res, estimator_only=est, judge_only=(jo, j_lo, j_hi), coefficient=coefficient,
                   measure=measure_name, n_judged=info["n_judged"], n_draws=info["n_draws"])
    lam = info["lambda"]
    kv = _kv([("coefficient", _esc(coefficient)), ("similarity", _esc(measure_name)),
              ("judged pairs (draws)", f"{info['n_judged']} ({info['n_draws']})"),
              ("power-tuning weight lambda (observed, chance)", f"{lam['observed']:.3f}, {lam['chance']:.3f}"),
              ("effective sample size of the judged draws",
               f"{info['effective_sample_size']:.1f} <span class=\"note\">(how many judged pairs drawn uniformly at "
               "random would give the same precision as these draws weighted by 1/q; above the number of draws "
               "when the plan sampled the informative pairs more often)</span>"),
              ("interval", _esc(res.interval_description() or "none"))])
    msgs = list(dict.fromkeys(str(w.message) for w in caught))[:5]
    if np.isfinite(res.ci_high) and (res.ci_high > 1.0 or res.ci_low < -1.0):
        msgs.append(f"the prediction-powered interval [{res.ci_low:.4f}, {res.ci_high:.4f}] leaves [-1, 1], the "
                    "range of the coefficient: read its end beyond the range as the range's end")
    notes = "".join(f'<p class="note warn">{_esc(m)}</p>' for m in msgs)
    return (f'<p class="note">The {_esc(coefficient)} estimated from the measure on every pair and corrected by '
            "the judgments of the sampled pairs (prediction-powered inference: the judge's mean difference from "
            "the measure on the judged pairs, weighted by 1/q, is added back). Beside it: the same coefficient "
            "from the judgments alone, and from the measure alone. A prediction-powered interval narrower than "
            "the judge-only one is what the measure bought.</p>"
            f'<div class="grid"><div>{_table(rows)}</div><div>{kv}</div></div>{notes}')


def _model_html(ann: Any, model: str, level: float, seed: int, steps: int, method: str = "nuts") -> str:
    from softirr_stats.analysis import run_model
    from softirr_stats.inference import SVI_NOTE, SviConfig

    fit = run_model(ann, model, method=method, level=level, seed=seed,
                    config=SviConfig(steps=steps) if method == "svi" else None, progress=False)
    res, diag = fit.result, fit.diagnostics  # the fit's warnings are among the diagnostics' caveats
    table = model_summary(res, ann.raters, level)
    checks = diag.to_frame()
    p_texts = diag.p_value_texts(4)  # Monte Carlo p-values: a share of 0 of N draws as "< 1/N", not 0.0000
    body = []
    for r in checks.itertuples(index=False):
        status = f'<td class="{_esc(r.status)}">{_esc(r.status)}</td>' if r.status in ("ok", "check") else \
            f"<td>{_esc(r.status)}</td>"
        digits = 0 if r.diagnostic.startswith(("min bulk ESS", "divergent")) else 4
        shown = "" if not np.isfinite(r.value) else _esc(p_texts[r.diagnostic]) if r.diagnostic in p_texts else (
            f"{r.value:.0f}" if digits == 0 else _num(r.value))
        body.append(f"<tr><td>{_esc(r.diagnostic)}</td><td class=\"num\">{shown}</td>"
                    f"<td>{_esc(r.target)}</td>{status}</tr>")
    diag_table = ("<table><thead><tr><th>diagnostic</th><th>value</th><th>target</th><th>status</th></tr></thead>"
                  f"<tbody>{''.join(body)}</tbody></table>")
    caveats = "".join(f'<p class="caveat">{_esc(c)}</p>' for c in diag.caveats)
    how = (f"NUTS ({diag.n_chains} chains x {diag.n_draws} draws, seed {seed})" if method == "nuts"
           else f"SVI ({steps} steps, seed {seed}). {SVI_NOTE}")
    return (f'<p class="note">{_esc(model)} fitted by {_esc(how)}; {level_text(level)} equal-tailed posterior (credible) '
            "intervals, the level of every interval on this page. kappa: the model-implied agreement; accuracy: "
            "P(the rater gives the true label).</p>"
            f"{caveats}<div class=\"grid\"><div>{_table(table)}</div><div><h3>Diagnostics</h3>{diag_table}"
            '<p class="note">r_hat: split potential scale reduction (1 = the chains agree); ESS: effective sample '
            "size (bulk); predictive check: P(the statistic on data replicated from the fit >= its observed value)"
            "; values near 0 or 1 mean the model does not reproduce the data. Per-rater predictive check: each "
            "rater's agreement with the other raters against the same on the replicated data (two-sided p; a rater "
            "whose p is below the target, 0.05 over the raters, is one the model does not describe).</p></div></div>")


def _provenance_html(sources: Sequence[Path], command: str | None, seed: int, ci_text: str,
                     settings: dict[str, Any], judgments_path: Path | None) -> str:
    """The provenance section: every input file with its sha256 (:func:`~softirr_stats.base._provenance.provenance`,
    the record the command line's JSON keeps too), the judgments' sha256 (and their plan's, for a blinded sheet), the
    command, seed and settings."""
    from softirr_stats.base._provenance import file_sha256, provenance

    record = provenance(sources, command)
    many = len(record["inputs"]) > 1
    pairs: list[tuple[str, Any]] = []
    for i, rec in enumerate(record["inputs"], 1):
        tag = f" {i}" if many else ""
        pairs += [(f"input file{tag}", f"<code>{_esc(Path(rec['path']).name)}</code>"),
                  (f"input sha256{tag}", f"<code>{rec['sha256']}</code>")]
    if judgments_path is not None:
        pairs.append(("judgments sha256", f"<code>{file_sha256(judgments_path)}</code>"))
        from softirr_stats.analysis import sheet_plan_file

        plan = sheet_plan_file(judgments_path)  # a blinded sheet is read with its plan: the result depends on both
        if plan is not None:
            pairs += [("judgments plan", f"<code>{_esc(plan.name)}</code>"),
                      ("judgments plan sha256", f"<code>{file_sha256(plan)}</code>")]
    pairs += [("command", f"<code>{_esc(command)}</code>" if command else "(built from Python)"),
              ("seed", seed), ("interval", _esc(ci_text))]
    pairs += [(k, _esc(v)) for k, v in settings.items()]
    pairs += _compute_pairs()
    pairs.append(("created (UTC)", _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%d %H:%M:%S")))
    versions = pd.DataFrame(_versions(), columns=["package", "version"])
    return f'<div class="grid"><div>{_kv(pairs)}</div><div>{_table(versions)}</div></div>'


def _compute_pairs() -> list[tuple[str, Any]]:
    """Where the report was computed: the device setting, JAX's backend, each model's device and dtype."""
    from softirr_stats.base._device import compute_record

    rec = compute_record()
    out: list[tuple[str, Any]] = [("device", _esc(rec["device"]))]
    if rec["jax_backend"]:
        out.append(("JAX backend", _esc(rec["jax_backend"])))
    out += [(f"model {m['model']}", _esc(f"{m['device']}, {m['dtype']}")) for m in rec["models"]]
    return out


# ------------------------------------------------------------------------------ entry point
def build_report(
    ann: Any,
    *,
    measures: Sequence[str | tuple[str, Any]] = ("exact",),
    coefficients: Sequence[str] | None = None,
    chance: Sequence[Any] = ("exact",),
    ci: Any = None,
    judgments: pd.DataFrame | None = None,
    model: str | None = None,
    model_steps: int = 1000,
    model_level: float | None = None,
    model_method: str = "nuts",
    seed: int = 0,
    source: str | Path | Sequence[str | Path] | None = None,
    judgments_path: str | Path | None = None,
    command: str | None = None,
    title: str | None = None,
    comparisons: Sequence[Any] | None = None,
    wording: Callable[[str], str] | None = None,
    read_notes: Sequence[str] | None = None,
    registry: Any = None,
) -> str:
    """One self-contained HTML page reporting agreement on ``ann``.

    Sections (ids in :data:`SECTIONS`): data summary; coefficients with intervals for every
    measure; the sensitivity forest plot; label-wise decomposition (set-valued labels only);
    rater-level agreement (pairwise Cohen's kappa heatmap; two to :data:`MAX_PAIRWISE_RATERS` raters,
    beyond which the section says why it was left out); the
    prediction-powered coefficient (judgments with the plan's ``q``); calibration of the first
    soft measure against human judgments (when ``judgments`` is given); an annotator model's
    posterior summary with its diagnostics and caveats (when ``model`` is given); provenance (package versions, seed,
    interval settings, sha256 of the input, the command). Plots are base64 PNG and the CSS is
    inline: the page needs no network.

    Parameters
    ----------
    ann : Annotations
    measures : sequence
        Measure names (``"exact"``, ``"levenshtein"``, ...) or ``(name, estimator)`` pairs.
    coefficients : sequence of str, optional
        Names for :func:`softirr_stats.sensitivity` (default: its usual set for the data).
    chance : sequence
        Chance settings for the sensitivity table (the coefficients section shows the first).
    ci : None, "analytic", Analytic or Bootstrap
    judgments : DataFrame, optional
        Columns ``label_a, label_b, judgment`` (judgment in [0, 1]); with the judging plan's
        ``q`` (and ``draws``) beside them (a judged :func:`softirr_stats.judging_plan` sheet),
        the page also gets the prediction-powered coefficient (with judge-only and
        estimator-only beside it) and the reliability diagram is weighted by ``draws / q``.
    model : str, optional
        Annotator model for :func:`softirr_stats.annotator_agreement`.
    model_steps : int
        SVI steps (``model_method="svi"`` only).
    model_level : float, optional
        Posterior interval level; default: the level of ``ci`` (0.95 without one), so the page
        shows one level.
    model_method : {"nuts", "svi"}
        How the model is fitted (NUTS gives r_hat, ESS and divergences; SVI has no
        convergence diagnostic).
    seed : int
        Recorded in the provenance (and used for the model fit).
    source : path or sequence of paths, optional
        The input file(s): each is listed in the provenance with its sha256; the title names the
        first (``"a.csv and 2 more"`` for several).
    judgments_path : path, optional
        The judgments file, whose sha256 is recorded.
    command : str, optional
        The command line that built the report.
    title : str, optional
    comparisons : sequence of ComparisonResult, optional
        Results of :func:`softirr_stats.compare` (or ``compare_groups``): a "Comparisons" section
        with each difference and its interval plotted, and their tables.
    wording : callable, optional
        Rewords each note and warning the page lists, for its reader: ``softirr report`` passes
        its flag forms (``--similarity linear`` for ``weights='linear'``; the missing-ratings
        note without the Python call that reproduces the peers' number). Default: as the library
        words them, for a Python caller.
    read_notes : sequence of str, optional
        How the data were read (the format guessed, the columns of a wide table read as raters, the
        exports merged, the warnings raised while reading), listed first in the data summary.
        Default: ``ann.read_notes``, what the reader recorded; ``softirr report`` passes its own,
        with the reading warnings.
    registry : dict, optional
        Name -> coefficient view for the coefficients section and the forest plot
        (:func:`~softirr_stats.analysis.coefficient_registry`, e.g. with the ``distance_ks`` /
        ``distance_sigma`` options; ``softirr report --distance-option``); default: the registry as it is.

    Returns
    -------
    str
        The HTML document.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import softirr_stats as sis
    >>> ann = sis.Annotations.from_wide([["a", "a"], ["b", "b"], ["a", "b"], ["c", "c"]])
    >>> page = build_report(ann, coefficients=["cohen_kappa"])
    >>> page.startswith("<!DOCTYPE html>") and 'id="raters"' in page and "http" not in page
    True
    """
    import matplotlib

    if matplotlib.get_backend().lower() not in ("agg", "pdf", "svg", "cairo"):
        matplotlib.use("Agg")
    from softirr_stats.analysis import run_analysis

    if judgments is not None:
        missing = [c for c in ("label_a", "label_b", "judgment") if c not in judgments.columns]
        if missing:
            raise ValueError(f"judgments is missing the columns {missing}; expected label_a, label_b, judgment; "
                             f"got {list(judgments.columns)}")
    sims = [(m, None if m == "exact" else m) if isinstance(m, str) else tuple(m) for m in measures]
    if not sims:
        raise ValueError("measures must name at least one measure, e.g. ('exact',)")
    sources = ([] if source is None else [Path(source)] if isinstance(source, str | Path)
               else [Path(p) for p in source])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        summary = data_summary(ann)
    # the grid through the one runner (the report only formats): the table of `run_analysis`
    analysis = run_analysis(ann, coefficients=coefficients, measures=sims, chance=chance, ci=ci, registry=registry)
    df = analysis.table
    warns = list(dict.fromkeys([*(f"{w.category.__name__}: {w.message}" for w in caught), *analysis.warnings]))
    if wording is not None:  # the notes in the caller's words (the command line's flags)
        df = df.assign(warnings=df["warnings"].fillna("").astype(str).map(wording))
        warns = list(dict.fromkeys(map(wording, warns)))
    from softirr_stats.uncertainty import Analytic

    if ci is None:
        ci_text = "point estimates, no interval"
    elif isinstance(ci, str):
        ci_text = f"{ci} intervals"
    elif isinstance(ci, Analytic):  # its level is the one asked for (the string form is 0.95's)
        ci_text = f"{level_text(ci.level)} analytic intervals"
    else:
        from softirr_stats.uncertainty import resolve_method

        method = ("percentile" if judgments is not None and ci.method == "auto"  # auto keeps it for PPI
                  else resolve_method(ci.method, ci.design, ann.n_items)[0])  # "auto": the method on these items
        ci_text = (f"{level_text(ci.level)} {method} intervals, B = {ci.n} bootstrap replicates, "
                   f"design = {ci.design_label}, seed = {ci.seed}")
    reading = list(dict.fromkeys(getattr(ann, "read_notes", ()) if read_notes is None else read_notes))
    if wording is not None:
        reading = list(dict.fromkeys(map(wording, reading)))
    sections = [_section("summary", _summary_html(ann, summary, warns, reading)),
                _section("coefficients", _coefficients_html(df, ci_text)),
                _section("sensitivity", _sensitivity_html(df))]
    if ann.kind == "set":
        sections.append(_section("labels", _labels_html(ann, ci)))
    from softirr_stats.agreement import similarity_kind

    soft_name, soft = next(((n, e) for n, e in sims if e is not None  # the first estimator (not weights)
                            and not (isinstance(e, str) and similarity_kind(e) == "weights")), ("exact", None))
    if isinstance(soft, str):
        from softirr_stats.equivalence import estimator_from_name

        soft = estimator_from_name(soft)
    if ann.n_raters >= 2:
        sections.append(_section("raters", _raters_html(ann, soft_name, soft)))
    level = float(getattr(ci, "level", 0.95)) if ci is not None and not isinstance(ci, str) else 0.95
    if model_level is None:
        model_level = level
    ppi: dict[str, Any] = {}
    if judgments is not None:
        coef = _ppi_coefficient(judgments, df) if "q" in judgments.columns else None
        if coef is not None and soft is not None:
            sections.append(_section("ppi", _ppi_html(ann, judgments, soft_name, soft, coef, ci, level, ppi)))
        sections.append(_section("calibration", _calibration_html(judgments, soft_name, soft)))
    if model is not None:
        if model_method not in ("nuts", "svi"):
            raise ValueError(f"model_method must be 'nuts' or 'svi'; got {model_method!r}")
        sections.append(_section("model", _model_html(ann, model, model_level, seed, model_steps, model_method)))
    if comparisons:  # softirr_stats.compare results: the difference plot and table
        from softirr_stats.reporting._comparison_plot import comparison_section

        sections.append(_section("comparisons", comparison_section(comparisons)))
    settings = {"measures": ", ".join(n for n, _ in sims), "chance": ", ".join(map(str, chance)),
                "coefficients": ", ".join(coefficients) if coefficients else "default set"}
    if model is not None:
        how = "NUTS" if model_method == "nuts" else f"SVI, {model_steps} steps"
        settings["model"] = f"{model} ({how}, level {model_level})"
    sections.insert(0, _section("headline", _headline_html(df, ppi, ci_text, soft_name)))
    sections.append(_section("provenance", _provenance_html(sources, command, seed, ci_text, settings,
                                                            Path(judgments_path) if judgments_path else None)))
    present = [s.split('"')[1] for s in sections]
    nav = "".join(f'<a href="#{sid}">{_esc(_TITLES[sid])}</a>' for sid in present)
    from softirr_stats.base._provenance import sources_text

    heading = title or (f"Agreement report: {sources_text(sources)}" if sources else "Agreement report")
    sub = (f"{summary['n_items']} items, {summary['n_raters']} raters, {summary['n_labels']} labels; {ci_text}")
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>{_esc(heading)}</title>"
            f"<style>{_CSS}</style></head><body><header><h1>{_esc(heading)}</h1><p>{_esc(sub)}</p></header>"
            f"<nav>{nav}</nav><main>{''.join(sections)}</main></body></html>\n")
