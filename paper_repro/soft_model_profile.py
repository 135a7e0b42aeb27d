"""A prior-free interval for the soft model's kappa: the profile likelihood along the identified range.

Issue 34 left two NUTS cells of the soft model off target: heavy tails (83.7%, the truth at
the upper end of the range the scores leave open) and calibrated probabilities (96.7%), both
because the monotone emission only partly identifies kappa and the emission's prior decides
where in the range the posterior sits (docs/annotator_models.md, "Where the scores leave kappa
open"). The note of that round named what might repair it: an interval that covers the
whole identified range, measured by the profile of the likelihood along it. This script builds
that interval and measures its coverage on the NUTS study's studies.

**The likelihood.** The monotone emission's cell model with one equivalence rate for the
within-item pairs (``p``) and one for the chance pairs (``q``), fitted to the cell counts
``G`` (within-item scores) and ``H`` (chance scores) on ``n_bins`` equal cells and the atoms
at 0 and 1: ``g = p F1 + (1 - p) F0``, ``h = q F1 + (1 - q) F0``, with ``F1`` a mixture of
``U[e_b, 1]`` and a mass at 1 and ``F0`` a mixture of ``U[0, e_{b+1}]`` and a mass at 0 (the
model's own pieces, :func:`softirr_stats.models._soft._monotone_log_density`). The emission
is the same for every rater, so the within-item scores' marginal is exactly that mixture
with ``p`` the mean equivalence rate of the pairs; rater effects change nothing in it. The
pairs of one item are dependent, so this is a composite likelihood.

**The profile.** For each kappa on a grid (``p = q + kappa (1 - q)``) and each ``q`` on a
grid around the chance rate, the emission's weights that maximise the likelihood: with the
rates fixed the log-likelihood is concave in the weights and EM reaches its maximum. The
profile at kappa is the best over ``q``. Its ``level`` set (likelihood ratio at most the
chi-square quantile with one degree of freedom) is flat across the identified range.

**The interval.** The studies' truth is the realized kappa of the study's pairs (the share
of equivalent pairs among the observed within-item pairs against the chance rate of all
cross-item rating pairs), so each kappa of the set is mapped to the realized estimate of
the fit at it: the within-item pairs' mean P(equivalent | score), against the chance pairs'
mean, with the spread of the pairs' own indicators (``sum r (1 - r)``) and of the sampled
chance pairs (binomial) as a standard error. The interval is the union over the set of
``estimate -+ z se``. Where the scores identify kappa (bands: the responsibilities are 0 or
1 whatever ``p``), the map collapses the set to one estimate.

Usage::

    python paper_repro/soft_model_profile.py --studies 300 --out rows.csv   # resumable
    python paper_repro/soft_model_profile.py --table rows.csv
    # against the NUTS fits of the same studies: the union of the two intervals, and whether
    # the profile's reach beyond the posterior interval singles out the posterior's misses
    python paper_repro/soft_model_profile.py --table rows.csv \\
        --nuts docs/soft_model_robustness/nuts_study.csv
"""

import argparse
import csv
import os
import pathlib
import sys
import time

import numpy as np

#: Shapes of the monotone family (the identified-range table of
#: paper_repro.soft_model_identification): where the interval is meant to hold.
SHAPES = ("bands", "point_masses", "heavy_tails", "calibrated", "shared_floor")
COLUMNS = ("shape", "seed", "truth", "estimate", "lower", "upper", "covered", "set_lower",
           "set_upper", "at_edge", "seconds")


