"""Scale: point estimates, the B = 2000 item bootstrap and annotator-model EM at 1e5, 1e6 and 1e7 cells.

Data: ``items x 10 raters``, 10% of the cells missing (so 1e7 cells are about 9e6 ratings),
labels from a latent class copied with probability 0.6. Point estimates and the bootstrap use
50 labels (the issue's case); EM uses 5 classes (simulated from a Dawid-Skene model with rater
accuracies 0.50 ... 0.95), as ``bench_models_scale.py``.

Every measurement runs in a fresh subprocess (its peak RSS is the child's ``ru_maxrss``; the
data are made in the child, so the RSS includes them) and is repeated ``--repeats`` times
(median printed). Rows:

* ``point alpha`` / ``point fleiss``: ``sis.krippendorff_alpha(ann)`` / ``sis.fleiss_kappa(ann)``
  on fresh ``Annotations`` (nothing cached; imports warmed up on 300 items), against ``krippendorff.alpha`` (nominal);
  the notes give the CPU time (user + sys of the process) beside the wall time, for a loaded machine;
* ``bootstrap``: ``sis.fleiss_kappa(ann, ci=Bootstrap(n=B))`` (point estimate and any JAX
  compile included), its time per replicate (a second run in the same process, less the point
  estimate), and in the same process the memory-traffic floor: a streaming-read probe
  (``np.sum`` over 512 MiB: GB/s) and a ``bincount`` probe (one replicate's multinomial item
  counts: ``rng.integers`` + ``np.bincount`` over the items); floor per replicate = the
  ``bincount`` probe + the bytes one replicate must read (its weights and the non-zeros of the
  per-item feature matrix) at the streaming rate;
* ``em ds`` / ``em mace``: ``models.dawid_skene_em`` / ``mace_em`` (compile included; imports
  warmed up on 200 items), against
  crowd-kit's ``DawidSkene`` / ``MACE(method="em")`` (fit only) where installed, with the
  largest per-rater accuracy difference;
* ``svi ds`` (with ``--svi``): ``inference.fit("dawid_skene", codes, method="svi")`` with
  minibatches of items (``SviConfig(batch_size=...)``, ``--svi-batch``, default 4096;
  ``--svi-steps``, default 2000; 1000 draws; compile and drawing included, imports warmed up on
  200 items), with the largest per-rater posterior-mean accuracy difference from the
  ``em ds`` row on the same data;
* ``svi item_difficulty`` / ``svi lre`` (with ``--svi-item-effects``): the same for the item-difficulty
  and logistic random-effects models (per-item effects in the batch, ``SviConfig.local_steps`` = 10 local
  steps per step, 20 draws), their posterior-mean kappa, and the accuracy gaps as above (the data have no
  item effects, so both should recover the Dawid-Skene accuracies; item difficulty pools the raters).

Usage::

    python benchmarks/bench_scale.py                       # 1e5 and 1e6 cells, 3 repeats
    python benchmarks/bench_scale.py --sizes 1e5,1e6,1e7   # the full table (~30-60 min on 2 cores)
    python benchmarks/bench_scale.py --sizes 1e7 --repeats 1 --no-peers
    python benchmarks/bench_scale.py --sizes 1e6,1e7 --only-svi   # minibatch SVI, 1e5 and 1e6 items
    python benchmarks/bench_scale.py --sizes 1e6,1e7 --only-svi --svi --svi-item-effects   # and the item-effect models
    python benchmarks/bench_scale.py --sizes 1.12e7 --only-em --peer-max-cells 1.2e7 --mace-peer-max-cells 1.2e7
        # EM at 1e7 ratings against crowd-kit (both models)
"""

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
import warnings

import numpy as np

RATERS, LABELS, MISSING, EM_CLASSES = 10, 50, 0.1, 5
SVI_STEPS = int(os.environ.get("BENCH_SVI_STEPS", "2000"))
SVI_LOCAL_DRAWS = 20  # draws of the item-effect models (their per-item effects are drawn for every item)
SVI_MODELS = {"svi ds": "dawid_skene", "svi item_difficulty": "item_difficulty",
              "svi lre": "logistic_random_effects"}


