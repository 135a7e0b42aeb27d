"""Ray scoring backend: 1 vs 2 actors, and the Ray path's overhead against in-process scoring.

Builds a compute-bound tiny random BERT-style NLI cross-encoder offline, then fills three empty
caches with the same ``--pairs`` label pairs: in this process, on 1 Ray actor, on 2 Ray actors
(local Ray instance with ``--cpus`` CPUs; every process runs torch with 1 thread). Reports, in
one run so the ratios share the machine's load:

- end to end: wall time of ``fill_cache`` (Ray: includes starting the actors and loading the
  model in each);
- steady state: pairs/s between the first and the last committed batch (scoring only);
- speedup = 2-actor / 1-actor rate; overhead = in-process rate / 1-actor Ray rate.

Targets: speedup >= 1.6 on 2 idle cores; overhead <= 1.3 on 1e4 pairs. The load average is
printed: on a shared machine the ratios move with it.

    python benchmarks/bench_distributed.py --pairs 10000 [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

import numpy as np  # noqa: E402

WORDS = sorted(["acute", "pain", "chest", "heart", "attack", "fever", "high", "mild", "cough", "dry", "rash", "skin",
                "head", "ache", "leg", "broken", "seizure", "renal", "failure", "liver", "left", "right", "upper",
                "lower", "chronic", "severe", "loss", "of", "function", "swelling"])


def build_model(root: str, hidden: int, layers: int) -> str:
    import torch
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors
    from transformers import BertConfig, BertForSequenceClassification, PreTrainedTokenizerFast

    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"] + WORDS
    wp = Tokenizer(models.WordPiece({t: i for i, t in enumerate(vocab)}, unk_token="[UNK]"))
    wp.normalizer = normalizers.BertNormalizer(lowercase=True)
    wp.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    wp.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1", special_tokens=[("[CLS]", 2), ("[SEP]", 3)])
    tok = PreTrainedTokenizerFast(tokenizer_object=wp, unk_token="[UNK]", pad_token="[PAD]", cls_token="[CLS]",
                                  sep_token="[SEP]", mask_token="[MASK]", model_max_length=64)
    torch.manual_seed(0)
    cfg = BertConfig(vocab_size=len(tok), hidden_size=hidden, num_hidden_layers=layers,
                     num_attention_heads=max(1, hidden // 64), intermediate_size=4 * hidden,
                     max_position_embeddings=64, num_labels=3,
                     id2label={0: "contradiction", 1: "entailment", 2: "neutral"})
    path = os.path.join(root, "tiny-nli")
    BertForSequenceClassification(cfg).save_pretrained(path)
    tok.save_pretrained(path)
    return path


def make_pairs(n: int, seed: int = 0) -> tuple[list[str], list[str]]:
    rng = np.random.default_rng(seed)
    k = int(np.ceil((1 + np.sqrt(1 + 8 * n)) / 2)) + 1
    labels: set[str] = set()
    while len(labels) < k:
        labels.add(" ".join(rng.choice(WORDS, rng.integers(2, 5))))
    lab = sorted(labels)
    i, j = np.triu_indices(len(lab), k=1)
    pick = rng.permutation(len(i))[:n]
    return [lab[x] for x in i[pick]], [lab[x] for x in j[pick]]


def timed_fill(est, a, b, path, batch_size, backend=None) -> dict:
    from softirr_stats.equivalence import fill_cache

    stamps: list[tuple[float, int]] = []
    t0 = time.perf_counter()
    rep = fill_cache(est, a, b, path, batch_size=batch_size, backend=backend, progress=False,
                     on_batch=lambda done, total: stamps.append((time.perf_counter(), done)))
    wall = time.perf_counter() - t0
    (t_first, n_first), (t_last, n_last) = stamps[0], stamps[-1]
    steady = (n_last - n_first) / (t_last - t_first) if t_last > t_first else float("nan")
    return {"backend": rep.backend, "pairs": rep.n_scored, "wall_s": wall, "end_to_end_pairs_per_s": rep.n_scored / wall,
            "steady_pairs_per_s": steady, "first_batch_after_s": t_first - t0}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pairs", type=int, default=10_000)
    ap.add_argument("--batch-size", type=int, default=128)
    ap.add_argument("--hidden", type=int, default=256)
    ap.add_argument("--layers", type=int, default=4)
    ap.add_argument("--cpus", type=int, default=2)
    ap.add_argument("--json", default=None)
    args = ap.parse_args()

    import ray
    import torch

    from softirr_stats.equivalence import Nli, RayBackend

    torch.set_num_threads(1)
    root = tempfile.mkdtemp(prefix="bench_distributed_")
    model = build_model(root, args.hidden, args.layers)
    a, b = make_pairs(args.pairs)

    def est():
        return Nli(model, device="cpu", dtype="fp32", batch_size=64, progress=False)

    load0 = os.getloadavg()
    ray.init(address="local", num_cpus=args.cpus, include_dashboard=False, log_to_driver=False,
             runtime_env={"env_vars": {"OMP_NUM_THREADS": "1", "TOKENIZERS_PARALLELISM": "false",
                                       "HF_HUB_OFFLINE": "1"}})
    runs = {
        "in_process": timed_fill(est(), a, b, os.path.join(root, "local.sqlite"), args.batch_size),
        "ray_1_actor": timed_fill(est(), a, b, os.path.join(root, "ray1.sqlite"), args.batch_size,
                                  RayBackend(workers=1)),
        "ray_2_actors": timed_fill(est(), a, b, os.path.join(root, "ray2.sqlite"), args.batch_size,
                                   RayBackend(workers=2)),
    }
    ray.shutdown()
    load1 = os.getloadavg()
    import sqlite3

    q = "SELECT a, b, score FROM scores ORDER BY a, b"
    rows = [sqlite3.connect(os.path.join(root, f)).execute(q).fetchall() for f in ("local.sqlite", "ray1.sqlite",
                                                                                  "ray2.sqlite")]
    identical = rows[0] == rows[1] == rows[2]
    r = {k: v for k, v in runs.items()}
    summary = {
        "speedup_2_vs_1_actor_steady": r["ray_2_actors"]["steady_pairs_per_s"] / r["ray_1_actor"]["steady_pairs_per_s"],
        "speedup_2_vs_1_actor_end_to_end": r["ray_1_actor"]["wall_s"] / r["ray_2_actors"]["wall_s"],
        "overhead_ray1_vs_in_process_steady": r["in_process"]["steady_pairs_per_s"] / r["ray_1_actor"]["steady_pairs_per_s"],
        "overhead_ray1_vs_in_process_end_to_end": r["ray_1_actor"]["wall_s"] / r["in_process"]["wall_s"],
    }
    out = {"args": vars(args), "cpu_count": os.cpu_count(), "loadavg_before": load0, "loadavg_after": load1,
           "runs": runs, "summary": summary, "stored_scores_identical_bit_for_bit": identical, "gpu": "none available: benchmarks/gpu_scoring.py not run"}
    for k, v in runs.items():
        print(f"{k:13s} {v['pairs']:6d} pairs  wall {v['wall_s']:7.1f} s  end-to-end {v['end_to_end_pairs_per_s']:7.1f}/s  "
              f"steady {v['steady_pairs_per_s']:7.1f}/s  first batch after {v['first_batch_after_s']:5.1f} s")
    for k, v in summary.items():
        print(f"{k:42s} {v:.2f}")
    print(f"stored scores identical bit for bit across the three runs: {identical}")
    print(f"load average before {load0[0]:.1f}, after {load1[0]:.1f} on {os.cpu_count()} CPUs")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=2)


if __name__ == "__main__":
    main()
