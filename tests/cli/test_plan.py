"""``softirr plan``: the weights of ``-m`` reach the plan, and the options are checked before any work."""

import io
import json

import numpy as np
import pandas as pd
import pytest

import softirr_stats as sis

pytestmark = pytest.mark.filterwarnings("ignore::softirr_stats.DegenerateWarning")


@pytest.fixture()
def scores(tmp_path):
    """A 1-4 scale, 4 raters, 40 items: weighted and unweighted kappa differ."""
    rng = np.random.default_rng(1)
    truth = rng.integers(1, 5, 40)
    rows = [(f"i{i:02d}", r, int(truth[i] if rng.random() < 0.6 else rng.integers(1, 5)))
            for i in range(40) for r in ("r1", "r2", "r3", "r4")]
    path = tmp_path / "num.csv"
    pd.DataFrame(rows, columns=["item", "rater", "label"]).to_csv(path, index=False)
    return path


@pytest.mark.parametrize("coefficient", ["fleiss_kappa", "krippendorff_alpha"])
def test_weights_of_measure_reach_the_plan(run_cli, scores, coefficient):
    # -m quadratic was read and then dropped: the plan was the unweighted coefficient's
    code, out, err = run_cli("plan", scores, "-c", coefficient, "--halfwidth", "0.1", "-m", "quadratic",
                             "--bootstrap", "200", "-f", "json")
    assert code == 0, err
    row = json.loads(out)["results"][0]
    ann = sis.read_annotations(scores)
    # weights= where the coefficient takes them (Fleiss), the same weight matrix as similarity= where not (alpha)
    extra = {"options": {"weights": "quadratic"}} if coefficient == "fleiss_kappa" else {"similarity": "quadratic"}
    py = sis.plan_items(coefficient, halfwidth=0.1, pilot=ann, bootstrap=200, **extra)
    plain = sis.plan_items(coefficient, halfwidth=0.1, pilot=ann, bootstrap=200)
    assert (row["value"], row["n_items"]) == (pytest.approx(py.to_frame()["value"][0]), py.n)
    assert row["n_items"] != plain.n
    assert json.loads(out)["meta"]["similarity"] == "quadratic"


@pytest.mark.parametrize(("args", "needle"), [
    (["--seed", "-1"], "--seed must be a non-negative integer"),
    (["--seed", str(2**63)], "--seed must be a non-negative integer, at most 2**63 - 1"),
    (["--bootstrap", "1"], "--bootstrap must be at least 2 replicates"),
    (["--bootstrap", "0"], "--bootstrap must be at least 2 replicates"),
    (["--level", "1.5"], "--level must lie strictly between 0 and 1"),
    (["--alpha", "2"], "--alpha must lie strictly between 0 and 1"),
    (["--null", "0.3", "--power", "1.5"], "--power must lie strictly between 0 and 1"),
    (["--halfwidth", "-0.1"], "--halfwidth must be positive"),
    (["--raters", "1"], "--raters must be at least 2"),
])
def test_options_are_checked_up_front_in_cli_spelling(run_cli, scores, args, needle):
    # --seed -1 and --bootstrap 1 were accepted where the pilot needed no bootstrap; other errors were Python's
    # ("n must be >= 2", "level must be in (0, 1)")
    for source in ([scores], ["--value", "0.6", "--prevalence", "0.5,0.5"]):
        code, out, err = run_cli("plan", *source, "--halfwidth", "0.1", *args)
        assert code == 2 and out == "", (args, err)
        assert needle in err and err.count("\n") == 1, (args, err)


def test_the_pilots_warnings_are_numbered_notes_not_raw_python_lines(tmp_path, run_cli):
    """A pilot with a one-rating item printed "_plan.py:629: UnpairableItemsWarning ..." on stderr beside the
    same text as note [1]."""
    rows = [(f"i{i}", r, (i + (r == "b")) % 3) for i in range(30) for r in ("a", "b", "c")] + [("lone", "a", 1)]
    path = tmp_path / "pilot.csv"
    pd.DataFrame(rows, columns=["item", "rater", "label"]).to_csv(path, index=False)
    code, out, err = run_cli("plan", path, "-c", "fleiss_kappa", "--halfwidth", "0.1", "-f", "csv")
    assert code == 0 and "Warning" not in err and ".py:" not in err
    assert err.count("1 of 31 items have one rating") == 1  # once on stderr; the csv row keeps it in its warnings
    assert out.count("1 of 31 items have one rating") == 1


