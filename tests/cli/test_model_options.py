"""``softirr model``: each method's settings only with that method, the soft model's ``--emission``, the JSON's
caveats worded for the command line, and the size refusal as the library words it."""

import json
import re
import warnings

import numpy as np
import pandas as pd
import pytest

import softirr_stats as sis
from softirr_stats.data import demo_path
from softirr_stats.inference import NutsConfig, SviConfig, annotator_agreement

STEPS = 40
#: Python's spelling of the options the command line takes as flags
PYTHON_KEYWORDS = re.compile(r"\b(method|gold|profile_interval|emission|steps|similarity|model|check_size)=")


@pytest.fixture(scope="module")
def ratings(tmp_path_factory):
    """30 items x 3 raters, 3 classes (a long table)."""
    rng = np.random.default_rng(11)
    truth = rng.integers(3, size=30)
    codes = np.where(rng.random((30, 3)) < 0.8, truth[:, None], rng.integers(3, size=(30, 3)))
    long = pd.DataFrame({"item": np.repeat([f"i{i:02d}" for i in range(30)], 3),
                         "rater": np.tile(["r0", "r1", "r2"], 30), "label": np.array(["a", "b", "c"])[codes.ravel()]})
    path = tmp_path_factory.mktemp("ratings") / "ratings.csv"
    long.to_csv(path, index=False)
    return path


@pytest.fixture(scope="module")
def gold(tmp_path_factory):
    """Judged label pairs of the demo's vocabulary: each of 30 labels with itself (1) and with the next one (0)."""
    vocab = sis.read_annotations(demo_path()).vocabulary[:31]
    rows = [(a, a, 1) for a in vocab[:30]] + [(a, b, 0) for a, b in zip(vocab[:30], vocab[1:31], strict=True)]
    path = tmp_path_factory.mktemp("gold") / "gold.csv"
    pd.DataFrame(rows, columns=["label_a", "label_b", "judgment"]).to_csv(path, index=False)
    return path


# 1. the settings of one method are refused with the other


@pytest.mark.parametrize(("args", "says"), [
    (["--method", "nuts", "--steps", "50"],
     "--steps is a setting of --method svi (SVI optimisation steps); --method nuts (the default) takes --warmup, "
     "--samples and --chains"),
    (["--steps", "50"], "--steps is a setting of --method svi"),  # nuts by default
    (["--method", "svi", "--warmup", "10"],
     "--warmup is a setting of --method nuts (NUTS sampling); --method svi takes --steps"),
    (["--method", "svi", "--samples", "10", "--chains", "1"],
     "--samples and --chains are settings of --method nuts (NUTS sampling); --method svi takes --steps"),
    (["--method", "svi", "--warmup", "500"], "--warmup is a setting of --method nuts"),  # the default's value too
])
def test_a_setting_of_the_other_method_is_refused(ratings, args, says, run_cli):
    code, out, err = run_cli("model", str(ratings), *args)
    assert code == 2 and out == ""
    assert len(err.splitlines()) == 1 and err.startswith(f"error: {says}")


def test_help_states_the_configs_defaults(run_cli):
    code, out, _ = run_cli("model", "--help")
    assert code == 0
    text = " ".join(out.replace("│", " ").split())
    svi, nuts = SviConfig(), NutsConfig()
    for flag, value in (("--steps", svi.steps), ("--warmup", nuts.num_warmup), ("--samples", nuts.num_samples),
                        ("--chains", nuts.num_chains)):
        help_text = text[text.index(flag):]
        assert re.search(rf"^{flag} \S+ [^[]*\[default: {value}\]", help_text), flag
    from softirr_stats.cli.model import fit_config

    assert fit_config("svi") == svi and fit_config("nuts") == nuts
    assert fit_config("nuts", warmup=30) == NutsConfig(num_warmup=30)
    with pytest.raises(ValueError, match="steps is not a setting of method='nuts'"):
        fit_config("nuts", steps=10)


# 2. the soft model's emission


