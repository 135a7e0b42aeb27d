"""What a file was read as, before any coefficient: each rater's ratings and the labels they used.

The first check on one's own data ("did it read my file right?"): ``Annotations.describe()`` gives a
row per rater (items rated, labels used, the most frequent label and its share) and
``Annotations.label_counts()`` a row per label with its count for each rater, so that a label spelt
two ways, a rater who rated almost nothing, or a column read as a rater by mistake shows before it
turns into a coefficient. ``softirr describe FILE`` prints both with the reading notes. Counting is
one ``numpy.bincount`` over the codes; no loop over items.
"""

from typing import Any

import numpy as np
import pandas as pd

__all__ = ["case_note", "case_variants", "describe_raters", "label_counts"]


def _shown(label: Any) -> Any:
    """A label as a table cell: a set as its sorted elements joined by '|', anything else itself."""
    if isinstance(label, frozenset | set):
        return "|".join(sorted(map(str, label)))
    return label


def label_counts(ann: Any, top: int | None = None) -> pd.DataFrame:
    """Ratings per label and rater: one row per label (most used first), a column per rater and ``all``.

    Parameters
    ----------
    ann : Annotations
    top : int, optional
        Keep the ``top`` most used labels only (default: every label).

    Examples
    --------
    >>> from softirr_stats.data import Annotations
    >>> ann = Annotations.from_wide([["yes", "yes"], ["no", "Yes"], ["yes", None]], raters=["ana", "bo"])
    >>> label_counts(ann).reset_index()
      label  ana  bo  all
    0   yes    2   1    3
    1   Yes    0   1    1
    2    no    1   0    1
    """
    codes = np.asarray(ann.codes)
    n_labels, n_raters = len(ann.vocabulary), codes.shape[1]
    present = codes >= 0
    flat = codes.astype(np.int64) * n_raters + np.arange(n_raters)[None, :]
    counts = np.bincount(flat[present], minlength=n_labels * n_raters).reshape(n_labels, n_raters)
    names = rater_columns(ann.raters)
    table = pd.DataFrame(counts, columns=names,
                         index=pd.Index([_shown(v) for v in ann.vocabulary], name=_unused("label", names)))
    total = _unused("all", names)
    table[total] = counts.sum(axis=1)
    table = table.iloc[np.argsort(-counts.sum(axis=1), kind="stable")]
    return table if top is None else table.head(top)


def _unused(name: str, taken: list[str]) -> str:
    """``name``, or ``(name)``, ``(name 2)``, ... where a rater is called so (a rater named 'all' or 'label')."""
    out, k = name, 1
    while out in taken:
        out = f"({name})" if k == 1 else f"({name} {k})"
        k += 1
    return out


def rater_columns(raters: Any) -> list[str]:
    """The raters as column names: their texts, with ``#2``, ``#3`` added where two print alike (1 and '1').

    Examples
    --------
    >>> rater_columns([1, "1", "b"])
    ['1', '1 #2', 'b']
    """
    out: list[str] = []
    for r in raters:
        name, k = str(r), 1
        while name in out:
            k += 1
            name = f"{r} #{k}"
        out.append(name)
    return out


def describe_raters(ann: Any) -> pd.DataFrame:
    """One row per rater, then one for all raters: items rated, their share of the items, labels used, the most
    frequent label and its share of the rater's ratings.

    Examples
    --------
    >>> from softirr_stats.data import Annotations
    >>> ann = Annotations.from_wide([["yes", "yes"], ["no", "Yes"], ["yes", None]], raters=["ana", "bo"])
    >>> describe_raters(ann)
      rater  items_rated  share_of_items  labels_used top_label  top_share
    0   ana            3        1.000000            2       yes   0.666667
    1    bo            2        0.666667            2       yes   0.500000
    2   all            3        1.000000            3       yes   0.600000
    """
    counts = label_counts(ann)
    codes = np.asarray(ann.codes)
    rated = (codes >= 0).sum(axis=0)
    names = rater_columns(ann.raters)
    rows = []
    for k, name in enumerate(names):
        col = counts.iloc[:, k]
        used = col[col > 0]
        rows.append({"rater": name, "items_rated": int(rated[k]),
                     "share_of_items": rated[k] / max(ann.n_items, 1), "labels_used": int(len(used)),
                     "top_label": used.idxmax() if len(used) else None,
                     "top_share": float(used.max() / used.sum()) if len(used) else float("nan")})
    any_rated = int(((codes >= 0).sum(axis=1) > 0).sum())
    total = counts.iloc[:, -1]
    total = total[total > 0]
    rows.append({"rater": counts.columns[-1], "items_rated": any_rated, "share_of_items": any_rated / max(ann.n_items, 1),
                 "labels_used": int(len(total)), "top_label": total.idxmax() if len(total) else None,
                 "top_share": float(total.max() / total.sum()) if len(total) else float("nan")})
    return pd.DataFrame(rows)


