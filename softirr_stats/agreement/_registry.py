"""The coefficient registry: one record per agreement coefficient.

A :class:`Coefficient` says everything the rest of the package needs to know about a
coefficient: its chance family (kernels, chance model, analytic terms: ``_families.py``),
how many raters it allows, which options it takes (``weights=``, ``similarity=``, ``chance=``,
``level=``), how its options become a similarity over the vocabulary, and its documentation.
The public functions (``softirr_stats.cohen_kappa`` ...), the command line's choices,
:func:`softirr_stats.sensitivity`, the docs table and the invariance tests are all built from
:data:`COEFFICIENTS`. Adding a coefficient is one record (plus its tests).

The public statistics that are not coefficients (``multilabel_agreement``, ``cross_kappa``,
``distance_agreement``) have a lighter :class:`StatisticRecord` in :data:`STATISTICS`;
:func:`statistic_records` is every public statistic, :func:`public_exports` the names the
package must export, and each record's ``invariances`` the properties the invariance tests hold
it to.

Examples
--------
>>> COEFFICIENTS["cohen_kappa"].raters, COEFFICIENTS["cohen_kappa"].family.name
('two', 'per_rater')
>>> sorted(COEFFICIENTS)[:3]
['brennan_prediger', 'cohen_kappa', 'conger_kappa']
"""

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, ClassVar

from softirr_stats.agreement._families import ChanceFamily, get_family
from softirr_stats.agreement._similarity import (
    ExactMatchSimilarity,
    LabelSimilarity,
    check_rank_order,
    level_similarity,
    resolve_similarity,
)
from softirr_stats.agreement._weights import check_weight_matrix
from softirr_stats.base._suggest import did_you_mean
from softirr_stats.base._validation import check_choice
from softirr_stats.data import Annotations

__all__ = ["Coefficient", "Resolved", "COEFFICIENTS", "get_coefficient", "register", "coefficient_table",
           "default_coefficients", "ALPHA_LEVELS", "INVARIANCES", "StatisticRecord", "STATISTICS",
           "statistic_records", "public_exports", "coefficient_table_markdown", "more_raters_hint"]

ALPHA_LEVELS = ("nominal", "ordinal", "interval", "ratio")

#: The properties a statistic can claim; ``tests/common/test_invariances.py`` holds one test per
#: claim, and each record's ``invariances`` says which of them the statistic has.
INVARIANCES: dict[str, str] = {
    "item_order": "permuting the items leaves the value unchanged",
    "rater_order": "permuting the raters leaves the value unchanged",
    "relabelling": "a one-to-one renaming of the labels leaves the value unchanged",
    "replication_order": "swapping the two replications (X and Y) leaves the value unchanged",
    "perfect_is_one": "identical ratings on every item (two or more labels in use) give 1",
    "soft_exact_is_hard": "an exact-match similarity callable gives the hard coefficient",
    "unit_weights": "unit item and rater weights reproduce the point estimate",
    "vmap_equals_loop": "a batch of weight vectors equals evaluating them one at a time",
    "multinomial_equals_resampling": "item weights = draw counts equal duplicating the drawn items",
}
COEFFICIENT_INVARIANCES = frozenset(INVARIANCES) - {"replication_order"}


@dataclass(frozen=True)
class Resolved:
    """A coefficient's options turned into what the engine evaluates.

    Attributes
    ----------
    family : ChanceFamily
        Kernels and chance model.
    sim : LabelSimilarity
        The resolved similarity over the vocabulary.
    chance : Any
        ``"exact"``, ``MonteCarlo`` or ``SampledPairs``.
    name : str
        The name reported in the result (e.g. ``gwet_ac2`` with weights).
    notes : tuple of str
        What the options resolved to, for the result's warnings.

    Examples
    --------
    >>> from softirr_stats import Annotations
    >>> ann = Annotations.from_wide([["a", "a"], ["a", "b"]])
    >>> rec = COEFFICIENTS["fleiss_kappa"]
    >>> r = rec.resolve(rec, ann, {})
    >>> r.name, r.family.name, r.chance
    ('fleiss_kappa', 'pooled', 'exact')
    """

    family: ChanceFamily
    sim: LabelSimilarity
    chance: Any
    name: str  # the coefficient name reported (e.g. gwet_ac2 when weights are given)
    notes: tuple[str, ...] = ()


