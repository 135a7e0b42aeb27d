"""Coverage of the intervals for span F1 at 20-80 documents (issue 34, span F1).

Three generators (``--generator``):

``lognormal`` (the team's)
    A document has ``m ~ Poisson(exp(N(log 6, 0.8^2)))`` true entities (mean ``6 e^0.32``). Two annotators find
    each entity independently with probabilities 0.8 and 0.6 and add ``Poisson(1.0)`` and ``Poisson(0.5)``
    spurious spans per document. Matched spans (TP) are the entities both found (exact match). Micro F1 of the
    pair is ``2 TP / (n_a + n_b)`` over the documents, whose population value is
    ``2 E[m] r_a r_b / (E[m] (r_a + r_b) + lambda_a + lambda_b)``.
``reproduce`` (the team's, from ``benchmarks/bench_span_agreement.py``)
    Annotator a marks ``Poisson(3) + 1`` spans per document; b reproduces each with probability 0.8 and adds
    ``Poisson(0.6)`` of its own; population value ``2 q (lambda + 1) / ((1 + q) (lambda + 1) + mu)``.
``clustered`` (written fresh for this work)
    Three annotators, three entity types, the library's default matching (exact offsets, within a type).
    A fifth of the documents have no entity; the others have ``Poisson(exp(N(log 5, 1)))`` (long-tailed
    lengths, mean ``5 e^0.5``). A document's difficulty ``u ~ N(0, 1)`` is shared by the annotators
    (clustered errors): annotator ``a`` finds an entity with probability ``expit(beta_a + 0.8 u)``, marks its
    exact boundaries with probability ``e_a`` (otherwise a span that overlaps the entity but ends
    ``a + 1`` characters later, which exact matching does not match), and gives it the right type with
    probability ``c_a`` (otherwise one of the two others at random). Spurious spans: ``Poisson(lambda_a
    (0.5 + m / 5))`` per document, so longer documents have more. The value is the mean over the three
    pairs of micro F1; its population value is the mean over pairs of ``2 E[TP_ab] / (E[n_a] + E[n_b])``
    with ``E[TP_ab] = E[m] E_u[p_a(u) p_b(u)] e_a e_b (c_a c_b + (1 - c_a)(1 - c_b) / 2)`` and
    ``E[n_a] = E[m] E_u[p_a(u)] + lambda_a (0.5 + E[m] / 5)`` (Gauss-Hermite over ``u``).

The document bootstrap (``sis.span_agreement(..., ci=Bootstrap(...))``, documents resampled) is evaluated
from per-document counts (TP and ``n_a + n_b`` of every pair) with the same ratio as the library; at
start-up, one study of the generator written out as a span table gives the same F1, the same default
interval (``jackknife-t-logit``) and the same ``bca-t`` interval as ``sis.span_agreement``. Methods, all from
the same replicates and jackknife values of each study: ``percentile``, ``bca``, ``bca-t`` (the default
before), ``basic-t`` (the reflected percentile widened by ``t_{D-1} / z sqrt(D / (D - 1))``, the cluster
design's rule), ``boot-t`` (studentized bootstrap with the linearised SE of every replicate), ``jack-t``
(Student-t with the jackknife SE) and ``jack-t-logit`` (the same on the logit scale: ``span_agreement``'s
default now, ``softirr_stats.uncertainty.logit_jackknife_t_interval``).

Run (about a minute each)::

    python benchmarks/span_f1_coverage.py --generator lognormal --studies 1000 --boot 1000 \\
        --out docs/coverage_results/span_f1
    python benchmarks/span_f1_coverage.py --generator clustered --seed 777 --studies 1000 --boot 1000 \\
        --out docs/coverage_results/span_f1

Resumable (per-study rows appended to ``studies.csv.gz`` for the team's generator at the main seed, otherwise
``studies_<generator>[_seed<seed>].csv.gz``); the summary (``summary.csv``) covers every generator and seed
whose rows are there.
"""

from __future__ import annotations

import argparse
import itertools
import math
import os
import re
import time
import warnings

import numpy as np
import pandas as pd

from softirr_stats.uncertainty import bca_interval, percentile_interval, t_level

