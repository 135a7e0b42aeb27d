"""Divergent transitions of the soft model's NUTS fits under two parametrisations and three step sizes.

The soft model's NUTS fits warned (``ConvergenceWarning``) on most studies with separable scores
(bands, exact 0/1) for 1-17 divergent transitions of 1,000, while their intervals covered
(docs/annotator_models.md, "Convergence of the soft model's NUTS fits"); ``gamma_ta90`` is what
``inference.fit`` does now (``SoftKind.nuts_gamma_sites``, ``nuts_target_accept``). This script fits the
same studies as :mod:`paper_repro.soft_model_nuts_study` (:func:`~paper_repro.soft_model_robustness.simulate_study`,
the library's default monotone emission and priors, 2 chains of 500 + 500 draws, the key of
``inference.fit(..., seed=s)``) under these variants:

* ``stick``: the model as written. NumPyro samples a Dirichlet in stick-breaking coordinates
  (``inference.fit``'s NUTS before this study).
* ``gamma``: the same Dirichlet priors on the emission's pieces and atoms, sampled as
  normalised independent Gamma variables (``softirr_stats.models.GammaDirichlet``): NUTS then moves in the log
  of each piece's weight, one coordinate per piece, plus one for their total (a Gamma(n alpha)
  the likelihood does not see). The posterior of every quantity of the model is unchanged.
* ``_ta90``, ``_ta95`` suffixes: NUTS's target acceptance 0.9 / 0.95 instead of 0.8 (smaller steps).
* ``_dense`` suffix (after the others): NUTS adapts one dense block of its mass matrix for the intercept
  and the rater effects (:data:`DENSE_BLOCK`), which trade off along a ridge with 3 raters; the same
  posterior, another step geometry.

Per fit (one CSV row): the truth, the posterior mean and equal-tailed 90% interval of kappa,
covered, the divergent transitions, kappa's split r_hat and ESS, the mean tree size (leapfrog
steps per transition: the cost) and the seconds per fit (a batch's, compile included).

Usage::

    nice -n 10 python paper_repro/soft_model_divergences.py --out rows.csv     # resumable
    python paper_repro/soft_model_divergences.py --summary rows.csv
"""

import argparse
import csv
import dataclasses
import functools
import pathlib
import sys
import time

import numpy as np

if __package__ in (None, ""):  # run as a script: the repository root on the path
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))

VARIANTS = ("stick", "gamma", "stick_ta90", "gamma_ta90", "stick_ta95")
COLUMNS = ("shape", "variant", "seed", "warmup", "truth", "kappa", "lower", "upper", "covered", "div",
           "kappa_rhat", "kappa_ess", "steps", "sec", "emission", "gold", "histogram_concentration")
#: The histogram emission's Dirichlet sites (its cells and atoms): the ``gamma`` variants draw them
#: as normalised Gammas too (the monotone sites are ``SoftKind.nuts_gamma_sites``).
HISTOGRAM_SITES = ("equiv_hist", "nonequiv_hist")
LEVEL = 0.90


#: Sites of the ``_dense`` variants' one dense block of NUTS's mass matrix: the intercept and the rater
#: effects, which trade off along a ridge with 3 raters (the other sites keep a diagonal mass).
DENSE_BLOCK = ("intercept", "rater_z", "rater_scale")


def variant_dense(variant: str) -> bool:
    """Does the variant adapt a dense mass-matrix block for :data:`DENSE_BLOCK` (suffix ``_dense``)?

    Examples
    --------
    >>> variant_dense("gamma_ta90_dense"), variant_dense("gamma_ta90")
    (True, False)
    """
    return variant.endswith("_dense")


def variant_settings(variant: str) -> tuple[bool, float]:
    """``(gamma parametrisation?, target acceptance)`` of a variant name (a ``_dense`` suffix:
    :func:`variant_dense`).

    Examples
    --------
    >>> variant_settings("stick"), variant_settings("gamma_ta90"), variant_settings("gamma_ta90_dense")
    ((False, 0.8), (True, 0.9), (True, 0.9))
    """
    base, sep, ta = variant.removesuffix("_dense").partition("_ta")
    if base not in ("stick", "gamma") or (sep and not ta.isdigit()):
        raise ValueError(f"unknown variant {variant!r}; expected one of {VARIANTS}")
    return base == "gamma", float(f"0.{ta}") if ta else 0.8


