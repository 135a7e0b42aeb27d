"""How many items (or judged pairs) a study needs: precision and power planning (docs/planning.md).

The variance of a coefficient estimated on ``n`` items is modelled as

``Var(n, R) = deff * (a + k c / R) / n + b / R``

with ``a`` the per-item variance, ``b`` the between-rater and ``c`` the item x rater components
(``b = c = 0`` unless raters are sampled, ``design="items+raters"``, where ``k = 3``: the two-way
bootstrap's variance, Owen 2007) and ``deff`` a design effect
(``design="cluster"``). The components come from a pilot data set (the linearised per-item terms
of the analytic variance, or bootstrap variances scaled by the pilot's size) or from assumed values
(an enumerated population of rating profiles, :mod:`softirr_stats.planning._population`).

- Precision: the smallest ``n`` with ``q(n) sqrt(Var(n, R)) <= halfwidth``, ``q`` the Student t
  quantile with ``n - 1`` (items) or ``clusters - 1`` degrees of freedom (the analytic interval's),
  the normal quantile for ``items+raters``.
- Power against ``H0: coefficient <= null`` at one-sided level ``alpha``: the Wald test
  (``(estimate - null) / se > t_{1-alpha}``, the SE estimated at the estimate, Student t with the
  interval's df as ``ci="analytic"``'s test): ``n`` with
  ``value - null >= (t_{1-alpha} + t_{power}) sqrt(Var(n, R))``; or the test with the SE
  under H0 (``test="null"``, Cantor 1996, as R ``irr::N.cohen.kappa``):
  ``n = deff ((z_{1-alpha} sigma_0 + z_{power} sigma_1) / (value - null))^2``.
"""

import html
import math
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from softirr_stats.base._validation import SoftIRRWarning, check_choice, check_level

__all__ = ["DESIGNS", "PlanResult", "PlanningWarning", "plan_items"]

DESIGNS = ("items", "items+raters", "cluster")
TESTS = ("wald", "null")
METHODS = ("auto", "analytic", "bootstrap")
DEFAULT_BOOTSTRAP = 2000  # plan_items' bootstrap= and seed= (a pilot's bootstraps)
DEFAULT_SEED = 0
DEFAULT_LEVEL = 0.95
MIN_PILOT = 5  # fewer pilot units than this: no variance to extrapolate
SMALL_PILOT = 30  # fewer than this: a warning on the extrapolation's uncertainty
_ASSUMED_KEYS = {"value", "prevalence", "raters", "categories", "rater_variance"}
_POWER_KEYS = {"null", "power", "alpha", "test", "two_sided"}


class PlanningWarning(SoftIRRWarning):
    """A plan rests on weak ground (a tiny pilot, an assumed component left at zero)."""


@dataclass(frozen=True)
class _Components:
    a: float  # per-item variance (per judged draw for a prediction-powered plan)
    b: float = 0.0  # between-rater component
    c: float = 0.0  # item x rater component
    deff: float = 1.0
    sigma0: float = math.nan  # per-item SD under H0 (assumed values only)
    value: float = math.nan
    raters: int | None = None
    cluster_size: float | None = None

    interaction_factor: float = 1.0  # 3 for the two-way bootstrap (Owen 2007): it counts c three times

    def var(self, n: float, raters: int | None) -> float:
        """``deff (a + k c / R) / n + b / R``; ``raters`` None: raters fixed, no rater terms (b, c)."""
        if raters is None:
            return self.deff * self.a / n
        return self.deff * (self.a + self.interaction_factor * self.c / raters) / n + self.b / raters


