"""The encoded annotation data set: ``codes[item, rater]`` indexing a sorted vocabulary.

Everything downstream works on the integer matrix ``codes`` (items x raters, ``-1`` for a
missing rating) and the tuple ``vocabulary``; labels are encoded once, here.
"""

import contextlib
import contextvars
import math
import numbers
import sys
import unicodedata
import warnings
from collections.abc import Hashable, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from softirr_stats.base._validation import SoftIRRWarning, user_stacklevel
from softirr_stats.data._labels import check_labels, check_names

if TYPE_CHECKING:  # pandas (about half a second to import) loads when labels are first encoded
    import pandas as pd

__all__ = ["Annotations", "LabelKind", "UnpairableItemsWarning", "UnratedRatersWarning", "single_rater_replication"]

LabelKind = Literal["categorical", "numeric", "set"]

#: True inside :func:`single_rater_replication`: annotations built there may hold a single rater
_SINGLE_RATER_OK: contextvars.ContextVar[bool] = contextvars.ContextVar("softirr_single_rater_ok", default=False)

#: how a single rater's table reaches the one statistic defined for it (the refusal of a single rater says it)
SINGLE_RATER_WAY = ("one replication of a cross-replication study may have a single rater (one expert against a "
                    "crowd): give its table to sis.cross_kappa as a wide table, a row per item and one column (for a "
                    "long table: df.pivot(index='item', columns='rater', values='label')), or read it with softirr "
                    "compare X Y --cross-replication")


@contextlib.contextmanager
def single_rater_replication() -> Iterator[None]:
    """Annotations built inside the block may hold a single rater: one replication of a cross-replication study.

    ``kappa_x = 1 - d_o / d_e`` compares the ratings of two replications, so one of them may be a single rater
    (one expert against a crowd; Wong, Paritosh & Aroyo 2021). Only ``cross_kappa`` and ``softirr compare
    --cross-replication`` read their replications inside this block (and the readers, one annotator's export
    before :meth:`Annotations.concat` merges it); everywhere else the constructors refuse a single rater, and the
    coefficients refuse a single-rater ``Annotations`` (no item has two ratings).

    Examples
    --------
    >>> with single_rater_replication():
    ...     one = Annotations.from_wide([["a"], ["b"]], raters=["expert"])
    >>> one.n_raters
    1
    >>> Annotations.from_wide([["a"], ["b"]], raters=["expert"])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: agreement needs at least two raters; got 1 (['expert']); one replication ...
    """
    token = _SINGLE_RATER_OK.set(True)
    try:
        yield
    finally:
        _SINGLE_RATER_OK.reset(token)


class UnpairableItemsWarning(SoftIRRWarning):
    """Some items have fewer than two ratings and cannot contribute observed agreement.

    Examples
    --------
    >>> import warnings, softirr_stats as sis
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     r = sis.fleiss_kappa([["a", "a"], ["a", None], ["b", "b"]])
    >>> [w.category.__name__ for w in caught]
    ['UnpairableItemsWarning']
    """


class UnratedRatersWarning(SoftIRRWarning):
    """Some raters have no rating at all (an empty column of a wide table, a rater whose every label is missing):
    the constructors leave them out and name them, so that they count as no rater anywhere (rater bootstraps,
    plans, ``complete_items``).

    Examples
    --------
    >>> import warnings, softirr_stats as sis
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     ann = sis.Annotations.from_wide([["a", "a", None], ["b", "a", None]], raters=["ana", "bo", "cy"])
    >>> ann.raters, caught[0].category.__name__
    (('ana', 'bo'), 'UnratedRatersWarning')
    """


def _is_frame(obj: Any) -> bool:
    """``isinstance(obj, pandas.DataFrame)`` without importing pandas (no frame exists before it is)."""
    pd_ = sys.modules.get("pandas")
    return pd_ is not None and isinstance(obj, pd_.DataFrame)


def _is_missing(value: Any) -> bool:
    if value is None:
        return True
    pd_ = sys.modules.get("pandas")
    if pd_ is not None and (value is pd_.NA or value is pd_.NaT):
        return True
    if isinstance(value, float | np.floating):
        return bool(np.isnan(value))
    return False


#: Cells above which labels are encoded with pandas' hash tables (C loops) even when pandas is not
#: imported yet; below it a NumPy / dict encoder avoids pandas' import (about 0.2-0.5 s) for the
#: small tables of a first call. Both give the same codes (tests/data/test_label_encoding.py).
_PANDAS_ENCODE_MIN_CELLS = 100_000


def _use_pandas(n: int) -> bool:
    return "pandas" in sys.modules or n >= _PANDAS_ENCODE_MIN_CELLS


def _object_array(labels: Any) -> np.ndarray:
    """A 1-D object array of the cells (lists stay cells, not a second axis)."""
    if isinstance(labels, np.ndarray):
        return labels
    return np.fromiter(labels, dtype=object, count=len(labels))


def missing_mask(arr: np.ndarray) -> np.ndarray:
    """Boolean mask of missing cells: None, NaN, and pandas' NA / NaT.

    Examples
    --------
    >>> missing_mask(np.array(["a", None, float("nan"), "b"], dtype=object)).tolist()
    [False, True, True, False]
    """
    if arr.dtype.kind in "iub":
        return np.zeros(arr.shape, dtype=bool)
    if arr.dtype.kind in "fc":
        return np.isnan(arr)
    if _use_pandas(arr.size):
        import pandas as pd

        return np.asarray(pd.isna(arr), dtype=bool)
    return np.fromiter(map(_is_missing, arr), dtype=bool, count=arr.size)


def factorize(values: np.ndarray) -> tuple[np.ndarray, list]:
    """Codes into the distinct values in order of first appearance (no missing values).

    ``TypeError`` for unhashable cells (lists, sets), as :func:`pandas.factorize`.

    Examples
    --------
    >>> codes, uniques = factorize(np.array(["b", "a", "b"], dtype=object))
    >>> codes.tolist(), uniques
    ([0, 1, 0], ['b', 'a'])
    """
    if _use_pandas(values.size):
        import pandas as pd

        codes, uniques = pd.factorize(values, sort=False)
        return np.asarray(codes, dtype=np.int64), list(uniques)
    if values.dtype.kind in "iufb":
        uniques_sorted, first, inverse = np.unique(values, return_index=True, return_inverse=True)
        order = np.argsort(first, kind="stable")  # order of first appearance, as pandas
        rank = np.empty_like(order)
        rank[order] = np.arange(len(order))
        return rank[inverse.ravel()].astype(np.int64), list(uniques_sorted[order])
    uniques = list(dict.fromkeys(values))  # C-level pass; TypeError for unhashable cells
    index = {v: k for k, v in enumerate(uniques)}
    return np.fromiter(map(index.__getitem__, values), dtype=np.int64, count=values.size), uniques


