"""Number and table formatting for papers: Markdown (pipe tables) and LaTeX (booktabs).

No dependency beyond pandas: the tables are written here rather than through ``tabulate``
(pandas' ``to_markdown``) or Jinja2 (pandas' ``to_latex``), neither of which softirr installs.
Numbers get a fixed number of decimals (``digits``, default 3) in the usual coefficient
range and significant digits outside it; intervals read ``[lo, hi]``; missing values are
``—`` in Markdown and ``--`` in LaTeX.

Text from the data (labels, rater names, item ids) is made harmless here, for every table and message that
shows it: control characters (C0, DEL, C1, the bidirectional overrides) are written as their escapes
(``\\x1b``), so that a label cannot move the cursor, clear the screen or hide a link in a terminal
(:func:`visible_text`); Markdown cells escape HTML and the punctuation that starts markup, LaTeX cells the
characters TeX reads as commands or ligatures; long texts are cut for display (:func:`display_text`) and in
messages (:func:`short_repr`, :func:`short_reprs`).
"""

import contextlib
import math
import numbers
import re
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:  # pandas loads with the first table; formatting a number needs none
    import pandas as pd

__all__ = ["COEFFICIENT_SCALE_COLUMNS", "P_FLOOR", "P_SCIENTIFIC", "ZERO_TOL", "display_text", "escape_text", "fixed_number", "fixed_interval", "html_table",
           "format_draw_p", "format_interval", "format_number", "format_p", "frame_table", "is_p_column", "json_safe", "json_text",
           "latex_notes", "latex_table", "level_text", "markdown_table", "render", "clipped_repr", "short_repr", "short_reprs",
           "visible_text", "zero_noise"]

Style = Literal["markdown", "latex"]
NA = {"markdown": "—", "latex": "--"}
_LATEX_ESCAPES = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
                  "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
                  "<": r"\textless{}", ">": r"\textgreater{}", "|": r"\textbar{}"}  # < > | print as ¡ ¿ — in OT1
#: TeX ligatures: -- and --- (dashes), '' and `` (quotes), ,, (T1), !` and ?` (¡ ¿); "{}" between keeps the characters
_LATEX_LIGATURE = re.compile(r"[-'`,](?=[-'`,])|[!?](?=`)")
#: characters that act on a terminal or a document instead of printing: C0 controls, DEL, C1 controls and the
#: bidirectional embeddings, overrides and isolates (they reorder the text shown around them)
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
_LINE_BREAK = re.compile(r"\r\n?|\n")
#: Markdown: HTML's special characters as entities; the punctuation that starts markup backslash-escaped (an
#: underscore inside a word starts nothing and stays); brackets stay in a cell that is one [lo, hi] interval
_MD_ENTITIES = {"&": "&amp;", "<": "&lt;", ">": "&gt;"}
_MD_MARKUP = re.compile(r"[\\`*~$|\[\]]|(?<![^\W_])_|_(?![^\W_])")
_MD_MARKUP_NO_BRACKETS = re.compile(r"[\\`*~$|]|(?<![^\W_])_|_(?![^\W_])")
_INTERVAL = re.compile(r"\[[^\[\]]*\]")
#: characters of a text shown in a message or a terminal cell before it is cut
MESSAGE_CHARS = 40
DISPLAY_CHARS = 60
_MINUS = re.compile(r"(?<![\w.])-(?=\d)")
_HEADERS = {"coefficient": "Coefficient", "similarity": "Similarity", "chance": "Chance", "value": "Value",
            "observed": "Observed", "expected": "Expected", "se": "SE", "n_items": "Items",
            "n_raters": "Raters", "ci_method": "Interval", "level": "Level", "label": "Label",
            "prevalence": "Prevalence", "weight": "Weight", "normalized": "Normalized",
            "irr_x": "IRR x", "irr_y": "IRR y", "floor": "Floor", "raw_prevalence": "Raw prevalence",
            "warnings": "Warnings", "n_pairs_scored": "Pairs scored"}
