"""Posterior per model kind: each kind owns its quantities; Posterior keeps what is common.

Posteriors here are built from prior draws of the real models (numpyro Predictive), so no
fit is run: the point is which object computes what, not the numbers of a fit.
"""

import ast
import inspect
from pathlib import Path

import jax
import numpy as np
import pytest
from numpyro.infer import Predictive

import softirr_stats as sis
from softirr_stats import inference, models
from softirr_stats.inference import Posterior, PredictiveCheck
from softirr_stats.inference._kinds import (
    MODEL_KINDS,
    CategoricalKind,
    ModelKind,
    SoftKind,
)

ROOT = Path(__file__).resolve().parents[2]


def _from_prior(model_name: str, kind: str, fn, data, draws: int = 24, **kwargs) -> Posterior:
    samples = Predictive(fn, num_samples=draws)(jax.random.key(3), data, **kwargs)
    by_chain = {k: np.asarray(v)[None] for k, v in samples.items() if k != "obs" and not k.startswith("_")}
    return Posterior(model_name=model_name, kind=kind, samples_by_chain=by_chain, data=data, method="svi",
                     priors=None, model_kwargs=kwargs, extra={"model": fn}, key=jax.random.key(4))


@pytest.fixture(scope="module")
def ann():
    sim = models.simulate_dawid_skene(30, 3, 3, accuracy=0.8, seed=1)
    return sis.Annotations.from_wide(np.array(["a", "b", "c"], dtype=object)[sim["codes"]])


@pytest.fixture(scope="module")
def categorical(ann):
    return _from_prior("dawid_skene", "categorical", models.dawid_skene, models.encode_annotations(ann))


@pytest.fixture(scope="module")
def soft(ann):
    data = models.pair_scores(ann, np.array([[1, .6, .1], [.6, 1, .5], [.1, .5, 1]]), groups=["x", "x", "y"],
                              n_chance=200, seed=0)
    return _from_prior("soft_agreement", "soft", models.soft_agreement, data)


def test_the_kind_is_chosen_once_at_construction(categorical, soft):
    assert type(categorical.model_kind) is CategoricalKind and categorical.model_kind.post is categorical
    assert type(soft.model_kind) is SoftKind
    custom = Posterior(model_name="m", kind="custom", samples_by_chain={"x": np.zeros((1, 4))}, data=None,
                       method="svi", priors=None, model_kwargs={}, extra={}, key=jax.random.key(0))
    assert type(custom.model_kind) is ModelKind
    with pytest.raises(ValueError, match="kind must be one of"):
        Posterior(model_name="m", kind="nope", samples_by_chain={"x": np.zeros((1, 4))}, data=None,
                  method="svi", priors=None, model_kwargs={}, extra={}, key=jax.random.key(0))


def test_categorical_kind_provides_its_quantities(categorical, ann):
    post, kind = categorical, categorical.model_kind
    for name in kind.derived_names:  # kappa, alpha, kappa_cohen and the agreement terms
        assert post.draws(name).shape == (post.num_draws,)
    np.testing.assert_array_equal(post.alpha, post.kappa)
    terms = post.implied_agreement()
    np.testing.assert_allclose(terms["kappa"], (terms["observed_agreement"] - terms["expected_agreement"])
                               / (1 - terms["expected_agreement"]), rtol=1e-5)
    # the encoding is the kind's: fit() encodes with it
    assert CategoricalKind.encode(ann).n_items == post.data.n_items
    acc = post.rater_accuracy()
    assert list(acc.columns) == ["rater", "n_items", "accuracy", "sd", "lower_95%", "upper_95%"] and len(acc) == 3
    assert post.class_probabilities().shape == (30, 3)
    assert set(post.aggregated_labels().tolist()) <= {"a", "b", "c"}
    rep = post.replicated(lambda y: y.sum(), n_draws=5)
    assert rep.shape == (5,)
    check = getattr(post, kind.check)(warn=False)
    assert isinstance(check, PredictiveCheck) and check.statistic == "fleiss_kappa"
    assert {"kappa", "kappa_cohen"} <= set(post.summary()["parameter"])
    assert "kappa" in repr(post)  # the implied kappa computed above is shown
    draws, observed, expected, extra = kind.agreement_terms()
    np.testing.assert_array_equal(draws, post.kappa)
    assert set(extra) == {"kappa_cohen"}
    assert inference.diagnostics(post).n_labels == 3  # the kind's diagnostic field