def histogram_concentration(value: float | None) -> float:
    """``value``, or the library's ``SoftAgreementPriors().histogram_concentration`` when None."""
    from softirr_stats.models import SoftAgreementPriors

    return float(SoftAgreementPriors().histogram_concentration if value is None else value)


def soft_model(gamma: bool, emission: str | None = None, concentration: float | None = None):
    """The library's soft model (default priors but the histogram emission's total ``concentration``,
    None: the library's; ``emission`` None: the default one), its Dirichlet sites drawn as normalised
    Gammas when ``gamma``."""
    from softirr_stats.inference._kinds import SoftKind
    from softirr_stats.models import (
        DEFAULT_EMISSION,
        SoftAgreementPriors,
        gamma_dirichlet_sites,
        soft_agreement,
    )

    priors = SoftAgreementPriors(histogram_concentration=histogram_concentration(concentration))
    model = functools.partial(soft_agreement, priors=priors, emission=emission or DEFAULT_EMISSION)
    # the monotone emission's pieces, kept pieces and atoms (the sites fit's NUTS reparametrises) and
    # the histogram emission's cells (a site the model does not have is left alone)
    sites = tuple(dict.fromkeys((*SoftKind.nuts_gamma_sites, *HISTOGRAM_SITES)))
    return gamma_dirichlet_sites(model, sites) if gamma else model


_TEMPLATES: dict = {}


@functools.lru_cache(maxsize=8)
def _program(variant: str, warmup: int, samples: int, template_key: tuple, emission: str,
             concentration: float):
    import jax
    from numpyro.infer import MCMC, NUTS, init_to_mean

    from paper_repro.soft_model_check_study import _shim
    from softirr_stats.inference import NutsConfig

    gamma, target = variant_settings(variant)
    cfg = dataclasses.replace(NutsConfig(), num_warmup=warmup, num_samples=samples, target_accept=target)
    model, template = soft_model(gamma, emission, concentration), _TEMPLATES[template_key]

    def one(key, ws, cs, gs, gl):
        kernel = NUTS(model, target_accept_prob=cfg.target_accept, max_tree_depth=cfg.max_tree_depth,
                      init_strategy=init_to_mean(), dense_mass=[DENSE_BLOCK] if variant_dense(variant) else False)
        mcmc = MCMC(kernel, num_warmup=cfg.num_warmup, num_samples=cfg.num_samples, num_chains=cfg.num_chains,
                    chain_method="vectorized", progress_bar=False)
        mcmc.run(key, _shim(template, ws, cs, *((gs, gl) if template.n_gold else ())),
                 extra_fields=("diverging", "num_steps"))
        extra = mcmc.get_extra_fields(group_by_chain=True)
        return {"kappa": mcmc.get_samples(group_by_chain=True)["kappa"], "div": extra["diverging"],
                "steps": extra["num_steps"]}

    return jax.jit(jax.vmap(one))


def fit_rows(shape: str, variant: str, seeds: list, seed0: int, warmup: int, samples: int,
             emission: str = "monotone", n_gold: int = 0, concentration: float | None = None) -> list[dict]:
    """Fit the studies ``seeds`` of ``shape`` under ``variant`` (one program); one row each.
    ``n_gold`` judged pairs per study are the model's gold pairs."""
    import jax
    import jax.numpy as jnp
    from numpyro.diagnostics import effective_sample_size, split_gelman_rubin

    from paper_repro.soft_model_check_study import gold_arrays
    from paper_repro.soft_model_nuts_study import fit_keys
    from paper_repro.soft_model_robustness import simulate_study

    sims = [simulate_study(shape, s, n_gold=n_gold) for s in seeds]
    t = sims[0]["data"]
    key = (t.n_within, t.n_chance, t.n_raters, t.n_items, t.n_gold)
    _TEMPLATES.setdefault(key, t)
    ws = jnp.asarray(np.stack([s["data"].within_scores for s in sims]), jnp.float32)
    cs = jnp.asarray(np.stack([s["data"].chance_scores for s in sims]), jnp.float32)
    start = time.time()
    gs, gl = gold_arrays(sims, n_gold)
    concentration = histogram_concentration(concentration)
    res = _program(variant, warmup, samples, key, emission, concentration)(
        fit_keys([s - seed0 for s in seeds]), ws, cs, gs, gl)
    res = jax.tree_util.tree_map(np.asarray, res)
    sec = (time.time() - start) / len(seeds)
    rows = []
    for i, (s, sim) in enumerate(zip(seeds, sims, strict=True)):
        kc = res["kappa"][i].astype(np.float64)
        lo, hi = np.quantile(kc.ravel(), [(1 - LEVEL) / 2, (1 + LEVEL) / 2])
        rows.append({"shape": shape, "variant": variant, "seed": s, "warmup": warmup, "truth": sim["kappa"],
                     "kappa": kc.mean(), "lower": lo, "upper": hi, "covered": bool(lo <= sim["kappa"] <= hi),
                     "div": int(res["div"][i].sum()), "kappa_rhat": float(split_gelman_rubin(kc)),
                     "kappa_ess": float(effective_sample_size(kc)), "steps": float(res["steps"][i].mean()),
                     "sec": sec, "emission": emission, "gold": n_gold,
                     "histogram_concentration": concentration})
    return rows


