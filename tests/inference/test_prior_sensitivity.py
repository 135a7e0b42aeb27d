"""inference.prior_sensitivity: the same fit under several priors, one row each."""

import numpy as np
import pytest

from softirr_stats import models
from softirr_stats.inference import SviConfig, fit, prior_sensitivity

CFG = SviConfig(steps=300)
PRIORS = {"default": models.SoftAgreementPriors(),
          "flat pieces": models.SoftAgreementPriors(monotone_concentration=20.0)}


@pytest.fixture(scope="module")
def data():
    return models.simulate_soft_scores(40, 3, seed=1)["data"]


@pytest.fixture(scope="module")
def table(data):
    return prior_sensitivity("soft", data, PRIORS, method="svi", config=CFG, level=0.9,
                             progress=False)


def test_rows_are_the_fits_under_each_prior(data, table):
    assert table.index.tolist() == ["default", "flat pieces"]
    assert table.index.name == "priors" and table.attrs["site"] == "kappa"
    for label, prior in PRIORS.items():
        # the same seed, settings and data: the row is that prior's own fit
        post = fit("soft", data, method="svi", config=CFG, priors=prior, progress=False)
        k = np.asarray(post.samples["kappa"], np.float64)
        row = table.loc[label]
        assert row["mean"] == pytest.approx(k.mean(), abs=1e-12)
        assert row["sd"] == pytest.approx(k.std(ddof=1), abs=1e-12)
        assert (row["lower"], row["upper"]) == pytest.approx(tuple(np.quantile(k, [0.05, 0.95])))
        assert table.attrs["posteriors"][label].priors is prior
    ref = table.loc["default"]
    assert ref["shift"] == 0.0 and ref["shift_in_sd"] == 0.0
    alt = table.loc["flat pieces"]
    assert alt["shift"] == pytest.approx(alt["mean"] - ref["mean"], abs=1e-15)
    assert alt["shift_in_sd"] == pytest.approx(alt["shift"] / ref["sd"])
    assert alt["shift"] != 0.0  # the prior on the emission's pieces moves kappa


def test_a_sequence_is_labelled_by_repr(data):
    seq = list(PRIORS.values())
    t = prior_sensitivity("soft", data, seq, method="svi", config=CFG, site="pi_chance",
                          progress=False)
    assert t.index.tolist() == [repr(p) for p in seq] and t.attrs["level"] == 0.95
    assert (t["lower"] < t["mean"]).all() and (t["mean"] < t["upper"]).all()


def test_bad_arguments(data):
    with pytest.raises(TypeError, match="priors must be a sequence or a mapping"):
        prior_sensitivity("soft", data, models.SoftAgreementPriors())
    with pytest.raises(ValueError, match="at least two prior configurations"):
        prior_sensitivity("soft", data, [models.SoftAgreementPriors()])
    with pytest.raises(ValueError, match=r"level must be in \(0, 1\)"):
        prior_sensitivity("soft", data, list(PRIORS.values()), level=90)
    with pytest.raises(ValueError, match="site must be a scalar site or derived quantity of the "
                                         "model, one of .*'kappa'"):
        prior_sensitivity("soft", data, PRIORS, method="svi", config=CFG, site="rater_z",
                          progress=False)


def test_categorical_models_compare_their_implied_kappa():
    codes = models.simulate_dawid_skene(60, 3, 3, accuracy=0.7, seed=0)["codes"]
    priors = [models.DawidSkenePriors(), models.DawidSkenePriors(concentration=1.0)]
    t = prior_sensitivity("dawid_skene", codes, priors, method="svi", config=SviConfig(steps=200),
                          progress=False)
    for (label, row), post in zip(t.iterrows(), t.attrs["posteriors"].values(), strict=True):
        k = post.draws("kappa")  # the model-implied Fleiss-type kappa
        assert row["mean"] == pytest.approx(float(np.mean(k)), abs=1e-12), label
    with pytest.raises(ValueError, match="one of .*'kappa_cohen'.*got 'pi'"):
        prior_sensitivity("dawid_skene", codes, priors, method="svi", config=SviConfig(steps=200),
                          site="pi", progress=False)
