"""``--reader-option KEY=VALUE`` beside the reading flags: a reader option that a flag of the command sets
(``--field``, ``--layer``, ``--feature``, ``--span-rule``, ``--categories``) is refused naming the flag, whatever the
order (it silently won over the flag); the JSON record says how the inputs were read."""

import json
import pathlib

import pytest

LS = pathlib.Path(__file__).resolve().parents[1] / "fixtures" / "exports" / "label_studio" / "project-7-export.json"
pytestmark = pytest.mark.filterwarnings("ignore::softirr_stats.data.ExportWarning")


@pytest.mark.parametrize("order", ["flag first", "reader option first"])
def test_a_reader_option_that_a_flag_sets_is_refused_whatever_the_order(run_cli, order):
    # --field sentiment --reader-option field=topic read topic (sets) in either order
    flag, option = ["--field", "sentiment"], ["--reader-option", "field=topic"]
    code, out, err = run_cli("describe", LS, *(flag + option if order == "flag first" else option + flag))
    assert code == 2 and err.count("error:") == 1, err
    assert "--reader-option field=... sets what --field sets: use --field instead (got --field 'sentiment' too)" in err


@pytest.mark.parametrize(("option", "flag"), [("field=sentiment", "--field"), ("layer=NamedEntity", "--layer"),
                                              ("feature=value", "--feature"), ("span_rule=overlap", "--span-rule"),
                                              ("categories=[Positive, Negative, Neutral]", "--categories")])
@pytest.mark.parametrize("command", ["agree", "describe", "sensitivity"])
def test_the_reader_option_spelling_of_a_flag_is_refused(run_cli, command, option, flag):
    code, out, err = run_cli(command, LS, "--reader-option", option, *(["--bootstrap", "0"] if command != "describe"
                                                                       else []))
    key = option.partition("=")[0]
    assert code == 2 and f"error: --reader-option {key}=... sets what {flag} sets: use {flag} instead" in err, err


def test_categories_in_both_spellings_no_longer_report_a_false_undeclared_label(run_cli):
    # --reader-option categories=[...] with --categories said "label 'x' ... is not among the declared categories"
    code, out, err = run_cli("agree", LS, "--field", "sentiment", "--bootstrap", "0", "--categories",
                             "Positive,Negative,Neutral", "--reader-option", "categories=[Positive, Negative, Neutral]")
    assert code == 2 and "use --categories instead" in err and "not among the declared categories" not in err, err


def test_a_command_without_the_flag_still_takes_the_reader_option(run_cli, tmp_path):
    # compare has no --span-rule: --reader-option span_rule= is its way to the rule, and a bad one names it
    code, out, err = run_cli("compare", LS, "--field", "ner", "-c", "fleiss_kappa", "-c", "krippendorff_alpha",
                             "--bootstrap", "10", "--reader-option", "span_rule=weird")
    assert code == 2 and "--reader-option span_rule= must be exact, overlap or overlap:IOU" in err, err


def test_the_json_record_says_how_the_inputs_were_read(run_cli):
    code, out, err = run_cli("agree", LS, "--field", "sentiment", "--na-values", "Neutral", "-c", "fleiss_kappa",
                             "--bootstrap", "0", "-f", "json")
    assert code == 0, err
    assert json.loads(out)["meta"]["reading"] == {"field": "sentiment", "na_values": ["Neutral"]}
    code, out, err = run_cli("describe", LS, "--reader-option", "multilabel=true", "--field", "topic", "-f", "json")
    assert code == 0, err
    assert json.loads(out)["meta"]["reading"] == {"field": "topic", "reader_option": ["multilabel=true"]}
