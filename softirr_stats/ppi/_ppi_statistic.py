"""The prediction-powered coefficient as a statistic: judged pairs read once, evaluated for any weights.

:class:`PpiStatistic` implements the :class:`~softirr_stats.agreement.Statistic` protocol. Its
``evaluate(C, V, W)`` is the prediction-powered estimate for item weights ``C`` (the item,
cluster and Bayesian bootstraps) and judged-draw weights ``W`` (counts over the ``n`` judged
draws: the ``judged`` bootstrap, and the independent resampling of the draws in every item
replicate), with ``lambda`` re-tuned in each replicate. The point estimate is
``evaluate()``; the uncertainty layer's one bootstrap loop, interval summary and ``ci`` check
apply to it as to every coefficient, and ``analytic_variance`` gives the delta method.

Two stages (``gold``). When a random subsample of the judged draws was judged again by a gold
judge (an expert, or a second judge), each stage rectifies the previous one:

    P_T = c_T + lambda_T (P_T(f) - c_T) + (1/n) sum_D W_T (h - lambda_T f) / q
              + (1/n_g) sum_G W_T (g - h) / q,

unbiased for the gold judge's term ``P_T(g)`` (the gold draws ``G`` are a simple random
subsample of the judged draws ``D``, so each is a draw from ``q``). Per draw this is the one-stage
estimator with the judgment ``h + I (g - h) / pi`` (``I`` = the draw is in ``G``, ``pi = n_g / n``),
so the same variance, bootstrap and interval apply; treating ``I`` as Bernoulli(``pi``) makes the
variance slightly conservative against the fixed-size subsample.
"""

import math
import warnings
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import pandas as pd

from softirr_stats.agreement import (
    AgreementResult,
    DegenerateWarning,
    Prepared,
    Statistic,
    evaluate,
)
from softirr_stats.base._validation import SoftIRRWarning, row_name
from softirr_stats.ppi._judging import (
    DESIGN_COLUMNS,
    JUDGED_COEFFICIENTS,
    design_labels,
    label_codes,
    plan_from_prepared,
    read_judgments,
)
from softirr_stats.ppi._ppi_terms import (
    DeltaVariance,
    PpiTerms,
    TermWeights,
    check_family,
    combine_np,
    delta_variance,
    floored_delta,
    term_weights,
    tune_lambda,
)

__all__ = ["Judged", "judged_rows", "plan_mismatch", "PpiStatistic", "ppi_result", "PPI_DEFAULT_DRAWS", "CONDITIONAL",
           "SUPERPOPULATION", "JUDGE_ERROR_NOTE"]

PPI_DEFAULT_DRAWS = 200
#: Fewer judged draws judged equivalent than this: the interval may undercover (docs/ppi.md's study).
FEW_EQUIVALENT = 5
#: Coverage of the 95% interval measured with 0, 1-2 and 3-4 equivalent judged draws, and the factor on the
#: upper half-width that would have covered 95% (the 95% quantile of |truth - estimate| / half-width):
#: 17,000 studies of ``paper_repro/ppi_coverage.py`` (docs/ppi.md, "With fewer than 5 equivalent draws";
#: 22 / 274 / 989 studies in the three groups).
FEW_EQUIVALENT_COVERAGE = ((0.68, 1.46), (0.87, 1.34), (0.92, 1.09))
CONDITIONAL = ("conditional on the items: this study's coefficient computed with the judge's judgments "
               "(the true coefficient only if the judge makes no error)")
CONDITIONAL_GOLD = ("conditional on the items: this study's coefficient computed with the gold judge's "
                    "judgments (estimator -> judge -> gold, each stage rectifying the previous one)")
SUPERPOPULATION = ("items as a sample: the population coefficient computed with the judge's judgments "
                   "(the true coefficient only if the judge makes no error)")
SUPERPOPULATION_GOLD = ("items as a sample: the population coefficient computed with the gold judge's "
                        "judgments (estimator -> judge -> gold)")
JUDGE_ERROR_NOTE = (
    "estimand: the coefficient computed with the judge's judgments, not the true one. A judge that "
    "misses equivalent pairs (false negatives) or errs on confusable pairs moves it: an equivalent "
    "within-item pair judged 0 lowers observed agreement, a confusable chance pair judged 1 raises "
    "chance agreement; the errors do not cancel like symmetric flips. Judge a random subsample again "
    "with a gold judge (on the command line: softirr judge plan --gold-n N; in Python: judging_plan(gold_n=...); "
    "either adds a 'gold' column) to target the gold judge's coefficient")