def _texts_and_uses(ann: Any) -> tuple[np.ndarray, np.ndarray, str]:
    """The distinct texts a coefficient compares (text labels, or the terms inside set labels), how often each is
    used, and what they are ("labels" or "terms")."""
    vocab = list(ann.vocabulary)
    if ann.kind == "set":
        terms = pd.Series([sorted(v) for v in vocab], dtype=object).explode().dropna()
        codes = np.asarray(ann.codes)
        uses = np.bincount(codes[codes >= 0], minlength=len(vocab))
        weights = np.repeat(uses, [len(v) for v in vocab])
        totals = pd.Series(weights, index=terms.to_numpy()).groupby(level=0).sum() if len(terms) else pd.Series()
        return np.asarray(totals.index, dtype=object), totals.to_numpy(), "terms"
    texts = np.asarray([isinstance(v, str) for v in vocab], dtype=bool)
    codes = np.asarray(ann.codes)
    uses = np.bincount(codes[codes >= 0], minlength=len(vocab))
    return np.asarray(vocab, dtype=object)[texts], uses[texts], "labels"


def _case_keys(texts: np.ndarray) -> tuple[np.ndarray, np.ndarray, bool]:
    """Codes of each text as it prints (:func:`~softirr_stats.data._labels._skeletons`) and of that case-folded, and
    whether folding merged any: two texts with one folded code and two printed codes differ only in letter case.

    By whole arrays: pyarrow, where installed, folds the ASCII texts (most labels) by ``utf8_lower``, which equals
    ``str.casefold`` on ASCII; where no text changes when folded, the codes are not computed (empty)."""
    from softirr_stats.data._labels import _arrow, printed_forms

    pa = _arrow(len(texts))
    skel, _ = printed_forms(texts)
    if pa is not None:
        import pyarrow.compute as pc

        arr = pa.array(skel, type=pa.string())
        ascii_ = pc.string_is_ascii(arr).to_numpy(zero_copy_only=False)
        lower = pc.utf8_lower(arr)
        changed = pc.invert(pc.equal(lower, arr)).to_numpy(zero_copy_only=False)
        if not changed.any() and ascii_.all():  # every text is its own fold: distinct texts, distinct folds
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64), False
        folded = np.asarray(lower.to_pylist(), dtype=object)
        if not ascii_.all():
            folded[~ascii_] = [t.casefold() for t in skel[~ascii_]]
    else:
        folded = np.fromiter((t.casefold() for t in skel), dtype=object, count=len(skel))
    printed, spelt = pd.factorize(skel)
    key, keys = pd.factorize(folded)
    return printed, key, len(keys) < len(spelt)


