"""Public API contract (the names in ``softirr_stats.__all__``), result containers, global-state hygiene."""

import jax
import numpy as np
import pandas as pd
import pytest

import softirr_stats as sis

pytestmark = pytest.mark.filterwarnings("ignore::softirr_stats.UnpairableItemsWarning")

PUBLIC = ["Annotations", "AgreementResult", "Bootstrap", "Analytic", "MonteCarlo", "SampledPairs",
          "percent_agreement", "cohen_kappa", "scott_pi", "fleiss_kappa", "conger_kappa", "light_kappa",
          "krippendorff_alpha", "gwet_ac1", "brennan_prediger", "cross_kappa", "multilabel_agreement",
          "distance_agreement", "sensitivity", "annotator_agreement", "calibration", "equivalence"]


@pytest.mark.parametrize("name", PUBLIC)
def test_public_names_exist(name):
    assert getattr(sis, name) is not None


def test_estimators_of_the_contract_exist():
    for name in ["Exact", "Jaccard", "Masi", "Levenshtein", "Indel", "Lcs", "Embedding", "Nli", "LlmJudge",
                 "SetMatch", "Cached"]:
        assert hasattr(sis.equivalence, name), name
    assert callable(sis.calibration.expected_calibration_error)


def test_point_estimates_are_float64_and_global_x64_untouched():
    before = jax.config.jax_enable_x64
    r = sis.cohen_kappa([["a", "a"], ["b", "a"], ["b", "b"], ["c", "c"]])
    assert jax.config.jax_enable_x64 == before
    assert isinstance(r.value, float)
    # 1e-12 agreement with a float64 reference needs float64 arithmetic
    assert r.value == pytest.approx((0.75 - 5 / 16) / (1 - 5 / 16), abs=1e-15)


def test_result_to_dict_and_frame():
    r = sis.krippendorff_alpha([["a", "a"], ["b", "a"], ["b", "b"]], ci=sis.Bootstrap(n=100, seed=1))
    d = r.to_dict()
    for key in ["value", "observed", "expected", "coefficient", "n_items", "n_raters", "ci_low", "ci_high", "se",
                "bootstrap_n", "bootstrap_seed", "bootstrap_design", "n_nan_replicates"]:
        assert key in d, key
    f = r.to_frame()
    assert isinstance(f, pd.DataFrame) and len(f) == 1
    assert np.isnan(sis.krippendorff_alpha([["a", "a"], ["b", "a"], ["b", "b"]]).se)


def test_same_seed_same_interval_and_designs_run():
    rng = np.random.default_rng(0)
    x = rng.integers(0, 3, (40, 4)).tolist()
    a = sis.fleiss_kappa(x, ci=sis.Bootstrap(n=300, seed=5, method="bca"))
    b = sis.fleiss_kappa(x, ci=sis.Bootstrap(n=300, seed=5, method="bca"))
    assert (a.ci_low, a.ci_high) == (b.ci_low, b.ci_high)
    clusters = [i // 4 for i in range(40)]
    for cfg in [sis.Bootstrap(n=200, design="raters"), sis.Bootstrap(n=200, design="items+raters"),
                sis.Bootstrap(n=200, design="cluster", cluster=clusters), sis.Bootstrap(n=200, design="bayesian"),
                sis.Bootstrap(n=200, strata=[i % 2 for i in range(40)]), sis.Bootstrap(n=200, method="basic")]:
        r = sis.conger_kappa(x, ci=cfg)
        assert r.ci_low <= r.ci_high and r.details["bootstrap_design"] == cfg.design


def test_bootstrap_config_validation():
    with pytest.raises(ValueError, match="design must be one of"):
        sis.Bootstrap(design="item")
    with pytest.raises(ValueError, match="method must be one of"):
        sis.Bootstrap(method="studentized")
    with pytest.raises(ValueError, match="needs cluster="):
        sis.Bootstrap(design="cluster")
    with pytest.raises(ValueError, match=r"level must be in \(0, 1\)"):
        sis.Bootstrap(level=95)
    with pytest.raises(TypeError, match="n must be an integer"):
        sis.Bootstrap(n=100.0)
    with pytest.raises(ValueError, match="ci must be None"):
        sis.fleiss_kappa([[1, 1], [2, 1]], ci="bootstrap")


def test_zero_width_interval_when_every_item_is_identical():
    x = [["a", "b"]] * 10 + [["b", "b"]] * 10
    r = sis.percent_agreement([["a", "a"]] * 5 + [["a", "b"]] * 5, ci=sis.Bootstrap(n=200))
    assert r.ci_low <= 0.5 <= r.ci_high
    same = sis.percent_agreement([["a", "b"]] * 8, ci=sis.Bootstrap(n=100))
    assert same.ci_low == same.ci_high == 0.0
    assert sis.fleiss_kappa(x).n_items == 20


def test_wide_dataframe_input_and_categories():
    df = pd.DataFrame({"r1": ["low", "mid", "high", "mid"], "r2": ["low", "high", "high", "mid"]},
                      index=["d1", "d2", "d3", "d4"])
    r = sis.cohen_kappa(df, weights="linear", categories=["low", "mid", "high"])
    ann = sis.Annotations.from_wide(df, categories=["low", "mid", "high"])
    assert r.value == pytest.approx(sis.cohen_kappa(ann, weights="linear").value, abs=1e-15)
    # declared order matters for weights: 'mid' is between 'low' and 'high'
    sorted_order = sis.cohen_kappa(df, weights="linear", categories=["high", "low", "mid"]).value
    assert r.value != pytest.approx(sorted_order)
    # text labels without a declared order: ordered weights refuse to guess (issue 11)
    with pytest.raises(ValueError, match="categories="):
        sis.cohen_kappa(df, weights="linear")


# keyword options that DESIGN.md section 3 documents for each public function (a subset of the signature)
DOCUMENTED_OPTIONS = {
    "percent_agreement": {"similarity"}, "cohen_kappa": {"weights", "similarity", "judgments", "judge"},
    "scott_pi": {"similarity"}, "fleiss_kappa": {"weights", "similarity", "judgments", "judge"},
    "conger_kappa": {"weights"}, "light_kappa": {"weights", "similarity"},
    "krippendorff_alpha": {"level", "similarity"}, "gwet_ac1": {"weights"},
    "brennan_prediger": {"weights", "categories"}, "cross_kappa": {"similarity"},
    "multilabel_agreement": {"baseline", "ci"}, "distance_agreement": {"similarity", "method", "ci"},
    "sensitivity": {"coefficients", "similarities", "ci"}, "judging_plan": {"similarity", "n", "coefficient",
                                                                             "strategy", "seed"},
    "read_annotations": {"format"},
}


@pytest.mark.parametrize("name", sorted(DOCUMENTED_OPTIONS))
def test_documented_options_are_keyword_only(name):
    import inspect

    params = inspect.signature(getattr(sis, name)).parameters
    missing = DOCUMENTED_OPTIONS[name] - set(params)
    assert not missing, f"{name} lacks {missing}"
    for opt in DOCUMENTED_OPTIONS[name]:
        assert params[opt].kind is inspect.Parameter.KEYWORD_ONLY, (name, opt)


@pytest.mark.parametrize("name", sorted(sis.agreement.COEFFICIENTS))
def test_coefficient_signature_matches_its_record(name):
    import inspect

    record = sis.agreement.COEFFICIENTS[name]
    params = list(inspect.signature(getattr(sis, name)).parameters.values())
    assert [p.name for p in params] == ["ann", *record.options]
    assert all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in params[1:])
    assert getattr(sis, name).__doc__.startswith(record.summary)
    with pytest.raises(TypeError):
        getattr(sis, name)([["a", "a"], ["a", "b"]], "positional-option")