def _default_resolve(coef: "Coefficient", ann: Annotations, options: dict[str, Any]) -> Resolved:
    weights, similarity = options.get("weights"), options.get("similarity")
    sim = resolve_similarity(ann, similarity=similarity, weights=weights)
    _check_as_given(coef, coef.family.name, ann, sim)
    name = coef.name
    if coef.weighted_name and weights is not None and not (isinstance(weights, str) and weights == "identity"):
        name = coef.weighted_name
    return Resolved(coef.family, sim, options.get("chance", "exact"), name)


def _check_as_given(coef: "Coefficient", family: str, ann: Annotations, sim: LabelSimilarity) -> None:
    """An asymmetric weight matrix used as given: only where the coefficient's raters have an order."""
    if sim.asymmetric:
        check_weight_matrix(sim.matrix, len(ann.vocabulary), coefficient=coef.name, family=family,  # type: ignore[attr-defined]
                            n_raters=ann.n_raters)


class _OrdinalLevel(ExactMatchSimilarity):
    """The label identity that ordinal alpha's family is given (it computes the ordinal distances from the counts),
    named after the level."""

    name = "ordinal-distance"


def _resolve_alpha(coef: "Coefficient", ann: Annotations, options: dict[str, Any]) -> Resolved:
    """Krippendorff's levels: nominal (or soft), ordinal (its own family), interval / ratio (a metric)."""
    level, similarity, chance = options["level"], options.get("similarity"), options.get("chance", "exact")
    check_choice("level", level, ALPHA_LEVELS)
    if level == "ordinal":
        if similarity is not None:
            raise ValueError("similarity= replaces the level's distance; use level='nominal' with a similarity "
                             f"(got level={level!r})")
        if ann.kind == "set":
            raise ValueError("ordinal alpha needs ordered labels (numbers, or categories= in order)")
        check_rank_order(ann, f"level={level!r}")
        notes: tuple[str, ...] = ()
        if ann.kind != "numeric" and ann.categories is None:
            notes = ("ordinal alpha ranks text labels in vocabulary (sorted) order; declare the order (on the "
                     "command line: --categories A,B,C; in Python: Annotations(..., categories=[...])) or use "
                     "numeric labels",)
        # the family computes the ordinal distances itself; the name says so in the result (tables told nominal
        # and ordinal alpha apart by nothing)
        return Resolved(get_family("alpha_ordinal"), _OrdinalLevel(len(ann.vocabulary)), "exact", coef.name, notes)
    sim = level_similarity(ann, level, similarity)
    _check_as_given(coef, coef.family.name, ann, sim)
    return Resolved(coef.family, sim, chance, coef.name)


def _check_invariances(name: str, invariances: frozenset[str]) -> None:
    unknown = sorted(set(invariances) - set(INVARIANCES))
    if unknown:
        raise ValueError(f"{name}: unknown invariances {unknown}; known: {list(INVARIANCES)}")