_PAPER_COLUMNS = ("coefficient", "similarity", "chance", "value", "ci", "se", "n_items", "n_raters")
_DEFAULTS = {"similarity": "identity", "chance": "exact"}
#: Columns of result tables on a coefficient's scale: a magnitude below :data:`ZERO_TOL` there prints as zero
#: (the SE, p and every other column keep their small values)
COEFFICIENT_SCALE_COLUMNS = frozenset({"value", "ci_low", "ci_high", "observed", "expected", "z", "value_a", "value_b",
                                       "difference", "normalized", "irr_x", "irr_y", "floor", "judge_only",
                                       "estimator_only"})


def json_text(v: Any, indent: int | None = 2) -> str:
    """``v`` as strict JSON text: :func:`json_safe` (nan as null), then ``json.dumps`` refusing any nan left.

    Examples
    --------
    >>> json_text({"z": float("nan"), "n": 3}, indent=None)
    '{"z": null, "n": 3}'
    """
    import json

    return json.dumps(json_safe(v), indent=indent, allow_nan=False, default=str)


def json_safe(v: Any) -> Any:
    """JSON-safe value, at every depth: nan and +-inf -> None, NumPy scalars -> Python, tuples -> lists.

    Dicts, lists and tuples are made safe inside too (``json.dumps`` would write ``NaN`` or ``Infinity``,
    which strict JSON parsers refuse).

    Examples
    --------
    >>> json_safe({"r_hat": float("nan"), "ess": [1.5, float("inf")], "n": (1, 2)})
    {'r_hat': None, 'ess': [1.5, None], 'n': [1, 2]}
    """
    if isinstance(v, float):
        return float(v) if math.isfinite(v) else None
    if isinstance(v, dict):
        return {k: json_safe(x) for k, x in v.items()}
    if isinstance(v, tuple | list):
        return [json_safe(x) for x in v]
    if isinstance(v, str | bytes):
        return v
    if getattr(v, "ndim", 0) and hasattr(v, "tolist"):  # numpy arrays
        return json_safe(v.tolist())
    if hasattr(v, "item"):  # numpy scalars
        with contextlib.suppress(ValueError, AttributeError, TypeError):
            return json_safe(v.item())
    return v


#: Magnitude below which a quantity on the scale of a coefficient (a value or a bound in [-1, 1], observed and
#: expected agreement in [0, 1], a z statistic built from them) is zero up to floating-point error, for display:
#: a coefficient is a difference and ratio of proportions, so a true zero (observed = expected agreement) comes out
#: as a few units in the last place of 1 (``-8.3e-17``), or some thousand of them where ``1 - expected`` is small.
#: SEs and p-values are not on this scale (a p of ``1e-20`` is real) and are never rounded to zero.
ZERO_TOL = 1e-12


def _is_missing(x: Any) -> bool:
    pd_ = sys.modules.get("pandas")  # pd.NA exists only once pandas is imported
    return x is None or (pd_ is not None and x is pd_.NA) or (isinstance(x, numbers.Real) and not isinstance(x, bool)
                                       and math.isnan(float(x)))


def zero_noise(x: float, tol: float = ZERO_TOL) -> float:
    """``x``, or ``0.0`` where it is zero up to floating-point error (``|x| < tol``; ``-0.0`` too).

    For display only, and only for quantities on the scale of a coefficient (see :data:`ZERO_TOL`):
    a p-value or an SE of ``1e-20`` is a real number and is never passed here. nan and +-inf come
    back as they are.

    Examples
    --------
    >>> zero_noise(-8.326672684688674e-17), zero_noise(-0.0), zero_noise(-0.0004), zero_noise(float("nan"))
    (0.0, 0.0, -0.0004, nan)
    """
    f = float(x)
    return 0.0 if abs(f) < tol else f


def fixed_number(x: Any, digits: int, na: str = "") -> str:
    """A quantity on a coefficient's scale with ``digits`` fixed decimals, zero up to floating-point error
    printed as zero (:func:`zero_noise`: never ``-0.0000``); ``na`` when missing.

    A value below zero that is not a rounding error keeps its sign (``-0.00004`` is ``-0.0000``: below 0).

    Examples
    --------
    >>> fixed_number(-8.326672684688674e-17, 4), fixed_number(-0.00004, 4), fixed_number(float("nan"), 4, "nan")
    ('0.0000', '-0.0000', 'nan')
    """
    if _is_missing(x):
        return na
    return f"{zero_noise(x):.{digits}f}"