RECALL = (0.8, 0.6)
SPURIOUS = (1.0, 0.5)
MU, SIGMA = math.log(6.0), 0.8
LEVEL = 0.95
METHODS = ("percentile", "bca", "bca-t", "basic-t", "boot-t", "jack-t", "jack-t-logit")
# the fresh generator ("clustered")
EMPTY = 0.2  # share of documents with no entity
C_MU, C_SIGMA = math.log(5.0), 1.0
BETA = (2.2, 1.4, 0.85)  # detection logits at u = 0 (recall about 0.90, 0.80, 0.70)
SLOPE = 0.8  # the documents' shared difficulty on the logit scale
EXACT = (0.9, 0.85, 0.8)  # exact boundaries (else a span that overlaps the entity and ends a + 1 later)
TYPE_OK = (0.95, 0.92, 0.9)  # right type (else one of the two others)
TYPE_P = (0.5, 0.3, 0.2)
TYPES = ("PER", "ORG", "LOC")
LAMBDA = (0.2, 0.4, 0.6)  # spurious spans per unit of document length (0.5 + m / 5)
PAIRS = ((0, 1), (0, 2), (1, 2))
# the team's second generator (benchmarks/bench_span_agreement.py): a marks Poisson(3) + 1 spans per document,
# b reproduces each with probability 0.8 and adds Poisson(0.6) of its own
R_LAM, R_Q, R_MU = 3.0, 0.8, 0.6
GENERATORS = ("lognormal", "clustered", "reproduce")
MAIN_SEED = 3405


def truth(generator: str = "lognormal") -> float:
    """The population value of the generator's statistic (mean over pairs of micro F1)."""
    if generator == "lognormal":
        em = math.exp(MU + SIGMA**2 / 2)
        return 2 * em * RECALL[0] * RECALL[1] / (em * (RECALL[0] + RECALL[1]) + SPURIOUS[0] + SPURIOUS[1])
    if generator == "reproduce":
        return 2 * R_Q * (R_LAM + 1) / ((1 + R_Q) * (R_LAM + 1) + R_MU)
    if generator != "clustered":
        raise ValueError(f"generator must be one of {list(GENERATORS)}; got {generator!r}")
    x, w = np.polynomial.hermite_e.hermegauss(80)
    w = w / w.sum()  # E_u[f(u)] for u ~ N(0, 1)
    p = 1.0 / (1.0 + np.exp(-(np.asarray(BETA)[:, None] + SLOPE * x[None])))  # (A, nodes)
    em = (1 - EMPTY) * math.exp(C_MU + C_SIGMA**2 / 2)
    n = em * (p @ w) + np.asarray(LAMBDA) * (0.5 + em / 5)
    f1 = []
    for a, b in PAIRS:
        tp = em * (p[a] * p[b]) @ w * EXACT[a] * EXACT[b] * (TYPE_OK[a] * TYPE_OK[b]
                                                             + (1 - TYPE_OK[a]) * (1 - TYPE_OK[b]) / 2)
        f1.append(2 * tp / (n[a] + n[b]))
    return float(np.mean(f1))


def simulate(rng: np.random.Generator, s: int, d: int) -> tuple[np.ndarray, ...]:
    """Per-document (s, d) counts: entities, found by a, found by b, found by both, spurious a, spurious b."""
    m = rng.poisson(np.exp(rng.normal(MU, SIGMA, (s, d))))
    both = rng.binomial(m, RECALL[0] * RECALL[1])
    only_a = rng.binomial(m - both, (RECALL[0] - RECALL[0] * RECALL[1]) / (1 - RECALL[0] * RECALL[1]))
    only_b = rng.binomial(m - both - only_a, (RECALL[1] - RECALL[0] * RECALL[1])
                          / (1 - RECALL[0] * RECALL[1] - (RECALL[0] - RECALL[0] * RECALL[1])))
    fa, fb = rng.poisson(SPURIOUS[0], (s, d)), rng.poisson(SPURIOUS[1], (s, d))
    return m, both, only_a, only_b, fa, fb