def summary(path: str):
    """Per emission, gold pairs, shape and variant: fits, fits with a divergence, divergences, coverage,
    mean tree size."""
    import pandas as pd

    d = pd.read_csv(path)
    return d.groupby(["emission", "gold", "histogram_concentration", "shape", "variant"]).agg(
        fits=("seed", "size"), fits_diverging=("div", lambda x: int((x > 0).sum())),
        divergences=("div", "sum"), covered=("covered", "mean"), tree_steps=("steps", "mean"),
        kappa_ess=("kappa_ess", "median"))


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shapes", nargs="+", default=["bands", "point_masses"])
    ap.add_argument("--variants", nargs="+", default=list(VARIANTS))
    ap.add_argument("--studies", type=int, default=12)
    ap.add_argument("--seed", type=int, default=1000)
    ap.add_argument("--batch", type=int, default=4, help="studies per compiled program call")
    ap.add_argument("--warmup", type=int, default=500)
    ap.add_argument("--samples", type=int, default=500)
    ap.add_argument("--emission", default="monotone", help="the soft model's emission (monotone, histogram, beta)")
    ap.add_argument("--gold", type=int, default=0, help="judged pairs per study, the model's gold pairs")
    ap.add_argument("--histogram-concentration", type=float, default=None,
                    help="SoftAgreementPriors.histogram_concentration (default: the library's)")
    ap.add_argument("--out", default="divergences.csv")
    ap.add_argument("--summary", metavar="CSV", help="print the summary of a rows CSV and exit")
    a = ap.parse_args(argv)
    if a.summary:
        print(summary(a.summary).round(3).to_string())
        return
    for v in a.variants:
        variant_settings(v)
    hc = histogram_concentration(a.histogram_concentration)
    out = pathlib.Path(a.out)
    done = set()
    if out.exists():
        with out.open(newline="") as fh:
            reader = csv.DictReader(fh)
            if tuple(reader.fieldnames or ()) != COLUMNS:
                raise SystemExit(f"{out}: columns {reader.fieldnames} differ from {list(COLUMNS)}")
            done = {(r["shape"], r["variant"], int(r["seed"]), int(r["warmup"]), r["emission"], int(r["gold"]),
                     float(r["histogram_concentration"])) for r in reader}
    with out.open("a", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=COLUMNS)
        if not done and out.stat().st_size == 0:
            writer.writeheader()
        for shape in a.shapes:
            for start in range(0, a.studies, a.batch):
                batch = [a.seed + s for s in range(start, min(start + a.batch, a.studies))]
                for v in a.variants:
                    seeds = [s for s in batch if (shape, v, s, a.warmup, a.emission, a.gold, hc) not in done]
                    if not seeds:
                        continue
                    rows = fit_rows(shape, v, seeds, a.seed, a.warmup, a.samples, a.emission, a.gold, hc)
                    writer.writerows(rows)
                    fh.flush()
                    print(f"{shape:12s} {v:11s} seeds {seeds[0]}-{seeds[-1]}: divergences "
                          f"{[r['div'] for r in rows]}, {rows[0]['sec']:.1f} s/fit", flush=True)


if __name__ == "__main__":
    main()