def fixed_interval(lo: Any, hi: Any, digits: int = 4, na: str = "") -> str:
    """The ``[lo, hi]`` cell of a terminal table: both bounds by :func:`fixed_number` (never ``-0.0000`` for a
    bound that is zero up to floating-point error); ``na`` where there is no interval (a bound None or nan).

    Examples
    --------
    >>> fixed_interval(-1.1e-16, 0.25), fixed_interval(0.1, 0.2, 2), fixed_interval(float("nan"), 0.2)
    ('[0.0000, 0.2500]', '[0.10, 0.20]', '')
    """
    if _is_missing(lo) or _is_missing(hi):
        return na
    return f"[{fixed_number(lo, digits)}, {fixed_number(hi, digits)}]"


def format_number(x: Any, digits: int = 3, na: str = "—", *, zero: float = 0.0) -> str:
    """A number for a table: integers as they are, floats with ``digits`` decimals.

    Floats of magnitude below ``10**-digits`` (but not zero) or of ``1e6`` and above get
    ``digits`` significant digits instead, so that a small SE or p-value does not print as ``0.000``.
    Magnitudes below ``zero`` print as zero: pass :data:`ZERO_TOL` for a quantity on a coefficient's
    scale (a value, a bound, observed or expected agreement, z), whose ``-8.3e-17`` is a zero met
    through rounding error; leave it 0 for SEs and p-values. Zero never prints with a minus sign.

    Examples
    --------
    >>> format_number(0.47213), format_number(90), format_number(0.0000123), format_number(float("nan"))
    ('0.472', '90', '1.23e-05', '—')
    >>> format_number(-8.3e-17), format_number(-8.3e-17, zero=ZERO_TOL), format_number(1e-20)  # a p of 1e-20 stays
    ('-8.3e-17', '0.000', '1e-20')
    """
    if _is_missing(x):
        return na
    if isinstance(x, bool):
        return str(x)
    if isinstance(x, numbers.Integral):
        return str(int(x))
    if isinstance(x, numbers.Real):
        f = zero_noise(x, zero) if zero > 0 else float(x) + 0.0  # + 0.0: -0.0 becomes 0.0
        if math.isinf(f):
            return "inf" if f > 0 else "-inf"
        if f != 0 and (abs(f) < 10.0 ** -digits or abs(f) >= 1e6):
            return f"{f:.{digits}g}"
        return f"{f:.{digits}f}"
    return str(x)


#: A p-value below this prints in scientific form (:func:`format_p`); from it up, with fixed decimals.
P_SCIENTIFIC = 1e-4
#: A p-value below this (zero included) prints as ``<1e-300`` (:func:`format_p`): a p-value computed from a tail
#: (``2 Phi(-|z|)``, a chi-square or F tail) underflows to 0.0 below about 2.5e-324, though it is positive, and
#: below 2.2e-308 a float has lost significant digits already. Permutation p-values count the observed value
#: among the permuted ones and never come near (at least ``1 / (2 (B + 1))``).
P_FLOOR = 1e-300


def format_p(p: Any, digits: int = 4, na: str = "—") -> str:
    """A p-value for a table: from :data:`P_SCIENTIFIC` (0.0001) up as :func:`format_number` writes it (``digits``
    decimals), below it with two significant digits in scientific form (``3.2e-21``, Python's ``g`` format), and below
    :data:`P_FLOOR` as ``<1e-300``, so that a p-value never prints as ``0.0000`` (which reads as "p is zero").

    Tables of data (csv, json) keep the p-value unrounded; this is for tables meant for reading.

    Examples
    --------
    >>> format_p(0.04512), format_p(0.0005), format_p(0.04512, 3), format_p(0.000512, 3)
    ('0.0451', '0.0005', '0.045', '0.000512')
    >>> format_p(3.2148e-21), format_p(1e-20), format_p(4.1e-5), format_p(0.0), format_p(float("nan"), na="")
    ('3.2e-21', '1e-20', '4.1e-05', '<1e-300', '')
    """
    if _is_missing(p):
        return na
    if isinstance(p, numbers.Real) and not isinstance(p, bool | numbers.Integral):
        f = float(p)
        if 0.0 <= f < P_FLOOR:
            return f"<{P_FLOOR:g}"
        if 0.0 < f < P_SCIENTIFIC:
            return f"{f:.2g}"
    return format_number(p, digits, na)