@dataclass(frozen=True)
class Coefficient:
    """One agreement coefficient.

    Attributes
    ----------
    name : str
        The public function's name.
    family : ChanceFamily or str
        Kernels and chance model (``_families.FAMILIES``).
    summary, description : str
        First line and body of the public function's docstring.
    raters : {"any", "two"}
        ``"two"`` coefficients refuse other numbers of raters.
    weights, similarity, chance : bool
        Whether the function takes ``weights=``, ``similarity=`` and ``chance=``.
    levels : tuple of str
        Values of ``level=`` (Krippendorff's alpha); empty = no ``level=`` option.
    weighted_name : str, optional
        Name reported when non-identity ``weights=`` are given (``gwet_ac2``).
    resolve : callable, optional
        ``resolve(coef, ann, options) -> Resolved``; default: ``resolve_similarity`` and ``family``.
    examples : str
        Doctest lines of the public function (published values where they exist).
    default_rank : int, optional
        Position in the default sensitivity table (None: not in it).
    two_rater_twin : str, optional
        The two-rater coefficient this one reduces to (Fleiss -> Scott), left out of the
        default table for two raters.
    judgments : bool
        Whether the function takes ``judgments=`` / ``judge=`` (prediction-powered estimate).
    invariances : frozenset of str
        The properties of :data:`INVARIANCES` the coefficient has (each one is tested).
    rater_identity : bool
        Whether the coefficient reads which rater gave which label (Cohen, Conger, Light): it
        refuses rating slots without identity (``Annotations.from_counts``).

    Examples
    --------
    >>> rec = COEFFICIENTS["cohen_kappa"]
    >>> rec.raters, rec.family.name
    ('two', 'per_rater')
    """

    name: str
    family: ChanceFamily
    summary: str
    description: str = ""
    raters: str = "any"
    weights: bool = True
    similarity: bool = True
    chance: bool = True
    levels: tuple[str, ...] = ()
    weighted_name: str | None = None
    resolve: Callable[["Coefficient", Annotations, dict[str, Any]], Resolved] = field(default=_default_resolve,
                                                                                     repr=False)
    examples: str = ""
    default_rank: int | None = None
    two_rater_twin: str | None = None
    judgments: bool = False
    invariances: frozenset[str] = COEFFICIENT_INVARIANCES
    rater_identity: bool = False

    #: where the public function lives (made there from this record by ``coefficient_function``)
    module: ClassVar[str] = "softirr_stats.api._coefficients"
    positional: ClassVar[tuple[str, ...]] = ("ann",)

    def __post_init__(self) -> None:
        object.__setattr__(self, "family", get_family(self.family))
        check_choice("raters", self.raters, ("any", "two"))
        _check_invariances(self.name, self.invariances)

    @property
    def options(self) -> tuple[str, ...]:
        """Keyword options of the public function, in signature order."""
        out = []
        if self.levels:
            out.append("level")
        if self.weights:
            out.append("weights")
        if self.similarity:
            out.append("similarity")
        if self.chance:
            out.append("chance")
        out += ["categories", "ci"]
        if self.judgments:
            out += ["judgments", "judge"]
        return tuple(out)

    @property
    def analytic(self) -> bool:
        """True when an analytic (linearised) variance exists (``ci="analytic"``)."""
        return self.family.terms is not None

    def check_raters(self, ann: Annotations) -> None:
        if self.raters == "two" and ann.n_raters != 2:
            raise ValueError(f"{self.name} is defined for exactly two raters; got {ann.n_raters} "
                             f"({more_raters_hint(self.name)})")
        if self.rater_identity and ann.exchangeable_raters:
            raise ValueError(f"{self.name} needs to know which rater gave which label, and these annotations are "
                             "rating slots without rater identity (Annotations.from_counts); use fleiss_kappa, "
                             "krippendorff_alpha, gwet_ac1, brennan_prediger or percent_agreement")


_K12 = """    Krippendorff's reliability data (12 units, 4 coders):

    >>> nan = None
    >>> k12 = [[1,1,nan,1],[2,2,3,2],[3,3,3,3],[3,3,3,3],[2,2,2,2],[1,2,3,4],[4,4,4,4],
    ...        [1,1,2,1],[2,2,2,2],[nan,5,5,5],[nan,nan,1,1],[nan,nan,3,nan]]
    >>> import warnings; warnings.simplefilter("ignore")
"""
_ABSTRACTORS = """    irrCAC's ``cont3x3abstractors`` table (two raters, 100 items):

    >>> import numpy as np
    >>> table = np.array([[13, 0, 0], [0, 20, 7], [0, 4, 56]])
    >>> rows = [[i, j] for i, j in zip(*np.nonzero(table)) for _ in range(table[i, j])]
"""