@dataclass(frozen=True)
class PlanResult:
    """A sample-size plan: the number of items (or judged pairs) and the grid over targets.

    Attributes
    ----------
    coefficient : str
        The planned coefficient.
    design : str
        ``"items"``, ``"items+raters"`` or ``"cluster"``.
    source : str
        ``"pilot"`` or ``"assumed"``.
    unit : str
        What ``n`` counts: ``"items"`` or ``"judged pairs"`` (prediction-powered plans).
    n : int
        The number that meets every target of the grid (the grid's largest).
    grid : pandas.DataFrame
        One row per target: the target, the planned ``n`` (``n_items``, or ``n_judged``), clusters,
        raters, and the half-width / power the planned ``n`` gives.
    value : float
        The coefficient's value the plan assumes (the assumed value or the pilot's estimate).
    components : dict
        The variance components (``a``, ``b``, ``c``, ``deff``) and how they were obtained.
    notes : tuple of str
        What the plan assumes and its caveats.

    Examples
    --------
    >>> plan = plan_items("krippendorff_alpha", halfwidth=0.1, power=dict(null=0.667),
    ...                   assumed=dict(value=0.8, prevalence=[0.25] * 4, raters=2))
    >>> plan.n_items, plan.grid["target"].tolist()
    (90, ['halfwidth', 'power'])
    """

    coefficient: str
    design: str
    source: str
    unit: str
    n: int
    grid: Any
    value: float
    components: dict = field(default_factory=dict)
    notes: tuple = ()

    @property
    def n_items(self) -> int:
        """Planned items (a prediction-powered plan keeps the pilot's items: their number)."""
        if self.unit == "items":
            return self.n
        return int(self.components.get("pilot_items", 0))

    @property
    def n_judged(self) -> int | None:
        """Planned judged pairs of a prediction-powered plan (None otherwise)."""
        return self.n if self.unit == "judged pairs" else None

    def to_frame(self) -> Any:
        """The grid, one row per target (tidy, unrounded).

        Examples
        --------
        >>> plan = plan_items("cohen_kappa", halfwidth=[0.1, 0.05],
        ...                   assumed=dict(value=0.6, prevalence=[0.5, 0.5]))
        >>> plan.to_frame()["n_items"].tolist()
        [249, 986]
        """
        return self.grid.copy()

    def to_dict(self) -> dict[str, Any]:
        """A summary as plain containers: the plan, its components, notes and grid rows.

        Undefined numbers stay ``nan`` (``json.dumps`` would write ``NaN``, which strict JSON parsers
        refuse); :meth:`to_json` writes them as ``null``.
        """
        return {"coefficient": self.coefficient, "design": self.design, "source": self.source, "unit": self.unit,
                "n": self.n, "value": self.value, "components": dict(self.components), "notes": list(self.notes),
                "grid": self.grid.to_dict(orient="records")}

    def to_json(self, *, indent: int | None = None) -> str:
        """:meth:`to_dict` as strict JSON (``nan`` and infinities as ``null``)."""

        from softirr_stats.base._format import json_text

        return json_text(self.to_dict(), indent=indent)

    def _display(self) -> Any:
        df = self.grid
        keep = [c for c in df.columns if not df[c].isna().all() and c not in ("coefficient", "design", "source")]
        return df[keep].rename(columns=_HEADERS)

    def caption(self) -> str:
        """One sentence on what was planned and from what."""
        src = ("a pilot" if self.source == "pilot" else "assumed values") + f" (value {self.value:.4g})"
        return f"Sample size for {self.coefficient}, design {self.design}, from {src}: {self.n} {self.unit}."

    def to_markdown(self, digits: int = 3) -> str:
        """The grid as a Markdown table for papers, with the caption and notes.

        Examples
        --------
        >>> plan = plan_items("fleiss_kappa", halfwidth=0.1, assumed=dict(value=0.6, prevalence=[0.3, 0.7], raters=3))
        >>> print(plan.to_markdown().splitlines()[0])
        | Target | Value | Half-width | Level | Items | Raters | SE at n | Half-width at n |
        """
        from softirr_stats.reporting import to_markdown

        text = to_markdown(self._display(), digits=digits, caption=self.caption()).rstrip("\n") + "\n"
        if self.notes:
            text += "\nNotes:\n\n" + "\n".join(f"{i}. {t}" for i, t in enumerate(self.notes, 1)) + "\n"
        return text

    def to_latex(self, digits: int = 3, label: str | None = None) -> str:
        """The grid as a booktabs LaTeX table (notes as LaTeX comments)."""
        from softirr_stats.reporting import to_latex

        text = to_latex(self._display(), digits=digits, caption=self.caption(), label=label).rstrip("\n") + "\n"
        return text + "".join(f"% [{i}] {t}\n" for i, t in enumerate(self.notes, 1))

    def _repr_html_(self) -> str:
        """The grid as an HTML table with the caption and notes (notebooks)."""
        df = self._display()
        head = "".join(f"<th>{html.escape(str(c))}</th>" for c in df.columns)
        body = "".join("<tr>" + "".join(f"<td>{html.escape(_fmt(v))}</td>" for v in row) + "</tr>"
                       for row in df.itertuples(index=False))
        foot = "".join(f"<p><small>[{i}] {html.escape(n)}</small></p>" for i, n in enumerate(self.notes, 1))
        return (f"<table><caption>{html.escape(self.caption())}</caption><thead><tr>{head}</tr></thead>"
                f"<tbody>{body}</tbody></table>{foot}")

    def __repr__(self) -> str:
        return (f"PlanResult(coefficient={self.coefficient!r}, design={self.design!r}, source={self.source!r}, "
                f"n={self.n}, unit={self.unit!r}, value={self.value:.6g}, targets={len(self.grid)})")


_HEADERS = {"target": "Target", "value": "Value", "halfwidth": "Half-width", "level": "Level", "null": "Null",
            "power": "Power", "alpha": "Alpha", "test": "Test", "two_sided": "Two-sided", "n_items": "Items",
            "n_judged": "Judged pairs", "n_clusters": "Clusters", "raters": "Raters", "se_at_n": "SE at n",
            "halfwidth_at_n": "Half-width at n", "power_at_n": "Power at n"}


def _fmt(v: Any) -> str:
    if isinstance(v, float):
        return "" if math.isnan(v) else f"{v:.4g}"
    return str(v)


# ---------------------------------------------------------------------------------------------
# argument checks


def _as_list(x: Any, name: str) -> list[float]:
    vals = list(x) if isinstance(x, Sequence | np.ndarray) and not isinstance(x, str) else [x]
    if not vals:
        raise ValueError(f"{name} must not be empty")
    out = []
    for v in vals:
        if isinstance(v, bool) or not isinstance(v, int | float | np.integer | np.floating):
            raise TypeError(f"{name} must be a number or a list of numbers; got {v!r}")
        if not math.isfinite(float(v)):
            raise ValueError(f"{name} must be finite; got {v!r}")
        out.append(float(v))
    return out


def _check_power(power: Any) -> dict[str, Any]:
    if not isinstance(power, dict):
        raise TypeError(f"power must be a dict(null=..., power=0.8, alpha=0.05); got {type(power).__name__}")
    unknown = sorted(set(power) - _POWER_KEYS)
    if unknown:
        raise ValueError(f"power has unknown keys {unknown}; it takes {sorted(_POWER_KEYS)}")
    if "null" not in power:
        raise ValueError("power needs 'null', the coefficient's value under H0: coefficient <= null")
    nulls = _as_list(power["null"], "power['null']")
    targets = _as_list(power.get("power", 0.8), "power['power']")
    for p in targets:
        if not 0.0 < p < 1.0:
            raise ValueError(f"power['power'] must be in (0, 1); got {p!r}")
    alpha = power.get("alpha", 0.05)
    if isinstance(alpha, bool) or not isinstance(alpha, int | float) or not 0.0 < float(alpha) < 1.0:
        raise ValueError(f"power['alpha'] must be in (0, 1); got {alpha!r}")
    test = check_choice("power['test']", power.get("test", "wald"), TESTS)
    two_sided = power.get("two_sided", False)
    if not isinstance(two_sided, bool):
        raise TypeError(f"power['two_sided'] must be True or False; got {two_sided!r}")
    for p in targets:
        if p <= (float(alpha) / (2 if two_sided else 1)):
            raise ValueError(f"power['power'] = {p} must exceed the test's level alpha = {alpha}")
    return {"nulls": nulls, "targets": targets, "alpha": float(alpha), "test": test, "two_sided": two_sided}


