"""The review fixes and the worked examples, each writing CSV files and a figure.

- :func:`dice_jaccard_study` -- review fix 1: the paper's Dice-normalised set similarity
  (eq. 13) against the Jaccard ground truth, with a perfect element estimator (the oracle),
  so any error is the normalisation's; the Jaccard-consistent normalisation removes it.
- :func:`permutation_study` -- review fix 2: spread over seeds of Monte Carlo chance with
  D = 2, 3, 10 permutations (the paper uses 2-3) against exact chance and against
  ``SampledPairs`` scoring the same number of label pairs; the ``chance_se`` the library
  reports against the empirical SD over seeds.
- :func:`multilabel_example` -- the multi-label seed paper's worked example (A_ml and the
  floors for the Fleiss, AC1 and PABAK baselines) next to the published numbers.
- :func:`xrr_example` -- cross-replication reliability (kappa_x, normalised kappa_x,
  IRR_X, IRR_Y) of two replications with different rater pools, with bootstrap intervals.
"""

from __future__ import annotations

import dataclasses
import pathlib
import time
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from paper_repro.figures import _plt, save_png

__all__ = ["dice_jaccard_study", "permutation_study", "multilabel_example", "xrr_example",
           "seed_paper_multilabel_data", "PUBLISHED_MULTILABEL"]



def _quiet(fn: Any, *args: Any, **kw: Any) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kw)


# ------------------------------------------------------------------------ review fix 1


def dice_jaccard_summary(df: pd.DataFrame) -> pd.DataFrame:
    """Bias / MAE of the oracle set estimates against each ground truth (exact chance).

    One row per (coefficient, measure, truth, condition) plus ``condition == "all"``:
    ``bias`` (mean signed error), ``mae``, ``max_abs_error``, ``n`` (populations).
    """
    sel = df[(df.setting == "set") & (df.chance == "exact")
             & df.measure.isin(["oracle-dice", "oracle-jaccard"])].copy()
    sel["err"] = sel.estimated_kappa - sel.true_kappa
    sel["abs_err"] = sel.err.abs()
    keys = ["coefficient", "measure", "truth"]
    agg = dict(bias=("err", "mean"), mae=("abs_err", "mean"), max_abs_error=("abs_err", "max"),
               n=("err", "size"))
    by_cond = sel.groupby([*keys, "condition"]).agg(**agg).reset_index()
    overall = sel.groupby(keys).agg(**agg).reset_index().assign(condition="all")
    return pd.concat([by_cond, overall], ignore_index=True)[[*keys, "condition", "bias", "mae",
                                                             "max_abs_error", "n"]]


def dice_jaccard_study(out: str | pathlib.Path, populations: int = 5, items: int = 50,
                       conditions: Sequence[str] = ("random", "siblings", "ancestors", "lexical"),
                       terminology: str = "fixture-hpo", seed: int = 0) -> pd.DataFrame:
    """Set-level oracle estimates with Dice vs Jaccard normalisation; writes CSV + figure.

    Runs the set-level experiment with the oracle only (``oracle-dice``, ``oracle-jaccard``:
    Hungarian matching of true concept identity, each normalisation) and writes
    ``dice_jaccard_results.csv``, ``dice_jaccard_summary.csv`` and ``fig_dice_jaccard.png``.
    """
    from paper_repro import synthetic as syn

    out = pathlib.Path(out)
    out.mkdir(parents=True, exist_ok=True)
    cfg = dataclasses.replace(syn.QUICK, terminology=terminology, settings=("set",),
                              measures=(), set_populations=populations, set_items=items,
                              conditions=tuple(conditions), seed=seed)
    t = syn.load_terminology(cfg.terminology)
    scorer = syn._Scorer.make(t, {}, {})
    df = pd.DataFrame(syn.run_set(cfg, t, scorer), columns=syn.COLUMNS)
    df.to_csv(out / "dice_jaccard_results.csv", index=False, lineterminator="\n")
    summary = dice_jaccard_summary(df)
    summary.to_csv(out / "dice_jaccard_summary.csv", index=False, lineterminator="\n")
    plt = _plt()
    fig, axes = plt.subplots(1, 2, figsize=(8, 3.6), sharey=True)
    ex = df[(df.chance == "exact") & (df.coefficient == "cohen")]
    for ax, truth in zip(axes, ("jaccard", "dice"), strict=True):
        g = ex[ex.truth == truth]
        ax.plot([-0.2, 1], [-0.2, 1], ls="--", color="0.5", lw=1)
        for k, m in enumerate(("oracle-dice", "oracle-jaccard")):
            h = g[g.measure == m]
            ax.scatter(h.true_kappa, h.estimated_kappa, s=12, color=f"C{k}", label=m,
                       marker="o" if k == 0 else "x")
        ax.set_xlabel(f"true set kappa ({truth.capitalize()} ground truth)")
        ax.set_title(f"truth: {truth}", fontsize=9)
    axes[0].set_ylabel("estimated set kappa (oracle elements)")
    axes[0].legend(fontsize=7)
    fig.tight_layout()
    save_png(fig, out / "fig_dice_jaccard.png")
    return summary