COEFFICIENTS: dict[str, Coefficient] = {c.name: c for c in (
    Coefficient(
        "percent_agreement", "percent", "Mean (soft) agreement of within-item rating pairs, no chance correction.",
        chance=False, default_rank=5,
        examples=">>> percent_agreement([['a', 'a'], ['b', 'c'], ['c', 'c'], ['a', 'b']]).value\n    0.5"),
    Coefficient(
        "cohen_kappa", "per_rater", "Cohen's kappa for two raters (weighted, or soft with ``similarity=``).",
        "``p_o`` is the mean agreement over items both raters rated; chance uses each rater's own label "
        "distribution over the items that rater rated (Gwet/Conger's treatment of missing ratings; with "
        "complete data this is Cohen 1960/1968 exactly).", raters="two", default_rank=0, judgments=True,
        rater_identity=True,
        examples=_ABSTRACTORS + "    >>> round(cohen_kappa(rows).value, 10)\n    0.7964094022"),
    Coefficient(
        "scott_pi", "pooled", "Scott's pi for two raters: chance from the pooled label distribution.",
        raters="two", default_rank=1, judgments=True,
        examples=_ABSTRACTORS + "    >>> round(scott_pi(rows).value, 10)\n    0.7962396962"),
    Coefficient(
        "fleiss_kappa", "pooled", "Fleiss' kappa (multi-rater Scott); missing ratings as Gwet (2014) generalises it.",
        default_rank=0, two_rater_twin="scott_pi", judgments=True,
        examples="""    Fleiss (1971): 10 subjects, 14 raters, 5 categories.

    >>> counts = [[0,0,0,0,14],[0,2,6,4,2],[0,0,3,5,6],[0,3,9,2,0],[2,2,8,1,1],
    ...           [7,7,0,0,0],[3,2,6,3,0],[2,5,3,2,2],[6,5,2,1,0],[0,2,2,3,7]]
    >>> rows = [[k for k, c in enumerate(r) for _ in range(c)] for r in counts]
    >>> round(fleiss_kappa(rows).value, 3)
    0.21"""),
    Coefficient(
        "conger_kappa", "per_rater", "Conger's (1980) multi-rater Cohen kappa: chance from each rater's own distribution.",
        default_rank=1, two_rater_twin="cohen_kappa", judgments=True, rater_identity=True,
        examples=_K12 + "    >>> round(conger_kappa(k12).value, 10)\n    0.7628174413"),
    Coefficient(
        "light_kappa", "light", "Light's (1971) kappa: the mean of Cohen's kappa over all rater pairs.",
        "Each pair's kappa uses the items both raters rated; ``details['pairwise']`` holds them.", chance=False,
        rater_identity=True,
        examples=">>> round(light_kappa([['a', 'a', 'b'], ['b', 'b', 'b'], ['a', 'a', 'a'], ['b', 'a', 'b']]).value, 4)"
                 "\n    0.4"),
    Coefficient(
        "krippendorff_alpha", "alpha", "Krippendorff's alpha (nominal, ordinal, interval, ratio, or soft with "
        "``similarity=``).",
        "Soft alpha uses the distance ``1 - P(a == b)``. ``observed``/``expected`` are ``1 - D_o`` and ``1 - D_e``.",
        weights=False, levels=ALPHA_LEVELS, resolve=_resolve_alpha, default_rank=2, judgments=True,
        examples=_K12 + "    >>> round(krippendorff_alpha(k12).value, 10), round(krippendorff_alpha(k12, "
                        "level='interval').value, 10)\n    (0.7434210526, 0.8491071429)"),
    Coefficient(
        "gwet_ac1", "ac1", "Gwet's AC1 (AC2 with ``weights=``); q is the declared number of categories.",
        chance=False, weighted_name="gwet_ac2", default_rank=3, judgments=True,
        examples=_K12 + "    >>> round(gwet_ac1(k12).value, 10)\n    0.7754440681"),
    Coefficient(
        "brennan_prediger", "bp", "Brennan-Prediger (1981) coefficient (PABAK for two categories): chance "
        "``T_w / q^2``.", chance=False, default_rank=4, judgments=True,
        examples=_K12 + "    >>> round(brennan_prediger(k12).value, 10)\n    0.7727272727"),
)}


@dataclass(frozen=True)
class StatisticRecord:
    """A public statistic that is not a chance-corrected coefficient of the engine.

    Its public function is written by hand in :attr:`module` (its own options, its own result
    type); the record says what the registry needs to know of it: its signature, raters,
    documentation line and the invariances it claims.

    Attributes
    ----------
    name : str
        The public function's name.
    summary : str
        The first line of its docstring.
    positional : tuple of str
        Its positional (data) parameters.
    options : tuple of str
        Its keyword-only options, in signature order.
    raters : str
        What it needs of the raters (shown in the docs table).
    chance : str
        Its chance baseline, in words (shown in the docs table).
    similarity : bool
        Whether it takes ``similarity=``.
    invariances : frozenset of str
        The properties of :data:`INVARIANCES` it has (each one is tested).
    module : str
        Where the public function is defined.

    Examples
    --------
    >>> STATISTICS["cross_kappa"].positional
    ('ann_x', 'ann_y')
    """

    name: str
    summary: str
    positional: tuple[str, ...]
    options: tuple[str, ...]
    raters: str
    chance: str
    similarity: bool
    invariances: frozenset[str]
    module: str = "softirr_stats.api._statistics"

    def __post_init__(self) -> None:
        _check_invariances(self.name, self.invariances)


