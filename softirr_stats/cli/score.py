"""``softirr score FILE ...``: fill a score cache with the pairs the statistics need.

Computes the scoring plan (within-item pairs, the chance support or the sampled chance
pairs, the vocabulary for AC1 / Brennan-Prediger) for the requested coefficients, measures
and chance setting, drops the pairs already in ``--cache``, and scores the rest in this
process or on Ray (``--ray``, ``--ray-address``, ``--workers``, ``--gpus-per-worker``). Every
batch is committed as it finishes: rerun the same command to resume an interrupted job.
``softirr agree FILE ... --cache FILE`` then reads the scores from the file.

Heavy modules (jax, torch, ray) are imported inside the command only.
"""

import math
import sqlite3
import time
from pathlib import Path
from typing import Annotated, Any

import typer

from softirr_stats.cli._errors import fail, say_read, using
from softirr_stats.cli._options import (
    CHANCE_HELP,
    COEFFICIENTS,
    MEASURES,
    CategoriesOpt,
    DeviceOpt,
    FeatureOpt,
    FieldOpt,
    InputFormatOpt,
    ItemOpt,
    LabelOpt,
    LayerOpt,
    MeasureAliasOpt,
    ModelOpt,
    NaOpt,
    RaterOpt,
    ReaderOpt,
    SpanRuleOpt,
    chance_settings,
    check_choices,
    check_seed,
    check_writable,
    read,
    reader_options,
    resolve_measures,
    similarity_option,
    similarity_values,
    split,
)
from softirr_stats.cli._output import provenance_meta

__all__ = ["NAME", "EPILOG", "command", "estimator_for_measure"]

NAME = "score"
EPILOG = f"--chance takes {CHANCE_HELP} (the same seed as the analysis gives the same sampled pairs)."


def _cheap(name: str) -> bool:
    """Whether trying the measure on one label costs nothing (no model to load)."""
    return name.strip().lower() in ("levenshtein", "indel", "lcs", "jaccard", "masi", "dice")


def estimator_for_measure(name: str, model: str | None = None) -> Any:
    """The estimator a ``--similarity`` value names (the one table: ``equivalence.estimator_from_name``).

    Examples
    --------
    >>> estimator_for_measure("indel").name
    'indel'
    """
    from softirr_stats.equivalence import estimator_from_name

    return estimator_from_name(name, model, progress=False if model else None)


def _backend(ray: bool | None, address: str | None, workers: int | None, gpus_per_worker: float | None,
             cpus_per_worker: float | None) -> Any:
    """The Ray backend the options ask for (any Ray option implies ``--ray``), or None to score in this process.

    ``--no-ray`` with a Ray option is refused naming both; the sizes are checked by ``RayBackend`` itself, before
    any Ray instance starts (its refusal names the flag: :func:`~softirr_stats.cli._errors.flag_wording`).
    """
    given = [flag for flag, value in (("--ray-address", address), ("--workers", workers),
                                      ("--gpus-per-worker", gpus_per_worker), ("--cpus-per-worker", cpus_per_worker))
             if value is not None]
    if ray is False and given:
        fail(f"--no-ray contradicts {', '.join(given)} (options of scoring on Ray); leave out one or the other")
    if not ray and not given:
        return None
    from softirr_stats.equivalence import RayBackend

    return RayBackend(address=address, workers=workers, gpus_per_worker=gpus_per_worker,
                      cpus_per_worker=1.0 if cpus_per_worker is None else cpus_per_worker)