# ------------------------------------------------------------------------ review fix 2


def _dperm_data(terminology: str, items: int, target: float, seed: int
                ) -> tuple[Any, dict[str, np.ndarray]]:
    import softirr_stats as sis
    from paper_repro.generators import single_label_populations
    from paper_repro.synthetic import concept_oracle_matrix, load_terminology
    from softirr_stats.equivalence import Indel, similarity_matrix

    t = load_terminology(terminology)
    pop = single_label_populations(t, "siblings", 1, items, targets=[target], seed=seed)[0]
    ann = sis.Annotations.from_long(pop.frame[["item", "rater", "label"]])
    voc = list(ann.vocabulary)
    return ann, {"indel": similarity_matrix(Indel(), voc),
                 "oracle": concept_oracle_matrix(t, voc)}


def permutation_study(out: str | pathlib.Path, seeds: int = 200,
                      permutations: Sequence[int] = (2, 3, 10), items: int = 100,
                      target: float = 0.5, terminology: str = "fixture-hpo", seed: int = 0
                      ) -> pd.DataFrame:
    """Spread of Monte Carlo chance agreement over seeds vs exact and ``SampledPairs``.

    One single-label population (siblings negatives, ``items`` items, target agreement
    ``target``) scored with the Indel measure and with the oracle. For each measure,
    coefficient (Cohen's kappa, Scott's pi) and D, the coefficient is computed with
    ``MonteCarlo(permutations=D, seed=s)`` and with ``SampledPairs(n=D * n_pairs_per_perm,
    seed=s)`` (the same number of scored chance pairs) for ``s = seed .. seed + seeds - 1``.

    Writes ``permutation_study.csv`` (one row per measure, coefficient, method, D): exact
    ``pe`` and kappa, mean / SD over seeds of ``pe`` and kappa, the mean reported
    ``chance_se`` and its ratio to the SD over seeds, the empirical 95% range (2.5-97.5
    percentiles over seeds) of pe and kappa, the mean nominal interval width
    ``2 * 1.96 * chance_se``, and the coverage of exact ``pe`` by ``pe +- 1.96 chance_se``;
    ``chance_se_cv`` (the reported SE's coefficient of variation over seeds: how much one
    run's SE can be trusted) and, for scale, ``kappa_bootstrap_se`` (item-bootstrap SE of
    kappa with exact chance, n = 500); ``permutation_study_draws.csv`` (every draw) and ``fig_permutation_study.png``.
    """
    import softirr_stats as sis

    out = pathlib.Path(out)
    out.mkdir(parents=True, exist_ok=True)
    ann, mats = _dperm_data(terminology, items, target, seed)
    coefs = {"cohen": sis.cohen_kappa, "scott": sis.scott_pi}
    # chance pairs one permutation scores: Cohen pairs rater A's n ratings with rater B's
    # permuted ones (n pairs); Scott draws 2n pooled ratings and permutes them (2n pairs)
    per_perm = {"cohen": ann.n_items, "scott": 2 * ann.n_items}
    draws = []
    exact: dict[tuple[str, str], tuple[float, float]] = {}
    boot_se: dict[tuple[str, str], float] = {}
    for mname, s in mats.items():
        for cname, fn in coefs.items():
            r = _quiet(fn, ann, similarity=s, chance="exact",
                       ci=sis.Bootstrap(n=500, design="items", seed=seed))
            exact[(mname, cname)] = (r.expected, r.value)
            boot_se[(mname, cname)] = r.se
            for d in permutations:
                for s_ in range(seed, seed + seeds):  # one library call per seed: the study
                    for method, plan in (
                            ("monte_carlo", sis.MonteCarlo(permutations=d, seed=s_)),
                            ("sampled_pairs", sis.SampledPairs(n=d * per_perm[cname], seed=s_))):
                        r = _quiet(fn, ann, similarity=s, chance=plan)
                        draws.append((mname, cname, method, d, s_, r.expected, r.value,
                                      r.chance_se))
    dr = pd.DataFrame(draws, columns=["measure", "coefficient", "method", "D", "seed", "pe",
                                      "kappa", "chance_se"])
    dr.to_csv(out / "permutation_study_draws.csv", index=False, lineterminator="\n")
    rows = []
    for (mname, cname, method, d), g in dr.groupby(["measure", "coefficient", "method", "D"],
                                                   sort=False):
        pe_x, k_x = exact[(mname, cname)]
        pe, k, se = g.pe.to_numpy(), g.kappa.to_numpy(), g.chance_se.to_numpy()
        ok = np.isfinite(se)
        rows.append({
            "measure": mname, "coefficient": cname, "method": method, "D": d,
            "pairs_scored": d * per_perm[cname], "seeds": len(g),
            "pe_exact": pe_x, "pe_mean": pe.mean(), "pe_sd": pe.std(ddof=1),
            "chance_se_mean": float(np.mean(se[ok])) if ok.any() else np.nan,
            "chance_se_over_sd": (float(np.mean(se[ok])) / pe.std(ddof=1)) if ok.any() else np.nan,
            "chance_se_cv": (float(np.std(se[ok], ddof=1) / np.mean(se[ok]))
                             if ok.sum() > 1 else np.nan),
            "pe_range95": float(np.percentile(pe, 97.5) - np.percentile(pe, 2.5)),
            "nominal_width95": float(np.mean(2 * 1.96 * se[ok])) if ok.any() else np.nan,
            "coverage_of_exact": float(np.mean(np.abs(pe[ok] - pe_x) <= 1.96 * se[ok]))
            if ok.any() else np.nan,
            "kappa_exact": k_x, "kappa_mean": k.mean(), "kappa_sd": k.std(ddof=1),
            "kappa_range95": float(np.percentile(k, 97.5) - np.percentile(k, 2.5)),
            "kappa_max_abs_error": float(np.max(np.abs(k - k_x))),
            "kappa_bootstrap_se": boot_se[(mname, cname)],
        })
    summary = pd.DataFrame(rows)
    summary.to_csv(out / "permutation_study.csv", index=False, lineterminator="\n")
    plot_permutation_study(summary, out / "fig_permutation_study.png")
    return summary