# the statistics beside the coefficients: positional data, then keyword-only options ending in ci=
@pytest.mark.parametrize("name", sorted(sis.agreement._registry.STATISTICS))
def test_other_statistic_signatures(name):
    import inspect

    record = sis.agreement._registry.STATISTICS[name]
    positional, keywords = list(record.positional), list(record.options)
    params = list(inspect.signature(getattr(sis, name)).parameters.values())
    if params[-1].kind is inspect.Parameter.VAR_KEYWORD:  # span_agreement passes reader options through
        assert params[-1].name == "reader_options"
        params = params[:-1]
    assert [p.name for p in params] == positional + keywords
    assert all(p.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD for p in params[:len(positional)])
    assert all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in params[len(positional):])
    assert params[-1].name == "ci" and params[-1].default is None  # no interval unless asked for
    assert getattr(sis, name).__doc__.startswith(record.summary)
    assert ("similarity" in record.options) == record.similarity


def _type_checking_imports(module: str) -> set[str]:
    """Names the package ``__init__``'s ``if TYPE_CHECKING:`` block imports from ``module``."""
    import ast
    from pathlib import Path

    tree = ast.parse(Path(sis.__file__).read_text())
    block = next(n for n in tree.body if isinstance(n, ast.If) and getattr(n.test, "id", "") == "TYPE_CHECKING")
    return {a.name for n in ast.walk(block) if isinstance(n, ast.ImportFrom) and n.module == module for a in n.names}


def test_exports_equal_the_registry():
    """``sis.<name>`` of every statistic comes from the registry: exports, static imports and records agree."""
    from softirr_stats.agreement._registry import public_exports, statistic_records

    exports = public_exports()
    assert set(exports) == {"softirr_stats.api._coefficients", "softirr_stats.api._statistics",
                            "softirr_stats.api._score_statistics"}
    for module, names in exports.items():
        assert tuple(sorted(sis._EXPORTS[module])) == names, f"softirr_stats._EXPORTS[{module!r}] != registry"
        assert _type_checking_imports(module) == set(names), f"the TYPE_CHECKING imports of {module} != registry"
    for name, record in statistic_records().items():
        assert getattr(sis, name).__name__ == name
        assert getattr(sis, name).__module__ == record.module


def test_coefficient_module_names_are_the_registry():
    """``_coefficients`` binds one module name per record (static imports work), each the record's function."""
    import softirr_stats.api._coefficients as mod

    helpers = {"estimate_point", "estimate_with_interval", "coefficient_function", "public_function"}
    assert set(mod.__all__) - helpers == set(sis.agreement.COEFFICIENTS)
    for name in sis.agreement.COEFFICIENTS:
        assert name in vars(mod), f"{name} is not a module-level name of softirr_stats.api._coefficients"
        fn = vars(mod)[name]
        assert fn is mod.public_function(name) and fn.__name__ == name
    made = {n for n, v in vars(mod).items() if callable(v) and getattr(v, "__signature__", None) is not None}
    assert made == set(sis.agreement.COEFFICIENTS), "a function made from a record that is not in the registry"
    with pytest.raises(ValueError, match="coefficient must be one of"):
        mod.public_function("not_a_coefficient")
    with pytest.raises(AttributeError, match="no attribute 'not_a_coefficient'"):
        mod.not_a_coefficient  # noqa: B018


def test_calibration_error_ci_signature():
    import inspect

    params = list(inspect.signature(sis.calibration.calibration_error_ci).parameters.values())
    assert [p.name for p in params] == ["scores", "labels", "metric", "bins", "strategy", "p", "ci"]
    assert all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in params[2:])
    assert params[-1].default is None  # ci defaults to Bootstrap(n=1000)
