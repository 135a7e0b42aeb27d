"""Soft model by NUTS: 90% coverage of the kappa interval and the score check, many studies per shape.

The NUTS rows of the soft model's coverage study (:mod:`paper_repro.soft_model_check_study`
gives the SVI rows). The design, the score shapes, the simulation and the truth are that
study's (:func:`paper_repro.soft_model_robustness.simulate_study`: 3 raters of accuracy 0.6 /
0.7 / 0.8, 150 items, 40 concepts, 1,000 chance pairs; study ``s`` uses the simulation seed
``--seed + s``, default 1000). Each fit is the library's default: the soft model
(:func:`softirr_stats.models.soft_agreement`, ``models.DEFAULT_EMISSION``, rater effects,
default priors) by NUTS with ``NutsConfig()``'s settings (2 chains run vectorised, 500
warm-up + 500 kept draws each, tree depth at most 10, initialised at the prior means) and the
soft kind's NUTS parametrisation (``inference._fit.nuts_model``: the emission's Dirichlet sites
drawn as normalised Gammas, target acceptance 0.9; the rows in docs/soft_model_robustness/
before issue 34's divergence study were fitted with numpyro's stick-breaking Dirichlet at 0.8,
the same posterior), the same program as ``inference.fit(..., method="nuts")``; the key of study
``s`` is the one ``fit(..., seed=s)`` uses. ``--warmup`` / ``--samples`` / ``--chains``
shorten the chains (recorded per row).

A batch of studies of one shape is ONE compiled program: ``jax.vmap`` over the studies'
scores of numpyro's ``MCMC(NUTS(...)).run`` (the studies share the pair layout, only the
scores differ, so the data enter as arguments). Under ``vmap`` every NUTS iteration runs as
many leapfrog steps as the deepest tree in the batch, so a batch costs more than its
cheapest study; it is still far cheaper than one compile per fit.

Per fit (one CSV row), the columns of the SVI study's rows (so its ``--confusion`` and
``--calibrate`` read these too): truth, posterior-mean kappa, the equal-tailed 90% interval
of the kappa draws (both chains pooled), covered, the score check's p-value, observed
chi-square and replicates' median (``score_check_stat``, the library's ``score_check``
formula), the kappa SD, the fitted components' overlap, the separation leak and the
separation warning at the SVI study's 0.2 x half-width. Added: ``method``, the warnings the
library's current thresholds give (``warned``: score check p <= ``SCORE_CHECK_P``, overlap >
``COMPONENT_OVERLAP`` or leak >= ``SEPARATION_RATIO`` x half-width), the divergent
transitions, the largest split r_hat over every sampled and derived element (``rhat_warned``
above ``NutsConfig().rhat_threshold``: ``fit``'s ``ConvergenceWarning`` before the nuisance
sites), the same over the elements outside the soft kind's nuisance sites
(``max_rhat_strict``) and over those sites (``max_rhat_nuisance``), ``convergence_warned``
(what ``fit`` warns now: a divergence, ``max_rhat_strict`` above ``rhat_threshold`` or
``max_rhat_nuisance`` above ``nuisance_rhat_threshold``), the kappa's r_hat and effective
sample size, the chain settings and the seconds per fit.

Usage::

    nice -n 10 python paper_repro/soft_model_nuts_study.py --studies 300 --batch 20 \\
        --out rows.csv --budget-s 3600          # resumable: the same --out
    python paper_repro/soft_model_nuts_study.py --compare rows.csv \\
        --svi docs/soft_model_robustness/check_study.csv
    # the same studies fitted by two samplers (e.g. before and after a change of fit's NUTS)
    python paper_repro/soft_model_nuts_study.py --samplers before.csv after.csv
    # the same studies under another prior on the emission's pieces (rows record it; the
    # start-up check fits the default priors, so it is skipped)
    python paper_repro/soft_model_nuts_study.py --shapes heavy_tails --studies 24 --batch 4 \\
        --monotone-concentration 20 --no-check --out c20.csv

At start-up (unless ``--no-check``) the first study of the first shape is fitted both here
and by ``softirr_stats.inference.fit(..., method="nuts")`` with the same key: the posterior
means of kappa must agree within 4 Monte Carlo SEs, else the run stops.
"""