def simulate_clustered(rng: np.random.Generator, s: int, d: int) -> dict[str, np.ndarray]:
    """Entity-level draws of the ``clustered`` generator for ``s`` studies of ``d`` documents.

    ``m`` (s, d) entities per document, ``doc`` (M,) each entity's document (flat index ``study * d +
    document``), ``found`` / ``exact`` (M, 3) bool, ``type_shift`` (M, 3) in {0, 1, 2} (0: the right type),
    ``true_type`` (M,), ``spurious`` (s, d, 3).
    """
    m = np.where(rng.random((s, d)) < EMPTY, 0, rng.poisson(np.exp(rng.normal(C_MU, C_SIGMA, (s, d)))))
    u = rng.normal(size=(s, d))
    doc = np.repeat(np.arange(s * d), m.ravel())
    shape = (len(doc), 3)
    p = 1.0 / (1.0 + np.exp(-(np.asarray(BETA)[None] + SLOPE * u.ravel()[doc][:, None])))
    found = rng.random(shape) < p
    exact = rng.random(shape) < np.asarray(EXACT)
    type_shift = np.where(rng.random(shape) < np.asarray(TYPE_OK), 0, 1 + (rng.random(shape) < 0.5))
    true_type = rng.choice(3, size=len(doc), p=TYPE_P)
    spurious = rng.poisson(np.asarray(LAMBDA) * (0.5 + m[..., None] / 5.0))
    return {"m": m, "doc": doc, "found": found, "exact": exact, "type_shift": type_shift, "true_type": true_type,
            "spurious": spurious}


