"""Prediction-powered soft agreement: the estimate from judged pairs and its intervals.

Two estimands. *Conditional on the items*: this study's coefficient computed with the judge
``h``; the only randomness is which pairs were judged, so the delta method over the draws'
covariance (``ci="analytic"``) or a bootstrap of the draws (``Bootstrap(design="judged")``)
gives the interval. *Items as a sample*: the coefficient of the population the items were
drawn from; each replicate reweights the items (the item, cluster or Bayesian bootstrap's
weights), which changes the pair weights ``W_o, W_e``, and independently resamples the
draws; the Hansen-Hurwitz form keeps the original design ``q`` because ``q`` produced the
draws (``Bootstrap(design="items" | "cluster" | "bayesian")``).
"""

import math
import warnings
from dataclasses import replace
from typing import Any

import numpy as np
import pandas as pd

from softirr_stats._validation import SoftIRRWarning
from softirr_stats.agreement import AgreementResult
from softirr_stats.agreement._evaluator import DegenerateWarning, Prepared, evaluate
from softirr_stats.agreement._judging import (
    COEFFICIENT_FAMILIES,
    label_text,
    plan_from_prepared,
    read_judgments,
)
from softirr_stats.agreement._ppi_terms import (
    PpiTerms,
    check_family,
    combine_np,
    delta_influence,
    delta_variance,
    effective_df,
    ppi_estimate,
    ppi_terms,
    term_weights,
    tune_lambda,
)
from softirr_stats.uncertainty._analytic import Analytic
from softirr_stats.uncertainty._bootstrap import (
    Bootstrap,
    draw_weights,
    leave_one_out_weights,
    summarize_replicates,
)

__all__ = ["apply_ppi", "PPI_DEFAULT_DRAWS", "Judged", "judged_rows", "delta_critical_value"]

PPI_DEFAULT_DRAWS = 200
CONDITIONAL = "conditional on the items: this study's coefficient computed with the judge"
SUPERPOPULATION = "items as a sample: the population coefficient computed with the judge"


class Judged:
    """Judged rows mapped to vocabulary codes: pairs (a, b), judgments h, design q, draws m."""

    def __init__(self, a: np.ndarray, b: np.ndarray, h: np.ndarray, q: np.ndarray, m: np.ndarray,
                 lam: float | None, plan_coefficient: str | None) -> None:
        self.a, self.b, self.h, self.q, self.m = a, b, h, q, m.astype(np.float64)
        self.lam, self.plan_coefficient = lam, plan_coefficient

    @property
    def n(self) -> int:
        return int(self.m.sum())


def _codes(vocabulary: tuple, values: pd.Series, column: str) -> np.ndarray:
    """Vocabulary codes of plan labels (the labels themselves, or their CSV text)."""
    vocab = np.empty(len(vocabulary), dtype=object)
    vocab[:] = list(vocabulary)
    vals = np.empty(len(values), dtype=object)
    vals[:] = values.tolist()
    out = pd.Index(vocab).get_indexer(vals).astype(np.int64)  # the labels themselves
    miss = out < 0
    if miss.any():  # as read back from a CSV: compare the written text
        text = pd.Index([label_text(v) for v in vocab])
        if not text.is_unique:
            raise ValueError("two labels of the vocabulary are written alike in a CSV (e.g. 1 and '1'); "
                             "pass the plan's DataFrame with the labels themselves")
        out[miss] = text.get_indexer([label_text(v) for v in vals[miss]])
    if (out < 0).any():
        unknown = vals[out < 0].tolist()
        raise ValueError(f"judgments column {column!r} has labels that are not in the annotations' vocabulary: "
                         f"{unknown[:5]!r}{' ...' if len(unknown) > 5 else ''} (was the plan drawn from other data?)")
    return out


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
        table = judgments if isinstance(judgments, pd.DataFrame) and "lambda" in judgments.attrs else None
        if table is None or judge is not None:
            table = read_judgments(judgments, require_judgment=judge is None,
                                   lam=table.attrs.get("lambda") if table is not None else None)
    if judge is not None and "judgment" in table.columns and table["judgment"].notna().any():
        raise ValueError("give judgments with a 'judgment' column, or judge= to score the plan, not both")
    a = _codes(prep.ann.vocabulary, table["label_a"], "label_a")
    b = _codes(prep.ann.vocabulary, table["label_b"], "label_b")
    same = a == b
    if same.any():
        row = int(np.flatnonzero(same)[0])
        raise ValueError(f"judgments row {row} pairs the label {table['label_a'].iloc[row]!r} with itself; "
                         "identical labels score 1 and are never judged")
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
        fam = COEFFICIENT_FAMILIES.get(plan_coef)
        if fam is not None and fam != prep.family.name:
            msg = (f"the judging plan was drawn for {plan_coef}; {result.coefficient} weighs label pairs "
                   "differently, so q may be 0 where it needs pairs: draw a plan for this coefficient")
            warnings.warn(msg, SoftIRRWarning, stacklevel=4)
            notes.append(msg)
    lam = table.attrs.get("lambda")
    return Judged(a, b, h, table["q"].to_numpy(dtype=np.float64), table["draws"].to_numpy(dtype=np.float64),
                  lam, plan_coef), notes