def _decimal_text(x: float) -> str:
    """``x`` (positive) with two significant digits in plain decimal form, never scientific (``0.000034``)."""
    from decimal import Decimal

    return format(Decimal(f"{x:.2g}"), "f")


def _bound_up(x: float) -> str:
    """``x`` in (0, 1] rounded *up* to two significant digits, in decimal form: a bound that stays a bound
    (``1/300`` is ``0.0034``, not ``0.0033``)."""
    text = _decimal_text(x)
    if float(text) < x * (1 - 1e-12):  # rounded down: one more unit in the second digit
        text = _decimal_text(float(text) + 10.0 ** (math.floor(math.log10(float(text))) - 1))
    return text


def format_draw_p(p: Any, n_draws: int | None, digits: int = 3, *, two_sided: bool = False, name: str = "p",
                  count: bool = True, na: str = "—") -> str:
    """A Monte Carlo p-value (a share of ``n_draws`` replicated draws) for reading: never ``p = 0.000``.

    The posterior predictive checks compute their p-values as the plain share ``k / N`` of the ``N`` replicated
    draws as extreme as the observed statistic (Gelman, Meng & Stern 1996; no ``(k + 1) / (N + 1)``
    correction): ``P(T_rep >= T_obs)`` (:func:`softirr_stats.inference._predictive_check.upper_tail_p`, the
    score check) or, ``two_sided``, ``min(1, 2 min(P(T_rep >= T_obs), P(T_rep <= T_obs)))`` (the per-rater
    check). A share of 0 is not a p of zero: none of the draws was as extreme, so the estimate is below the
    smallest nonzero share ``N`` draws can give, ``1 / N`` (two-sided ``2 / N``; with the ``(k + 1) / (N + 1)``
    convention it would be about ``1 / (N + 1)``). It prints as that bound, rounded up to two significant
    digits in decimal form: ``p < 0.001 (none of 1000 draws)``. This bound is the draws' resolution, not a
    confidence bound: a true tail probability of ``3 / N`` still gives no draw in 5% of runs. Likewise an upper
    tail of 1 prints as ``p > 1 - 1 / N (all N draws)``; a two-sided p of 1 is ``min(1, ...)`` at its cap, and
    prints as it is. Any other share prints with ``digits`` decimals, or with the decimals it needs where those
    would round it to 0 or 1.

    Parameters
    ----------
    p : float
        The share, in [0, 1]; nan (the check was not run) prints as ``na``.
    n_draws : int or None
        ``N``: the replicated draws the share is over (those where the statistic is defined). None where it
        is not known (a record built by hand): then the share prints with ``digits`` decimals, 0 as ``0.000``.
    digits : int
        Decimals of a share between the bounds.
    two_sided : bool
        Whether ``p`` is the two-sided ``min(1, 2 min(...))`` (bound ``2 / N`` at 0; 1 is not a bound).
    name : str
        Written before the relation (``"p = 0.031"``, ``"p < 0.001 ..."``); ``""``: the bare cell of a table
        (``"0.031"``, ``"< 0.001 ..."``).
    count : bool
        Say ``(none of N draws)`` / ``(all N draws)`` beside a bound (False where the text says it already).
    na : str
        The text of a nan p-value.

    Examples
    --------
    >>> format_draw_p(0.0, 1000), format_draw_p(0.0, 300, two_sided=True), format_draw_p(0.0312, 1000)
    ('p < 0.001 (none of 1000 draws)', 'p < 0.0067 (none of 300 draws)', 'p = 0.031')
    >>> format_draw_p(1.0, 300, 4, name=""), format_draw_p(1.0, 300, two_sided=True), format_draw_p(0.0, 1000, count=False)
    ('> 0.9966 (all 300 draws)', 'p = 1.000', 'p < 0.001')
    >>> format_draw_p(1 / 4000, 4000), format_draw_p(3999 / 4000, 4000), format_draw_p(0.0, None, 4)
    ('p = 0.00025', 'p = 0.99975', 'p = 0.0000')
    >>> format_draw_p(float("nan"), 1000, name="")
    '—'
    """
    if _is_missing(p):
        return na
    if isinstance(p, bool) or not isinstance(p, numbers.Real) or not 0.0 <= float(p) <= 1.0:
        raise ValueError(f"p must be a share of draws in [0, 1] (or nan); got {p!r}")
    if n_draws is not None and (isinstance(n_draws, bool) or not isinstance(n_draws, numbers.Integral)
                                or int(n_draws) < 1):
        raise ValueError("n_draws must be a positive integer (the replicated draws the p-value is a share of) "
                         f"or None; got {n_draws!r}")
    f = float(p)
    lead = f"{name} " if name else ""
    if n_draws is not None and (f == 0.0 or (f == 1.0 and not two_sided)):
        n = int(n_draws)
        bound = _bound_up(min(1.0, (2.0 if two_sided else 1.0) / n))
        if f == 0.0:
            return f"{lead}< {bound}" + (f" (none of {n} draws)" if count else "")
        from decimal import Decimal

        below = format(Decimal(1) - Decimal(_bound_up(1.0 / n)), "f")
        return f"{lead}> {below}" + (f" (all {n} draws)" if count else "")
    text = f"{f:.{digits}f}"
    if 0.0 < f < 1.0 and float(text) in (0.0, 1.0):  # the decimals would round a share to 0 or 1
        text = _decimal_text(f) if float(text) == 0.0 else f"{f:.{max(digits, 1 - math.floor(math.log10(1 - f)))}f}"
    return f"{lead}= {text}" if name else text