def clustered_counts(sim: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """Per-document TP and ``n_a + n_b`` of the three pairs, each (s, 3, d), under exact matching by type."""
    s, d = sim["m"].shape
    found, exact, shift, doc = sim["found"], sim["exact"], sim["type_shift"], sim["doc"]
    n = np.stack([np.bincount(doc, found[:, a], minlength=s * d).reshape(s, d) for a in range(3)], axis=-1)
    n = n + sim["spurious"]
    tp, tot = [], []
    for a, b in PAIRS:
        match = found[:, a] & found[:, b] & exact[:, a] & exact[:, b] & (shift[:, a] == shift[:, b])
        tp.append(np.bincount(doc, match, minlength=s * d).reshape(s, d))
        tot.append(n[..., a] + n[..., b])
    return np.stack(tp, axis=1).astype(float), np.stack(tot, axis=1).astype(float)


def clustered_spans(sim: dict[str, np.ndarray], study: int = 0) -> pd.DataFrame:
    """One study of the ``clustered`` generator as a span table (documents without spans declared)."""
    s, d = sim["m"].shape
    rows = []
    first = np.concatenate([[0], np.cumsum(sim["m"].ravel())])
    for doc in range(d):
        g = study * d + doc
        name = f"d{doc:03d}"
        n_doc = 0
        for j, e in enumerate(range(first[g], first[g + 1])):  # entities at 0, 20, 40, ... (5 characters)
            for a in range(3):
                if sim["found"][e, a]:
                    end = 20 * j + 5 if sim["exact"][e, a] else 20 * j + 5 + a + 1
                    rows.append({"document": name, "annotator": f"a{a}", "start": 20 * j, "end": end,
                                 "type": TYPES[(sim["true_type"][e] + sim["type_shift"][e, a]) % 3]})
                    n_doc += 1
        base = 20 * sim["m"][study, doc]
        for a in range(3):  # spurious spans: offsets of their own, never matched
            for k in range(sim["spurious"][study, doc, a]):
                start = base + 20 * (3 * k + a)
                rows.append({"document": name, "annotator": f"a{a}", "start": start, "end": start + 4,
                             "type": TYPES[k % 3]})
                n_doc += 1
        if n_doc == 0:
            rows.append({"document": name, "annotator": "a0", "start": None, "end": None, "type": None})
    return pd.DataFrame(rows)


def lognormal_counts(rng: np.random.Generator, s: int, d: int) -> tuple[np.ndarray, np.ndarray]:
    """Per-document TP and ``n_a + n_b`` of the ``lognormal`` generator's one pair, each (s, 1, d)."""
    m, both, oa, ob, fa, fb = simulate(rng, s, d)
    return both[:, None].astype(float), (2 * both + oa + fa + ob + fb)[:, None].astype(float)


def reproduce_counts(rng: np.random.Generator, s: int, d: int) -> tuple[np.ndarray, ...]:
    """The ``reproduce`` generator's per-document (s, d) counts: a's spans, those b reproduced, b's own."""
    n_a = rng.poisson(R_LAM, (s, d)) + 1
    tp = rng.binomial(n_a, R_Q)
    return n_a, tp, rng.poisson(R_MU, (s, d))


def document_counts(generator: str, rng: np.random.Generator, s: int, d: int) -> tuple[np.ndarray, np.ndarray]:
    """Per-document TP and ``n_a + n_b`` of every annotator pair, each (s, P, d)."""
    if generator == "lognormal":
        return lognormal_counts(rng, s, d)
    if generator == "reproduce":
        n_a, tp, own = reproduce_counts(rng, s, d)
        return tp[:, None].astype(float), (n_a + tp + own)[:, None].astype(float)
    return clustered_counts(simulate_clustered(rng, s, d))


def f1(tp: np.ndarray, tot: np.ndarray, W: np.ndarray) -> np.ndarray:
    """Mean over pairs of micro F1 ``2 sum_d w_d TP_d / sum_d w_d (n_a + n_b)_d``: (s, B) from W (s, B, d)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        pair = 2 * np.einsum("sbd,spd->sbp", W, tp) / np.einsum("sbd,spd->sbp", W, tot)
        return np.nanmean(pair, axis=2) if pair.shape[2] > 1 else pair[..., 0]


def _lognormal_table(rng: np.random.Generator, d: int) -> tuple[pd.DataFrame, np.ndarray, np.ndarray]:
    m, both, oa, ob, fa, fb = (x[0] for x in simulate(rng, 1, d))
    rows = []
    for doc in range(d):
        pos = 0
        for kind, n in (("both", both[doc]), ("a", oa[doc] + fa[doc]), ("b", ob[doc] + fb[doc])):
            for _ in range(n):
                for who in ("ab" if kind == "both" else kind):
                    rows.append({"document": f"d{doc:02d}", "annotator": who, "start": pos, "end": pos + 3,
                                 "type": "E"})
                pos += 10
    tp, tot = both[None, None].astype(float), (2 * both + oa + fa + ob + fb)[None, None].astype(float)
    return pd.DataFrame(rows), tp, tot


def _reproduce_table(rng: np.random.Generator, d: int) -> tuple[pd.DataFrame, np.ndarray, np.ndarray]:
    n_a, tp, own = (x[0] for x in reproduce_counts(rng, 1, d))
    rows = []
    for doc in range(d):
        name = f"d{doc:02d}"
        rows += [{"document": name, "annotator": "a", "start": 10 * k, "end": 10 * k + 5, "type": "X"}
                 for k in range(n_a[doc])]
        rows += [{"document": name, "annotator": "b", "start": 10 * k, "end": 10 * k + 5, "type": "X"}
                 for k in range(tp[doc])]
        rows += [{"document": name, "annotator": "b", "start": 1000 + 10 * k, "end": 1005 + 10 * k, "type": "X"}
                 for k in range(own[doc])]
    return pd.DataFrame(rows), tp[None, None].astype(float), (n_a + tp + own)[None, None].astype(float)


def jackknife_t_logit(est: np.ndarray, jack: np.ndarray, level: float = LEVEL) -> tuple[np.ndarray, np.ndarray]:
    """Student-t (``d - 1`` df) interval with the jackknife SE on the logit scale: est (s,), jack (s, d)."""
    from scipy import stats

    d = jack.shape[1]
    tq = stats.t.ppf((1 + level) / 2, d - 1)
    with np.errstate(invalid="ignore", divide="ignore"):
        lj, le = np.log(jack / (1 - jack)), np.log(est / (1 - est))
        se = np.sqrt((d - 1) / d * ((lj - lj.mean(axis=1, keepdims=True)) ** 2).sum(axis=1))
    return 1 / (1 + np.exp(-(le - tq * se))), 1 / (1 + np.exp(-(le + tq * se)))


def check_library(generator: str = "lognormal", d: int = 20) -> None:
    """One study as a span table: ``sis.span_agreement`` gives the same F1, the same default interval
    (``jackknife-t-logit``) and, with ``method="bca-t"``, the same ``bca-t`` interval."""
    import softirr_stats as sis
    from softirr_stats.uncertainty import Bootstrap

    rng = np.random.default_rng(7)
    if generator == "lognormal":
        spans, tp, tot = _lognormal_table(rng, d)
    elif generator == "reproduce":
        spans, tp, tot = _reproduce_table(rng, d)
    else:
        sim = simulate_clustered(rng, 1, d)
        spans = clustered_spans(sim)
        tp, tot = clustered_counts(sim)
    r = sis.span_agreement(spans, ci=Bootstrap(n=300, seed=1))
    est = f1(tp, tot, np.ones((1, 1, d)))[0, 0]
    if not np.isclose(est, r.value, atol=1e-12):
        raise RuntimeError(f"F1 {est} != library {r.value}")
    jack = f1(tp, tot, (1 - np.eye(d))[None])[0]
    lo, hi = (x[0] for x in jackknife_t_logit(np.array([est]), jack[None]))
    if r.ci_method != "jackknife-t-logit" or not (np.isclose(lo, r.ci_low, atol=1e-12)
                                                 and np.isclose(hi, r.ci_high, atol=1e-12)):
        raise RuntimeError(f"jackknife-t-logit ({lo}, {hi}) != library {r.ci_method} ({r.ci_low}, {r.ci_high})")
    r = sis.span_agreement(spans, ci=Bootstrap(n=300, seed=1, method="bca-t"))
    lo, hi = bca_interval(r.details["replicates"], est, jack, t_level(LEVEL, d))[:2]
    if r.ci_method != "bootstrap-bca-t" or not (np.isclose(lo, r.ci_low, atol=1e-12)
                                               and np.isclose(hi, r.ci_high, atol=1e-12)):
        raise RuntimeError(f"bca-t ({lo}, {hi}) != library {r.ci_method} ({r.ci_low}, {r.ci_high})")


def linearised_se(tp: np.ndarray, tot: np.ndarray, W: np.ndarray) -> np.ndarray:
    """Delta-method (linearised) SE of the mean over pairs of micro F1 at weights W (s, B, d): (s, B).

    The ratio ``F_p = sum_d w_d x_d / sum_d w_d y_d`` (``x = 2 TP``, ``y = n_a + n_b``) has influence values
    ``u_pd = (x_pd - F_p y_pd) / ybar_p``; the mean over pairs has ``u_d = mean_p u_pd`` and
    ``se^2 = sum_d w_d u_d^2 / d^2`` (the plug-in variance of a mean of ``d`` documents).
    """
    d = tp.shape[-1]
    with np.errstate(invalid="ignore", divide="ignore"):
        sx, sy = 2 * np.einsum("sbd,spd->sbp", W, tp), np.einsum("sbd,spd->sbp", W, tot)
        u = (2 * tp[:, None] - (sx / sy)[..., None] * tot[:, None]) / (sy / d)[..., None]  # (s, B, P, d)
        u = np.nanmean(u, axis=2) if u.shape[2] > 1 else u[:, :, 0]
        return np.sqrt(np.einsum("sbd,sbd->sb", W, u**2)) / d


def studentized(reps: np.ndarray, est: np.ndarray, se: np.ndarray, se_reps: np.ndarray,
                level: float = LEVEL) -> tuple[np.ndarray, np.ndarray]:
    """Bootstrap-t interval ``est - se q_hi, est - se q_lo`` from the quantiles of ``(F* - F) / se*``."""
    with np.errstate(invalid="ignore", divide="ignore"):
        t = (reps - est[:, None]) / se_reps
    t = np.where(np.isfinite(t), t, np.nan)
    a = (1 - level) / 2
    q_lo, q_hi = np.nanquantile(t, a, axis=1), np.nanquantile(t, 1 - a, axis=1)
    return est - se * q_hi, est - se * q_lo


def run_chunk(d: int, start: int, stop: int, boot: int, seed: int, generator: str = "lognormal") -> pd.DataFrame:
    """Intervals of every method on studies ``start..stop-1`` (same replicates for all methods)."""
    from scipy import stats

    rng = np.random.default_rng([seed, d, start] if generator == "lognormal" else
                                [seed, GENERATORS.index(generator), d, start])
    s = stop - start
    tp, tot = document_counts(generator, rng, s, d)
    pick = rng.integers(0, d, (s, boot, d)) + (np.arange(s * boot) * d).reshape(s, boot, 1)
    W = np.bincount(pick.ravel(), minlength=s * boot * d).reshape(s, boot, d).astype(float)
    reps = f1(tp, tot, W)
    est = f1(tp, tot, np.ones((s, 1, d)))[:, 0]
    jack = f1(tp, tot, np.broadcast_to(1 - np.eye(d), (s, d, d)))
    tl = t_level(LEVEL, d)
    tq = stats.t.ppf((1 + LEVEL) / 2, d - 1)
    se_jack = np.sqrt((d - 1) / d * ((jack - jack.mean(axis=1, keepdims=True)) ** 2).sum(axis=1))
    boot_t = studentized(reps, est, linearised_se(tp, tot, np.ones((s, 1, d)))[:, 0], linearised_se(tp, tot, W))
    # the cluster design's small-sample widening (few_units="t"): distances from the estimate times c
    c = tq / stats.norm.ppf((1 + LEVEL) / 2) * math.sqrt(d / (d - 1))
    vec = {"boot-t": boot_t, "jack-t": (est - tq * se_jack, est + tq * se_jack),
           "jack-t-logit": jackknife_t_logit(est, jack)}
    rows = []
    for i in range(s):
        lo, hi = percentile_interval(reps[i], LEVEL)
        ivs = {"percentile": (lo, hi), "bca": bca_interval(reps[i], est[i], jack[i], LEVEL)[:2],
               "bca-t": bca_interval(reps[i], est[i], jack[i], tl)[:2],
               "basic-t": (est[i] - c * (hi - est[i]), est[i] + c * (est[i] - lo)),
               **{k: (v[0][i], v[1][i]) for k, v in vec.items()}}
        rows += [(d, start + i, k, est[i], lo, hi) for k, (lo, hi) in ivs.items()]
    return pd.DataFrame(rows, columns=["documents", "study", "method", "estimate", "low", "high"])


def studies_path(out: str, generator: str, seed: int = MAIN_SEED) -> str:
    """``studies.csv.gz`` (the team's generator, main seed), ``studies_<generator>[_seed<seed>].csv.gz``."""
    if generator == "lognormal" and seed == MAIN_SEED:
        return os.path.join(out, "studies.csv.gz")
    return os.path.join(out, f"studies_{generator}.csv.gz" if seed == MAIN_SEED else
                        f"studies_{generator}_seed{seed}.csv.gz")


def summarise(out_dir: str) -> pd.DataFrame:
    """Coverage per generator, seed, documents and method, from every per-study file in ``out_dir``."""
    parts = []
    for generator, seed in itertools.product(GENERATORS, sorted({MAIN_SEED, *_seeds(out_dir)})):
        path = studies_path(out_dir, generator, seed)
        if not os.path.exists(path):
            continue
        df = pd.read_csv(path)
        tv = truth(generator)
        df = df.assign(covered=(df.low <= tv) & (tv <= df.high), above=df.high < tv, below=df.low > tv,
                       width=df.high - df.low, err=df.estimate - tv)
        out = df.groupby(["documents", "method"]).agg(
            studies=("covered", "size"), coverage=("covered", "mean"), truth_above=("above", "mean"),
            truth_below=("below", "mean"), width=("width", "mean"), bias=("err", "mean")).reset_index()
        out["mc_se"] = np.sqrt(out.coverage * (1 - out.coverage) / out.studies)
        out["truth"] = tv
        parts.append(out.assign(generator=generator, seed=seed))
    summary = pd.concat(parts, ignore_index=True)
    return summary[["generator", "seed", *[c for c in summary.columns if c not in ("generator", "seed")]]]


def _seeds(out_dir: str) -> set[int]:
    names = os.listdir(out_dir) if os.path.isdir(out_dir) else []
    return {int(m.group(1)) for n in names if (m := re.search(r"_seed(\d+)\.csv\.gz$", n))}


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--generator", choices=GENERATORS, default="lognormal")
    ap.add_argument("--studies", type=int, default=1000)
    ap.add_argument("--boot", type=int, default=1000)
    ap.add_argument("--documents", type=int, nargs="+", default=[20, 40, 80])
    ap.add_argument("--chunk", type=int, default=100)
    ap.add_argument("--seed", type=int, default=MAIN_SEED)
    ap.add_argument("--budget", type=float, default=math.inf, help="stop after this many seconds (rerun to resume)")
    ap.add_argument("--out", default="docs/coverage_results/span_f1")
    args = ap.parse_args(argv)
    warnings.simplefilter("ignore")
    check_library(args.generator)
    print(f"{args.generator}: vectorised F1, jackknife-t-logit and bca-t == sis.span_agreement: ok", flush=True)
    os.makedirs(args.out, exist_ok=True)
    path = studies_path(args.out, args.generator, args.seed)
    done = set()
    if os.path.exists(path):
        old = pd.read_csv(path)
        done = set(zip(old["documents"], old["study"], strict=True))
    t0 = time.perf_counter()
    for d in args.documents:
        for start in range(0, args.studies, args.chunk):
            if (d, start) not in done and time.perf_counter() - t0 < args.budget:
                run_chunk(d, start, min(args.studies, start + args.chunk), args.boot, args.seed,
                          args.generator).to_csv(path, mode="a", header=not os.path.exists(path), index=False)
        print(f"D={d}: {time.perf_counter() - t0:.0f} s", flush=True)
    out = summarise(args.out)
    out.to_csv(os.path.join(args.out, "summary.csv"), index=False)
    print(out.to_string(index=False, float_format=lambda v: f"{v:.4f}"))


if __name__ == "__main__":
    main()