def test_soft_kind_provides_its_quantities(soft):
    post, kind = soft, soft.model_kind
    np.testing.assert_array_equal(post.alpha, post.draws("kappa"))
    assert kind.emission == "monotone"  # the default (fitted without emission=)
    assert kind.priors == models.SoftAgreementPriors()
    table = post.rater_agreement()
    assert len(table) == 3 and {"agreement", "kappa"} <= set(table.columns)
    assert len(post.pair_agreement()) == 3
    groups = post.label_contributions()
    assert list(groups["group"]) == ["x", "y"]
    assert post.calibration_map([0.1, 0.9]).shape == (2, 4)
    check = getattr(post, kind.check)(warn=False)
    assert check.statistic == "score_chi2" and check.replicated.shape == (post.num_draws,)
    draws, observed, expected, extra = kind.agreement_terms()
    np.testing.assert_array_equal(observed, post.draws("pi_within"))
    assert extra == {"n_gold": 0}
    with pytest.raises(TypeError, match="fitted on scores already"):
        kind.similarity_weights(np.eye(3))
    diag = inference.diagnostics(post)
    assert diag.ppc_statistic == "score_chi2"
    # the score check is one-sided: p near 1 (the scores fit better than the replicates, as
    # on calibrated probabilities) is no caveat; p <= 0.01 is
    import dataclasses

    from softirr_stats.inference._diagnostics import model_caveats

    def score_lines(p):
        return [c for c in model_caveats(dataclasses.replace(diag, ppc_p_value=p))
                if c.startswith("Predictive check")]

    assert score_lines(1.0) == [] and score_lines(0.5) == []
    assert len(score_lines(0.005)) == 1 and "does not fit" in score_lines(0.005)[0]
    table = dataclasses.replace(diag, ppc_p_value=0.99).to_frame()
    row = table[table["diagnostic"].str.startswith("predictive check p")].iloc[0]
    assert row["target"] == "> 0.01" and row["status"] == "ok"
    with pytest.raises(TypeError, match="PairScores"):
        SoftKind.encode(np.zeros(3))


def test_a_quantity_of_another_kind_is_refused_naming_the_kinds_that_have_it(categorical, soft):
    with pytest.raises(ValueError, match=r"score_check is available for soft models; .* categorical model"):
        categorical.score_check()
    with pytest.raises(ValueError, match=r"implied_agreement is available for categorical models"):
        soft.implied_agreement()
    with pytest.raises(ValueError, match="categorical"):
        inference.rater_predictive_check(soft)


def test_posterior_methods_of_a_kind_match_the_kinds_methods():
    """Every public method only a kind defines has a Posterior method of the same name and
    parameters (less ``stacklevel``), and Posterior keeps no kind branch."""
    base = set(dir(ModelKind))
    for cls in (CategoricalKind, SoftKind):
        own = [n for n in vars(cls) if not n.startswith("_") and callable(vars(cls)[n]) and n not in base
               and n not in ("encode", "similarity_weights", "agreement_terms")]
        assert own, cls
        for name in own:
            kind_params = [p for p in inspect.signature(getattr(cls, name)).parameters if p not in ("self", "stacklevel")]
            post_params = [p for p in inspect.signature(getattr(Posterior, name)).parameters if p != "self"]
            assert kind_params == post_params, (cls.__name__, name)
    assert _kind_branches(ROOT / "inference" / "_posterior.py", "Posterior") == []


def _kind_branches(path: Path, cls_name: str) -> list[str]:
    """Comparisons with ``self.kind`` / ``self.model_name`` and kind or model names as string
    constants (docstrings aside) in the class ``cls_name``."""
    cls = next(n for n in ast.parse(path.read_text()).body if isinstance(n, ast.ClassDef) and n.name == cls_name)
    docstrings = {id(f.body[0].value) for f in ast.walk(cls)
                  if isinstance(f, ast.ClassDef | ast.FunctionDef) and f.body and isinstance(f.body[0], ast.Expr)}
    names = {*MODEL_KINDS, *models.MODEL_NAMES}
    found = []
    for node in ast.walk(cls):
        if isinstance(node, ast.Compare):
            for side in (node.left, *node.comparators):
                if isinstance(side, ast.Attribute) and side.attr in ("kind", "model_name"):
                    found.append(ast.unparse(node))
        if isinstance(node, ast.Constant) and node.value in names and id(node) not in docstrings:
            found.append(repr(node.value))
    return found