def command(
    files: Annotated[list[Path], typer.Argument(help="annotation file(s) (as for `softirr agree`)")],
    item: ItemOpt = "item",
    rater: RaterOpt = "rater",
    label: LabelOpt = "label",
    coefficient: Annotated[list[str] | None, typer.Option(
        "--coefficient", "-c", help=f"coefficient(s) the scores are for, repeat or comma-separate: "
                                    f"{', '.join(COEFFICIENTS)} [default: krippendorff_alpha]")] = None,
    similarity: Annotated[list[str] | None, similarity_option(
        f"equivalence measure(s): {', '.join(m for m in MEASURES if m != 'exact')}, NAME:MODEL, a JSON "
        "estimator spec or @spec.json [default: levenshtein]")] = None,
    measure: MeasureAliasOpt = None,
    model: ModelOpt = None,
    chance: Annotated[str, typer.Option(help=f"chance agreement: {CHANCE_HELP}")] = "exact",
    seed: Annotated[int, typer.Option(help="seed of sampled chance pairs (use the same in the analysis)",
                                      callback=check_seed)] = 0,
    cache: Annotated[Path, typer.Option(help="SQLite score cache to fill (created if needed)")] = Path("scores.sqlite"),
    ray: Annotated[bool | None, typer.Option(
        "--ray/--no-ray", help="score on Ray (implied by the Ray options, which --no-ray refuses) [default: no-ray]",
        show_default=False)] = None,
    ray_address: Annotated[str | None, typer.Option(
        help="Ray cluster: auto, host:port or ray://host:port; without it a local Ray instance is started")] = None,
    workers: Annotated[int | None, typer.Option(help="Ray actors (default: one per GPU, else per CPU)")] = None,
    gpus_per_worker: Annotated[float | None, typer.Option(help="GPUs per Ray actor (default 1 if GPUs, else 0)")] = None,
    cpus_per_worker: Annotated[float | None, typer.Option(help="CPUs per Ray actor [default: 1]")] = None,
    batch_size: Annotated[int, typer.Option(help="pairs per batch (one committed transaction each)")] = 256,
    progress: Annotated[bool, typer.Option("--progress/--no-progress", help="progress bar on a terminal")] = True,
    json_out: Annotated[Path | None, typer.Option("--json", help="write the run summary as JSON")] = None,
    na_values: NaOpt = None,
    input_format: InputFormatOpt = None,
    field: FieldOpt = None,
    layer: LayerOpt = None,
    feature: FeatureOpt = None,
    span_rule: SpanRuleOpt = None,
    reader_option: ReaderOpt = None,
    categories: CategoriesOpt = None,
    device: DeviceOpt = "auto",
) -> None:
    """Score (and cache) every label pair the coefficients need, locally or on a Ray cluster."""
    from rich.console import Console
    from rich.table import Table

    coefs = split(coefficient, "--coefficient") or ["krippendorff_alpha"]
    check_choices(coefs, COEFFICIENTS, "--coefficient")
    names = similarity_values(similarity, measure) or ["levenshtein"]
    if "exact" in names:
        fail("--similarity exact needs no scores; give soft measures (e.g. -m levenshtein)")
    if batch_size < 1:
        fail(f"--batch-size must be a positive integer; got {batch_size}")
    chance_obj = chance_settings([chance], seed)[0]
    if cache.is_dir():
        fail(f"--cache {cache} is a directory; give a file name")
    check_writable(json_out, "--json", [*files, cache])
    opts = reader_options(field, layer, feature, span_rule, reader_option)
    ann, notes = read(files, item, rater, label, na_values, input_format, opts, categories)
    say_read(notes)
    # a model is loaded on the workers, not here; a string measure is tried on one label now (Levenshtein on numbers)
    estimators = [e for n in names for e in resolve_measures([n], ann, None, model, probe=_cheap(n))]
    backend = _backend(ray, ray_address, workers, gpus_per_worker, cpus_per_worker)
    from softirr_stats.analysis import scoring_plan
    from softirr_stats.equivalence import Cached

    for _, est in estimators:  # a file that is not a score cache fails before any work
        try:
            Cached(est, cache).n_cached()
        except (ValueError, OSError, sqlite3.Error) as err:
            fail(f"--cache {cache} is not a usable softirr score cache: {' '.join(str(err).split())}")
    with using("--cache", cache):
        plans = [(n, scoring_plan(ann, est, coefficients=coefs, chance=chance_obj)) for n, est in estimators]
    rows: list[dict[str, Any]] = []
    for n, plan in plans:
        t0 = time.perf_counter()
        with using("--cache", cache):
            rep = plan.run(cache, backend=backend, batch_size=batch_size, progress=None if progress else False)
        rows.append({"similarity": n, "estimator": plan.estimator.fingerprint, **rep.to_dict(),
                     "requested": plan.requested, "wall_seconds": time.perf_counter() - t0})
    name = files[0].name if len(files) == 1 else f"{len(files)} files"
    table = Table(title=f"{name}: {ann.n_items} items, {ann.n_raters} raters -> {cache}")
    for col in ("similarity", "pairs", "already cached", "scored now", "pairs/s", "s", "backend"):
        table.add_column(col, justify="left" if col in ("similarity", "backend") else "right", no_wrap=True)
    for r in rows:
        rate = r["pairs_per_second"]
        table.add_row(r["similarity"], str(r["n_pairs"]), str(r["n_cached"]), str(r["n_scored"]),
                      "-" if math.isnan(rate) else f"{rate:.1f}", f"{r['seconds']:.1f}", r["backend"])
    from softirr_stats.cli._output import _width

    Console(width=max(_width(), 112)).print(table)
    if json_out:
        from softirr_stats.base._device import compute_record

        meta = {"file": [str(f) for f in files], **provenance_meta(files), "cache": str(cache), "coefficients": coefs, "chance": chance,
                "seed": seed,
                "batch_size": batch_size}
        from softirr_stats.base._format import json_text

        payload = {"meta": {**meta, "compute": compute_record()}, "runs": rows}
        try:
            json_out.write_text(json_text(payload), encoding="utf-8")  # nan as null, at every depth
        except OSError as err:
            fail(f"--json {json_out} cannot be written: {err.strerror or err}")
        typer.echo(f"wrote {json_out}", err=True)