def _check_assumed(assumed: Any) -> dict[str, Any]:
    if not isinstance(assumed, dict):
        raise TypeError(f"assumed must be a dict(value=..., prevalence=[...], raters=2); got {type(assumed).__name__}")
    unknown = sorted(set(assumed) - _ASSUMED_KEYS)
    if unknown:
        raise ValueError(f"assumed has unknown keys {unknown}; it takes {sorted(_ASSUMED_KEYS)}")
    for key in ("value", "prevalence"):
        if key not in assumed:
            raise ValueError(f"assumed needs {key!r} (the coefficient's assumed value and the category prevalences)")
    value = assumed["value"]
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(float(value)):
        raise ValueError(f"assumed['value'] must be a finite number; got {value!r}")
    rv = assumed.get("rater_variance", 0.0)
    if isinstance(rv, bool) or not isinstance(rv, int | float) or not float(rv) >= 0:
        raise ValueError(f"assumed['rater_variance'] must be a number >= 0; got {rv!r}")
    return {**assumed, "value": float(value), "raters": assumed.get("raters", 2), "rater_variance": float(rv)}


# ---------------------------------------------------------------------------------------------
# variance components


def _assumed_components(coefficient: str, assumed: dict[str, Any], options: dict[str, Any], design: str,
                        deff: float, raters: int | None, nulls: list[float], test: str) -> tuple[_Components, dict]:
    from softirr_stats.agreement import MonteCarlo, SampledPairs, resolve_chance
    from softirr_stats.api import estimate_point
    from softirr_stats.planning._population import (
        build_population,
        influence_variance,
        solve_agreement,
    )

    if "chance" in options and isinstance(resolve_chance(options["chance"]), MonteCarlo | SampledPairs):
        raise ValueError(_sampled_chance_message(options["chance"]))
    pop = build_population(assumed["prevalence"], raters or assumed["raters"], assumed.get("categories"))
    opts = dict(options)
    if "categories" not in opts:  # declared: the vocabulary (and a K x K similarity) follows their order
        opts["categories"] = list(pop.labels)
    labels = np.asarray(pop.labels, dtype=object)[pop.rows]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the profile table itself is no study: its own warnings do not apply
        _, prep = estimate_point(coefficient, labels.tolist(), **opts)
    if prep.n_chance_pairs:  # chance='auto' chose sampled pairs (a costly scored similarity)
        raise ValueError(_sampled_chance_message(options.get("chance", "auto")))
    value = assumed["value"]
    s1 = solve_agreement(prep, pop, value, coefficient)
    a = influence_variance(prep, pop.probabilities(s1))
    if not a > 1e-14:
        raise ValueError(f"assumed['value'] = {value!r} is the most agreement these prevalences allow for "
                         f"{coefficient}: every item then agrees alike (per-item variance 0), so any number of "
                         "items meets any target and nothing can be planned; assume a value below it (e.g. the "
                         "lower end of what you expect)")
    sigma0 = {}
    if test == "null":
        for n0 in nulls:
            s0 = solve_agreement(prep, pop, n0, coefficient)
            sigma0[n0] = math.sqrt(influence_variance(prep, pop.probabilities(s0)))
    b = assumed["rater_variance"]
    comp = _Components(a=a, b=b, deff=deff, value=value, raters=raters or int(assumed["raters"]))
    info = {"per_item_variance": a, "agreement_parameter": s1, "population": pop.model,
            "profiles": int(len(pop.rows)), "method": "influence (enumerated population)", "sigma0": sigma0,
            "rater_variance": b}
    return comp, info


def _sampled_chance_message(chance: Any) -> str:
    """Why assumed values need the exact chance term, and what to do."""
    return (f"options['chance'] = {chance!r} samples the chance term (Monte Carlo permutations or sampled pairs); "
            "with assumed values the coefficient, its agreement parameter and the per-item variance are computed "
            "on the weighted rating profiles of the population, where a sampled chance term is simulation noise "
            "(the plan would change with the draw, or fail): use chance='exact' (the population's categories make it "
            "cheap), or plan from a pilot data set (pilot=)")


#: how a warning of the pilot's interval opens when it is kept among a plan's notes (``pilot (items): ...``)
_PILOT_SAYS = "pilot ("


def is_plan_warning(note: str) -> bool:
    """Whether a note of :attr:`PlanResult.notes` says the plan may be off: a warning of the pilot's interval passed
    on (``pilot (items): ...``) or the first-order power's shortfall (:data:`WALD_POWER_NOTE`), rather than how the
    plan was computed (the variance it extrapolates, the clusters, an option it did not use). The command line prints
    the first kind as ``warning:`` lines, the second as ``note:``.

    Examples
    --------
    >>> is_plan_warning("pilot (items): 12 items resampled (fewer than 20)")
    True
    >>> is_plan_warning("variance from the pilot's linearised (analytic) terms, extrapolated as variance / n")
    False
    """
    return note.startswith(_PILOT_SAYS) or note == WALD_POWER_NOTE


