"""Every command with a JSON output traces it to its inputs through one record (``cli._output.provenance_meta``):
``softirr_stats_version``, ``inputs`` (each annotation input's path and sha256; an export folder's digest of its
files) and ``command``; a judged-pairs file beside its path as ``judgments_sha256`` / ``gold_sha256`` (``softirr
model``'s record is checked with its fit, in test_model_gold.py)."""

import hashlib
import json
import pathlib

import pytest

import softirr_stats as sis
from softirr_stats.base._provenance import package_version
from softirr_stats.data import demo_path

BRATIAA = pathlib.Path(__file__).resolve().parents[1] / "fixtures" / "bratiaa_example"


def _sha(path):
    return hashlib.sha256(pathlib.Path(path).read_bytes()).hexdigest()


def _tree_digest(root):
    """A folder's digest written out by hand: sorted ``relpath NUL sha256 LF`` lines of every file."""
    lines = sorted(f"{p.relative_to(root).as_posix()}\0{_sha(p)}\n" for p in root.rglob("*") if p.is_file())
    return hashlib.sha256("".join(lines).encode()).hexdigest()


def _traced(meta, command, inputs):
    """``meta`` records the version, ``inputs`` ([(path, sha256)]) and the command as typed."""
    assert meta["softirr_stats_version"] == package_version()
    assert meta["inputs"] == [{"path": str(p), "sha256": h} for p, h in inputs]
    assert meta["command"].startswith(f"softirr {command} "), meta["command"]


@pytest.fixture()
def two_files(tmp_path, write_ratings):
    return write_ratings(tmp_path / "a.csv"), write_ratings(tmp_path / "b.csv", seed=2)


def test_compare_records_both_files(two_files, run_cli):
    a, b = two_files
    code, out, err = run_cli("compare", a, b, "-c", "fleiss_kappa", "--bootstrap", "50", "-f", "json")
    assert code == 0, err
    doc = json.loads(out)
    _traced(doc["meta"], "compare", [(a, _sha(a)), (b, _sha(b))])
    row = doc["results"][0]
    want_a, want_b = (sis.fleiss_kappa(sis.read_annotations(p)).value for p in (a, b))
    assert row["value_a"] == pytest.approx(want_a, abs=1e-12) and row["value_b"] == pytest.approx(want_b, abs=1e-12)
    assert row["difference"] == pytest.approx(want_a - want_b, abs=1e-12)


def test_compare_json_file_holds_the_same_record(two_files, tmp_path, run_cli):
    a, b = two_files
    path = tmp_path / "c.json"
    code, out, err = run_cli("compare", a, "-c", "fleiss_kappa,krippendorff_alpha", "--bootstrap", "50",
                             "--json", path)
    assert code == 0, err
    doc = json.loads(path.read_text())
    _traced(doc["meta"], "compare", [(a, _sha(a))])
    ann = sis.read_annotations(a)
    want = sis.fleiss_kappa(ann).value - sis.krippendorff_alpha(ann).value
    assert doc["results"][0]["difference"] == pytest.approx(want, abs=1e-12)


def test_spans_records_an_export_folder_by_its_digest(run_cli):
    code, out, err = run_cli("spans", BRATIAA, "--bootstrap", "0", "-f", "json")
    assert code == 0, err
    doc = json.loads(out)
    _traced(doc["meta"], "spans", [(BRATIAA, _tree_digest(BRATIAA))])
    assert doc["meta"]["value"] == pytest.approx(sis.span_agreement(BRATIAA).value, abs=1e-12)


def test_demo_records_the_bundled_file(run_cli):
    code, out, err = run_cli("demo", "--bootstrap", "0", "--no-embedding", "-f", "json")
    assert code == 0, err
    doc = json.loads(out)
    _traced(doc["meta"], "demo", [(demo_path(), _sha(demo_path()))])
    row = next(r for r in doc["results"] if r["coefficient"] == "fleiss_kappa" and r["similarity"] == "exact")
    assert row["value"] == pytest.approx(sis.fleiss_kappa(sis.read_annotations(demo_path())).value, abs=1e-12)


def test_plan_records_its_pilot_and_none_for_assumed_values(two_files, run_cli):
    a, _ = two_files
    code, out, err = run_cli("plan", a, "--halfwidth", "0.2", "-f", "json")
    assert code == 0, err
    doc = json.loads(out)
    _traced(doc["meta"], "plan", [(a, _sha(a))])
    assert doc["results"][0]["n_items"] == sis.plan_items("fleiss_kappa", halfwidth=0.2,
                                                          pilot=sis.read_annotations(a)).n
    code, out, err = run_cli("plan", "--value", "0.6", "--prevalence", "0.5,0.5", "--halfwidth", "0.1",
                             "-f", "json")
    assert code == 0, err
    _traced(json.loads(out)["meta"], "plan", [])  # assumed values: no input file


