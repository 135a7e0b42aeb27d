"""Snapshot every derived quantity of small fits of each annotator-model kind, and compare two
snapshots (a refactoring of ``Posterior`` must leave them bit-identical for the same seeds).

    python benchmarks/posterior_snapshot.py OUT_PREFIX            # writes OUT_PREFIX.npz / .json
    python benchmarks/posterior_snapshot.py --compare BEFORE AFTER

To snapshot an older commit with this venv, run it from a copy of that commit's tree
(``git archive <commit> softirr_stats inference models | tar -x -C DIR``) with the editable
finder's ``MAPPING`` pointed at DIR. Small SVI fits (150 steps, 60 draws): a few CPU minutes.
"""
import json
import sys

import numpy as np


def compare(before: str, after: str) -> None:
    b, a = np.load(before + ".npz"), np.load(after + ".npz")
    tb, ta = json.load(open(before + ".json")), json.load(open(after + ".json"))
    common = sorted(set(b.files) & set(a.files))
    same = [k for k in common if np.array_equal(b[k], a[k], equal_nan=True)]
    print(f"arrays: before {len(b.files)}, after {len(a.files)}, common {len(common)}, bit-identical {len(same)}")
    for k in sorted(set(common) - set(same)):
        print("  DIFF", k)
    ct = sorted(set(tb) & set(ta))
    print(f"texts: common {len(ct)}, identical {sum(tb[k] == ta[k] for k in ct)}")
    for k in ct:
        if tb[k] != ta[k]:
            print("  DIFF", k, "\n    before:", tb[k], "\n    after: ", ta[k])


if len(sys.argv) == 4 and sys.argv[1] == "--compare":
    compare(sys.argv[2], sys.argv[3])
    raise SystemExit(0)

import warnings  # noqa: E402

import pandas as pd  # noqa: E402 - after the --compare mode, which needs none of these

import softirr_stats as sis  # noqa: E402 - after the --compare mode, which needs none of these
from softirr_stats import models  # noqa: E402 - after the --compare mode, which needs none of these
from softirr_stats.inference import (  # noqa: E402 - after the --compare mode, which needs none of these
    SviConfig,
    annotator_agreement,
    diagnostics,
    fit,
    rater_predictive_check,
)
from softirr_stats.inference._soft_check import separation_leak  # noqa: E402 - after the --compare mode, which needs none of these

out, text = {}, {}
def put(name, v):
    if isinstance(v, pd.DataFrame):
        for c in v.columns:
            col = v[c].to_numpy()
            if col.dtype.kind in "fiub":
                out[f"{name}.{c}"] = col.astype(np.float64)
            else:
                text[f"{name}.{c}"] = [str(x) for x in col]
    elif isinstance(v, dict):
        for k, x in v.items():
            put(f"{name}.{k}", x)
    elif hasattr(v, "replicated") and hasattr(v, "p_value"):
        out[f"{name}.replicated"] = np.asarray(v.replicated, np.float64)
        out[f"{name}.observed"] = np.float64(v.observed)
        out[f"{name}.p"] = np.float64(v.p_value)
    elif hasattr(v, "__dataclass_fields__"):
        for k in v.__dataclass_fields__:
            x = getattr(v, k)
            if isinstance(x, (int, float, np.floating, np.integer)) and not isinstance(x, bool):
                out[f"{name}.{k}"] = np.float64(x)
            else:
                text[f"{name}.{k}"] = str(x)
    elif isinstance(v, str):
        text[name] = v
    else:
        a = np.asarray(v)
        if a.dtype == object:
            text[name] = [str(x) for x in a.ravel()]
        else:
            out[name] = a.astype(np.float64)

