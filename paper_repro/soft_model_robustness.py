"""Robustness of the soft-agreement model to score distributions that are not Beta-shaped.

Simulated studies (3 raters, 150 items, 40 latent concepts): every item has a true concept,
each rater names it with probability 0.6 / 0.7 / 0.8 and otherwise a uniformly random
concept. A label pair is equivalent when the two concepts are equal; its equivalence score
is drawn from the shape under study:

* ``bands``: U[0.6, 1] if equivalent, U[0, 0.35] otherwise (the failing case of the issue);
* ``point_masses``: equivalent pairs score exactly 1 (identical strings) half of the time,
  else U[0.6, 1); non-equivalent pairs score exactly 0 half of the time, else U(0, 0.35];
* ``bimodal``: equivalent 0.5 Beta(40, 14) (~0.74) + 0.5 Beta(60, 3) (~0.95); non-equivalent
  0.5 Beta(3, 30) (~0.09) + 0.5 Beta(20, 30) (~0.40);
* ``heavy_tails``: equivalent 0.85 U[0.6, 1] + 0.15 U[0, 1]; non-equivalent 0.85 U[0, 0.4]
  + 0.15 U[0, 1].

The real estimator scores of the seed paper's populations (not run by default; name them in
``--shapes``):

* ``paper_indel`` / ``paper_levenshtein``: one single-label population of
  :func:`paper_repro.generators.single_label_populations` on the vendored HPO fixture per
  study (two raters, 150 items, a target agreement level uniform on [0.1, 0.9], negative
  condition random / siblings / ancestors / lexical by ``seed % 4``), each label pair scored
  by :class:`softirr_stats.equivalence.Indel` / ``Levenshtein`` on the surface forms. A pair
  is equivalent when the two labels were drawn for one concept (the generator's concept ids).

Truth: the concept-level kappa of the simulated design, ``(P_o - P_e) / (1 - P_e)`` with
``P_o`` the share of equivalent within-item pairs and ``P_e`` the probability that two
ratings of different items name the same concept (:func:`concept_kappa`). The model's kappa (posterior mean and
90% interval, SVI with a multivariate-normal guide, or NUTS with ``--method nuts``) is
compared with it.

``--gold N`` draws N judged pairs (a simple random sample, half within-item, half chance),
passes them to the model as gold pairs and computes the prediction-powered kappa from the
same pairs beside it (:func:`ppi_kappa`). ``--out FILE`` appends one CSV row per study, so an
interrupted run keeps its studies (resume with ``--seed``). The results and commands are in
docs/annotator_models.md.

Usage::

    python paper_repro/soft_model_robustness.py --studies 30 --steps 1000 --emission monotone --out mono.csv
    python paper_repro/soft_model_robustness.py --studies 20 --emission histogram --gold 200 \
        --shapes bimodal --method nuts --out hist.csv
    python paper_repro/soft_model_robustness.py --studies 20 --steps 1000 --emission monotone \
        --shapes paper_indel paper_levenshtein --out paper.csv
"""

import argparse
import functools
import pathlib
import sys
import time
import warnings

import numpy as np

SIMULATED_SHAPES = ("bands", "point_masses", "bimodal", "heavy_tails")
# written for the score-check calibration (issue: soft model warnings), not used to tune
# the model: overlapping interior bulks, and calibrated probabilities piled at the ends
FRESH_SHAPES = ("overlap", "calibrated", "shared_floor")
# shared_floor was written for the profile-likelihood widening (issue 34, after it was chosen on
# the shapes above): smooth rising / falling bulks over a uniform floor both classes share, a
# second shape the scores leave partly open (as heavy tails, with no band edges)
# the paper_repro populations scored by a real string estimator: shape -> measure name
PAPER_SHAPES = {"paper_indel": "indel", "paper_levenshtein": "levenshtein"}
SHAPES = (*SIMULATED_SHAPES, *FRESH_SHAPES, *PAPER_SHAPES)


