"""``--cluster COLUMN`` and ``--strata COLUMN``: each item's cluster (document, patient, batch) or stratum, read
from a column of the long table, for the cluster bootstrap and stratified resampling.

The Python API takes them as ``Bootstrap(design="cluster", cluster=..., strata=...)``, a mapping item ->
cluster; the CLI reads that mapping from the file itself. A column must hold one value per item (a rating row
of the item that names another cluster is an error naming the item), and every item read needs one.
"""

from collections.abc import Sequence
from pathlib import Path
from typing import Annotated, Any

import typer

from softirr_stats.cli._errors import fail

__all__ = ["ClusterOpt", "STRATA_DESIGNS", "StrataOpt", "apply_groups", "grouped_design", "groups_meta",
           "item_column", "with_groups"]

#: the designs ``--strata`` applies to (``uncertainty.BOOTSTRAP_DESIGNS``' ``strata``; tied in the tests), for --help
STRATA_DESIGNS = ("items", "cluster", "bayesian")


ClusterOpt = Annotated[str | None, typer.Option(
    "--cluster", help="column of FILE (a long table) giving each item's cluster (document, patient, batch): the "
                      "bootstrap resamples whole clusters (design cluster, basic interval by default)")]
StrataOpt = Annotated[str | None, typer.Option(
    "--strata", help="column of FILE (a long table) giving each item's stratum: items (or clusters) are resampled "
                     "within strata (designs items, cluster, bayesian)")]


def grouped_design(design: str, cluster: str | None, strata: str | None, *, design_given: bool,
                   analytic: bool, bootstrap: int, n_files: int = 1) -> tuple[str, str]:
    """The bootstrap design ``--design``, ``--cluster`` and ``--strata`` ask for together, and the design to build
    the request with before the columns are read (the default design stands in for the cluster design, whose
    request needs the clusters); a combination that would leave one of them unused fails naming the flags (exit 2).

    ``--cluster COLUMN`` means the design that resamples clusters (``--design cluster`` may be said too);
    ``--design cluster`` without ``--cluster`` has no clusters to resample. The designs are asked through their
    records (``uncertainty.BOOTSTRAP_DESIGNS``), not by name.

    Examples
    --------
    >>> grouped_design("items", "doc", None, design_given=False, analytic=False, bootstrap=1000)
    ('cluster', 'items')
    >>> grouped_design("bayesian", None, "site", design_given=True, analytic=False, bootstrap=1000)
    ('bayesian', 'bayesian')
    """
    from softirr_stats.cli._options import DESIGNS

    flags = [f for f, v in (("--cluster", cluster), ("--strata", strata)) if v is not None]
    if not flags and design in DESIGNS:  # nothing beside the file: the bootstrap's records stay unloaded
        return design, design
    from softirr_stats.uncertainty import BOOTSTRAP_DESIGNS

    if flags and n_files != 1:
        fail(f"{flags[0]} reads its column from one table FILE; got {n_files} files")
    if flags and analytic:
        fail(f"{flags[0]} is used by the bootstrap, not by --analytic (the analytic interval assumes independent "
             f"items); leave out one of them")
    if flags and bootstrap == 0:
        fail(f"{flags[0]} is used by the bootstrap interval, and --bootstrap 0 asks for none; give --bootstrap N "
             "(1000-10000 is usual)")
    clustered = next(n for n, r in BOOTSTRAP_DESIGNS.items() if r.resamples_clusters)
    rec = BOOTSTRAP_DESIGNS.get(design)
    if rec is None:  # a mistyped --design: the request's check names it
        return design, design
    if rec.resamples_clusters and cluster is None:
        fail(f"--design {design} needs --cluster COLUMN: the column of FILE that gives each item's cluster "
             "(document, patient, batch)")
    if cluster is not None:
        if design_given and not rec.resamples_clusters:
            fail(f"--cluster resamples clusters of items (the {clustered} design); --design {design} resamples "
                 f"{'raters too' if rec.resamples_raters else 'items one by one'}: leave out one of them")
        design, rec = clustered, BOOTSTRAP_DESIGNS[clustered]
    if strata is not None and not rec.strata:
        fail(f"--strata resamples within strata, for --design {', '.join(STRATA_DESIGNS)}; got --design {design}")
    return design, (DESIGNS[0] if rec.resamples_clusters else design)


def _group_table(path: Path, columns: dict[str, str], item: str, input_format: str | None,
                 na_values: Sequence[str] | None) -> Any:
    """The long table ``path`` read once, with its item column and every ``{flag: column}`` checked (exit 2 naming
    the flag: an export, a file that is no table, a missing column)."""
    from softirr_stats.cli._errors import describe
    from softirr_stats.data import EXPORT_FORMATS, guess_format, read_table

    flag, column = next(iter(columns.items()))
    try:
        fmt = input_format or guess_format(path, columns=(item, "rater", "label"))
    except Exception:  # noqa: BLE001 - the reader said what is wrong already; read_table below says it again
        fmt = None
    if fmt in EXPORT_FORMATS:
        fail(f"{flag} {column} reads a column of a long table (csv, tsv, jsonl, parquet, xlsx: one row per rating, "
             f"with the item's {'cluster' if flag == '--cluster' else 'stratum'} beside it); {path} is a {fmt} "
             "export, whose items its reader defines: write them as a long table first (in Python: "
             "read_annotations(FILE).to_long().to_csv(...)), add the column, and pass that table")
    try:
        table = read_table(path, format=fmt, na_values=na_values)
    except Exception as err:  # noqa: BLE001 - an export is not a table: say what the flag needs
        fail(f"{flag} {column} needs FILE to be a long table (csv, tsv, jsonl, parquet, xlsx) with that column; "
             f"{path} cannot be read as one ({describe(err)[0]})")
    shown = ", ".join(map(str, list(table.columns)[:20]))
    for flag, column in columns.items():
        for name in (item, column):
            if name not in table.columns:
                what = f"item column {item!r} (--item)" if name == item else f"column {column!r}"
                fail(f"{flag} {column}: {path} has no {what}; its columns are {shown}")
    return table


