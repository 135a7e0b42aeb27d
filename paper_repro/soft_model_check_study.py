"""Soft model: 90% coverage of the kappa interval and the score check, many studies per shape.

The fits of :mod:`paper_repro.soft_model_robustness` go one at a time through
:func:`softirr_stats.inference.fit` (a compile per fit: 5-80 s each on a shared machine).
Here a batch of studies of one score shape is fitted in ONE compiled program,
``jax.vmap`` over the studies' scores: the simulated design (3 raters, 150 items, 1,000
chance pairs) gives every study the same pair layout, only the scores differ. Each fit is the
library's SVI setting of the robustness study: the soft model (:func:`softirr_stats.models.
soft_agreement`), a multivariate-normal guide initialised at the prior means (init scale
0.05), Adam with a cosine schedule from 0.05 (to 5%), 1,000 steps, 400 draws. The kappa
interval is the equal-tailed 90% interval of its draws (``Posterior.interval``).

The score check is the library's (``Posterior.score_check``): the Pearson chi-square of the
observed within-item and chance score histograms (``monotone_bins`` cells) against the
posterior predictive mean counts, observed vs replicated, p-value ``P(rep >= obs)``; the
script calls the library's statistic (``inference.score_check_statistic``, what
``score_check`` runs) on the draws of the vectorised fit (:func:`score_check_stat`).

Gold pairs (``--gold-n N``, one cell per value): each study also gets N human-judged pairs,
drawn by ``simulate_study(..., n_gold=N)`` after the study's scores (so a study's scores and
truth are the same with and without them): a simple random sample without replacement of
N // 2 of its within-item pairs and N - N // 2 of its chance pairs, each with its true
equivalence as the 0/1 label and its score as it is (the pairs stay among the model's
within-item and chance pairs too, as a judged sheet's pairs do). ``--gold-table`` prints
coverage, bias, width and the warnings with the library's current thresholds per shape,
emission and gold size.

Per fit (one CSV row): truth, posterior-mean kappa, interval, covered, the check's p-value,
observed chi-square and the replicates' median, and the kappa draws' SD. The rows calibrate
the check's threshold (``--confusion``: flagged / not x covered / missed per threshold).

Usage::

    python paper_repro/soft_model_check_study.py --shapes overlap calibrated bands \\
        --emission monotone beta --studies 300 --batch 50 --out rows.csv
    python paper_repro/soft_model_check_study.py --confusion rows.csv
    python paper_repro/soft_model_check_study.py --emission monotone --gold-n 200 50 \
        --studies 300 --batch 50 --out gold_rows.csv
    python paper_repro/soft_model_check_study.py --gold-table gold_rows.csv

Resumable: rows already in ``--out`` (shape, emission, seed, gold size) are skipped; ``--budget-s``
stops starting new batches. Study ``s`` uses the simulation seed ``--seed + s`` (default
1000, the seeds of the robustness study) and the fit key ``s``.
"""

import argparse
import copy
import functools
import os
import pathlib
import sys
import time

import numpy as np

STEPS, DRAWS, LR = 1000, 400, 0.05


def _shim(template, ws, cs, gs=None, gl=None):
    """``template`` (a PairScores) with its scores (and gold pairs) replaced by (traced)
    arrays."""
    d = copy.copy(template)
    object.__setattr__(d, "within_scores", ws)
    object.__setattr__(d, "chance_scores", cs)
    if gs is not None:
        object.__setattr__(d, "gold_scores", gs)
        object.__setattr__(d, "gold_labels", gl)
    return d


def gold_arrays(sims: list, n_gold: int) -> tuple:
    """The studies' gold scores (float32) and labels (int32) stacked, shape ``(len(sims), n_gold)``:
    the batched programs' arguments (``(len(sims), 0)`` without gold pairs)."""
    import jax.numpy as jnp

    gs = np.stack([s["data"].gold_scores if n_gold else np.zeros(0) for s in sims])
    gl = np.stack([s["data"].gold_labels if n_gold else np.zeros(0, int) for s in sims])
    return jnp.asarray(gs, jnp.float32), jnp.asarray(gl, jnp.int32)


