""""Did you mean" for a mistyped value of a closed set (coefficients, similarities, chance settings, formats, ...).

:func:`did_you_mean` is the one place that decides what is close enough: the library's errors
(``coefficient must be one of [...]; got 'fleiss' (did you mean 'fleiss_kappa'?)``) and the
command line's (a mistyped *value* of a flag; click suggests for mistyped flags and commands)
both call it.
"""

import difflib
from collections.abc import Iterable

__all__ = ["did_you_mean"]

_MAX_SHOWN = 4


def _words(name: str) -> list[str]:
    return [w for w in name.replace("-", "_").replace(":", "_").split("_") if w]


def did_you_mean(value: object, choices: Iterable[object], *, prefix: bool = True) -> str:
    """``" (did you mean 'x'?)"`` for the closest of ``choices``, or ``""`` when none is close.

    Close means the names that hold ``value`` as a whole word or start with it (``"fleiss"``,
    ``"kappa"``, ``"icc"``; case ignored), else a small misspelling of one name (``difflib`` ratio
    0.75 or more). ``prefix=False`` leaves out the names that only start with it (a file's column
    names: ``"item"`` is no hint for a header ``"item;rater;label"`` read as one column).

    Examples
    --------
    >>> did_you_mean("kripendorff_alpha", ["fleiss_kappa", "krippendorff_alpha"])
    " (did you mean 'krippendorff_alpha'?)"
    >>> did_you_mean("levenstein", ["exact", "levenshtein", "indel"])
    " (did you mean 'levenshtein'?)"
    >>> did_you_mean("fleiss", ["cohen_kappa", "fleiss_kappa", "multilabel_fleiss"])
    " (did you mean 'fleiss_kappa' or 'multilabel_fleiss'?)"
    >>> did_you_mean("kappa", ["cohen_kappa", "fleiss_kappa", "krippendorff_alpha"])
    " (did you mean 'cohen_kappa' or 'fleiss_kappa'?)"
    >>> did_you_mean("icc", ["icc1", "icc2", "icc3", "icc1k", "icc2k", "icc3k"])
    " (did you mean 'icc1', 'icc2', 'icc3', ... (6 names)?)"
    >>> did_you_mean("alpha", ["krippendorff_alpha", "krippendorff_alpha:ordinal", "krippendorff_alpha:ratio"])
    " (did you mean 'krippendorff_alpha'?)"
    >>> did_you_mean("zzz", ["exact", "levenshtein"])
    ''
    """
    if not isinstance(value, str) or not value.strip():
        return ""
    names = list(dict.fromkeys(str(c) for c in choices))
    key = value.strip().lower()
    hits = [n for n in names if n != value and len(key) >= 2
            and (key in _words(n.lower()) or (prefix and len(key) >= 3 and n.lower().startswith(key)))]
    if not hits:
        folded = {n.lower(): n for n in names}
        close = difflib.get_close_matches(key, list(folded), n=1, cutoff=0.75)
        hits = [folded[close[0]]] if close and folded[close[0]] != value else []
    if not hits:
        return ""
    hits = [h for h in hits if ":" not in h or h.partition(":")[0] not in hits]  # a NAME:FORM beside its NAME: NAME
    if len(hits) > _MAX_SHOWN:
        return f" (did you mean {', '.join(repr(n) for n in hits[:_MAX_SHOWN - 1])}, ... ({len(hits)} names)?)"
    if len(hits) <= 2:
        return f" (did you mean {' or '.join(repr(n) for n in hits)}?)"
    return f" (did you mean {', '.join(repr(n) for n in hits[:-1])} or {hits[-1]!r}?)"