def _check_not_item(flag: str, column: str, item: str) -> None:
    """Refuse (exit 2) the item column itself as ``--cluster`` or ``--strata``: one cluster per item resamples the
    items one by one, which is the items design (the default) under another name, and a stratum per item leaves
    nothing to resample within it. Either says that a grouping column was meant.

    Examples
    --------
    >>> _check_not_item("--cluster", "document", "item")  # another column: nothing to say
    """
    if column != item:
        return
    if flag == "--cluster":
        fail(f"--cluster {column} names the item column (--item): a cluster per item resamples the items one by one, "
             "which is the items design; leave out --cluster, or give the column that groups the items (document, "
             "patient, batch)")
    fail(f"--strata {column} names the item column (--item): a stratum per item holds one item, and nothing can be "
         "resampled within it; give --strata a column that groups the items (site, batch), or leave it out")


def item_column(table: Any, path: Path, column: str, flag: str, ann: Any, item: str) -> dict[str, Any]:
    """``{item: value}`` of ``column`` of the long ``table`` (read from ``path``) for every item of ``ann``.

    Errors (exit 2) name ``flag``: a missing value, an item whose rows name two values, an item of ``ann`` the
    table does not have.
    """
    import pandas as pd

    pairs = table[[item, column]]
    blank = pairs[column].isna() | (pairs[column].astype(str).str.strip() == "")
    if blank.any():
        row = int(blank.to_numpy().nonzero()[0][0])
        fail(f"{flag} {column}: item {pairs[item].iloc[row]!r} has no value in column {column!r} (row {row + 2} of "
             f"{path}); every item needs one")
    per_item = pd.DataFrame({"item": pairs[item].astype(str), "value": pairs[column].astype(str)}).drop_duplicates()
    twice = per_item["item"].duplicated(keep=False)
    if twice.any():
        first = per_item.loc[twice, "item"].iloc[0]
        seen = per_item.loc[per_item["item"] == first, "value"].tolist()
        fail(f"{flag} {column}: item {first!r} has {len(seen)} values in column {column!r} ({', '.join(map(repr, seen[:4]))}); "
             f"a {'cluster' if flag == '--cluster' else 'stratum'} holds whole items: give each item one")
    mapping = dict(zip(per_item["item"], per_item["value"], strict=True))
    absent = [i for i in ann.items if str(i) not in mapping]
    if absent:
        fail(f"{flag} {column}: {len(absent)} item(s) read from {path} are not in its {item!r} column as written "
             f"(e.g. {absent[0]!r}); give the column of the long table the ratings were read from")
    return {i: mapping[str(i)] for i in ann.items}


def with_groups(ci: Any, design: str, cluster: dict[str, Any] | None, strata: dict[str, Any] | None) -> Any:
    """``ci`` (a :class:`~softirr_stats.Bootstrap`) with the design and the item groups; errors name the flags.

    Examples
    --------
    >>> import softirr_stats as sis
    >>> ci = with_groups(sis.Bootstrap(n=100), "cluster", {"a": "d1", "b": "d1", "c": "d2"}, None)
    >>> ci.design, ci.cluster["c"]
    ('cluster', 'd2')
    """
    import dataclasses

    if cluster is None and strata is None:
        return ci
    try:
        return dataclasses.replace(ci, design=design, cluster=cluster, strata=strata)
    except (ValueError, TypeError) as err:
        fail(f"invalid bootstrap options (--cluster/--strata/--design): {err}")


def apply_groups(ci: Any, design: str, cluster: str | None, strata: str | None, files: Sequence[Path],
                 anns: Sequence[Any], item: str, input_format: str | None, na_values: Sequence[str] | None) -> Any:
    """``ci`` with the ``--cluster`` / ``--strata`` columns read for the items (unchanged without them).

    Each file is read once for both columns, for its own annotations (``anns``, aligned with ``files``: one file,
    or ``compare FILE FILE2``, whose paired items are matched by id); an item that two files put in different
    groups is an error naming it.
    """
    columns = {f: c for f, c in (("--cluster", cluster), ("--strata", strata)) if c is not None}
    if ci is None or not columns:
        return ci
    for flag, column in columns.items():
        _check_not_item(flag, column, item)
    merged: dict[str, dict[str, Any]] = {flag: {} for flag in columns}
    for path, ann in zip(files, anns, strict=True):
        table = _group_table(path, columns, item, input_format, na_values)
        for flag, column in columns.items():
            for key, value in item_column(table, path, column, flag, ann, item).items():
                if merged[flag].setdefault(key, value) != value:
                    fail(f"{flag} {column}: item {key!r} is in {merged[flag][key]!r} in {files[0]} and in {value!r} "
                         f"in {path}; an item shared by the two files needs one value")
    return with_groups(ci, design, merged.get("--cluster"), merged.get("--strata"))


def groups_meta(cluster: str | None, strata: str | None) -> dict[str, str]:
    """The JSON output's record of the ``--cluster`` / ``--strata`` columns (only those given).

    Examples
    --------
    >>> groups_meta("doc", None)
    {'cluster': 'doc'}
    """
    return {k: v for k, v in (("cluster", cluster), ("strata", strata)) if v is not None}