warnings.simplefilter("ignore")
cfg = SviConfig(steps=150, num_draws=60)
sim = models.simulate_dawid_skene(40, 4, 3, accuracy=0.75, seed=3)
labels = np.array(["a", "b", "c"], dtype=object)[sim["codes"]]
ann = sis.Annotations.from_wide(pd.DataFrame(labels))
W = np.array([[1, .5, 0], [.5, 1, .5], [0, .5, 1]])
for m in ("dawid_skene", "mace", "item_difficulty"):
    p = fit(m, ann, method="svi", seed=1, config=cfg, progress=False)
    put(f"{m}.kappa", p.kappa)
    put(f"{m}.alpha", p.alpha)
    put(f"{m}.kappa_cohen", p.kappa_cohen)
    for q in ("observed_agreement", "expected_agreement", "expected_agreement_cohen"):
        put(f"{m}.{q}", p.draws(q))
    put(f"{m}.implied_w", p.implied_agreement(W, n_mc=8))
    put(f"{m}.align", p.class_alignment(n_mc=8))
    put(f"{m}.acc", p.rater_accuracy(level=0.9, n_mc=8))
    put(f"{m}.probs", p.class_probabilities(n_mc=8))
    put(f"{m}.agg", p.aggregated_labels(n_mc=8))
    put(f"{m}.aggc", p.aggregated_labels(as_labels=False))
    put(f"{m}.rep", p.replicated(lambda y: y.sum(), n_draws=20, salt=3))
    put(f"{m}.ppc", p.predictive_check(statistic="percent_agreement", warn=False))
    put(f"{m}.ppc2", p.predictive_check(ann, n_draws=30, warn=False))
    put(f"{m}.rater_check", rater_predictive_check(p, statistic="majority", warn=False))
    put(f"{m}.prior", p.prior_contraction("kappa", num_draws=50, warn=False))
    put(f"{m}.summary", p.summary(level=0.8))
    put(f"{m}.interval", np.array(p.interval("kappa", 0.9)))
    put(f"{m}.repr", repr(p))
    d = diagnostics(p)
    put(f"{m}.diag", d)
    r = annotator_agreement(p, similarity=W, prior_check=False)
    put(f"{m}.agree", {k: getattr(r, k) for k in ("value", "ci_low", "ci_high", "se", "observed", "expected")})
    try:
        p.score_check()
    except Exception as e:
        put(f"{m}.err_score", f"{type(e).__name__}: {e}")
    try:
        p.draws("nope")
    except Exception as e:
        put(f"{m}.err_draws", f"{type(e).__name__}: {e}")

ps = models.pair_scores(ann, np.array([[1, .7, .1], [.7, 1, .6], [.1, .6, 1]]), groups=["x", "x", "y"], seed=0)
for emission in ("beta", "monotone"):
    m = f"soft_{emission}"
    p = fit("soft", ps, method="svi", seed=2, config=cfg, progress=False, emission=emission)
    put(f"{m}.kappa", p.kappa)
    put(f"{m}.alpha", p.alpha)
    put(f"{m}.score_check", p.score_check(warn=False, seed=4))
    put(f"{m}.rater", p.rater_agreement(level=0.8))
    put(f"{m}.pair", p.pair_agreement())
    put(f"{m}.groups", p.label_contributions())
    put(f"{m}.cal", p.calibration_map(np.linspace(0, 1, 7)))
    put(f"{m}.cal2", p.calibration_map([0.2, 0.9], base_rate="chance"))
    put(f"{m}.cal3", p.calibration_map([0.2, 0.9], base_rate=0.3))
    put(f"{m}.summary", p.summary())
    put(f"{m}.repr", repr(p))
    put(f"{m}.prior", p.prior_contraction(num_draws=40, warn=False))
    put(f"{m}.diag", diagnostics(p))
    put(f"{m}.leak", separation_leak(p, warn=False, min_gap=0.05) or {})
    put(f"{m}.agree", {k: getattr(annotator_agreement(p, prior_check=False), k) for k in ("value", "ci_low", "ci_high", "se", "observed", "expected")})
    for meth in ("implied_agreement", "rater_accuracy", "predictive_check", "replicated"):
        try:
            getattr(p, meth)(*([lambda y: y] if meth == "replicated" else []))
        except Exception as e:
            put(f"{m}.err_{meth}", f"{type(e).__name__}: {e}")
    try:
        p.draws("nope")
    except Exception as e:
        put(f"{m}.err_draws", f"{type(e).__name__}: {e}")

import numpyro  # noqa: E402 - after the --compare mode, which needs none of these
import numpyro.distributions as dist  # noqa: E402 - after the --compare mode, which needs none of these


def toy(data, priors=None):
    numpyro.sample("mu", dist.Normal(0.0, 1.0))
    numpyro.sample("obs", dist.Normal(numpyro.sample("nu", dist.Normal(0, 1)), 1.0), obs=data)
p = fit(toy, np.array([0.3, 0.1, -0.2]), method="svi", seed=5, config=cfg, progress=False)
put("custom.summary", p.summary())
put("custom.repr", repr(p))
put("custom.prior", p.prior_contraction("mu", num_draws=30, warn=False))
put("custom.diag", diagnostics(p))
for meth in ("implied_agreement", "score_check", "rater_agreement", "class_alignment"):
    try:
        getattr(p, meth)()
    except Exception as e:
        put(f"custom.err_{meth}", f"{type(e).__name__}: {e}")
for nm in ("kappa", "alpha"):
    try:
        getattr(p, nm)
    except Exception as e:
        put(f"custom.err_{nm}", f"{type(e).__name__}: {e}")
try:
    annotator_agreement(p)
except Exception as e:
    put("custom.err_agree", str(e))
np.savez(sys.argv[1] + ".npz", **out)
json.dump(text, open(sys.argv[1] + ".json", "w"), indent=0, sort_keys=True)
print(len(out), len(text))
