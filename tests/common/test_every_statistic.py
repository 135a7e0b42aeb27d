"""Every public statistic of the registry, through its public function (scikit-learn's ``test_common.py``).

``CALLS`` holds one small input per statistic; ``test_every_statistic_has_a_call`` fails when a
record of :func:`statistic_records` (a coefficient added with one record included) has none, so a
new statistic is held to every check below: a finite point value, the same value with
``similarity="exact"`` as without (where it takes ``similarity=``), every bootstrap design of the
design table either giving an interval around the value or refusing with a ValueError that names
the design and says why (``REFUSALS``: the refusals expected, with their reason), and results that
format (text, HTML, Markdown, LaTeX, dict) with the value in them.

The invariances each record claims are tested in ``tests/common/test_invariances.py``.
"""

import math
import pathlib
import warnings
from typing import Any

import numpy as np
import pytest

import softirr_stats as sis
from softirr_stats.agreement import COEFFICIENTS
from softirr_stats.agreement._registry import statistic_records
from softirr_stats.uncertainty._bootstrap import BOOTSTRAP_DESIGNS

pytestmark = pytest.mark.filterwarnings("ignore::softirr_stats.UnpairableItemsWarning",
                                        "ignore::softirr_stats.DegenerateWarning")

FIXTURES = pathlib.Path(__file__).resolve().parents[1] / "fixtures"
BRATIAA = FIXTURES / "bratiaa_example"  # 7 documents, 4 annotators (see its PROVENANCE.md)

LABELS = ["fever", "cough", "rash"]
# 12 items x 3 raters; rater 3 departs on every third item, rater 2 on item 1
CELLS = [[LABELS[(i + (j == 2 and i % 3 == 0)) % 3] for j in range(3)] for i in range(12)]
CELLS[1][1] = "rash"
SCORES = [[float(i + 0.3 * j + (i % 2) + (j == 1 and i % 4 == 0)) for j in range(3)] for i in range(12)]
SETS = [[frozenset({v, "fatigue"}) if v == "fever" else frozenset({v}) for v in row] for row in CELLS]


def _ann(cells: Any) -> sis.Annotations:
    return sis.Annotations.from_wide(cells)


def _coefficient_call(name: str) -> tuple[Any, tuple[Any, ...], int]:
    cells = [row[:2] for row in CELLS] if COEFFICIENTS[name].raters == "two" else CELLS
    return getattr(sis, name), (_ann(cells),), len(cells)


#: statistic -> () -> (public function, positional arguments, number of units a cluster covers)
CALLS = {
    **{name: (lambda name=name: _coefficient_call(name)) for name in COEFFICIENTS},
    "multilabel_agreement": lambda: (sis.multilabel_agreement, (_ann(SETS),), len(SETS)),
    "cross_kappa": lambda: (sis.cross_kappa, (_ann([r[:2] for r in CELLS]), _ann([r[1:] for r in CELLS])), len(CELLS)),
    "distance_agreement": lambda: (sis.distance_agreement, (_ann(CELLS),), len(CELLS)),
    "span_agreement": lambda: (sis.span_agreement, (BRATIAA,), 7),  # the units are its 7 documents
    "icc": lambda: (sis.icc, (_ann(SCORES),), len(SCORES)),
    "lin_ccc": lambda: (sis.lin_ccc, (_ann([r[:2] for r in SCORES]),), len(SCORES)),
    "kendall_w": lambda: (sis.kendall_w, (_ann(SCORES),), len(SCORES)),
}
NAMES = sorted(statistic_records())