def is_p_column(name: Any) -> bool:
    """Whether a table's column ``name`` holds p-values (printed by :func:`format_p`): ``p``, ``p_value``,
    ``p_value_<what>`` (``p_value_greater``) or ``<what>_p_value`` (``change_p_value``).

    Examples
    --------
    >>> [is_p_column(c) for c in ("p_value", "p_value_less", "change_p_value", "p", "value", "top_share")]
    [True, True, True, True, False, False]
    """
    name = str(name)
    return name in ("p", "p_value") or name.startswith("p_value_") or name.endswith("_p_value")


def format_interval(lo: Any, hi: Any, digits: int = 3, na: str = "—") -> str:
    """``[lo, hi]``, or ``na`` when either bound is missing; a bound that is zero up to floating-point error
    (:data:`ZERO_TOL`) prints as zero.

    Examples
    --------
    >>> format_interval(0.40712, 0.5239), format_interval(-1e-17, 0.5)
    ('[0.407, 0.524]', '[0.000, 0.500]')
    """
    if _is_missing(lo) or _is_missing(hi):
        return na
    return f"[{format_number(lo, digits, na, zero=ZERO_TOL)}, {format_number(hi, digits, na, zero=ZERO_TOL)}]"


def level_text(level: Any) -> str:
    """A confidence level as a percentage (``0.95 -> "95%"``, ``0.975 -> "97.5%"``); ``""`` if missing."""
    if _is_missing(level):
        return ""
    return f"{float(level) * 100:.10g}%"


def visible_text(text: str, keep: str = "") -> str:
    """``text`` with its control characters written as escapes (``"\\x1b"``, ``"\\r"``, ``"\\u202e"``).

    C0 controls (``keep`` lists those left as they are, e.g. ``"\\t"``), DEL, C1 controls (U+0080-U+009F) and the
    bidirectional embeddings, overrides and isolates: printed raw they would move the cursor, clear the screen,
    open a hyperlink or reorder the text around them. The escape is Python's, so the text stays readable and
    two texts that differ by a control character print differently.

    Examples
    --------
    >>> visible_text("\\x1b[2Jcleared"), visible_text("a\\tb"), visible_text("a\\tb", keep="\\t")
    ('\\\\x1b[2Jcleared', 'a\\\\tb', 'a\\tb')
    """
    text = str(text)
    if _CONTROL.search(text) is None:
        return text
    return _CONTROL.sub(lambda m: m.group() if m.group() in keep else m.group().encode("unicode_escape").decode("ascii"),
                        text)