def _label_kind(value: Any) -> str:
    """Classify one non-missing label; raise TypeError for what cannot be a label."""
    if isinstance(value, bool | np.bool_):
        return "categorical"
    if isinstance(value, numbers.Real):
        if not math.isfinite(float(value)):
            raise TypeError(f"numeric labels must be finite; got {value!r}")
        return "numeric"
    if isinstance(value, str):
        return "categorical"
    if isinstance(value, frozenset | set | list | tuple):
        bad = [e for e in value if not isinstance(e, str)]
        if bad:
            raise TypeError(
                f"set-valued labels must contain only strings; got element {bad[0]!r} "
                f"of type {type(bad[0]).__name__} in {value!r}"
            )
        return "set"
    if isinstance(value, Hashable) and not isinstance(value, np.ndarray):
        return "categorical"
    raise TypeError(
        f"labels must be hashable (str, number, or a set/list of str); got {type(value).__name__}: {value!r}"
    )


def _is_bool(value: Any) -> bool:
    return isinstance(value, bool | np.bool_)


def _refuse_bool_number_merge(vals: np.ndarray, codes_u: np.ndarray, uniques: list) -> None:
    """TypeError where booleans and the numbers 0 / 1 share a label.

    ``True == 1`` and ``hash(True) == hash(1)`` in Python, so a hash-table encoder (dicts, pandas)
    merges ``True`` with ``1`` and ``False`` with ``0`` into one label whose kind is that of the
    first one seen. Booleans are categorical labels of their own; mixing them with numbers is
    refused, like any other mix of label kinds (docs/unusual_input.md).
    """
    if vals.dtype != object:
        return  # a bool array holds only booleans, a numeric array none
    pd_ = sys.modules.get("pandas")
    if pd_ is not None and pd_.api.types.infer_dtype(vals, skipna=True) in (
            "integer", "floating", "mixed-integer-float", "boolean", "string", "decimal"):
        return  # one C pass: only numbers, only booleans or only text
    merged = [k for k, u in enumerate(uniques)
              if (_is_bool(u) or isinstance(u, numbers.Number)) and not isinstance(u, str) and (u == 0 or u == 1)]
    if not merged:
        return
    cells = vals[np.isin(codes_u, merged)]
    is_bool = np.fromiter(map(_is_bool, cells), dtype=bool, count=cells.size)
    if is_bool.any() and not is_bool.all():
        b, n = cells[is_bool][0], cells[~is_bool][0]
        raise TypeError(
            f"labels mix booleans ({b!r}) and numbers ({n!r}); Python treats True as 1 and False as 0, so "
            "they would merge into one label: use one kind of label per data set (for example map the "
            "booleans to 0/1 or to strings)")


def _check_categories(categories: Sequence[Any], kind: str, uniques: list) -> None:
    """``categories=`` must hold real labels of the data's kind: no None/NaN/inf, no bool among numbers."""
    for pos, c in enumerate(categories):
        if _is_missing(c) or (isinstance(c, float | np.floating) and np.isnan(c)):
            raise ValueError(
                f"categories must not contain a missing value; got {c!r} at position {pos}: None/NaN marks a "
                "missing rating, not a category (it would add a category no rating can take)")
        if isinstance(c, float | np.floating) and np.isinf(c):
            raise ValueError(
                f"categories must be finite numbers; got {c!r} at position {pos} (a distance weight from an "
                "infinite category is not a number, and numeric labels must be finite)")
    data_bool = any(_is_bool(u) for u in uniques)
    for c in categories:
        if _is_bool(c) != data_bool and (_is_bool(c) or kind == "categorical" and data_bool):
            raise TypeError(
                f"categories mix booleans and other labels: category {c!r} with labels such as {uniques[0]!r}; "
                "True == 1 in Python, so they would merge: declare categories of the labels' own kind")


def _normalise(value: Any, kind: str) -> Any:
    if kind == "set":
        return frozenset(value)
    if kind == "numeric":
        if isinstance(value, numbers.Integral):  # exact at any size (no float64 round trip)
            return int(value)
        return float(value)
    if isinstance(value, np.generic):
        return value.item()
    return value


_NORMALIZE = ("NFC", "NFD", "NFKC", "NFKD", "casefold", "NFC+casefold", "NFKC+casefold")


def text_normalizer(normalize: str | None) -> Any:
    """The function applied to text labels for ``normalize=`` (None: labels stay exact).

    Examples
    --------
    >>> f = text_normalizer("NFC+casefold")
    >>> f("Cafe\u0301") == f("café")
    True
    """
    if normalize is None:
        return None
    if normalize not in _NORMALIZE:
        raise ValueError(f"normalize must be one of {list(_NORMALIZE)} or None; got {normalize!r}")
    form, _, fold = normalize.partition("+")
    if form == "casefold":
        form, fold = "", "casefold"

    def norm(text: str) -> str:
        if form:
            text = unicodedata.normalize(form, text)
        return text.casefold() if fold else text

    return norm


def _normalize_texts(values: np.ndarray, norm: Any) -> np.ndarray:
    """Apply ``norm`` to the strings (and the strings inside set labels) of an object array."""
    try:  # normalise each distinct label once
        inv, uniq = factorize(values)
    except TypeError:  # unhashable cells (lists): cell by cell
        inv, uniq = None, values
    out = np.asarray(uniq, dtype=object).copy()
    for k, v in enumerate(uniq):
        if isinstance(v, str):
            out[k] = norm(v)
        elif isinstance(v, frozenset | set | list | tuple):
            out[k] = type(v)(norm(e) if isinstance(e, str) else e for e in v) if not isinstance(v, list) \
                else [norm(e) if isinstance(e, str) else e for e in v]
    return out if inv is None else out[inv]


def _sort_key_set(s: frozenset) -> tuple:
    return (len(s), tuple(sorted(s)))


def _sorted_vocabulary(labels: Iterable[Any], kind: str) -> tuple:
    uniq = set(labels)
    if kind == "numeric":
        try:  # Python compares int and float exactly: 2**53 < 2**53 + 1 although their floats tie
            return tuple(sorted(uniq))
        except TypeError:  # pragma: no cover - numbers.Real that do not compare with each other
            return tuple(sorted(uniq, key=float))
    if kind == "set":
        return tuple(sorted(uniq, key=_sort_key_set))
    try:
        return tuple(sorted(uniq))
    except TypeError:
        return tuple(sorted(uniq, key=lambda x: (type(x).__name__, repr(x))))


def _ordered_categories(dtypes: list[Any]) -> list[Any] | None:
    """The categories, in order, of columns that all share one *ordered* pandas ``CategoricalDtype``, else None.

    An ordered dtype says which labels exist and how they rank (ordinal alpha, weighted kappa); an
    unordered one is often a leftover (its unused categories survive a row filter), so it declares nothing.

    Examples
    --------
    >>> import pandas as pd
    >>> _ordered_categories([pd.CategoricalDtype(["low", "mid", "high"], ordered=True)] * 2)
    ['low', 'mid', 'high']
    >>> _ordered_categories([pd.CategoricalDtype(["b", "a"])]) is None
    True
    """
    import pandas as pd

    if not dtypes or not all(isinstance(d, pd.CategoricalDtype) and d.ordered for d in dtypes):
        return None
    first = dtypes[0]
    if any(list(d.categories) != list(first.categories) for d in dtypes[1:]):
        return None
    return list(first.categories)