import argparse
import functools
import pathlib
import sys
import time

import numpy as np

LEVEL = 0.90


def _nuts_config(warmup: int | None, samples: int | None, chains: int | None):
    """``NutsConfig()`` with the chain lengths / count overridden where given."""
    import dataclasses

    from softirr_stats.inference import NutsConfig

    cfg = NutsConfig()
    over = {k: v for k, v in (("num_warmup", warmup), ("num_samples", samples),
                              ("num_chains", chains)) if v is not None}
    return dataclasses.replace(cfg, **over)


_TEMPLATES: dict = {}


@functools.lru_cache(maxsize=8)
def _batched_nuts(emission: str, cfg, template_key: tuple, priors=None):
    """A jitted ``(keys, ws, cs, below) -> draws`` for a batch of studies (one compile per
    layout and settings): ``fit``'s NUTS program, vmapped over the studies' scores.
    ``priors``: a ``SoftAgreementPriors`` (None: the default)."""
    import jax
    import jax.numpy as jnp
    from numpyro.infer import MCMC, NUTS, init_to_mean

    from paper_repro.soft_model_check_study import _shim
    from softirr_stats.inference._fit import model_sites, nuts_model
    from softirr_stats.models import (
        SoftAgreementPriors,
        cell_probabilities,
        soft_agreement,
        within_responsibilities,
    )

    template = _TEMPLATES[template_key]
    priors = SoftAgreementPriors() if priors is None else priors
    model = functools.partial(soft_agreement, priors=priors, emission=emission)
    # what fit's NUTS samples: the emission's Dirichlet sites as normalised Gammas, its target
    sampled, target = nuts_model("soft", model, cfg)

    def one(key, ws, cs, below):
        data = _shim(template, ws, cs)
        kernel = NUTS(sampled, target_accept_prob=target,
                      max_tree_depth=cfg.max_tree_depth, init_strategy=init_to_mean())
        mcmc = MCMC(kernel, num_warmup=cfg.num_warmup, num_samples=cfg.num_samples,
                    num_chains=cfg.num_chains, chain_method="vectorized", progress_bar=False)
        mcmc.run(key, data, extra_fields=("diverging", "num_steps"))
        by_chain = model_sites("soft", mcmc.get_samples(group_by_chain=True))  # as fit keeps them
        extra = mcmc.get_extra_fields(group_by_chain=True)
        flat = {k: v.reshape((-1, *v.shape[2:])) for k, v in by_chain.items()}
        probs = jax.vmap(lambda p: cell_probabilities(p, emission, priors.monotone_bins))(flat)
        # the separation check's leak (inference._soft_check.separation_leak)
        leak = jax.vmap(lambda p: jnp.where(below, within_responsibilities(
            p, data, emission, priors), 0.0).sum() / ws.size)(flat)
        return {"by_chain": by_chain, "probs": probs, "leak": leak.mean(),
                "diverging": extra["diverging"], "num_steps": extra["num_steps"]}

    return jax.jit(jax.vmap(one))


def fit_keys(indices) -> "jax.Array":  # noqa: F821 - jax is imported lazily
    """The NUTS key of each study index, as ``inference.fit(..., seed=index)`` derives it."""
    import jax

    return jax.numpy.stack([jax.random.split(jax.random.key(int(i)))[0] for i in indices])