def _se(coefficient: str, pilot: Any, options: dict[str, Any], ci: Any, notes: list[str]) -> Any:
    from softirr_stats.api import estimate_with_interval

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = estimate_with_interval(coefficient, pilot, ci=ci, **options)
    for w in caught:  # what the pilot's interval says about itself becomes a note of the plan
        notes.append(f"{_PILOT_SAYS}{getattr(ci, 'design', 'analytic')}): {w.message}")
    if not (math.isfinite(res.value) and math.isfinite(res.se)):
        raise ValueError(f"the pilot's {coefficient} or its standard error is undefined (value {res.value!r}, "
                         f"se {res.se!r}): nothing to extrapolate; plan from assumed values instead")
    if res.se <= 0:
        raise ValueError(f"the pilot's {coefficient} has a standard error of 0 (no variation between its items, "
                         "e.g. perfect agreement): nothing to extrapolate; plan from assumed values instead")
    return res


def _pilot_components(coefficient: str, pilot: Any, options: dict[str, Any], design: str, method: str,
                      bootstrap: int, seed: int, cluster: Any, deff: float, raters: int | None,
                      judgments: Any, notes: list[str]) -> tuple[_Components, dict]:
    from softirr_stats.agreement import as_annotations
    from softirr_stats.uncertainty import Analytic, Bootstrap

    ann = as_annotations(pilot, options.get("categories"))
    n0, r0 = int(ann.n_items), int(ann.n_raters)
    if raters is not None and design != "items+raters" and raters != r0:
            raise ValueError(
                f"raters={raters} differs from the pilot's {r0} raters: with design={design!r} the per-item "
                f"variance is the pilot's, measured with its {r0} raters, and cannot be carried to {raters}; "
                f"plan with design='items+raters' (raters sampled: the variance is split by raters), or from "
                f"assumed values (assumed=dict(value=..., prevalence=[...], raters={raters}))")
    if judgments is not None:
        if design != "items":
            raise ValueError("a prediction-powered plan (judgments=) holds the items fixed: use design='items'")
        res = _se(coefficient, ann, {**options, "judgments": judgments}, "analytic", notes)
        ppi = res.details["ppi"]
        draws = int(ppi["n_draws"])
        _check_pilot_size(draws, "judged draws")
        a = res.se**2 * draws
        judge_only = float(ppi.get("se_judge_only", math.nan)) ** 2 * draws
        comp = _Components(a=a, value=float(res.value))
        return comp, {"per_draw_variance": a, "per_draw_variance_judge_only": judge_only, "pilot_draws": draws,
                      "pilot_items": n0, "method": "prediction-powered delta method (pilot judgments)",
                      "pilot_se": float(res.se)}
    if design == "cluster" and cluster is None:  # clustering assumed (design_effect / icc): the items' variance
        design = "items"
    if method == "auto":
        method = "analytic" if design == "items" else "bootstrap"
        if method == "analytic":
            from softirr_stats.api import estimate_point

            _, prep = estimate_point(coefficient, ann, **options)
            if not prep.supports_analytic or prep.family.terms is None:
                method = "bootstrap"
    if method == "analytic":
        if design != "items":
            raise ValueError(f"method='analytic' plans design='items' only; design={design!r} needs the bootstrap")
        res = _se(coefficient, ann, options, Analytic(form="raw"), notes)
        m = int(res.details["analytic_df"]) + 1  # units in the variance sum
        _check_pilot_size(m, "items")
        a = res.se**2 * m
        return _Components(a=a, deff=deff, value=float(res.value)), {
            "per_item_variance": a, "pilot_items": m, "pilot_raters": r0, "method": "linearised (analytic) terms",
            "pilot_se": float(res.se)}
    _check_pilot_size(n0, "items")
    boot = dict(n=bootstrap, seed=seed)
    if design == "items":
        res = _se(coefficient, ann, options, Bootstrap(design="items", **boot), notes)
        a = res.se**2 * n0
        return _Components(a=a, deff=deff, value=float(res.value)), {
            "per_item_variance": a, "pilot_items": n0, "pilot_raters": r0, "method": f"item bootstrap (B={bootstrap})",
            "pilot_se": float(res.se)}
    if design == "cluster":
        res = _se(coefficient, ann, options, Bootstrap(design="cluster", cluster=cluster, **boot), notes)
        ids = [cluster[i] for i in ann.items] if isinstance(cluster, dict) else list(cluster)  # checked above
        n_clusters = len(set(ids))
        _check_pilot_size(n_clusters, "clusters")
        a = res.se**2 * n0  # per item, with the pilot's clustering (its design effect included)
        return _Components(a=a, value=float(res.value), cluster_size=n0 / n_clusters), {
            "per_item_variance": a, "pilot_items": n0, "pilot_clusters": n_clusters, "pilot_raters": r0,
            "method": f"cluster bootstrap (B={bootstrap})", "pilot_se": float(res.se)}
    # items+raters: the item, rater and two-way bootstraps' variances are (a + c/R)/n, (b + c/n)/R and
    # a/n + b/R + 3c/(nR) (Owen 2007's pigeonhole bootstrap counts the item x rater term c three times)
    if r0 < 3:
        raise ValueError(f"design='items+raters' from a pilot needs at least 3 raters to see rater variation; "
                         f"the pilot has {r0}")
    v_i = _se(coefficient, ann, options, Bootstrap(design="items", **boot), notes)
    v_r = _se(coefficient, ann, options, Bootstrap(design="raters", **boot), notes)
    v_ir = _se(coefficient, ann, options, Bootstrap(design="items+raters", **boot), notes)
    vi, vr, vir = v_i.se**2, v_r.se**2, v_ir.se**2
    c = max(0.0, vir - vi - vr) * n0 * r0
    a = max(0.0, n0 * vi - c / r0)
    b = max(0.0, r0 * vr - c / n0)
    return _Components(a=a, b=b, c=c, value=float(v_i.value), raters=raters or r0, interaction_factor=3.0), {
        "per_item_variance": a, "rater_variance": b, "interaction_variance": c, "pilot_items": n0, "pilot_raters": r0,
        "method": f"item, rater and two-way bootstraps (B={bootstrap} each)",
        "pilot_se": {"items": v_i.se, "raters": v_r.se, "items+raters": v_ir.se}}


