"""``softirr score FILE ...``: fill a score cache with the pairs the statistics need.

Computes the scoring plan (within-item pairs, the chance support or the sampled chance
pairs, the vocabulary for AC1 / Brennan-Prediger) for the requested coefficients, measures
and chance setting, drops the pairs already in ``--cache``, and scores the rest in this
process or on Ray (``--ray``, ``--ray-address``, ``--workers``, ``--gpus-per-worker``). Every
batch is committed as it finishes: rerun the same command to resume an interrupted job.
``softirr agree FILE ... --cache FILE`` then reads the scores from the file.

Heavy modules (jax, torch, ray) are imported inside the command only.
"""

from __future__ import annotations

import json
import math
import time
from pathlib import Path
from typing import Annotated, Any

import typer

__all__ = ["score", "estimator_for_measure", "parse_chance"]

_MODEL_MEASURES = ("nli", "llm_judge")


def estimator_for_measure(name: str, model: str | None = None) -> Any:
    """The estimator a ``-m`` value names.

    ``name`` is a measure name (``levenshtein``, ``embedding``, ...; ``nli`` and ``llm_judge``
    need ``model``), a JSON estimator spec (``{"cls": "module:Class", "params": {...}}``), or
    ``@path`` to a file holding one.

    Examples
    --------
    >>> estimator_for_measure("indel").name
    'indel'
    >>> estimator_for_measure('{"cls": "softirr_stats.equivalence._string:Masi", "params": {"exact": true}}').exact
    True
    """
    from softirr_stats.equivalence import (
        MEASURE_NAMES,
        Embedding,
        LlmJudge,
        Nli,
        estimator_from_name,
        from_spec,
    )

    text = name.strip()
    if text.startswith("@"):
        text = Path(text[1:]).read_text(encoding="utf-8")
    if text.lstrip().startswith("{"):
        return from_spec(text)
    key = text.lower()
    if key in _MODEL_MEASURES:
        if not model:
            raise ValueError(f"measure {key!r} needs --model (a local model directory or hub name)")
        return Nli(model, progress=False) if key == "nli" else LlmJudge(model, progress=False)
    if key == "embedding" and model:
        return Embedding(model, progress=False)
    if key not in MEASURE_NAMES:
        raise ValueError(f"measure must be one of {list(MEASURE_NAMES) + list(_MODEL_MEASURES)}, a JSON estimator "
                         f"spec or @spec.json; got {name!r}")
    return estimator_from_name(key)


def parse_chance(text: str, seed: int = 0) -> Any:
    """``exact``, ``auto``, ``sampled:N`` (SampledPairs) or ``montecarlo:D`` (MonteCarlo), seeded.

    Examples
    --------
    >>> parse_chance("sampled:500", seed=2)
    SampledPairs(n=500, seed=2)
    """
    import softirr_stats as sis

    t = text.strip().lower()
    if t in ("exact", "auto"):
        return t
    kind, _, num = t.partition(":")
    if kind in ("sampled", "montecarlo") and num.isdigit():
        return sis.SampledPairs(n=int(num), seed=seed) if kind == "sampled" else sis.MonteCarlo(int(num), seed)
    raise ValueError(f"chance must be exact, auto, sampled:N or montecarlo:D; got {text!r}")


def _split(values: list[str] | None) -> list[str]:
    out: list[str] = []
    for v in values or []:
        out += [v.strip()] if v.strip().startswith(("{", "@")) else [x.strip() for x in v.split(",") if x.strip()]
    return out