def fit_batch(sims: list, indices, emission: str, cfg, priors=None) -> dict:
    """Fit the studies ``sims`` (from ``simulate_study``, one pair layout) in one program
    (``priors``: a ``SoftAgreementPriors``, None for the default).

    Returns numpy arrays with a leading study axis: ``by_chain`` (every site, ``(chain,
    draw, ...)``), ``probs`` (``(draws, 2, bins)`` cell probabilities), ``leak``,
    ``diverging``, ``num_steps``, ``gaps`` (the score gap per study, or None).
    """
    import jax
    import jax.numpy as jnp

    from softirr_stats.models import pair_scores_gap

    tmpl = sims[0]["data"]
    key = (tmpl.n_within, tmpl.n_chance, tmpl.n_raters, tmpl.n_items)
    _TEMPLATES.setdefault(key, tmpl)
    for s in sims:  # the layout every traced study shares
        if not np.array_equal(s["data"].within_raters, _TEMPLATES[key].within_raters):
            raise ValueError("studies of one batch must share their pair layout")
    ws = jnp.asarray(np.stack([s["data"].within_scores for s in sims]), jnp.float32)
    cs = jnp.asarray(np.stack([s["data"].chance_scores for s in sims]), jnp.float32)
    gaps = [pair_scores_gap(s["data"]) for s in sims]
    below = jnp.asarray(np.stack([s["data"].within_scores <= (-1.0 if g is None else g[0])
                                  for s, g in zip(sims, gaps, strict=True)]))
    res = _batched_nuts(emission, cfg, key, priors)(fit_keys(indices), ws, cs, below)
    res = jax.tree_util.tree_map(np.asarray, res)
    res["gaps"] = gaps
    return res


def max_rhat(by_chain: dict, sites=None) -> tuple[float, str]:
    """The largest split r_hat over every element of the sites ``sites`` (None: every site;
    constant elements skipped), as ``fit``'s ``ConvergenceWarning`` computes it, and its site;
    nan with one draw per chain."""
    from numpyro.diagnostics import split_gelman_rubin

    best, where = -np.inf, ""
    for name, arr in by_chain.items():
        if sites is not None and name not in sites:
            continue
        arr = np.asarray(arr, np.float64)
        if arr.shape[1] < 4:
            return np.nan, ""
        with np.errstate(invalid="ignore", divide="ignore"):
            r = np.asarray(split_gelman_rubin(arr))
        r = np.where(np.all(arr == arr[:1, :1], axis=(0, 1)), np.nan, r)
        if np.isfinite(r).any() and np.nanmax(r) > best:
            best, where = float(np.nanmax(r)), name
    return (best if np.isfinite(best) else np.nan), where