@dataclass(eq=False)
class Judged:
    """Judged rows mapped to vocabulary codes: pairs (a, b), judgments h, design q, draws m.

    ``g``: the gold judgments (nan where a row has none) and ``m_gold`` the row's draws in the
    gold subsample (0 without a gold stage).
    """

    a: np.ndarray
    b: np.ndarray
    h: np.ndarray
    q: np.ndarray
    m: np.ndarray
    lam: float | None
    plan_coefficient: str | None
    g: np.ndarray | None = None
    m_gold: np.ndarray | None = None

    def __post_init__(self) -> None:
        self.m = np.asarray(self.m, dtype=np.float64)

    @property
    def n(self) -> int:
        return int(self.m.sum())

    @property
    def n_gold(self) -> int:
        return 0 if self.m_gold is None else int(self.m_gold.sum())


def _codes(vocabulary: tuple, values: pd.Series, column: str) -> np.ndarray:
    """Vocabulary codes of plan labels (the labels themselves, or their CSV text)."""
    out = label_codes(vocabulary, values.tolist())
    if (out < 0).any():
        unknown = values[out < 0].tolist()
        raise ValueError(f"judgments column {column!r} has labels that are not in the annotations' vocabulary: "
                         f"{unknown[:5]!r}{' ...' if len(unknown) > 5 else ''} (was the plan drawn from other data?)")
    return out


REDRAW = ("read the data as the plan was drawn (the same file, missing values, categories and reader options), or "
          "redraw the plan on these data (on the command line: softirr judge plan FILE; in Python: judging_plan(ann, ...))")


def plan_mismatch(prep: Prepared, table: pd.DataFrame, a: np.ndarray, b: np.ndarray) -> str | None:
    """Why a judging plan does not belong to the data of ``prep`` (None if it does, as far as the plan can tell).

    Two signs that a plan was drawn on other data: a planned pair that neither term of these data weighs, and
    (for a plan that records them, ``DESIGN_COLUMNS``) other labels than those its design drew pairs among. The
    second is the harmful one: a pair of these data with a label the design did not have had no draw
    probability, so its share of the coefficient is missing from the estimate. Both are asked only of a plan
    drawn for a coefficient of this family (or one that does not say): a plan for another family weighs pairs
    differently on the same data, which :func:`judged_rows` warns about instead.
    """
    rec = JUDGED_COEFFICIENTS.get(str(table["coefficient"].iloc[0])) if "coefficient" in table.columns else None
    if rec is not None and rec.family is not prep.family:
        return None
    problems = []
    tw = term_weights(prep, a, b)
    dead = (tw.Wo[0] == 0) & (tw.We[0] == 0)
    if dead.any():
        row = int(np.flatnonzero(dead)[0])
        problems.append(f"{int(dead.sum())} of its {len(a)} label pairs are in no term of these data's coefficient "
                        f"(first: {table['label_a'].iloc[row]!r} / {table['label_b'].iloc[row]!r})")
    if set(DESIGN_COLUMNS) <= set(table.columns):
        count, digest = table[DESIGN_COLUMNS[0]], table[DESIGN_COLUMNS[1]].astype(str)
        if count.nunique(dropna=False) != 1 or digest.nunique(dropna=False) != 1:
            return ("its rows come from plans drawn on different data (their design_labels / design_digest "
                    "differ); judge the rows of one plan")
        now, now_digest = design_labels(prep)
        if now_digest != digest.iloc[0]:
            was = pd.to_numeric(count, errors="coerce").iloc[0]
            was = int(was) if np.isfinite(was) else count.iloc[0]
            other = " (the same number, but not the same labels)" if was == now else ""
            problems.append(f"it drew label pairs among {was} labels, and these data's coefficient weighs pairs among "
                            f"{now}{other}: the label pairs the plan could not draw (q = 0) are missing from the "
                            "prediction-powered estimate, which would be wrong")
    return "; ".join(problems) if problems else None


