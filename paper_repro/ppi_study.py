"""Validation study of prediction-powered soft agreement on the seed paper's populations.

``python -m paper_repro ppi --out DIR [--quick | --smoke]`` writes ``DIR/ppi_results.csv``
(one row per simulated study), ``DIR/ppi_summary.csv`` (one row per condition x estimator x
budget x design) and figures.

A simulated study is one single-label population (two raters, ``items`` items, a target
agreement level, one of the four negative conditions) plus one judging plan drawn from it:
the cheap estimator (``indel``, ``exact``, ``embedding``) is scored on every pair; the concept
oracle (``h = 1`` when two surface forms name one concept) judges the planned pairs. The
target is Cohen's kappa computed with the oracle on these items (the conditional estimand);
its intervals are the delta-method intervals at 90% and 95%. The concept-level true kappa of
the generator is reported beside it (the two coincide when no surface form names two
concepts).
"""

from __future__ import annotations

import json
import pathlib
import sys
import time
import warnings
from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace
from typing import Any

import numpy as np
import pandas as pd

from paper_repro.generators import CONDITIONS, single_label_populations
from paper_repro.synthetic import _element_matrices, _estimators, _universe, load_terminology

__all__ = ["Config", "QUICK", "FULL", "SMOKE", "run", "summarise", "figures"]

Z90, Z95 = 1.6448536269514722, 1.959963984540054


