"""annotator_agreement's arguments: the soft model's options refused by the categorical models, and
check_size passed on to fit (the FitSizeError's advice works from here)."""

import warnings

import numpy as np
import pytest

import softirr_stats as sis
from softirr_stats.inference import FitSizeError, SviConfig

FAST = dict(method="svi", config=SviConfig(steps=20, num_draws=20), progress=False, predictive_check=False,
            prior_check=False)


@pytest.fixture(scope="module")
def three_labels():
    rng = np.random.default_rng(0)
    return sis.Annotations.from_wide([[rng.choice(["a", "b", "c"]) for _ in range(3)] for _ in range(40)])


@pytest.mark.parametrize("model", ["dawid_skene", "mace", "multinomial"])
@pytest.mark.parametrize(("extra", "named"), [({"n_chance": 5}, "n_chance is"),
                                              ({"groups": [["a", "b"]]}, "groups is"),
                                              ({"n_chance": 5, "groups": [["a", "b"]]}, "n_chance and groups are")])
def test_categorical_models_refuse_the_soft_models_options(three_labels, model, extra, named):
    with pytest.raises(ValueError, match=f"^{named} for the soft model .*model={model!r} fits the labels"):
        sis.annotator_agreement(three_labels, model=model, **FAST, **extra)


@pytest.fixture(scope="module")
def free_text():
    rng = np.random.default_rng(0)
    return sis.Annotations.from_wide([[f"phrase number {rng.integers(200)}" for _ in range(3)] for _ in range(60)])


def test_check_size_false_fits_what_the_size_check_refuses(free_text):
    with pytest.raises(FitSizeError, match=r"parameters; an SVI fit would take roughly .*\(check_size=False fits "
                                           r"anyway\)"):
        sis.annotator_agreement(free_text, **FAST)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = sis.annotator_agreement(free_text, **FAST, check_size=False)
    post = res.details["posterior"]
    assert post.data.n_classes == len(free_text.vocabulary) > 50
    assert abs(res.value - float(np.mean(post.implied_agreement()["kappa"]))) < 1e-12


def test_check_size_belongs_to_the_fit(free_text):
    ann = sis.Annotations.from_wide([["a", "a", "b"], ["b", "b", "b"]] * 10)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        post = sis.annotator_agreement(ann, **FAST).details["posterior"]
    with pytest.raises(TypeError, match=r"\['check_size'\] belong to the fit"):
        sis.annotator_agreement(post, check_size=False)


@pytest.mark.parametrize(("labels", "value", "why"), [
    (["same label"] * 20, "1", "chance agreement is 1 as well, so kappa is 0/0"),
    ([c * 3 for c in "abcdefghijklmnopqrst"], "0", "the scores say nothing about which pairs are equivalent"),
])
def test_soft_model_refuses_pair_scores_of_one_value(labels, value, why):
    """Every pair scoring 1 (or 0) under the similarity: nothing tells equivalent pairs apart, so the soft model is
    refused before fitting (it reported kappa 1 [1, 1], or a tight negative kappa, with NaN warnings)."""
    ann = sis.Annotations.from_wide([labels[i:i + 2] for i in range(0, 20, 2)])
    with pytest.raises(ValueError, match=rf"^every label pair scores {value} under the similarity") as ex:
        sis.annotator_agreement(ann, "levenshtein", model="soft", method="svi", progress=False)
    assert why in str(ex.value) and "kappa is undefined" in str(ex.value)