#: (statistic, design) -> what the refusal says. Every design is given every statistic; a pair
#: not listed here must give an interval. "judged" resamples the judged pairs of a
#: prediction-powered estimate, which none of these calls makes (tests/agreement/test_ppi.py runs it).
TWO_RATERS = "needs at least 3"
REFUSALS = {
    **{(n, "judged"): "needs judgments=" for n in NAMES},
    **{(n, d): TWO_RATERS for n in ("cohen_kappa", "scott_pi") for d in ("raters", "items+raters")},
    **{("cross_kappa", d): "different raters" for d in ("raters", "items+raters")},
    **{("span_agreement", d): "annotator pairs are fixed" for d in ("raters", "items+raters")},
    **{("lin_ccc", d): "two given raters" for d in ("raters", "items+raters")},
    # a rater drawn twice agrees perfectly with its copy in the ANOVA / rank sums: replicates pulled up
    **{(n, d): "rater drawn twice" for n in ("icc", "kendall_w") for d in ("raters", "items+raters")},
}


def _cluster(n_units: int) -> np.ndarray:
    """Clusters of unequal composition (so resampling them moves the value): 0 0 0 .. 1 1 2 2 3 3 .."""
    half = n_units // 2
    return np.concatenate([np.zeros(half, int), 1 + np.arange(n_units - half) // 2])


def _config(design: str, n_units: int) -> sis.Bootstrap:
    extra = {"cluster": _cluster(n_units)} if "cluster" in BOOTSTRAP_DESIGNS[design].needs else {}
    return sis.Bootstrap(n=40, seed=0, design=design, **extra)


def test_every_statistic_has_a_call():
    """A statistic added to the registry without an input here fails (scikit-learn's classification)."""
    assert set(CALLS) == set(statistic_records())
    assert {n for n, _ in REFUSALS} <= set(NAMES) and {d for _, d in REFUSALS} <= set(BOOTSTRAP_DESIGNS)


@pytest.mark.parametrize("name", NAMES)
def test_point_value_is_finite(name):
    fn, args, _ = CALLS[name]()
    res = fn(*args)
    assert math.isfinite(res.value) and -1.0 - 1e-12 <= res.value <= 1.0 + 1e-12
    assert isinstance(res.coefficient, str) and res.coefficient  # the name it reports (a method's, for some)


@pytest.mark.parametrize("name", [n for n in NAMES if statistic_records()[n].similarity])
def test_exact_similarity_equals_the_hard_statistic(name):
    """``similarity="exact"`` (the soft statistic with the 0/1 kernel) is the hard statistic."""
    fn, args, _ = CALLS[name]()
    assert fn(*args, similarity="exact").value == pytest.approx(fn(*args).value, abs=1e-12)


@pytest.mark.parametrize("design", list(BOOTSTRAP_DESIGNS))
@pytest.mark.parametrize("name", NAMES)
def test_every_design_gives_an_interval_or_says_why_not(name, design):
    fn, args, n_units = CALLS[name]()
    cfg = _config(design, n_units)
    refusal = REFUSALS.get((name, design))
    if refusal is not None:
        with pytest.raises(ValueError) as err:
            fn(*args, ci=cfg)
        assert design in str(err.value) and refusal in str(err.value)
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # few-units and degenerate-replicate notes are tested beside them
        res = fn(*args, ci=cfg)
        again = fn(*args, ci=cfg)  # replicates depend on the seed only
    assert math.isfinite(res.ci_low) and math.isfinite(res.ci_high)
    assert res.ci_low - 1e-12 <= res.value <= res.ci_high + 1e-12
    assert (again.ci_low, again.ci_high) == (res.ci_low, res.ci_high)


@pytest.mark.parametrize("name", NAMES)
def test_results_format_with_their_value(name):
    fn, args, _ = CALLS[name]()
    res = fn(*args, ci=sis.Bootstrap(n=40, seed=0))
    three, four = f"{res.value:.3f}", f"{res.value:.4f}"
    assert four in str(res) and three in repr(res)  # the sentence and the one-line repr
    assert three in res.to_markdown() and three in res.to_latex()
    assert three in res._repr_html_() or four in res._repr_html_()
    d = res.to_dict()
    assert d["value"] == res.value and d["ci_low"] == res.ci_low