def _check_pilot_size(m: int, what: str) -> None:
    if m < MIN_PILOT:
        raise ValueError(f"the pilot has {m} {what}; at least {MIN_PILOT} are needed to extrapolate a variance")
    if m < SMALL_PILOT:
        rel = math.sqrt(2.0 / (m - 1))
        warnings.warn(f"extrapolating from a pilot of {m} {what}: its variance has a relative standard error of about "
                      f"{rel:.0%}, so the planned number is uncertain by about +-{min(2 * rel, 1):.0%}",
                      PlanningWarning, stacklevel=4)


# ---------------------------------------------------------------------------------------------
# solving for n


def _quantile(p: float, df: float | None) -> float:
    """The p-quantile of Student's t with ``df`` degrees of freedom (the normal's when ``df`` is None)."""
    from scipy.special import ndtri, stdtrit

    return float(ndtri(p)) if df is None or not math.isfinite(df) else float(stdtrit(df, p))


def _df(n: int, comp: _Components, design: str) -> float | None:
    """Degrees of freedom of the planned interval and test: items - 1, clusters - 1; None (normal) with raters."""
    if design == "items+raters":
        return None
    if design == "cluster" and comp.cluster_size:
        return max(1.0, math.ceil(n / comp.cluster_size) - 1.0)
    return max(1.0, n - 1.0)


def _solve(comp: _Components, raters: int | None, target: float, q_of: Callable[[float | None], float],
           design: str, what: str) -> int:
    """Smallest n >= 2 with ``q_of(df(n)) * sqrt(Var(n)) <= target``."""
    floor = comp.b / raters if raters is not None else 0.0  # the between-rater term, with raters sampled only
    z = q_of(None)
    if z * z * floor >= target**2:
        need = math.floor(z * z * comp.b / target**2) + 1  # the fewest raters whose floor is below the target
        raise ValueError(f"{what} cannot be reached with {raters} raters: the between-rater variance alone gives "
                         f"{z * math.sqrt(floor):.4g} on the target's scale; plan at least {need} raters (raters=)")

    def reached(n: int) -> bool:  # q * SE falls with n (the variance and the quantile both fall)
        return q_of(_df(n, comp, design)) * math.sqrt(comp.var(n, raters)) <= target

    slope = comp.deff * (comp.a + (comp.interaction_factor * comp.c / raters if raters is not None else 0.0))
    guess = max(2, math.ceil(z * z * slope / (target**2 - z * z * floor) - 1e-9))  # the normal quantile's n
    if reached(2):
        return 2
    lo, hi = 2, guess  # reached(lo) is False
    while not reached(hi):  # the t quantile with few (cluster) degrees of freedom needs more
        lo, hi = hi, 2 * hi
    while hi - lo > 1:  # the smallest n that reaches the target, lo < n <= hi
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if reached(mid) else (mid, hi)
    return hi


def _power_at(comp: _Components, n: int, raters: int | None, null: float, alpha: float, test: str,
              sigma0: float, design: str) -> float:
    """Power of the planned test at ``n`` (Wald: Student t with the design's df, as ``ci="analytic"``'s test)."""
    from scipy.special import ndtr, ndtri, stdtr

    delta = comp.value - null
    if test == "null":
        z_a = float(ndtri(1.0 - alpha))
        s1 = math.sqrt(comp.deff * comp.a)
        return float(ndtr((delta * math.sqrt(n) - z_a * sigma0 * math.sqrt(comp.deff)) / s1))
    df = _df(n, comp, design)
    x = delta / math.sqrt(comp.var(n, raters)) - _quantile(1.0 - alpha, df)
    return float(ndtr(x)) if df is None else float(stdtr(df, x))


# ---------------------------------------------------------------------------------------------
# the public function


