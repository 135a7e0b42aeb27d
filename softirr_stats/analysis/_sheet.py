"""Judging sheets: a blinded sheet for the judge, and the plan (with ``q``) kept beside it.

A judge who sees the estimator's score next to the empty ``judgment`` column is anchored by
it. :func:`write_judging_sheet` therefore writes two files: the sheet (``pair_id``, the two
labels in random order, an empty ``judgment``, and for a two-stage plan (``gold_n=``) a ``gold``
column, empty on the gold subsample's rows and ``n/a`` elsewhere; rows shuffled) and ``<sheet>.plan.csv`` with
everything else (labels, estimator score, draw probability ``q``, draws, coefficient,
similarity). :func:`read_judging_sheet` joins a filled sheet with its plan on ``pair_id`` and
returns what :func:`~softirr_stats.read_judgments` returns. Plans written before the column was
named ``similarity`` call it ``measure``; they are read the same.
"""

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from softirr_stats.base._csvsafe import escape_columns, quoting_for, unescape_columns
from softirr_stats.base._validation import LINE_INDEX, label_file_lines

__all__ = ["plan_path_for", "read_judging_sheet", "sheet_plan_file", "write_judging_sheet"]

#: The ``gold`` cell of a sheet row outside the gold subsample (a two-stage plan, ``gold_n=``):
#: the gold judge fills only the empty ``gold`` cells.
_NOT_GOLD = "n/a"
#: The columns of a filled plan (the unblinded sheet): read as it is, without a plan beside it
_PLAN_COLUMNS = frozenset({"label_a", "label_b", "q"})


def plan_path_for(sheet: "str | Path") -> Path:
    """The plan file kept beside a sheet: ``sheet.csv`` -> ``sheet.plan.csv``.

    Examples
    --------
    >>> plan_path_for("out/sheet.csv").as_posix()
    'out/sheet.plan.csv'
    """
    p = Path(sheet)
    return p.with_name(f"{p.stem}.plan{p.suffix or '.csv'}")


def _is_blinded(columns: Any) -> bool:
    """A blinded sheet (``pair_id`` and no plan columns), which is read together with its plan."""
    cols = set(columns)
    return "pair_id" in cols and not _PLAN_COLUMNS <= cols


def sheet_plan_file(path: "str | Path") -> Path | None:
    """The plan file that :func:`read_judging_sheet` reads together with the sheet at ``path``: ``sheet.plan.csv``
    beside a blinded sheet, None for a filled plan or another table of judged pairs (read alone). For provenance:
    a result from a blinded sheet depends on its plan (the labels, ``q`` and draws are there), so both are hashed.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "s.csv").write_text("pair_id,label_1,label_2,judgment\\np0001,a,b,1\\n")
    >>> _ = (d / "p.csv").write_text("label_a,label_b,q,judgment\\na,b,0.5,1\\n")
    >>> sheet_plan_file(d / "s.csv").name, sheet_plan_file(d / "p.csv")
    ('s.plan.csv', None)
    """
    return plan_path_for(path) if _is_blinded(pd.read_csv(path, nrows=0, dtype=str).columns) else None