def plot_permutation_study(summary: pd.DataFrame, path: pathlib.Path) -> None:
    """SD over seeds of Cohen's kappa and the mean reported SE against D (from the summary)."""
    plt = _plt()
    fig, axes = plt.subplots(1, 2, figsize=(8.5, 3.4))
    for ax, mname in zip(axes, list(dict.fromkeys(summary.measure))[:2], strict=False):
        g = summary[(summary.measure == mname) & (summary.coefficient == "cohen")]
        for k, method in enumerate(("monte_carlo", "sampled_pairs")):
            h = g[g.method == method]
            ax.plot(h.D, h.kappa_sd, marker="o", color=f"C{k}", label=f"{method}: SD over seeds")
            # delta method: d kappa / d pe = -(1 - po) / (1 - pe)^2
            po = h.kappa_exact * (1 - h.pe_exact) + h.pe_exact
            ax.plot(h.D, h.chance_se_mean * (1 - po) / (1 - h.pe_exact) ** 2, marker="x",
                    ls=":", color=f"C{k}", label=f"{method}: mean reported SE (kappa scale)")
        ax.set_xscale("log")
        ds = sorted(set(summary.D.tolist()))
        ax.set_xticks(ds, [str(p) for p in ds])
        ax.minorticks_off()
        ax.set_xlabel("D (permutations; sampled pairs matched)")
        ax.set_title(f"Cohen's kappa, {mname} (pe exact {g.pe_exact.iloc[0]:.3f})", fontsize=9)
    axes[0].set_ylabel("spread of kappa from the chance term")
    axes[0].legend(fontsize=6)
    fig.tight_layout()
    save_png(fig, path)


