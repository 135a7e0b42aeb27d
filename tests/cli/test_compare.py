"""``softirr compare`` from the real entry point, and the report's Comparisons section."""

import json

import numpy as np
import pandas as pd
import pytest

import softirr_stats as sis
from softirr_stats.cli import main

pytestmark = pytest.mark.filterwarnings("ignore::softirr_stats.DegenerateWarning")


def run(capsys, *args):
    with pytest.raises(SystemExit) as exit_:
        main(list(args))
    out, err = capsys.readouterr()
    return exit_.value.code, out, err


@pytest.fixture()
def files(tmp_path):
    rng = np.random.default_rng(0)
    n = 70
    truth = rng.integers(0, 3, n)
    rows = []
    for r, p in [("h1", 0.7), ("h2", 0.7), ("h3", 0.6), ("h4", 0.6), ("llm", 0.8)]:
        lab = np.where(rng.random(n) < p, truth, rng.integers(0, 3, n))
        rows += [(f"d{i}", r, ["cat", "dog", "cow"][k]) for i, k in enumerate(lab)]
    one = tmp_path / "round1.csv"
    pd.DataFrame(rows, columns=["item", "rater", "label"]).to_csv(one, index=False)
    two = tmp_path / "round2.csv"
    df = pd.DataFrame(rows, columns=["item", "rater", "label"]).sample(frac=1.0, random_state=1)
    df.assign(item=df["item"].str.replace("d", "e")).to_csv(two, index=False)
    return one, two


def test_two_files_equal_the_python_api(capsys, files, tmp_path):
    one, two = files
    code, out, err = run(capsys, "compare", str(one), str(two), "-c", "fleiss_kappa", "--bootstrap", "300", "-f",
                         "json", "--json", str(tmp_path / "c.json"))
    assert code == 0, err
    row = json.loads(out)["results"][0]
    a = sis.fleiss_kappa(sis.read_annotations(one))
    b = sis.fleiss_kappa(sis.read_annotations(two))
    py = sis.compare(a, b, ci=sis.Bootstrap(n=300, seed=0), labels=("round1.csv", "round2.csv"))
    assert row["difference"] == pytest.approx(py.difference, abs=1e-14) == 0.0
    assert (row["ci_low"], row["ci_high"]) == pytest.approx((py.ci_low, py.ci_high), abs=1e-12)
    assert row["method"] == "independent bootstrap-percentile" and row["n_common"] == 0
    assert json.loads((tmp_path / "c.json").read_text())["results"][0]["difference"] == row["difference"]


def test_two_rounds_by_the_same_raters_on_the_same_items(capsys, files, tmp_path):
    # the files were merged to choose the measures, and the same rater on the same item in both was refused as a
    # clash; the default method was the percentile where the Python API's default is auto (bca-t here)
    one, _ = files
    df = pd.read_csv(one)
    rng = np.random.default_rng(5)
    flip = rng.random(len(df)) < 0.2
    df.loc[flip, "label"] = rng.choice(["cat", "dog", "cow"], int(flip.sum()))
    two = tmp_path / "round2_same.csv"
    df.to_csv(two, index=False)
    code, out, err = run(capsys, "compare", str(one), str(two), "-c", "krippendorff_alpha", "--bootstrap", "200",
                         "-f", "json")
    assert code == 0, err
    row = json.loads(out)["results"][0]
    a = sis.krippendorff_alpha(sis.read_annotations(one))
    b = sis.krippendorff_alpha(sis.read_annotations(two))
    py = sis.compare(a, b, ci=sis.Bootstrap(n=200, seed=0))
    assert row["n_common"] == 70 and row["method"] == "paired bootstrap-bca-t" == py.method
    assert (row["difference"], row["ci_low"], row["ci_high"], row["p_value"]) == pytest.approx(
        (py.difference, py.ci_low, py.ci_high, py.p_value), abs=1e-12)


@pytest.mark.parametrize("fmt", ["table", "csv", "json", "markdown", "latex"])
def test_every_mode_in_every_format(capsys, files, fmt):
    one, _ = files
    for args in (["--groups", "h1,h2;h3,h4", "--permutations", "50"], ["--candidate", "llm"],
                 ["--reference", "h1", "-c", "cohen_kappa"], ["--leave-one-out", "-c", "fleiss_kappa"],
                 ["-m", "exact", "-m", "levenshtein"], ["-c", "fleiss_kappa", "-c", "gwet_ac1", "--analytic"]):
        code, out, err = run(capsys, "compare", str(one), *args, "--bootstrap", "100", "-f", fmt)
        assert code == 0, (args, err)
        assert out.strip(), args


def test_bad_options_are_one_error_line(capsys, files):
    one, two = files
    code, _, err = run(capsys, "compare", str(one), "--candidate", "gpt")
    assert code == 2 and err.count("error:") == 1 and "--candidate 'gpt' is not a rater" in err
    code, _, err = run(capsys, "compare", str(one), str(two), "--reference", "h1")
    assert code == 2 and "give exactly one of" in err
    code, _, err = run(capsys, "compare", str(one), "--groups", "h1,h2")
    assert code == 2 and "two groups separated by ';'" in err
    code, _, err = run(capsys, "compare", str(one))
    assert code == 2 and "give exactly one of" in err


def test_report_has_a_comparisons_section(files):
    one, _ = files
    ann = sis.read_annotations(one)
    c = sis.compare_groups(ann, ["h1", "h2"], ["h3", "h4"], ci=sis.Bootstrap(n=100))
    html = sis.reporting.build_report(ann, comparisons=[c])
    assert 'id="comparisons"' in html and "difference of each comparison" in html
    assert 'id="comparisons"' not in sis.reporting.build_report(ann)