def write_judging_sheet(plan: Any, path: "str | Path", *, similarity: str | None = None, seed: int = 0,
                        blinded: bool = True, measure: str | None = None) -> tuple[Path, Path | None]:
    """Write a judging plan as a sheet to fill in, and (blinded) the plan beside it.

    Parameters
    ----------
    plan : JudgingPlan
        From :func:`~softirr_stats.judging_plan`.
    path : path
        The sheet (CSV).
    similarity : str
        Name of the similarity (equivalence measure) the plan was drawn for, recorded in the plan
        file's ``similarity`` column.
    seed : int
        Seed of the row order and of each row's label order.
    blinded : bool
        False writes the plan itself as the sheet (with the score and ``q`` in view).
    measure : str, optional
        The former name of ``similarity`` (still accepted; give one of the two).

    Returns
    -------
    (sheet path, plan path or None)

    Examples
    --------
    >>> import tempfile, pathlib, softirr_stats as sis
    >>> ann = [["fever", "pyrexia"], ["cough", "cough"], ["rash", "fever"], ["cough", "tussis"]]
    >>> plan = sis.judging_plan(ann, similarity="indel", n=20, seed=0)
    >>> sheet, kept = write_judging_sheet(plan, pathlib.Path(tempfile.mkdtemp()) / "s.csv", similarity="indel")
    >>> open(sheet).readline().strip(), kept.name
    ('pair_id,label_1,label_2,judgment', 's.plan.csv')
    """
    from softirr_stats.ppi import label_text

    if (similarity is None) == (measure is None):
        raise TypeError("write_judging_sheet() needs similarity= (the similarity the plan was drawn for); "
                        f"got {'both similarity= and measure=' if similarity is not None else 'neither'}")
    similarity = similarity if similarity is not None else measure

    path = Path(path)
    pairs = plan.pairs.reset_index(drop=True).copy()
    pairs["label_a"] = [label_text(v) for v in pairs["label_a"]]
    pairs["label_b"] = [label_text(v) for v in pairs["label_b"]]
    if not blinded:
        plan.to_csv(path)
        return path, None
    rng = np.random.default_rng([int(seed), 0x5EE7])
    order = rng.permutation(len(pairs))
    swap = rng.random(len(pairs)) < 0.5
    ids = np.array([f"p{i + 1:04d}" for i in range(len(pairs))], dtype=object)
    pairs.insert(0, "pair_id", ids[np.argsort(order)])  # row r of the plan gets the id of its shuffled place
    pairs["similarity"] = similarity
    pairs["n"] = int(plan.n)
    pairs["seed"] = int(plan.seed)
    a = pairs["label_a"].to_numpy(dtype=object)
    b = pairs["label_b"].to_numpy(dtype=object)
    sheet = pd.DataFrame({"pair_id": pairs["pair_id"], "label_1": np.where(swap, b, a),
                          "label_2": np.where(swap, a, b), "judgment": ""})
    if "gold_draws" in pairs.columns:  # a two-stage plan: the gold judge fills "gold" where it is empty
        sheet["gold"] = np.where(pairs["gold_draws"].to_numpy() > 0, "", _NOT_GOLD)
    sheet = sheet.iloc[order].sort_values("pair_id", kind="stable")
    kept = plan_path_for(path)
    # cells a spreadsheet would evaluate (a label "=cmd|...") begin with "'" (read back unescaped)
    # (and a label holding a carriage return is quoted, or the row would split there)
    quoting = quoting_for(np.concatenate([a, b]))
    escape_columns(sheet, _TEXT_COLUMNS).to_csv(path, index=False, quoting=quoting)
    escape_columns(pairs.sort_values("pair_id", kind="stable"), _TEXT_COLUMNS).to_csv(
        kept, index=False, float_format="%.17g", quoting=quoting)
    return path, kept