def test_emission_histogram_with_gold_is_the_python_apis(gold, tmp_path, run_cli):
    noted = tmp_path / "gold.csv"  # with a column the gold pairs are not read from: named in a note
    pd.read_csv(gold).assign(comment="checked").to_csv(noted, index=False)
    gold = noted
    code, out, err = run_cli("model", str(demo_path()), "--model", "soft", "-m", "indel", "--method", "svi",
                             "--steps", str(STEPS), "--gold", str(gold), "--emission", "histogram", "-f", "json")
    assert code == 0, err
    doc = json.loads(out)
    from softirr_stats.cli.model import read_gold

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = annotator_agreement(sis.read_annotations(demo_path()), "indel", model="soft", method="svi",
                                  config=SviConfig(steps=STEPS), progress=False, predictive_check=False,
                                  gold=read_gold(gold), emission="histogram")
    assert ref.details["posterior"].model_kind.emission == "histogram"
    kappa = next(r for r in doc["results"] if r["quantity"] == "kappa")
    got = (kappa["mean"], kappa["lower"], kappa["upper"], kappa["sd"])
    np.testing.assert_allclose(got, (ref.value, ref.ci_low, ref.ci_high, ref.se), rtol=0, atol=1e-12)
    assert doc["meta"]["emission"] == "histogram" and "emission = histogram" in doc["title"]
    assert "gold.csv: 1 column(s) not read as gold pairs: 'comment'" in " ".join(doc["meta"]["warnings"])
    assert doc["meta"]["profile_interval"] is None  # no profile-likelihood check runs with gold pairs


@pytest.mark.parametrize(("args", "says"), [
    (["--model", "mace", "--emission", "beta"],
     "error: --emission is for --model soft (the score distributions of its label pairs); --model mace fits the "
     "labels themselves"),
    (["--model", "soft", "-m", "indel", "--emission", "histogram"],
     "error: --emission histogram is identified only through gold pairs (without them any share of the "
     "non-equivalent scores can move into the equivalent component); pass --gold SHEET, or use --emission monotone"),
    (["--model", "soft", "-m", "indel", "--emission", "histo"],
     "error: unknown --emission 'histo' (did you mean 'histogram'?); choose from beta, monotone, histogram"),
])
def test_bad_emission_is_one_line(args, says, run_cli):
    code, out, err = run_cli("model", str(demo_path()), *args)
    assert code == 2 and out == "" and err.splitlines() == [says]


def test_emission_choices_are_the_models_own():
    from softirr_stats import models
    from softirr_stats.models._soft import EMISSIONS as SOFT_EMISSIONS

    assert models.EMISSIONS is SOFT_EMISSIONS and models.DEFAULT_EMISSION in models.EMISSIONS
    from typer.testing import CliRunner

    from softirr_stats.cli import app

    res = CliRunner().invoke(app, ["model", "--help"], env={"COLUMNS": "250"})
    text = " ".join(res.output.replace("│", " ").split())
    assert f"the score distribution of each component: {', '.join(models.EMISSIONS)}" in text
    assert f"[default: {models.DEFAULT_EMISSION}]" in text


# 3. the JSON's caveats as the notes word them


def test_json_caveats_are_worded_for_the_command_line(run_cli):
    """The SVI soft fit without the widening warns in Python wording (method='nuts', gold=, profile_interval=)
    and the demo's score check fails (emission='histogram'); the JSON's caveats say the flags."""
    code, out, err = run_cli("model", str(demo_path()), "--model", "soft", "-m", "indel", "--method",
                             "svi", "--steps", str(STEPS), "--profile-interval", "off", "-f", "json")
    assert code == 0, err
    meta = json.loads(out)["meta"]
    assert meta["emission"] == "monotone"  # the default, recorded
    diag = meta["diagnostics"]
    caveats, fit_warnings = diag["caveats"], diag["sampler_warnings"]
    assert any(c.startswith("Fit warning: ") and "--method nuts" in c for c in caveats)
    assert any(c.startswith("Predictive check: the score distribution does not fit") and
               "gold pairs with --emission histogram (softirr model --gold SHEET --emission histogram)" in c
               for c in caveats)
    assert not [c for c in (*caveats, *fit_warnings) if PYTHON_KEYWORDS.search(c)]
    # and they are the lines printed below the table
    said = meta["warnings"]
    assert [c for c in caveats if f"caveat: {c}" in said] == [c for c in caveats if not c.startswith("Fit warning")]


