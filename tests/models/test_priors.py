"""Default confusion priors: the same prior mean accuracy and weight for every K.

Reproduces the small-study failure of the old ``Dir(1 + 9 I)`` default (30 documents x 3
annotators x 10 classes, generator accuracy 0.82, SVI: model kappa 0.25 [0.20, 0.30]
against Fleiss' 0.57 [0.42, 0.70], rater accuracies about 0.56).
"""

import numpy as np
import pytest

import softirr_stats as sis
from softirr_stats import models
from softirr_stats.inference import SviConfig, fit
from softirr_stats.uncertainty import Bootstrap


@pytest.mark.parametrize("k", [2, 3, 5, 10, 25])
def test_default_prior_mean_accuracy_and_weight_do_not_depend_on_k(k):
    for priors in (models.DawidSkenePriors(), models.MultinomialPriors()):
        rows = priors.row_concentration(k)
        assert rows.shape == (k, k)
        np.testing.assert_allclose(np.diag(rows) / rows.sum(1), 0.75)
        np.testing.assert_allclose(rows.sum(1), 4.0)
        assert priors.prior_mean_accuracy(k) == pytest.approx(0.75)
    hp = models.HierarchicalPriors()
    logits = np.r_[0.0, np.full(k - 1, hp.offdiag_logit(k))]
    assert np.exp(logits[0]) / np.exp(logits).sum() == pytest.approx(0.75)


def test_explicit_rows_still_available():
    old = models.DawidSkenePriors(confusion_diagonal=10.0)
    assert old.prior_mean_accuracy(10) == pytest.approx(10 / 19)  # the old default
    uniform = models.DawidSkenePriors(confusion_diagonal=1.0)
    np.testing.assert_array_equal(uniform.row_concentration(4), np.ones((4, 4)))
    with pytest.raises(ValueError, match="accuracy"):
        models.DawidSkenePriors(accuracy=1.0)
    with pytest.raises(ValueError, match="concentration"):
        models.DawidSkenePriors(concentration=0.0)
    with pytest.raises(ValueError, match="accuracy"):
        models.HierarchicalPriors(accuracy=0.0)


def test_small_study_many_classes_is_not_prior_dominated():
    """30 documents x 3 annotators x 10 classes, generator accuracy 0.82, SVI."""
    sim = models.simulate_dawid_skene(30, 3, 10, accuracy=0.82, seed=0)
    fleiss = sis.fleiss_kappa(sim["codes"].tolist(), ci=Bootstrap(n=1000, level=0.9, seed=0))
    post = fit(models.dawid_skene, sim["codes"], method="svi", seed=0,
               config=SviConfig(steps=1000, num_draws=400))
    lo, hi = post.interval("kappa", level=0.9)
    assert lo <= fleiss.ci_high and fleiss.ci_low <= hi, (lo, hi, fleiss.ci_low, fleiss.ci_high)
    acc = post.rater_accuracy()["accuracy"].to_numpy()
    np.testing.assert_array_less(np.abs(acc - sim["accuracy"]), 0.15)
