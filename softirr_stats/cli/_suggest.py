""""Did you mean" for a mistyped value of a closed set (coefficients, measures, models, ...).

Mistyped options and commands get click's suggestion; a mistyped *value* gets this one:
:func:`did_you_mean` is the one place that decides what is close enough, so every resolver
(``check_choices`` here, the similarity / chance / interval resolvers) can call it.
"""

import difflib
from collections.abc import Sequence

__all__ = ["did_you_mean"]


def did_you_mean(value: str, choices: Sequence[str]) -> str:
    """``" (did you mean 'x'?)"`` for the closest of ``choices``, or ``""`` when none is close.

    Examples
    --------
    >>> did_you_mean("kripendorff_alpha", ["fleiss_kappa", "krippendorff_alpha"])
    " (did you mean 'krippendorff_alpha'?)"
    >>> did_you_mean("levenstein", ["exact", "levenshtein", "indel"])
    " (did you mean 'levenshtein'?)"
    >>> did_you_mean("zzz", ["exact", "levenshtein"])
    ''
    """
    close = difflib.get_close_matches(str(value).strip().lower(), [str(c) for c in choices], n=1, cutoff=0.75)
    return f" (did you mean {close[0]!r}?)" if close else ""