def study_rows(shape: str, emission: str, seeds, sims, res, cfg, sec: float) -> list[dict]:
    """One CSV row per study of a fitted batch (see the module docstring)."""
    from numpyro.diagnostics import effective_sample_size, split_gelman_rubin

    from paper_repro.soft_model_check_study import score_check_stat
    from softirr_stats.inference._kinds import COMPONENT_OVERLAP, SCORE_CHECK_P, SoftKind
    from softirr_stats.inference._soft_check import SEPARATION_RATIO
    from softirr_stats.models import SoftAgreementPriors

    nb = SoftAgreementPriors().monotone_bins
    q = [(1 - LEVEL) / 2, (1 + LEVEL) / 2]
    nuisance = set(SoftKind.nuisance_sites)
    rows = []
    for i, (s, sim) in enumerate(zip(seeds, sims, strict=True)):
        chains = {k: v[i] for k, v in res["by_chain"].items()}
        kc = chains["kappa"].astype(np.float64)
        k = kc.ravel()
        lo, hi = np.quantile(k, q)
        pw, pc = chains["pi_within"].ravel(), chains["pi_chance"].ravel()
        p, obs, rep = score_check_stat(res["probs"][i], pw, pc, sim["data"].within_scores,
                                       sim["data"].chance_scores, nb)
        probs = np.clip(res["probs"][i].astype(np.float64), 0.0, None)
        overlap = float(np.minimum(probs[:, 0], probs[:, 1]).sum(-1).mean())
        gap, leak = res["gaps"][i], float(res["leak"][i])
        hw = (hi - lo) / 2
        rh, rh_site = max_rhat(chains)
        # fit's ConvergenceWarning: r_hat > rhat_threshold outside the soft kind's nuisance
        # sites, > nuisance_rhat_threshold on them, or any divergent transition
        strict, strict_site = max_rhat(chains, [k for k in chains if k not in nuisance])
        loose, loose_site = max_rhat(chains, [k for k in chains if k in nuisance])
        with np.errstate(invalid="ignore", divide="ignore"):
            k_rhat = float(split_gelman_rubin(kc)) if kc.shape[1] >= 4 else np.nan
            k_ess = float(effective_sample_size(kc)) if kc.shape[1] >= 4 else np.nan
        n_div = int(res["diverging"][i].sum())
        rows.append({
            "shape": shape, "emission": emission, "seed": s, "truth": sim["kappa"],
            "kappa": float(k.mean()), "lower": lo, "upper": hi,
            "covered": bool(lo <= sim["kappa"] <= hi), "ppc_p": p, "ppc_chi2": obs,
            "ppc_rep_median": rep, "kappa_sd": float(k.std()), "component_overlap": overlap,
            "separable": gap is not None, "leak": leak if gap is not None else np.nan,
            # the SVI study's column: leak >= 0.2 x half-width (the threshold before it)
            "separation_warned": bool(gap is not None and leak >= 0.2 * hw),
            "method": "nuts",
            # the library's warnings with its current thresholds
            "warned": bool(p <= SCORE_CHECK_P or overlap > COMPONENT_OVERLAP
                           or (gap is not None and leak >= SEPARATION_RATIO * hw)),
            "divergences": n_div, "max_rhat": rh, "max_rhat_site": rh_site,
            "rhat_warned": bool(np.isfinite(rh) and rh > cfg.rhat_threshold),
            "max_rhat_strict": strict, "max_rhat_strict_site": strict_site,
            "max_rhat_nuisance": loose, "max_rhat_nuisance_site": loose_site,
            "convergence_warned": bool(n_div > 0 or (np.isfinite(strict) and strict > cfg.rhat_threshold)
                                       or (np.isfinite(loose) and loose > cfg.nuisance_rhat_threshold)),
            "kappa_rhat": k_rhat, "kappa_ess": k_ess,
            "mean_tree_steps": float(res["num_steps"][i].mean()),
            "chains": cfg.num_chains, "warmup": cfg.num_warmup, "samples": cfg.num_samples,
            "seconds_per_fit": sec})
    return rows


def library_check(shape: str, seed0: int, emission: str, cfg, out_rows: list | None = None,
                  index: int = 0) -> dict:
    """Fit study ``index`` of ``shape`` here and by ``inference.fit(method="nuts")`` (same key,
    model, priors, settings); the difference of the posterior-mean kappas in Monte Carlo SEs
    (the two runs' SEs from their kappa ESS combined)."""
    import warnings

    from numpyro.diagnostics import effective_sample_size

    from paper_repro.soft_model_robustness import simulate_study
    from softirr_stats import models
    from softirr_stats.inference import fit

    sim = simulate_study(shape, seed0 + index)
    res = fit_batch([sim], [index], emission, cfg)
    mine = res["by_chain"]["kappa"][0].astype(np.float64)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        post = fit(models.soft_agreement, sim["data"], method="nuts", seed=index, config=cfg,
                   progress=False, check_size=False, emission=emission)
    lib = np.asarray(post.samples_by_chain["kappa"], np.float64)
    se = np.sqrt(sum(np.var(a) / max(float(effective_sample_size(a)), 1.0) for a in (mine, lib)))
    out = {"shape": shape, "seed": seed0 + index, "kappa_batched": float(mine.mean()),
           "kappa_fit": float(lib.mean()), "mc_se": float(se),
           "z": float((mine.mean() - lib.mean()) / se),
           "max_abs_draw_diff": float(np.max(np.abs(mine - lib))) if mine.shape == lib.shape
           else np.nan}
    if out_rows is not None:
        out_rows.append(out)
    return out