def _bool_and_number(col: Any) -> tuple[Any, Any] | None:
    """A boolean and a number from an id column holding both (one key to a dict or an index), else None.

    Only a column of mixed kinds is looked at cell by cell; a column of one kind costs one inference.
    """
    import pandas as pd

    if col.dtype != object or pd.api.types.infer_dtype(col, skipna=True) not in ("mixed", "mixed-integer"):
        return None
    values = col.to_numpy()
    is_bool = np.fromiter((isinstance(v, bool | np.bool_) for v in values), bool, len(values))
    is_number = np.fromiter((isinstance(v, int | float | np.number) and not isinstance(v, bool | np.bool_)
                             for v in values), bool, len(values))
    if is_bool.any() and is_number.any():
        return values[is_bool.argmax()], values[is_number.argmax()]
    return None


def _ordered_unique(values: Sequence[Any]) -> list:
    """The distinct identifiers, sorted (text in the natural order of ``_columnar.id_order``: digit ids by value);
    in order of first appearance where they do not compare (numbers mixed with text).

    Examples
    --------
    >>> _ordered_unique(["10", "2", "x", "2"]), _ordered_unique([10, 2]), _ordered_unique([1, "a"])
    (['2', '10', 'x'], [2, 10], [1, 'a'])
    """
    uniq = list(dict.fromkeys(values))
    if uniq and all(isinstance(v, str) for v in uniq):
        from softirr_stats.data._columnar import id_order

        text = np.asarray(uniq, dtype=object)
        return text[id_order(text)].tolist()
    try:
        return sorted(uniq)
    except TypeError:
        return uniq


def _uniform_vocabulary(uniques: list) -> "tuple[str, list, np.ndarray] | None":
    """``(kind, labels, order)`` when the distinct labels are all text or all finite plain numbers that
    sort exactly as float64 / int64 (the sorted vocabulary is ``labels[order]``); None otherwise (the
    label-by-label rules decide: mixed kinds, booleans, sets, integers beyond int64 next to floats, ...)."""
    if not uniques:
        return None
    types = set(map(type, uniques))
    if len(types) == 1 and issubclass(next(iter(types)), np.integer | np.floating):  # a numeric NumPy column
        arr = np.asarray(uniques, dtype=next(iter(types)))
        if arr.dtype.kind == "f" and not np.isfinite(arr).all():
            return None  # the label rules name the infinite label
        return "numeric", arr.tolist(), np.argsort(arr, kind="stable")
    if types == {str}:
        from softirr_stats.data._columnar import _text_order

        uniq = np.asarray(uniques, dtype=object)
        return "categorical", uniques, _text_order(uniq)
    if types <= {int, float}:
        nums = np.asarray(uniques, dtype=object)
        as_float = nums.astype(np.float64) if all(abs(v) < 2**53 for v in uniques if type(v) is int) else None
        if as_float is None or not np.isfinite(as_float).all():
            return None  # integers beyond 2**53 are sorted exactly by the label rules
        return "numeric", list(uniques), np.argsort(as_float, kind="stable")
    return None