def judged_rows(prep: Prepared, result: AgreementResult, judgments: Any, judge: Any) -> tuple[Judged, list[str]]:
    """Read / draw the judged rows, scoring them with ``judge`` when one is given."""
    notes: list[str] = []
    if judgments is None:
        plan = plan_from_prepared(prep, result.coefficient, result.observed, result.expected,
                                  n=PPI_DEFAULT_DRAWS, strategy="uniform", seed=0)
        table = read_judgments(plan, require_judgment=False)
        notes.append(f"judge= scored a default plan of {PPI_DEFAULT_DRAWS} uniform draws (seed 0); pass "
                     "judgments=softirr_stats.judging_plan(...) to choose the budget and design")
    else:
        # checked again even when read_judgments made the frame: its attrs survive an edit (assign, concat)
        lam = judgments.attrs.get("lambda") if isinstance(judgments, pd.DataFrame) else None
        table = read_judgments(judgments, require_judgment=judge is None, lam=lam)
    if judge is not None and "judgment" in table.columns and table["judgment"].notna().any():
        raise ValueError("give judgments with a 'judgment' column, or judge= to score the plan, not both")
    a = _codes(prep.ann.vocabulary, table["label_a"], "label_a")
    b = _codes(prep.ann.vocabulary, table["label_b"], "label_b")
    same = a == b
    if same.any():
        row = int(np.flatnonzero(same)[0])
        raise ValueError(f"judgments {row_name(table.index, row)} pairs the label {table['label_a'].iloc[row]!r} with itself; "
                         "identical labels score 1 and are never judged")
    why = plan_mismatch(prep, table, a, b)
    if why is not None:
        raise ValueError(f"the judging plan was drawn on other data: {why}. To fix it, {REDRAW}")
    if judge is not None:
        from softirr_stats.equivalence import score_pairs

        vocab = np.empty(len(prep.ann.vocabulary), dtype=object)
        vocab[:] = list(prep.ann.vocabulary)
        h = np.asarray(score_pairs(judge, list(vocab[a]), list(vocab[b])), dtype=np.float64)
        name = getattr(judge, "name", getattr(judge, "__name__", type(judge).__name__))
        notes.append(f"the judge {name!s} scored {len(a)} planned pairs")
    else:
        h = table["judgment"].to_numpy(dtype=np.float64)
    plan_coef = None
    if "coefficient" in table.columns and len(table):
        plan_coef = str(table["coefficient"].iloc[0])
        rec = JUDGED_COEFFICIENTS.get(plan_coef)
        if rec is not None and rec.family is not prep.family:
            msg = (f"the judging plan was drawn for {plan_coef}; {result.coefficient} weighs label pairs "
                   "differently, so q may be 0 where it needs pairs: draw a plan for this coefficient")
            warnings.warn(msg, SoftIRRWarning, stacklevel=4)
            notes.append(msg)
    g = m_gold = None
    if "gold_draws" in table.columns and (table["gold_draws"] > 0).any():
        m_gold = table["gold_draws"].to_numpy(dtype=np.float64)
        g = table["gold"].to_numpy(dtype=np.float64)
    # one order for the rows, whatever order the table came in (a blinded sheet is shuffled, its plan sorted):
    # the bootstraps draw the judged draws by position, so the same judgments give the same interval
    order = canonical_order(a, b)
    g, m_gold = (None if x is None else x[order] for x in (g, m_gold))
    return Judged(a[order], b[order], h[order], table["q"].to_numpy(dtype=np.float64)[order],
                  table["draws"].to_numpy(dtype=np.float64)[order], table.attrs.get("lambda"), plan_coef,
                  g, m_gold), notes


