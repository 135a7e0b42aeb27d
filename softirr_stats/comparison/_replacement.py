"""``softirr_stats.replacement_test``: can an automatic annotator replace a human? (the alternative annotator test).

Calderon, Reichart & Dror (ACL 2025), "The Alternative Annotator Test for LLM-as-a-Judge: How
to Statistically Justify Replacing Human Annotators with LLMs". For each human ``h`` (left
out in turn), on each item ``h`` rated: the candidate's alignment with the other humans,
``S_c(i) = mean_o s(c_i, y_io)``, against ``h``'s, ``S_h(i) = mean_o s(y_ih, y_io)``; the
indicators ``W_c(i) = [S_c >= S_h]`` and ``W_h(i) = [S_h >= S_c]``; a one-sided one-sample t
test of ``H0: mean(W_h - W_c) >= epsilon`` (``epsilon`` the cost-benefit margin granted to
the candidate); Benjamini-Yekutieli across humans at level ``q``. The winning rate ``omega``
is the share of humans whose null is rejected (the candidate passes at ``omega >= 0.5``);
the advantage probability ``rho`` is the mean over humans of ``mean(W_c)``. ``s`` is exact
matching (the authors' accuracy), any equivalence estimator or weights (soft), or
``scoring="neg_rmse"`` (minus the root mean squared difference, for numeric labels). Items,
humans and pairs are arrays: no loop over them.
"""

import html
import math
import numbers
import warnings
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from softirr_stats.agreement import as_annotations, resolve_similarity
from softirr_stats.base._format import format_p, latex_table, markdown_table
from softirr_stats.base._validation import SoftIRRWarning, check_choice

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["ReplacementResult", "replacement_test", "SCORINGS", "benjamini_yekutieli", "FewHumansWarning"]

#: How an annotator's alignment with the other humans is scored.
SCORINGS = ("similarity", "neg_rmse")
#: The authors' minimum: at least 50 items (their README asks for 50-100) and 3 humans.
MIN_ITEMS, MIN_HUMANS = 50, 3


class FewHumansWarning(SoftIRRWarning):
    """The replacement test runs below the authors' minimum (3 humans, 50 items), or some humans are not tested.

    Examples
    --------
    >>> issubclass(FewHumansWarning, UserWarning)
    True
    """


def benjamini_yekutieli(p_values: Any, q: float) -> np.ndarray:
    """Which hypotheses the Benjamini-Yekutieli (2001) step-up procedure rejects at FDR ``q``.

    Reject the ``k`` smallest p-values, ``k`` the largest rank with ``p_(k) <= k q / (m H_m)``,
    ``H_m = sum_{j<=m} 1/j`` (valid under any dependence). NaN p-values are never rejected.

    Examples
    --------
    >>> benjamini_yekutieli([0.001, 0.02, 0.04, 0.5], 0.05).tolist()
    [True, False, False, False]
    """
    p = np.asarray(p_values, dtype=np.float64)
    m = p.size
    if m == 0:
        return np.zeros(0, dtype=bool)
    order = np.argsort(np.where(np.isnan(p), np.inf, p), kind="stable")
    h_m = float(np.sum(1.0 / np.arange(1, m + 1)))
    ok = p[order] <= np.arange(1, m + 1) / m * (q / h_m)
    k = int(np.flatnonzero(ok)[-1]) + 1 if ok.any() else 0
    out = np.zeros(m, dtype=bool)
    out[order[:k]] = True
    return out


