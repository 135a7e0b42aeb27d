"""``softirr model --model soft --profile-interval``: the soft model's profile-likelihood check of its
interval, as the Python API runs it, on the bundled example (real free-text labels)."""

import json
import re
import warnings

import pytest

import softirr_stats as sis
from softirr_stats.data import demo_path


@pytest.mark.parametrize("mode", ["widen", "off"])
def test_the_cli_gives_the_python_apis_interval(mode, run_cli):
    code, out, err = run_cli("model", str(demo_path()), "--model", "soft", "-m", "indel", "--method",
                             "svi", "--steps", "60", "--profile-interval", mode, "-f", "json")
    assert code == 0, err
    doc = json.loads(out)
    from softirr_stats.inference import SviConfig, annotator_agreement

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = annotator_agreement(sis.read_annotations(demo_path()), "indel", model="soft", method="svi",
                                  config=SviConfig(steps=60), progress=False, predictive_check=False,
                                  profile_interval=mode)
    kappa = next(r for r in doc["results"] if r["quantity"] == "kappa")
    assert (kappa["lower"], kappa["upper"]) == (pytest.approx(ref.ci_low, abs=1e-12),
                                                pytest.approx(ref.ci_high, abs=1e-12))
    assert doc["meta"]["profile_interval"] == mode and doc["meta"]["ci_method"] == ref.ci_method
    assert ("profile_interval" in ref.details) == (mode == "widen")
    widened = bool(ref.details.get("ci_widened"))
    assert ("widened to the profile-likelihood interval" in doc["title"]) == widened
    assert ("profile-likelihood interval" in " ".join(doc["meta"]["warnings"])) == widened


def test_an_unknown_mode_is_one_line(run_cli):
    code, out, err = run_cli("model", str(demo_path()), "--model", "soft", "-m", "indel",
                             "--profile-interval", "union")
    assert code != 0 and "unknown --profile-interval 'union'" in err and "choose from widen, report, off" in err


def test_a_fit_warning_is_listed_once(run_cli):
    """The SVI warning (the widening off) is listed as itself, not again as a diagnostics caveat
    ("caveat: Fit warning: ..."); the other caveats stay."""
    code, out, err = run_cli("model", str(demo_path()), "--model", "soft", "-m", "indel", "--method",
                             "svi", "--steps", "60", "--profile-interval", "off", "-f", "json")
    assert code == 0, err
    said = json.loads(out)["meta"]["warnings"]
    svi = [w for w in said if "the soft model by SVI without gold pairs" in w]
    assert len(svi) == 1 and svi[0].startswith("FitWarning: ")
    # worded for the command line: the flags, not the Python arguments
    assert "fit with --method nuts (the default) or pass gold pairs (--gold SHEET;" in svi[0]
    assert "--profile-interval widen (the default) widened" in svi[0]
    assert not re.search(r"method=|gold=|profile_interval=", svi[0])
    assert any(w.startswith("caveat: Predictive check") for w in said)