# ----------------------------------------------------------------------- multi-label example

PUBLISHED_MULTILABEL: dict[str, Any] = {
    "fleiss": {"value": 0.2320, "floor": -0.3440},
    "ac1": {"value": 0.9031, "floor": 0.8305},
    "pabak": {"value": 0.8280, "floor": 0.6989},
    "raw_prevalence": 7 / 93,
}


def seed_paper_multilabel_data() -> np.ndarray:
    """3 raters x 4 items x 31 labels with the sufficient statistics of the paper's example.

    The multi-label paper's label vectors are not published; its derived numbers depend on
    the data only through the label counts (sum 28, sum of squares 86), the 32 disagreeing
    (pair, label) slots and the evenly spread maximum (56). This construction (the one in
    ``tests/agreement/test_multilabel.py``) has all of them. Shape (items, raters, labels).
    """
    x = np.zeros((4, 3, 31))
    x[:, 0, 0] = 1  # label 0: one positive per item
    x[:, 1, 1] = 1  # label 1: one positive per item
    x[0, :2, 2] = 1  # label 2: (2, 1, 1, 0)
    x[1, 0, 2] = x[2, 0, 2] = 1
    x[0, :, 3:6] = 1  # labels 3-5: three positives on one item
    x[1, :2, 6:8] = 1  # labels 6-7: two positives on one item
    x[2, 0, 8:11] = 1  # labels 8-10: one positive
    return x


def multilabel_example(out: str | pathlib.Path | None = None) -> pd.DataFrame:
    """A_ml and its floor per baseline, ours next to the published numbers.

    Examples
    --------
    >>> t = multilabel_example()
    >>> t.loc[t.baseline == "fleiss", ["value", "published_value"]].round(4).values.tolist()
    [[0.232, 0.232]]
    """
    import softirr_stats as sis

    x = seed_paper_multilabel_data()
    rows = []
    for b in ("fleiss", "ac1", "pabak"):
        r = _quiet(sis.multilabel_agreement, x, baseline=b)
        pub = PUBLISHED_MULTILABEL[b]
        rows.append({"baseline": b, "observed": r.observed, "expected": r.expected,
                     "value": r.value, "published_value": pub["value"],
                     "floor": r.floor, "published_floor": pub["floor"],
                     "raw_prevalence": r.raw_prevalence,
                     "published_raw_prevalence": PUBLISHED_MULTILABEL["raw_prevalence"]})
    table = pd.DataFrame(rows)
    if out is not None:
        out = pathlib.Path(out)
        out.mkdir(parents=True, exist_ok=True)
        table.to_csv(out / "multilabel_example.csv", index=False, lineterminator="\n")
    return table


# ------------------------------------------------------------------- cross-replication example


def xrr_data(items: int = 60, seed: int = 0, terminology: str = "fixture-hpo"
             ) -> tuple[Any, Any, np.ndarray, list[str]]:
    """Two replications of a free-text labelling task with different rater pools.

    Items are concepts of the terminology. Replication X: 3 raters (pool A), each writes a
    random surface form of the item's concept with probability 0.85, otherwise a surface
    form of a sibling concept. Replication Y: 4 other raters (pool B), correct with
    probability 0.6, and 15% of their ratings missing. Returns the two ``Annotations``,
    the oracle similarity over the union vocabulary and that vocabulary.
    """
    import softirr_stats as sis
    from paper_repro.generators import NegativeSampler
    from paper_repro.synthetic import concept_oracle_matrix, load_terminology

    t = load_terminology(terminology)
    rng = np.random.default_rng(seed)
    sampler = NegativeSampler(t, "siblings")
    pool = [c for c in t.concepts if len(t.terms(c)) >= 2 and sampler.has_negative(c)]
    concepts = list(np.asarray(pool, dtype=object)[rng.choice(len(pool), items,
                                                              replace=len(pool) < items)])
    sampler.build(list(dict.fromkeys(concepts)))
    ids = [f"doc-{i:03d}" for i in range(items)]

    def replication(n_raters: int, p_correct: float, p_missing: float) -> Any:
        rep = np.repeat(np.asarray(concepts, dtype=object), n_raters)
        neg = sampler.terms[sampler.sample(list(rep), rng)]
        first = sampler.first_term[[sampler.index[c] for c in rep]]
        pos = sampler.terms[first + np.floor(rng.random(rep.size)
                                             * sampler.n_terms_of[[sampler.index[c] for c in rep]]
                                             ).astype(np.int64)]
        lab = np.where(rng.random(rep.size) < p_correct, pos, neg).astype(object)
        lab = lab.reshape(items, n_raters)
        miss = rng.random((items, n_raters)) < p_missing
        miss[:, 0] = False  # every item keeps a rating
        lab[miss] = None
        return sis.Annotations.from_wide(lab, items=ids)

    ann_x = replication(3, 0.85, 0.0)
    ann_y = replication(4, 0.6, 0.15)
    voc = sorted(set(ann_x.vocabulary) | set(ann_y.vocabulary))
    return ann_x, ann_y, concept_oracle_matrix(t, voc), voc