@pytest.mark.parametrize("method", ["analytic", "bootstrap"])
def test_method_reaches_the_plan(run_cli, scores, method):
    # plan_items(method=...) had no CLI spelling: a pilot's variance was always the 'auto' choice
    # (--bootstrap sets the bootstrap's replicates; with --method analytic it is refused as unused)
    boot = {"bootstrap": 200} if method == "bootstrap" else {}
    flags = ["--bootstrap", "200"] if boot else []
    code, out, err = run_cli("plan", scores, "--halfwidth", "0.1", "--method", method, *flags, "-f", "json")
    assert code == 0, err
    row = json.loads(out)["results"][0]
    py = sis.plan_items("fleiss_kappa", halfwidth=0.1, pilot=sis.read_annotations(scores), method=method, **boot)
    expected = py.to_frame().iloc[0]
    assert row["n_items"] == py.n
    for key in ("value", "se_at_n", "halfwidth_at_n"):
        assert row[key] == pytest.approx(expected[key], abs=1e-12, rel=0), key
    other = dict(method="analytic") if method == "bootstrap" else dict(method="bootstrap", bootstrap=200)
    assert py.n != sis.plan_items("fleiss_kappa", halfwidth=0.1, pilot=sis.read_annotations(scores), **other).n


@pytest.mark.parametrize(("args", "needle"), [
    (["FILE", "--method", "boot"], "--method must be one of auto, analytic, bootstrap; got 'boot' (did you mean "
                                   "'bootstrap'?)"),
    (["FILE", "--method", "analytic", "--design", "items+raters"], "--method analytic has no rater term"),
    (["--value", "0.6", "--prevalence", "0.5,0.5", "--method", "bootstrap"], "--method is how a pilot FILE's variance"),
    (["FILE", "--judgments", "sheet.csv", "--method", "analytic"], "--method is not used with --judgments"),
])
def test_bad_method_is_refused_in_cli_spelling(run_cli, scores, args, needle):
    args = [scores if a == "FILE" else scores.parent / a if a == "sheet.csv" else a for a in args]
    code, out, err = run_cli("plan", *args, "--halfwidth", "0.1")
    assert code == 2 and out == "", err
    assert needle in err and err.count("\n") == 1, err


def test_plan_messages_name_the_options(run_cli, scores):
    """plan's errors and notes read 'use ci=softirr_stats.Bootstrap(...)', 'design='cluster' needs
    design_effect=, ... or (with a pilot) cluster=' (plan has no --cluster) and 'cluster_size not given'."""
    import re

    python = re.compile(r"\b(ci|design|design_effect|cluster_size|icc|raters|cluster)=")
    for args, said in (
        (["-c", "light_kappa", "--method", "analytic"], "use --method bootstrap (or auto)"),
        (["--design", "cluster"], "--design cluster needs --design-effect, or --cluster-size and --icc"),
        (["--design", "cluster", "--design-effect", "2", "-f", "json"], "--cluster-size not given"),
    ):
        code, out, err = run_cli("plan", scores, "--halfwidth", "0.1", *args)
        text = " ".join((out + err).split())
        assert said in text and not python.search(text), (args, text)


ASSUMED = ["--value", "0.6", "--prevalence", "0.3,0.7", "--raters", "3"]


