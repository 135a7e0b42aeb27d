"""``--cluster COLUMN`` / ``--strata COLUMN``: the cluster bootstrap and stratified resampling from the shell, equal
to ``Bootstrap(design="cluster", cluster=..., strata=...)`` in Python (the CLI had no route to either)."""

import json

import numpy as np
import pandas as pd
import pytest

import softirr_stats as sis
from softirr_stats.cli import main
from softirr_stats.cli._item_groups import STRATA_DESIGNS


def _clustered(tmp_path, n_docs=12, seed=2):
    """Sentences (items) within documents (clusters) of unequal size, two sites (strata), 3 annotators."""
    rng = np.random.default_rng(seed)
    rows = []
    for d in range(n_docs):
        p = rng.random()
        for s in range(int(rng.integers(2, 9))):
            truth = rng.random() < p
            for r in ("ann1", "ann2", "ann3"):
                lab = truth if rng.random() < 0.8 else not truth
                rows.append((f"doc{d}-s{s}", r, "pos" if lab else "neg", f"doc{d}", "A" if d < n_docs // 2 else "B"))
    df = pd.DataFrame(rows, columns=["item", "rater", "label", "document", "site"])
    path = tmp_path / "clustered.csv"
    df.to_csv(path, index=False)
    return path, df


def _run(capsys, *args):
    with pytest.raises(SystemExit) as ex:
        main([str(a) for a in args])
    out, err = capsys.readouterr()
    return ex.value.code, out, err


def _item_map(df, column):
    return dict(zip(df["item"], df[column], strict=False))


@pytest.mark.parametrize("strata", [False, True], ids=["cluster", "cluster within strata"])
def test_agree_cluster_equals_the_python_cluster_bootstrap(tmp_path, capsys, strata):
    path, df = _clustered(tmp_path)
    extra = ["--strata", "site"] if strata else []
    code, out, err = _run(capsys, "agree", path, "-c", "fleiss_kappa,krippendorff_alpha", "--cluster", "document",
                          *extra, "--bootstrap", 300, "--seed", 4, "-f", "json")
    assert code == 0, err
    got = json.loads(out)
    assert got["meta"]["design"] == "cluster" and got["meta"]["cluster"] == "document"
    assert ("design = cluster" in got["title"]) and ("basic intervals" in got["title"])
    ann = sis.read_annotations(path)
    ci = sis.Bootstrap(n=300, seed=4, design="cluster", cluster=_item_map(df, "document"),
                       strata=_item_map(df, "site") if strata else None)
    for row in got["results"]:
        want = getattr(sis, row["coefficient"])(ann, ci=ci)
        assert row["value"] == pytest.approx(want.value, abs=1e-12)
        assert (row["ci_low"], row["ci_high"]) == pytest.approx((want.ci_low, want.ci_high), abs=1e-12)
        assert "few_units" not in "; ".join(row["warnings"])  # the widening note names no Python keyword


def test_sensitivity_and_report_take_the_cluster_column(tmp_path, capsys):
    path, df = _clustered(tmp_path)
    code, out, err = _run(capsys, "sensitivity", path, "-c", "fleiss_kappa", "--cluster", "document",
                          "--bootstrap", 200, "-f", "json")
    assert code == 0, err
    row = json.loads(out)["results"][0]
    ann = sis.read_annotations(path)
    want = sis.fleiss_kappa(ann, ci=sis.Bootstrap(n=200, design="cluster", cluster=_item_map(df, "document")))
    assert (row["ci_low"], row["ci_high"]) == pytest.approx((want.ci_low, want.ci_high), abs=1e-12)
    page = tmp_path / "r.html"
    code, out, err = _run(capsys, "report", path, "-c", "fleiss_kappa", "--cluster", "document", "--bootstrap", 200,
                          "-o", page)
    assert code == 0, err
    html = page.read_text()
    assert "design = cluster" in html and f"{want.ci_low:.4f}" in html and f"{want.ci_high:.4f}" in html


def test_strata_alone_stratifies_the_items_design(tmp_path, capsys):
    path, df = _clustered(tmp_path)
    code, out, err = _run(capsys, "agree", path, "-c", "fleiss_kappa", "--strata", "site", "--bootstrap", 200,
                          "-f", "json")
    assert code == 0, err
    row = json.loads(out)["results"][0]
    ann = sis.read_annotations(path)
    want = sis.fleiss_kappa(ann, ci=sis.Bootstrap(n=200, strata=_item_map(df, "site")))
    plain = sis.fleiss_kappa(ann, ci=sis.Bootstrap(n=200))
    assert (row["ci_low"], row["ci_high"]) == pytest.approx((want.ci_low, want.ci_high), abs=1e-12)
    assert (want.ci_low, want.ci_high) != pytest.approx((plain.ci_low, plain.ci_high), abs=1e-9)  # the strata changed the interval: it was used


def test_cluster_and_strata_refusals_name_the_flags(tmp_path, capsys):
    path, df = _clustered(tmp_path)
    two = df.copy()
    two.loc[0, "document"] = "elsewhere"  # one rating row of an item in another document
    twice = tmp_path / "twice.csv"
    two.to_csv(twice, index=False)
    blank = df.copy()
    blank["document"] = blank["document"].astype(object)
    blank.loc[5, "document"] = None
    gap = tmp_path / "gap.csv"
    blank.to_csv(gap, index=False)
    base = ["agree", path, "-c", "fleiss_kappa"]
    for args, said in (
        ([*base, "--design", "cluster"], "--design cluster needs --cluster COLUMN"),
        ([*base, "--cluster", "document", "--design", "raters"], "--cluster resamples clusters of items"),
        ([*base, "--cluster", "document", "--analytic"], "--cluster is used by the bootstrap, not by --analytic"),
        ([*base, "--cluster", "document", "--bootstrap", 0], "--bootstrap 0 asks for none"),
        ([*base, "--strata", "site", "--design", "raters"], "--strata resamples within strata"),
        ([*base, "--cluster", "doc"], "has no column 'doc'; its columns are item, rater, label, document, site"),
        (["agree", twice, "-c", "fleiss_kappa", "--cluster", "document"], "has 2 values in column 'document'"),
        (["agree", gap, "-c", "fleiss_kappa", "--cluster", "document"], "has no value in column 'document'"),
        ([*base, "--cluster", "document", "--item", "item", "--rater", "rater", path],
         "reads its column from one table FILE"),
    ):
        code, out, err = _run(capsys, *args)
        assert code == 2, (args, err)
        assert said in " ".join(err.split()), (said, err)


def test_strata_designs_are_the_library_designs_with_strata():
    from softirr_stats.uncertainty._bootstrap import BOOTSTRAP_DESIGNS

    assert set(STRATA_DESIGNS) == {n for n, rec in BOOTSTRAP_DESIGNS.items() if rec.strata}


@pytest.mark.filterwarnings("ignore::softirr_stats.comparison._compare.ComparisonWarning")
def test_compare_takes_the_cluster_column_in_every_mode(tmp_path, capsys):
    path, df = _clustered(tmp_path)
    other = df.assign(label=df["label"].where(df.index % 5 != 0, "neg"))
    path2 = tmp_path / "round2.csv"
    other.to_csv(path2, index=False)
    ann, ann2 = sis.read_annotations(path), sis.read_annotations(path2)
    ci = sis.Bootstrap(n=200, seed=1, design="cluster", cluster=_item_map(df, "document"))
    boot = ["--cluster", "document", "--bootstrap", 200, "--seed", 1, "-f", "json"]
    code, out, err = _run(capsys, "compare", path, path2, "-c", "fleiss_kappa", *boot)
    assert code == 0, err
    got = json.loads(out)
    assert got["meta"]["design"] == "cluster" and got["meta"]["cluster"] == "document"
    want = sis.compare(sis.fleiss_kappa(ann), sis.fleiss_kappa(ann2), ci=ci)
    row = got["results"][0]
    assert (row["difference"], row["ci_low"], row["ci_high"]) == pytest.approx(
        (want.difference, want.ci_low, want.ci_high), abs=1e-12)
    code, out, err = _run(capsys, "compare", path, "-c", "fleiss_kappa,gwet_ac1", *boot)
    assert code == 0, err
    want = sis.compare(sis.fleiss_kappa(ann), sis.gwet_ac1(ann), ci=ci)
    row = json.loads(out)["results"][0]
    assert (row["ci_low"], row["ci_high"]) == pytest.approx((want.ci_low, want.ci_high), abs=1e-12)
    code, out, err = _run(capsys, "compare", path, "--reference", "ann1", *boot)
    assert code == 0, err
    want = sis.against_reference(ann, "ann1", coefficient="cohen_kappa", ci=ci)
    got = {r["rater"]: r for r in json.loads(out)["results"]}
    for rec in want.by_rater.itertuples():
        assert (got[rec.rater]["ci_low"], got[rec.rater]["ci_high"]) == pytest.approx((rec.ci_low, rec.ci_high),
                                                                                       abs=1e-12)
    moved = other.assign(document=other["document"].where(other["item"] != "doc0-s0", "doc5"))
    moved_path = tmp_path / "moved.csv"
    moved.to_csv(moved_path, index=False)
    for args, said in (
        ([path, moved_path, "--cluster", "document"], "item 'doc0-s0' is in 'doc0'"),
        ([path, path2, "--cluster", "document", "--independent"], "--independent makes them different items"),
        ([path, "--candidate", "ann3", "--cluster", "document"], "--cluster is not used with --candidate"),
    ):
        code, out, err = _run(capsys, "compare", *args)
        assert code == 2 and said in " ".join(err.split()), (args, err)


def test_a_stratified_interval_says_so_in_the_title_and_the_report(tmp_path, capsys):
    """The title read 'design = items' with --strata as without; the interval depends on the strata."""
    path, _ = _clustered(tmp_path)
    code, out, err = _run(capsys, "agree", path, "-c", "fleiss_kappa", "--strata", "site", "--bootstrap", 100)
    assert code == 0 and "design = items within 2 strata" in " ".join(out.split()), out
    page = tmp_path / "r.html"
    code, out, err = _run(capsys, "report", path, "-c", "fleiss_kappa", "--cluster", "document", "--strata", "site",
                          "--bootstrap", 100, "-o", page)
    assert code == 0 and "design = cluster within 2 strata" in page.read_text(), err


def test_cluster_on_an_export_says_it_needs_a_long_table(capsys):
    from pathlib import Path

    export = Path(__file__).parents[1] / "fixtures" / "real_exports" / "doccano" / "download_text_classification.jsonl"
    code, out, err = _run(capsys, "agree", export, "--cluster", "doc", "--bootstrap", 100)
    said = " ".join(err.split())
    assert code == 2 and "reads a column of a long table" in said and "is a doccano export" in said, err
    assert "--item" not in said  # not a pointer to an option the export refuses


@pytest.mark.filterwarnings("ignore::softirr_stats.FewUnitsWarning")  # strata of 2 items: said, not tested here
def test_a_stratum_of_one_cluster_gets_advice_the_command_line_takes(tmp_path, capsys):
    # the library's advice (design='items') read "--design items", which --cluster refuses, and which would resample
    # the items of a cluster one by one (the clustering broken); the advice now follows the design
    path, df = _clustered(tmp_path)
    lone = df.copy()
    lone.loc[lone["document"] == "doc11", "site"] = "C"  # site C has one document
    one = tmp_path / "one.csv"
    lone.to_csv(one, index=False)
    ann = sis.read_annotations(one)
    boot = dict(n=200, seed=3)
    with pytest.raises(ValueError) as err:  # Python keeps its spelling, and offers no other design
        sis.fleiss_kappa(ann, ci=sis.Bootstrap(**boot, design="cluster", cluster=_item_map(lone, "document"),
                                               strata=_item_map(lone, "site")))
    assert str(err.value).endswith("Merge each such stratum with a neighbouring one (strata=), leave out strata= where "
                                   "the clusters were not sampled within strata, give cluster= more clusters, or "
                                   "report the point estimate without an interval (ci=None; on the command line "
                                   "--bootstrap 0)") and "design='items'" not in str(err.value)
    base = ["agree", one, "-c", "fleiss_kappa", "--bootstrap", 200, "--seed", 3, "-f", "json"]
    code, out, err = _run(capsys, *base, "--cluster", "document", "--strata", "site")
    said = " ".join(err.split())
    assert code == 1 and json.loads(out)["results"][0]["value"] is None, err  # the row is kept, without a value
    assert ("--cluster document needs at least 2 clusters in each stratum of --strata site; got 1 in 1 of 3 strata"
            in said), err
    assert ("Merge each such stratum with a neighbouring one in the column site, leave out --strata (clusters "
            "resampled across the strata) where they were not sampled within strata, give --cluster a column with "
            "more clusters, or report the point estimate without an interval (--bootstrap 0)" in said), err
    assert "--design" not in said and "design=" not in said and "leave out --cluster" not in said, err
    merged = lone.replace({"site": {"C": "B"}})
    merged.to_csv(tmp_path / "merged.csv", index=False)
    # each way out runs, and gives the Python interval of the design it leaves
    for file, args, design in (
        (tmp_path / "merged.csv", ["--cluster", "document", "--strata", "site"],
         dict(design="cluster", cluster=_item_map(merged, "document"), strata=_item_map(merged, "site"))),
        (one, ["--cluster", "document"], dict(design="cluster", cluster=_item_map(lone, "document"))),
    ):
        code, out, err = _run(capsys, *base[:1], file, *base[2:], *args)
        assert code == 0, (args, err)
        row = json.loads(out)["results"][0]
        want = sis.fleiss_kappa(sis.read_annotations(file), ci=sis.Bootstrap(**boot, **design))
        assert (row["ci_low"], row["ci_high"]) == pytest.approx((want.ci_low, want.ci_high), abs=1e-12), args
    code, out, err = _run(capsys, "agree", one, "-c", "fleiss_kappa", "--bootstrap", 0, "-f", "json")
    assert code == 0 and json.loads(out)["results"][0]["value"] == pytest.approx(sis.fleiss_kappa(ann).value,
                                                                                  abs=1e-12), err
    # one cluster in all: no strata to merge
    lone["whole"] = "all"
    lone.to_csv(one, index=False)
    code, out, err = _run(capsys, *base, "--cluster", "whole")
    said = " ".join(err.split())
    assert code != 0 and "--cluster whole needs at least 2 clusters to resample; got 1:" in said, err
    assert ("Give --cluster a column with more clusters, or report the point estimate without an interval "
            "(--bootstrap 0)" in said and "--design" not in said and "--strata" not in said), err


@pytest.mark.filterwarnings("ignore::softirr_stats.FewUnitsWarning")
@pytest.mark.parametrize("design", ["items", "bayesian"])
def test_a_stratum_of_one_item_gets_no_advice_to_change_the_design(tmp_path, capsys, design):
    # the items designs with a stratum of one item were told "split the data into more clusters" (bayesian: "or use
    # design='items'", which resamples the same items within the same strata)
    path, df = _clustered(tmp_path)
    df.loc[df["item"] == "doc0-s0", "site"] = "C"  # site C has one item
    one = tmp_path / "one.csv"
    df.to_csv(one, index=False)
    with pytest.raises(ValueError) as err:
        sis.fleiss_kappa(sis.read_annotations(one), ci=sis.Bootstrap(n=100, design=design,
                                                                     strata=_item_map(df, "site")))
    assert str(err.value).endswith("Merge each such stratum with a neighbouring one (strata=), leave out strata= where "
                                   "the items were not sampled within strata, or report the point estimate without "
                                   "an interval (ci=None; on the command line --bootstrap 0)")
    advice = str(err.value).split("collapse to a point. ")[1]
    assert "design=" not in advice and "cluster" not in str(err.value)
    code, out, err = _run(capsys, "sensitivity", one, "-c", "fleiss_kappa", "--bootstrap", 100, "--design", design,
                          "--strata", "site", "-f", "json")
    assert code == 1, err  # the row is kept, with the reason it has no value
    note = " ".join("; ".join(json.loads(out)["results"][0]["warnings"]).split())
    assert (f"--design {design} needs at least 2 items in each stratum of --strata site; got 1 in 1 of 3 strata: "
            in note), note
    assert note.endswith("Merge each such stratum with a neighbouring one in the column site, leave out --strata "
                         "(items resampled across the strata) where they were not sampled within strata, or report "
                         "the point estimate without an interval (--bootstrap 0)"), note
    assert "design=" not in note and "strata=" not in note and "cluster" not in note and "ci=None" not in note


@pytest.mark.parametrize("flag", ["--cluster", "--strata"])
@pytest.mark.parametrize("command", ["agree", "sensitivity", "report", "compare"])
def test_the_item_column_is_refused_as_its_own_cluster_or_stratum(tmp_path, capsys, command, flag):
    # --cluster item / --strata item crashed ("internal error (AttributeError: 'DataFrame' object has no attribute
    # 'str')", exit 3): the item and group columns were taken from the table by the same name twice
    path, _ = _clustered(tmp_path)
    coefs = {"report": ["-o", tmp_path / "r.html", "-c", "fleiss_kappa"],
             "compare": ["-c", "fleiss_kappa", "-c", "krippendorff_alpha"]}.get(command, ["-c", "fleiss_kappa"])
    code, out, err = _run(capsys, command, path, *coefs, flag, "item", "--bootstrap", 50)
    said = " ".join(err.split())
    assert code == 2 and err.count("error:") == 1 and "internal error" not in err, err
    assert f"{flag} item names the item column (--item)" in said, err
    if flag == "--cluster":
        assert "the items design; leave out --cluster" in said, err
    else:
        assert "give --strata a column that groups the items" in said, err