def profile_interval(within_scores, chance_scores, *, level: float = 0.9, n_bins: int = 20) -> dict:
    """The library's profile-likelihood interval
    (:func:`softirr_stats.inference._soft_profile.profile_interval`, written here first and moved
    there unchanged when ``annotator_agreement`` adopted it), as this study's row fields.

    Examples
    --------
    >>> r = profile_interval([0.9, 0.8, 0.1, 0.95, 0.7, 0.2], [0.1, 0.2, 0.05, 0.9, 0.3, 0.0])
    >>> sorted(r), bool(r["lower"] <= r["estimate"] <= r["upper"])
    (['at_edge', 'estimate', 'lower', 'set_lower', 'set_upper', 'upper'], True)
    """
    from softirr_stats.inference._soft_profile import profile_interval as library_profile

    r = library_profile(within_scores, chance_scores, level=level, n_bins=n_bins)
    return {k: getattr(r, k) for k in ("estimate", "lower", "upper", "set_lower", "set_upper", "at_edge")}


def _done(path: str | None) -> set:
    if not path or not os.path.exists(path):
        return set()
    with open(path) as fh:
        return {(r["shape"], int(r["seed"])) for r in csv.DictReader(fh)}


def run(shapes, studies: int, seed0: int, out: str | None = None, level: float = 0.9) -> list:
    """Fit the profile interval to studies ``seed0 .. seed0 + studies - 1`` of each shape
    (the NUTS study's simulation); one row each, appended to ``out`` as it finishes."""
    from paper_repro.soft_model_robustness import _append_csv, simulate_study

    done, rows = _done(out), []
    for s in range(studies):
        for shape in shapes:
            if (shape, seed0 + s) in done:
                continue
            sim = simulate_study(shape, seed0 + s)
            t = time.time()
            r = profile_interval(sim["data"].within_scores, sim["data"].chance_scores, level=level)
            row = {"shape": shape, "seed": seed0 + s, "truth": sim["kappa"], **r,
                   "covered": r["lower"] <= sim["kappa"] <= r["upper"],
                   "seconds": round(time.time() - t, 3)}
            rows.append({c: row[c] for c in COLUMNS})
            if out:
                _append_csv(out, rows[-1])
    return rows


def table(rows: list) -> str:
    """Markdown per shape: studies, coverage (MC SE), bias of the estimate (MC SE), mean width,
    studies whose kappa set reached a bound of kappa (-0.99 or 0.999)."""
    lines = ["| shape | studies | coverage (MC SE) | bias (MC SE) | width | set at a bound of kappa |",
             "|---|---|---|---|---|---|"]
    for shape in dict.fromkeys(r["shape"] for r in rows):
        sub = [r for r in rows if r["shape"] == shape]
        n = len(sub)
        cov = np.mean([str(r["covered"]) == "True" for r in sub])
        err = np.array([float(r["estimate"]) - float(r["truth"]) for r in sub])
        width = np.mean([float(r["upper"]) - float(r["lower"]) for r in sub])
        edge = sum(str(r["at_edge"]) == "True" for r in sub)
        se = err.std(ddof=1) / np.sqrt(n) if n > 1 else np.nan
        lines.append(f"| {shape} | {n} | {cov:.1%} ({np.sqrt(cov * (1 - cov) / n):.1%}) | "
                     f"{err.mean():+.4f} ({se:.4f}) | {width:.3f} | {edge} |")
    return "\n".join(lines)


def paired_by_shape(rows: list, nuts_rows: list, nuts_keys: tuple = ("lower", "upper")):
    """Per shape, the profile rows and the NUTS rows (monotone emission) of the same studies (keys:
    shape and seed): ``(shape, pairs, f, g)``, ``f`` the profile rows' truth / lower / upper and
    ``g`` the NUTS rows' ``nuts_keys``, as arrays. Shapes with no study in both are left out.

    >>> rows = [{"shape": "s", "seed": "1", "truth": "0.5", "lower": "0.4", "upper": "0.6"}]
    >>> [(s, g["upper"].tolist()) for s, _, _, g in paired_by_shape(rows, [{"shape": "s", "seed": "1",
    ...     "lower": "0.45", "upper": "0.55"}])]
    [('s', [0.55])]
    """
    nuts = {(r["shape"], int(r["seed"])): r for r in nuts_rows
            if r.get("emission", "monotone") == "monotone"}
    for shape in dict.fromkeys(r["shape"] for r in rows):
        both = [(r, nuts[(shape, int(r["seed"]))]) for r in rows
                if r["shape"] == shape and (shape, int(r["seed"])) in nuts]
        if both:
            yield (shape, both, {k: np.array([float(a[k]) for a, _ in both]) for k in ("truth", "lower", "upper")},
                   {k: np.array([float(b[k]) for _, b in both]) for k in nuts_keys})


