"""Typed result containers for agreement coefficients."""

import math
import sys
from dataclasses import dataclass, field, fields, replace
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pandas loads when a table is asked for
    import pandas as pd

from softirr_stats.base._format import (
    COEFFICIENT_SCALE_COLUMNS,
    ZERO_TOL,
    fixed_number,
    format_interval,
    format_number,
    format_p,
    html_table,
    latex_notes,
    latex_table,
    level_text,
    markdown_table,
)

__all__ = ["NOTE_PREFIXES", "WARNING_SEPARATOR", "AgreementResult", "CrossKappaResult", "MultilabelResult",
           "count_text"]

#: How :meth:`AgreementResult.to_dict` joins the warnings into one string: one per line (a warning's own
#: text may hold ``"; "``, never a line break).
WARNING_SEPARATOR = "\n"

#: Lines of ``warnings`` that are notes (information, nothing went wrong), by their opening words:
#: ``print(result)`` counts them as notes and :attr:`AgreementResult.notes` picks them out. They are
#: what peers that use complete items only would report (``missing ratings:``), the number of
#: categories a chance term took from the observed labels (``q = ``: the value is defined with it),
#: which chance term ``chance="auto"`` chose, and that an interval includes the sampled chance term's
#: error (``agreement._statistic.RESAMPLED_PAIRS_NOTE``), that a soft-model interval was widened
#: to the profile-likelihood interval (``inference``'s ``PROFILE_NOTE``), and which items are no units of
#: a bootstrap interval (``uncertainty._bootstrap.UNITS_NOTE``: a single rating adds nothing to alpha). A
#: line that says a result may be off is a warning.
NOTE_PREFIXES: tuple[str, ...] = ("missing ratings:", "q = ", "chance='auto' chose ",
                                  "chance-term sampling error included:",
                                  "interval widened by the profile likelihood:",
                                  "interval widened by the Student-t factor:", "interval units:",
                                  "no shared labels:")


def _is_note(text: str) -> bool:
    return str(text).startswith(NOTE_PREFIXES)


def _field_of(header: str) -> str:
    """The field an extra column of a result table shows (``"IRR x"`` -> ``irr_x``), as the repr names it."""
    return header.lower().replace(" ", "_")


def _p_text(p: float, equals: str = " = ") -> str:
    """A p-value for a line of text: ``"p = 0.010"`` (three decimals), ``"p < 0.001"`` below that."""
    return f"p{equals.replace('=', '<')}0.001" if p < 0.001 else f"p{equals}{p:.3f}"


def count_text(lines: "tuple[str, ...] | list[str]") -> str:
    """``"1 warning"``, ``"2 notes"``, ``"1 warning, 1 note"`` or ``""``: the lines counted by kind.

    Examples
    --------
    >>> count_text(("missing ratings: ...", "value is nan: ..."))
    '1 warning, 1 note'
    >>> count_text(())
    ''
    """
    n_notes = sum(_is_note(w) for w in lines)
    n_warnings = len(lines) - n_notes
    parts = [f"{n} {word}{'s' if n > 1 else ''}" for n, word in ((n_warnings, "warning"), (n_notes, "note")) if n]
    return ", ".join(parts)


