"""Dawid-Skene and MACE by EM on 10^6 annotations, against crowd-kit's EM, in one run.

Data: 100,000 items x 10 raters x 5 classes, 10% of the cells missing (about 900,000
ratings), simulated from a Dawid-Skene model with rater accuracies 0.50 ... 0.95. Our
``softirr_stats.models.dawid_skene_em`` / ``mace_em`` (JAX, segment sums over the long
format, one compiled loop) are timed in this process; crowd-kit's ``DawidSkene`` (EM) and
``MACE`` run in a subprocess with their own virtual environment (crowd-kit pins its own
numpy / pandas), on the same data written to a temporary CSV, and time only the fit.

Usage::

    python benchmarks/bench_models_scale.py --crowdkit-python .ck/bin/python

Both use 100 iterations at most; compare the per-rater accuracies (``sum_c pi_c
confusion[j, c, c]``) and the wall-clock ratio.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

CROWDKIT = r'''
import json, sys, time
import numpy as np, pandas as pd
from crowdkit.aggregation import DawidSkene, MACE
df = pd.read_csv(sys.argv[1])
k = int(sys.argv[2])
out = {}
t = time.perf_counter()
ds = DawidSkene(n_iter=100, tol=1e-5).fit(df)
out["ds_seconds"] = time.perf_counter() - t
pri = ds.priors_.reindex(range(k)).to_numpy()
err = ds.errors_  # index (worker, label), columns = true label
acc = {}
for w, sub in err.groupby(level=0):
    m = sub.droplevel(0).reindex(index=range(k), columns=range(k)).fillna(0.0).to_numpy()
    acc[str(w)] = float((pri * np.diag(m)).sum())
out["ds_accuracy"] = acc
out["ds_labels"] = ds.labels_.sort_index().astype(int).tolist()
t = time.perf_counter()
mace = MACE(n_restarts=1, n_iter=100, method="em", random_state=0).fit(df)
out["mace_seconds"] = time.perf_counter() - t
# spamming_[:, 1] = P(knowing) = theta, rows in pd.factorize order of the workers
names = pd.factorize(df["worker"])[1]
out["mace_theta"] = {str(w): float(mace.spamming_[i, 1]) for i, w in enumerate(names)}
out["mace_labels"] = mace.labels_.sort_index().astype(int).tolist()
print(json.dumps(out))
'''


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--items", type=int, default=100_000)
    ap.add_argument("--raters", type=int, default=10)
    ap.add_argument("--classes", type=int, default=5)
    ap.add_argument("--missing", type=float, default=0.1)
    ap.add_argument("--crowdkit-python", default=None,
                    help="python of an environment with crowd-kit (skipped if not given)")
    args = ap.parse_args()
    from softirr_stats.models import dawid_skene_em, mace_em, simulate_dawid_skene

    acc = np.linspace(0.5, 0.95, args.raters)
    sim = simulate_dawid_skene(args.items, args.raters, args.classes, accuracy=acc,
                               missing=args.missing, seed=0)
    codes = sim["codes"]
    n_obs = int((codes >= 0).sum())
    print(f"data: {args.items} items x {args.raters} raters x {args.classes} classes, "
          f"{n_obs} ratings ({1 - n_obs / codes.size:.1%} missing)")
    res = {}
    for name, fn in (("dawid_skene_em", dawid_skene_em), ("mace_em", mace_em)):
        t = time.perf_counter()
        r = fn(codes)
        res[name] = (time.perf_counter() - t, r)
        print(f"{name}: {res[name][0]:.1f} s (compile included), {r.n_iter} iterations, "
              f"converged={r.converged}; accuracy {np.round(r.accuracy, 3).tolist()}")
    print(f"true accuracy: {np.round(sim['accuracy'], 3).tolist()}")
    if args.crowdkit_python is None:
        return
    it, ra = np.nonzero(codes >= 0)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "ann.csv")
        import pandas as pd

        pd.DataFrame({"task": it, "worker": ra, "label": codes[it, ra]}).to_csv(path, index=False)
        script = os.path.join(tmp, "ck.py")
        with open(script, "w") as fh:
            fh.write(CROWDKIT)
        t = time.perf_counter()
        proc = subprocess.run([args.crowdkit_python, script, path, str(args.classes)],
                              capture_output=True, text=True, check=False)
        wall = time.perf_counter() - t
    if proc.returncode != 0:
        print("crowd-kit failed:", proc.stderr[-2000:], file=sys.stderr)
        sys.exit(1)
    ck = json.loads(proc.stdout.strip().splitlines()[-1])
    ck_acc = np.array([ck["ds_accuracy"][str(j)] for j in range(args.raters)])
    ours = res["dawid_skene_em"][1]
    diff = np.abs(ours.accuracy - ck_acc)
    agree = np.mean(ours.labels() == np.asarray(ck["ds_labels"]))
    print(f"crowd-kit DawidSkene: {ck['ds_seconds']:.1f} s (fit only; subprocess {wall:.0f} s "
          f"with imports, CSV and MACE); accuracy {np.round(ck_acc, 3).tolist()}")
    print(f"Dawid-Skene: max |accuracy difference| {diff.max():.4f}; labels agree on "
          f"{agree:.2%}; time ratio crowd-kit / ours "
          f"{ck['ds_seconds'] / res['dawid_skene_em'][0]:.1f}")
    mace_agree = np.mean(res["mace_em"][1].labels() == np.asarray(ck["mace_labels"]))
    print(f"crowd-kit MACE (EM, 1 restart): {ck['mace_seconds']:.1f} s; labels agree with "
          f"mace_em on {mace_agree:.2%}; time ratio {ck['mace_seconds'] / res['mace_em'][0]:.1f}")
    ck_theta = np.array([ck["mace_theta"][str(j)] for j in range(args.raters)])
    k = args.classes
    ck_macc = ck_theta + (1 - ck_theta) / k  # P(correct) under the uniform class prior
    mdiff = np.abs(res["mace_em"][1].accuracy - ck_macc)
    print(f"MACE: crowd-kit accuracy {np.round(ck_macc, 3).tolist()}; max |accuracy "
          f"difference| {mdiff.max():.4f}")


if __name__ == "__main__":
    main()