@functools.lru_cache(maxsize=8)
def _batched_fit(emission: str, steps: int, template_key: tuple):
    """A jitted ``(keys, ws, cs, below, gs, gl) -> draws`` for a batch of studies (one compile
    per shape and number of gold pairs; ``gs`` / ``gl``: the gold scores and labels, shape
    (batch, n_gold), or (batch, 0) without gold pairs)."""
    import jax
    import jax.numpy as jnp
    import optax
    from numpyro.infer import SVI, Predictive
    from numpyro.infer.autoguide import AutoMultivariateNormal
    from numpyro.infer.initialization import init_to_mean

    from softirr_stats.inference._elbo import OrderedTraceELBO
    from softirr_stats.models import SoftAgreementPriors, soft_agreement
    from softirr_stats.models._soft import cell_probabilities, within_responsibilities

    template = _TEMPLATES[template_key]
    priors = SoftAgreementPriors()
    model = functools.partial(soft_agreement, priors=priors, emission=emission)
    names = ("mean_logit0", "mean_gap_logit", "concentration", "equiv_weights",
             "nonequiv_weights", "equiv_atoms", "nonequiv_atoms", "equiv_hist", "nonequiv_hist")

    def one(key, ws, cs, below, gs, gl):
        data = _shim(template, ws, cs, *((gs, gl) if template.n_gold else ()))
        guide = AutoMultivariateNormal(model, init_loc_fn=init_to_mean(), init_scale=0.05)
        sched = optax.cosine_decay_schedule(LR, steps, alpha=0.05)
        # the library's ELBO: numpyro's Trace_ELBO sums its site terms in an order that changes with
        # PYTHONHASHSEED, so its rows were not bit-reproducible from one process to the next
        svi = SVI(model, guide, optax.adam(sched), OrderedTraceELBO())
        k_fit, k_guide, k_model = jax.random.split(key, 3)
        state = svi.init(k_fit, data)

        def body(st, _):
            st, loss = svi.update(st, data)
            return st, loss

        state, losses = jax.lax.scan(body, state, None, length=steps)
        params = svi.get_params(state)
        latent = guide.sample_posterior(k_guide, params, sample_shape=(DRAWS,))
        det = Predictive(model, posterior_samples=latent,
                         return_sites=["kappa", "pi_within", "pi_chance"])(k_model, data)
        em = {k: v for k, v in latent.items() if k in names}
        # the separation check's leak (inference._soft_check.separation_leak): the share of
        # within-item pairs counted equivalent although they score below the gap
        leak = jax.vmap(lambda p: jnp.where(below, within_responsibilities(
            p, data, emission, priors), 0.0).sum() / ws.size)(latent)
        probs = jax.vmap(lambda p: cell_probabilities(p, emission, priors.monotone_bins))(em)
        return {"kappa": det["kappa"], "pi_within": det["pi_within"],
                "pi_chance": det["pi_chance"], "probs": probs,
                "final_loss": jnp.mean(losses[-steps // 10:]), "leak": leak.mean()}

    return jax.jit(jax.vmap(one))


_TEMPLATES: dict = {}


def score_check_stat(probs, pw, pc, ws, cs, n_bins: int, seed: int = 0) -> tuple:
    """The library's score check (``score_check``) from one fit's draws: ``(p, observed,
    median replicated)`` of the Pearson chi-square of the score histograms. It calls the
    library's statistic (``score_check_statistic``, the function ``score_check`` runs), fed
    the draws of the vmapped fit."""
    from softirr_stats.inference import score_check_statistic

    p, d_obs, d_rep = score_check_statistic(probs, pw, pc, ws, cs, n_bins,
                                            np.random.default_rng(seed))
    return p, float(d_obs.mean()), float(np.median(d_rep))


def _done(path):
    import csv

    if not path or not os.path.exists(path):
        return set()
    with open(path) as fh:
        return {(r["shape"], r["emission"], int(r["seed"]), int(r.get("gold_n") or 0))
                for r in csv.DictReader(fh)}


def run(shapes, emissions, studies, seed0, batch, out, budget_s, steps=STEPS, gold_ns=(0,)):
    import jax
    import jax.numpy as jnp

    from paper_repro.soft_model_robustness import _append_csv, simulate_study
    from softirr_stats.models import SoftAgreementPriors
    from softirr_stats.models._soft_separation import pair_scores_gap

    nb = SoftAgreementPriors().monotone_bins
    done, t0 = _done(out), time.time()
    cells = [(shape, emission, g) for g in gold_ns for shape in shapes for emission in emissions
             if g or emission != "histogram"]  # the histogram emission needs gold pairs
    for start in range(0, studies, batch):  # batches outermost: every cell grows evenly
        for shape, emission, n_gold in cells:
            seeds = [seed0 + s for s in range(start, min(start + batch, studies))
                     if (shape, emission, seed0 + s, n_gold) not in done]
            if not seeds:
                continue
            if time.time() - t0 > budget_s:
                print("budget spent; rerun with the same --out to resume", flush=True)
                return
            # the gold pairs are drawn after the scores: a study's scores and truth are
            # the same with and without them (simulate_study)
            sims = [simulate_study(shape, s, n_gold=n_gold) for s in seeds]
            tmpl = sims[0]["data"]
            key = (tmpl.n_within, tmpl.n_chance, tmpl.n_raters, tmpl.n_items, tmpl.n_gold)
            if key not in _TEMPLATES:
                _TEMPLATES[key] = tmpl
            for s in sims:  # the layout every traced study shares
                assert np.array_equal(s["data"].within_raters, _TEMPLATES[key].within_raters)
            fitb = _batched_fit(emission, steps, key)
            ws = jnp.asarray(np.stack([s["data"].within_scores for s in sims]), jnp.float32)
            cs = jnp.asarray(np.stack([s["data"].chance_scores for s in sims]), jnp.float32)
            gaps = [pair_scores_gap(s["data"]) for s in sims]
            below = jnp.asarray(np.stack([
                s["data"].within_scores <= (-1.0 if g is None else g[0])
                for s, g in zip(sims, gaps, strict=True)]))
            gs, gl = gold_arrays(sims, n_gold)
            keys = jnp.stack([jax.random.PRNGKey(s - seed0) for s in seeds])
            t = time.time()
            res = jax.tree_util.tree_map(np.asarray, fitb(keys, ws, cs, below, gs, gl))
            sec = (time.time() - t) / len(seeds)
            for i, (s, sim) in enumerate(zip(seeds, sims, strict=True)):
                k = res["kappa"][i].astype(np.float64)
                lo, hi = np.quantile(k, [0.05, 0.95])
                p, obs, rep = score_check_stat(res["probs"][i], res["pi_within"][i],
                                               res["pi_chance"][i],
                                               sim["data"].within_scores,
                                               sim["data"].chance_scores, nb)
                row = {"shape": shape, "emission": emission, "seed": s, "gold_n": n_gold,
                       "truth": sim["kappa"], "kappa": float(k.mean()), "lower": lo,
                       "upper": hi, "covered": bool(lo <= sim["kappa"] <= hi),
                       "ppc_p": p, "ppc_chi2": obs, "ppc_rep_median": rep,
                       "kappa_sd": float(k.std()),
                       # overlap of the fitted components' score cells, sum_b min(f0, f1)
                       # (posterior mean): how much kappa rests on the shape assumption
                       "component_overlap": float(np.minimum(
                           res["probs"][i][:, 0], res["probs"][i][:, 1]).sum(-1).mean()),
                       "separable": gaps[i] is not None,
                       "leak": float(res["leak"][i]) if gaps[i] is not None else np.nan,
                       # the separation check's warning before the calibration: leak >=
                       # 0.2 x half-width (the library's thresholds now: _flags)
                       "separation_warned": bool(gaps[i] is not None and res["leak"][i]
                                                 >= 0.2 * (hi - lo) / 2),
                       "final_loss": float(res["final_loss"][i]),
                       "seconds_per_fit": sec, "steps": steps}
                if out:
                    _append_csv(out, row)
            cov = np.mean([np.quantile(res["kappa"][i], 0.05) <= sim["kappa"]
                           <= np.quantile(res["kappa"][i], 0.95)
                           for i, sim in enumerate(sims)])
            print(f"{shape:12s} {emission:9s} gold {n_gold:4d} seeds {seeds[0]}-{seeds[-1]}: covered "
                  f"{cov:.2f}, {sec:.2f} s/fit", flush=True)


def confusion(path: str, thresholds=(0.001, 0.01, 0.05, 0.1)) -> str:
    """Markdown: per shape x emission, coverage (binomial MC SE), bias (MC SE), width and the
    share of fits each check warned on; then, per emission, flagged / not x covered / missed
    for each p-value threshold of the score check, alone and with the separation check."""
    import pandas as pd

    df = pd.read_csv(path)
    for c in ("covered", "separation_warned"):
        df[c] = df[c].astype(str) == "True"
    df["err"] = df["kappa"] - df["truth"]
    lines = ["| shape | emission | studies | 90% coverage (MC SE) | bias (MC SE) | width | "
             "score check p <= 0.01 | separation check | misses warned (either) |",
             "|---|---|---|---|---|---|---|---|---|"]
    for (shape, em), d in df.groupby(["shape", "emission"], sort=False):
        c, n = d["covered"].mean(), len(d)
        warned = (d["ppc_p"] <= 0.01) | d["separation_warned"]
        miss = ~d["covered"]
        lines.append(
            f"| {shape} | {em} | {n} | {100 * c:.1f}% ({100 * np.sqrt(c * (1 - c) / n):.1f}) | "
            f"{d['err'].mean():+.4f} ({d['err'].std(ddof=1) / np.sqrt(n):.4f}) | "
            f"{(d['upper'] - d['lower']).mean():.3f} | {(d['ppc_p'] <= 0.01).mean():.0%} | "
            f"{d['separation_warned'].mean():.0%} | {int((warned & miss).sum())}/{int(miss.sum())} |")
    lines += ["", "| emission | warning | flagged & missed | flagged & covered | "
              "not flagged & missed | not flagged & covered |", "|---|---|---|---|---|---|"]
    for em, d in df.groupby("emission", sort=False):
        m = ~d["covered"]
        for t in thresholds:
            for label, f in ((f"score check p <= {t}", d["ppc_p"] <= t),
                             (f"score check p <= {t} or separation", (d["ppc_p"] <= t)
                              | d["separation_warned"])):
                lines.append(f"| {em} | {label} | {int((f & m).sum())} | {int((f & ~m).sum())} | "
                             f"{int((~f & m).sum())} | {int((~f & ~m).sum())} |")
    return "\n".join(lines)


def _flags(d, p_max: float, overlap_max: float, sep_ratio: float):
    """The score check's warnings on rows ``d`` with the given thresholds: the predictive
    p-value, the fitted components' overlap and the separation leak against the half-width."""
    hw = (d["upper"] - d["lower"]) / 2
    sep = d["separable"].astype(str).eq("True") & (d["leak"].fillna(0.0) >= sep_ratio * hw)
    return (d["ppc_p"] <= p_max) | (d["component_overlap"] > overlap_max) | sep


def calibrate(path: str, split: int = 1150) -> str:
    """Choose the check's thresholds on the studies with seed < ``split`` (both emissions,
    all shapes pooled: the thresholds maximising flagged misses minus flagged covering fits,
    as shares, i.e. Youden's J) and give the confusion table on the studies from ``split``
    on, before (the library's thresholds until now: p <= 0.01, no overlap warning, leak >=
    0.2 x half-width) and after."""
    import itertools

    import pandas as pd

    df = pd.read_csv(path)
    df["covered"] = df["covered"].astype(str) == "True"
    train, test = df[df["seed"] < split], df[df["seed"] >= split]
    # ties go to the first: the library's p <= 0.01, then the fewest warnings
    grid = itertools.product((0.01, 0.001, 0.05), (1.0, 0.6, 0.55, 0.5, 0.45, 0.4, 0.35, 0.3),
                             (np.inf, 2.0, 1.0, 0.5, 0.2))
    mono = train  # both emissions: the check serves any
    m = ~mono["covered"]

    def youden(t):
        f = _flags(mono, *t)
        return (f & m).sum() / max(m.sum(), 1) - (f & ~m).sum() / max((~m).sum(), 1)

    best = max(grid, key=youden)
    lines = [f"chosen on seeds < {split} ({len(mono)} fits): p <= {best[0]}, "
             f"overlap > {best[1]}, leak >= {best[2]} x half-width (J = {youden(best):.3f})", "",
             "| emission | shape | thresholds | studies | flagged & missed | flagged & covered | "
             "not flagged & missed | not flagged & covered |", "|---|---|---|---|---|---|---|---|"]
    for (em, shape), d in test.groupby(["emission", "shape"], sort=False):
        mm = ~d["covered"]
        for label, t in (("before", (0.01, np.inf, 0.2)), ("after", best)):
            f = _flags(d, *t)
            lines.append(f"| {em} | {shape} | {label} | {len(d)} | {int((f & mm).sum())} | "
                         f"{int((f & ~mm).sum())} | {int((~f & mm).sum())} | "
                         f"{int((~f & ~mm).sum())} |")
    return "\n".join(lines)


def gold_table(path: str) -> str:
    """Markdown: per shape x emission x gold size, 90% coverage (binomial MC SE), bias of the
    posterior-mean kappa (MC SE), mean width, and the share of fits the score check warns on
    with the library's current thresholds (``SCORE_CHECK_P``, ``COMPONENT_OVERLAP``,
    ``SEPARATION_RATIO``), and how many of the misses it warned on."""
    import pandas as pd

    from softirr_stats.inference._kinds import COMPONENT_OVERLAP, SCORE_CHECK_P
    from softirr_stats.inference._soft_check import SEPARATION_RATIO

    df = pd.read_csv(path)
    df["gold_n"] = df["gold_n"].fillna(0).astype(int) if "gold_n" in df else 0
    df["covered"] = df["covered"].astype(str) == "True"
    df["err"] = df["kappa"] - df["truth"]
    df["warned"] = _flags(df, SCORE_CHECK_P, COMPONENT_OVERLAP, SEPARATION_RATIO)
    lines = ["| shape | emission | gold pairs | studies | 90% coverage (MC SE) | bias (MC SE) | "
             "width | warned | misses warned |", "|---|---|---|---|---|---|---|---|---|"]
    for (shape, em, g), d in df.groupby(["shape", "emission", "gold_n"], sort=False):
        c, n = d["covered"].mean(), len(d)
        miss = ~d["covered"]
        lines.append(
            f"| {shape} | {em} | {g} | {n} | {100 * c:.1f}% ({100 * np.sqrt(c * (1 - c) / n):.1f}) | "
            f"{d['err'].mean():+.4f} ({d['err'].std(ddof=1) / np.sqrt(n):.4f}) | "
            f"{(d['upper'] - d['lower']).mean():.3f} | {d['warned'].mean():.0%} | "
            f"{int((d['warned'] & miss).sum())}/{int(miss.sum())} |")
    return "\n".join(lines)


def main() -> None:
    if not __package__:
        sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
    from paper_repro.soft_model_robustness import add_study_arguments

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    add_study_arguments(ap)
    ap.add_argument("--emission", nargs="+", default=["monotone", "beta"])
    ap.add_argument("--batch", type=int, default=50, help="studies per compiled program call")
    ap.add_argument("--steps", type=int, default=STEPS)
    ap.add_argument("--out", default=None)
    ap.add_argument("--gold-n", type=int, nargs="+", default=[0],
                    help="gold pairs per study (one cell per value; 0 = none): a simple random "
                         "sample without replacement of half of them from the study's "
                         "within-item pairs and half from its chance pairs, each with its true "
                         "equivalence (simulate_study(..., n_gold=N))")
    ap.add_argument("--budget-s", type=float, default=float("inf"))
    ap.add_argument("--gold-table", default=None,
                    help="print the coverage table by gold size of a rows CSV (the library's "
                         "current warning thresholds)")
    ap.add_argument("--confusion", default=None, help="print the tables of a rows CSV")
    ap.add_argument("--calibrate", default=None,
                    help="choose the check's thresholds on half of a rows CSV's studies, "
                         "test them on the other half")
    ap.add_argument("--split", type=int, default=1150, help="--calibrate: first test seed")
    a = ap.parse_args()
    if a.confusion:
        print(confusion(a.confusion))
        return
    if a.calibrate:
        print(calibrate(a.calibrate, a.split))
        return
    if a.gold_table:
        print(gold_table(a.gold_table))
        return
    run(a.shapes, a.emission, a.studies, a.seed, a.batch, a.out, a.budget_s, a.steps,
        tuple(a.gold_n))


if __name__ == "__main__":
    main()
