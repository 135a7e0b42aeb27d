"""Small study with many classes: model kappa under confusion priors of several weights.

30 documents x 3 annotators x 10 classes, generator accuracy 0.82, SVI (1,500 steps).
Usage: ``python benchmarks/prior_sweep_small_study.py 2 4 8`` (the concentrations).
"""
import sys
import time

import softirr_stats as sis
from softirr_stats import models
from softirr_stats.inference import SviConfig, fit
from softirr_stats.uncertainty import Bootstrap

for seed in [0, 1]:  # the two seeds of docs/annotator_models.md
    sim = models.simulate_dawid_skene(30, 3, 10, accuracy=0.82, seed=seed)
    codes = sim["codes"]
    fl = sis.fleiss_kappa(codes.tolist(), ci=Bootstrap(n=1000, level=0.9, seed=0))
    print("seed", seed, "fleiss", round(fl.value, 3), round(fl.ci_low, 3), round(fl.ci_high, 3), flush=True)
    for conc in [float(x) for x in sys.argv[1:]]:
        t = time.time()
        post = fit(models.dawid_skene, codes, method="svi", seed=0, config=SviConfig(steps=1500, num_draws=500), priors=models.DawidSkenePriors(concentration=conc))
        lo, hi = post.interval("kappa")
        print(" conc", conc, "kappa", round(post.kappa.mean(), 3), round(lo, 3), round(hi, 3),
              "acc", post.rater_accuracy()["accuracy"].round(3).tolist(), f"{time.time()-t:.1f}s", flush=True)
