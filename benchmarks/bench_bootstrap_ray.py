"""When does ``Bootstrap(backend="ray")`` pay? A chunk's time in process against Ray's costs.

Data as ``bench_scale.py`` (``items x 10 raters``, 50 labels, 10% missing). For each size it
prints, in one process:

* ``chunk``: one chunk of the in-process loop (``evaluate_chunk``: its weights and its
  evaluation; median of 3) and the replicates per chunk;
* ``ray start``: ``ray.init`` of a local instance; ``actors up``: 2 actors built with the
  prepared statistic (sent once through the object store) until both answer a ping, then
  their first chunk (each builds its own feature matrix);
* ``task overhead``: a no-op actor call's round trip (median of 30), and a chunk on an actor
  less the in-process chunk time (the chunk's results coming back included);
* ``B replicates``: in process and on 2 actors (actors up and warm), and the largest difference
  between the two runs' replicates (0 up to rounding: the same streams).

Usage::

    python benchmarks/bench_bootstrap_ray.py --items 10000,100000 --boot-n 512
    python benchmarks/bench_bootstrap_ray.py --items 1000000 --boot-n 128
"""

import argparse
import os
import statistics
import sys
import time
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from bench_scale import LABELS, RATERS, make_ann, make_codes  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--items", default="10000,100000")
    ap.add_argument("--boot-n", type=int, default=512)
    ap.add_argument("--actors", type=int, default=2)
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    import ray

    import softirr_stats as sis
    from softirr_stats.agreement import prepare, resolve_similarity
    from softirr_stats.uncertainty._bootstrap import (
        bootstrap_replicates,
        evaluate_chunk,
        replicate_chunk,
    )

    load = os.getloadavg()
    print(f"machine: {os.cpu_count()} cores, load average {load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f} at start")
    t = time.perf_counter()
    ray.init(address="local", num_cpus=args.actors, include_dashboard=False, log_to_driver=False)
    print(f"ray start: {time.perf_counter() - t:.1f} s")

    @ray.remote(num_cpus=1)
    class Probe:
        def nothing(self) -> int:
            return 0

    probe = Probe.remote()
    ray.get(probe.nothing.remote())
    trips = []
    for _ in range(30):
        t = time.perf_counter()
        ray.get(probe.nothing.remote())
        trips.append(time.perf_counter() - t)
    print(f"task overhead (no-op actor call round trip, median of 30): {statistics.median(trips) * 1e3:.2f} ms")
    ray.kill(probe)
    print("| items | replicates / chunk | chunk in process (ms) | per replicate (ms) | actors up + first chunk (s) "
          "| chunk on an actor less in process (ms) | B | B in process (s) | B on 2 actors (s) | max diff |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    from softirr_stats.uncertainty import _bootstrap_ray

    for size in args.items.split(","):
        n = int(float(size))
        ann = make_ann(make_codes(n, RATERS, LABELS), LABELS)
        prep = prepare(ann, "pooled", resolve_similarity(ann))
        cfg = sis.Bootstrap(n=args.boot_n, seed=0)
        chunk = replicate_chunk(prep, cfg)
        evaluate_chunk(prep, cfg, 0, chunk)  # features and any compile
        times = []
        for _ in range(3):
            t = time.perf_counter()
            evaluate_chunk(prep, cfg, 0, chunk)
            times.append(time.perf_counter() - t)
        t_chunk = statistics.median(times)
        t = time.perf_counter()
        local = bootstrap_replicates(prep, cfg)["value"]
        t_local = time.perf_counter() - t
        cls = ray.remote(num_cpus=1)(_bootstrap_ray._ReplicateActor)
        t = time.perf_counter()
        ref = ray.put(prep)
        actors = [cls.remote([ref], cfg) for _ in range(args.actors)]
        ray.get([a.pid.remote() for a in actors])
        t_up = time.perf_counter() - t
        t = time.perf_counter()
        ray.get([a.chunk.remote(0, chunk) for a in actors])  # each actor's features (and any compile)
        t_warm = time.perf_counter() - t
        remote_times = []
        for _ in range(3):
            t = time.perf_counter()
            ray.get(actors[0].chunk.remote(0, chunk))
            remote_times.append(time.perf_counter() - t)
        starts = list(range(0, args.boot_n, chunk))
        t = time.perf_counter()
        parts = _bootstrap_ray._drive(ray, actors, starts, chunk, 2, 900.0, None)
        t_ray = time.perf_counter() - t
        on_ray = np.concatenate([p["value"] for p in parts])
        diff = float(np.nanmax(np.abs(on_ray - local)))
        for a in actors:
            ray.kill(a)
        del ref
        print(f"| {n} | {chunk} | {t_chunk * 1e3:.1f} | {t_chunk / chunk * 1e3:.3f} | {t_up:.1f} + {t_warm:.1f} | "
              f"{(statistics.median(remote_times) - t_chunk) * 1e3:.1f} | {args.boot_n} | {t_local:.2f} | "
              f"{t_ray:.2f} | {diff:.1e} |", flush=True)
    ray.shutdown()
    load = os.getloadavg()
    print(f"load average at the end: {load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f}")


if __name__ == "__main__":
    main()