#: The public statistics beside the coefficients (functions in ``softirr_stats.api._statistics``).
STATISTICS: dict[str, StatisticRecord] = {s.name: s for s in (
    StatisticRecord(
        "multilabel_agreement", "Multi-label (Hamming) agreement, chance-corrected per label and decomposed "
        "label-wise.", ("ann",), ("baseline", "labels", "ci"), ">= 2 (set-valued labels)",
        "per label: pooled, AC1 or PABAK", False,
        frozenset({"item_order", "rater_order", "relabelling"})),
    StatisticRecord(
        "cross_kappa", "Cross-replication reliability ``kappa_x`` (Wong, Paritosh & Aroyo 2021) and its "
        "normalised form.", ("ann_x", "ann_y"), ("similarity", "level", "item_weights", "ci"),
        "two replications", "cross-replication pairs across items", True,
        frozenset({"item_order", "rater_order", "relabelling", "replication_order"})),
    StatisticRecord(
        "distance_agreement", "Braylan, Alonso & Lease (2022) agreement from within- vs cross-item distance "
        "distributions.", ("ann",), ("similarity", "method", "threshold", "kde", "kde_lower", "expected_pairs",
                                     "seed", "ci"), ">= 2", "cross-item distance distribution", True,
        frozenset({"item_order", "rater_order", "relabelling", "unit_weights", "vmap_equals_loop",
                   "multinomial_equals_resampling"})),
    # spans, not item x rater labels: the invariance tests (categorical tables) do not apply; annotator
    # order and renaming are tested in tests/agreement/test_span_agreement.py
    StatisticRecord(
        "span_agreement", "Pairwise F1 between annotators of spans (Hripcsak & Rothschild 2005), with "
        "document-bootstrap intervals.", ("ann_or_path",),
        ("match", "by", "average", "similarity", "format", "unmatched", "ci"), ">= 2 annotators",
        "none (F1 needs no chance term)", True, frozenset()),
    # numeric scores, not label tables: invariances are tested in tests/peers/test_scores.py
    StatisticRecord(
        "icc", "Intraclass correlation of numeric scores: the six Shrout & Fleiss (1979) / McGraw & Wong (1996) "
        "forms.", ("ann",), ("form", "ci"), ">= 2 (numeric scores)", "none (ANOVA variance components)", False,
        frozenset(), module="softirr_stats.api._score_statistics"),
    StatisticRecord(
        "lin_ccc", "Lin's (1989) concordance correlation coefficient of two raters' numeric scores.", ("ann",),
        ("null", "alternative", "ci"), "2 (numeric scores)", "none (deviation from the 45-degree line)", False, frozenset(),
        module="softirr_stats.api._score_statistics"),
    StatisticRecord(
        "kendall_w", "Kendall's coefficient of concordance W of raters ranking items, with the Friedman test.",
        ("ann",), ("correct", "ci"), ">= 2 (scores or ranks)", "none (rank concordance)", False, frozenset(),
        module="softirr_stats.api._score_statistics"),
)}


def statistic_records() -> "dict[str, Coefficient | StatisticRecord]":
    """Every public statistic's record: the coefficients, then the other statistics.

    Returns
    -------
    dict
        Name -> :class:`Coefficient` or :class:`StatisticRecord` (coefficients added with
        :func:`register` included).

    Examples
    --------
    >>> recs = statistic_records()
    >>> len(recs), recs["cohen_kappa"].module, recs["cross_kappa"].module
    (16, 'softirr_stats.api._coefficients', 'softirr_stats.api._statistics')
    """
    return {**COEFFICIENTS, **STATISTICS}


def public_exports() -> dict[str, tuple[str, ...]]:
    """Module -> the public statistic names it provides (``softirr_stats._EXPORTS`` must agree).

    Examples
    --------
    >>> public_exports()["softirr_stats.api._statistics"]
    ('cross_kappa', 'distance_agreement', 'multilabel_agreement', 'span_agreement')
    """
    out: dict[str, list[str]] = {}
    for rec in statistic_records().values():
        out.setdefault(rec.module, []).append(rec.name)
    return {module: tuple(sorted(names)) for module, names in out.items()}


#: the coefficients for any number of raters a two-rater one's refusal names (its own generalisation first)
_MANY_RATERS = ("fleiss_kappa", "conger_kappa", "light_kappa", "krippendorff_alpha")


def more_raters_hint(name: str) -> str:
    """What to use instead of the two-rater coefficient ``name`` on more raters: the coefficient it is the two-rater
    twin of first (Cohen -> Conger, Scott -> Fleiss), then the other multi-rater kappas and alpha. Said by the
    coefficient's refusal and by the sensitivity table's skipped row alike.

    Examples
    --------
    >>> more_raters_hint("cohen_kappa")
    'use conger_kappa, fleiss_kappa, light_kappa or krippendorff_alpha'
    """
    twins = [c.name for c in COEFFICIENTS.values() if c.two_rater_twin == name]
    names = [*twins, *(n for n in _MANY_RATERS if n not in twins)]
    return f"use {', '.join(names[:-1])} or {names[-1]}"