def display_text(text: Any, limit: int | None = DISPLAY_CHARS, keep: str = "") -> str:
    """``text`` for a table meant for reading: control characters escaped (:func:`visible_text`) and, beyond
    ``limit`` characters, cut, with its length (``"... (N characters)"``). Data outputs (CSV, JSON) keep texts whole.

    Examples
    --------
    >>> display_text("x" * 100, limit=5)
    'xxxxx... (100 characters)'
    """
    text = str(text)
    if limit is not None and len(text) > limit:
        return visible_text(text[:limit], keep) + f"... ({len(text)} characters)"
    return visible_text(text, keep)


def short_repr(value: Any, limit: int = MESSAGE_CHARS) -> str:
    """``repr(value)`` for a message, a text beyond ``limit`` characters cut (its length said).

    Examples
    --------
    >>> short_repr("abc"), short_repr("a" * 50, limit=4)
    ("'abc'", "'aaaa'... (50 characters)")
    """
    if isinstance(value, str) and len(value) > limit:
        return f"{value[:limit]!r}... ({len(value)} characters)"
    return repr(value)


def clipped_repr(value: Any, limit: int = MESSAGE_CHARS) -> str:
    """``repr(value)`` of any value (an object, a list) cut to ``limit`` characters, ``...`` ending a cut one.

    Examples
    --------
    >>> clipped_repr({"name": "b"}), clipped_repr(list(range(30)), limit=10)
    ("{'name': 'b'}", '[0, 1, ...')
    """
    shown = repr(value)
    return shown if len(shown) <= limit else f"{shown[:limit - 3]}..."


