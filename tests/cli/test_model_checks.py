"""``softirr model``: the fit's checks as the Python API runs them (the per-rater predictive check), the
settings of the method used, ``--categories`` as the command reads it, and the fit's advice in flags."""

import json
import warnings

import numpy as np
import pandas as pd
import pytest

import softirr_stats as sis
from softirr_stats.cli import main
from softirr_stats.inference import PredictiveCheckWarning, SviConfig, annotator_agreement

STEPS = 300


@pytest.fixture(scope="module")
def adversary(tmp_path_factory):
    """60 items x 4 raters, 3 classes: r0-r2 right 85% of the time, r3 answers (c + 1) mod 3 three times in four."""
    rng = np.random.default_rng(7)
    truth = rng.integers(3, size=60)
    good = np.where(rng.random((60, 3)) < 0.85, truth[:, None], (truth[:, None] + rng.integers(1, 3, (60, 3))) % 3)
    bad = np.where(rng.random(60) < 0.75, (truth + 1) % 3, rng.integers(3, size=60))
    codes = np.column_stack([good, bad])
    names = np.array(["a", "b", "c"])
    long = pd.DataFrame({"item": np.repeat([f"d{i:02d}" for i in range(60)], 4),
                         "rater": np.tile([f"r{j}" for j in range(4)], 60), "label": names[codes.ravel()]})
    path = tmp_path_factory.mktemp("adversary") / "adv.csv"
    long.to_csv(path, index=False)
    return path


@pytest.fixture(scope="module")
def api(adversary):
    """The Python API's fit of the same data with the same settings: its warnings and its per-rater check."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = annotator_agreement(sis.read_annotations(adversary), model="item_difficulty", method="svi", seed=0,
                                  config=SviConfig(steps=STEPS), progress=False)
    rater = [str(w.message) for w in caught if issubclass(w.category, PredictiveCheckWarning)
             and str(w.message).startswith("per-rater")]
    return res, rater


@pytest.fixture(scope="module")
def cli(adversary, tmp_path_factory):
    """``softirr model`` on the same data and settings: the table it prints and the --json it writes."""
    out_json = tmp_path_factory.mktemp("cli") / "fit.json"
    with pytest.raises(SystemExit) as ex:  # capsys is per test: the table is taken from stdout here
        import contextlib
        import io

        buf = io.StringIO()
        # the table's width fixed: a narrower COLUMNS from the environment wrapped the row checked below
        with contextlib.redirect_stdout(buf), pytest.MonkeyPatch.context() as mp:
            mp.setenv("COLUMNS", "160")
            main(["model", str(adversary), "--model", "item_difficulty", "--method", "svi", "--steps", str(STEPS),
                  "--json", str(out_json)])
    assert ex.value.code == 0
    return buf.getvalue(), json.loads(out_json.read_text())["meta"]


def test_the_per_rater_check_is_the_python_apis(api, cli):
    res, rater = api
    assert len(rater) == 1 and "rater 'r3'" in rater[0]  # the API names the adversary
    out, meta = cli
    diag = meta["diagnostics"]
    want = res.details["rater_check"]
    got = pd.DataFrame(diag["rater_check"])
    assert got["rater"].tolist() == want["rater"].tolist() == ["r0", "r1", "r2", "r3"]
    assert got["failed"].tolist() == want["failed"].tolist() == [False, False, False, True]
    assert got["n_ratings"].tolist() == want["n_ratings"].tolist()
    for col in ("observed", "replicated_mean", "lower", "upper", "p_value"):
        np.testing.assert_allclose(got[col].to_numpy(float), want[col].to_numpy(float), rtol=0, atol=1e-12)
    assert diag["rater_statistic"] == "pairwise" and diag["rater_alpha"] == 0.05
    # the API's warning, said once, as a sentence: in the JSON's warnings and caveats, and below the table
    line = f"{rater[0][0].upper()}{rater[0][1:]}."
    assert line in diag["caveats"]
    assert [w for w in meta["warnings"] if "per-rater" in w.lower()] == [f"caveat: {line}"]
    flat = " ".join(out.split())
    assert "Fit diagnostics (see the caveats)" in out and "all checks pass" not in out
    assert " ".join(line.split()[:12]) in flat
    row = next(r for r in out.splitlines() if "per-rater check p" in r)
    assert "per-rater check p (lowest: rater r3)" in row and ">= 0.05/4" in row
    assert row.split("│")[-2].strip() == "check"
    # no replicated draw was as far from r3's agreement: the bound 2/N of the N draws (two-sided), not "0"
    r3 = want.set_index("rater").loc["r3"]
    assert r3["p_value"] == 0.0 and r3["n_draws"] == diag["rater_check"][3]["n_draws"] == 1000
    assert row.split("│")[2].strip() == "< 0.002 (none of 1000 draws)"
    assert "p < 0.002 (none of 1000 draws)" in rater[0] and "p = 0.0000" not in rater[0]


def test_json_records_only_the_settings_of_the_method_used(adversary, cli, monkeypatch, run_cli):
    meta = cli[1]
    assert meta["method"] == "svi" and meta["steps"] == STEPS and not {"warmup", "samples", "chains"} & set(meta)
    # --method nuts: the NUTS settings, no steps. The fit is the SVI one above (the command records its flags,
    # not the fit's), which keeps a NUTS compile out of the test; the runner is asked for the NUTS settings.
    import softirr_stats.analysis as analysis
    from softirr_stats.inference import NutsConfig

    real, asked = analysis.run_model, []

    def svi_instead(ann, model, *, method, config, **kw):
        asked.append((method, config))
        return real(ann, model, method="svi", config=SviConfig(steps=STEPS), **kw)

    monkeypatch.setattr(analysis, "run_model", svi_instead)
    code, out, err = run_cli("model", str(adversary), "--model", "item_difficulty", "--warmup", "30",
                             "--samples", "20", "--chains", "1", "-f", "json")
    assert code == 0, err
    assert asked == [("nuts", NutsConfig(num_warmup=30, num_samples=20, num_chains=1))]
    meta = json.loads(out)["meta"]
    assert meta["method"] == "nuts" and (meta["warmup"], meta["samples"], meta["chains"]) == (30, 20, 1)
    assert "steps" not in meta
    # no setting given: the method's defaults, asked of the fit and recorded (the options default to None)
    code, out, err = run_cli("model", str(adversary), "--model", "item_difficulty", "-f", "json")
    assert code == 0, err
    assert asked[-1] == ("nuts", NutsConfig())
    meta = json.loads(out)["meta"]
    assert (meta["warmup"], meta["samples"], meta["chains"]) == (500, 500, 2) and "steps" not in meta
    assert "emission" not in meta  # the soft model's setting only


def test_categories_help_says_what_model_takes(run_cli):
    code, out, _ = run_cli("model", "--help")
    assert code == 0
    text = " ".join(out.replace("│", " ").split())
    assert "--categories" in text and "categorical models are fitted over these classes" in text
    assert "ordered weights" not in text and "quadratic" not in text and "gwet_ac1" not in text
    # what the help no longer offers is refused, as before
    code, _, err = run_cli("model", "x.csv", "-m", "quadratic")
    assert code == 2 and "unknown --similarity 'quadratic'" in err