def plan_items(coefficient: str = "fleiss_kappa", *, halfwidth: Any = None, power: dict | None = None,
               pilot: Any = None, assumed: dict | None = None, design: str = "items", level: float | None = None,
               similarity: Any = None, options: dict | None = None, raters: int | None = None,
               design_effect: float | None = None, cluster_size: float | None = None, icc: float | None = None,
               cluster: Any = None, judgments: Any = None, method: str = "auto", bootstrap: int | None = None,
               seed: int | None = None) -> PlanResult:
    """How many items a reliability study needs for a target interval half-width or power.

    Parameters
    ----------
    coefficient : str
        Any coefficient of the registry (``softirr_stats.agreement.COEFFICIENTS``), hard or soft.
    halfwidth : float or sequence of float, optional
        Target half-width of the ``level`` interval (``t * SE``).
    power : dict, optional
        ``dict(null=kappa0, power=0.8, alpha=0.05, test="wald" | "null", two_sided=False)``: the
        items for the given power of the one-sided test of ``H0: coefficient <= null`` when the
        coefficient has the assumed (or pilot) value. ``null`` and ``power`` may be lists (a grid).
        ``test="wald"`` uses the SE at the estimate (as ``ci="analytic"``); ``test="null"`` the SE
        under H0 (Cantor 1996, R ``irr::N.cohen.kappa``; assumed values only).
    pilot : Annotations or wide table, optional
        A pilot data set: its per-item variance is extrapolated as ``variance / n``.
    assumed : dict, optional
        ``dict(value=0.6, prevalence=[...], raters=2, categories=None, rater_variance=0)``: the
        coefficient's value, the category prevalences (one list, or one per rater for two raters)
        and the number of raters; the per-item variance is that of the population of rating
        profiles with these values (docs/planning.md). Give exactly one of ``pilot`` / ``assumed``.
        ``rater_variance`` (the between-rater variance ``b``) needs ``design="items+raters"``; the
        value must lie between chance agreement and the most the prevalences allow, and the chance
        term must be exact (no ``chance="mc:D"`` or ``"sampled:N"``).
    design : {"items", "items+raters", "cluster"}
        ``items+raters``: raters are a sample too (a pilot's rater and two-way bootstraps, or
        ``assumed['rater_variance']``); ``cluster``: items come in clusters (a pilot's ``cluster=``,
        or ``design_effect`` / ``cluster_size`` and ``icc``).
    level : float, optional
        Confidence level of the interval whose half-width is planned (default 0.95; refused without
        ``halfwidth``).
    similarity : optional
        As for the coefficient (soft agreement); with ``assumed``, a K x K matrix is indexed like
        ``assumed['categories']``.
    options : dict, optional
        Other keyword options of the coefficient (``weights``, ``level``, ``chance``, ``categories``).
    raters : int, optional
        Raters of the planned study (default: the pilot's or the assumed number). With assumed
        values the population is that of ``raters`` raters; from a pilot another number than the
        pilot's needs ``design="items+raters"`` (the per-item variance was measured with the
        pilot's raters).
    design_effect, cluster_size, icc : float, optional
        The variance inflation of clustered items: ``design_effect``, or ``1 + (cluster_size - 1) * icc``
        (``design="cluster"`` only; not ``design_effect`` with ``icc``).
    cluster : mapping or sequence, optional
        Each pilot item's cluster (``design="cluster"`` from a pilot: a cluster bootstrap).
    judgments : DataFrame or path, optional
        Judged pairs of the pilot's judging plan: plan the number of judged pairs of a
        prediction-powered estimate instead of items (the items held fixed).
    method : {"auto", "analytic", "bootstrap"}
        How a pilot's variance is estimated (``auto``: the linearised terms where the coefficient
        has them and ``design="items"``, else the bootstrap).
    bootstrap : int, optional
        Replicates of each pilot bootstrap (default 2000; refused where nothing is resampled:
        ``assumed``, ``judgments``, ``method="analytic"``).
    seed : int, optional
        Seed of the pilot bootstraps (default 0; refused likewise).

    Returns
    -------
    PlanResult
        ``.n_items`` (or ``.n_judged``), ``.grid`` / ``.to_frame()``, ``.to_markdown()``, ``.to_latex()``.

    Raises
    ------
    ValueError
        For impossible targets (``halfwidth <= 0``, ``power`` outside (0, 1), ``null`` at or above
        the assumed value), an assumed value the population model cannot give, a pilot too small,
        or an option the plan would not use (nothing given is silently ignored).

    Examples
    --------
    Cantor (1996), as R ``irr::N.cohen.kappa(0.4, 0.5, 0.8, 0.7)``: raters with 40% and 50%
    positives, kappa 0.8 against H0: kappa <= 0.7, 80% power at one-sided 5%:

    >>> plan = plan_items("cohen_kappa", assumed=dict(value=0.8, prevalence=[[0.4, 0.6], [0.5, 0.5]]),
    ...                   power=dict(null=0.7, test="null"))
    >>> plan.n_items
    271

    Items for a 95% interval of half-width 0.1 around Fleiss' kappa 0.6, three raters:

    >>> plan_items("fleiss_kappa", halfwidth=0.1,
    ...            assumed=dict(value=0.6, prevalence=[0.3, 0.7], raters=3)).n_items
    177
    """
    from softirr_stats.agreement import get_coefficient

    coef = get_coefficient(coefficient)
    name = coef.name
    check_choice("design", design, DESIGNS)
    check_choice("method", method, METHODS)
    if (pilot is None) == (assumed is None):
        raise ValueError("give exactly one of pilot= (a pilot data set) or assumed= (dict(value=..., prevalence=...))")
    if method != "auto" and (assumed is not None or judgments is not None):  # nothing given is silently ignored
        raise ValueError(f"method={method!r} is how a pilot's variance is estimated; "
                         + ("assumed= plans from the assumed population's variance" if assumed is not None else
                            "judgments= plans from the delta-method variance of the pilot's judgments")
                         + ": leave method at 'auto'")
    if halfwidth is None and power is None:
        raise ValueError("give a target: halfwidth= (interval half-width) and/or power=dict(null=..., power=0.8)")
    _check_unused(assumed=assumed, judgments=judgments, method=method, bootstrap=bootstrap, seed=seed,
                  halfwidth=halfwidth, level=level, design=design, design_effect=design_effect, icc=icc,
                  cluster_size=cluster_size, cluster=cluster)
    given_resampling = _resampling_given(bootstrap, seed)
    level = check_level(DEFAULT_LEVEL if level is None else level)
    bootstrap = DEFAULT_BOOTSTRAP if bootstrap is None else bootstrap
    seed = DEFAULT_SEED if seed is None else seed
    widths = _as_list(halfwidth, "halfwidth") if halfwidth is not None else []
    for h in widths:
        if h <= 0:
            raise ValueError(f"halfwidth must be > 0; got {h!r}")
    pw = _check_power(power) if power is not None else None
    if raters is not None and (isinstance(raters, bool) or not isinstance(raters, int | np.integer) or raters < 2):
        raise ValueError(f"raters must be an integer >= 2; got {raters!r}")
    deff = 1.0
    if design_effect is not None or icc is not None:
        if design_effect is not None:
            deff = float(design_effect)
            if not deff > 0 or not math.isfinite(deff):
                raise ValueError(f"design_effect must be a positive number; got {design_effect!r}")
        else:
            if cluster_size is None or not float(cluster_size) >= 1:
                raise ValueError(f"icc= needs cluster_size= (items per cluster, >= 1); got {cluster_size!r}")
            if not -1.0 <= float(icc) <= 1.0:
                raise ValueError(f"icc must be in [-1, 1]; got {icc!r}")
            deff = 1.0 + (float(cluster_size) - 1.0) * float(icc)
            if deff <= 0:
                raise ValueError(f"design effect 1 + (cluster_size - 1) * icc = {deff:.4g} must be > 0")
    elif design == "cluster" and cluster is None:
        raise ValueError("design='cluster' needs design_effect=, cluster_size= and icc=, or (with a pilot) cluster=")
    if cluster is not None and assumed is not None:
        raise ValueError("cluster= maps a pilot's items to clusters; with assumed values give design_effect= or icc=")
    if cluster_size is not None and not float(cluster_size) >= 1:
        raise ValueError(f"cluster_size must be >= 1; got {cluster_size!r}")
    opts = dict(options or {})
    if similarity is not None:
        if "similarity" in opts:
            raise ValueError("give similarity= or options['similarity'], not both (one would be dropped)")
        opts["similarity"] = similarity
    if "ci" in opts:
        raise ValueError("options must not contain 'ci': the plan sets the interval itself")
    notes: list[str] = []
    if assumed is not None:
        if judgments is not None:
            raise ValueError("judgments= plans judged pairs from a pilot's judgments; give pilot=")
        av = _check_assumed(assumed)
        if "rater_variance" in assumed and not _design_record(design).resamples_raters:
            raise ValueError(f"assumed['rater_variance'] is the between-rater variance b of a study whose raters are "
                             f"sampled (its term b / R, design='items+raters'); design={design!r} keeps the raters "
                             "fixed and has no rater term: plan design='items+raters' or leave out "
                             "assumed['rater_variance']")
        if coef.raters == "two" and (raters or av["raters"]) != 2:
            given = "raters" if raters else "assumed['raters']"
            raise ValueError(f"{name} is for two raters; got {given} = {raters or av['raters']!r}")
        comp, info = _assumed_components(name, av, opts, design, deff, raters,
                                         pw["nulls"] if pw else [], pw["test"] if pw else "wald")
        source = "assumed"
        if design == "items+raters" and av["rater_variance"] == 0:
            notes.append("the assumed raters are exchangeable: sampling raters adds no variance beyond the items "
                         "unless assumed['rater_variance'] says how much the coefficient varies between raters")
    else:
        if pw is not None and pw["test"] == "null":
            raise ValueError("power['test']='null' needs the variance under H0, which a pilot does not give: "
                             "use test='wald' or assumed values (assumed=dict(value=..., prevalence=[...]))")
        said: list[str] = []  # what the pilot's intervals say about themselves
        comp, info = _pilot_components(name, pilot, opts, design, method, bootstrap, seed, cluster, deff, raters,
                                       judgments, said)
        if method == "auto" and info["method"].startswith("linearised") and given_resampling:
            notes.append(f"{' and '.join(given_resampling)} unused: method='auto' took the "
                         f"linearised terms of the analytic SE ({name} has them with design='items'), which resample "
                         "nothing; give method='bootstrap' for the pilot's item bootstrap")
        notes.extend(dict.fromkeys(said))
        source = "pilot"
    if cluster_size is not None and comp.cluster_size is None:
        comp = _Components(**{**comp.__dict__, "cluster_size": float(cluster_size)})
    plan_raters = comp.raters if design == "items+raters" else None
    unit = "judged pairs" if judgments is not None else "items"
    rows = []
    p_ci = 0.5 + level / 2.0
    for h in widths:
        n = _solve(comp, plan_raters, h, lambda df: _quantile(p_ci, df), design, f"halfwidth {h}")
        q = _quantile(p_ci, _df(n, comp, design))
        rows.append(_row("halfwidth", n, comp, plan_raters, design, halfwidth=h, level=level,
                         halfwidth_at_n=q * math.sqrt(comp.var(n, plan_raters))))
    if pw is not None:
        alpha = pw["alpha"] / (2 if pw["two_sided"] else 1)
        for null in pw["nulls"]:
            if not null < comp.value:
                what = "assumed value" if source == "assumed" else "pilot's estimate"
                raise ValueError(f"power['null'] = {null!r} must be below the {what} {comp.value:.6g}: "
                                 "the test of H0: coefficient <= null has no power otherwise")
            for target in pw["targets"]:
                n = _power_n(comp, plan_raters, null, target, alpha, pw["test"], design, info)
                sigma0 = info.get("sigma0", {}).get(null, math.nan)
                rows.append(_row("power", n, comp, plan_raters, design, null=null, power=target,
                                 alpha=pw["alpha"], test=pw["test"], two_sided=pw["two_sided"],
                                 power_at_n=_power_at(comp, n, plan_raters, null, alpha, pw["test"], sigma0,
                                                      design)))
    import pandas as pd

    grid = pd.DataFrame(rows)
    study_raters = comp.raters or info.get("pilot_raters")  # the planned study's raters, in every design
    grid["raters"] = pd.array([study_raters] * len(grid), dtype="Int64")
    grid.insert(0, "coefficient", name)
    grid.insert(1, "design", design)
    grid.insert(2, "source", source)
    if unit != "items":
        grid = grid.rename(columns={"n_items": "n_judged"})
    components = {"a": comp.a, "b": comp.b, "c": comp.c, "deff": comp.deff, **info}
    if design == "cluster" and comp.cluster_size is None:
        notes.append("cluster_size not given: the number of clusters is not planned (n_clusters empty) and the "
                     "interval uses n_items - 1 degrees of freedom")
    if unit == "judged pairs":
        notes.append("prediction-powered plan: the items (and the cheap estimator's scores) stay those of the pilot; "
                     "the judged pairs are drawn with the pilot's judging plan (estimand: this study's coefficient)")
    notes.append(_variance_note(source, info))
    if pw is not None and pw["test"] == "wald":
        notes.append(WALD_POWER_NOTE)
    n_col = "n_judged" if unit != "items" else "n_items"
    return PlanResult(name, design, source, unit, int(grid[n_col].max()), grid, float(comp.value), components,
                      tuple(notes))