def canonical_order(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The rows of judged label pairs ordered by the unordered pair's codes (then by position, for a pair listed
    twice), so that a table's row order does not reach the bootstrap's draws.

    Examples
    --------
    >>> canonical_order(np.array([2, 0, 1]), np.array([0, 1, 2])).tolist()
    [1, 0, 2]
    """
    lo, hi = np.minimum(a, b), np.maximum(a, b)
    return np.lexsort((np.arange(len(a)), hi, lo))


@dataclass(eq=False)
class PpiStatistic(Statistic):
    """The prediction-powered coefficient, prepared once for batches of item and judged-draw weights.

    Units: ``Judged`` rows are split into sub-rows of the same pair and gold status; the
    ``n_chance_pairs`` resampled units are the ``n`` judged draws (``W`` counts them), mapped
    to their sub-rows. ``V`` (rater weights) is refused: the pair weights are written in item
    weights only.

    Parameters
    ----------
    prep : Prepared
        The estimator's prepared coefficient (its similarity is the cheap estimator's).
    judged : Judged
        The judged draws, read by ``read_judged``.
    pf_o, pf_e : float
        The estimator-only observed and expected agreement (the full-data plug-in terms).

    Examples
    --------
    >>> import softirr_stats as sis
    >>> from softirr_stats.agreement import point_estimate, resolve_similarity
    >>> ann = sis.Annotations.from_wide([["a", "b"], ["a", "a"], ["b", "b"], ["c", "a"]])
    >>> sim = resolve_similarity(ann, similarity=np.array([[1, .8, 0], [.8, 1, 0], [0, 0, 1.]]))
    >>> res, prep = point_estimate(ann, family="pooled", coefficient="fleiss_kappa", sim=sim)
    >>> j = Judged(np.array([0, 0]), np.array([1, 2]), np.array([1.0, 0.0]), np.array([0.5, 0.5]),
    ...            np.array([3, 2]), None, None)
    >>> stat = PpiStatistic(prep, j, res.observed, res.expected)
    >>> stat.n_chance_pairs, stat.evaluate()["value"].shape
    (5, (1,))
    """

    prep: Prepared
    judged: Judged
    pf_o: float
    pf_e: float
    rater_designs: bool = False
    supports_analytic: bool = True
    resampled_pairs_note: str = ""  # the judged draws are the design's own units: nothing to add
    judged_pairs: bool = True  # Bootstrap(design="judged") resamples these draws
    no_rater_designs: str = ("the prediction-powered pair weights are written in item weights only; "
                             "design='judged' resamples the judged pairs")
    _cache: dict = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        j = self.judged
        J = len(j.a)
        m_gold = np.zeros(J) if j.m_gold is None else j.m_gold
        pi = j.n_gold / j.n if j.n_gold else 1.0
        g = np.where(np.isfinite(j.g), j.g, j.h) if j.g is not None else j.h
        # sub-rows: (row, not gold) with m - m_gold draws, (row, gold) with m_gold draws
        idx = np.r_[np.arange(J), np.arange(J)]
        m = np.r_[j.m - m_gold, m_gold]
        h_eff = np.r_[j.h, j.h + (g - j.h) / pi]
        keep = m > 0
        self.row = idx[keep]
        self.m = m[keep]
        self.h_eff = h_eff[keep]
        self.h_tune = j.h[self.row]  # lambda is tuned on the judge's values (the first stage)
        self.is_gold = np.r_[np.zeros(J, bool), np.ones(J, bool)][keep]
        self.pi = pi
        self.a, self.b, self.q = j.a[self.row], j.b[self.row], j.q[self.row]
        self.f = np.asarray(self.prep.sim.pairs(j.a, j.b).values, dtype=np.float64)[self.row]
        self.starts = np.r_[0, np.cumsum(self.m)[:-1]].astype(np.int64)

    # --- the Statistic protocol
    @property
    def items(self) -> tuple:
        return self.prep.items

    @property
    def n_items(self) -> int:
        return self.prep.n

    @property
    def n_raters(self) -> int:
        return self.prep.nr

    @property
    def rater_ids(self) -> tuple:
        return self.prep.rater_ids

    @property
    def chance_categories(self) -> int | None:  # type: ignore[override]
        """The estimator's q (AC1, Brennan-Prediger), or None."""
        return self.prep.chance_categories

    @property
    def rating_labels(self) -> tuple:  # type: ignore[override]
        return self.prep.rating_labels

    @property
    def category_weights(self) -> Any:
        """The estimator's named weights over its categories, or None (``Prepared.category_weights``)."""
        return self.prep.category_weights

    @property
    def n_chance_pairs(self) -> int:
        """The judged draws, resampled with ``W`` (multinomial counts over the ``n`` draws)."""
        return self.judged.n

    @property
    def gold(self) -> bool:
        return self.judged.n_gold > 0

    def _weights(self, C: np.ndarray | None) -> tuple[Any, np.ndarray, np.ndarray]:
        """Term weights at the sub-rows and the estimator's own terms for item weights C."""
        if C is None:
            if "tw" not in self._cache:
                self._cache["tw"] = self._at_subrows(term_weights(self.prep, self.judged.a, self.judged.b))
            return self._cache["tw"], np.array([self.pf_o]), np.array([self.pf_e])
        out = evaluate(self.prep, C)
        return self._at_subrows(term_weights(self.prep, self.judged.a, self.judged.b, C)), out["pa"], out["pe"]

    def _at_subrows(self, tw: TermWeights) -> TermWeights:
        """Term weights of the distinct judged pairs, repeated for their sub-rows (a pair's gold and
        non-gold draws are two sub-rows; term_weights itself takes each pair once)."""
        return replace(tw, Wo=tw.Wo[:, self.row], We=tw.We[:, self.row])

    def terms(self, C: np.ndarray | None = None, h: np.ndarray | None = None, row: int = 0) -> PpiTerms:
        """The Hansen-Hurwitz summands of one replicate (``h`` default: the rectified judgments)."""
        tw, _, _ = self._weights(C)
        h = self.h_eff if h is None else h
        wo, we = tw.Wo[row] / self.q, tw.We[row] / self.q
        return PpiTerms(zo=wo * h, go=wo * self.f, ze=we * h, ge=we * self.f, m=self.m, wo_q=wo, we_q=we,
                        h=np.asarray(h, dtype=np.float64), f=self.f)

    def _draw_counts(self, W: Any) -> np.ndarray:
        if W is None:
            return self.m[None, :]
        W = np.atleast_2d(np.asarray(W, dtype=np.float64))
        if W.shape[1] != self.judged.n:
            raise ValueError(f"judged-draw weights must have {self.judged.n} columns; got {W.shape[1]}")
        return np.add.reduceat(W, self.starts, axis=1)

    def values(self, C: Any = None, W: Any = None, *, lam: Any = "tuned", h: np.ndarray | None = None,
               h_tune: np.ndarray | None = None) -> dict[str, np.ndarray]:
        """``{"value", "pa", "pe", "lambda_o", "lambda_e"}`` for item weights C and draw weights W.

        ``lam``: ``"tuned"`` (the read plan's fixed value, else power tuning in every
        replicate) or a number; ``h`` replaces the rectified judgments (e.g. the judge's own,
        for the single-stage estimate).
        """
        Cb = None if C is None else np.atleast_2d(np.asarray(C, dtype=np.float64))
        tw, pf_o, pf_e = self._weights(Cb)
        w = self._draw_counts(W)
        h = self.h_eff if h is None else h
        ht = self.h_tune if h_tune is None else h_tune
        wo, we = tw.Wo / self.q, tw.We / self.q
        zo, go, ze, ge = wo * h, wo * self.f, we * h, we * self.f
        B = max(wo.shape[0], w.shape[0])
        if lam == "tuned" and self.judged.lam is not None:
            lam = self.judged.lam
        if lam == "tuned":
            lo, le = tune_lambda(wo * ht, go, w), tune_lambda(we * ht, ge, w)
        else:
            lo, le = np.full(B, float(lam)), np.full(B, float(lam))
        lo, le = np.broadcast_to(lo, (B,)), np.broadcast_to(le, (B,))
        n = w.sum(axis=-1)
        po = tw.const_o + lo * (pf_o - tw.const_o) + (w * (zo - lo[:, None] * go)).sum(axis=-1) / n
        pe = tw.const_e + le * (pf_e - tw.const_e) + (w * (ze - le[:, None] * ge)).sum(axis=-1) / n
        po, pe = np.broadcast_to(po, (B,)), np.broadcast_to(pe, (B,))
        return {"value": combine_np(po, pe), "pa": po, "pe": pe, "lambda_o": lo, "lambda_e": le}

    def evaluate(self, C: Any = None, V: Any = None, W: Any = None) -> dict[str, np.ndarray]:
        """The prediction-powered coefficient for item weights C and judged-draw weights W."""
        if V is not None:
            raise ValueError("the prediction-powered estimate's pair weights are written in item weights only: "
                             "rater weights cannot be applied")
        out = self.values(C, W)
        return {k: out[k] for k in ("value", "pa", "pe")}

    def delta(self) -> DeltaVariance:
        """Delta-method variance (conditional on the items), with the binomial floor (``floored_delta``)."""
        if "delta" not in self._cache:
            pt = self.values()
            lam = (float(pt["lambda_o"][0]), float(pt["lambda_e"][0]))
            self._cache["delta"] = floored_delta(self.terms(), lam[0], lam[1], float(pt["pa"][0]),
                                                 float(pt["pe"][0]))
        return self._cache["delta"]

    def analytic_variance(self) -> tuple[float, float, list[str], dict[str, Any]]:
        """``(se, df, notes, details)`` of the delta method: the uncertainty layer's ``ci="analytic"``."""
        dv = self.delta()
        notes = []
        if dv.floored:
            notes.append(floor_note(self))
        se = math.sqrt(dv.var) if dv.var >= 0 else math.nan
        return se, dv.df, notes, {"ci_method": "ppi-delta"}