@dataclass(frozen=True)
class AgreementResult:
    """One agreement coefficient with its observed/expected terms and (optional) interval.

    Attributes
    ----------
    coefficient : str
        Name of the statistic, e.g. ``"cohen_kappa"``.
    value : float
        The coefficient; ``nan`` when it is undefined (see ``warnings``).
    observed, expected : float
        Observed and chance (expected) agreement. For Krippendorff's alpha these are
        ``1 - D_o`` and ``1 - D_e``.
    n_items, n_raters : int
        Items and raters that entered the computation.
    ci_low, ci_high, se : float
        Interval bounds and standard error; ``nan`` when no interval was asked for.
    level : float
        Confidence (or credibility) level of the interval; ``nan`` without one.
    ci_method : str
        How the interval was made (``"bootstrap-percentile"``, ``"analytic"``, ...), or ``""``.
    similarity : str
        The equivalence measure or weights (``"identity"`` for exact matching).
    chance : str
        How chance agreement was computed (``"exact"``, ``"monte_carlo(D=3)"``, ...).
    chance_se : float
        Standard error of the chance term when it is estimated from sampled pairs.
    n_pairs_scored : int
        Label pairs the equivalence estimator scored (0 for identity / matrices).
    z, p_value : float
        Test of H0: coefficient = 0, two-sided unless ``details["alternative"]`` says otherwise
        (``kappa_test`` and ``permutation_test`` take ``alternative=``; ``details["test"]`` says which): with
        ``ci="analytic"``, the published null variance where one exists (Fleiss, Cohen & Everitt
        1969 for Cohen's kappa, Fleiss, Nee & Landis 1979 for Fleiss' kappa; ``z`` normal) and
        irrCAC's convention elsewhere (``z = value / se``, Student t with n - 1 df); or a
        permutation test (:func:`softirr_stats.permutation_test`). ``nan`` when not asked for.
    warnings : tuple of str
        Why a value is ``nan``, what was dropped, which option ``"auto"`` picked, and notes (the
        lines of :attr:`notes`): one channel, numbered together in every table and on the command line.
    details : dict
        Everything else (bootstrap settings and replicates, posterior, per-item terms).

    Examples
    --------
    >>> r = AgreementResult("percent_agreement", 0.8, 0.8, 0.0, 10, 2)
    >>> r.to_dict()["value"]
    0.8
    """

    coefficient: str
    value: float
    observed: float
    expected: float
    n_items: int
    n_raters: int
    ci_low: float = math.nan
    ci_high: float = math.nan
    se: float = math.nan
    level: float = math.nan
    ci_method: str = ""
    similarity: str = "identity"
    chance: str = "exact"
    chance_se: float = math.nan
    n_pairs_scored: int = 0
    z: float = math.nan
    p_value: float = math.nan
    warnings: tuple[str, ...] = ()
    details: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @property
    def notes(self) -> tuple[str, ...]:
        """The lines of ``warnings`` that are notes, not problems (:data:`NOTE_PREFIXES`).

        A note says how a number relates to another (the missing-ratings note: what peers that use
        complete items only would report) or how it was computed (the categories of a chance term,
        the chance term ``chance="auto"`` chose, a sampled chance term's error in the interval). It stays in ``warnings``, the one channel tables, reports
        and the command line read; ``print(result)`` counts it as a note.

        Examples
        --------
        >>> r = AgreementResult("fleiss_kappa", 0.5, 0.75, 0.5, 40, 3, warnings=("missing ratings: ...",))
        >>> r.notes
        ('missing ratings: ...',)
        >>> print(r)
        fleiss_kappa = 0.5000 (similarity: identity); 40 items, 3 raters (1 note: see .notes)
        """
        return tuple(w for w in self.warnings if _is_note(w))

    def _has_test(self) -> bool:
        """A test of H0: coefficient = 0 was made (its p-value is a number)."""
        return math.isfinite(self.p_value)

    def test_description(self) -> str:
        """The test of H0: coefficient = 0 in words: which test, ``z`` and ``p`` (``""`` without one).

        Examples
        --------
        >>> r = AgreementResult("fleiss_kappa", 0.3, 0.6, 0.43, 60, 3).with_test(
        ...     2.9, 0.01, "permutation (labels permuted within raters), B=99")
        >>> r.test_description()
        'permutation (labels permuted within raters), B=99: z = 2.900, p = 0.010'
        """
        if not self._has_test():
            return ""
        stats = ([f"z = {format_number(self.z, 3, 'nan', zero=ZERO_TOL)}"] if math.isfinite(self.z) else []) + \
            [_p_text(self.p_value)]
        name = str(self.details.get("test", "")).strip()
        return (f"{name}: " if name else "") + ", ".join(stats)

    def _test_line(self) -> str:
        """The test as a sentence, saying H0 once (an analytic test's name already says it)."""
        desc = self.test_description()
        return f"Test: {desc}." if "H0" in desc else f"Test of H0 (coefficient = 0): {desc}."

    # ------------------------------------------------------------------
    def _scalar_fields(self) -> dict[str, Any]:
        out = {}
        for f in fields(self):
            if f.name == "details":
                continue
            v = getattr(self, f.name)
            pd_ = sys.modules.get("pandas")  # no DataFrame exists before pandas is imported
            if pd_ is not None and isinstance(v, pd_.DataFrame):
                continue
            out[f.name] = WARNING_SEPARATOR.join(" ".join(str(w).split()) for w in v) if f.name == "warnings" else v
        return out

    def _request_record(self) -> dict[str, Any]:
        """What the bootstrap request set beyond B, seed and design: the generator (it changes the numbers
        for one seed), the interval method asked for, the few-units rule, and the strata and clusters."""
        cfg = self.details.get("ci_request")
        if "bootstrap_n" not in self.details or cfg is None or not hasattr(cfg, "generator"):
            return {}
        out = {"bootstrap_generator": cfg.generator, "bootstrap_method": getattr(cfg, "method", None),
               "bootstrap_few_units": getattr(cfg, "few_units", None)}
        for key in ("cluster", "strata"):
            given = getattr(cfg, key, None)
            if given is not None:  # a column name, or per-item codes (not a scalar: their count says they were given)
                out[f"bootstrap_{key}"] = given if isinstance(given, str) else f"per-item codes ({len(given)} items)"
        return {k: v for k, v in out.items() if v is not None}

    def to_dict(self, *, details: bool = False) -> dict[str, Any]:
        """Flat dict of the scalar fields; ``details=True`` adds scalar details.

        ``nan`` stays ``nan`` (a float, as in the fields); :meth:`to_json` writes it as ``null``.
        ``warnings`` is one string, the warnings one per line (joined by :data:`WARNING_SEPARATOR`,
        ``"\\n"``; a warning is one line, so ``.splitlines()`` gives them back whole). A bootstrap
        interval records B, the seed, the design and the generator; ``details=True`` adds the other
        settings that change it (method asked for, few-units rule, strata, clusters).
        """
        out = self._scalar_fields()
        for key in ("bootstrap_n", "bootstrap_seed", "bootstrap_design", "n_nan_replicates", "test"):
            if key in self.details:
                out[key] = self.details[key]
        request = self._request_record()
        if "bootstrap_generator" in request:
            out["bootstrap_generator"] = request["bootstrap_generator"]
        if details:
            out.update({k: v for k, v in request.items() if k not in out})
            for k, v in self.details.items():
                if isinstance(v, int | float | str | bool) and k not in out:
                    out[k] = v
        return out

    def to_json(self, *, details: bool = False, indent: int | None = None) -> str:
        """:meth:`to_dict` as strict JSON: ``nan`` and infinities as ``null``, ``warnings`` as a list.

        Examples
        --------
        >>> r = AgreementResult("cohen_kappa", float("nan"), 1.0, 1.0, 4, 2, warnings=("undefined; see why",))
        >>> import json
        >>> doc = json.loads(r.to_json())
        >>> doc["value"], doc["warnings"]
        (None, ['undefined; see why'])
        """

        from softirr_stats.base._format import json_text

        out = {**self.to_dict(details=details), "warnings": list(self.warnings)}
        return json_text(out, indent=indent)

    def to_frame(self) -> "pd.DataFrame":
        """One-row tidy DataFrame of :meth:`to_dict` (unrounded)."""
        import pandas as pd

        return pd.DataFrame([self.to_dict()])

    def with_test(self, z: float, p_value: float, method: str, **details: Any) -> "AgreementResult":
        """A copy carrying a test of H0: coefficient = 0 (used by the uncertainty layer); ``p_value`` in [0, 1] or nan."""
        if not (math.isnan(float(p_value)) or 0.0 <= float(p_value) <= 1.0):
            raise ValueError(f"p_value must lie in [0, 1] (or be nan); got {p_value!r}")
        merged = {**self.details, "test": method, **details}
        return replace(self, z=float(z), p_value=float(p_value), details=merged)

    def benchmark(self, scale: Any = "landis-koch", *, method: str | None = None,
                  threshold: float = 0.95) -> Any:
        """Where the coefficient falls on a benchmark scale ("substantial agreement").

        Parameters
        ----------
        scale : str or sequence of (label, low, high)
            ``"landis-koch"``, ``"fleiss"``, ``"altman"``, ``"cicchetti-sparrow"``, ``"regier"``,
            custom bands, or ``"probabilistic"`` (the Landis-Koch scale with the probabilistic
            method).
        method : {"point", "probabilistic"}, optional
            The band containing the estimate, or Gwet's (2014) cumulative probability rule as in
            irrCAC: the highest band whose cumulative membership probability, from the estimate
            and its standard error (a normal truncated to [-1, 1]), reaches ``threshold``.
            Default: ``"point"`` (``"probabilistic"`` for ``scale="probabilistic"``).
        threshold : float
            Cumulative probability of the probabilistic rule (0.95).

        Returns
        -------
        BenchmarkResult
            ``band``, its limits, and for the probabilistic method the band probabilities and
            cumulative probabilities (irrCAC's ``CumProb``); ``str()`` is a one-line interpretation.

        Examples
        --------
        >>> r = AgreementResult("cohen_kappa", 0.67, 0.8, 0.4, 50, 2, se=0.15)
        >>> r.benchmark("landis-koch").band, r.benchmark("probabilistic").band
        ('substantial', 'moderate')
        """
        from softirr_stats.agreement._benchmark_scales import benchmark_value

        if isinstance(scale, str) and scale.strip().lower() == "probabilistic":
            scale, method = "landis-koch", method or "probabilistic"
        return benchmark_value(self.value, self.se, scale=scale, method=method or "point", threshold=threshold)

    def with_interval(self, low: float, high: float, se: float, level: float, method: str,
                      **details: Any) -> "AgreementResult":
        """A copy carrying an interval (used by the uncertainty layer); ``level`` in (0, 1).

        The description names the bootstrap's B and design only for a ``bootstrap-*`` method, so an
        interval that replaces a bootstrap one does not carry its words.
        """
        low, high, level = float(low), float(high), float(level)
        if not 0.0 < level < 1.0:
            raise ValueError(f"level must lie strictly between 0 and 1; got {level!r}")
        merged = {**self.details, **details}
        return replace(self, ci_low=float(low), ci_high=float(high), se=float(se), level=float(level),
                       ci_method=method, details=merged)

    @property
    def interval_kind(self) -> str:
        """``"credible"`` (a posterior interval), ``"confidence"`` (any other method) or ``""`` (none).

        Examples
        --------
        >>> r = AgreementResult("model_kappa", 0.45, 0.6, 0.3, 30, 3).with_interval(
        ...     0.30, 0.61, 0.08, 0.95, "posterior (dawid_skene, nuts)")
        >>> r.interval_kind
        'credible'
        """
        if not self.ci_method:
            return ""
        return "credible" if self.ci_method.startswith("posterior") else "confidence"

    def __str__(self) -> str:
        """The similarity, the value and, with an interval, its level, kind (credible / confidence) and method.

        Examples
        --------
        >>> r = AgreementResult("fleiss_kappa", 0.47213, 0.6, 0.25, 90, 3).with_interval(
        ...     0.40712, 0.5239, 0.031, 0.95, "bootstrap-percentile", bootstrap_n=1000, bootstrap_design="items")
        >>> print(r)
        fleiss_kappa = 0.4721 (similarity: identity), 95% confidence interval [0.4071, 0.5239] by bootstrap-percentile, B=1000, design=items; 90 items, 3 raters
        >>> print(AgreementResult("model_kappa", 0.45, 0.6, 0.3, 30, 3).with_interval(
        ...     0.30, 0.61, 0.08, 0.95, "posterior (dawid_skene, nuts)"))
        model_kappa = 0.4500 (similarity: identity), 95% credible interval [0.3000, 0.6100] by posterior (dawid_skene, nuts); 30 items, 3 raters
        """
        setting = f"similarity: {self.similarity}"
        if self.chance not in ("exact", ""):
            setting += f", chance: {self.chance}"
        text = f"{self.coefficient} = {fixed_number(self.value, 4, 'nan')} ({setting})"
        if self.ci_method:
            desc = self.interval_description()
            method = desc.split(" ", 1)[1] if desc.startswith(level_text(self.level)) and " " in desc else desc
            text += (f", {level_text(self.level)} {self.interval_kind} interval [{fixed_number(self.ci_low, 4, 'nan')}, "
                     f"{fixed_number(self.ci_high, 4, 'nan')}] by {method}")
        if self._has_test():
            text += f"; {self._test_line()[:-1].replace('Test', 'test', 1)}"
        text += f"; {self.n_items} items, {self.n_raters} raters"
        if self.warnings:
            where = ".notes" if len(self.notes) == len(self.warnings) else ".warnings"
            text += f" ({count_text(self.warnings)}: see {where})"
        return text

    def _repr_html_(self) -> str:
        """A small HTML table for notebooks (Jupyter calls it): the paper table and its note.

        Examples
        --------
        >>> r = AgreementResult("cohen_kappa", 0.5, 0.75, 0.5, 40, 2)
        >>> r._repr_html_().startswith("<table")
        True
        """
        import html

        notes = []
        if self.ci_method:
            notes.append(f"{self.interval_kind.capitalize()} interval: {self.interval_description()}.")
        if self._has_test():
            notes.append(self._test_line())
        notes += [f"[{i}] {w}" for i, w in enumerate(self.warnings, 1)]
        foot = "".join(f"<p><small>{html.escape(n)}</small></p>" for n in notes)
        return html_table(*self._table(3, "—"), type(self).__name__) + foot

    # ------------------------------------------------------------------ papers
    def _extra_columns(self) -> list[tuple[str, Any]]:
        """(header, value) pairs a subclass adds to the table and the repr."""
        return []

    def _extra_cells(self, digits: int, na: str) -> list[tuple[str, str]]:
        """The (header, text) cells of :meth:`_extra_columns`: a column on a coefficient's scale (its field in
        :data:`~softirr_stats.base._format.COEFFICIENT_SCALE_COLUMNS`: normalized, irr_x, irr_y, floor) prints
        zero up to floating-point error as zero, as the value and the interval do; the others keep small values."""
        return [(h, format_number(v, digits, na, zero=ZERO_TOL if _field_of(h) in COEFFICIENT_SCALE_COLUMNS else 0.0))
                for h, v in self._extra_columns()]

    def interval_description(self) -> str:
        """How the interval was made, in words (``""`` without one).

        Examples
        --------
        >>> r = AgreementResult("fleiss_kappa", 0.47, 0.6, 0.25, 90, 3).with_interval(
        ...     0.41, 0.52, 0.03, 0.95, "bootstrap-percentile", bootstrap_n=1000, bootstrap_design="items")
        >>> r.interval_description()
        '95% bootstrap-percentile, B=1000, design=items'
        """
        if not self.ci_method:
            return ""
        parts = [f"{level_text(self.level)} {self.ci_method}".strip()]
        if self.ci_method.startswith("bootstrap"):  # a later interval of another kind does not inherit B
            if "bootstrap_n" in self.details:
                parts.append(f"B={self.details['bootstrap_n']}")
            if "bootstrap_design" in self.details:
                parts.append(f"design={self.details['bootstrap_design']}")
        return ", ".join(parts)

    def _table(self, digits: int, na: str) -> tuple[list[str], list[list[str]], list[str]]:
        cols: list[tuple[str, str, str]] = [("Coefficient", self.coefficient, "l")]
        if self.similarity != "identity":
            cols.append(("Similarity", self.similarity, "l"))
        if self.chance != "exact":
            cols.append(("Chance", self.chance, "l"))
        cols.append(("Value", format_number(self.value, digits, na, zero=ZERO_TOL), "r"))
        if self.ci_method:
            short = "CrI" if self.interval_kind == "credible" else "CI"  # a credible interval is not a CI
            cols.append((f"{level_text(self.level)} {short}".strip(), format_interval(self.ci_low, self.ci_high, digits, na),
                         "r"))
            cols.append(("SE", format_number(self.se, digits, na), "r"))
        cols += [("Observed", format_number(self.observed, digits, na, zero=ZERO_TOL), "r"),
                 ("Expected", format_number(self.expected, digits, na, zero=ZERO_TOL), "r")]
        if self._has_test():
            cols += [("z", format_number(self.z, digits, na, zero=ZERO_TOL), "r"),
                     ("p", format_p(self.p_value, digits, na), "r")]
        cols += [(h, text, "r") for h, text in self._extra_cells(digits, na)]
        cols += [("Items", str(self.n_items), "r"), ("Raters", str(self.n_raters), "r")]
        return [c[0] for c in cols], [[c[1] for c in cols]], [c[2] for c in cols]

    def _note(self) -> str:
        notes = []
        if self.ci_method:
            kind = "Credible interval (CrI)" if self.interval_kind == "credible" else "Interval"
            notes.append(f"{kind}: {self.interval_description()}.")
        if self._has_test():
            notes.append(self._test_line())
        problems = [w for w in self.warnings if not _is_note(w)]
        if problems:
            notes.append("Warnings: " + "; ".join(problems) + ".")
        if self.notes:
            notes.append("Notes: " + "; ".join(self.notes) + ".")
        return " ".join(notes)

    def to_markdown(self, *, digits: int = 3, note: bool = True) -> str:
        """A one-row Markdown table (value, interval, SE, observed, expected, items, raters).

        Numbers get ``digits`` decimals; the interval reads ``[lo, hi]``; with ``note=True``, a
        line under the table says how the interval was made and repeats any warnings.

        Examples
        --------
        >>> r = AgreementResult("fleiss_kappa", 0.47213, 0.6, 0.25, 90, 3).with_interval(
        ...     0.40712, 0.5239, 0.031, 0.95, "bootstrap-percentile", bootstrap_n=1000, bootstrap_design="items")
        >>> print(r.to_markdown())
        | Coefficient | Value | 95% CI | SE | Observed | Expected | Items | Raters |
        | :-- | --: | --: | --: | --: | --: | --: | --: |
        | fleiss_kappa | 0.472 | [0.407, 0.524] | 0.031 | 0.600 | 0.250 | 90 | 3 |
        <BLANKLINE>
        Interval: 95% bootstrap-percentile, B=1000, design=items.
        """
        header, rows, align = self._table(digits, "—")
        table = markdown_table(header, rows, align)
        text = self._note() if note else ""
        return f"{table}\n\n{text}" if text else table

    def to_latex(self, *, digits: int = 3, caption: str | None = None, label: str | None = None) -> str:
        r"""A one-row booktabs LaTeX table with the note of :meth:`to_markdown` (interval, test, warnings).

        With a caption, a ``table`` float whose caption ends with the note; without one, the note
        follows the ``tabular`` in a ``\footnotesize`` paragraph (inside the float when a label is given).

        Examples
        --------
        >>> r = AgreementResult("cohen_kappa", 0.5, 0.75, 0.5, 40, 2)
        >>> print(r.to_latex())
        \begin{tabular}{lrrrrr}
        \toprule
        Coefficient & Value & Observed & Expected & Items & Raters \\
        \midrule
        cohen\_kappa & 0.500 & 0.750 & 0.500 & 40 & 2 \\
        \bottomrule
        \end{tabular}
        """
        header, rows, align = self._table(digits, "--")
        note = self._note()
        if caption is not None and note:
            caption = f"{caption.rstrip().rstrip('.')}. {note}" if caption.strip() else note
        table = latex_table(header, rows, align, caption=caption, label=label)
        if caption is not None or not note:
            return table
        foot = latex_notes([note])
        if label is None:
            return f"{table}\n{foot}"
        return table.removesuffix(r"\end{table}") + foot + "\n" + r"\end{table}"

    def __repr__(self) -> str:
        value = format_number(self.value, 3, "nan", zero=ZERO_TOL)
        if self.ci_method:
            value += " " + format_interval(self.ci_low, self.ci_high, 3, "[nan, nan]")
            method = f"{level_text(self.level)} {self.ci_method}".strip()
            if self.interval_kind == "credible":
                method = method.replace("posterior", "credible posterior", 1)
            if self.ci_method.startswith("bootstrap") and "bootstrap_n" in self.details:  # as interval_description
                method += f" B={self.details['bootstrap_n']}"
            value += f", {method}"
        if self._has_test():
            value += f", z={format_number(self.z, 3, 'nan', zero=ZERO_TOL)}, {_p_text(self.p_value, '=')}"
        extras = "".join(f", {_field_of(h)}={text}" for h, text in self._extra_cells(3, "nan"))
        sim = "" if self.similarity == "identity" else f", similarity={self.similarity}"
        n_notes = len(self.notes)
        warn = "".join(f", {k}={n}" for k, n in (("warnings", len(self.warnings) - n_notes), ("notes", n_notes)) if n)
        return (f"{type(self).__name__}({self.coefficient} = {value}{sim}{extras}, items={self.n_items}, "
                f"raters={self.n_raters}{warn})")