def draw_scores(shape: str, equivalent: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Equivalence scores of pairs under one of :data:`SIMULATED_SHAPES` or
    :data:`FRESH_SHAPES`."""
    n = equivalent.size
    eq = equivalent.astype(bool)
    if shape == "bands":
        return np.where(eq, rng.uniform(0.6, 1.0, n), rng.uniform(0.0, 0.35, n))
    if shape == "point_masses":
        hi = np.where(rng.random(n) < 0.5, 1.0, rng.uniform(0.6, 1.0, n))
        lo = np.where(rng.random(n) < 0.5, 0.0, rng.uniform(0.0, 0.35, n))
        return np.where(eq, hi, lo)
    if shape == "bimodal":
        pick = rng.random(n) < 0.5
        hi = np.where(pick, rng.beta(40, 14, n), rng.beta(60, 3, n))
        lo = np.where(pick, rng.beta(3, 30, n), rng.beta(20, 30, n))
        return np.where(eq, hi, lo)
    if shape == "heavy_tails":
        tail = rng.random(n) < 0.15
        hi = np.where(tail, rng.uniform(0, 1, n), rng.uniform(0.6, 1.0, n))
        lo = np.where(tail, rng.uniform(0, 1, n), rng.uniform(0.0, 0.4, n))
        return np.where(eq, hi, lo)
    if shape == "overlap":  # interior bulks that overlap: not monotone
        return np.where(eq, rng.beta(6.0, 3.0, n), rng.beta(3.0, 6.0, n))
    if shape == "calibrated":
        # base g = Beta(0.7, 0.7); f1 = s g(s) / E[s], f0 = (1 - s) g(s) / E[1 - s]: at an
        # equivalence rate of 1/2, P(equivalent | s) = s. Monotone (f1 rising, f0 falling)
        return np.where(eq, rng.beta(1.7, 0.7, n), rng.beta(0.7, 1.7, n))
    if shape == "shared_floor":  # 0.8 Beta(3, 1) + 0.2 U(0, 1) against 0.8 Beta(1, 3) + 0.2 U(0, 1)
        floor = rng.random(n) < 0.2
        return np.where(floor, rng.uniform(0.0, 1.0, n),
                        np.where(eq, rng.beta(3.0, 1.0, n), rng.beta(1.0, 3.0, n)))
    raise ValueError(f"shape must be one of {SIMULATED_SHAPES + FRESH_SHAPES}; got {shape!r}")


def _paper_population(shape: str, seed: int, n_items: int) -> dict:
    """Concept codes, surface-form labels and scorer of one paper_repro population.

    A single-label population of :func:`paper_repro.generators.single_label_populations` on
    the vendored HPO fixture: two raters, ``n_items`` items, a target agreement level drawn
    uniformly from [0.1, 0.9] and the negative condition ``CONDITIONS[seed % 4]``.
    """
    from paper_repro.generators import CONDITIONS, single_label_populations
    from paper_repro.synthetic import _estimators

    condition = CONDITIONS[seed % len(CONDITIONS)]
    target = float(np.random.default_rng([seed, 1]).uniform(0.1, 0.9))
    pop = single_label_populations(_hpo_fixture(), condition, 1, n_items, targets=[target],
                                   seed=seed)[0]
    wide = pop.frame.pivot(index="item", columns="rater", values=["label", "concept"])
    labels = wide["label"].to_numpy(dtype=object)
    _, codes = np.unique(wide["concept"].to_numpy(dtype=str), return_inverse=True)
    return {"labels": labels, "concepts": codes.reshape(labels.shape), "condition": condition,
            "target": target, "scott_pi": pop.truth["scott_pi"],
            "estimator": _estimators([PAPER_SHAPES[shape]])[PAPER_SHAPES[shape]]}


@functools.lru_cache(maxsize=1)
def _hpo_fixture():
    """The vendored HPO fixture (loaded once)."""
    from paper_repro.terminology import load_fixture

    return load_fixture("HPO")


def concept_kappa(concepts: np.ndarray) -> tuple[float, float, float]:
    """Concept-level ``(kappa, P_o, P_e)`` of an items x raters array of concept codes.

    ``P_o`` is the share of equal-concept within-item rating pairs; ``P_e`` the probability
    that two ratings of different items name one concept (all cross-item rating pairs): the
    populations whose equivalence rates the soft model's ``pi_within`` and ``pi_chance``
    estimate.

    Examples
    --------
    >>> k, po, pe = concept_kappa(np.array([[0, 0], [1, 1], [2, 0]]))
    >>> round(po, 4), round(pe, 4), round(k, 4)
    (0.6667, 0.1667, 0.6)
    """
    n_items, j = concepts.shape
    ra, rb = np.triu_indices(j, 1)
    p_o = float((concepts[:, ra] == concepts[:, rb]).mean())
    flat = concepts.ravel()
    item_of = np.repeat(np.arange(n_items), j)
    n_c = np.bincount(flat).astype(float)
    n_ic = np.zeros((n_items, n_c.size))
    np.add.at(n_ic, (item_of, flat), 1.0)
    n_tot = float(flat.size)
    p_e = float((np.sum(n_c**2) - np.sum(n_ic**2)) / (n_tot**2 - n_items * j**2))
    return (p_o - p_e) / (1 - p_e), p_o, p_e


def simulate_study(shape: str, seed: int, n_items: int = 150, n_concepts: int = 40,
                   accuracy: tuple = (0.6, 0.7, 0.8), n_chance: int = 1000,
                   n_gold: int = 0) -> dict:
    """One study: PairScores for the soft model and its concept-level kappa.

    For the simulated shapes, ``n_items`` items, ``len(accuracy)`` raters and ``n_concepts``
    latent concepts, scores from :func:`draw_scores`. For :data:`PAPER_SHAPES`, a paper_repro
    population (:func:`_paper_population`: two raters, ``n_items`` items; ``n_concepts`` and
    ``accuracy`` are not used) scored by the named string estimator.
    """
    from softirr_stats.models import PairScores

    rng = np.random.default_rng(seed)
    paper = _paper_population(shape, seed, n_items) if shape in PAPER_SHAPES else None
    if paper is None:
        j = len(accuracy)
        truth = rng.integers(0, n_concepts, n_items)
        ok = rng.random((n_items, j)) < np.asarray(accuracy)
        concepts = np.where(ok, truth[:, None], rng.integers(0, n_concepts, (n_items, j)))
    else:
        concepts = paper["concepts"]
        j = concepts.shape[1]
    ra, rb = np.triu_indices(j, 1)
    items = np.repeat(np.arange(n_items), ra.size)
    wa, wb = np.tile(ra, n_items), np.tile(rb, n_items)
    eq_w = concepts[items, wa] == concepts[items, wb]
    flat = concepts.ravel()
    item_of = np.repeat(np.arange(n_items), j)
    xa, xb = rng.integers(0, flat.size, 3 * n_chance), rng.integers(0, flat.size, 3 * n_chance)
    keep = item_of[xa] != item_of[xb]
    xa, xb = xa[keep][:n_chance], xb[keep][:n_chance]
    eq_c = flat[xa] == flat[xb]
    # concept-level truth of the design (P_e over all cross-item rating pairs)
    kappa, p_o, p_e = concept_kappa(concepts)
    if paper is None:
        ws, cs = draw_scores(shape, eq_w, rng), draw_scores(shape, eq_c, rng)
    else:
        est, lab = paper["estimator"], paper["labels"]
        ws = np.asarray(est(lab[items, wa], lab[items, wb]), dtype=np.float64)
        cs = np.asarray(est(lab.ravel()[xa], lab.ravel()[xb]), dtype=np.float64)
    gold, judged = {}, {}
    if n_gold:
        # a simple random sample (without replacement) of half the budget from each pair
        # population, judged by the oracle: the gold pairs of the soft model and the judged
        # pairs of the prediction-powered estimate (their scores stay among the unlabelled)
        jw = rng.choice(ws.size, min(n_gold // 2, ws.size), replace=False)
        jc = rng.choice(cs.size, min(n_gold - n_gold // 2, cs.size), replace=False)
        gold = {"gold_scores": np.r_[ws[jw], cs[jc]],
                "gold_labels": np.r_[eq_w[jw], eq_c[jc]].astype(int)}
        judged = {"within": (ws, jw, eq_w[jw].astype(float)),
                  "chance": (cs, jc, eq_c[jc].astype(float))}
    data = PairScores(within_scores=ws, within_raters=np.stack([wa, wb], 1), within_items=items,
                      chance_scores=cs, n_raters=j, n_items=n_items, **gold)
    return {"data": data, "kappa": kappa, "p_o": p_o, "p_e": p_e, "judged": judged,
            "condition": "" if paper is None else paper["condition"],
            "population_scott_pi": np.nan if paper is None else paper["scott_pi"]}


def ppi_kappa(judged: dict, level: float = 0.9) -> tuple[float, float, float]:
    """Prediction-powered kappa of a simulated study and its delta-method interval.

    Each term is a mean of the oracle ``h`` over a pair population, estimated from the
    estimator's scores ``f`` on the population's pairs and the judged simple random sample:
    ``lambda mean_N(f) + mean_n(h - lambda f)`` with the power-tuned ``lambda`` clipped to
    [0, 1]. The within-item term targets this design's pairs (variance ``(1 - n/N)
    Var(h - lambda f) / n``); the chance term the concept-level chance agreement, of which
    the ``N`` chance pairs are themselves a sample (plus ``Var(h) / N``). The two samples are
    independent; the interval uses the library's critical value with the smaller effective
    degrees of freedom of the two terms.
    """
    from softirr_stats.ppi._ppi_intervals import delta_critical_value
    from softirr_stats.ppi._ppi_terms import effective_df

    est, var, dfs = {}, {}, []
    for term, (f_all, idx, h) in judged.items():
        f = f_all[idx]
        n, big_n = idx.size, f_all.size
        vf = f.var(ddof=1)
        lam = float(np.clip(np.cov(h, f)[0, 1] / vf, 0.0, 1.0)) if vf > 0 else 0.0
        r = h - lam * f
        est[term] = lam * f_all.mean() + r.mean()
        var[term] = (1.0 - n / big_n) * r.var(ddof=1) / n
        if term == "chance":
            var[term] += h.var(ddof=1) / big_n
        dfs.append(effective_df(r, np.ones(n)))
    po, pe = est["within"], est["chance"]
    kappa = (po - pe) / (1.0 - pe)
    g_o, g_e = 1.0 / (1.0 - pe), (po - 1.0) / (1.0 - pe) ** 2
    se = float(np.sqrt(g_o**2 * var["within"] + g_e**2 * var["chance"]))
    z = delta_critical_value(level, min(dfs))
    return float(kappa), float(kappa - z * se), float(kappa + z * se)


def _done_keys(path: str | None) -> set:
    """``(shape, emission, seed, method, gold, monotone_concentration, drop_gap_pieces)`` of
    the rows already in ``path`` (rows written before a column existed count as its
    default)."""
    import csv
    import os

    if not path or not os.path.exists(path):
        return set()
    with open(path) as fh:
        return {(r["shape"], r["emission"], int(r["seed"]), r.get("method") or "svi",
                 int(r.get("gold") or 0), float(r.get("monotone_concentration") or 4.0),
                 r.get("drop_gap_pieces", "False") == "True")
                for r in csv.DictReader(fh)}


def run(shapes: list, emissions: list, studies: int, steps: int, seed0: int,
        out: str | None = None, gold: int = 0, method: str = "svi",
        monotone_concentration: float | None = None, budget_s: float = float("inf"),
        drop_gap_pieces: bool = False) -> list:
    from softirr_stats.inference import FitWarning, NutsConfig, SviConfig, fit
    from softirr_stats.inference._soft_check import separation_leak
    from softirr_stats.models import SoftAgreementPriors

    priors = SoftAgreementPriors() if monotone_concentration is None else SoftAgreementPriors(
        monotone_concentration=monotone_concentration)
    done = _done_keys(out)
    t_start = time.time()

    if method == "nuts":  # one chain of 300 + 300: the bimodal histogram fits (see the docs)
        cfg = NutsConfig(num_warmup=300, num_samples=300, num_chains=1, target_accept=0.95)
    else:
        cfg = SviConfig(steps=steps, num_draws=400, guide="multivariate_normal",
                        learning_rate=0.05)
    rows = []
    # studies outermost, so that an interrupted run leaves every shape with as many studies
    for s in range(studies):
        for shape in shapes:
            for emission in emissions:
                key = (shape, emission, seed0 + s, method, gold, priors.monotone_concentration,
                       drop_gap_pieces)
                if key in done:
                    continue
                if time.time() - t_start > budget_s:
                    print("budget spent; rerun with the same --out to resume", flush=True)
                    return rows
                sim = simulate_study(shape, seed0 + s, n_gold=gold)
                t = time.time()
                with warnings.catch_warnings(record=True) as rec:
                    warnings.simplefilter("always", FitWarning)
                    post = fit("soft", sim["data"], method=method, seed=s, config=cfg,
                               progress=False, emission=emission, priors=priors,
                               **({"drop_gap_pieces": True} if drop_gap_pieces else {}))
                    check = post.score_check()
                sep = separation_leak(post, warn=False)
                lo, hi = post.interval("kappa", level=0.9)
                k = float(post.kappa.mean())
                rows.append({"shape": shape, "emission": emission, "study": s,
                             "truth": sim["kappa"], "kappa": k, "lower": lo, "upper": hi,
                             "covered": lo <= sim["kappa"] <= hi, "ppc_p": check.p_value,
                             "warned": any(issubclass(w.category, FitWarning) for w in rec),
                             "seconds": time.time() - t, "gold": gold, "method": method,
                             "seed": seed0 + s, "condition": sim["condition"],
                             "monotone_concentration": priors.monotone_concentration,
                             "drop_gap_pieces": drop_gap_pieces,
                             "separation_warned": any("separate perfectly" in str(w.message)
                                                      for w in rec),
                             "leak": np.nan if sep is None else sep["leak"],
                             "half_width": np.nan if sep is None else sep["half_width"],
                             "pi_within": float(np.mean(post.samples["pi_within"])),
                             "p_o": sim["p_o"],
                             # the score check's statistic: observed chi-square and the
                             # replicates' median (their ratio is scale-free across n)
                             "ppc_chi2": check.observed,
                             "ppc_rep_median": float(np.median(check.replicated)),
                             "kappa_half_width": (hi - lo) / 2,
                             "kappa_sd": float(np.std(post.samples["kappa"]))})
                r = rows[-1]
                if gold:
                    pk, plo, phi = ppi_kappa(sim["judged"])
                    r.update(ppi=pk, ppi_lower=plo, ppi_upper=phi,
                             ppi_covered=plo <= sim["kappa"] <= phi)
                    print(f"{'':23s} PPI ({gold} judged): {pk:.3f} [{plo:.3f}, {phi:.3f}] "
                          f"covered={r['ppi_covered']}", flush=True)
                print(f"{shape:13s} {emission:9s} study {s}: truth {r['truth']:.3f} kappa "
                      f"{k:.3f} [{lo:.3f}, {hi:.3f}] covered={r['covered']} score-check "
                      f"p={check.p_value:.3f} leak={r['leak']:.4f} sep-warned={r['separation_warned']} "
                      f"{r['seconds']:.0f}s", flush=True)
                if out:
                    _append_csv(out, r)
    return rows


def add_study_arguments(ap: "argparse.ArgumentParser") -> None:  # noqa: F821 - typing only
    """The arguments the soft-model studies share: ``--shapes``, ``--studies``, ``--seed``."""
    ap.add_argument("--shapes", nargs="+", default=[*FRESH_SHAPES, *SIMULATED_SHAPES],
                    choices=[*SIMULATED_SHAPES, *FRESH_SHAPES])
    ap.add_argument("--studies", type=int, default=300)
    ap.add_argument("--seed", type=int, default=1000)


def csv_header(path: str | None) -> list[str] | None:
    """The column names of an existing, non-empty CSV file (None otherwise)."""
    import csv
    import os

    if not path or not os.path.exists(path) or not os.path.getsize(path):
        return None
    with open(path, newline="") as fh:
        return next(csv.reader(fh))


def _append_csv(path: str, row: dict) -> None:
    """Append one study's row to a CSV file (header on the first row). The row is written in
    the order of an existing file's header, whatever its own key order; a row whose columns
    differ from that header is refused (it would be read back under the wrong names)."""
    import csv

    header = csv_header(path)
    if header is not None:
        if set(header) != set(row):
            raise ValueError(f"{path}: the row's columns differ from the file's header "
                             f"(missing {sorted(set(header) - set(row))}, new "
                             f"{sorted(set(row) - set(header))}); write it to a file of its own")
    with open(path, "a", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=header or list(row))
        if header is None:
            w.writeheader()
        w.writerow(row)


def table(rows: list) -> str:
    """Markdown table per shape x emission (x prior, x method): bias, coverage with its
    Monte Carlo SE, width, the share of fits with any FitWarning, and, for the separation
    check, the share of fits it warned on and the share of misses it warned on."""
    import pandas as pd

    df = pd.DataFrame(rows)
    df["error"] = df["kappa"] - df["truth"]
    df["covered"] = df["covered"].astype(str) == "True"
    keys = ["shape", "emission"]
    for extra, default in (("monotone_concentration", 4.0), ("method", "svi"),
                           ("drop_gap_pieces", False)):
        if extra in df:
            df[extra] = df[extra].fillna(default)
            keys.append(extra)
    if "separation_warned" not in df:
        df["separation_warned"] = np.nan
    df["sep"] = df["separation_warned"].astype(str) == "True"
    g = df.groupby(keys, sort=False)
    out = g.agg(studies=("error", "size"), bias=("error", "mean"),
                mae=("error", lambda e: np.abs(e).mean()), coverage=("covered", "mean"))
    out["bias_se"] = g["error"].std(ddof=1) / np.sqrt(out["studies"])
    out["coverage_se"] = np.sqrt(out["coverage"] * (1 - out["coverage"]) / out["studies"])
    out["width"] = g.apply(lambda d: (d["upper"] - d["lower"]).mean(), include_groups=False)
    out["warned"] = g["warned"].apply(lambda w: (w.astype(str) == "True").mean())
    out["separation_warned"] = g["sep"].mean()
    out["misses_warned"] = g.apply(lambda d: d.loc[~d["covered"], "sep"].mean()
                                   if (~d["covered"]).any() else np.nan, include_groups=False)
    if "leak" in df:
        out["leak"] = g["leak"].mean()
    out = out.round(4).reset_index()
    head = "| " + " | ".join(out.columns) + " |"
    lines = [head, "|" + "---|" * len(out.columns)]
    lines += ["| " + " | ".join(str(v) for v in row) + " |" for row in out.itertuples(index=False)]
    return "\n".join(lines)


def main() -> None:
    if not __package__:  # run as a file: the paper_* shapes import paper_repro
        sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--studies", type=int, default=10)
    ap.add_argument("--steps", type=int, default=1500)
    ap.add_argument("--seed", type=int, default=1000)
    ap.add_argument("--shapes", nargs="+", default=list(SIMULATED_SHAPES), choices=SHAPES,
                    help="score shapes; the paper_* shapes are the paper_repro populations "
                         "scored by a string estimator (not run by default)")
    ap.add_argument("--emission", nargs="+", default=["beta", "monotone"])
    ap.add_argument("--out", default=None, help="CSV file to append one row per study to")
    ap.add_argument("--gold", type=int, default=0,
                    help="judged pairs (half within-item, half chance): gold pairs of the soft "
                         "model and the sample of the prediction-powered estimate beside it")
    ap.add_argument("--method", choices=["svi", "nuts"], default="svi")
    ap.add_argument("--monotone-concentration", type=float, default=None,
                    help="SoftAgreementPriors.monotone_concentration (default: the library's)")
    ap.add_argument("--drop-gap-pieces", action="store_true",
                    help="monotone emission: no pieces across a score gap (soft_agreement's "
                         "drop_gap_pieces)")
    ap.add_argument("--budget-s", type=float, default=float("inf"),
                    help="stop starting new fits after this many seconds (resume: same --out)")
    ap.add_argument("--summarise", default=None, help="print the table of a results CSV")
    args = ap.parse_args()
    if args.summarise:
        import pandas as pd

        print(table(pd.read_csv(args.summarise).to_dict("records")))
        return
    rows = run(args.shapes, args.emission, args.studies, args.steps, args.seed, args.out,
               args.gold, args.method, args.monotone_concentration, args.budget_s,
               args.drop_gap_pieces)
    if rows:
        print(table(rows))


if __name__ == "__main__":
    main()