def floor_note(stat: PpiStatistic) -> str:
    """Why the delta-method variance was floored."""
    h = stat.h_eff
    what = ("no judged pair was judged equivalent" if np.all(h == 0) else
            "every judged pair was judged equivalent" if np.all(h == 1) else
            "every judged draw has the same linearised summand")
    return (f"{what} ({stat.judged.n} draws): the judged sample has not seen the mass it estimates and the "
            "delta-method variance is exactly 0, so the interval rests on the pseudo-count floor alone (each "
            "term's equivalent share at (k + 1) / (n + 2)); the judged sample is too small to say much: judge "
            "more pairs")


def _judge_errors(j: Judged) -> dict[str, Any]:
    """The judge's error against the gold judge on the gold draws (weighted by draws, i.e. under q)."""
    sel = (j.m_gold > 0) & np.isfinite(j.g)
    w, h, g = j.m_gold[sel], j.h[sel], j.g[sel]
    pos, neg = g >= 0.5, g < 0.5
    rate = lambda mask, bad: float((w * (mask & bad)).sum() / (w * mask).sum()) if (w * mask).sum() else math.nan  # noqa: E731
    return {
        "n_gold_draws": j.n_gold, "n_gold_pairs": int(sel.sum()),
        "judge_error": float((w * np.abs(g - h)).sum() / w.sum()),
        "false_negative_rate": rate(pos, h < 0.5), "false_positive_rate": rate(neg, h >= 0.5),
        "mean_gold_minus_judge": float((w * (g - h)).sum() / w.sum()),
    }