def compare(rows: list, nuts_rows: list, reach: float = 0.5) -> str:
    """Markdown per shape, over the studies both files hold (keys: shape and seed; the NUTS
    rows of the monotone emission): coverage and width of the profile interval, the posterior
    interval and their union; the library's interval (``annotator_agreement``: the union where
    the profile interval reaches beyond the posterior interval by more than
    ``inference.PROFILE_REACH`` of its half-width, else the posterior interval), its coverage,
    width and how many fits it widened; and how many of the posterior's misses and covering fits
    have a profile interval reaching beyond the posterior interval by more than ``reach``
    posterior half-widths (on either side)."""
    from softirr_stats.inference import PROFILE_REACH
    from softirr_stats.inference._soft_profile import reach_beyond

    lines = ["| shape | studies | profile: coverage, width | posterior: coverage, width | "
             "union: coverage, width | library (widened where reach > "
             f"{PROFILE_REACH}): coverage (MC SE), width, fits widened | "
             f"reach > {reach} half-widths: misses, covering fits |",
             "|---|---|---|---|---|---|---|"]
    for shape, both, f, g in paired_by_shape(rows, nuts_rows):
        lo, hi = np.minimum(f["lower"], g["lower"]), np.maximum(f["upper"], g["upper"])
        t = f["truth"]
        reached = reach_beyond(f["lower"], f["upper"], g["lower"], g["upper"])
        widened = reached > PROFILE_REACH
        llo, lhi = np.where(widened, lo, g["lower"]), np.where(widened, hi, g["upper"])
        cover = {"p": (f["lower"] <= t) & (t <= f["upper"]), "n": (g["lower"] <= t) & (t <= g["upper"]),
                 "u": (lo <= t) & (t <= hi), "l": (llo <= t) & (t <= lhi)}
        far = reached > reach
        miss = ~cover["n"]
        cells = [f"{cover[k].mean():.1%}, {w:.3f}" for k, w in (
            ("p", np.mean(f["upper"] - f["lower"])), ("n", np.mean(g["upper"] - g["lower"])),
            ("u", np.mean(hi - lo)))]
        c = cover["l"].mean()
        cells.append(f"{c:.1%} ({np.sqrt(c * (1 - c) / len(both)):.1%}), {np.mean(lhi - llo):.3f}, "
                     f"{widened.sum()}/{len(both)}")
        lines.append(f"| {shape} | {len(both)} | " + " | ".join(cells)
                     + f" | {far[miss].sum()}/{miss.sum()}, {far[~miss].sum()}/{(~miss).sum()} |")
    return "\n".join(lines)


def _split(flag: np.ndarray, miss: np.ndarray, among: np.ndarray) -> str:
    """``"flagged misses/misses, flagged covering fits/covering fits"`` among the fits ``among``.

    >>> _split(np.array([True, False, True]), np.array([True, True, False]), np.array([True, True, True]))
    '1/2, 1/1'
    """
    return (f"{(flag & miss & among).sum()}/{(miss & among).sum()}, "
            f"{(flag & ~miss & among).sum()}/{(~miss & among).sum()}")