def xrr_example(out: str | pathlib.Path | None = None, items: int = 60, n_boot: int = 500,
                seed: int = 0, terminology: str = "fixture-hpo") -> pd.DataFrame:
    """kappa_x, normalised kappa_x, IRR_X, IRR_Y with item-bootstrap percentile intervals.

    Two similarities: ``exact`` string matching and the ``oracle`` (synonyms agree). The
    IRRs are Krippendorff's alpha of each replication (``cross_kappa``'s ``irr_x`` /
    ``irr_y``); their intervals come from ``krippendorff_alpha`` with the same bootstrap.
    Writes ``xrr_example.csv`` and ``fig_xrr.png`` when ``out`` is given.
    """
    import softirr_stats as sis

    ann_x, ann_y, oracle, voc = xrr_data(items, seed, terminology)
    rows = []
    for sname, sim in (("exact", None), ("oracle", oracle)):
        boot = sis.Bootstrap(n=n_boot, design="items", seed=seed)
        r = _quiet(sis.cross_kappa, ann_x, ann_y, similarity=sim, ci=boot)
        rows.append({"similarity": sname, "statistic": "kappa_x", "value": r.value,
                     "ci_low": r.ci_low, "ci_high": r.ci_high})
        rows.append({"similarity": sname, "statistic": "normalized", "value": r.normalized,
                     "ci_low": r.details.get("normalized_ci_low", np.nan),
                     "ci_high": r.details.get("normalized_ci_high", np.nan)})
        for which, ann, irr in (("irr_x", ann_x, r.irr_x), ("irr_y", ann_y, r.irr_y)):
            s_rep = None
            if sim is not None:
                idx = pd.Index(voc).get_indexer(list(ann.vocabulary))
                s_rep = oracle[np.ix_(idx, idx)]
            a = _quiet(sis.krippendorff_alpha, ann, similarity=s_rep, ci=boot)
            rows.append({"similarity": sname, "statistic": which, "value": irr,
                         "ci_low": a.ci_low, "ci_high": a.ci_high, "check_alpha": a.value})
    table = pd.DataFrame(rows)
    if out is not None:
        out = pathlib.Path(out)
        out.mkdir(parents=True, exist_ok=True)
        table.to_csv(out / "xrr_example.csv", index=False, lineterminator="\n")
        plt = _plt()
        fig, ax = plt.subplots(figsize=(5.5, 3.2))
        labels = [f"{r.similarity}: {r.statistic}" for r in table.itertuples()]
        y = np.arange(len(table))[::-1]
        ax.errorbar(table.value, y, xerr=[table.value - table.ci_low, table.ci_high - table.value],
                    fmt="o", capsize=3)
        ax.set_yticks(y, labels, fontsize=7)
        ax.axvline(0, color="0.6", lw=0.8)
        ax.set_xlabel(f"value with 95% item-bootstrap interval (n={n_boot})")
        fig.tight_layout()
        save_png(fig, out / "fig_xrr.png")
    return table


def timed(fn: Any, *args: Any, **kw: Any) -> tuple[Any, float]:
    t0 = time.perf_counter()
    res = fn(*args, **kw)
    return res, time.perf_counter() - t0