def get_coefficient(name: "str | Coefficient") -> Coefficient:
    """The record of a coefficient by name (or the record itself).

    Parameters
    ----------
    name : str or Coefficient
        A name of ``COEFFICIENTS`` or a record (returned as is).

    Returns
    -------
    Coefficient

    Examples
    --------
    >>> get_coefficient("fleiss_kappa").family.name
    'pooled'
    """
    if isinstance(name, Coefficient):
        return name
    try:
        return COEFFICIENTS[name]
    except (KeyError, TypeError):
        raise ValueError(f"coefficient must be one of {sorted(COEFFICIENTS)}; got {name!r}"
                         f"{did_you_mean(name, COEFFICIENTS)}") from None


@contextmanager
def register(coef: Coefficient) -> Iterator[Coefficient]:
    """Add ``coef`` to the registry for the duration of a ``with`` block (tests, extensions).

    Parameters
    ----------
    coef : Coefficient
        The record to add; its name must be new.

    Yields
    ------
    Coefficient

    Examples
    --------
    >>> toy = Coefficient("toy_agreement", "percent", "Percent agreement under another name.", chance=False)
    >>> with register(toy):
    ...     "toy_agreement" in COEFFICIENTS
    True
    >>> "toy_agreement" in COEFFICIENTS
    False
    """
    if coef.name in COEFFICIENTS:
        raise ValueError(f"a coefficient named {coef.name!r} is already registered")
    COEFFICIENTS[coef.name] = coef
    try:
        yield coef
    finally:
        COEFFICIENTS.pop(coef.name, None)


def default_coefficients(n_raters: int) -> tuple[str, ...]:
    """The coefficients of a default sensitivity table for ``n_raters`` raters.

    Parameters
    ----------
    n_raters : int
        Two raters get the two-rater coefficients; more get the multi-rater ones.

    Returns
    -------
    tuple of str

    Examples
    --------
    >>> default_coefficients(2)
    ('cohen_kappa', 'scott_pi', 'krippendorff_alpha', 'gwet_ac1', 'brennan_prediger', 'percent_agreement')
    >>> default_coefficients(3)[:2]
    ('fleiss_kappa', 'conger_kappa')
    """
    keep = [c for c in COEFFICIENTS.values() if c.default_rank is not None
            and (c.two_rater_twin is None if n_raters == 2 else c.raters != "two")]
    return tuple(c.name for c in sorted(keep, key=lambda c: c.default_rank))


def coefficient_table() -> list[dict[str, Any]]:
    """One row per registered coefficient (the docs table is made from it: :func:`coefficient_table_markdown`).

    Examples
    --------
    >>> [r["coefficient"] for r in coefficient_table()][:2]
    ['percent_agreement', 'cohen_kappa']
    """
    return [{"coefficient": c.name, "raters": "2" if c.raters == "two" else ">= 2",
             "chance": c.family.description, "weights": c.weights, "similarity": c.similarity,
             "chance_options": c.chance, "analytic_se": c.analytic, "summary": c.summary}
            for c in COEFFICIENTS.values()]


def _mark(flag: bool) -> str:
    return "yes" if flag else ""


def coefficient_table_markdown() -> str:
    """The docs' table of every public statistic (``docs/coefficients.md``), made from the registry.

    One row per coefficient (from :func:`coefficient_table`), then one per other statistic of
    :data:`STATISTICS`. A test compares the page with this text.

    Examples
    --------
    >>> print(coefficient_table_markdown().splitlines()[0])
    | function | raters | chance | `weights=` | `similarity=` | `chance=` | analytic SE | summary |
    """
    lines = ["| function | raters | chance | `weights=` | `similarity=` | `chance=` | analytic SE | summary |",
             "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for r in coefficient_table():
        lines.append(f"| `{r['coefficient']}` | {r['raters']} | {r['chance']} | {_mark(r['weights'])} | "
                     f"{_mark(r['similarity'])} | {_mark(r['chance_options'])} | {_mark(r['analytic_se'])} | "
                     f"{r['summary']} |")
    for s in STATISTICS.values():
        lines.append(f"| `{s.name}` | {s.raters} | {s.chance} |  | {_mark(s.similarity)} |  |  | {s.summary} |")
    return "\n".join(lines) + "\n"