def score(
    file: Annotated[Path, typer.Argument(help="CSV, TSV or JSONL file in long format (one row per rating)")],
    item: Annotated[str, typer.Option(help="item (document) column")] = "item",
    rater: Annotated[str, typer.Option(help="rater (annotator) column")] = "rater",
    label: Annotated[str, typer.Option(help="label column")] = "label",
    coefficient: Annotated[list[str] | None, typer.Option(
        "--coefficient", "-c", help="coefficient(s) the scores are for; repeat or comma-separate")] = None,
    measure: Annotated[list[str] | None, typer.Option(
        "--measure", "-m", help="measure(s): levenshtein, indel, lcs, jaccard, masi, dice, embedding, nli, "
                                "llm_judge, a JSON estimator spec or @spec.json")] = None,
    model: Annotated[str | None, typer.Option(help="model directory or hub name for nli / llm_judge / embedding")] = None,
    chance: Annotated[str, typer.Option(help="chance agreement: exact, auto, sampled:N, montecarlo:D")] = "exact",
    seed: Annotated[int, typer.Option(help="seed of sampled chance pairs (use the same in the analysis)")] = 0,
    cache: Annotated[Path, typer.Option(help="SQLite score cache to fill (created if needed)")] = Path("scores.sqlite"),
    ray: Annotated[bool, typer.Option("--ray/--no-ray", help="score on Ray (implied by the Ray options)")] = False,
    ray_address: Annotated[str | None, typer.Option(
        help="Ray cluster: auto, host:port or ray://host:port; without it a local Ray instance is started")] = None,
    workers: Annotated[int | None, typer.Option(help="Ray actors (default: one per GPU, else per CPU)")] = None,
    gpus_per_worker: Annotated[float | None, typer.Option(help="GPUs per Ray actor (default 1 if GPUs, else 0)")] = None,
    cpus_per_worker: Annotated[float, typer.Option(help="CPUs per Ray actor")] = 1.0,
    batch_size: Annotated[int, typer.Option(help="pairs per batch (one committed transaction each)")] = 256,
    progress: Annotated[bool, typer.Option("--progress/--no-progress", help="progress bar on a terminal")] = True,
    json_out: Annotated[Path | None, typer.Option("--json", help="write the run summary as JSON")] = None,
) -> None:
    """Score (and cache) every label pair the coefficients need, locally or on a Ray cluster."""
    from rich.console import Console
    from rich.table import Table

    import softirr_stats as sis
    from softirr_stats._scoring_plan import scoring_plan
    from softirr_stats.equivalence import RayBackend

    console = Console(width=max(Console().width, 112))
    coefs = _split(coefficient) or ["krippendorff_alpha"]
    names = _split(measure) or ["levenshtein"]
    try:
        if batch_size < 1:
            raise ValueError(f"--batch-size must be a positive integer; got {batch_size}")
        ann = sis.read_annotations(file, item=item, rater=rater, label=label)
        chance_obj = parse_chance(chance, seed)
        estimators = []
        for n in names:
            est = estimator_for_measure(n, model)
            estimators.append((est.name if n.lstrip().startswith(("{", "@")) else n, est))
        use_ray = ray or ray_address is not None or workers is not None or gpus_per_worker is not None
        backend = (RayBackend(address=ray_address, workers=workers, gpus_per_worker=gpus_per_worker,
                              cpus_per_worker=cpus_per_worker) if use_ray else None)
        plans = [(n, scoring_plan(ann, est, coefficients=coefs, chance=chance_obj)) for n, est in estimators]
    except (ValueError, TypeError, FileNotFoundError, ImportError) as err:
        console.print(f"[red]error:[/red] {err}")
        raise typer.Exit(code=2) from None
    rows: list[dict[str, Any]] = []
    for n, plan in plans:
        t0 = time.perf_counter()
        rep = plan.run(cache, backend=backend, batch_size=batch_size, progress=None if progress else False)
        rows.append({"measure": n, "estimator": plan.estimator.fingerprint, **rep.to_dict(),
                     "requested": plan.requested, "wall_seconds": time.perf_counter() - t0})
    table = Table(title=f"{file.name}: {ann.n_items} items, {ann.n_raters} raters -> {cache}")
    for col in ("measure", "pairs", "already cached", "scored now", "pairs/s", "s", "backend"):
        table.add_column(col, justify="left" if col in ("measure", "backend") else "right", no_wrap=True)
    for r in rows:
        rate = r["pairs_per_second"]
        table.add_row(r["measure"], str(r["n_pairs"]), str(r["n_cached"]), str(r["n_scored"]),
                      "-" if math.isnan(rate) else f"{rate:.1f}", f"{r['seconds']:.1f}", r["backend"])
    console.print(table)
    if json_out:
        meta = {"file": str(file), "cache": str(cache), "coefficients": coefs, "chance": chance, "seed": seed,
                "batch_size": batch_size}
        clean = [{k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in r.items()} for r in rows]
        json_out.write_text(json.dumps({"meta": meta, "runs": clean}, indent=2, default=str), encoding="utf-8")
        console.print(f"wrote {json_out}")
