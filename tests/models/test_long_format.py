"""``models.encode_annotations``: what the categorical models are fitted on."""

import numpy as np
import pytest

import softirr_stats as sis
from softirr_stats import models
from softirr_stats.inference import annotator_agreement


def test_one_category_is_refused_naming_it():
    """Every rating 'yes' and no other category declared: the refusal names the label and the way out, not the
    model's internal n_classes."""
    ann = sis.Annotations.from_wide([["yes", "yes"]] * 5)
    with pytest.raises(ValueError, match=r"^one category only \('yes'\): every rating has that label") as ex:
        models.encode_annotations(ann)
    assert "categories=" in str(ex.value) and "n_classes" not in str(ex.value)
    with pytest.raises(ValueError, match=r"^one category only \('yes'\)"):
        annotator_agreement(ann, method="svi", progress=False)


def test_a_declared_second_category_is_fitted_over():
    """With the full category set declared the data are encoded over both classes (the model then fits, its
    kappa the prior's)."""
    ann = sis.Annotations.from_wide([["yes", "yes"]] * 5, categories=["no", "yes"])
    data = models.encode_annotations(ann)
    assert data.n_classes == 2 and data.vocabulary == ("no", "yes")
    np.testing.assert_array_equal(data.labels, np.ones(10, dtype=np.int32))


def test_raw_codes_of_one_class_keep_two_classes():
    """A raw codes array has no vocabulary: one code used is encoded over two classes, as before."""
    assert models.encode_annotations(np.zeros((4, 2), dtype=int)).n_classes == 2
