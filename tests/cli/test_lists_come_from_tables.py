"""Every list the CLI shows comes from its library source; one chance syntax for the CLI and the Python API."""

import pytest
from typer.testing import CliRunner

import softirr_stats as sis
from softirr_stats.cli import COMMANDS, app
from softirr_stats.cli import _options as opts

runner = CliRunner()


def test_coefficients_are_the_registry_and_the_multilabel_baselines():
    from softirr_stats.agreement import COEFFICIENTS
    from softirr_stats.analysis import (
        DISTANCE_COEFFICIENTS,
        MULTILABEL_COEFFICIENTS,
        SCORE_COEFFICIENTS,
        coefficient_registry,
    )

    assert opts.COEFFICIENTS == (*COEFFICIENTS, *MULTILABEL_COEFFICIENTS, *DISTANCE_COEFFICIENTS, *SCORE_COEFFICIENTS)
    from softirr_stats.api._statistics import DISTANCE_METHODS

    assert DISTANCE_COEFFICIENTS == tuple(f"distance_{m}" for m in DISTANCE_METHODS)
    # the sensitivity table runs the same names, and each level of measurement as NAME:LEVEL
    assert opts.LEVEL_FORMS == tuple(f"{n}:{lv}" for n, rec in COEFFICIENTS.items() for lv in rec.levels)
    assert "krippendorff_alpha:ordinal" in opts.LEVEL_FORMS
    assert tuple(coefficient_registry()) == (*opts.COEFFICIENTS, *opts.LEVEL_FORMS)
    for name in opts.COEFFICIENTS:
        assert callable(getattr(sis, name, None)) or name.startswith(("multilabel_", "distance_", "icc"))


def test_measures_weights_methods_chance_are_the_library_lists():
    from softirr_stats.agreement import CHANCE_SYNTAX, SIMILARITY_NAMES, WEIGHT_NAMES
    from softirr_stats.equivalence import MEASURE_NAMES
    from softirr_stats.uncertainty import INTERVAL_METHODS

    assert opts.MEASURES == MEASURE_NAMES and {"nli", "llm_judge"} <= set(MEASURE_NAMES)
    assert opts.SIMILARITIES == tuple(SIMILARITY_NAMES)
    assert opts.WEIGHTS == tuple(WEIGHT_NAMES)
    assert opts.METHODS == tuple(INTERVAL_METHODS)
    assert opts.CHANCE_FORMS == tuple(CHANCE_SYNTAX)


def test_input_formats_are_the_readers_table():
    from softirr_stats.data import INPUT_FORMATS
    from softirr_stats.data._io import _FORMATS
    from softirr_stats.data._readers import EXPORT_FORMATS

    assert opts.INPUT_FORMATS == INPUT_FORMATS == (*_FORMATS, *EXPORT_FORMATS) and "parquet" in INPUT_FORMATS
    res = runner.invoke(app, ["agree", "--help"], env={"COLUMNS": "250"})
    assert "input format: " + ", ".join(INPUT_FORMATS) in " ".join(res.output.split())


def test_designs_are_the_bootstrap_designs_that_need_nothing_beside_the_file():
    from softirr_stats.uncertainty import DESIGNS

    assert set(opts.DESIGNS) | set(opts.CLI_LESS_DESIGNS) == set(DESIGNS)
    assert not set(opts.DESIGNS) & set(opts.CLI_LESS_DESIGNS)
    for d in opts.DESIGNS:  # each is usable as given
        sis.Bootstrap(n=10, design=d)
    from softirr_stats.uncertainty import BOOTSTRAP_DESIGNS

    # --design on agree / sensitivity also takes those that resample --judgments' pairs
    assert opts.JUDGED_DESIGNS == tuple(n for n, r in BOOTSTRAP_DESIGNS.items() if r.resamples_judged)


def test_models_are_the_annotator_model_table():
    from softirr_stats.models import ANNOTATOR_MODELS, MODEL_NAMES

    assert opts.MODELS == MODEL_NAMES == tuple(n for rec in ANNOTATOR_MODELS.values() for n in rec.names)
    assert opts.LABEL_MODELS == tuple(n for rec in ANNOTATOR_MODELS.values() if not rec.soft for n in rec.names)
    for command, names in (("model", opts.MODELS), ("report", opts.LABEL_MODELS)):
        res = runner.invoke(app, [command, "--help"], env={"COLUMNS": "400"})
        text = " ".join(res.output.split())
        assert all(n in text for n in names), (command, names)
    soft = [n for rec in ANNOTATOR_MODELS.values() if rec.soft for n in rec.names]
    res = runner.invoke(app, ["report", "x.csv", "--model", soft[0]])
    assert res.exit_code != 0 and "--model" in res.output