def _log(msg: str) -> None:
    print(f"[ppi_study {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


@dataclass(frozen=True)
class Config:
    """Sizes of a validation run."""

    terminology: str = "fixture-hpo"
    populations: int = 20
    items: int = 100
    draws: int = 10  # judging plans per population (studies per cell = populations x draws)
    budgets: tuple[int, ...] = (50, 100, 200, 400)
    strategies: tuple[str, ...] = ("uniform", "active")
    conditions: tuple[str, ...] = CONDITIONS
    estimators: tuple[str, ...] = ("indel", "exact")
    coefficient: str = "cohen_kappa"
    targets: tuple[float, float] = (0.1, 0.9)
    seed: int = 0


SMOKE = Config(populations=2, items=30, draws=2, budgets=(50,), conditions=("siblings",), estimators=("indel",))
QUICK = Config(populations=10, draws=5, budgets=(50, 200))
FULL = Config()


def _population_matrices(t: Any, estimators: dict[str, Any], labels: list[str]) -> dict[str, np.ndarray]:
    """Estimator and oracle matrices over one population's labels (sparse concept incidence:
    large vocabularies of the full terminologies)."""
    import scipy.sparse as sp

    from softirr_stats.equivalence import similarity_matrix

    mats = {name: np.asarray(similarity_matrix(est, labels), dtype=np.float64) for name, est in estimators.items()}
    terms, owner, _ = t.term_table()
    rows = pd.Index(np.asarray(labels, dtype=object)).get_indexer(terms)
    keep = rows >= 0
    inc = sp.csr_matrix((np.ones(int(keep.sum())), (rows[keep], owner[keep])), shape=(len(labels), len(t)))
    oracle = (inc @ inc.T).toarray() > 0
    np.fill_diagonal(oracle, True)
    mats["oracle"] = oracle.astype(np.float64)
    return mats


def _seed(*parts: Any) -> int:
    key = [int(p) if not isinstance(p, str) else sum(map(ord, p)) for p in parts]
    return int(np.random.SeedSequence(key).generate_state(1)[0])


def _ppi_rows(ann: Any, F: np.ndarray, H: np.ndarray, cfg: Config, strategies: Sequence[str],
              rng_seed: int) -> list[dict[str, Any]]:
    """All (budget, design, draw) studies of one population and one cheap estimator."""
    from softirr_stats.agreement import point_estimate
    from softirr_stats.agreement._similarity import MatrixSimilarity
    from softirr_stats.ppi._judging import (
        COEFFICIENT_FAMILIES,
        plan_from_prepared,
        read_judgments,
    )
    from softirr_stats.ppi._ppi_intervals import apply_ppi

    result, prep = point_estimate(ann, family=COEFFICIENT_FAMILIES[cfg.coefficient], coefficient=cfg.coefficient,
                                  sim=MatrixSimilarity(F, name="estimator"))
    d = prep.layout
    ks = len(np.unique(d.rating_code))
    n_distinct = ks * (ks - 1) // 2  # distinct label pairs the chance term weighs
    rows = []
    for strategy in strategies:
        for budget in cfg.budgets:
            for draw in range(cfg.draws):
                plan = plan_from_prepared(prep, cfg.coefficient, result.observed, result.expected, n=budget,
                                          strategy=strategy, seed=_seed(rng_seed, budget, draw, strategy))
                table = plan.pairs.copy()
                table["judgment"] = H[plan.codes[0], plan.codes[1]]
                r = apply_ppi(result, prep, read_judgments(table), None, None)
                p = r.details["ppi"]
                rows.append(dict(strategy=strategy, budget=budget, draw=draw, estimator_only=result.value,
                                 ppi=r.value, judge_only=p["judge_only"], se_ppi=p["se_delta"],
                                 se_judge_only=p["se_judge_only"], df=p["df"], lambda_o=p["lambda"]["observed"],
                                 lambda_e=p["lambda"]["chance"], n_eff=p["effective_sample_size"],
                                 n_judged=p["n_judged"], n_distinct_pairs=n_distinct))
    return rows


def run(cfg: Config, out: str | pathlib.Path) -> pd.DataFrame:
    """Run the study; writes ``ppi_results.csv``, ``ppi_summary.csv`` and ``ppi_meta.json``."""
    import softirr_stats as sis

    out = pathlib.Path(out)
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    t = load_terminology(cfg.terminology)
    estimators = _estimators(cfg.estimators)
    universe = _universe(t)
    big = len(universe) > 3000
    mats = None if big else _element_matrices(t, estimators, universe)
    _log(f"{cfg.terminology}: {len(t)} concepts, {len(universe)} surface forms; estimators {sorted(estimators)}")
    rows: list[dict[str, Any]] = []
    for ci, cond in enumerate(cfg.conditions):
        targets = np.linspace(cfg.targets[0], cfg.targets[1], cfg.populations)
        pops = single_label_populations(t, cond, cfg.populations, cfg.items, targets=targets,
                                        seed=cfg.seed + 1000 * ci)
        _log(f"{cond}: {len(pops)} populations x {cfg.items} items")
        for pop in pops:
            labels = sorted(set(pop.frame["label"]))
            if big:
                mats_p = _population_matrices(t, estimators, labels)
                idx = np.arange(len(labels))
            else:
                mats_p = mats
                idx = pd.Index(np.asarray(universe, dtype=object)).get_indexer(labels)
            ann = sis.Annotations.from_long(pop.frame[["item", "rater", "label"]])
            pos = idx[pd.Index(np.asarray(labels, dtype=object)).get_indexer(list(ann.vocabulary))]
            H = mats_p["oracle"][np.ix_(pos, pos)]
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                kappa_h = sis.cohen_kappa(ann, similarity=H).value
                for ename in estimators:
                    F = mats_p[ename][np.ix_(pos, pos)]
                    F = 0.5 * (F + F.T)
                    np.fill_diagonal(F, 1.0)
                    strategies = cfg.strategies
                    for r in _ppi_rows(ann, F, H, cfg, strategies, cfg.seed + 7919 * pop.index + 104729 * ci):
                        rows.append(dict(condition=cond, estimator=ename, population=pop.index,
                                         true_kappa=pop.truth["cohen_kappa"], kappa_h=kappa_h, **r))
        _log(f"{cond}: done ({len(rows)} studies so far, {time.perf_counter() - t0:.0f} s)")
    df = pd.DataFrame(rows)
    df.to_csv(out / "ppi_results.csv", index=False, lineterminator="\n")
    summarise(df).to_csv(out / "ppi_summary.csv", index=False, lineterminator="\n")
    meta = {"config": asdict(cfg), "terminology_version": t.version, "n_surface_forms": len(universe),
            "seconds": round(time.perf_counter() - t0, 1)}
    (out / "ppi_meta.json").write_text(json.dumps(meta, indent=2, default=str) + "\n")
    return df


def summarise(df: pd.DataFrame) -> pd.DataFrame:
    """Per condition x estimator x design x budget: bias, MAE, coverage, widths.

    ``bias`` and ``mae_*`` are against the oracle's kappa on the same items (the estimand);
    ``mae_true_*`` against the generator's concept-level kappa; ``cover90``/``cover95`` are the
    delta-method intervals' coverage of the estimand (Student-t quantile with the library's
    effective degrees of freedom, column ``df``; without it, the normal quantile), and
    ``cover90_normal``/``cover95_normal`` the same with the normal quantile; ``width95`` uses
    the t quantile; ``width_ratio`` is the mean 95% width
    over the judge-only estimator's at the same draws; ``bias_mcse`` the Monte Carlo SE of
    the bias.

    Examples
    --------
    >>> df = pd.DataFrame({"condition": "random", "estimator": "indel", "strategy": "uniform",
    ...     "budget": 50, "kappa_h": 0.5, "true_kappa": 0.5, "ppi": [0.45, 0.55],
    ...     "judge_only": [0.4, 0.6], "estimator_only": 0.3, "se_ppi": 0.05, "se_judge_only": 0.1,
    ...     "lambda_o": 0.5, "lambda_e": 0.5, "n_eff": 100.0, "n_judged": 40, "n_distinct_pairs": 4000})
    >>> summarise(df)[["bias", "cover95", "width_ratio"]].round(6).values.tolist()
    [[0.0, 1.0, 0.5]]
    """
    from softirr_stats.ppi._ppi_intervals import delta_critical_value

    err = df["ppi"] - df["kappa_h"]
    dof = df["df"].to_numpy(dtype=float) if "df" in df else np.full(len(df), np.inf)
    t90, t95 = delta_critical_value(0.90, dof), delta_critical_value(0.95, dof)
    cov90 = (err.abs() <= t90 * df["se_ppi"]).astype(float)
    cov95 = (err.abs() <= t95 * df["se_ppi"]).astype(float)
    errj = df["judge_only"] - df["kappa_h"]
    d = df.assign(err=err, abs_err=err.abs(), abs_err_true=(df["ppi"] - df["true_kappa"]).abs(),
                  abs_err_judge=errj.abs(), cover90=cov90, cover95=cov95,
                  cover90_normal=(err.abs() <= Z90 * df["se_ppi"]).astype(float),
                  cover95_normal=(err.abs() <= Z95 * df["se_ppi"]).astype(float),
                  cover95_judge=(errj.abs() <= Z95 * df["se_judge_only"]).astype(float),
                  abs_err_est=(df["estimator_only"] - df["kappa_h"]).abs(),
                  width=2 * t95 * df["se_ppi"], width_normal=2 * Z95 * df["se_ppi"],
                  width_judge=2 * Z95 * df["se_judge_only"],
                  frac=df["n_judged"] / df["n_distinct_pairs"], df_=dof)
    keys = ["condition", "estimator", "strategy", "budget"]
    g = d.groupby(keys, sort=True)
    s = g.agg(n=("err", "size"), bias=("err", "mean"), err_sd=("err", "std"), mae=("abs_err", "mean"),
              mae_true=("abs_err_true", "mean"), mae_judge_only=("abs_err_judge", "mean"),
              mae_estimator_only=("abs_err_est", "mean"), cover90=("cover90", "mean"),
              cover95=("cover95", "mean"), cover90_normal=("cover90_normal", "mean"),
              cover95_normal=("cover95_normal", "mean"), df=("df_", "median"),
              cover95_judge_only=("cover95_judge", "mean"), width95=("width", "mean"),
              width95_normal=("width_normal", "mean"), width95_judge_only=("width_judge", "mean"),
              lambda_o=("lambda_o", "mean"), lambda_e=("lambda_e", "mean"), n_eff=("n_eff", "median"),
              judged_fraction=("frac", "max")).reset_index()
    s["bias_mcse"] = s["err_sd"].fillna(0.0) / np.sqrt(s["n"])
    s["width_ratio"] = s["width95_normal"] / s["width95_judge_only"]  # both normal: the same quantile
    return s.drop(columns="err_sd")


def figures(summary: pd.DataFrame, out: str | pathlib.Path) -> list[pathlib.Path]:
    """Coverage and width ratio against the budget, per condition (one panel each)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out = pathlib.Path(out)
    out.mkdir(parents=True, exist_ok=True)
    conds = list(dict.fromkeys(summary["condition"]))
    paths = []
    for metric, ylabel, ref in (("cover95", "coverage of the 95% interval", 0.95),
                                ("width_ratio", "95% width / judge-only width", 1.0),
                                ("mae", "MAE against the oracle kappa (log)", None)):
        fig, axes = plt.subplots(1, len(conds), figsize=(3.2 * len(conds), 3.0), sharey=True, squeeze=False)
        for ax, cond in zip(axes[0], conds, strict=True):
            sub = summary[summary["condition"] == cond]
            colors = {e: f"C{i}" for i, e in enumerate(sorted(summary["estimator"].unique()))}
            for (est, strat), part in sub.groupby(["estimator", "strategy"]):
                ax.plot(part["budget"], part[metric], marker="o" if strat == "uniform" else "s",
                        ls="-" if strat == "uniform" else "--", color=colors[est], label=f"{est} / {strat}")
            if metric == "mae":
                ax.set_yscale("log")
            if ref is not None:
                ax.axhline(ref, color="black", lw=0.8)
            ax.set_xscale("log", base=2)
            ax.set_title(cond)
            ax.set_xlabel("judged draws (budget)")
        axes[0][0].set_ylabel(ylabel)
        axes[0][-1].legend(fontsize=7)
        fig.tight_layout()
        path = out / f"ppi_{metric}.png"
        fig.savefig(path, dpi=110)
        plt.close(fig)
        paths.append(path)
    return paths


def main(args: Any) -> int:
    """Entry point of ``python -m paper_repro ppi``."""
    cfg = SMOKE if args.smoke else (QUICK if args.quick else FULL)
    changes: dict[str, Any] = {}
    if args.terminology:
        changes["terminology"] = args.terminology
    if args.estimators:
        changes["estimators"] = tuple(e.strip() for e in args.estimators.split(",") if e.strip())
    if args.conditions:
        changes["conditions"] = tuple(e.strip() for e in args.conditions.split(",") if e.strip())
    for key in ("populations", "items", "draws", "seed"):
        if getattr(args, key) is not None:
            changes[key] = getattr(args, key)
    if args.targets:
        lo, hi = (float(x) for x in args.targets.split(","))
        changes["targets"] = (lo, hi)
    if args.budgets:
        changes["budgets"] = tuple(int(b) for b in args.budgets.split(","))
    if args.strategies:
        changes["strategies"] = tuple(s.strip() for s in args.strategies.split(","))
    cfg = replace(cfg, **changes)
    df = run(cfg, args.out)
    summary = summarise(df)
    if not args.no_figures:
        figures(summary, args.out)
    print(f"wrote {args.out}/ppi_results.csv ({len(df)} studies) and ppi_summary.csv")
    return 0


def items_bootstrap_check(studies: int = 100, items: int = 150, budget: int = 200, boot: int = 300,
                          seed: int = 0) -> pd.DataFrame:
    """Coverage of the population kappa by the items-as-a-sample interval (a superpopulation check).

    A population of items: 10 concepts with 3 synonyms each (30 labels) and unequal
    prevalence; rater 1 names the item's concept with a random synonym, rater 2 does so with
    probability 0.7 and otherwise names another concept. ``h`` is the concept identity; the
    cheap estimator ``f`` is ``h`` blurred with fixed noise. The population's Cohen kappa with
    ``h`` is computed on 200,000 items. Each study draws ``items`` items and a uniform plan of
    ``budget`` draws and reports the 95% item-bootstrap (with resampled draws) and
    delta-method (conditional) intervals.
    """
    import softirr_stats as sis

    rng = np.random.default_rng(seed)
    n_concepts, syn = 10, 3
    k = n_concepts * syn
    concept = np.repeat(np.arange(n_concepts), syn)
    H = (concept[:, None] == concept[None, :]).astype(float)
    F = np.clip(0.7 * H + 0.15 + rng.normal(0, 0.15, (k, k)), 0, 1)
    F = 0.5 * (F + F.T)
    np.fill_diagonal(F, 1.0)
    prev = rng.dirichlet(np.full(n_concepts, 2.0))
    labels = [f"label {i}" for i in range(k)]

    def sample(n: int, r: np.random.Generator) -> list[list[str]]:
        c = r.choice(n_concepts, n, p=prev)
        a = c * syn + r.integers(0, syn, n)
        other = (c + r.integers(1, n_concepts, n)) % n_concepts
        c2 = np.where(r.random(n) < 0.7, c, other)
        b = c2 * syn + r.integers(0, syn, n)
        return [[labels[x], labels[y]] for x, y in zip(a, b, strict=True)]

    big = sis.Annotations.from_wide(sample(200_000, rng), categories=labels)
    truth = sis.cohen_kappa(big, similarity=H).value
    rows = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for s in range(studies):
            r = np.random.default_rng([seed, s])
            ann = sis.Annotations.from_wide(sample(items, r), categories=labels)
            plan = sis.judging_plan(ann, similarity=F, n=budget, coefficient="cohen_kappa", seed=int(s))
            judged = plan.pairs.assign(judgment=H[plan.codes[0], plan.codes[1]])
            res = sis.cohen_kappa(ann, similarity=F, judgments=judged, ci=sis.Bootstrap(n=boot, seed=s))
            delta = sis.cohen_kappa(ann, similarity=F, judgments=judged, ci="analytic")
            rows.append(dict(study=s, truth=truth, kappa_h_sample=sis.cohen_kappa(ann, similarity=H).value,
                             ppi=res.value, items_low=res.ci_low, items_high=res.ci_high,
                             delta_low=delta.ci_low, delta_high=delta.ci_high))
    df = pd.DataFrame(rows)
    df["items_covers"] = (df.items_low <= df.truth) & (df.truth <= df.items_high)
    df["delta_covers_population"] = (df.delta_low <= df.truth) & (df.truth <= df.delta_high)
    df["delta_covers_sample"] = (df.delta_low <= df.kappa_h_sample) & (df.kappa_h_sample <= df.delta_high)
    return df