class Annotations:
    """Annotations of items by raters, encoded once.

    Attributes
    ----------
    codes : ndarray of int32, shape (n_items, n_raters)
        Index into :attr:`vocabulary`; ``-1`` marks a missing rating.
    vocabulary : tuple
        The distinct labels, sorted (numbers numerically, strings lexicographically, sets by
        size then elements); with ``categories=`` declared, exactly those categories in the
        declared order (unused ones included).
    items, raters : tuple
        Item and rater identifiers, in row / column order of ``codes``.
    kind : {"categorical", "numeric", "set"}
        The kind of label. Multi-label data (``from_multilabel``) is set-valued, with
        :attr:`label_universe` holding the declared labels.

    Examples
    --------
    >>> ann = Annotations.from_wide([["a", "a"], ["b", None], ["b", "c"]])
    >>> ann.vocabulary
    ('a', 'b', 'c')
    >>> ann.codes.tolist()
    [[0, 0], [1, -1], [1, 2]]
    >>> ann.n_items, ann.n_raters
    (3, 2)
    """

    __slots__ = ("_codes", "_vocabulary", "_items", "_raters", "_kind", "_categories",
                 "_label_universe", "_cache", "_exchangeable")

    def __init__(
        self,
        codes: np.ndarray,
        vocabulary: Sequence[Any],
        *,
        items: Sequence[Any] | None = None,
        raters: Sequence[Any] | None = None,
        kind: LabelKind = "categorical",
        categories: Sequence[Any] | None = None,
        label_universe: Sequence[str] | None = None,
        exchangeable_raters: bool = False,
    ) -> None:
        codes = np.asarray(codes)
        if codes.ndim != 2:
            raise ValueError(f"codes must have shape (n_items, n_raters); got shape {codes.shape}")
        if not np.issubdtype(codes.dtype, np.integer):
            raise TypeError(f"codes must be integers; got dtype {codes.dtype}")
        vocabulary = tuple(vocabulary)
        if codes.size and (codes.min() < -1 or codes.max() >= len(vocabulary)):
            raise ValueError(
                f"codes must lie in [-1, {len(vocabulary) - 1}] (len(vocabulary) - 1); "
                f"got range [{codes.min()}, {codes.max()}]"
            )
        n_items, n_raters = codes.shape
        if n_items == 0:
            raise ValueError("annotations are empty: no item has a rating")
        if n_raters < 2 and not (n_raters == 1 and _SINGLE_RATER_OK.get()):
            raise ValueError(
                f"agreement needs at least two raters; got {n_raters}"
                + (f" ({list(raters)!r})" if raters is not None else "")
                + (f"; {SINGLE_RATER_WAY}" if n_raters == 1 else "")
            )
        self._codes = np.ascontiguousarray(codes, dtype=np.int32)
        self._codes.setflags(write=False)
        self._vocabulary = vocabulary
        self._items = tuple(items) if items is not None else tuple(range(n_items))
        self._raters = tuple(raters) if raters is not None else tuple(range(n_raters))
        if len(self._items) != n_items or len(self._raters) != n_raters:
            raise ValueError(
                f"items/raters must have lengths {n_items}/{n_raters}; "
                f"got {len(self._items)}/{len(self._raters)}"
            )
        if kind not in ("categorical", "numeric", "set"):
            raise ValueError(f"kind must be one of ['categorical', 'numeric', 'set']; got {kind!r}")
        self._kind = kind
        self._categories = tuple(categories) if categories is not None else None
        self._label_universe = tuple(label_universe) if label_universe is not None else None
        self._cache: dict[str, Any] = {}
        self._exchangeable = bool(exchangeable_raters)
        if (self._codes >= 0).sum() == 0:
            raise ValueError("annotations are empty: every rating is missing")

    # ------------------------------------------------------------------ constructors
    @classmethod
    def from_long(
        cls,
        df: "pd.DataFrame",
        item: str = "item",
        rater: str = "rater",
        label: str = "label",
        *,
        categories: Sequence[Any] | None = None,
        normalize: str | None = None,
    ) -> "Annotations":
        """Build from a long table: one row per (item, rater, label).

        Rows whose label is missing (None/NaN) are kept as missing ratings (the item and
        rater still appear; a rater with no rating at all is left out, named in an
        :class:`UnratedRatersWarning`); duplicate (item, rater) rows raise a ValueError listing them.
        ``normalize`` ("NFC", "NFKC", "casefold", "NFC+casefold", ...) maps text labels
        (and the strings in set labels) to one Unicode form first, so that "e" + combining
        acute and "é" are one label; by default labels are compared exactly. A label column of
        an *ordered* pandas ``CategoricalDtype`` declares ``categories`` (its labels, in order)
        unless ``categories=`` is given.

        Examples
        --------
        >>> import pandas as pd
        >>> df = pd.DataFrame({"doc": [1, 1, 2, 2], "who": ["x", "y", "x", "y"],
        ...                    "text": ["fatigue", "asthenia", "fever", "fever"]})
        >>> ann = Annotations.from_long(df, item="doc", rater="who", label="text")
        >>> ann.vocabulary
        ('asthenia', 'fatigue', 'fever')
        """
        if not _is_frame(df):
            raise TypeError(f"df must be a pandas DataFrame; got {type(df).__name__}")
        for role, col in (("item", item), ("rater", rater), ("label", label)):
            if col not in df.columns:
                raise ValueError(
                    f"{role} column {col!r} not found; the columns are {list(map(str, df.columns))}"
                )
        if len(df) == 0:
            raise ValueError("annotations are empty: the table has no rows")
        for role, col in (("item", item), ("rater", rater)):
            empty = df[col].isna().to_numpy()
            if empty.any():
                from softirr_stats.base._validation import rows_named

                bad = np.flatnonzero(empty)
                blank = df[[item, rater, label]].iloc[bad].isna().all(axis=None)  # rows of delimiters only
                why = (f"the row{'s are' if bad.size > 1 else ' is'} empty (no item, rater or label): delete "
                       f"{'them' if bad.size > 1 else 'it'}" if blank else f"every rating needs its {role}")
                raise ValueError(f"{role} column {col!r} has missing values in {bad.size} row(s) "
                                 f"({rows_named(df.index, bad)}): {why}")
            clash = _bool_and_number(df[col])
            if clash:
                raise TypeError(f"{role} column {col!r} mixes booleans and numbers ({clash[0]!r} and {clash[1]!r}): "
                                f"True equals 1 and False equals 0 as keys, so their ratings would merge into one "
                                f"{role}; write the {role} ids one way (all text, or all numbers)")
        if categories is None:  # an ordered pandas Categorical declares its labels and their order
            categories = _ordered_categories([df[label].dtype])
        from softirr_stats.data._columnar import frame_annotations

        fast = frame_annotations(cls, df, item, rater, label, categories, normalize)  # by whole columns
        if fast is not None:
            return fast
        dup = df.duplicated(subset=[item, rater], keep=False)
        if dup.any():
            from softirr_stats.base._validation import rows_named

            pairs = df.loc[dup, [item, rater]].drop_duplicates().head(10)
            listed = ", ".join(f"({i!r}, {r!r})" for i, r in pairs.itertuples(index=False))
            from softirr_stats.data._cells import term_rows_hint

            i0, r0 = next(pairs.itertuples(index=False))
            first = np.flatnonzero((df[item] == i0).to_numpy() & (df[rater] == r0).to_numpy())
            raise ValueError(
                f"duplicate (item, rater) rows: {int(dup.sum())} rows share an (item, rater) pair; "
                f"first ones: {listed}; rows of ({i0!r}, {r0!r}): {rows_named(df.index, first)}"
                f"{term_rows_hint(df[label].iloc[first].tolist())}"
            )
        items = _ordered_unique(df[item].tolist())
        raters = _ordered_unique(df[rater].tolist())
        import pandas as pd

        item_idx = pd.Index(items).get_indexer(df[item])
        rater_idx = pd.Index(raters).get_indexer(df[rater])
        labels = df[label].to_numpy(dtype=object)
        return cls._from_cells(item_idx, rater_idx, labels, items, raters, categories,
                               normalize=normalize)._without_unrated_raters()

    @classmethod
    def from_wide(
        cls,
        table: Any,
        *,
        categories: Sequence[Any] | None = None,
        items: Sequence[Any] | None = None,
        raters: Sequence[Any] | None = None,
        normalize: str | None = None,
    ) -> "Annotations":
        """Build from a wide table: rows are items, columns are raters.

        ``table`` may be a DataFrame (index = items, columns = raters), a 2-D array or
        nested lists. ``None``/``NaN`` cells are missing (a column with no rating is left out, named
        in an :class:`UnratedRatersWarning`). A cell may be a str, a number, or a set (or list) of str. ``normalize`` as in :meth:`from_long`. Columns of one *ordered*
        pandas ``CategoricalDtype`` declare ``categories`` (its labels, in its order) unless
        ``categories=`` is given; an unordered one declares nothing.

        Examples
        --------
        >>> Annotations.from_wide([[1, 2], [2, 2], [3, None]]).codes.tolist()
        [[0, 1], [1, 1], [2, -1]]
        """
        if _is_frame(table):
            items = list(table.index) if items is None else list(items)
            raters = list(table.columns) if raters is None else list(raters)
            if categories is None:  # an ordered pandas Categorical declares its labels and their order
                categories = _ordered_categories(list(table.dtypes))
            cells = table.to_numpy(dtype=object)
        else:
            if isinstance(table, np.ndarray):
                cells = table if table.dtype.kind in "iuf" else table.astype(object)
            else:
                rows = list(table)
                if not rows:
                    raise ValueError("annotations are empty: the table has no rows")
                flat = next((r for r in rows if isinstance(r, str | bytes) or not hasattr(r, "__len__")), None)
                if flat is not None or (rows and all(isinstance(r, dict) for r in rows)):
                    raise TypeError(f"a table has a row per item holding each rater's label (e.g. [['yes', 'no'], "
                                    f"['no', 'no']]); got a flat sequence of {len(rows)} values such as {flat!r}: "
                                    "one rater's labels are a column, not the table")
                widths = {len(r) for r in rows}
                if len(widths) != 1:
                    raise ValueError(
                        f"every row of the table must have the same number of raters; got lengths {sorted(widths)}"
                    )
                cells = np.empty((len(rows), widths.pop()), dtype=object)
                for i, row in enumerate(rows):
                    for j, v in enumerate(row):
                        cells[i, j] = v
        if cells.ndim != 2:
            raise ValueError(f"table must be 2-D (items x raters); got {cells.ndim}-D")
        n, r = cells.shape
        if n == 0:
            raise ValueError("annotations are empty: the table has no rows")
        items = list(range(n)) if items is None else list(items)
        raters = list(range(r)) if raters is None else list(raters)
        if len(items) != n or len(raters) != r:
            raise ValueError(f"items/raters must have lengths {n}/{r}; got {len(items)}/{len(raters)}")
        # the cells in row-major order: their positions are the flat index (no index arrays)
        return cls._from_cells(None, None, cells.ravel(), items, raters, categories,
                               normalize=normalize)._without_unrated_raters()

    @classmethod
    def from_multilabel(
        cls,
        array: Any,
        labels: Sequence[str] | None = None,
        *,
        items: Sequence[Any] | None = None,
        raters: Sequence[Any] | None = None,
    ) -> "Annotations":
        """Build from a 0/1 array of shape (items, raters, labels).

        Each rating becomes the set of selected labels (possibly empty). A rating whose
        entries are all NaN is missing. ``labels`` names the declared label universe;
        labels never selected are kept (``ann.label_universe``).

        Examples
        --------
        >>> import numpy as np
        >>> x = np.array([[[1, 0], [1, 1]], [[0, 0], [0, 1]]])
        >>> ann = Annotations.from_multilabel(x, labels=["cough", "fever"])
        >>> ann.label_universe
        ('cough', 'fever')
        >>> ann.multilabel_array().tolist() == x.tolist()
        True
        """
        arr = np.asarray(array, dtype=float)
        if arr.ndim != 3:
            raise ValueError(f"array must have shape (n_items, n_raters, n_labels); got shape {arr.shape}")
        n, r, n_labels = arr.shape
        if n == 0 or n_labels == 0:
            raise ValueError(f"annotations are empty: array has shape {arr.shape}")
        nan = np.isnan(arr)
        partial = nan.any(axis=2) & ~nan.all(axis=2)
        if partial.any():
            i, j = np.argwhere(partial)[0]
            raise ValueError(
                f"a rating must be fully observed or fully missing; item {i}, rater {j} has some NaN labels"
            )
        vals = np.where(nan, 0.0, arr)
        if not np.isin(vals, (0.0, 1.0)).all():
            raise ValueError("array must contain only 0/1 (or NaN for a missing rating)")
        labels = [str(k) for k in range(n_labels)] if labels is None else [str(x) for x in labels]
        if len(labels) != n_labels:
            raise ValueError(f"labels must have length {n_labels} (array.shape[2]); got {len(labels)}")
        if len(set(labels)) != len(labels):
            raise ValueError("labels must be distinct")
        missing = nan.all(axis=2)
        lab = np.asarray(labels, dtype=object)
        cells: list[Any] = []
        flat = vals.reshape(n * r, n_labels).astype(bool)
        for m, row in enumerate(flat):  # encoding once, not a statistic's hot path
            cells.append(None if missing.ravel()[m] else frozenset(lab[row].tolist()))
        ii, jj = np.indices((n, r))
        items = list(range(n)) if items is None else list(items)
        raters = list(range(r)) if raters is None else list(raters)
        out = cls._from_cells(ii.ravel(), jj.ravel(), cells, items, raters, None, force_kind="set")
        out._label_universe = tuple(labels)
        return out._without_unrated_raters()

    @classmethod
    def from_table(cls, table: Any, *, categories: Sequence[Any] | None = None,
                   raters: Sequence[Any] = ("rater_1", "rater_2")) -> "Annotations":
        """Two raters' annotations from their K x K contingency table (rows: first rater).

        Parameters
        ----------
        table : array-like of shape (K, K)
            Non-negative integer counts: ``table[a, b]`` items rated ``a`` by the first rater and
            ``b`` by the second.
        categories : sequence of K labels, optional
            The labels of the rows / columns, in order (default ``0 .. K-1``); all K are declared.
        raters : two names, default ("rater_1", "rater_2")

        Examples
        --------
        irrCAC's ``cont3x3abstractors`` (100 items):

        >>> ann = Annotations.from_table([[13, 0, 0], [0, 20, 7], [0, 4, 56]])
        >>> ann.n_items, ann.n_raters, ann.vocabulary
        (100, 2, (0, 1, 2))
        """
        from softirr_stats.data._aggregated import annotations_from_table

        return annotations_from_table(cls, table, categories=categories, raters=raters)

    @classmethod
    def from_counts(cls, counts: Any, *, categories: Sequence[Any] | None = None) -> "Annotations":
        """Annotations from an items x categories matrix of rating counts (Fleiss' layout).

        Each item's ratings fill rating slots ``slot_1, slot_2, ...`` (missing where an item has
        fewer ratings than the most-rated one); the slots carry no rater identity
        (:attr:`exchangeable_raters`), so the coefficients that need it (Cohen, Conger, Light)
        refuse these annotations and every other one applies.

        Parameters
        ----------
        counts : array-like of shape (n_items, K)
            Non-negative integer counts: ``counts[i, k]`` raters put item i in category k.
        categories : sequence of K labels, optional
            The labels of the columns, in order (default ``0 .. K-1``); all K are declared.

        Examples
        --------
        >>> ann = Annotations.from_counts([[0, 3], [1, 2], [2, 1]], categories=["no", "yes"])
        >>> ann.codes.tolist(), ann.raters
        ([[1, 1, 1], [0, 1, 1], [0, 0, 1]], ('slot_1', 'slot_2', 'slot_3'))
        """
        from softirr_stats.data._aggregated import annotations_from_counts

        return annotations_from_counts(cls, counts, categories=categories)

    @classmethod
    def _from_cells(
        cls,
        item_idx: np.ndarray | None,
        rater_idx: np.ndarray | None,
        labels: list,
        items: Sequence[Any],
        raters: Sequence[Any],
        categories: Sequence[Any] | None,
        force_kind: str | None = None,
        normalize: str | None = None,
    ) -> "Annotations":
        check_names(items, "item ids")  # ids that print alike ("1" and "1 "): kept apart, counted
        check_names(raters, "rater names")
        norm = text_normalizer(normalize)
        arr = _object_array(labels)
        present = ~missing_mask(arr)
        if not present.any():
            raise ValueError("annotations are empty: every label is missing (None/NaN)")
        vals = arr[present]
        if norm is not None:
            vals = _normalize_texts(vals.astype(object), norm)
            if categories is not None:
                categories = list(_normalize_texts(np.array(list(categories) + [None], dtype=object)[:-1], norm))
        try:  # vectorised: classify, normalise and sort only the distinct labels
            codes_u, uniques = factorize(vals)
        except TypeError:  # unhashable cells (lists, sets, dicts): normalise cell by cell first
            kinds0 = {_label_kind(v) for v in vals}
            conv = [frozenset(v) if isinstance(v, list | set | tuple | frozenset) else v for v in vals]
            if "set" not in kinds0:  # pragma: no cover - _label_kind raised already
                raise
            vals = _object_array(conv)
            codes_u, uniques = factorize(vals)
        _refuse_bool_number_merge(vals, codes_u, uniques)
        fast = _uniform_vocabulary(uniques) if categories is None and force_kind is None else None
        if fast is not None:  # one kind of plain label (free text, numbers): sorted and coded by whole arrays
            kind, values, order = fast
            check_labels(values, kind)  # look-alike texts, floats beyond 2**53: kept apart, counted
            rank = np.empty(len(order), dtype=np.int32)
            rank[order] = np.arange(len(order), dtype=np.int32)
            codes = np.full((len(items), len(raters)), -1, dtype=np.int32)
            if item_idx is None:
                codes.reshape(-1)[present] = rank[codes_u]
            else:
                codes[np.asarray(item_idx)[present], np.asarray(rater_idx)[present]] = rank[codes_u]
            return cls(codes, tuple(np.asarray(values, dtype=object)[order].tolist()), items=items, raters=raters,
                       kind=kind)  # type: ignore[arg-type]
        kinds: dict[str, Any] = {}
        for v in uniques:
            kinds.setdefault(_label_kind(v), v)
        if len(kinds) > 1:
            examples = ", ".join(f"{k}: {v!r}" for k, v in kinds.items())
            raise TypeError(f"labels mix kinds ({examples}); use one kind of label per data set")
        kind = force_kind or next(iter(kinds))
        norm_uniques = [_normalise(v, kind) for v in uniques]
        check_labels(norm_uniques, kind)  # look-alike texts, floats beyond 2**53: kept apart, counted
        values = set(norm_uniques)
        if categories is not None:
            _check_categories(categories, kind, uniques)
            cats = [_normalise(c, kind) for c in categories]
            if len(set(cats)) != len(cats):
                raise ValueError("categories must be distinct")
            unknown = sorted({repr(v) for v in values} - {repr(c) for c in cats})
            if values - set(cats):
                raise ValueError(
                    f"labels not in the declared categories: {unknown[:10]}; declared {cats!r}"
                )
            vocabulary = tuple(cats)
        else:
            vocabulary = _sorted_vocabulary(values, kind)
        lookup = {v: k for k, v in enumerate(vocabulary)}
        code_of_unique = np.array([lookup[v] for v in norm_uniques], dtype=np.int32)
        codes = np.full((len(items), len(raters)), -1, dtype=np.int32)
        if item_idx is None:  # a wide table: cell j of the labels is codes.flat[j]
            codes.reshape(-1)[present] = code_of_unique[codes_u]
        else:
            codes[np.asarray(item_idx)[present], np.asarray(rater_idx)[present]] = code_of_unique[codes_u]
        return cls(codes, vocabulary, items=items, raters=raters, kind=kind,  # type: ignore[arg-type]
                   categories=None if categories is None else vocabulary)

    # ------------------------------------------------------------------ properties
    @property
    def codes(self) -> np.ndarray:
        """int32 array (n_items, n_raters); -1 = missing; read-only."""
        return self._codes

    @property
    def vocabulary(self) -> tuple:
        return self._vocabulary

    @property
    def items(self) -> tuple:
        return self._items

    @property
    def raters(self) -> tuple:
        return self._raters

    @property
    def kind(self) -> str:
        return self._kind

    @property
    def categories(self) -> tuple | None:
        """The declared label universe (``categories=``), or None."""
        return self._categories

    @property
    def label_universe(self) -> tuple | None:
        """Declared labels of multi-label data (``from_multilabel``), or None."""
        return self._label_universe

    @property
    def exchangeable_raters(self) -> bool:
        """True when the columns are rating slots with no rater identity (:meth:`from_counts`):
        coefficients that read which rater gave which label (Cohen, Conger, Light) refuse them."""
        return self._exchangeable

    @property
    def n_items(self) -> int:
        return int(self._codes.shape[0])

    @property
    def n_raters(self) -> int:
        return int(self._codes.shape[1])

    @property
    def n_ratings(self) -> int:
        return int((self._codes >= 0).sum())

    @property
    def ratings_per_item(self) -> np.ndarray:
        return (self._codes >= 0).sum(axis=1)

    @property
    def unpairable_items(self) -> tuple:
        """Items with fewer than two ratings (they cannot show observed agreement)."""
        few = self.ratings_per_item < 2
        if not few.any():  # the usual case: no object array of every item's name
            return ()
        return tuple(np.asarray(self._items, dtype=object)[few].tolist())

    def values(self) -> np.ndarray:
        """Numeric label values (float64) aligned with :attr:`vocabulary`.

        Integer labels that float64 cannot represent exactly (beyond 2**53) come back as an object
        array of the exact Python integers instead, so that no two labels share a value.
        Raises TypeError for non-numeric labels.
        """
        if self._kind != "numeric":
            raise TypeError(f"label values are numeric only for numeric labels; these are {self._kind}")
        vals = np.asarray(self._vocabulary, dtype=float)
        if any(isinstance(v, int) and int(f) != v for v, f in zip(self._vocabulary, vals.tolist(), strict=True)):
            # integers float64 cannot hold (beyond 2**53) stay exact, so distances between them are
            # computed on exact differences (agreement weights and Krippendorff's metrics)
            return np.asarray(self._vocabulary, dtype=object)
        return vals

    def multilabel_array(self, labels: Sequence[str] | None = None) -> np.ndarray:
        """Set-valued labels as a float array (items, raters, labels): 0/1, NaN = missing."""
        if self._kind != "set":
            raise TypeError(f"multi-label arrays need set-valued labels; these are {self._kind}")
        universe = list(labels or self._label_universe or sorted(set().union(*self._vocabulary)))
        pos = {lab: k for k, lab in enumerate(universe)}
        unknown = set().union(*self._vocabulary) - set(pos)
        if unknown:
            raise ValueError(f"labels {sorted(unknown)[:10]} are not in the label universe {universe}")
        vocab_bin = np.zeros((len(self._vocabulary), len(universe)))
        for k, s in enumerate(self._vocabulary):
            vocab_bin[k, [pos[x] for x in s]] = 1.0
        out = vocab_bin[np.where(self._codes >= 0, self._codes, 0)]
        out[self._codes < 0] = np.nan
        return out

    def to_long(self) -> "pd.DataFrame":
        """The observed ratings as a long DataFrame with columns item, rater, label."""
        import pandas as pd

        ii, jj = np.nonzero(self._codes >= 0)
        return pd.DataFrame({
            "item": np.asarray(self._items, dtype=object)[ii],
            "rater": np.asarray(self._raters, dtype=object)[jj],
            "label": np.asarray(self._vocabulary + (None,), dtype=object)[self._codes[ii, jj]],
        })

    def subset_raters(self, raters: Sequence[Any]) -> "Annotations":
        """A view restricted to some raters (items with no rating left are dropped)."""
        pos = [self._raters.index(r) for r in raters]
        codes = self._codes[:, pos]
        keep = (codes >= 0).any(axis=1)
        return Annotations(codes[keep], self._vocabulary, items=np.asarray(self._items, dtype=object)[keep].tolist(),
                           raters=list(raters), kind=self._kind, categories=self._categories,  # type: ignore[arg-type]
                           label_universe=self._label_universe)

    def complete_items(self) -> "Annotations":
        """A view restricted to the items rated by every rater (listwise deletion).

        This is the data the common peers use when ratings are missing: R ``irr``'s kappa
        functions drop incomplete rows (``na.omit``) and statsmodels' ``fleiss_kappa`` takes
        only complete rows. The vocabulary, raters and declared categories are kept.

        Returns
        -------
        Annotations

        Examples
        --------
        >>> ann = Annotations.from_wide([["a", "a"], ["a", None], ["b", "b"]])
        >>> ann.complete_items().items, ann.complete_items().vocabulary
        ((0, 2), ('a', 'b'))
        """
        keep = (self._codes >= 0).all(axis=1)
        return Annotations(self._codes[keep], self._vocabulary,
                           items=np.asarray(self._items, dtype=object)[keep].tolist(), raters=list(self._raters),
                           kind=self._kind, categories=self._categories,  # type: ignore[arg-type]
                           label_universe=self._label_universe, exchangeable_raters=self._exchangeable)

    def with_label_universe(self, labels: Sequence[str]) -> "Annotations":
        """The same set-valued (multi-label) annotations with ``labels`` declared as their label universe.

        The universe is what the multi-label coefficients count over (``multilabel_agreement(ann, labels=)``):
        a label no rating selects counts in their definition. Items, raters and ratings are kept.

        Parameters
        ----------
        labels : sequence of str
            Distinct label names, in the order ``by_label`` lists them; every label a rating selects must be one
            of them.

        Returns
        -------
        Annotations

        Raises
        ------
        TypeError
            The labels are not set-valued, or ``labels`` is not a sequence of names.
        ValueError
            ``labels`` is empty, names a label twice, or lacks a label some rating selects.

        Examples
        --------
        >>> ann = Annotations.from_wide([[{"a"}, {"a", "b"}], [{"b"}, set()]])
        >>> ann.with_label_universe(["b", "a", "c"]).label_universe
        ('b', 'a', 'c')
        """
        if self._kind != "set":
            raise TypeError(f"a label universe is declared for set-valued (multi-label) labels; these labels are "
                            f"{self._kind} (declare their categories with categories=)")
        if isinstance(labels, str) or not isinstance(labels, Sequence | np.ndarray):
            raise TypeError(f"labels must be a sequence of label names; got {labels!r}")
        names = [str(x) for x in labels]
        if not names:
            raise ValueError("labels must name at least one label")
        twice = next((x for i, x in enumerate(names) if x in names[:i]), None)
        if twice is not None:
            raise ValueError(f"labels must be distinct; {twice!r} is named twice")
        unknown = sorted(set().union(*self._vocabulary) - set(names))
        if unknown:
            raise ValueError(f"labels must hold every label a rating selects; {unknown[:10]} "
                             f"{'is' if len(unknown) == 1 else 'are'} not among them (labels: {names[:10]})")
        return Annotations(self._codes, self._vocabulary, items=list(self._items), raters=list(self._raters),
                           kind="set", label_universe=names, exchangeable_raters=self._exchangeable)

    def warn_unpairable(self, stacklevel: int = 3) -> int:
        """Warn (once per call) about items that have fewer than two ratings; return their count."""
        bad = self.unpairable_items
        if bad:
            warnings.warn(self.unpairable_message(), UnpairableItemsWarning, stacklevel=stacklevel)
        return len(bad)

    def unpairable_message(self) -> str:
        """What :meth:`warn_unpairable` says (``""`` when every item has two ratings): a result's note of the
        same cause carries the same text, so that a table prints the two once."""
        bad = self.unpairable_items
        if not bad:
            return ""
        per_item = self.ratings_per_item
        items = np.asarray(self._items, dtype=object)
        single, empty = items[per_item == 1].tolist(), items[per_item == 0].tolist()
        said = []
        if single:
            said.append(f"{len(single)} of {self.n_items} items have one rating and add no observed agreement "
                        f"(first: {single[:5]!r}); they still count where the coefficient's chance term uses "
                        "single ratings (Krippendorff's alpha leaves them out)")
        if empty:
            said.append(f"{len(empty)} of {self.n_items} items have no rating and count nowhere (first: "
                        f"{empty[:5]!r})")
        return "; ".join(said)

    def _without_unrated_raters(self) -> "Annotations":
        """These annotations without the raters that have no rating, named in an :class:`UnratedRatersWarning`.

        The constructors that read data (``from_long``, ``from_wide``, ``from_multilabel``, the file readers) end
        here, on annotations just built (nothing is cached on them yet): a rater with no rating would otherwise count as a rater everywhere (a unit of the rater bootstrap,
        the R of a plan, a rater ``complete_items`` waits for) while adding nothing. Items are kept as they are
        (an item with no rating is said by :meth:`warn_unpairable`). Fewer than two raters with ratings left is a
        ValueError naming the others (one, inside :func:`single_rater_replication`).
        """
        rated = (self._codes >= 0).any(axis=0)
        if rated.all():
            return self
        names = np.asarray(self._raters, dtype=object)
        gone, kept = names[~rated].tolist(), names[rated].tolist()
        shown = ", ".join(map(repr, gone[:10])) + (f" and {len(gone) - 10} more" if len(gone) > 10 else "")
        what = (f"rater {shown} has no rating" if len(gone) == 1 else f"{len(gone)} raters have no rating ({shown})")
        what += " (every one of its labels is missing)" if len(gone) == 1 else " (every one of their labels is missing)"
        if len(kept) < 2 and not (len(kept) == 1 and _SINGLE_RATER_OK.get()):
            raise ValueError(f"agreement needs at least two raters with a rating; got {len(kept)} ({kept!r}): {what}"
                             + (f"; {SINGLE_RATER_WAY}" if len(kept) == 1 else ""))
        remain = ", ".join(map(repr, kept[:5])) + (f", ... ({len(kept)} in all)" if len(kept) > 5 else "")
        warnings.warn(f"{what} and {'is' if len(gone) == 1 else 'are'} left out; the raters with ratings remain: "
                      f"{remain}", UnratedRatersWarning, stacklevel=user_stacklevel())
        return Annotations(self._codes[:, rated], self._vocabulary, items=list(self._items), raters=kept,
                           kind=self._kind, categories=self._categories,  # type: ignore[arg-type]
                           label_universe=self._label_universe, exchangeable_raters=self._exchangeable)

    def __repr__(self) -> str:
        return (f"Annotations(n_items={self.n_items}, n_raters={self.n_raters}, kind={self._kind!r}, "
                f"n_labels={len(self._vocabulary)}, n_ratings={self.n_ratings})")

    # ------------------------------------------------------------------ merging (readers)
    @classmethod
    def concat(cls, parts: Sequence["Annotations"], *, names: Sequence[str] | None = None) -> "Annotations":
        """Merge annotations of the same study kept apart, e.g. one export per annotator.

        Items and raters are united (an item or rater of one part is missing in the others);
        a part whose labels are single where the others are sets has them read as singleton sets.
        The same rating cell, one rater on one item, in two parts is a clash and raises a
        ValueError naming the item, the rater and both parts; so do parts with different label
        kinds or declared categories. A result with a single rater is allowed (an export of one
        annotator): the coefficients then refuse it, as no item has two ratings.

        Parameters
        ----------
        parts : sequence of Annotations
        names : sequence of str, optional
            Names of the parts for error messages (e.g. their file names).

        Returns
        -------
        Annotations

        Examples
        --------
        >>> import pandas as pd
        >>> one = Annotations.from_long(pd.DataFrame({"item": [1, 2, 1, 2], "rater": ["a", "a", "b", "b"],
        ...                                           "label": ["x", "y", "x", "x"]}))
        >>> two = Annotations.from_long(pd.DataFrame({"item": [1, 2, 3, 3], "rater": ["c", "c", "c", "d"],
        ...                                           "label": ["x", "y", "y", "y"]}))
        >>> both = Annotations.concat([one, two])
        >>> both.items, both.raters, both.n_ratings
        ((1, 2, 3), ('a', 'b', 'c', 'd'), 8)
        """
        import pandas as pd

        parts = list(parts)
        if not parts or not all(isinstance(p, Annotations) for p in parts):
            raise TypeError("Annotations.concat takes a non-empty sequence of Annotations; got "
                            f"{[type(p).__name__ for p in parts] or 'nothing'}")
        names = [str(n) for n in names] if names is not None else [f"part {k + 1}" for k in range(len(parts))]
        if len(names) != len(parts):
            raise ValueError(f"names must name each of the {len(parts)} parts; got {len(names)}")
        kinds = {p.kind for p in parts}
        promote = kinds == {"categorical", "set"}  # one export held only single labels: singleton sets
        if promote:
            kinds = {"set"}
        if len(kinds) > 1:
            raise ValueError("cannot merge parts with different label kinds: "
                             + ", ".join(f"{n}: {p.kind}" for n, p in zip(names, parts, strict=True)))
        cats = {p.categories for p in parts if p.categories is not None}
        if len(cats) > 1:
            raise ValueError("cannot merge parts that declare different categories: "
                             + ", ".join(f"{n}: {list(p.categories)}" for n, p in zip(names, parts, strict=True) if p.categories))
        frames = []
        for k, p in enumerate(parts):
            long = p.to_long()
            if promote and p.kind == "categorical":
                long["label"] = [frozenset([x]) for x in long["label"]]
            long["_part"] = k
            frames.append(long)
        df = pd.concat(frames, ignore_index=True)
        clash = df.duplicated(["item", "rater"], keep=False)
        if clash.any():
            first = df.loc[clash].iloc[0]
            where = df.loc[clash & (df["item"] == first["item"]) & (df["rater"] == first["rater"]), "_part"].tolist()
            raise ValueError(f"rater {first['rater']!r} rates item {first['item']!r} in {names[where[0]]} and in "
                             f"{names[where[1]]} ({int(df.duplicated(['item', 'rater']).sum())} clashing ratings); give the raters distinct "
                             "names (e.g. read_annotations([...], rater_from='file'))")
        return cls._from_long_any(df.drop(columns="_part"), categories=cats.pop() if cats else None,
                                  label_universe=parts[0].label_universe if kinds == {"set"} else None)

    @classmethod
    def _from_long_any(cls, df: "pd.DataFrame", *, categories: Sequence[Any] | None = None,
                       label_universe: Sequence[str] | None = None, normalize: str | None = None) -> "Annotations":
        """``from_long`` that also accepts a single rater (one annotator's export)."""
        with single_rater_replication():  # the one place besides cross_kappa where a single rater is data
            out = cls.from_long(df, item="item", rater="rater", label="label", categories=categories,
                                normalize=normalize)
        if label_universe is not None and out._label_universe is None:
            out._label_universe = tuple(label_universe)
        return out

    def describe(self) -> "pd.DataFrame":
        """One row per rater, then all raters: items rated, their share, labels used, the most frequent label and
        its share: the first check that a file was read as meant (``softirr describe FILE``).

        Examples
        --------
        >>> ann = Annotations.from_wide([["yes", "yes"], ["no", "Yes"], ["yes", None]], raters=["ana", "bo"])
        >>> ann.describe()[["rater", "items_rated", "labels_used", "top_label"]]
          rater  items_rated  labels_used top_label
        0   ana            3            2       yes
        1    bo            2            2       yes
        2   all            3            3       yes
        """
        from softirr_stats.data._describe import describe_raters

        return describe_raters(self)

    def label_counts(self, top: int | None = None) -> "pd.DataFrame":
        """Ratings per label (rows, most used first) and rater (columns, then ``all``); ``top`` keeps the most used.
        A label spelt two ways ("yes" / "Yes") shows as two rows.

        Examples
        --------
        >>> ann = Annotations.from_wide([["yes", "yes"], ["no", "Yes"], ["yes", None]], raters=["ana", "bo"])
        >>> ann.label_counts()["all"].to_dict()
        {'yes': 3, 'Yes': 1, 'no': 1}
        """
        from softirr_stats.data._describe import label_counts

        return label_counts(self, top)

    def case_variants(self) -> list[list[str]]:
        """Groups of text labels (or terms inside set labels) that differ in letter case, most used first: texts
        compared as they print (spaces at the ends, invisible characters and Unicode forms aside, which the readers'
        note names), then case-folded. Exact agreement counts each as a label of its own; ``normalize="casefold"``
        merges those that differ only in case. The readers note them (``read_notes``); nothing is changed.

        Examples
        --------
        >>> Annotations.from_wide([["Fatigue", "fatigue"], ["pain", "pain"]]).case_variants()
        [['Fatigue', 'fatigue']]
        """
        from softirr_stats.data._describe import case_variants

        return case_variants(self)

    @property
    def read_notes(self) -> tuple[str, ...]:
        """How a reader read these annotations (layout found, files merged, repeats resolved); may be empty."""
        return tuple(self._cache.get("read_notes", ()))

    def _repr_html_(self) -> str:
        """Notebook view: the counts and the first five items as a table (Jupyter calls it)."""
        import html

        codes = np.asarray(self.codes)
        vocab = [str(v) for v in self._vocabulary]
        head = "".join(f"<th>{html.escape(str(r))}</th>" for r in self.raters)
        rows = "".join(f"<tr><th>{html.escape(str(i))}</th>" + "".join(
            f"<td>{html.escape(vocab[c]) if c >= 0 else ''}</td>" for c in row) + "</tr>"
            for i, row in zip(list(self.items)[:5], codes[:5], strict=False))
        return (f"<p><b>Annotations</b>: {self.n_items} items, {self.n_raters} raters, {len(vocab)} labels "
                f"({html.escape(self._kind)}), {self.n_ratings} ratings</p><table><thead><tr><th>item</th>{head}"
                f"</tr></thead><tbody>{rows}</tbody></table>")