def test_describe_records_its_files(tmp_path, run_cli, write_ratings):
    a, b = write_ratings(tmp_path / "a.csv", raters=("r1", "r2")), write_ratings(tmp_path / "b.csv", seed=2, raters=("r3",))
    path = tmp_path / "d.json"
    code, out, err = run_cli("describe", a, b, "-f", "json", "--json", path)
    assert code == 0, err
    for doc in (json.loads(out), json.loads(path.read_text())):
        _traced(doc["meta"], "describe", [(a, _sha(a)), (b, _sha(b))])
        assert doc["meta"]["n_ratings"] == sis.read_annotations([a, b]).n_ratings


def test_score_json_records_its_files(two_files, tmp_path, run_cli):
    a, _ = two_files
    path = tmp_path / "s.json"
    code, out, err = run_cli("score", a, "-m", "levenshtein", "--cache", tmp_path / "c.sqlite",
                             "--no-progress", "--json", path)
    assert code == 0, err
    doc = json.loads(path.read_text())
    _traced(doc["meta"], "score", [(a, _sha(a))])
    assert doc["runs"][0]["n_pairs"] <= len(sis.read_annotations(a).vocabulary) ** 2


def test_the_record_is_the_reports(capsys, two_files):
    # one record for the JSON and the HTML report (base._provenance.provenance): no second copy
    from softirr_stats.base._provenance import provenance
    from softirr_stats.cli._output import provenance_meta

    a, b = two_files
    assert provenance_meta([a, b]) == provenance([a, b], None)  # outside a command: no command line


def test_a_blinded_sheet_is_recorded_with_the_plan_it_is_read_with(tmp_path, run_cli, write_ratings):
    """A blinded sheet is read together with ``sheet.plan.csv`` (labels, q and draws are there): the JSON meta
    recorded only the sheet's sha256. The plan is recorded beside it, as the sheet is, and the report lists it."""
    import pandas as pd

    from softirr_stats.analysis import read_judging_sheet

    data = write_ratings(tmp_path / "d.csv")
    sheet, plan = tmp_path / "sheet.csv", tmp_path / "sheet.plan.csv"
    code, _, err = run_cli("judge", "plan", data, "-m", "indel", "-n", "20", "-o", sheet, "--seed", "1")
    assert code == 0 and plan.exists(), err
    blind = pd.read_csv(sheet, keep_default_na=False)
    blind["judgment"] = [float(a == b) for a, b in zip(blind["label_1"], blind["label_2"], strict=True)]
    blind.to_csv(sheet, index=False)
    code, out, err = run_cli("agree", data, "-m", "indel", "--judgments", sheet, "--bootstrap", "0", "-f", "json")
    assert code == 0, err
    doc = json.loads(out)
    meta = doc["meta"]
    assert (meta["judgments"], meta["judgments_sha256"]) == (str(sheet), _sha(sheet))
    assert (meta["judgments_plan"], meta["judgments_plan_sha256"]) == (str(plan), _sha(plan))
    assert meta["inputs"] == [{"path": str(data), "sha256": _sha(data)}]  # the annotation inputs, as before
    ann = sis.read_annotations(data)
    want = sis.krippendorff_alpha(ann, similarity="indel", judgments=read_judging_sheet(sheet)[0])
    assert doc["results"][0]["value"] == pytest.approx(want.value, abs=1e-12)
    # a filled plan is read alone: nothing beside it
    filled = pd.read_csv(plan, keep_default_na=False, dtype={"label_a": str, "label_b": str})
    filled["judgment"] = (filled["label_a"] == filled["label_b"]).astype(float)
    filled.to_csv(tmp_path / "filled.csv", index=False)
    code, out, err = run_cli("agree", data, "-m", "indel", "--judgments", tmp_path / "filled.csv", "--bootstrap", "0",
                             "-f", "json")
    assert code == 0, err
    meta = json.loads(out)["meta"]
    assert meta["judgments_sha256"] == _sha(tmp_path / "filled.csv") and "judgments_plan" not in meta
    # the report's provenance lists the plan's sha256 after the sheet's
    page = tmp_path / "r.html"
    code, _, err = run_cli("report", data, "-m", "indel", "--judgments", sheet, "--bootstrap", "0", "-o", page)
    assert code == 0, err
    text = page.read_text()
    assert f"<code>{_sha(sheet)}</code>" in text and f"<code>{_sha(plan)}</code>" in text
    assert text.index(_sha(sheet)) < text.index("judgments plan sha256") < text.index(_sha(plan))