@dataclass(frozen=True)
class ReplacementResult:
    """The alternative annotator test of one candidate.

    Attributes
    ----------
    candidate : Any
        The candidate rater.
    omega : float
        Winning rate: share of the tested humans the candidate wins against (H0 rejected).
    rho : float
        Advantage probability: mean over humans of the share of items where the candidate aligns
        with the other humans at least as well as the human does.
    passed : bool
        ``omega >= 0.5``.
    epsilon, q : float
        Cost-benefit margin and FDR level.
    n_items : int
        Items used (rated by the candidate and by at least ``min_humans_per_item`` humans).
    n_humans : int
        Humans tested (each with at least ``min_items_per_human`` items).
    scoring, similarity : str
    by_human : DataFrame
        human, n_items, candidate_advantage (rho_h), human_advantage, mean_difference (of W_h - W_c),
        t, p_value (nan for a human not tested or with one item), tested, candidate_wins (H0 rejected
        after Benjamini-Yekutieli; False for a human not tested: read it with ``tested``, the tables
        show "—").
    warnings : tuple of str

    Examples
    --------
    >>> import softirr_stats as sis
    >>> rows = [["a", "a", "a", "a"], ["b", "b", "a", "b"], ["a", "b", "b", "b"]] * 20
    >>> r = sis.replacement_test(rows, candidate=3, epsilon=0.1)
    >>> r.n_humans, round(r.rho, 4), r.passed
    (3, 1.0, True)
    """

    candidate: Any
    omega: float
    rho: float
    passed: bool
    epsilon: float
    q: float
    n_items: int
    n_humans: int
    scoring: str
    similarity: str
    by_human: "pd.DataFrame" = field(repr=False, compare=False)
    warnings: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """The summary (no per-human table), JSON-friendly."""
        return {"candidate": self.candidate, "omega": self.omega, "rho": self.rho, "passed": self.passed,
                "epsilon": self.epsilon, "q": self.q, "n_items": self.n_items, "n_humans": self.n_humans,
                "scoring": self.scoring, "similarity": self.similarity, "warnings": "; ".join(self.warnings)}

    def to_frame(self) -> "pd.DataFrame":
        """The per-human table (tidy, unrounded)."""
        return self.by_human.copy()

    def __str__(self) -> str:
        verdict = "PASSED" if self.passed else "FAILED"
        untested = [str(h) for h in self.by_human.loc[~self.by_human["tested"].astype(bool), "human"]]
        skipped = f"; not tested: {', '.join(untested)}" if untested else ""
        return (f"replacement test of {self.candidate} [{verdict}]: winning rate omega = {self.omega:.2f} "
                f"({int(round(self.omega * self.n_humans))} of {self.n_humans} tested humans{skipped}), advantage "
                f"probability rho = {self.rho:.3f}; epsilon = {self.epsilon}, BY q = {self.q}, {self.n_items} "
                f"items, similarity: {self.similarity}")

    def __repr__(self) -> str:
        return (f"ReplacementResult(candidate={self.candidate!r}, omega={self.omega:.3f}, rho={self.rho:.3f}, "
                f"passed={self.passed}, humans={self.n_humans}, items={self.n_items})")

    def _rows(self, digits: int) -> tuple[list[str], list[list[str]], list[str]]:
        header = ["Human", "Items", "rho_h", "Mean W_h - W_c", "Tested", "t", "p", "Candidate wins"]
        rows = [[str(r.human), str(r.n_items), f"{r.candidate_advantage:.{digits}f}", f"{r.mean_difference:.{digits}f}",
                 "yes" if r.tested else "no", _num(r.t, f".{digits}f"), format_p(r.p_value, digits, "—"),
                 ("yes" if r.candidate_wins else "no") if r.tested and math.isfinite(r.p_value) else "—"]
                for r in self.by_human.itertuples()]
        return header, rows, ["l", "r", "r", "r", "c", "r", "r", "c"]

    def to_markdown(self, *, digits: int = 3) -> str:
        """The verdict line and the per-human table in Markdown."""
        header, rows, align = self._rows(digits)
        return f"{self}\n\n{markdown_table(header, rows, align)}"

    def to_latex(self, *, digits: int = 3, caption: str | None = None, label: str | None = None) -> str:
        """The per-human table as booktabs LaTeX (the verdict in the caption when one is given)."""
        header, rows, align = self._rows(digits)
        if caption is not None:
            caption = f"{caption.rstrip().rstrip('.')}. {self}." if caption.strip() else f"{self}."
        return latex_table(header, rows, align, caption=caption, label=label)

    def _repr_html_(self) -> str:
        header, rows, _ = self._rows(3)
        head = "".join(f"<th>{html.escape(h)}</th>" for h in header)
        body = "".join("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in row) + "</tr>" for row in rows)
        return (f"<p>{html.escape(str(self))}</p><table><caption>ReplacementResult</caption><thead><tr>{head}</tr>"
                f"</thead><tbody>{body}</tbody></table>")


def _num(x: float, spec: str) -> str:
    return format(x, spec) if math.isfinite(x) else "—"


def _check_rater(ann: Any, rater: Any, name: str) -> int:
    if rater not in ann.raters:
        raise ValueError(f"{name} {rater!r} is not a rater of the data; raters are {list(ann.raters)}")
    return ann.raters.index(rater)


def replacement_test(ann: Any, candidate: Any, *, humans: Any = None, similarity: Any = None, weights: Any = None,
                     scoring: str = "similarity", epsilon: float = 0.1, q: float = 0.05,
                     min_humans_per_item: int = 2, min_items_per_human: int = 30) -> ReplacementResult:
    """The alternative annotator test: can ``candidate`` (an LLM, a model) replace the human annotators?

    Parameters
    ----------
    ann : Annotations or wide table
        The humans' and the candidate's labels.
    candidate : rater id
        The candidate annotator (a rater of ``ann``).
    humans : list of rater ids, optional
        The human annotators (default: every other rater); at least 2 (a warning below 3).
    similarity : None, measure name, estimator, callable or K x K array
        How two labels agree, ``s(a, b)`` in [0, 1] (None: exact matching, the authors' accuracy).
    weights : str or K x K array, optional
        Categorical agreement weights instead of ``similarity``.
    scoring : {"similarity", "neg_rmse"}
        ``"neg_rmse"``: alignment is minus the root mean squared difference from the other humans'
        labels (numeric labels; the authors' choice for ratings); it takes no ``similarity`` or ``weights``.
    epsilon : float
        Cost-benefit margin in [0, 1) granted to the candidate (the authors suggest 0.2 for
        experts, 0.15 for skilled annotators, 0.1 for crowd workers).
    q : float
        Benjamini-Yekutieli false discovery rate.
    min_humans_per_item : int
        Items need at least this many human labels (the left-out human and one other at least: 1 is
        raised to 2, with a warning).
    min_items_per_human : int
        Humans with fewer usable items are not tested (a warning names them; ``by_human["tested"]`` is
        False and the tables show no win or loss), as in the authors' code. A tested human with a single item
        has no t test (t and p nan, as scipy's ``ttest_1samp``): the candidate does not win against them.

    Returns
    -------
    ReplacementResult
        ``omega``, ``rho``, ``passed``, ``by_human``.

    Raises
    ------
    ValueError
        ``candidate`` (or a human) not in the data, fewer than 2 humans, no human with enough items,
        non-numeric labels with ``scoring="neg_rmse"``, ``similarity`` or ``weights`` with
        ``scoring="neg_rmse"``.

    Warns
    -----
    FewHumansWarning
        Fewer than 3 humans tested or fewer than 50 items (the authors' minimum); humans not tested;
        humans with a single usable item.
    SoftIRRWarning
        ``min_humans_per_item`` below 2 (raised to 2).

    Examples
    --------
    >>> import softirr_stats as sis
    >>> rows = [["a", "a", "a", "a"], ["b", "b", "a", "b"], ["a", "b", "b", "b"]] * 20
    >>> r = sis.replacement_test(rows, candidate=3)
    >>> r.omega, r.passed, r.by_human["candidate_wins"].tolist()
    (1.0, True, [True, True, True])
    """
    import pandas as pd
    from scipy.special import stdtr

    data = as_annotations(ann)
    check_choice("scoring", scoring, SCORINGS)
    given = [name for name, v in (("similarity", similarity), ("weights", weights)) if v is not None]
    if scoring == "neg_rmse" and given:
        raise ValueError(f"scoring='neg_rmse' scores numeric labels by their squared differences and takes no "
                         f"{' or '.join(given)}=; drop {' and '.join(given)}=, or use scoring='similarity' to score "
                         "by a label similarity")
    for name, v in (("min_humans_per_item", min_humans_per_item), ("min_items_per_human", min_items_per_human)):
        if isinstance(v, bool) or not isinstance(v, numbers.Integral) or v < 1:
            raise ValueError(f"{name} must be a whole number >= 1; got {v!r}")
    if min_humans_per_item < 2:
        warnings.warn(f"min_humans_per_item={min_humans_per_item} is raised to 2: an item needs the left-out human "
                      "and at least one other human to compare the candidate with", SoftIRRWarning, stacklevel=2)
    if isinstance(epsilon, bool) or not (isinstance(epsilon, numbers.Real) and 0.0 <= float(epsilon) < 1.0):
        raise ValueError(f"epsilon must be a number in [0, 1); got {epsilon!r}")
    if isinstance(q, bool) or not (isinstance(q, numbers.Real) and 0.0 < float(q) < 1.0):
        raise ValueError(f"q must be in (0, 1); got {q!r}")
    c = _check_rater(data, candidate, "candidate")
    human_ids = [r for r in data.raters if r != candidate] if humans is None else list(dict.fromkeys(humans))
    if candidate in human_ids:
        raise ValueError(f"candidate {candidate!r} is also listed among the humans")
    hpos = np.array([_check_rater(data, h, "human") for h in human_ids], dtype=np.int64)
    if len(hpos) < 2:
        raise ValueError(f"the replacement test needs at least 2 human annotators besides the candidate; got "
                         f"{len(hpos)} ({human_ids})")
    codes = np.asarray(data.codes)
    Y, yc = codes[:, hpos], codes[:, c]
    M = Y >= 0
    keep = (M.sum(axis=1) >= max(2, int(min_humans_per_item))) & (yc >= 0)
    Y, yc, M = Y[keep], yc[keep], M[keep]
    n, H = Y.shape
    i_idx, h_idx, o_idx = np.nonzero(M[:, :, None] & M[:, None, :])
    if scoring == "neg_rmse":
        try:
            values = np.asarray(data.vocabulary, dtype=np.float64)
        except (TypeError, ValueError):
            raise ValueError("scoring='neg_rmse' needs numeric labels; got labels such as "
                             f"{list(data.vocabulary[:3])}") from None
        pair_hh = (values[Y[i_idx, h_idx]] - values[Y[i_idx, o_idx]]) ** 2
        pair_c = (values[yc[:, None]] - values[np.where(M, Y, 0)]) ** 2
        sim_name = "neg_rmse"
    else:
        sim = resolve_similarity(data, similarity=similarity, weights=weights)
        pair_hh = np.asarray(sim.pairs(Y[i_idx, h_idx], Y[i_idx, o_idx]).values, dtype=np.float64)
        ci, co = np.nonzero(M)
        pair_c = np.zeros((n, H))
        pair_c[ci, co] = np.asarray(sim.pairs(yc[ci], Y[ci, co]).values, dtype=np.float64)
        sim_name = sim.name
    S_hh = np.zeros((n, H, H))
    S_hh[i_idx, h_idx, o_idx] = pair_hh
    W = (M[:, None, :] & ~np.eye(H, dtype=bool)[None]).astype(np.float64)  # the other humans of item i, for h
    k = W.sum(axis=2)  # (n, H)
    E = M & (k >= 1)  # h rated i and someone else did
    with np.errstate(invalid="ignore", divide="ignore"):
        human = np.einsum("iho,iho->ih", S_hh, W) / k
        cand = np.einsum("io,iho->ih", np.where(M, pair_c, 0.0), W) / k
    if scoring == "neg_rmse":
        human, cand = -np.sqrt(human), -np.sqrt(cand)
    win_c = np.where(E, cand >= human, False).astype(np.float64)
    win_h = np.where(E, human >= cand, False).astype(np.float64)
    d = win_h - win_c
    n_h = E.sum(axis=0)
    notes: list[str] = []
    tested = n_h >= int(min_items_per_human)
    if (~tested).any():
        skipped = [human_ids[j] for j in np.flatnonzero(~tested)]
        notes.append(f"humans {skipped} have fewer than {min_items_per_human} usable items (rated by the human, the "
                     "candidate and another human) and are not tested")
    if not tested.any():
        raise ValueError(f"no human has {min_items_per_human} usable items (rated by the human, the candidate and "
                         f"another human); lower min_items_per_human or annotate more items")
    nn = np.where(n_h > 0, n_h, 1).astype(np.float64)
    mean = (d * E).sum(axis=0) / nn
    var = (((d - mean) ** 2) * E).sum(axis=0) / np.maximum(nn - 1.0, 1.0)
    sd = np.sqrt(var)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = (mean - epsilon) / (sd / np.sqrt(nn))
    t = np.where(tested & (n_h >= 2), t, np.nan)  # one observation has no variance: no t test (scipy: nan)
    p = np.where(np.isnan(t), np.nan, stdtr(np.maximum(nn - 1.0, 1.0), t))  # H1: mean < epsilon
    single = [human_ids[j] for j in np.flatnonzero(tested & (n_h < 2))]
    if single:
        notes.append(f"humans {single} have a single usable item: a one-sample t test of one observation is "
                     "undefined (t and p are nan) and the candidate does not win against them")
    p_t = p[tested]
    rejected = np.zeros(H, dtype=bool)
    rejected[np.flatnonzero(tested)] = benjamini_yekutieli(p_t, q)
    rho_h = (win_c * E).sum(axis=0) / nn
    omega = float(rejected[tested].mean())
    rho = float(rho_h[tested].mean())
    if tested.sum() < MIN_HUMANS:
        notes.append(f"only {int(tested.sum())} humans tested: the authors ask for at least {MIN_HUMANS} (with 2 the test "
                     "only asks which of the two the candidate agrees with more)")
    if int(keep.sum()) < MIN_ITEMS:
        notes.append(f"only {int(keep.sum())} items: the authors ask for at least {MIN_ITEMS} (50-100)")
    for note in notes:
        warnings.warn(note, FewHumansWarning, stacklevel=2)
    frame = pd.DataFrame({"human": [human_ids[j] for j in range(H)], "n_items": n_h.astype(int),
                          "candidate_advantage": np.where(n_h > 0, rho_h, math.nan),
                          "human_advantage": np.where(n_h > 0, (win_h * E).sum(axis=0) / nn, math.nan),
                          "mean_difference": np.where(n_h > 0, mean, math.nan), "t": t, "p_value": p,
                          "tested": tested, "candidate_wins": rejected})
    return ReplacementResult(candidate, omega, rho, omega >= 0.5, float(epsilon), float(q), int(keep.sum()),
                             int(tested.sum()), scoring, sim_name, frame, tuple(notes))
