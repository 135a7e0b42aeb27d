"""nltk's agreement doctests (``nltk.metrics.agreement``, ``nltk/test/metrics.doctest``), run against softirr_stats.

Source of every value: nltk's ``AnnotationTask`` docstring, which reproduces Artstein & Poesio
(2008, *Inter-coder agreement for computational linguistics*, Computational Linguistics 34(4),
the stat / ireq / chck example, shipped as ``nltk/metrics/artstein_poesio_example.txt``): observed
agreement 0.88, Scott's pi 0.79953, S (Bennett, Alpert & Goldstein 1954 = Brennan-Prediger with
the 3 categories) 0.82; the two one-item tasks with avg_Ao 1.0 (coder order does not matter);
and ``metrics.doctest``'s set distances (Jaccard 0.6, MASI 0.8666666666666667 as distances).
Only the figures are used.
"""

import warnings

import pandas as pd
import pytest

import softirr_stats as sis

# Artstein & Poesio (2008): item ranges per (coder a, coder b) label pair, as in the nltk data file
_BLOCKS = [(range(1, 47), "stat", "stat"), (range(47, 53), "ireq", "stat"), (range(53, 85), "ireq", "ireq"),
           (range(85, 91), "ireq", "chck"), (range(91, 101), "chck", "chck")]


def _artstein_poesio() -> sis.Annotations:
    rows = [{"item": str(i), "rater": c, "label": lab}
            for items, la, lb in _BLOCKS for i in items for c, lab in (("a", la), ("b", lb))]
    return sis.Annotations.from_long(pd.DataFrame(rows))


def test_artstein_poesio_observed_pi_and_s():
    ann = _artstein_poesio()
    assert ann.n_items == 100
    assert sis.percent_agreement(ann).value == pytest.approx(0.88, abs=1e-12)   # t.avg_Ao()
    assert round(sis.scott_pi(ann).value, 5) == 0.79953                         # round(t.pi(), 5)
    assert round(sis.brennan_prediger(ann).value, 2) == 0.82                    # round(t.S(), 2)


@pytest.mark.parametrize("order", [("b", "a"), ("a", "b")])
def test_one_item_avg_ao_is_one_whatever_the_coder_order(order):
    # t2 = AnnotationTask([('b','1','stat'), ('a','1','stat')]).avg_Ao() == 1.0, and t3 likewise
    df = pd.DataFrame({"item": ["1", "1"], "rater": list(order), "label": ["stat", "stat"]})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert sis.percent_agreement(sis.Annotations.from_long(df)).value == 1.0


def test_set_distances():
    # metrics.doctest: s1 = {1, 2, 3, 4}, s2 = {3, 4, 5}; our set labels are sets of strings
    s1, s2 = frozenset("1234"), frozenset("345")
    assert 1.0 - sis.equivalence.Jaccard()([s1], [s2])[0] == pytest.approx(0.6, abs=1e-15)
    assert 1.0 - sis.equivalence.Masi()([s1], [s2])[0] == pytest.approx(0.8666666666666667, abs=1e-15)
