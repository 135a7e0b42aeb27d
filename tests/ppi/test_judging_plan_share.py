"""judging_plan's uniform_share: the active design's mix with the uniform one; refused with strategy="uniform"."""

import inspect

import numpy as np
import pandas as pd
import pytest

import softirr_stats as sis

ANN = [["fever", "pyrexia"], ["cough", "cough"], ["rash", "fever"], ["cough", "tussis"], ["rash", "hives"],
       ["fever", "fever"], ["hives", "tussis"]]


def _plan(**kw):
    return sis.judging_plan(ANN, similarity="indel", n=4000, seed=1, **kw)


@pytest.mark.parametrize("share", [0.5, 0.2, 1.0])
def test_a_share_with_the_uniform_strategy_is_refused_naming_both(share):
    # it was silently ignored: the plan was the uniform one whatever the share
    with pytest.raises(ValueError, match=r'uniform_share=.* strategy="active".* strategy="uniform"'):
        _plan(strategy="uniform", uniform_share=share)
    with pytest.raises(ValueError, match=r'uniform_share=0\.5 .*strategy="uniform"'):
        sis.judging_plan(ANN, similarity="indel", uniform_share=0.5)  # the default strategy is uniform


def test_the_default_share_of_the_active_design_is_0_2():
    assert inspect.signature(sis.judging_plan).parameters["uniform_share"].default is None
    pd.testing.assert_frame_equal(_plan(strategy="active").pairs, _plan(strategy="active", uniform_share=0.2).pairs)
    _plan(strategy="uniform", uniform_share=None)  # None: not given


def test_the_active_q_is_the_stated_mix_of_the_active_and_uniform_designs():
    # q(s) = (1 - s) A + s U: q(1) is the uniform design's q, and q(0.6) - U = (0.4 / 0.8) (q(0.2) - U)
    uniform = _plan(strategy="uniform").pairs.set_index(["label_a", "label_b"])["q"]
    q = {s: _plan(strategy="active", uniform_share=s).pairs.set_index(["label_a", "label_b"])["q"]
         for s in (0.2, 0.6, 1.0)}
    assert all(v.index.sort_values().equals(uniform.index.sort_values()) for v in q.values())  # every pair drawn
    np.testing.assert_allclose(q[1.0].reindex(uniform.index), uniform, rtol=0, atol=1e-12)
    expect = uniform + 0.5 * (q[0.2].reindex(uniform.index) - uniform)
    np.testing.assert_allclose(q[0.6].reindex(uniform.index), expect, rtol=0, atol=1e-12)
    assert not np.allclose(q[0.2].reindex(uniform.index), uniform)  # the shares do differ


@pytest.mark.parametrize("share", [0, 1.5, float("nan"), "0.5", True])
def test_a_share_outside_0_1_is_refused(share):
    with pytest.raises(ValueError, match=r"uniform_share must be a number in \(0, 1\]"):
        _plan(strategy="active", uniform_share=share)