@pytest.mark.parametrize(("source", "args", "needle"), [
    ("assumed", ["--halfwidth", "0.1", "--bootstrap", "5"], "--bootstrap sets a pilot FILE's bootstraps; with assumed"),
    ("assumed", ["--halfwidth", "0.1", "--seed", "9"], "--seed sets a pilot FILE's bootstraps; with assumed"),
    ("assumed", ["--halfwidth", "0.1", "--item", "id"], "--item is an option for reading a pilot FILE"),
    ("assumed", ["--halfwidth", "0.1", "--na-values", "x"], "--na-values is an option for reading a pilot FILE"),
    ("assumed", ["--halfwidth", "0.1", "--feature", "x"], "--feature is an option for reading a pilot FILE"),
    ("assumed", ["--halfwidth", "0.1", "--span-rule", "exact"], "--span-rule is an option for reading a pilot FILE"),
    ("assumed", ["--halfwidth", "0.1", "--device", "cpu"],
     "--device sets where a pilot FILE's coefficients and bootstraps are computed; a plan from assumed values"),
    ("assumed", ["--halfwidth", "0.1", "--alpha", "0.1"], "--alpha sets the test of a power target, which --null"),
    ("assumed", ["--halfwidth", "0.1", "--test", "null"], "--test sets the test of a power target"),
    ("FILE", ["--halfwidth", "0.1", "--two-sided"], "--two-sided sets the test of a power target"),
    ("FILE", ["--null", "0.2", "--level", "0.9"], "--level is the level of the interval whose half-width"),
    ("FILE", ["--halfwidth", "0.1", "--method", "analytic", "--seed", "3"],
     "--seed sets the pilot's bootstraps; --method analytic takes the linearised terms"),
    ("assumed", ["--halfwidth", "0.1", "--rater-variance", "0.001"],
     "--rater-variance is the between-rater variance b of a study whose raters are sampled (its term b / R, "
     "--design items+raters); --design items keeps the raters fixed"),
    ("assumed", ["--halfwidth", "0.1", "--rater-variance", "0.01"],  # ASSUMED has --raters 3: given once
     "--rater-variance is the between-rater variance"),
    ("assumed", ["--halfwidth", "0.1", "--design", "cluster", "--design-effect", "2", "--rater-variance", "0.01"],
     "--design cluster keeps the raters fixed"),
    ("assumed", ["--halfwidth", "0.1", "--cluster-size", "4"], "--cluster-size applies to --design cluster"),
    ("assumed", ["--halfwidth", "0.1", "--design", "cluster", "--design-effect", "2", "--icc", "0.1",
                 "--cluster-size", "3"], "give --design-effect, or --cluster-size and --icc"),
])
def test_options_the_plan_would_not_use_are_refused(run_cli, scores, source, args, needle):
    """--bootstrap / --seed with assumed values, --alpha / --test / --two-sided without --null, --level without
    --halfwidth, the reading options without a FILE and --rater-variance outside --design items+raters were
    ignored without a word (--rater-variance under --design items added b whole: 287 items for 177)."""
    src = [scores] if source == "FILE" else ASSUMED
    code, out, err = run_cli("plan", *src, *args)
    assert code == 2 and out == "", err
    assert needle in " ".join(err.split()) and "None" not in err, err


@pytest.mark.parametrize(("args", "said"), [
    (["FILE", "--halfwidth", "0.1", "--raters", "5"],
     "--raters 5 differs from the pilot's 4 raters: with --design items the per-item variance is the pilot's"),
    (["FILE", "--halfwidth", "0.1", "--raters", "5"],
     "or from assumed values (--value and --prevalence instead of a pilot FILE, with --raters 5)"),
    (["FILE", "--null", "0.2", "--test", "null"], "--test null needs the variance under H0, which a pilot does not "
                                                  "give: use --test wald or assumed values (--value and --prevalence"),
    (["--value", "-0.2", "--prevalence", "0.3,0.7", "--halfwidth", "0.1"],
     "--value -0.2 is below what the planning population gives for fleiss_kappa"),
    (["--value", "0.6", "--prevalence", "0.3,0.7", "--null", "0.7"], "--null 0.7 must be below the assumed value"),
    (["--value", "0.6", "--prevalence", "0.3,0.7", "--raters", "3", "--null", "0.4", "--test", "null",
      "--design", "items+raters"], "--test null has no rater term: --design items+raters needs --test wald"),
])
def test_plan_errors_read_as_flags(run_cli, scores, args, said):
    """'raters=5 differs ... assumed=dict(value=..., ...)' and "power['test']='null' ... use test='wald'" were
    Python spellings on the command line."""
    import re

    code, out, err = run_cli("plan", *[scores if a == "FILE" else a for a in args])
    text = " ".join(err.split())
    assert code == 2 and said in text, text
    assert not re.search(r"\w=|\[['\"]|dict\(", text), text