def _case_groups(ann: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(texts, uses, key, kept)``: the texts compared, how often each is used, their case-folded code and whether
    another text shares the code spelt otherwise (``kept`` all False when no text has a case variant)."""
    empty = np.zeros(0, dtype=object), np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64), np.zeros(0, bool)
    if ann.kind not in ("categorical", "set"):
        return empty
    texts, uses, _ = _texts_and_uses(ann)
    if texts.size < 2:
        return empty
    printed, key, any_variant = _case_keys(texts)
    if not any_variant:  # as many folded spellings as printed ones: folding merged none
        return texts, uses, np.zeros(len(texts), dtype=np.int64), np.zeros(len(texts), dtype=bool)
    width = np.int64(printed.max()) + 1
    pairs = np.unique(key.astype(np.int64) * width + printed)  # distinct (folded, printed) codes
    spellings = np.bincount(pairs // width, minlength=int(key.max()) + 1)
    return texts, uses, key, spellings[key] > 1


def case_variants(ann: Any) -> list[list[str]]:
    """Groups of distinct text labels (or terms inside set labels) that differ only in letter case, most used first.

    Texts are compared as they print (Unicode NFKC, invisible characters dropped, runs of white space as one:
    those differences are the look-alike ``LabelWarning``'s) and then case-folded. Exact agreement counts each
    text of a group as a label of its own; ``normalize="casefold"`` on the readers merges them.

    Examples
    --------
    >>> from softirr_stats.data import Annotations
    >>> ann = Annotations.from_wide([["Fatigue", "fatigue"], ["pain", "Pain"], ["pain", "fever"]])
    >>> case_variants(ann)
    [['Pain', 'pain'], ['Fatigue', 'fatigue']]
    """
    texts, uses, key, kept = _case_groups(ann)
    if not kept.any():
        return []
    frame = pd.DataFrame({"key": key[kept], "text": texts[kept], "uses": uses[kept]})
    order = frame.groupby("key")["uses"].sum().sort_values(ascending=False, kind="stable").index
    by_key = frame.sort_values("text", kind="stable").groupby("key", sort=False)["text"].agg(list)  # each sorted
    return [by_key[k] for k in order]


def case_note(ann: Any) -> tuple[str, ...]:
    """A note (no warning: letter case can carry meaning) when labels differ in letter case, or ``()``.

    Groups whose texts also differ otherwise (``'Never '`` and ``'never'``: a space; full-width letters) are said
    so, with the ``normalize=`` that merges them (``"NFKC+casefold"``), or, where none does (spaces, invisible
    characters, letters of another script), that ``"casefold"`` merges the case only.

    Examples
    --------
    >>> from softirr_stats.data import Annotations
    >>> print(case_note(Annotations.from_wide([["Fatigue", "fatigue"], ["pain", "pain"]]))[0][:72])
    2 labels in 1 group differ only in letter case ('Fatigue' and 'fatigue')
    """
    cache = getattr(ann, "_cache", None)
    if cache is not None and "case_note" in cache:  # computed once per data set (the readers note it)
        return tuple(cache["case_note"])
    note = _case_note(ann)
    if cache is not None:
        cache["case_note"] = note
    return note


#: what ``beyond_case`` finds besides letter case, as the note says it
_BEYOND = {"NFC": "Unicode form", "NFKC": "Unicode form", "spaces": "spaces or invisible characters",
           "letters": "letters of another script that print like Latin ones"}


def _shown_group(texts: list[str], escaped: bool = False) -> str:
    """A group of texts for the note: their reprs, or (``escaped``) as the look-alike warning quotes them, with
    the letters of another script that tell them apart written as escapes (``'C\\u0430fe'``)."""
    from softirr_stats.data._labels import _quoted_each

    shown = _quoted_each(texts[:3]) if escaped else list(map(repr, texts[:3]))
    return " and ".join(shown) + (f" and {len(texts) - 3} more" if len(texts) > 3 else "")


def _case_note(ann: Any) -> tuple[str, ...]:
    from softirr_stats.data._labels import beyond_case

    texts, uses, key, kept = _case_groups(ann)
    if not kept.any():
        return ()
    totals = np.bincount(key[kept], weights=uses[kept])
    groups = np.unique(key[kept])
    by_use = groups[np.argsort(-totals[groups], kind="stable")]  # the most used group first
    members = {int(g): sorted(texts[kept & (key == g)].tolist()) for g in by_use}  # the texts the note names only
    other = {g: beyond_case(m) for g, m in members.items()}
    what, unit = ("terms inside set labels", "term") if ann.kind == "set" else ("labels", "label")
    n, top = int(kept.sum()), int(by_use[0])
    more = f"; {len(groups) - 1} more group{'s' if len(groups) > 2 else ''}" if len(groups) > 1 else ""
    head = f"{n} {what} in {len(groups)} group{'s' if len(groups) > 1 else ''} differ"
    if not any(other.values()):
        return (f"{head} only in letter case ({_shown_group(members[top])}{more}): each counts as a label of its own "
                "(string measures count the case as an edit); normalize='casefold' merges them if case carries no "
                "meaning here",)
    kinds = set(other.values()) - {""}
    also = ", or ".join(dict.fromkeys(_BEYOND[k] for k in ("NFC", "NFKC", "spaces", "letters") if k in kinds))
    if all(other.values()):
        head += f" in letter case and in {also} ({_shown_group(members[top], escaped=True)}{more})"
    else:  # an example of each: the most used group of case only, the most used of the others
        k = sum(1 for v in other.values() if v)
        case_only = next(g for g in members if not other[g])
        first = next(g for g in members if other[g])
        head += (f" in letter case ({_shown_group(members[case_only])}{more}); {k} of the groups also in {also} "
                 f"({_shown_group(members[first], escaped=True)})")
    form = "NFKC" if "NFKC" in kinds else "NFC" if "NFC" in kinds else ""
    merge = f"normalize='{form}+casefold'" if form else "normalize='casefold'"
    cannot = ", or ".join(_BEYOND[k] for k in ("spaces", "letters") if k in kinds)
    if not cannot:
        fix = f"{merge} merges them if case carries no meaning here"
    else:
        fix = (f"{merge} merges the case{' and the Unicode forms' if form else ''} only, if case carries no meaning "
               f"here; no normalize= changes {cannot}: clean those {unit}s in the file")
    return (f"{head}: each counts as a {unit} of its own (string measures count each difference as an edit); {fix}",)
