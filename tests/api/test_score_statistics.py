"""icc on degenerate layouts: numbers as pingouin gives them, the reason a form is undefined, nothing dropped
unsaid. Reference values from ``pingouin.intraclass_corr`` (0.5.x, unrounded) on the same tables."""

import warnings

import numpy as np
import pytest

import softirr_stats as sis
from softirr_stats.cli import main

#: every item has the same scores 1, 2, 3: no variance between items, none left over; only the raters differ
SAME_ITEMS = [[1, 2, 3], [1, 2, 3], [1, 2, 3]]


def _one_way_icc1(x: np.ndarray) -> float:
    """ICC(1) by the one-way ANOVA written out (Shrout & Fleiss 1979, Table 1)."""
    n, k = x.shape
    msb = k * ((x.mean(axis=1) - x.mean()) ** 2).sum() / (n - 1)
    msw = ((x - x.mean(axis=1, keepdims=True)) ** 2).sum() / (n * (k - 1))
    return (msb - msw) / (msb + (k - 1) * msw)


def test_icc2_of_items_that_do_not_differ_is_zero_not_a_crash():
    """MSR = MSE = 0 < MSC: ICC(A,1) = 0 / (k MSC / n) = 0 (pingouin: 0.0, F and interval nan); raised
    ZeroDivisionError in Satterthwaite's df before."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        r = sis.icc(SAME_ITEMS, form="ICC2", ci="analytic")
    assert r.value == pytest.approx(0.0, abs=1e-12)
    assert np.isnan(r.details["F"]) and np.isnan(r.p_value) and np.isnan(r.ci_low) and np.isnan(r.ci_high)
    assert np.isnan(r.details["df2_satterthwaite"]) and np.isnan(r.details["p_value_satterthwaite"])
    assert any("analytic interval is undefined here" in str(w.message) for w in caught)
    assert sis.icc(SAME_ITEMS, form="ICC1").value == pytest.approx(-0.5, abs=1e-12)  # pingouin: -0.5


def test_the_command_line_reports_it_instead_of_an_internal_error(tmp_path, capsys):
    path = tmp_path / "same.csv"
    path.write_text("item,r1,r2,r3\n1,1,2,3\n2,1,2,3\n3,1,2,3\n")
    with pytest.raises(SystemExit) as ex:
        main(["agree", str(path), "--reader-option", "wide=true", "-c", "icc2", "--analytic", "-f", "csv"])
    out, err = capsys.readouterr()
    assert ex.value.code == 0, err
    assert "internal error" not in err and "\nexact,icc2,none,0.0," in out
    # the interval's note is said once (a warning and a note of one text), not twice
    assert err.count("analytic interval is undefined here") == 1


@pytest.mark.parametrize("form", ["ICC3", "ICC3k", "ICC1k"])
def test_an_undefined_form_says_why_and_not_that_every_score_is_the_same(form):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        r = sis.icc(SAME_ITEMS, form=form, ci="analytic")
    assert np.isnan(r.value) and np.isnan(r.ci_low) and np.isnan(r.ci_high)  # ICC1k's interval was [-inf, -inf]
    said = " ".join(str(w.message) for w in caught)
    assert "no variance between items" in said and "every score is the same" not in said
    assert r.warnings and "no variance between items" in r.warnings[0]


def test_every_score_the_same_is_still_said_so():
    with pytest.warns(sis.DegenerateWarning, match="every score is the same"):
        assert np.isnan(sis.icc([[3, 3], [3, 3], [3, 3]], form="ICC2").value)


def test_the_one_way_forms_say_which_items_had_no_rating():
    """Each item scored by 2 of 3 raters, one item by none: ICC1 on the 4 scored items (pingouin on the slots:
    0.8902439024390244), and the unscored item is counted and said, where it went silently before."""
    ann = sis.Annotations.from_wide([[1, 2, None], [None, 3, 4], [None, None, None], [5, None, 6], [2, 2, None]])
    with pytest.warns(sis.DegenerateWarning, match="1 of 5 items have no rating and were left out"):
        r = sis.icc(ann, form="ICC1")
    slots = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [2.0, 2.0]])
    assert r.value == pytest.approx(_one_way_icc1(slots), abs=1e-12)
    assert r.value == pytest.approx(0.8902439024390244, abs=1e-12)
    assert r.n_items == 4 and r.details["n_dropped"] == 1 and "no rating" in r.warnings[0]


@pytest.mark.parametrize("form", ["ICC1", "ICC2"])
def test_the_refused_rater_design_reads_as_one_sentence(form):
    with pytest.raises(ValueError, match="Bootstrap design 'raters'") as err:
        sis.icc([[1, 2], [3, 4], [5, 7]], form=form, ci=sis.Bootstrap(n=10, design="raters"))
    assert ".;" not in str(err.value) and "resampled; " in str(err.value)


#: pingouin 0.7.0 ``intraclass_corr`` on Shrout & Fleiss (1979) Table 2, its rounding switched off:
#: form -> (ICC, CI95 low, CI95 high)
PINGOUIN_SF = {
    "ICC1": (0.1657417684054755, -0.13293232487475096, 0.722560062328121),
    "ICC2": (0.28976377952755916, 0.018786513374712058, 0.7610843696489527),
    "ICC3": (0.7148407148407154, 0.34246476503392614, 0.9458582599553597),
    "ICC1k": (0.44279713367926876, -0.8844421552381196, 0.9124154203407755),
    "ICC2k": (0.6200505475989893, 0.07113681530250353, 0.9272320401677219),
    "ICC3k": (0.9093155423770697, 0.6756747138163055, 0.9858916781690623),
}


@pytest.mark.parametrize("form", list(PINGOUIN_SF))
def test_values_and_exact_f_intervals_equal_pingouin_unrounded(form):
    """Shrout & Fleiss print .17, .29, .71, .44, .62, .91; pingouin prints its intervals to 2 decimals, so the
    peer tests held them to that: here the unrounded ones, to 1e-12."""
    sf = [[9, 2, 5, 8], [6, 1, 3, 2], [8, 4, 6, 8], [7, 1, 2, 6], [10, 5, 6, 9], [6, 2, 4, 7]]
    r = sis.icc(sf, form=form, ci="analytic")
    assert (r.value, r.ci_low, r.ci_high) == pytest.approx(PINGOUIN_SF[form], abs=1e-12)
    assert round(r.value, 2) == {"ICC1": 0.17, "ICC2": 0.29, "ICC3": 0.71, "ICC1k": 0.44, "ICC2k": 0.62,
                                 "ICC3k": 0.91}[form]