def _done(path) -> set:
    import csv
    import os

    if not path or not os.path.exists(path):
        return set()
    with open(path) as fh:
        return {(r["shape"], r["emission"], int(r["seed"])) for r in csv.DictReader(fh)}


def run(shapes, emission, studies, seed0, batch, out, budget_s, cfg, priors=None) -> None:
    """Fit ``studies`` studies per shape, ``batch`` at a time, in rounds over the shapes (every
    shape grows evenly). ``budget_s``: no round starts that the last round's duration says
    would end past the budget, so every shape stops at the same number of studies.
    ``priors``: a ``SoftAgreementPriors`` other than the default; its
    ``monotone_concentration`` is then recorded in a column of that name."""
    from paper_repro.soft_model_robustness import _append_csv, csv_header, simulate_study

    done, t0, last = _done(out), time.time(), 0.0
    header = csv_header(out)
    if header is not None:  # one CSV, one set of columns: refused before any fit
        marked = "monotone_concentration" in header
        if marked != (priors is not None):
            raise SystemExit(f"{out} holds rows of {'other' if marked else 'the default'} priors; "
                             "write rows of other priors to a file of their own")
    for start in range(0, studies, batch):
        todo = {shape: [seed0 + s for s in range(start, min(start + batch, studies))
                        if (shape, emission, seed0 + s) not in done] for shape in shapes}
        if not any(todo.values()):
            continue
        if time.time() - t0 + last > budget_s:
            print("budget spent; rerun with the same --out to resume", flush=True)
            return
        t_round = time.time()
        for shape, seeds in todo.items():
            if not seeds:
                continue
            sims = [simulate_study(shape, s) for s in seeds]
            t = time.time()
            res = fit_batch(sims, [s - seed0 for s in seeds], emission, cfg, priors)
            sec = (time.time() - t) / len(seeds)
            rows = study_rows(shape, emission, seeds, sims, res, cfg, sec)
            if priors is not None:
                rows = [{**r, "monotone_concentration": priors.monotone_concentration}
                        for r in rows]
            for row in rows:
                if out:
                    _append_csv(out, row)
            cov = np.mean([r["covered"] for r in rows])
            print(f"{shape:12s} seeds {seeds[0]}-{seeds[-1]}: covered {cov:.2f}, "
                  f"divergent fits {sum(r['divergences'] > 0 for r in rows)}, "
                  f"{sec:.1f} s/fit", flush=True)
        last = time.time() - t_round


