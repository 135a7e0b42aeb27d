"""Judging plans: which label pairs a trusted judge should score, drawn with known probabilities.

``judging_plan`` draws ``n`` label pairs i.i.d. from a design ``q`` over the distinct label pairs
a soft coefficient weighs (identical pairs score 1 and are never drawn); one judged set serves
the observed and the chance term. ``uniform``: ``q`` proportional to ``|dk/dP_o| W_o + |dk/dP_e| W_e``
(the coefficient's own pair weights, each term scaled by its influence on the coefficient).
``active``: the same weights times ``sqrt(f (1 - f))`` (the predicted standard deviation of a
binary judgment given the estimator's score ``f``), mixed with the uniform design so that
``1 / q`` stays bounded (Zrnic & Candes 2024). Each distinct pair appears once in the plan,
with the number of times it was drawn.
"""

import hashlib
import json
import math
import numbers
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from softirr_stats.agreement import (
    COEFFICIENTS,
    Prepared,
    as_annotations,
    point_estimate,
    resolve_similarity,
)
from softirr_stats.base._csvsafe import escape_columns, quoting_for, unescape_columns
from softirr_stats.base._validation import (
    check_choice,
    check_positive_int,
    check_seed,
    label_file_lines,
    row_name,
)
from softirr_stats.ppi._ppi_terms import (
    all_distinct_pairs,
    chance_components,
    check_family,
    design_codes,
    judged_weights,
    observed_factor,
    term_weights,
)

__all__ = ["COEFFICIENT_FAMILIES", "JUDGED_COEFFICIENTS", "JudgingPlan", "judging_plan", "plan_from_prepared", "read_judgments",
           "label_text", "label_codes", "PLAN_COLUMNS", "DESIGN_COLUMNS", "design_labels"]



class _JudgedView(Mapping):
    """A live view of the coefficient registry: every coefficient that takes ``judgments=`` (and its weighted
    name), mapped through ``value``. Read at each use, so a coefficient registered after this module was
    imported is in it (the registry is the one table).

    Examples
    --------
    >>> "fleiss_kappa" in COEFFICIENT_FAMILIES and COEFFICIENT_FAMILIES["fleiss_kappa"] == "pooled"
    True
    """

    def __init__(self, value: Callable[[Any], Any]) -> None:
        self._value = value

    def _table(self) -> dict[str, Any]:
        table = {name: c for name, c in COEFFICIENTS.items() if c.judgments}
        table.update({c.weighted_name: c for c in COEFFICIENTS.values() if c.judgments and c.weighted_name})
        return {name: self._value(c) for name, c in table.items()}

    def __getitem__(self, name: str) -> Any:
        return self._table()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._table())

    def __len__(self) -> int:
        return len(self._table())

    def __repr__(self) -> str:
        return repr(self._table())


JUDGED_COEFFICIENTS: Mapping[str, Any] = _JudgedView(lambda c: c)  # name -> its registry record
COEFFICIENT_FAMILIES: Mapping[str, str] = _JudgedView(lambda c: c.family.name)  # name -> its chance family
STRATEGIES = ("uniform", "active")
#: The share of the uniform design mixed into ``strategy="active"`` when ``uniform_share`` is not given.
ACTIVE_UNIFORM_SHARE = 0.2
#: The data a plan was drawn on, in every row: how many labels its design draws pairs among, and a digest of them
#: (the judged estimate checks them against the data it is given: ``plan_mismatch``)
DESIGN_COLUMNS = ["design_labels", "design_digest"]
PLAN_COLUMNS = ["label_a", "label_b", "score", "q", "terms", "draws", "coefficient", *DESIGN_COLUMNS]


def label_text(x: Any) -> str:
    """How a label is written in a plan's CSV (sets as sorted ``a | b``).

    >>> label_text(frozenset({"b", "a"})), label_text(3)
    ('a | b', '3')
    """
    if isinstance(x, frozenset):
        return " | ".join(sorted(str(e) for e in x))
    return str(x)


