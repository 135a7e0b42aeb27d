"""The alternative and the analytic test of H0: coefficient = null, shared by kappa_test and `softirr agree --test`."""

import math

import pytest

import softirr_stats as sis
from softirr_stats.agreement import AgreementResult
from softirr_stats.uncertainty import ALTERNATIVES, analytic_test, normal_p

# Phi(-2) and Phi(-1.5) (the standard normal tail, from 30-digit arithmetic), written out rather than computed
TAIL_2 = 0.022750131948179208
TAIL_15 = 0.066807201268858066


def test_wald_test_against_a_value_by_hand():
    """value 0.5, se 0.1, H0: 0.3: z = 2; greater P(Z >= 2), less P(Z <= 2), two-sided 2 P(Z >= 2)."""
    r = AgreementResult("fleiss_kappa", 0.5, 0.6, 0.2, 50, 3, se=0.1)
    got = {a: analytic_test(r, null=0.3, alternative=a) for a in ALTERNATIVES}
    assert got["greater"].z == pytest.approx(2.0, abs=1e-12)
    assert got["greater"].p_value == pytest.approx(TAIL_2, abs=1e-12)
    assert got["less"].p_value == pytest.approx(1.0 - TAIL_2, abs=1e-12)
    assert got["two-sided"].p_value == pytest.approx(2.0 * TAIL_2, abs=1e-12)
    for a, t in got.items():
        assert t.details["null"] == 0.3 and t.details["alternative"] == a
        assert t.details["p_value_greater"] == got["greater"].p_value
        assert t.details["p_value_less"] == got["less"].p_value
        assert t.details["test_hypothesis"] == "coefficient = 0.3"
    assert got["greater"].details["test"] == ("Wald z test of H0: fleiss_kappa = 0.3 with the large-sample SE, normal; "
                                              "one-sided, H1: coefficient > 0.3")


def test_the_h0_zero_test_is_made_one_sided_from_its_symmetric_two_sided_p():
    """null = 0 keeps the analytic interval's own test (here z = -1.5 with a two-sided p of 2 Phi(-1.5)): one
    side is half of it, the other one minus half."""
    r = AgreementResult("fleiss_kappa", -0.15, 0.4, 0.45, 50, 3, se=0.2).with_test(
        -1.5, 2.0 * TAIL_15, "analytic test of H0: coefficient = 0 (two-sided); H0 variance, normal")
    less = analytic_test(r, alternative="less")
    greater = analytic_test(r, alternative="greater")
    assert less.z == -1.5 and less.p_value == pytest.approx(TAIL_15, abs=1e-12)
    assert greater.p_value == pytest.approx(1.0 - TAIL_15, abs=1e-12)
    assert analytic_test(r).p_value == r.p_value  # two-sided: unchanged
    assert less.details["test"] == ("analytic test of H0: coefficient = 0; H0 variance, normal; one-sided, "
                                    "H1: coefficient < 0")
    assert analytic_test(r).details["test"] == r.details["test"]


def test_kappa_test_names_the_side_and_its_one_sided_p_values_are_its_own():
    """kappa_test(alternative="greater") was named "(two-sided)", and with null != 0 kept the p_value_greater of
    H0: 0 in details."""
    ann = sis.Annotations.from_table([[13, 0, 0], [0, 20, 7], [0, 4, 56]])
    r = sis.kappa_test(ann, alternative="greater")
    assert "two-sided" not in r.details["test"] and r.details["test"].endswith("one-sided, H1: coefficient > 0")
    shifted = sis.kappa_test(ann, null=0.6, alternative="greater")
    assert shifted.details["p_value_greater"] == shifted.p_value
    assert shifted.p_value == pytest.approx(normal_p((shifted.value - 0.6) / shifted.se, "greater"), abs=1e-15)


def test_normal_p_by_hand_and_nan():
    assert normal_p(2.0, "greater") == pytest.approx(TAIL_2, abs=1e-15)
    assert normal_p(-1.5, "two-sided") == pytest.approx(2.0 * TAIL_15, abs=1e-15)
    assert math.isnan(normal_p(math.nan, "less"))


def test_bad_null_and_alternative_are_named():
    r = AgreementResult("fleiss_kappa", 0.5, 0.6, 0.2, 50, 3, se=0.1)
    with pytest.raises(ValueError, match=r"null must be a number in \[-1, 1\); got 1.5"):
        analytic_test(r, null=1.5)
    with pytest.raises(ValueError, match="alternative must be one of"):
        analytic_test(r, alternative="bigger")
    with pytest.raises(ValueError, match="alternative must be one of"):
        normal_p(1.0, "both")