def compare(nuts_path: str, svi_path: str) -> str:
    """Markdown: per shape, NUTS beside SVI on the same seeds (the SVI rows of the default
    emission): coverage (binomial MC SE), bias (MC SE), mean width, the paired NUTS / SVI
    width ratio, the warnings with the library's current thresholds on misses and on covering
    fits, and NUTS's convergence (fits with divergences, with r_hat above the threshold)."""
    import pandas as pd

    from paper_repro.soft_model_check_study import _flags
    from softirr_stats.inference import NutsConfig
    from softirr_stats.inference._kinds import COMPONENT_OVERLAP, SCORE_CHECK_P
    from softirr_stats.inference._soft_check import SEPARATION_RATIO

    nuts = pd.read_csv(nuts_path)
    svi = pd.read_csv(svi_path)
    svi = svi[svi["emission"].isin(nuts["emission"].unique())]
    keys = ["shape", "emission", "seed"]
    svi = svi.merge(nuts[keys], on=keys)  # the same seeds only
    thr = (SCORE_CHECK_P, COMPONENT_OVERLAP, SEPARATION_RATIO)
    rh = NutsConfig().rhat_threshold
    lines = ["| shape | method | studies | 90% coverage (MC SE) | bias (MC SE) | width | "
             "NUTS - SVI: kappa (MC SE) | NUTS / SVI: width | warned: misses | "
             "warned: covering fits | fits with divergences | any r_hat > " f"{rh} | "
             f"kappa r_hat > {rh} | ConvergenceWarning |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for shape in nuts["shape"].unique():
        pair = nuts[nuts["shape"] == shape].merge(svi[svi["shape"] == shape], on=keys,
                                                  suffixes=("", "_svi"))
        ratio = ((pair["upper"] - pair["lower"]) / (pair["upper_svi"] - pair["lower_svi"])).mean()
        diff = pair["kappa"] - pair["kappa_svi"]
        paired = (f"{diff.mean():+.4f} ({diff.std(ddof=1) / np.sqrt(len(diff)):.4f}) | {ratio:.2f}"
                  if len(diff) else "- | -")
        for method, d in (("NUTS", nuts[nuts["shape"] == shape]), ("SVI", svi[svi["shape"] == shape])):
            if d.empty:  # a shape fitted by NUTS only (shared_floor): no SVI row, no paired difference
                continue
            d = d.copy()
            d["covered"] = d["covered"].astype(str) == "True"
            c, n = d["covered"].mean(), len(d)
            err = d["kappa"] - d["truth"]
            f = _flags(d, *thr)
            miss = ~d["covered"]
            conv = (f"{int((d['divergences'] > 0).sum())}/{n} | "
                    f"{int(d['rhat_warned'].astype(str).eq('True').sum())}/{n} | "
                    f"{int((d['kappa_rhat'] > rh).sum())}/{n} | "
                    + (f"{int(d['convergence_warned'].astype(str).eq('True').sum())}/"
                       f"{int(d['convergence_warned'].notna().sum())}"
                       if "convergence_warned" in d and d["convergence_warned"].notna().any()
                       else "-") if method == "NUTS" else "- | - | - | -")
            lines.append(
                f"| {shape} | {method} | {n} | {100 * c:.1f}% ({100 * np.sqrt(c * (1 - c) / n):.1f}) | "
                f"{err.mean():+.4f} ({err.std(ddof=1) / np.sqrt(n):.4f}) | "
                f"{(d['upper'] - d['lower']).mean():.3f} | "
                f"{paired if method == 'NUTS' else ' | '} | "
                f"{int((f & miss).sum())}/{int(miss.sum())} | "
                f"{int((f & ~miss).sum())}/{int((~miss).sum())} | {conv} |")
    lines.append("")
    lines.append(f"(warnings: score check p <= {SCORE_CHECK_P}, component overlap > "
                 f"{COMPONENT_OVERLAP}, separation leak >= {SEPARATION_RATIO} x half-width; "
                 f"r_hat threshold {rh})")
    return "\n".join(lines)


def compare_samplers(before_path: str, after_path: str) -> str:
    """Markdown: the same studies (shape, emission, seed, chain lengths) fitted by two samplers, per
    shape: coverage, the pairs whose interval covers in one run only, fits with a divergence and
    the divergences, ``fit``'s ``ConvergenceWarning`` under the rule before the nuisance sites (a
    divergence or any r_hat above the threshold) and under the rule now (where a row records it),
    kappa's r_hat above the threshold, and the mean leapfrog steps per transition."""
    import pandas as pd

    keys = ["shape", "emission", "seed", "warmup", "samples"]
    before, after = pd.read_csv(before_path), pd.read_csv(after_path)
    both = before.merge(after, on=keys, suffixes=("_b", "_a"))
    if both.empty:
        raise ValueError(f"{before_path} and {after_path} share no study (shape, emission, seed, chain lengths)")

    def count(x) -> int:
        return int(x.fillna(False).astype(bool).sum())

    lines = ["| shape | studies | covered, before / after | covered in one run only | fits with a divergence "
             "(divergences), before / after | warned by the old rule, before / after | warned now, after | "
             "kappa r_hat > 1.01, before / after | tree steps, before / after |",
             "|---|---|---|---|---|---|---|---|---|"]
    for shape, g in both.groupby("shape", sort=False):
        n = len(g)
        old_b = g["rhat_warned_b"].astype(bool) | (g["divergences_b"] > 0)
        old_a = g["rhat_warned_a"].astype(bool) | (g["divergences_a"] > 0)
        lines.append(
            f"| {shape} | {n} | {count(g.covered_b)} / {count(g.covered_a)} | "
            f"{int((g.covered_b.astype(bool) != g.covered_a.astype(bool)).sum())} | "
            f"{int((g.divergences_b > 0).sum())} ({int(g.divergences_b.sum())}) / "
            f"{int((g.divergences_a > 0).sum())} ({int(g.divergences_a.sum())}) | "
            f"{int(old_b.sum())} / {int(old_a.sum())} | {count(g.convergence_warned_a)} | "
            f"{int((g.kappa_rhat_b > 1.01).sum())} / {int((g.kappa_rhat_a > 1.01).sum())} | "
            f"{g.mean_tree_steps_b.mean():.1f} / {g.mean_tree_steps_a.mean():.1f} |")
    return "\n".join(lines)


def main() -> None:
    if not __package__:
        sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
    from paper_repro.soft_model_robustness import add_study_arguments
    from softirr_stats.models import DEFAULT_EMISSION

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    add_study_arguments(ap)
    ap.add_argument("--emission", default=DEFAULT_EMISSION)
    ap.add_argument("--batch", type=int, default=20, help="studies per compiled program call")
    ap.add_argument("--warmup", type=int, default=None, help="default: NutsConfig().num_warmup")
    ap.add_argument("--samples", type=int, default=None, help="default: NutsConfig().num_samples")
    ap.add_argument("--chains", type=int, default=None, help="default: NutsConfig().num_chains")
    ap.add_argument("--monotone-concentration", type=float, default=None,
                    help="SoftAgreementPriors.monotone_concentration (default: the library's; "
                         "when given, recorded per row)")
    ap.add_argument("--out", default=None)
    ap.add_argument("--budget-s", type=float, default=float("inf"))
    ap.add_argument("--no-check", action="store_true",
                    help="skip the start-up comparison with inference.fit")
    ap.add_argument("--check-out", default=None, help="append the start-up comparison to a CSV")
    ap.add_argument("--compare", default=None, help="print the NUTS / SVI table of a rows CSV")
    ap.add_argument("--svi", default="docs/soft_model_robustness/check_study.csv")
    ap.add_argument("--samplers", nargs=2, metavar=("BEFORE", "AFTER"), default=None,
                    help="print the paired table of the same studies fitted by two samplers (two rows CSVs)")
    a = ap.parse_args()
    if a.compare:
        print(compare(a.compare, a.svi))
        return
    if a.samplers:
        print(compare_samplers(*a.samplers))
        return
    cfg = _nuts_config(a.warmup, a.samples, a.chains)
    priors = None
    if a.monotone_concentration is not None:
        from softirr_stats.models import SoftAgreementPriors

        priors = SoftAgreementPriors(monotone_concentration=a.monotone_concentration)
    if priors is not None and not a.no_check:
        raise SystemExit("--monotone-concentration: pass --no-check (the start-up check fits "
                         "the default priors)")
    from softirr_stats.inference._fit import nuts_model
    from softirr_stats.models import soft_agreement

    print(f"NUTS: {cfg.num_chains} chains x ({cfg.num_warmup} + {cfg.num_samples}), target "
          f"accept {nuts_model('soft', soft_agreement, cfg)[1]}, depth <= {cfg.max_tree_depth}", flush=True)
    if not a.no_check:
        t = time.time()
        c = library_check(a.shapes[0], a.seed, a.emission, cfg)
        print(f"start-up check ({time.time() - t:.0f} s): {c}", flush=True)
        if a.check_out:
            from paper_repro.soft_model_robustness import _append_csv

            _append_csv(a.check_out, {**c, "chains": cfg.num_chains, "warmup": cfg.num_warmup,
                                      "samples": cfg.num_samples})
        if not abs(c["z"]) <= 4.0:
            raise SystemExit("the batched NUTS fit does not match inference.fit: stopping")
    run(a.shapes, a.emission, a.studies, a.seed, a.batch, a.out, a.budget_s, cfg, priors)


if __name__ == "__main__":
    main()