@dataclass(frozen=True, repr=False)
class CrossKappaResult(AgreementResult):
    """Cross-replication reliability: ``value`` is kappa_x; also the normalised form and IRRs.

    Attributes
    ----------
    normalized : float
        ``kappa_x / sqrt(irr_x irr_y)`` (nan unless both IRRs are positive).
    irr_x, irr_y : float
        Krippendorff's alpha of each replication on the matched items.

    The other fields are those of :class:`AgreementResult`.

    Examples
    --------
    >>> import softirr_stats as sis
    >>> x = [["a", "a"], ["b", "b"], ["a", "a"], ["b", "b"]]
    >>> y = [["a", "a"], ["b", "b"], ["a", "b"], ["b", "b"]]
    >>> r = sis.cross_kappa(x, y)
    >>> type(r).__name__, round(r.value, 4), round(r.normalized, 4)
    ('CrossKappaResult', 0.75, 1.027)
    """

    normalized: float = math.nan
    irr_x: float = math.nan
    irr_y: float = math.nan

    def _extra_columns(self) -> list[tuple[str, Any]]:
        return [("Normalized", self.normalized), ("IRR x", self.irr_x), ("IRR y", self.irr_y)]


@dataclass(frozen=True, repr=False)
class MultilabelResult(AgreementResult):
    """Multi-label agreement with label-wise decomposition and item diagnostics.

    Attributes
    ----------
    floor : float
        The coefficient at the minimum Hamming agreement the label prevalences allow.
    raw_prevalence : float
        Mean share of labels selected.
    by_label : DataFrame
        Label, prevalence, observed, expected, coefficient, weight, floor_observed.
    by_item : DataFrame
        Item, n_raters, hamming_agreement, n_disagreeing_labels, coefficient.

    The other fields are those of :class:`AgreementResult`.

    Examples
    --------
    >>> import numpy as np, softirr_stats as sis
    >>> x = np.array([[[1, 0], [1, 0]], [[0, 1], [0, 1]], [[1, 1], [0, 1]]])
    >>> r = sis.multilabel_agreement(x, baseline="pabak")
    >>> round(r.value, 4), r.by_label.shape
    (0.6667, (2, 7))
    """

    floor: float = math.nan
    raw_prevalence: float = math.nan
    by_label: "pd.DataFrame | None" = field(default=None, repr=False, compare=False)
    by_item: "pd.DataFrame | None" = field(default=None, repr=False, compare=False)

    def _extra_columns(self) -> list[tuple[str, Any]]:
        return [("Floor", self.floor), ("Raw prevalence", self.raw_prevalence)]

    def by_label_markdown(self, *, digits: int = 3) -> str:
        """The label-wise decomposition (:attr:`by_label`) as a Markdown table."""
        from softirr_stats.base._format import render

        if self.by_label is None:
            raise ValueError("this result has no label-wise table (by_label is None)")
        return render(self.by_label, "markdown", digits=digits)

    def by_label_latex(self, *, digits: int = 3, caption: str | None = None, label: str | None = None) -> str:
        """The label-wise decomposition (:attr:`by_label`) as a booktabs LaTeX table."""
        from softirr_stats.base._format import render

        if self.by_label is None:
            raise ValueError("this result has no label-wise table (by_label is None)")
        return render(self.by_label, "latex", digits=digits, caption=caption, label=label)