def label_codes(vocabulary: Sequence[Any], values: Sequence[Any]) -> np.ndarray:
    """Vocabulary codes of plan or sheet labels: the labels themselves, else their CSV text; -1 if unknown.

    >>> label_codes(("a", frozenset({"b", "c"})), ["a", "b | c", "z"]).tolist()
    [0, 1, -1]
    """
    vocab = np.empty(len(vocabulary), dtype=object)
    vocab[:] = list(vocabulary)
    vals = np.empty(len(values), dtype=object)
    vals[:] = list(values)
    try:
        out = pd.Index(vocab).get_indexer(vals).astype(np.int64)  # the labels themselves
    except TypeError:  # an unhashable value: matched by its text only
        out = np.full(len(vals), -1, dtype=np.int64)
    miss = out < 0
    if miss.any():  # as read back from a CSV: compare the written text
        text = pd.Index([label_text(v) for v in vocab])
        if not text.is_unique:
            raise ValueError("two labels of the vocabulary are written alike in a CSV (e.g. 1 and '1'); "
                             "pass the plan's DataFrame with the labels themselves")
        out[miss] = text.get_indexer([label_text(v) for v in vals[miss]])
    return out


def design_labels(prep: Prepared) -> tuple[int, str]:
    """How many labels a judging design for ``prep`` draws pairs among, and a digest of them (their CSV text).

    Every pair of these labels (a Cohen / Conger pair: used by two different raters) has a positive
    draw probability; a pair with a label outside them has none. The digest tells two label sets
    apart without listing them in every row of the plan.

    Examples
    --------
    >>> from softirr_stats.agreement import as_annotations, prepare
    >>> from softirr_stats.equivalence import ExactMatchSimilarity
    >>> prep = prepare(as_annotations([["a", "b"], ["a", "c"]]), "pooled", ExactMatchSimilarity(3))
    >>> design_labels(prep)
    (3, 'd33b202c020cbde1')
    """
    vocab = np.empty(len(prep.ann.vocabulary), dtype=object)
    vocab[:] = list(prep.ann.vocabulary)
    text = sorted(label_text(v) for v in vocab[design_codes(prep)])
    return len(text), hashlib.sha256(json.dumps(text).encode()).hexdigest()[:16]


@dataclass(frozen=True)
class JudgingPlan:
    """Label pairs to judge, one row per distinct pair.

    ``pairs`` columns: ``label_a``, ``label_b``, ``score`` (the cheap estimator), ``q`` (the
    probability of drawing the pair in one draw), ``terms`` (``observed``, ``chance`` or
    ``observed+chance``: which terms of the coefficient weigh the pair), ``draws`` (how many of
    the ``n`` draws fell on it), ``coefficient``, and ``design_labels`` / ``design_digest`` (how
    many labels the design drew pairs among, and a digest of them: judgments applied to data
    with other labels are refused, as their new pairs had no draw probability).

    Attributes
    ----------
    pairs : DataFrame
        One row per distinct label pair (columns above).
    n : int
        Number of draws.
    coefficient, strategy : str
        The coefficient the plan serves and how pairs were drawn.
    seed : int
        Seed of the draws.
    codes : tuple of ndarray
        Vocabulary codes of ``label_a`` and ``label_b``.

    Examples
    --------
    >>> import softirr_stats as sis
    >>> ann = [["fever", "pyrexia"], ["cough", "cough"], ["rash", "fever"], ["cough", "tussis"]]
    >>> plan = sis.judging_plan(ann, similarity="indel", n=20, seed=0)
    >>> type(plan).__name__, plan.n, plan.coefficient
    ('JudgingPlan', 20, 'fleiss_kappa')
    """

    pairs: pd.DataFrame
    n: int
    coefficient: str
    strategy: str
    seed: int
    codes: tuple[np.ndarray, np.ndarray] = field(repr=False, compare=False, default=(np.empty(0), np.empty(0)))

    def to_csv(self, path: str | Path) -> Path:
        """Write the plan with an empty ``judgment`` column to fill in (values in [0, 1])."""
        out = self.pairs.copy()
        out["label_a"] = [label_text(v) for v in out["label_a"]]
        out["label_b"] = [label_text(v) for v in out["label_b"]]
        out["judgment"] = np.nan
        if "gold_draws" in out.columns:  # the gold judge fills "gold" on the rows with gold draws
            out["gold"] = np.nan
        path = Path(path)
        # a label a spreadsheet would evaluate ("=cmd|...") begins with "'"; read_judgments removes it
        quoting = quoting_for([*out["label_a"], *out["label_b"]])  # a carriage return in a label: all quoted
        escape_columns(out, _LABEL_COLUMNS).to_csv(path, index=False, float_format="%.17g", quoting=quoting)
        return path

    def __len__(self) -> int:
        return len(self.pairs)

    def __repr__(self) -> str:
        return (f"JudgingPlan({self.coefficient}, strategy={self.strategy!r}, n={self.n} draws, "
                f"{len(self.pairs)} distinct pairs, seed={self.seed})")