def short_reprs(texts: Sequence[Any], limit: int = MESSAGE_CHARS) -> list[str]:
    """:func:`short_repr` of texts meant to be told apart (look-alikes): where they are long and share a long
    beginning, each is shown from a little before the first character where they differ, so that the difference
    (a trailing space, a control character) stays in view.

    Examples
    --------
    >>> short_reprs(["a" * 100, "a" * 100 + " "], limit=6)
    ["...'aaaaa' (100 characters)", "...'aaaaa ' (101 characters)"]
    """
    import os

    strings = [t for t in texts if isinstance(t, str)]
    if len(strings) < 2 or max(map(len, strings)) <= limit:
        return [short_repr(t, limit) for t in texts]
    common = len(os.path.commonprefix(strings))
    start = max(0, min(common - limit // 2, max(map(len, strings)) - limit))
    if start == 0:
        return [short_repr(t, limit) for t in texts]
    out = []
    for t in texts:
        if not isinstance(t, str) or len(t) <= limit:
            out.append(repr(t))
            continue
        part = t[start:start + limit]
        out.append(f"...{part!r}" + ("..." if start + limit < len(t) else "") + f" ({len(t)} characters)")
    return out


def _markdown(text: str) -> str:
    """A Markdown (pipe table) cell showing ``text`` as it is: no markup, no HTML, no control character."""
    text = visible_text(_LINE_BREAK.sub(" ", text), keep="\t")
    text = re.sub("[&<>]", lambda m: _MD_ENTITIES[m.group()], text)
    markup = _MD_MARKUP_NO_BRACKETS if _INTERVAL.fullmatch(text) else _MD_MARKUP
    return markup.sub(lambda m: "\\" + m.group(), text)


def _latex(text: str) -> str:
    """LaTeX text showing ``text`` as it is, under the default OT1 font encoding and T1 alike."""
    text = visible_text(re.sub(r"[ \t]*(?:\r\n?|\n)[ \t\r\n]*", " ", text), keep="\t")  # no paragraph break
    out = "".join(_LATEX_ESCAPES.get(ch, ch) for ch in text)
    return _LATEX_LIGATURE.sub(lambda m: m.group() + "{}", out)


def escape_text(text: str, style: Style) -> str:
    """``text`` for a Markdown or LaTeX document, shown as written (see :func:`_escape`).

    Examples
    --------
    >>> escape_text("<b>x</b> --flag", "markdown"), escape_text("50% --flag", "latex")
    ('&lt;b&gt;x&lt;/b&gt; --flag', '50\\\\% -{}-flag')
    """
    return _escape(text, style)


def _escape(text: str, style: Style) -> str:
    """``text`` as a table cell (or caption) of ``style``: shown as written, never read as markup."""
    return _latex(text) if style == "latex" else _markdown(text)


def latex_notes(lines: Sequence[str]) -> str:
    r"""Lines of notes as a ``\footnotesize`` paragraph to follow a ``tabular`` (``""`` for none).

    Lines are escaped here and broken by ``\\{}``: a bare ``\\`` before a line that opens with
    ``[`` (a numbered note) would read it as a length (``! Illegal unit of measure``).

    Examples
    --------
    >>> print(latex_notes(["Intervals: 95% analytic.", "[1] use --categories a,b"]))
    \par\smallskip{\footnotesize Intervals: 95\% analytic. \\{} [1] use -{}-categories a,b}
    """
    if not lines:
        return ""
    return r"\par\smallskip{\footnotesize " + r" \\{} ".join(_escape(str(n), "latex") for n in lines) + "}"


def markdown_table(header: Sequence[str], rows: Sequence[Sequence[str]], align: Sequence[str]) -> str:
    """A pipe table; cells are escaped here (``|``, HTML, markup punctuation, control characters: see
    :func:`visible_text`), so pass plain text.

    Examples
    --------
    >>> print(markdown_table(["a", "b"], [["x", "1.000"]], ["l", "r"]))
    | a | b |
    | :-- | --: |
    | x | 1.000 |
    """
    rule = {"l": ":--", "r": "--:", "c": ":-:"}
    lines = ["| " + " | ".join(_escape(h, "markdown") for h in header) + " |",
             "| " + " | ".join(rule[a] for a in align) + " |"]
    lines += ["| " + " | ".join(_escape(c, "markdown") for c in row) + " |" for row in rows]
    return "\n".join(lines)


def _latex_cell(text: str, align: str) -> str:
    if text == NA["latex"]:  # a missing value: an en dash
        return text
    out = _escape(text, "latex")
    if align == "r":  # numbers: a typeset minus sign
        out = _MINUS.sub("$-$", out)
    return "{}" + out if out.startswith("[") else out  # "\\ [" would read as a row-spacing argument


def _latex_cell_text(text: str, align: str) -> str:
    """A cell: the missing-value mark ``--`` stays an en dash; other text is escaped (:func:`_latex_cell`)."""
    return text if text == NA["latex"] else _latex_cell(text, align)


def latex_table(header: Sequence[str], rows: Sequence[Sequence[str]], align: Sequence[str], *,
                caption: str | None = None, label: str | None = None) -> str:
    r"""A booktabs ``tabular`` (wrapped in a ``table`` float when a caption or label is given).

    Cells are escaped here (``_``, ``%``, ``&``, ``<``, ``|``, ligatures such as ``--`` and ``''``, control
    characters; a line break becomes a space), so pass plain text; in right-aligned
    (number) columns a minus sign is typeset as ``$-$``.

    Examples
    --------
    >>> print(latex_table(["coefficient", "value"], [["fleiss_kappa", "0.472"]], ["l", "r"]))
    \begin{tabular}{lr}
    \toprule
    coefficient & value \\
    \midrule
    fleiss\_kappa & 0.472 \\
    \bottomrule
    \end{tabular}
    """
    body = [r"\begin{tabular}{" + "".join(align) + "}", r"\toprule",
            " & ".join(_escape(h, "latex") for h in header) + r" \\", r"\midrule"]
    body += [" & ".join(_latex_cell_text(c, a) for c, a in zip(row, align, strict=True)) + r" \\" for row in rows]
    body += [r"\bottomrule", r"\end{tabular}"]
    if caption is None and label is None:
        return "\n".join(body)
    out = [r"\begin{table}", r"\centering"]
    if caption is not None:
        out.append(r"\caption{" + _escape(caption, "latex") + "}")
    if label is not None:
        out.append(r"\label{" + label + "}")
    return "\n".join(out + body + [r"\end{table}"])


def _cell(x: Any, digits: int, na: str, column: str = "") -> str:
    if is_p_column(column) and ((isinstance(x, numbers.Real) and not isinstance(x, bool)) or _is_missing(x)):
        return format_p(x, digits, na)
    if isinstance(x, numbers.Real) or _is_missing(x):
        return format_number(x, digits, na, zero=ZERO_TOL if column in COEFFICIENT_SCALE_COLUMNS else 0.0)
    if isinstance(x, tuple | list | set | frozenset):
        return ", ".join(map(str, sorted(x, key=str) if isinstance(x, set | frozenset) else x))
    return str(x)


def frame_table(df: "pd.DataFrame", *, digits: int = 3, columns: Sequence[str] | None = None,
                na: str = "—") -> tuple[list[str], list[list[str]], list[str]]:
    """Header, formatted rows and alignment of a result table.

    ``ci_low`` / ``ci_high`` become one ``[lo, hi]`` column headed ``"95% CI"`` (the level when
    a ``level`` column holds one value, else ``"CI"``; ask for the column by the name ``"ci"``).
    With ``columns=None``, a table of agreement results (``coefficient`` and ``value`` columns)
    shows coefficient, similarity and chance (when they are not all the defaults ``"identity"``
    / ``"exact"``), value, the interval, SE, items and raters; any other table shows every column.
    """
    import pandas as pd

    if not isinstance(df, pd.DataFrame):
        raise TypeError(f"df must be a pandas DataFrame; got {type(df).__name__}")
    has_ci = {"ci_low", "ci_high"} <= set(df.columns)
    if columns is None:
        if {"coefficient", "value"} <= set(df.columns):
            cols = []
            for c in _PAPER_COLUMNS:
                if c == "ci":
                    if has_ci and df[["ci_low", "ci_high"]].notna().any().any():
                        cols.append(c)
                elif c in df.columns and not (c in _DEFAULTS and (df[c] == _DEFAULTS[c]).all()) \
                        and not (c == "se" and df[c].isna().all()):
                    cols.append(c)
        else:
            cols = [c for c in df.columns if not (has_ci and c in ("ci_low", "ci_high"))]
            if has_ci:
                cols.insert(list(df.columns).index("ci_low"), "ci")
    else:
        cols = list(columns)
        missing = [c for c in cols if c not in df.columns and not (c == "ci" and has_ci)]
        if missing:
            raise ValueError(f"columns {missing} are not in the table; it has {list(df.columns)}"
                             + (" (and 'ci' for ci_low/ci_high)" if has_ci else ""))
    levels = df["level"].dropna().unique() if "level" in df.columns else []
    ci_head = f"{level_text(levels[0])} CI" if len(levels) == 1 else "CI"
    header = [ci_head if c == "ci" else _HEADERS.get(str(c), str(c)) for c in cols]
    rows = []
    for rec in df.to_dict("records"):
        rows.append([format_interval(rec["ci_low"], rec["ci_high"], digits, na) if c == "ci"
                     else _cell(rec[c], digits, na, str(c)) for c in cols])
    align = []
    for c in cols:
        numeric = c == "ci" or pd.api.types.is_numeric_dtype(df[c]) and not pd.api.types.is_bool_dtype(df[c])
        align.append("r" if numeric else "l")
    return header, rows, align


def render(df: "pd.DataFrame", style: Style, *, digits: int = 3, columns: Sequence[str] | None = None,
           caption: str | None = None, label: str | None = None) -> str:
    """A DataFrame as a Markdown or LaTeX table (see :func:`frame_table`)."""
    header, rows, align = frame_table(df, digits=digits, columns=columns, na=NA[style])
    if style == "markdown":
        table = markdown_table(header, rows, align)
        return table if caption is None else f"{table}\n\n{caption}"
    return latex_table(header, rows, align, caption=caption, label=label)


def html_table(header: list[str], rows: list[list[str]], align: list[str], caption: str) -> str:
    """An HTML table of formatted cells, each column aligned ``"l"``, ``"r"`` or ``"c"`` (the results' reprs).

    >>> html_table(["a", "b"], [["1", "x"]], ["r", "l"], "T")[:40]
    '<table><caption>T</caption><thead><tr><t'
    """
    import html

    style = {"l": "left", "r": "right", "c": "center"}
    head = "".join(f'<th style="text-align:{style[a]}">{html.escape(h)}</th>' for h, a in zip(header, align, strict=True))
    body = "".join("<tr>" + "".join(f'<td style="text-align:{style[a]}">{html.escape(c)}</td>'
                                    for c, a in zip(row, align, strict=True)) + "</tr>" for row in rows)
    return f"<table><caption>{html.escape(caption)}</caption><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
