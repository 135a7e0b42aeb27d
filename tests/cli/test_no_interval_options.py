"""``--bootstrap 0`` asks for no interval: the interval's options given beside it (``--design``, ``--method``,
``--level``) are refused as ``softirr compare`` refuses them, in its words, in every command that takes them (they
were accepted, unused, and recorded in the JSON meta). ``--level`` stays where something else uses it (the report's
annotator model)."""

import pathlib

import pytest

BRATIAA = pathlib.Path(__file__).resolve().parents[1] / "fixtures" / "bratiaa_example"
BOOTSTRAP_OPTIONS = [("--design", "raters"), ("--method", "bca"), ("--level", "0.9")]


def _args(command, tmp_path):
    return {"report": ["-o", tmp_path / "r.html", "-c", "fleiss_kappa"]}.get(command, ["-c", "fleiss_kappa"])


@pytest.mark.parametrize(("flag", "value"), BOOTSTRAP_OPTIONS)
@pytest.mark.parametrize("command", ["agree", "sensitivity", "report"])
def test_interval_options_with_bootstrap_0_are_refused_as_compare_refuses_them(tmp_path, write_ratings, run_cli,
                                                                               command, flag, value):
    data = write_ratings(tmp_path / "r.csv")
    code, out, err = run_cli(command, data, *_args(command, tmp_path), "--bootstrap", "0", flag, value)
    assert code == 2 and err.count("error:") == 1, err
    assert f"error: {flag} is not used with --bootstrap 0 (no interval); leave out one of them" in err, err
    assert not (tmp_path / "r.html").exists()
    code, out, err = run_cli("compare", data, "--leave-one-out", "--bootstrap", "0", flag, value)
    assert code == 2 and f"error: {flag} is not used with --bootstrap 0 (no interval); leave out one of them" in err


@pytest.mark.parametrize(("flag", "value"), BOOTSTRAP_OPTIONS[1:])  # spans has no --design
def test_spans_refuses_them_too(run_cli, flag, value):
    code, out, err = run_cli("spans", BRATIAA, "--bootstrap", "0", flag, value, "-f", "json")
    assert code == 2 and out == "", err
    assert f"error: {flag} is not used with --bootstrap 0 (no interval); leave out one of them" in err, err


def test_the_defaults_and_the_options_of_an_interval_still_pass(tmp_path, write_ratings, run_cli):
    data = write_ratings(tmp_path / "r.csv")
    code, out, err = run_cli("agree", data, "-c", "fleiss_kappa", "--bootstrap", "0")
    assert code == 0, err
    code, out, err = run_cli("agree", data, "-c", "fleiss_kappa", "--bootstrap", "20", "--design", "raters",
                             "--method", "percentile", "--level", "0.9")
    assert code == 0, err
    code, out, err = run_cli("agree", data, "-c", "fleiss_kappa", "--analytic", "--level", "0.9")
    assert code == 0, err


def test_the_report_keeps_level_for_its_annotator_model(tmp_path, write_ratings, run_cli, monkeypatch):
    import softirr_stats.reporting as reporting

    seen = {}

    def build(ann, **kw):
        seen.update(kw)
        return "<html></html>"

    monkeypatch.setattr(reporting, "build_report", build)
    data = write_ratings(tmp_path / "r.csv")
    code, out, err = run_cli("report", data, "-o", tmp_path / "r.html", "--bootstrap", "0", "--level", "0.9",
                             "--model", "mace")
    assert code == 0, err
    assert seen["ci"] is None and seen["model_level"] == 0.9