def make_codes(n_items: int, raters: int = RATERS, k: int = LABELS, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, k, n_items)
    codes = np.where(rng.random((n_items, raters)) < 0.6, truth[:, None],
                     rng.integers(0, k, (n_items, raters))).astype(np.int32)
    codes[rng.random((n_items, raters)) < MISSING] = -1
    return codes


def make_ann(codes: np.ndarray, k: int):
    from softirr_stats.data import Annotations

    return Annotations(codes, [float(v) for v in range(k)], kind="numeric")


def floor_probes(n_items: int) -> dict:
    """Streaming-read bandwidth (bytes/s) and one replicate's multinomial draw (s), best of 3."""
    x = np.ones(64 * 2**20)  # 512 MiB
    x.sum()
    reads = []
    for _ in range(3):
        t = time.perf_counter()
        x.sum()
        reads.append(time.perf_counter() - t)
    bw = x.nbytes / min(reads)
    del x
    rng = np.random.Generator(np.random.SFC64(0))
    draws = []
    for _ in range(5):
        t = time.perf_counter()
        np.bincount(rng.integers(0, n_items, n_items), minlength=n_items)
        draws.append(time.perf_counter() - t)
    return {"read_bytes_per_s": bw, "bincount_s": min(draws)}


def child(case: str, n_items: int, b: int, raters: int, k: int) -> dict:
    warnings.simplefilter("ignore")
    out: dict = {}
    if case.startswith("svi "):
        from softirr_stats import inference
        from softirr_stats.models import simulate_dawid_skene

        model = SVI_MODELS[case]
        sim = simulate_dawid_skene(n_items, raters, EM_CLASSES, accuracy=np.linspace(0.5, 0.95, raters),
                                   missing=MISSING, seed=0)
        codes = sim["codes"]
        out["ratings"] = int((codes >= 0).sum())
        small = simulate_dawid_skene(200, raters, EM_CLASSES, accuracy=0.8, seed=1)["codes"]
        inference.fit(model, small, method="svi", progress=False,  # imports
                      config=inference.SviConfig(steps=10, num_draws=10, batch_size=50))
        # the item-effect models draw every item's effects: (draws, items, K, K-1) floats
        draws = 1000 if case == "svi ds" else SVI_LOCAL_DRAWS
        cfg = inference.SviConfig(steps=SVI_STEPS, batch_size=min(b, n_items), num_draws=draws)
        t, cpu = time.perf_counter(), time.process_time()
        post = inference.fit(model, codes, method="svi", config=cfg, progress=False)
        acc = post.rater_accuracy()["accuracy"].to_numpy()
        out["seconds"] = time.perf_counter() - t
        out["cpu_seconds"] = time.process_time() - cpu  # the machine is shared: CPU time too
        out["accuracy"] = acc.tolist()
        out["kappa"] = float(np.mean(post.kappa))
        out["num_draws"] = draws
        out["batch_size"] = post.extra["batch_size"]
        out["steps"] = SVI_STEPS
        out["true_accuracy"] = np.asarray(sim["accuracy"]).tolist()
    elif case.startswith("em"):
        from softirr_stats.models import dawid_skene_em, mace_em, simulate_dawid_skene

        sim = simulate_dawid_skene(n_items, raters, EM_CLASSES, accuracy=np.linspace(0.5, 0.95, raters),
                                   missing=MISSING, seed=0)
        codes = sim["codes"]
        out["ratings"] = int((codes >= 0).sum())
        if case in ("em ds", "em mace"):
            fn = dawid_skene_em if case == "em ds" else mace_em
            fn(simulate_dawid_skene(200, raters, EM_CLASSES, accuracy=0.8, seed=1)["codes"])  # imports
            t, cpu = time.perf_counter(), time.process_time()
            res = fn(codes)
            out["seconds"] = time.perf_counter() - t
            out["cpu_seconds"] = time.process_time() - cpu
            out["accuracy"] = res.accuracy.tolist()
            out["n_iter"] = res.n_iter
        else:  # crowd-kit
            import pandas as pd
            from crowdkit.aggregation import MACE, DawidSkene

            it, ra = np.nonzero(codes >= 0)
            df = pd.DataFrame({"task": it, "worker": ra, "label": codes[it, ra]})
            t, cpu = time.perf_counter(), time.process_time()
            if case == "em ds crowd-kit":
                ds = DawidSkene(n_iter=100, tol=1e-5).fit(df)
                out["seconds"] = time.perf_counter() - t
                out["cpu_seconds"] = time.process_time() - cpu
                pri = ds.priors_.reindex(range(EM_CLASSES)).to_numpy()
                acc = []
                for w in range(raters):
                    m = ds.errors_.loc[w].reindex(index=range(EM_CLASSES), columns=range(EM_CLASSES)).fillna(0.0)
                    acc.append(float((pri * np.diag(m.to_numpy())).sum()))
                out["accuracy"] = acc
            else:
                mace = MACE(n_restarts=1, n_iter=100, method="em", random_state=0).fit(df)
                out["seconds"] = time.perf_counter() - t
                out["cpu_seconds"] = time.process_time() - cpu
                names = pd.factorize(df["worker"])[1]
                theta = np.empty(raters)
                theta[np.asarray(names)] = mace.spamming_[:, 1]
                out["accuracy"] = (theta + (1 - theta) / EM_CLASSES).tolist()
    else:
        codes = make_codes(n_items, raters, k)
        out["ratings"] = int((codes >= 0).sum())
        if case == "point krippendorff":
            import krippendorff

            data = np.where(codes >= 0, codes, np.nan).T.astype(float)
            t = time.perf_counter()
            out["value"] = float(krippendorff.alpha(reliability_data=data, level_of_measurement="nominal"))
            out["seconds"] = time.perf_counter() - t
        else:
            import softirr_stats as sis

            small = make_ann(make_codes(300, raters, k, seed=1), k)  # warm-up: imports and first-use costs
            sis.krippendorff_alpha(small), sis.fleiss_kappa(small, ci=sis.Bootstrap(n=b) if b else None)
            ann = make_ann(codes, k)
            t, cpu = time.perf_counter(), time.process_time()
            if case == "point alpha":
                out["value"] = sis.krippendorff_alpha(ann).value
            elif case == "point fleiss":
                out["value"] = sis.fleiss_kappa(ann).value
            elif case == "bootstrap":
                r = sis.fleiss_kappa(ann, ci=sis.Bootstrap(n=b, seed=0))
                out["value"], out["ci"] = r.value, [r.ci_low, r.ci_high]
            out["seconds"] = time.perf_counter() - t
            out["cpu_seconds"] = time.process_time() - cpu  # the machine is shared: CPU time too
            if case == "bootstrap":
                from softirr_stats.agreement import prepare, resolve_similarity

                ann2 = make_ann(codes, k)
                t = time.perf_counter()
                prep = prepare(ann2, "pooled", resolve_similarity(ann2))
                sis.agreement.evaluate(prep)
                point = time.perf_counter() - t
                ann3 = make_ann(codes, k)  # again, compiled kernels warm: the steady per-replicate time
                t = time.perf_counter()
                sis.fleiss_kappa(ann3, ci=sis.Bootstrap(n=b, seed=0))
                out["per_replicate_s"] = (time.perf_counter() - t - point) / b
                from softirr_stats.agreement._evaluator import _gemm_cost, _gemm_features

                gemm = _gemm_features(prep)
                nnz = _gemm_cost(gemm) if gemm is not None else len(prep.layout.rating_item)
                probes = floor_probes(n_items)
                out.update(probes)
                bytes_per_rep = 12.0 * nnz / 16 + 3 * 8.0 * n_items  # F once per 16-replicate chunk; weights
                out["floor_s"] = probes["bincount_s"] + bytes_per_rep / probes["read_bytes_per_s"]
    out["peak_rss_gb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6  # kB -> GB
    return out


def run(case: str, n_items: int, b: int, repeats: int, raters: int = RATERS, k: int = LABELS,
        timeout: float = 1800) -> dict | None:
    outs = []
    for _ in range(repeats):
        cmd = [sys.executable, __file__, "--child", case, "--items", str(n_items), "--boot-n", str(b),
               "--raters", str(raters), "--labels", str(k)]
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, check=False)
        except subprocess.TimeoutExpired:
            return {"error": f"over {timeout:.0f} s"}
        if proc.returncode != 0:
            return {"error": proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else f"rc {proc.returncode}"}
        outs.append(json.loads(proc.stdout.strip().splitlines()[-1]))
    best = dict(outs[0])
    for key in ("seconds", "per_replicate_s", "floor_s", "cpu_seconds"):
        if key in best:
            best[key] = statistics.median(o[key] for o in outs)
    best["peak_rss_gb"] = max(o["peak_rss_gb"] for o in outs)
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", default="1e5,1e6", help="cells (items x 10 raters), comma-separated")
    ap.add_argument("--boot-n", type=int, default=2000)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--no-peers", action="store_true", help="skip krippendorff and crowd-kit")
    ap.add_argument("--no-em", action="store_true")
    ap.add_argument("--no-bootstrap", action="store_true")
    ap.add_argument("--peer-max-cells", type=float, default=1e7, help="largest size crowd-kit is run at")
    ap.add_argument("--kripp-max-cells", type=float, default=1e6,
                    help="largest size krippendorff is run at (~110 s at 1e6 cells on a busy 2-core machine)")
    ap.add_argument("--mace-peer-max-cells", type=float, default=1e5,
                    help="largest size crowd-kit's MACE is run at (~5 min at 1e6 cells)")
    ap.add_argument("--only-em", action="store_true", help="only the EM rows (and their crowd-kit peers)")
    ap.add_argument("--svi", action="store_true", help="add minibatch SVI rows (Dawid-Skene)")
    ap.add_argument("--only-svi", action="store_true",
                    help="only the minibatch SVI rows and their EM reference")
    ap.add_argument("--svi-item-effects", action="store_true",
                    help="add minibatch SVI rows of the item-effect models (item difficulty, logistic random "
                         f"effects; {SVI_LOCAL_DRAWS} draws)")
    ap.add_argument("--svi-batch", type=int, default=4096, help="items per SVI minibatch")
    ap.add_argument("--svi-steps", type=int, default=2000, help="SVI steps")
    ap.add_argument("--child", default=None)
    ap.add_argument("--items", type=int, default=0)
    ap.add_argument("--raters", type=int, default=RATERS)
    ap.add_argument("--labels", type=int, default=LABELS)
    args = ap.parse_args()
    if args.child:
        print(json.dumps(child(args.child, args.items, args.boot_n, args.raters, args.labels)))
        return
    os.environ["BENCH_SVI_STEPS"] = str(args.svi_steps)  # read by the children
    if args.only_svi:
        args.no_bootstrap = True
        args.svi = args.svi or not args.svi_item_effects
    if args.only_em:
        args.no_bootstrap, args.no_em, args.svi = True, False, False
    load = os.getloadavg()
    print(f"machine: {os.cpu_count()} cores, load average {load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f} at start; "
          f"median of {args.repeats}")
    print("| cells | ratings | row | seconds | peak RSS (GB) | peer seconds | peer / ours | notes |")
    print("|---|---|---|---|---|---|---|---|")

    def row(cells: str, res: dict, name: str, peer: dict | None, note: str = "") -> None:
        if "error" in res:
            print(f"| {cells} | | {name} | {res['error']} | | | | |", flush=True)
            return
        ps = "" if not peer else (peer.get("error") or f"{peer['seconds']:.2f}")
        ratio = "" if not peer or "error" in peer else f"{peer['seconds'] / res['seconds']:.1f}"
        if "cpu_seconds" in res and "CPU" not in note:
            note = f"{res['cpu_seconds']:.2f} CPU-s" + (f"; {note}" if note else "")
        print(f"| {cells} | {res['ratings']} | {name} | {res['seconds']:.2f} | {res['peak_rss_gb']:.2f} | {ps} | "
              f"{ratio} | {note} |", flush=True)

    for size in args.sizes.split(","):
        cells = float(size)
        n_items = int(cells) // RATERS
        peers = not args.no_peers and cells <= args.peer_max_cells
        kripp = (run("point krippendorff", n_items, 0, args.repeats)
                 if peers and cells <= args.kripp_max_cells and not (args.only_svi or args.only_em) else None)
        for what in () if args.only_svi or args.only_em else ("point alpha", "point fleiss"):
            res = run(what, n_items, 0, args.repeats)
            note = ""
            if what == "point alpha" and kripp and "error" not in kripp and "error" not in res:
                note = f"|alpha - krippendorff| = {abs(res['value'] - kripp['value']):.1e}"
            row(size, res, what, kripp if what == "point alpha" else None, note)
        if not args.no_bootstrap:
            res = run("bootstrap", n_items, args.boot_n, args.repeats)
            note = ""
            if "error" not in res:
                note = (f"{res['per_replicate_s'] * 1e3:.2f} ms/replicate; floor {res['floor_s'] * 1e3:.2f} ms "
                        f"(bincount probe {res['bincount_s'] * 1e3:.2f} ms, read {res['read_bytes_per_s'] / 1e9:.1f} "
                        f"GB/s); ratio {res['per_replicate_s'] / res['floor_s']:.1f}")
            row(size, res, f"bootstrap B={args.boot_n}", None, note)
        em_ds = None
        if not args.no_em or args.svi or args.svi_item_effects:
            for what, peer_case in (("em ds", "em ds crowd-kit"), ("em mace", "em mace crowd-kit")):
                if (args.no_em or args.only_svi) and what != "em ds":
                    continue
                res = run(what, n_items, 0, args.repeats, k=EM_CLASSES)
                if what == "em ds":
                    em_ds = res
                peer = None
                # crowd-kit's MACE takes ~5 min at 1e6 cells (docs/annotator_models.md): --mace-peer-max-cells
                if peers and not args.only_svi and (what == "em ds" or cells <= args.mace_peer_max_cells):
                    peer = run(peer_case, n_items, 0, 1, k=EM_CLASSES, timeout=600)
                note = f"{res.get('n_iter', '')} iterations"
                if "error" not in res and "cpu_seconds" in res:
                    note += f"; {res['cpu_seconds']:.1f} CPU-s"
                if peer and "error" not in peer and "error" not in res:
                    gap = np.max(np.abs(np.subtract(res["accuracy"], peer["accuracy"])))
                    note += (f"; crowd-kit {peer['cpu_seconds']:.1f} CPU-s (CPU ratio "
                             f"{peer['cpu_seconds'] / res['cpu_seconds']:.1f}); max |accuracy - crowd-kit| = {gap:.1e}")
                row(size, res, what, peer, note)
        svi_cases = ["svi ds"] if args.svi else []
        if args.svi_item_effects:
            svi_cases += ["svi item_difficulty", "svi lre"]
        for case in svi_cases:
            res = run(case, n_items, args.svi_batch, args.repeats, k=EM_CLASSES)
            note = ""
            if "error" not in res:
                note = (f"batches of {res['batch_size']} items, {res['steps']} steps, {res['num_draws']} draws, "
                        f"{res['cpu_seconds']:.1f} CPU-s; kappa {res['kappa']:.4f}")
                if em_ds and "error" not in em_ds:
                    gap = np.max(np.abs(np.subtract(res["accuracy"], em_ds["accuracy"])))
                    note += f"; max |accuracy - EM| = {gap:.1e}"
                gap = np.max(np.abs(np.subtract(res["accuracy"], res["true_accuracy"])))
                note += f"; max |accuracy - truth| = {gap:.1e}"
            row(size, res, f"{case} (minibatch)", None, note)
    if not args.no_bootstrap:  # the small case of the floor target: (5 raters, 1e4 items, 5 labels)
        res = run("bootstrap", 10_000, args.boot_n, args.repeats, raters=5, k=5)
        if "error" not in res:
            print(f"\n(5 raters, 1e4 items, 5 labels) bootstrap B={args.boot_n}: {res['seconds']:.2f} s, "
                  f"{res['per_replicate_s'] * 1e3:.3f} ms/replicate; floor {res['floor_s'] * 1e3:.3f} ms; ratio "
                  f"{res['per_replicate_s'] / res['floor_s']:.1f}")
    load = os.getloadavg()
    print(f"\nload average at the end: {load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f}")


if __name__ == "__main__":
    main()