def test_device_sets_where_a_pilots_plan_is_computed(run_cli, scores, monkeypatch):
    """--device was taken and said nothing on what it did: with a pilot FILE the plan's coefficients and bootstraps
    run inside it (as agree's), and --json records it; with assumed values it is refused (above)."""
    import softirr_stats.planning as planning
    from softirr_stats.base._device import current_device

    seen, real = [], planning.plan_items

    def spy(*args, **kwargs):
        seen.append(current_device())
        return real(*args, **kwargs)

    monkeypatch.setattr(planning, "plan_items", spy)
    code, out, err = run_cli("plan", scores, "--halfwidth", "0.1", "--method", "bootstrap", "--bootstrap", "200",
                             "--device", "cpu", "-f", "json")
    assert code == 0, err
    assert seen == ["cpu"]
    doc = json.loads(out)
    assert doc["meta"]["compute"]["device"] == "cpu"
    py = real("fleiss_kappa", halfwidth=0.1, pilot=sis.read_annotations(scores), method="bootstrap",
              bootstrap=200).to_frame()
    assert doc["results"][0]["n_items"] == py["n_items"][0]
    assert doc["results"][0]["se_at_n"] == pytest.approx(py["se_at_n"][0], abs=1e-12, rel=0)


def test_rater_variance_with_raters_sampled_is_python_s_plan(run_cli):
    code, out, err = run_cli("plan", *ASSUMED, "--halfwidth", "0.1", "--design", "items+raters",
                             "--rater-variance", "0.001", "-f", "json")
    assert code == 0, err
    row = json.loads(out)["results"][0]
    py = sis.plan_items("fleiss_kappa", halfwidth=0.1, design="items+raters",
                        assumed=dict(value=0.6, prevalence=[0.3, 0.7], raters=3, rater_variance=0.001)).to_frame()
    assert row["n_items"] == py["n_items"][0] == 200
    assert row["se_at_n"] == pytest.approx(py["se_at_n"][0], abs=1e-12, rel=0)


def test_an_unused_bootstrap_of_auto_is_a_note_in_flags(run_cli, scores):
    code, out, err = run_cli("plan", scores, "--halfwidth", "0.1", "--bootstrap", "300", "-f", "csv")
    assert code == 0, err
    text = " ".join((out + err).split())
    assert "--bootstrap 300 unused: --method auto took the linearised terms" in text, text
    assert "give --method bootstrap for the pilot's item bootstrap" in text and "bootstrap=" not in text


def test_json_and_csv_keep_the_plans_notes_and_warnings(run_cli, scores, tmp_path):
    # the notes and warnings went to stderr only: the JSON (and its --json file) and the csv had none of them
    small = tmp_path / "small.csv"
    pd.read_csv(scores).query("item < 'i15'").to_csv(small, index=False)
    code, out, err = run_cli("plan", small, "-c", "fleiss_kappa", "-c", "gwet_ac1", "--halfwidth", "0.1", "-f", "json",
                             "--json", tmp_path / "p.json")
    assert code == 0, err
    data = json.loads(out)
    assert json.loads((tmp_path / "p.json").read_text())["meta"]["warnings"] == data["meta"]["warnings"]
    ann = sis.read_annotations(small)
    for row in data["results"]:
        with pytest.warns(UserWarning) as caught:  # the small pilot's warning, as Python raises it
            py = sis.plan_items(row["coefficient"], halfwidth=0.1, pilot=ann)
        assert row["n_items"] == py.n and abs(row["value"] - py.to_frame()["value"][0]) < 1e-12
        own = list(py.notes) + [str(w.message) for w in caught]
        assert isinstance(row["warnings"], list) and len(row["warnings"]) == len(own) >= 2
        assert any("extrapolating from a pilot of 15 items" in w for w in row["warnings"])
        assert set(row["warnings"]) <= set(data["meta"]["warnings"])
        assert all(line in err for line in row["warnings"])  # stderr still says them
    code, out, err = run_cli("plan", small, "--halfwidth", "0.1", "-f", "csv")
    assert code == 0, err
    rec = pd.read_csv(io.StringIO(out)).to_dict("records")[0]
    assert "extrapolating from a pilot of 15 items" in rec["warnings"]


@pytest.fixture()
def texts(tmp_path):
    """Free-text findings of 3 raters on 12 items: a string measure changes the plan."""
    rows = [["fatigue", "asthenia", "tiredness"], ["chest pain", "thoracic pain", "chest pain"],
            ["dyspnea", "dyspnoea", "dyspnea"], ["headache", "cephalalgia", "headache"], ["nausea", "nausea", "vomit"],
            ["fever", "fevers", "fever"], ["cough", "coughing", "cough"], ["rash", "rashes", "rash"],
            ["dizziness", "vertigo", "dizzyness"], ["back pain", "lumbago", "back pain"],
            ["insomnia", "insomnia", "sleeplessness"], ["anxiety", "anxiousness", "anxiety"]]
    path = tmp_path / "texts.csv"
    pd.DataFrame([(f"n{i:02d}", r, lab) for i, row in enumerate(rows) for r, lab in zip("abc", row, strict=True)],
                 columns=["item", "rater", "label"]).to_csv(path, index=False)
    return path