def test_a_toy_kind_is_one_class():
    """A new kind: one ModelKind subclass registered in MODEL_KINDS; Posterior then gives its
    derived quantity, its summary row and its kind-only method, and refuses others."""

    class ToyKind(ModelKind):
        name = "toy"
        derived_names = ("twice_x",)
        default_summary = ("twice_x",)
        alpha_name = "twice_x"

        def derived(self, name):
            return 2.0 * self.post.samples["x"]

        def implied_agreement(self, weights=None, n_mc=64):
            return {"kappa": self.post.samples["x"]}

    MODEL_KINDS["toy"] = ToyKind
    try:
        x = np.arange(8.0).reshape(2, 4)
        post = Posterior(model_name="toy_model", kind="toy", samples_by_chain={"x": x}, data=None, method="nuts",
                         priors=None, model_kwargs={}, extra={}, key=jax.random.key(0))
        np.testing.assert_array_equal(post.draws("twice_x"), 2 * x.ravel())
        np.testing.assert_array_equal(post.alpha, 2 * x.ravel())
        assert list(post.summary()["parameter"]) == ["x", "twice_x"]
        np.testing.assert_array_equal(post.implied_agreement()["kappa"], x.ravel())
        with pytest.raises(ValueError, match="score_check is available for soft models; .* toy model"):
            post.score_check()
        custom = Posterior(model_name="m", kind="custom", samples_by_chain={"x": x}, data=None, method="nuts",
                           priors=None, model_kwargs={}, extra={}, key=jax.random.key(0))
        with pytest.raises(ValueError, match="implied_agreement is available for categorical or toy models"):
            custom.implied_agreement()
    finally:
        del MODEL_KINDS["toy"]
    assert "toy" not in MODEL_KINDS


def test_every_annotator_model_is_one_record_that_fit_and_agreement_read():
    """models.ANNOTATOR_MODELS is the one list: fit's names, its kinds, the categorical specs."""
    from softirr_stats.inference._fit import resolve_model

    assert set(models.MODEL_SPECS) == {n for n, rec in models.ANNOTATOR_MODELS.items() if rec.kind == "categorical"}
    for rec in models.ANNOTATOR_MODELS.values():
        assert rec.kind in MODEL_KINDS
        assert isinstance(rec.priors, type) and callable(rec.model)
        if rec.kind == "categorical":
            assert callable(rec.derive) and callable(rec.response)
        for name in rec.names:
            assert models.find_model(name) is rec
            assert resolve_model(name) == (rec.name, rec.kind, rec.model)
        assert resolve_model(rec.model) == (rec.name, rec.kind, rec.model)
    assert len(set(models.MODEL_NAMES)) == len(models.MODEL_NAMES)
    with pytest.raises(ValueError, match="model must be one of .*'soft'.*got 'nope'"):
        resolve_model("nope")
    with pytest.raises(ValueError, match="model must be one of"):
        inference.annotator_agreement(sis.Annotations.from_wide([["a", "b"]] * 3), model="nope")


def test_models_table_loads_no_numpyro():
    import subprocess
    import sys

    code = ("import sys; from softirr_stats.models import ANNOTATOR_MODELS, MODEL_NAMES; "
            "assert 'numpyro' not in sys.modules and 'jax' not in sys.modules, sorted(sys.modules)")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_soft_fit_keeps_its_warnings_and_names_its_similarity():
    """The fit's and the checks' warnings reach ``result.warnings`` (and still warn); a summary of the
    posterior names the similarity that scored its pairs, not exact matching."""
    import warnings as _warnings

    import softirr_stats as sis
    from softirr_stats.inference import SviConfig, annotator_agreement

    rng = np.random.default_rng(0)
    concepts = [["fever", "pyrexia", "high temperature"], ["cough", "coughing"], ["rash", "skin rash", "eruption"],
                ["fatigue", "tiredness", "asthenia"], ["headache", "cephalalgia"]]
    rows = []
    for _ in range(40):
        c = rng.integers(len(concepts))
        rows.append([str(rng.choice(concepts[c if rng.random() < 0.75 else rng.integers(len(concepts))]))
                     for _ in range(3)])
    ann = sis.Annotations.from_wide(rows)
    with _warnings.catch_warnings(record=True) as caught:
        _warnings.simplefilter("always")
        res = annotator_agreement(ann, similarity="indel", model="soft", method="svi", progress=False,
                                  config=SviConfig(steps=150, num_draws=200))
    raised = [" ".join(str(w.message).split()) for w in caught if issubclass(w.category, UserWarning)]
    assert raised and set(raised) <= set(res.warnings)
    assert "warning" in str(res) and res.to_dict()["warnings"]
    again = annotator_agreement(res.details["posterior"], predictive_check=False, prior_check=False)
    assert res.similarity == again.similarity == "indel"