def test_help_shows_the_lists():
    res = runner.invoke(app, ["sensitivity", "--help"], env={"COLUMNS": "250"})
    text = " ".join(res.output.split())
    for name in (*opts.WEIGHTS, *opts.DESIGNS, "mc:D", "sampled:N", "montecarlo:D"):
        assert name in text, name
    res = runner.invoke(app, ["model", "--help"], env={"COLUMNS": "250"})
    assert all(m in " ".join(res.output.split()) for m in opts.MODELS)


def test_every_command_module_is_registered():
    names = {c.name for c in app.registered_commands}
    assert names == {m.NAME for m in COMMANDS}
    assert "judge" in {g.name for g in app.registered_groups}


@pytest.mark.parametrize(("text", "expected"), [
    ("exact", "exact"), ("auto", "auto"), ("EXACT ", "exact"),
    ("mc:7", sis.MonteCarlo(permutations=7)), ("montecarlo:7", sis.MonteCarlo(permutations=7)),
    ("MC: 7", sis.MonteCarlo(permutations=7)), ("monte_carlo:7", sis.MonteCarlo(permutations=7)),
    ("sampled:300", sis.SampledPairs(n=300)), ("sampledpairs:300", sis.SampledPairs(n=300)),
])
def test_one_chance_syntax(text, expected):
    from softirr_stats.agreement import resolve_chance

    assert resolve_chance(text) == expected


@pytest.mark.parametrize("text", ["mc", "mc:", "mc:0", "mc:-3", "mc:2.5", "sampled:1e10", "sampled:10000000000",
                                  "mc:1000000", "permutation", "sampled:٣", "exact:3"])
def test_bad_chance_specs_are_refused_before_any_work(text):
    from softirr_stats.agreement import resolve_chance

    with pytest.raises(ValueError, match="chance"):
        resolve_chance(text)


def test_python_api_takes_the_text_forms():
    x = [["a", "b"], ["a", "a"], ["b", "b"], ["c", "a"], ["c", "c"]]
    assert sis.fleiss_kappa(x, chance="mc:20").value == sis.fleiss_kappa(x, chance=sis.MonteCarlo(20)).value
    assert sis.fleiss_kappa(x, chance="sampled:500").value == sis.fleiss_kappa(x, chance=sis.SampledPairs(500)).value
    df = sis.sensitivity(x, coefficients=["fleiss_kappa"], chance=["exact", "mc:20", "montecarlo:20"])
    assert df["value"].iloc[1] == df["value"].iloc[2]


@pytest.mark.parametrize("cmd", ["agree", "sensitivity", "report"])
def test_every_command_takes_the_long_and_short_chance_forms(cmd, tmp_path):
    from softirr_stats.data import demo_path

    out = tmp_path / "r.html"
    extra = ["-o", str(out)] if cmd == "report" else ["-f", "csv"]
    for form in ("mc:3", "montecarlo:3"):
        res = runner.invoke(app, [cmd, str(demo_path()), "-c", "fleiss_kappa", "--chance", form, "--bootstrap", "0",
                                  *extra])
        assert res.exit_code == 0, res.output


def test_a_new_command_is_one_module_and_one_registration(capsys):
    """A toy command: a module with NAME, EPILOG and command; registered, it runs inside the error boundary."""
    import types

    from softirr_stats import cli

    toy = types.ModuleType("toy")
    toy.NAME, toy.EPILOG = "toy", "Columns: none."

    def command(count: int = 1) -> None:
        """A toy command."""
        if count < 0:
            raise ValueError("count must be >= 0")
        print("toy " * count)

    toy.command = command
    cli.register(toy)
    try:
        with pytest.raises(SystemExit) as ex:
            cli.main(["toy", "--count", "2"])
        assert ex.value.code == 0 and "toy toy" in capsys.readouterr().out
        with pytest.raises(SystemExit) as ex:
            cli.main(["toy", "--count", "-1"])
        err = capsys.readouterr().err
        # the boundary, for free: the message's subject is the command's option, so it names the flag
        assert ex.value.code == 2 and err == "error: --count must be >= 0\n"
    finally:
        app.registered_commands[:] = [c for c in app.registered_commands if c.name != "toy"]
    assert "toy" not in {c.name for c in app.registered_commands}


def test_plan_lists_are_the_planning_lists():
    from softirr_stats.cli import plan
    from softirr_stats.planning import DESIGNS, METHODS

    assert plan.PLAN_METHODS == METHODS and plan.PLAN_DESIGNS == DESIGNS
