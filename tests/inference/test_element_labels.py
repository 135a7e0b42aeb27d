"""Elements of the summary and of the convergence warnings read by rater, true class and given label,
MACE's epsilon (J, K: the label a rater gives when guessing) included."""

from types import SimpleNamespace

import numpy as np
import pandas as pd

import softirr_stats as sis
from softirr_stats import inference
from softirr_stats.inference._posterior import readable_elements


def test_mace_epsilon_is_read_by_rater_and_given_label():
    data = SimpleNamespace(rater_names=("r0", "r1", "r2"), vocabulary=("a", "b"))
    post = SimpleNamespace(samples={"theta": np.zeros((4, 3)), "epsilon": np.zeros((4, 3, 2))}, data=data)
    assert readable_elements(["epsilon[1,0]", "epsilon[2,1]", "theta[0]"], post) == [
        "epsilon: rater r1, given a when guessing", "epsilon: rater r2, given b when guessing", "theta: rater r0"]


def test_mace_summary_labels_every_element():
    rows = [("ann", "neg"), ("bob", "neg"), ("cy", "pos"), ("ann", "pos"), ("bob", "pos"), ("cy", "pos"),
             ("ann", "neu"), ("bob", "pos"), ("cy", "neu")] * 6
    long = pd.DataFrame([(f"d{i // 3}", r, lab) for i, (r, lab) in enumerate(rows)], columns=["item", "rater", "label"])
    ann = sis.Annotations.from_long(long, item="item", rater="rater", label="label")
    post = inference.fit("mace", ann, method="svi", progress=False,
                         config=inference.SviConfig(steps=20, num_draws=20))
    table = post.summary()
    eps = table[table["parameter"].str.startswith("epsilon[")]
    names, classes = post.data.rater_names, post.data.vocabulary
    assert tuple(names) == ("ann", "bob", "cy") and tuple(classes) == ("neg", "neu", "pos")
    want = [f"rater {names[j]}, given {classes[k]} when guessing" for j in range(3) for k in range(3)]
    assert eps["label"].tolist() == want
    theta = table[table["parameter"].str.startswith("theta[")]
    assert theta["label"].tolist() == ["rater ann", "rater bob", "rater cy"]