def warnings_table(rows: list, nuts_rows: list) -> str:
    """Markdown per shape, over the studies both files hold: what the library says on each NUTS fit
    under the defaults (``profile_interval="widen"``) against whether its reported interval covered.
    Columns: the reported interval's coverage; the fits widened with a note (the posterior
    interval overlapping the profile interval); the fits whose two intervals do not overlap (widened with a
    ``FitWarning``); the score check's flags (the rows' ``warned``: p, overlap or separation), on
    the misses and on the covering fits; the soft model's warnings of either kind, on the misses and
    on the covering fits; and ``fit``'s ``ConvergenceWarning`` (r_hat or divergences), where the
    rows record it."""
    from softirr_stats.inference import PROFILE_REACH
    from softirr_stats.inference._soft_profile import reach_beyond

    lines = ["| shape | studies | reported: coverage | widened with a note | intervals apart "
             "(FitWarning) | score check: misses, covering fits | any soft-model warning: "
             "misses, covering fits | ConvergenceWarning: misses, covering fits (fits recorded) |",
             "|---|---|---|---|---|---|---|---|"]
    for shape, both, f, g in paired_by_shape(rows, nuts_rows):
        widened = reach_beyond(f["lower"], f["upper"], g["lower"], g["upper"]) > PROFILE_REACH
        lo = np.where(widened, np.minimum(f["lower"], g["lower"]), g["lower"])
        hi = np.where(widened, np.maximum(f["upper"], g["upper"]), g["upper"])
        t = f["truth"]
        miss = ~((lo <= t) & (t <= hi))
        apart = widened & ((g["upper"] < f["lower"]) | (f["upper"] < g["lower"]))  # no overlap
        score = np.array([str(b["warned"]) == "True" for _, b in both])
        soft = score | apart
        conv = [str(b.get("convergence_warned", "")) for _, b in both]
        known = np.array([c in ("True", "False") for c in conv])
        cw = np.array([c == "True" for c in conv])
        every = np.ones(len(both), bool)
        lines.append(f"| {shape} | {len(both)} | {1 - miss.mean():.1%} | {(widened & ~apart).sum()} | "
                     f"{apart.sum()} | {_split(score, miss, every)} | {_split(soft, miss, every)} | "
                     f"{_split(cw, miss, known)} ({known.sum()}) |")
    return "\n".join(lines)


def main(argv=None) -> None:
    if not __package__:
        sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    # the shapes outside the monotone family too: the library computes the interval on every fit
    # of the monotone emission, whatever the scores' shape
    ap.add_argument("--shapes", nargs="+", default=list(SHAPES),
                    choices=[*SHAPES, "overlap", "bimodal"])
    ap.add_argument("--studies", type=int, default=300)
    ap.add_argument("--seed", type=int, default=1000)
    ap.add_argument("--out")
    ap.add_argument("--table", help="print the table of an existing rows file and stop")
    ap.add_argument("--nuts", help="with --table or --warnings: the NUTS study's rows of the same "
                                   "studies (paper_repro/soft_model_nuts_study.py)")
    ap.add_argument("--warnings", help="print what the library says on each fit of an existing rows file "
                                       "(with --nuts) against whether its interval covered, and stop")
    a = ap.parse_args(argv)
    if a.warnings:
        if not a.nuts:
            ap.error("--warnings needs --nuts (the NUTS study's rows)")
        with open(a.warnings) as fh, open(a.nuts) as gh:
            rows, nuts_rows = list(csv.DictReader(fh)), list(csv.DictReader(gh))
        if nuts_rows and "warned" not in nuts_rows[0]:
            ap.error(f"--nuts {a.nuts} has no 'warned' column: pass the NUTS study's rows "
                     "(soft_model_nuts_study.py), which record the score check of each fit")
        print(warnings_table(rows, nuts_rows))
        return
    if a.table:
        with open(a.table) as fh:
            rows = list(csv.DictReader(fh))
        print(table(rows))
        if a.nuts:
            with open(a.nuts) as fh:
                print()
                print(compare(rows, list(csv.DictReader(fh))))
        return
    rows = run(a.shapes, a.studies, a.seed, a.out)
    if a.out:
        with open(a.out) as fh:
            rows = list(csv.DictReader(fh))
    print(table(rows))


if __name__ == "__main__":
    main()