#: The power plan's caveat (docs/planning.md, "Validation"; benchmarks/plan_validation.csv): the shortfall it states
#: is the largest simulated one of an ``items`` cell, rounded up.
WALD_POWER_NOTE = ("power is first-order: in simulation (docs/planning.md) the Wald test's power at the planned n was "
                   "up to 6 points below the target with items sampled (5.9 with prevalences 0.1 / 0.9 at 174 items; "
                   "still 4.3 at 308 items: with a skewed prevalence the shortfall does not go away at a few hundred "
                   "items) and up to 5 with clusters (the estimate is biased down and its SE is larger when the "
                   "estimate is smaller); plan a margin of about 5 points of power (e.g. plan for 0.85 to get 0.8)")


def _design_record(design: str) -> Any:
    """The bootstrap design record named like the plan's design (what it resamples)."""
    from softirr_stats.uncertainty import BOOTSTRAP_DESIGNS

    return BOOTSTRAP_DESIGNS[design]


def _resampling_given(bootstrap: Any, seed: Any) -> list[str]:
    """``bootstrap=`` / ``seed=`` where given (not None), as ``name=value``."""
    return [f"{k}={v!r}" for k, v in (("bootstrap", bootstrap), ("seed", seed)) if v is not None]


def _check_unused(*, assumed: Any, judgments: Any, method: str, bootstrap: Any, seed: Any, halfwidth: Any,
                  level: float | None, design: str, design_effect: Any, icc: Any, cluster_size: Any, cluster: Any) -> None:
    """Options the plan would not use, refused with the reason (nothing given is silently ignored)."""
    given = _resampling_given(bootstrap, seed)
    why = ("assumed= plans from the assumed population's variance, with nothing resampled" if assumed is not None
           else "judgments= plans from the delta-method variance of the pilot's judgments, with nothing resampled"
           if judgments is not None else
           "method='analytic' takes the linearised terms of the analytic SE, with nothing resampled"
           if method == "analytic" else "")
    if given and why:
        raise ValueError(f"{' and '.join(given)} set{'s' if len(given) == 1 else ''} the pilot's bootstraps; {why}: "
                         f"leave {'it' if len(given) == 1 else 'them'} out")
    if halfwidth is None and level is not None:
        raise ValueError(f"level={level!r} is the level of the interval whose half-width is planned; a power plan "
                         "alone (no halfwidth=) has no interval: leave out level= or add halfwidth=")
    clustered = {k: v for k, v in (("design_effect", design_effect), ("icc", icc), ("cluster_size", cluster_size),
                                   ("cluster", cluster)) if v is not None}
    if clustered and not _design_record(design).resamples_clusters:
        raise ValueError(f"{' and '.join(k + '=' for k in clustered)} appl{'ies' if len(clustered) == 1 else 'y'} to "
                         f"design='cluster' (clustered items); got design={design!r}")
    if design_effect is not None and icc is not None:
        raise ValueError("give design_effect=, or cluster_size= and icc= (which give the design effect), not both: "
                         "one of them would go unused")
    if cluster is not None and (design_effect is not None or icc is not None or cluster_size is not None):
        raise ValueError("cluster= measures the pilot's clustering (a cluster bootstrap, the clusters planned at the "
                         "pilot's mean cluster size); design_effect=, icc= and cluster_size= assume one: give "
                         "cluster= or those, not both")