def read_judging_sheet(path: "str | Path", plan: "str | Path | None" = None) -> tuple[pd.DataFrame, dict[str, Any]]:
    """A filled sheet (joined with its plan) or a filled plan CSV, as judged pairs.

    Returns
    -------
    (DataFrame, dict)
        What :func:`~softirr_stats.read_judgments` returns, and ``{"coefficient", "similarity"}``
        from the plan (None where the file does not say; a plan's former ``measure`` column is read
        as ``similarity``). The key ``"measure"`` holds the same value, for code written before.

    Examples
    --------
    >>> import tempfile, pathlib, pandas as pd, softirr_stats as sis
    >>> ann = [["fever", "pyrexia"], ["cough", "cough"], ["rash", "fever"], ["cough", "tussis"]]
    >>> plan = sis.judging_plan(ann, similarity="indel", n=20, seed=0)
    >>> sheet, _ = write_judging_sheet(plan, pathlib.Path(tempfile.mkdtemp()) / "s.csv", similarity="indel")
    >>> df = pd.read_csv(sheet); df["judgment"] = 1.0; df.to_csv(sheet, index=False)
    >>> judged, meta = read_judging_sheet(sheet)
    >>> len(judged) == len(plan.pairs), meta["similarity"]
    (True, 'indel')
    """
    from softirr_stats.ppi import read_judgments

    path = Path(path)
    sheet = unescape_columns(pd.read_csv(path, dtype=str, keep_default_na=False), _TEXT_COLUMNS)
    cols = set(sheet.columns)
    if _PLAN_COLUMNS <= cols:  # a filled plan (the unblinded sheet)
        df = pd.read_csv(path, dtype={"label_a": str, "label_b": str, "design_digest": str}, keep_default_na=False,
                         na_values={"judgment": [""], "q": [""], "score": [""], "draws": [""]})
        unescape_columns(df, _TEXT_COLUMNS)
        label_file_lines(df, path)  # bad rows are named by their line in the file
        return read_judgments(df), _meta(df)
    missing = [c for c in ("pair_id", "judgment") if c not in cols]
    if missing:
        raise ValueError(f"{path.name}: a judging sheet needs the columns pair_id and judgment (or a plan's "
                         f"label_a, label_b, q); missing {missing}, got {list(sheet.columns)}")
    plan_file = Path(plan) if plan is not None else plan_path_for(path)
    if not plan_file.exists():
        raise ValueError(f"{path.name} is a blinded sheet; its plan {plan_file} (written beside it by "
                         "`softirr judge plan`) is missing")
    kept = pd.read_csv(plan_file, dtype={"label_a": str, "label_b": str, "pair_id": str, "design_digest": str},
                       keep_default_na=False)
    unescape_columns(kept, _TEXT_COLUMNS)
    need = [c for c in ("pair_id", "label_a", "label_b", "q") if c not in kept.columns]
    if need:
        raise ValueError(f"{plan_file.name} is not a judging plan (missing columns {need})")
    dup = sheet["pair_id"][sheet["pair_id"].duplicated()]
    if len(dup):
        raise ValueError(f"{path.name}: pair_id {dup.iloc[0]!r} appears more than once")
    dup = kept["pair_id"][kept["pair_id"].duplicated()]
    if len(dup):
        raise ValueError(f"{plan_file.name}: pair_id {dup.iloc[0]!r} appears more than once in the plan (edited?)")
    _check_plan_draws(kept, plan_file)
    unknown = sorted(set(sheet["pair_id"]) - set(kept["pair_id"]))
    absent = sorted(set(kept["pair_id"]) - set(sheet["pair_id"]))
    if unknown or absent:
        raise ValueError(f"{path.name} does not match its plan {plan_file.name}: "
                         + (f"pair_id {unknown[0]!r} is not in the plan" if unknown else
                            f"pair_id {absent[0]!r} of the plan is missing from the sheet"))
    label_file_lines(sheet, path)  # each pair named by its line in the sheet the user filled in
    merged = kept.merge(sheet[["pair_id", *[c for c in ("label_1", "label_2") if c in cols], "judgment",
                               *(["gold"] if "gold" in cols else [])]],
                        on="pair_id", how="left", suffixes=("_plan", ""))
    if sheet.index.name == LINE_INDEX:  # the plan's order, each pair labelled with its line in the sheet
        merged.index = sheet.index[pd.Index(sheet["pair_id"]).get_indexer(merged["pair_id"])]
    if {"label_1", "label_2"} <= cols:
        same = [{a, b} == {x, y} for a, b, x, y in zip(merged["label_a"], merged["label_b"], merged["label_1"],
                                                      merged["label_2"], strict=True)]
        if not all(same):
            row = same.index(False)
            raise ValueError(f"{path.name}: pair {merged['pair_id'].iloc[row]} shows {merged['label_1'].iloc[row]!r} "
                             f"/ {merged['label_2'].iloc[row]!r}, but the plan has {merged['label_a'].iloc[row]!r} / "
                             f"{merged['label_b'].iloc[row]!r}: the sheet and plan do not belong together")
    merged["judgment"] = pd.to_numeric(merged["judgment"].replace("", np.nan), errors="coerce")
    blank = merged["judgment"].isna().to_numpy()
    if blank.any():
        raise ValueError(f"{path.name}: {int(blank.sum())} of {len(merged)} pairs have no numeric judgment in [0, 1] "
                         f"(first: pair {merged['pair_id'][blank].iloc[0]}); fill every judgment")
    meta = _meta(merged)
    if "gold" in merged.columns:  # _NOT_GOLD and blanks are no gold judgment (read_judgments checks the drawn rows)
        merged["gold"] = pd.to_numeric(merged["gold"].replace({_NOT_GOLD: np.nan, "": np.nan}), errors="coerce")
    keep = [c for c in ("label_a", "label_b", "score", "q", "terms", "draws", "coefficient", "design_labels",
                        "design_digest", "judgment", "gold", "gold_draws") if c in merged.columns]
    return read_judgments(merged[keep]), meta


def _check_plan_draws(plan: pd.DataFrame, plan_file: Path) -> None:
    """The plan's draws add up to the number it was drawn with (its ``n`` column): rows deleted or draws edited
    change the estimate's weights silently, so they are refused."""
    if "n" not in plan.columns or "draws" not in plan.columns or not len(plan):
        return
    n = pd.to_numeric(plan["n"], errors="coerce")
    draws = pd.to_numeric(plan["draws"], errors="coerce")
    if n.isna().any() or n.nunique() != 1 or draws.isna().any():
        raise ValueError(f"{plan_file.name}: the plan's n and draws columns must be whole numbers (n the same on "
                         "every row): the plan file was edited")
    if int(draws.sum()) != int(n.iloc[0]):
        raise ValueError(f"{plan_file.name}: the plan's draws add up to {int(draws.sum())}, but it was drawn with "
                         f"n = {int(n.iloc[0])}: rows were deleted or draws edited, which changes the estimate's "
                         "weights; use the plan file as `softirr judge plan` wrote it")


#: Columns of a sheet or plan holding text from the data (labels) or the user (the similarity's name;
#: ``measure`` in plans written before the column was renamed).
_TEXT_COLUMNS = ("label_1", "label_2", "label_a", "label_b", "similarity", "measure")


def _meta(df: pd.DataFrame) -> dict[str, str | None]:
    """The plan's coefficient and similarity (an old plan's ``measure`` column read as the similarity)."""
    similarity = _one(df, "similarity") if "similarity" in df.columns else _one(df, "measure")
    return {"coefficient": _one(df, "coefficient"), "similarity": similarity, "measure": similarity}


def _one(df: pd.DataFrame, col: str) -> str | None:
    if col not in df.columns:
        return None
    vals = {str(v) for v in df[col] if str(v) not in ("", "nan")}
    return vals.pop() if len(vals) == 1 else None