def ppi_result(result: AgreementResult, prep: Prepared, judgments: Any, judge: Any
               ) -> tuple[AgreementResult, PpiStatistic]:
    """The prediction-powered estimate of ``result``'s coefficient and its prepared statistic.

    ``result`` and ``prep`` are the plain soft coefficient with the cheap estimator; the
    returned result carries the prediction-powered value, its observed/expected terms and
    ``details["ppi"]`` (no interval: the uncertainty layer attaches it from the statistic).

    Parameters
    ----------
    result : AgreementResult
        The soft coefficient computed with the cheap estimator.
    prep : Prepared
        Its prepared statistic (``chance="exact"``).
    judgments : path, DataFrame, JudgingPlan or None
        The judged plan (``read_judgments``); None with ``judge=`` draws a default plan.
    judge : estimator, callable or None
        Scores the planned pairs instead of a ``judgment`` column.

    Returns
    -------
    (AgreementResult, PpiStatistic)

    Examples
    --------
    >>> import pandas as pd
    >>> from softirr_stats.agreement import as_annotations, point_estimate, resolve_similarity
    >>> ann = as_annotations([["a", "b"], ["a", "a"], ["b", "b"], ["c", "a"]])
    >>> sim = resolve_similarity(ann, similarity=np.array([[1, .8, 0], [.8, 1, 0], [0, 0, 1.]]))
    >>> res, prep = point_estimate(ann, family="pooled", coefficient="fleiss_kappa", sim=sim)
    >>> table = pd.DataFrame({"label_a": ["a", "a"], "label_b": ["b", "c"], "q": [0.6, 0.4],
    ...                       "draws": [3, 2], "judgment": [1.0, 0.0]})
    >>> out, stat = ppi_result(res, prep, table, None)
    >>> out.details["ppi"]["n_draws"], bool(stat.evaluate()["value"][0] == out.value)
    (5, True)
    """
    check_family(prep)
    j, notes = judged_rows(prep, result, judgments, judge)
    stat = PpiStatistic(prep, j, result.observed, result.expected)
    pt = stat.values()
    value, po, pe = float(pt["value"][0]), float(pt["pa"][0]), float(pt["pe"][0])
    lam = (float(pt["lambda_o"][0]), float(pt["lambda_e"][0]))
    jo_ = stat.values(lam=0.0)
    jo, je, judge_only = float(jo_["pa"][0]), float(jo_["pe"][0]), float(jo_["value"][0])
    dv = stat.delta()
    var_j = delta_variance(stat.terms(), 0.0, 0.0, jo, je)
    var = dv.raw_var
    n_eff = j.n * var_j / var if var > 0 and math.isfinite(var_j) else math.nan
    warn = list(result.warnings) + notes
    if not math.isfinite(value):
        msg = (f"the prediction-powered {result.coefficient} is undefined: estimated chance agreement "
               f"{pe!r} >= 1")
        warnings.warn(msg, DegenerateWarning, stacklevel=3)
        warn.append(msg)
    elif value > 1.0:
        warn.append(f"the prediction-powered estimate {value:.4g} exceeds 1, the largest value of the coefficient "
                    "computed with the judge: the Hansen-Hurwitz correction is not bounded; report it with its "
                    "interval (which is truncated at 1)")
    if j.n < 30:
        msg = f"only {j.n} judged draws: the delta-method interval may undercover"
        warnings.warn(msg, SoftIRRWarning, stacklevel=3)
        warn.append(msg)
    if dv.floored:
        msg = floor_note(stat)
        warnings.warn(msg, SoftIRRWarning, stacklevel=3)
        warn.append(msg)
    else:
        hits = float((stat.m * (stat.h_eff >= 0.5)).sum())
        if hits < FEW_EQUIVALENT:
            cover, stretch = FEW_EQUIVALENT_COVERAGE[0 if hits < 1 else 1 if hits < 3 else 2]
            msg = (f"only {hits:g} of {j.n} judged draws were judged equivalent: the interval rests on so few "
                   f"equivalent pairs that it undercovers, with the truth above it (in the simulation of "
                   f"docs/ppi.md, 95% intervals with {('no', '1-2', '3-4')[0 if hits < 1 else 1 if hits < 3 else 2]} "
                   f"equivalent judged draws covered about {cover:.0%}; the upper limit would need about "
                   f"{stretch:.2g} times its distance from the estimate to cover 95%); judge more pairs")
            warnings.warn(msg, SoftIRRWarning, stacklevel=3)
            warn.append(msg)
    info: dict[str, Any] = {
        "lambda": {"observed": lam[0], "chance": lam[1]},
        "lambda_fixed": j.lam is not None,
        "n_judged": int(len(j.a)), "n_draws": j.n,
        "effective_sample_size": float(n_eff),
        "judge_only": judge_only, "estimator_only": float(result.value),
        "observed_judge_only": jo, "expected_judge_only": je,
        "se_delta": math.sqrt(dv.var) if dv.var >= 0 else math.nan,
        "se_delta_raw": math.sqrt(var) if var >= 0 else math.nan,
        "variance_floor": float(dv.floor),
        "variance_floored": dv.floored,
        "skewness": dv.skewness,
        "df": float(dv.df),
        "se_judge_only": math.sqrt(var_j) if var_j >= 0 else math.nan,
        "estimand": CONDITIONAL_GOLD if stat.gold else CONDITIONAL,
        "plan_coefficient": j.plan_coefficient,
    }
    if stat.gold:
        single = stat.values(h=stat.h_tune)
        st = PpiStatistic(prep, Judged(j.a, j.b, j.h, j.q, j.m, j.lam, j.plan_coefficient),
                          result.observed, result.expected)
        sdv = st.delta()
        info["gold"] = {**_judge_errors(j), "gold_fraction": stat.pi,
                        "single_stage": float(single["value"][0]),
                        "single_stage_se": math.sqrt(sdv.var) if sdv.var >= 0 else math.nan}
        warn.append(f"estimand: the coefficient computed with the gold judge's judgments ({j.n_gold} of {j.n} "
                    f"judged draws judged again; the judge disagreed with gold on "
                    f"{info['gold']['judge_error']:.1%} of them)")
    else:
        warn.append(JUDGE_ERROR_NOTE)
    out = AgreementResult(**{**{k: getattr(result, k) for k in result.__dataclass_fields__}, "value": value,
                             "observed": po, "expected": pe, "warnings": tuple(warn),
                             "details": {**result.details, "ppi": info}})
    return out, stat


def superpopulation_estimand(gold: bool) -> str:
    """The estimand of an interval that resamples the items.

    Parameters
    ----------
    gold : bool
        Whether a gold subsample was judged (the two-stage estimate).

    Returns
    -------
    str

    Examples
    --------
    >>> superpopulation_estimand(False) == SUPERPOPULATION, superpopulation_estimand(True) == SUPERPOPULATION_GOLD
    (True, True)
    """
    return SUPERPOPULATION_GOLD if gold else SUPERPOPULATION