def _variance_note(source: str, info: dict[str, Any]) -> str:
    if source == "assumed":
        return (f"per-item variance {info['per_item_variance']:.4g} from the {info['population']} population of "
                f"{info['profiles']} rating profiles with the assumed value and prevalences")
    return f"variance from the pilot's {info['method']}, extrapolated as variance / n"


def _power_n(comp: _Components, raters: int | None, null: float, target: float, alpha: float, test: str,
             design: str, info: dict[str, Any]) -> int:
    from scipy.special import ndtri

    z_a, z_b = float(ndtri(1.0 - alpha)), float(ndtri(target))
    delta = comp.value - null
    if test == "null":
        if design == "items+raters":
            raise ValueError("power['test']='null' has no rater term: design='items+raters' needs test='wald'")
        s0 = info["sigma0"][null]
        s1 = math.sqrt(comp.a)
        return max(2, math.ceil(comp.deff * ((z_a * s0 + z_b * s1) / delta) ** 2 - 1e-9))
    return _solve(comp, raters, delta, lambda df: _quantile(1.0 - alpha, df) + _quantile(target, df), design,
                  f"power {target} against null {null}")


def _row(target: str, n: int, comp: _Components, raters: int | None, design: str, **extra: Any) -> dict[str, Any]:
    row: dict[str, Any] = {"target": target, "value": comp.value, "halfwidth": math.nan, "level": math.nan,
                           "null": math.nan, "power": math.nan, "alpha": math.nan, "test": None,
                           "n_items": int(n), "n_clusters": (int(math.ceil(n / comp.cluster_size))
                                                             if design == "cluster" and comp.cluster_size else None),
                           "raters": raters, "se_at_n": math.sqrt(comp.var(n, raters)),
                           "halfwidth_at_n": math.nan, "power_at_n": math.nan}
    row.update(extra)
    return row