def _lambdas(t: PpiTerms, w: np.ndarray, fixed: float | None) -> tuple[np.ndarray, np.ndarray]:
    if fixed is not None:
        shape = w.shape[:-1]
        return np.full(shape, fixed), np.full(shape, fixed)
    return tune_lambda(t.zo, t.go, w), tune_lambda(t.ze, t.ge, w)


def delta_critical_value(level: float, df: Any) -> Any:
    """Two-sided critical value of the delta-method interval: Student-t with ``df`` degrees of freedom.

    ``df`` is :func:`softirr_stats.agreement._ppi_terms.effective_df` of the judged draws (``n - 1``
    shrunk by the kurtosis of the summands); the normal quantile where ``df`` is infinite or
    nan. The one place where the prediction-powered interval's width multiplier is set; an
    array of ``df`` gives an array.

    Examples
    --------
    >>> round(delta_critical_value(0.95, float("inf")), 3), round(delta_critical_value(0.95, 10.0), 3)
    (1.96, 2.228)
    """
    from scipy.special import ndtri, stdtrit

    p = 0.5 + level / 2.0
    d = np.asarray(df, dtype=np.float64)
    ok = np.isfinite(d)
    out = np.where(ok, stdtrit(np.where(ok, d, 1.0), p), ndtri(p))
    return float(out) if out.ndim == 0 else out


def _draws_replicates(t: PpiTerms, j: Judged, cfg: Bootstrap, pf: tuple[float, float],
                      const: tuple[float, float]) -> np.ndarray:
    """Bootstrap of the judged draws (multinomial counts over rows), lambda re-tuned in each."""
    rng = np.random.default_rng(cfg.seed)
    W = rng.multinomial(j.n, j.m / j.n, size=cfg.n).astype(np.float64)
    lo, le = _lambdas(t, W, j.lam)
    po, pe = ppi_estimate(t, W, lo, le, pf[0], pf[1], const[0], const[1])
    return combine_np(po, pe)


def _draws_jackknife(t: PpiTerms, j: Judged, lam: tuple[float, float], pf: tuple[float, float],
                     const: tuple[float, float]) -> np.ndarray:
    W = j.m[None, :] - np.eye(len(j.m))
    po, pe = ppi_estimate(t, W, lam[0], lam[1], pf[0], pf[1], const[0], const[1])
    return np.repeat(combine_np(po, pe), j.m.astype(np.int64))


def _item_values(prep: Prepared, j: Judged, C: np.ndarray, W: np.ndarray, lam: tuple[float, float],
                 f: np.ndarray) -> np.ndarray:
    """Coefficient for item weights C (B, n) and draw counts W (B, J), the design q kept."""
    pf = evaluate(prep, C)
    tw = term_weights(prep, j.a, j.b, C)
    t = PpiTerms(zo=tw.Wo * j.h / j.q, go=tw.Wo * f / j.q, ze=tw.We * j.h / j.q, ge=tw.We * f / j.q, m=j.m)
    po, pe = ppi_estimate(t, W, lam[0], lam[1], pf["pa"], pf["pe"], tw.const_o, tw.const_e)
    return combine_np(po, pe)