def test_similarity_is_the_option_and_measure_its_older_name(run_cli, texts):
    """plan took --measure only, though docs/command_line.md names --similarity (-m) with --measure its older name."""
    rows = []
    for flag in ("--similarity", "-m", "--measure"):
        code, out, err = run_cli("plan", texts, "--halfwidth", "0.2", flag, "levenshtein", "-f", "json")
        assert code == 0, err
        rows.append(json.loads(out)["results"])
    py = sis.plan_items("fleiss_kappa", halfwidth=0.2, pilot=sis.read_annotations(texts), similarity="levenshtein")
    assert rows[0] == rows[1] == rows[2] and rows[0][0]["n_items"] == py.n


@pytest.mark.parametrize("args", [["-m", "levenshtein,indel"], ["-m", "levenshtein", "-m", "indel"],
                                  ["--similarity", "levenshtein", "--measure", "indel"]])
def test_a_plan_takes_one_similarity(run_cli, texts, args):
    """-m a,b was refused as "unknown --measure 'a,b'" and -m a -m b planned b alone without a word."""
    code, out, err = run_cli("plan", texts, "--halfwidth", "0.2", *args)
    assert code == 2 and out == "", err
    assert ("--similarity takes one similarity in softirr plan (a plan is for one); got 2: levenshtein, indel; "
            "run softirr plan once for each") in " ".join(err.split())


def test_model_and_cache_reach_the_similarity(run_cli, texts, tmp_path):
    """plan had no --model (its own error for -m nli pointed to one) and no --cache."""
    code, out, err = run_cli("plan", texts, "--halfwidth", "0.2", "-m", "nli")
    assert code == 2 and "--similarity nli needs --model (a local model directory or hub name)" in err, err
    cache = tmp_path / "scores.sqlite"
    code, out, err = run_cli("plan", texts, "--halfwidth", "0.2", "-m", "indel", "--cache", cache, "-f", "json")
    assert code == 0, err
    from softirr_stats.equivalence import Cached, Indel

    assert Cached(Indel(), cache).n_cached() > 0
    py = sis.plan_items("fleiss_kappa", halfwidth=0.2, pilot=sis.read_annotations(texts), similarity="indel")
    assert json.loads(out)["results"][0]["n_items"] == py.n


def test_feature_and_span_rule_reach_the_pilots_reader(run_cli):
    """A WebAnno pilot whose layer has two features could not be read: plan had no --feature (nor --span-rule)."""
    import pathlib

    webanno = pathlib.Path(__file__).resolve().parents[1] / "fixtures" / "real_exports" / "webanno" / \
        "simpleSpanDiffWithLabelTest"
    code, out, err = run_cli("plan", webanno, "--halfwidth", "0.3", "--feature", "bogus")
    assert code == 2 and "--feature must be one of ['PosValue', 'coarseValue']" in err, err
    code, out, err = run_cli("plan", webanno, "--halfwidth", "0.3", "--feature", "PosValue", "--span-rule", "overlap")
    assert "cannot read" not in err and "No such option" not in err, err


def test_how_the_plan_was_computed_is_a_note_not_a_warning(run_cli, scores, tmp_path):
    """csv printed "warning: variance from the pilot's linearised terms ..." and "warning: per-item variance ...":
    lines that say how a number was computed are notes (docs/command_line.md); what may make it off stays a
    warning."""
    small = tmp_path / "small.csv"
    pd.read_csv(scores).query("item < 'i15'").to_csv(small, index=False)
    code, out, err = run_cli("plan", small, "--halfwidth", "0.1", "--bootstrap", "300", "-f", "csv")
    assert code == 0, err
    assert "note: variance from the pilot's linearised (analytic) terms" in err, err
    assert "note: --bootstrap 300 unused: --method auto took the linearised terms" in err, err
    assert "warning: extrapolating from a pilot of 15 items" in err and "warning: variance" not in err, err
    code, out, err = run_cli("plan", *ASSUMED, "--halfwidth", "0.1", "--null", "0.4", "-f", "csv")
    assert code == 0, err
    assert "note: per-item variance" in err and "warning: per-item variance" not in err, err
    assert "warning: power is first-order" in err, err