def _mix(po: float, pe: float) -> tuple[float, float]:
    """Term scales ``|dk/dP_o|, |dk/dP_e|`` relative to the observed one (floored at 0.05)."""
    if not (math.isfinite(po) and math.isfinite(pe)) or pe >= 1.0:
        return 1.0, 1.0
    return 1.0, max((1.0 - po) / (1.0 - pe), 0.05)


def _inverse_cdf(p: np.ndarray, u: np.ndarray) -> np.ndarray:
    c = np.cumsum(p)
    return np.minimum(np.searchsorted(c, u * c[-1], side="right"), len(p) - 1)


def _draw_chance(prep: Prepared, size: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """``size`` ordered distinct pairs drawn with probability proportional to the chance weights."""
    X, Y = chance_components(prep)
    p_j = 1.0 - np.sum(X * Y, axis=1)  # each component's chance of a distinct pair
    out_a, out_b, have = [], [], 0
    while have < size:  # rejection of identical pairs: a few rounds at most
        m = int(1.2 * (size - have)) + 16
        j = _inverse_cdf(p_j, rng.random(m))
        a = np.empty(m, dtype=np.int64)
        b = np.empty(m, dtype=np.int64)
        for comp in np.unique(j):  # components: one, or ordered rater pairs (Conger)
            sel = j == comp
            a[sel] = _inverse_cdf(X[comp], rng.random(sel.sum()))
            b[sel] = _inverse_cdf(Y[comp], rng.random(sel.sum()))
        keep = a != b
        out_a.append(a[keep])
        out_b.append(b[keep])
        have += int(keep.sum())
    return np.concatenate(out_a)[:size], np.concatenate(out_b)[:size]


def _draw_observed(prep: Prepared, size: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Within-item pairs with distinct labels, drawn with probability proportional to their weight."""
    d = prep.layout
    fac = observed_factor(prep)  # only items with 2+ ratings have pairs
    distinct = np.flatnonzero(d.pair_ca != d.pair_cb)
    pick = distinct[_inverse_cdf(fac[d.pair_item[distinct]], rng.random(size))]
    return d.pair_ca[pick].astype(np.int64), d.pair_cb[pick].astype(np.int64)


def _uniform_draws(prep: Prepared, n: int, mix: tuple[float, float], rng: np.random.Generator
                   ) -> tuple[np.ndarray, np.ndarray]:
    tw = _masses(prep)
    mo, me = mix[0] * tw.mass_o[0], mix[1] * tw.mass_e[0]
    n_o = int(rng.binomial(n, mo / (mo + me))) if mo + me > 0 else 0
    ao, bo = _draw_observed(prep, n_o, rng) if n_o else (np.empty(0, np.int64), np.empty(0, np.int64))
    ae, be = _draw_chance(prep, n - n_o, rng)
    a, b = np.concatenate([ao, ae]), np.concatenate([bo, be])
    order = rng.permutation(n)
    return a[order], b[order]


def _masses(prep: Prepared) -> Any:
    cached = prep.__dict__.get("_ppi_masses")
    if cached is None:
        cached = prep.__dict__["_ppi_masses"] = term_weights(prep, np.empty(0, np.int64), np.empty(0, np.int64))
    return cached


def _uniform_q(tw: Any, mix: tuple[float, float]) -> np.ndarray:
    """The uniform design's probability of each distinct unordered pair."""
    return (mix[0] * tw.Wo[0] + mix[1] * tw.We[0]) / (mix[0] * tw.mass_o[0] + mix[1] * tw.mass_e[0])


def _uniform_share(strategy: str, uniform_share: float | None) -> float:
    """The share of the uniform design in the ``active`` one; a share given with ``strategy="uniform"`` is refused.

    >>> _uniform_share("active", None), _uniform_share("active", 0.5)
    (0.2, 0.5)
    >>> _uniform_share("uniform", 0.5)
    Traceback (most recent call last):
    ...
    ValueError: uniform_share=0.5 mixes the uniform design into strategy="active"; with strategy="uniform" every draw is uniform already: give strategy="active" or leave out uniform_share
    """
    if uniform_share is None:
        return ACTIVE_UNIFORM_SHARE
    if strategy != "active":
        raise ValueError(f"uniform_share={uniform_share!r} mixes the uniform design into strategy=\"active\"; with "
                         "strategy=\"uniform\" every draw is uniform already: give strategy=\"active\" or leave "
                         "out uniform_share")
    if isinstance(uniform_share, bool) or not isinstance(uniform_share, numbers.Real) \
            or not 0.0 < float(uniform_share) <= 1.0:
        raise ValueError(f"uniform_share must be a number in (0, 1]; got {uniform_share!r}")
    return float(uniform_share)


def plan_from_prepared(prep: Prepared, coefficient: str, po: float, pe: float, *, n: int, strategy: str,
                       seed: int, uniform_share: float | None = None, gold_n: int | None = None) -> JudgingPlan:
    """Draw a judging plan for a prepared coefficient whose estimator terms are ``(po, pe)``.

    ``uniform_share``: as for ``judging_plan`` (None: ``ACTIVE_UNIFORM_SHARE`` for ``active``).
    """
    check_family(prep)
    check_positive_int(n, "n")
    seed = check_seed(seed)
    if gold_n is not None:
        check_positive_int(gold_n, "gold_n")
        if gold_n > n:
            raise ValueError(f"gold_n must be at most n (the gold draws are a subsample of the judged draws); "
                             f"got gold_n={gold_n}, n={n}")
    check_choice("strategy", strategy, STRATEGIES)
    uniform_share = _uniform_share(strategy, uniform_share)
    if not judged_weights(prep.family).categories and len(np.unique(prep.layout.rating_code)) < 2:
        raise ValueError("every rating uses the same label: there is no label pair to judge")
    mix = _mix(po, pe)
    rng = np.random.default_rng(seed)
    k = prep.layout.n_codes
    if strategy == "uniform":
        a, b = _uniform_draws(prep, n, mix, rng)
        keys = np.minimum(a, b) * k + np.maximum(a, b)
        uniq, counts = np.unique(keys, return_counts=True)
        ua, ub = uniq // k, uniq % k
        tw = term_weights(prep, ua, ub)
        q = _uniform_q(tw, mix)
    else:
        ca, cb = all_distinct_pairs(prep)
        tw = term_weights(prep, ca, cb)
        base = mix[0] * tw.Wo[0] + mix[1] * tw.We[0]
        keep = base > 0
        ca, cb, base = ca[keep], cb[keep], base[keep]
        f = prep.sim.pairs(ca, cb).values
        act = base * np.sqrt(np.clip(f * (1.0 - f), 0.0, None))
        q_all = base / base.sum()
        if act.sum() > 0:
            q_all = (1.0 - uniform_share) * act / act.sum() + uniform_share * q_all
        idx = _inverse_cdf(q_all, rng.random(n))
        uniq, counts = np.unique(idx, return_counts=True)
        ua, ub, q = ca[uniq], cb[uniq], q_all[uniq]
        tw = term_weights(prep, ua, ub)
    served = np.where(tw.Wo[0] > 0, "observed", "")
    served = np.where(tw.We[0] > 0, np.char.add(served, np.where(tw.Wo[0] > 0, "+chance", "chance")), served)
    vocab = np.empty(k, dtype=object)
    vocab[:] = list(prep.ann.vocabulary)
    pairs = pd.DataFrame({
        "label_a": vocab[ua], "label_b": vocab[ub], "score": prep.sim.pairs(ua, ub).values, "q": q,
        "terms": served, "draws": counts.astype(np.int64), "coefficient": coefficient,
        **dict(zip(DESIGN_COLUMNS, design_labels(prep), strict=True)),
    })
    if gold_n is not None:  # a simple random subsample of the draws, judged again by the gold judge
        draw_row = np.repeat(np.arange(len(counts)), counts)
        pick = np.random.default_rng([int(seed), 1]).choice(int(n), size=int(gold_n), replace=False)
        pairs["gold_draws"] = np.bincount(draw_row[pick], minlength=len(counts)).astype(np.int64)
    return JudgingPlan(pairs=pairs, n=int(n), coefficient=coefficient, strategy=strategy, seed=int(seed),
                       codes=(ua, ub))


def judging_plan(ann: Any, *, similarity: Any, n: int = 200, coefficient: str = "fleiss_kappa",
                 strategy: str = "uniform", seed: int = 0, categories: Any = None, weights: Any = None,
                 uniform_share: float | None = None, gold_n: int | None = None) -> JudgingPlan:
    """Draw the label pairs a trusted judge should score, with known probabilities.

    Parameters
    ----------
    ann : Annotations or wide table
    similarity : the cheap equivalence estimator (scored on every pair the coefficient needs)
    n : int
        Number of i.i.d. draws (the judging budget; a pair drawn twice is judged once).
    coefficient : str
        The coefficient the judgments will serve: ``cohen_kappa``, ``scott_pi``,
        ``fleiss_kappa``, ``conger_kappa``, ``krippendorff_alpha``, ``gwet_ac1`` or
        ``brennan_prediger``.
    strategy : {"uniform", "active"}
        ``uniform`` draws pairs in proportion to the coefficient's pair weights; ``active``
        also in proportion to ``sqrt(f (1 - f))``, mixed with uniform (``uniform_share``).
    seed : int
        The same seed gives the same plan.
    categories, weights
        As for the coefficient functions.
    uniform_share : float in (0, 1], optional
        ``strategy="active"`` only: the share of the uniform design mixed into the active one
        (None: 0.2; 1 draws with the uniform design's probabilities). Refused with
        ``strategy="uniform"``, whose draws are all uniform (it would change nothing).
    gold_n : int, optional
        Two-stage design: a simple random subsample of ``gold_n`` of the ``n`` draws is judged
        again by a gold judge (an expert, or a second judge). The plan gets a ``gold_draws``
        column (the row's draws in the subsample; a row with ``gold_draws > 0`` needs a gold
        judgment) and its CSV a ``gold`` column to fill in. The prediction-powered estimate
        then targets the gold judge's coefficient (estimator -> judge -> gold) and reports the
        judge's error rate on the gold draws.

    Returns
    -------
    JudgingPlan
        ``.pairs`` (DataFrame) and ``.to_csv(path)``.

    Examples
    --------
    >>> import softirr_stats as sis
    >>> ann = [["fever", "pyrexia"], ["cough", "cough"], ["rash", "fever"], ["cough", "tussis"]]
    >>> plan = judging_plan(ann, similarity="indel", n=20, seed=0)
    >>> list(plan.pairs.columns)
    ['label_a', 'label_b', 'score', 'q', 'terms', 'draws', 'coefficient', 'design_labels', 'design_digest']
    >>> int(plan.pairs["draws"].sum())
    20
    """
    check_choice("coefficient", coefficient, COEFFICIENT_FAMILIES)
    ann = as_annotations(ann, categories)
    family = COEFFICIENT_FAMILIES[coefficient]
    JUDGED_COEFFICIENTS[coefficient].check_raters(ann)
    sim = resolve_similarity(ann, similarity=similarity, weights=weights)
    with warnings.catch_warnings():  # the plan only needs the estimator's terms; the coefficient call warns
        warnings.simplefilter("ignore")
        result, prep = point_estimate(ann, family=family, coefficient=coefficient, sim=sim, chance="exact")
    return plan_from_prepared(prep, coefficient, result.observed, result.expected, n=n, strategy=strategy,
                              seed=seed, uniform_share=uniform_share, gold_n=gold_n)


_LABEL_COLUMNS = ("label_a", "label_b")


def _frame(source: Any) -> pd.DataFrame:
    if isinstance(source, JudgingPlan):
        return source.pairs.copy()
    if isinstance(source, pd.DataFrame):
        return source.copy()
    if isinstance(source, str | Path):
        df = pd.read_csv(source, dtype={"label_a": str, "label_b": str, "design_digest": str}, keep_default_na=False,
                         na_values={"judgment": [""], "q": [""], "score": [""], "draws": [""], "gold": [""],
                                    "gold_draws": [""]})
        label_file_lines(df, source)  # bad rows are named by their line in the file
        return unescape_columns(df, _LABEL_COLUMNS)  # written by JudgingPlan.to_csv: spreadsheet-safe
    raise TypeError(f"judgments must be a path to a plan CSV, a DataFrame or a JudgingPlan; "
                    f"got {type(source).__name__}")


def _read_gold(df: pd.DataFrame, require_judgment: bool) -> None:
    """Check (in place) the gold stage's columns: ``gold_draws`` in 0..draws, ``gold`` in [0, 1] where drawn."""
    if "gold" not in df.columns and "gold_draws" not in df.columns:
        return
    if "gold" in df.columns:
        df["gold"] = pd.to_numeric(df["gold"], errors="coerce")
    if "gold_draws" not in df.columns:
        df["gold_draws"] = np.where(np.isfinite(df["gold"].to_numpy(dtype=float)), df["draws"], 0)
    gd = pd.to_numeric(df["gold_draws"], errors="coerce").to_numpy(dtype=float)
    bad = ~np.isfinite(gd) | (gd < 0) | (gd != np.round(gd)) | (gd > df["draws"].to_numpy(dtype=float))
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        raise ValueError(f"judgments column 'gold_draws' must hold integers from 0 to the row's draws; "
                         f"{row_name(df.index, row)} has {df['gold_draws'].to_numpy(dtype=object)[row]!r}")
    df["gold_draws"] = gd.astype(np.int64)
    if not require_judgment or not (gd > 0).any():
        return
    if "gold" not in df.columns:
        raise ValueError("judgments have gold_draws but no 'gold' column: the gold judge's judgments of the rows "
                         "with gold_draws > 0 are missing")
    g = df["gold"].to_numpy(dtype=float)
    need = gd > 0
    bad = need & ~(np.isfinite(g) & (g >= 0) & (g <= 1))
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        raise ValueError(f"gold must lie in [0, 1] on every row with gold_draws > 0; {row_name(df.index, row)} "
                         f"({df['label_a'].iloc[row]!r}, {df['label_b'].iloc[row]!r}) has "
                         f"{df['gold'].to_numpy(dtype=object)[row]!r}")


def _refuse_repeated_pairs(df: pd.DataFrame) -> None:
    """A plan lists each label pair once (its ``draws`` count the repeats): a pair on two rows, in either order,
    would be counted twice in the estimate's sums, so it is refused, naming both rows."""
    def key(a: Any, b: Any) -> tuple[str, str]:
        x, y = repr(a), repr(b)
        return (x, y) if x <= y else (y, x)

    keys = pd.Series([key(a, b) for a, b in zip(df["label_a"], df["label_b"], strict=True)], index=df.index)
    dup = keys.duplicated(keep=False).to_numpy()
    if dup.any():
        rows = np.flatnonzero(dup)
        first = rows[keys.iloc[rows] == keys.iloc[rows[0]]]
        one, two = row_name(df.index, int(first[0])), row_name(df.index, int(first[1]))
        where = f"{one} and {two}" if one != two else f"rows {int(first[0])} and {int(first[1])} (by position)"
        raise ValueError(f"judgments {where} judge "
                         f"the same pair ({df['label_a'].iloc[first[0]]!r}, {df['label_b'].iloc[first[0]]!r}): a "
                         "plan lists each pair once, with its number of draws in 'draws'; a repeated row would be "
                         "counted twice (merge the rows, adding their draws)")


def read_judgments(source: Any, *, lam: float | None = None, require_judgment: bool = True) -> pd.DataFrame:
    """Read a judged plan: the plan's CSV (or DataFrame) with a ``judgment`` column in [0, 1].

    A two-stage plan (``judging_plan(gold_n=...)``) also has ``gold_draws`` and a ``gold``
    column: the gold judge's judgment in [0, 1] on every row with ``gold_draws > 0``. A
    ``gold`` column without ``gold_draws`` marks every draw of a row with a gold judgment as a
    gold draw; those rows must then be a random subsample of the judged draws.

    Parameters
    ----------
    source : path, DataFrame or JudgingPlan
    lam : float in [0, 1], optional
        Fix the power-tuning weight of both terms (0 = judge-only estimate, 1 = plain
        difference estimator); by default it is estimated from the judged draws.
    require_judgment : bool
        False accepts a plan without judgments (the library then scores it with ``judge=``).

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"label_a": ["fever"], "label_b": ["pyrexia"], "q": [0.5], "judgment": [1.0]})
    >>> read_judgments(df)["draws"].tolist()
    [1]
    """
    df = _frame(source)
    need = ["label_a", "label_b", "q"] + (["judgment"] if require_judgment else [])
    missing = [c for c in need if c not in df.columns]
    if missing and {"pair_id", "label_1", "label_2"} <= set(df.columns):  # the blinded sheet of `judge plan`
        where = ""
        if isinstance(source, str | Path):
            plan = Path(source).with_name(f"{Path(source).stem}.plan{Path(source).suffix or '.csv'}")
            where = f" ({plan}, {'found' if plan.exists() else 'not found'})"
        raise ValueError("this is a blinded judging sheet (pair_id, label_1, label_2, judgment): its q and scores are "
                         f"in the plan file written beside it{where}; read the two together with "
                         "softirr_stats.analysis.read_judging_sheet(sheet) (or read_judging_sheet(sheet, plan=...))")
    if missing:
        raise ValueError(f"judgments need columns {need}; missing {missing} (got columns {list(df.columns)})")
    if len(df) == 0:
        raise ValueError("judgments have no rows: judge the pairs of a judging plan (softirr_stats.judging_plan)")
    _refuse_repeated_pairs(df)
    if "draws" not in df.columns:
        df["draws"] = 1
    for col in ("q", "draws") + (("judgment",) if "judgment" in df.columns else ()):
        vals = pd.to_numeric(df[col], errors="coerce")
        if require_judgment or col != "judgment":
            bad = ~np.isfinite(vals.to_numpy(dtype=float))
            if bad.any():
                row = int(np.flatnonzero(bad)[0])
                raise ValueError(f"judgments column {col!r} must be numeric with no missing values; "
                                 f"{row_name(df.index, row)} has {df[col].to_numpy(dtype=object)[row]!r}")
        df[col] = vals
    q = df["q"].to_numpy(dtype=float)
    if ((q <= 0) | (q > 1)).any():
        row = int(np.flatnonzero((q <= 0) | (q > 1))[0])
        raise ValueError(f"judgments column 'q' must lie in (0, 1]; {row_name(df.index, row)} has {q[row].item()!r}")
    dr = df["draws"].to_numpy(dtype=float)
    if ((dr < 1) | (dr != np.round(dr))).any():
        row = int(np.flatnonzero((dr < 1) | (dr != np.round(dr)))[0])
        raise ValueError(f"judgments column 'draws' must hold positive integers; {row_name(df.index, row)} has "
                         f"{dr[row].item()!r}")
    df["draws"] = dr.astype(np.int64)
    if "judgment" in df.columns and require_judgment:
        h = df["judgment"].to_numpy(dtype=float)
        out = (h < 0) | (h > 1)
        if out.any():
            row = int(np.flatnonzero(out)[0])
            raise ValueError(f"judgment must lie in [0, 1] (a probability that the labels are equivalent); "
                             f"{row_name(df.index, row)} ({df['label_a'].iloc[row]!r}, {df['label_b'].iloc[row]!r}) "
                             f"has {h[row].item()!r}")
    _read_gold(df, require_judgment)
    if lam is not None and not (isinstance(lam, int | float) and 0.0 <= float(lam) <= 1.0):
        raise ValueError(f"lam must be a number in [0, 1] or None (estimated); got {lam!r}")
    df.attrs["lambda"] = None if lam is None else float(lam)
    return df