def _item_replicates(prep: Prepared, j: Judged, cfg: Bootstrap, lam: tuple[float, float], f: np.ndarray) -> np.ndarray:
    rng = np.random.default_rng([cfg.seed, 7])  # the draws' stream, independent of the item weights
    chunk = int(min(cfg.n, max(16, 2**24 // max(prep.n + 4 * len(j.a) + 8 * prep.design.n_codes, 1))))
    parts = []
    for b0 in range(0, cfg.n, chunk):  # chunks of replicates bound memory
        b1 = min(cfg.n, b0 + chunk)
        C, _, _ = draw_weights(prep, cfg, b0, b1)
        W = rng.multinomial(j.n, j.m / j.n, size=b1 - b0).astype(np.float64)
        parts.append(_item_values(prep, j, np.asarray(C, dtype=np.float64), W, lam, f))
    return np.concatenate(parts)


def _item_jackknife(prep: Prepared, j: Judged, cfg: Bootstrap, lam: tuple[float, float], f: np.ndarray) -> np.ndarray:
    blocks = leave_one_out_weights(cfg, prep.ann.items, prep.n, prep.nr)
    return np.concatenate([_item_values(prep, j, np.asarray(C), np.broadcast_to(j.m, (len(C), len(j.m))), lam, f)
                           for C, _ in blocks])


def apply_ppi(result: AgreementResult, prep: Prepared, judgments: Any, judge: Any, ci: Any) -> AgreementResult:
    """The prediction-powered estimate of ``result``'s coefficient computed with the judge.

    ``result`` and ``prep`` are the plain soft coefficient with the cheap estimator; the
    returned result carries the prediction-powered value, its observed/expected terms and
    ``details["ppi"]``. ``ci``: None, ``"analytic"`` / ``Analytic`` (delta method, conditional
    on the items), ``Bootstrap(design="judged")`` (bootstrap of the judged draws, conditional)
    or ``Bootstrap(design="items" | "cluster" | "bayesian")`` (items as a sample).
    """
    check_family(prep)
    if isinstance(ci, Bootstrap) and ci.design in ("raters", "items+raters"):
        raise ValueError(f"judgments= supports Bootstrap(design='judged' | 'items' | 'cluster' | 'bayesian'); "
                         f"got design={ci.design!r}")
    j, notes = judged_rows(prep, result, judgments, judge)
    f = prep.sim.pairs(j.a, j.b).values
    tw = term_weights(prep, j.a, j.b)
    t = ppi_terms(tw, j.h, f, j.q, j.m)
    const = (float(tw.const_o[0]), float(tw.const_e[0]))
    pf = (result.observed, result.expected)
    lo_, le_ = _lambdas(t, j.m, j.lam)
    lam = (float(lo_), float(le_))
    po, pe = (float(x) for x in ppi_estimate(t, j.m, lam[0], lam[1], pf[0], pf[1], const[0], const[1]))
    value = float(combine_np(po, pe))
    jo, je = (float(x) for x in ppi_estimate(t, j.m, 0.0, 0.0, pf[0], pf[1], const[0], const[1]))
    judge_only = float(combine_np(jo, je))
    var = delta_variance(t, lam[0], lam[1], po, pe)
    var_j = delta_variance(t, 0.0, 0.0, jo, je)
    n_eff = j.n * var_j / var if var > 0 and math.isfinite(var_j) else math.nan
    df = effective_df(delta_influence(t, lam[0], lam[1], po, pe), j.m) if j.n >= 2 else math.nan
    warn = list(result.warnings) + notes
    if not math.isfinite(value):
        msg = (f"the prediction-powered {result.coefficient} is undefined: estimated chance agreement "
               f"{pe!r} >= 1")
        warnings.warn(msg, DegenerateWarning, stacklevel=3)
        warn.append(msg)
    if j.n < 30:
        msg = f"only {j.n} judged draws: the delta-method interval may undercover"
        warnings.warn(msg, SoftIRRWarning, stacklevel=3)
        warn.append(msg)
    info: dict[str, Any] = {
        "lambda": {"observed": lam[0], "chance": lam[1]},
        "lambda_fixed": j.lam is not None,
        "n_judged": int(len(j.a)), "n_draws": j.n,
        "effective_sample_size": float(n_eff),
        "judge_only": judge_only, "estimator_only": float(result.value),
        "observed_judge_only": jo, "expected_judge_only": je,
        "se_delta": math.sqrt(var) if var >= 0 else math.nan,
        "df": float(df),
        "se_judge_only": math.sqrt(var_j) if var_j >= 0 else math.nan,
        "estimand": CONDITIONAL, "plan_coefficient": j.plan_coefficient,
    }
    out = replace(result, value=value, observed=po, expected=pe, warnings=tuple(warn),
                  details={**result.details, "ppi": info})
    if ci is None:
        return out
    if isinstance(ci, Analytic) or (isinstance(ci, str) and ci == "analytic"):
        level = ci.level if isinstance(ci, Analytic) else 0.95
        se = info["se_delta"]
        z = delta_critical_value(level, df)
        return out.with_interval(value - z * se, value + z * se, se, level, "ppi-delta")
    if not isinstance(ci, Bootstrap):
        raise ValueError(f"ci must be None, 'analytic', softirr_stats.Analytic(...) or softirr_stats.Bootstrap(...); "
                         f"got {ci!r}")
    if ci.design == "judged":
        reps = _draws_replicates(t, j, ci, pf, const)
        res = summarize_replicates(out, reps, ci, lambda: _draws_jackknife(t, j, lam, pf, const))
        return res
    reps = _item_replicates(prep, j, ci, lam, f)
    res = summarize_replicates(out, reps, ci, lambda: _item_jackknife(prep, j, ci, lam, f))
    res.details["ppi"] = {**info, "estimand": SUPERPOPULATION}
    return res