# 5. the size refusal: the library's message, worded for the command line


def test_the_size_refusal_is_the_librarys_message(run_cli):
    from softirr_stats.cli._options import cli_wording
    from softirr_stats.inference import FitSizeError

    code, out, err = run_cli("model", str(demo_path()), "--model", "dawid_skene", "--method", "svi",
                             "--steps", "300")
    assert code == 1 and out == ""
    with pytest.raises(FitSizeError) as ex:
        annotator_agreement(sis.read_annotations(demo_path()), model="dawid_skene", method="svi",
                            config=SviConfig(steps=300), progress=False)
    assert err.splitlines() == [f"error: --model {cli_wording(str(ex.value))}"]
    size = ex.value.size
    assert err.startswith(f"error: --model dawid_skene on free-text labels: {size.n_classes} distinct labels on "
                          f"{size.n_items} items, {size.n_singletons} of them given once")
    assert f"({size.n_parameters:,} parameters; an SVI fit would take roughly" in err
    assert "(--model soft -m levenshtein, or another soft --similarity)" in err
    assert not PYTHON_KEYWORDS.search(err)


# 6. --profile-interval only where the profile-likelihood check runs


@pytest.mark.parametrize(("args", "says"), [
    (["--model", "dawid_skene", "--profile-interval", "report"],
     "--profile-interval is for --model soft (its monotone emission, without --gold); --model dawid_skene has no "
     "profile-likelihood check"),
    (["--model", "mace", "--profile-interval", "widen"], "--model mace has no profile-likelihood check"),  # the default
    (["--model", "soft", "-m", "levenshtein", "--emission", "beta", "--profile-interval", "off"],
     "--profile-interval is for the monotone emission of --model soft; --emission beta has no profile-likelihood "
     "check"),
])
def test_profile_interval_is_refused_where_no_check_runs(ratings, args, says, run_cli):
    """A categorical model (or the soft model's Beta emission) never runs the check: the flag is refused, not
    dropped."""
    code, out, err = run_cli("model", str(ratings), "--method", "svi", "--steps", "5", *args)
    assert code == 2 and out == ""
    assert err.splitlines() == [f"error: {says}"] if says.startswith("--profile") else says in err


def test_profile_interval_is_refused_with_gold(ratings, gold, run_cli):
    code, out, err = run_cli("model", str(ratings), "--model", "soft", "-m", "levenshtein", "--gold", str(gold),
                             "--profile-interval", "report")
    assert code == 2 and out == ""
    assert err.splitlines() == ["error: --profile-interval is for --model soft without --gold: gold pairs fix the "
                                "equivalent component, and no profile-likelihood check runs"]


# 7. one category only: the refusal says why, not the model's internals


def test_one_category_is_refused_with_the_reason(tmp_path, run_cli):
    long = pd.DataFrame({"item": np.repeat(np.arange(5), 2), "rater": ["x", "y"] * 5, "label": "a"})
    path = tmp_path / "one.csv"
    long.to_csv(path, index=False)
    code, out, err = run_cli("model", str(path), "--method", "svi", "--steps", "5")
    assert code == 1 and out == ""
    assert err.startswith("error: --model dawid_skene: one category only ('a'): every rating has that label")
    assert "--categories A,B" in err and "n_classes" not in err


def test_soft_model_on_scores_of_one_value_is_refused(tmp_path, run_cli):
    """Every pair scores 1: the command says why in one line (no kappa 1 [1, 1], no NaN RuntimeWarnings)."""
    long = pd.DataFrame({"item": np.repeat(np.arange(10), 2), "rater": ["x", "y"] * 10, "label": "same label"})
    path = tmp_path / "same.csv"
    long.to_csv(path, index=False)
    code, out, err = run_cli("model", str(path), "--model", "soft", "-m", "levenshtein", "--method", "svi",
                             "--steps", "5")
    assert code == 1 and out == ""
    assert err.startswith("error: --model soft: every label pair scores 1 under the similarity")
    assert len(err.splitlines()) == 1 and "RuntimeWarning" not in err
