"""Results for papers: one-line reprs, Markdown / LaTeX tables, and the doctests that show them."""

import doctest
import importlib
import math

import numpy as np
import pandas as pd
import pytest

import softirr_stats as sis
from softirr_stats import reporting
from softirr_stats.agreement._result import AgreementResult, CrossKappaResult, MultilabelResult
from softirr_stats.base._format import escape_text, format_interval, format_number, level_text

pytestmark = pytest.mark.filterwarnings("ignore::softirr_stats.UnpairableItemsWarning")


def _boot(**kw):
    base = AgreementResult("fleiss_kappa", 0.47213, 0.6, 0.25, 90, 3)
    return base.with_interval(0.40712, 0.5239, 0.031, 0.95, "bootstrap-percentile", bootstrap_n=1000,
                              bootstrap_seed=0, bootstrap_design="items", replicates=np.zeros(1000), **kw)


def test_repr_is_one_line_with_value_interval_and_method():
    assert repr(_boot()) == ("AgreementResult(fleiss_kappa = 0.472 [0.407, 0.524], 95% bootstrap-percentile B=1000, "
                             "items=90, raters=3)")
    plain = AgreementResult("cohen_kappa", 0.5, 0.75, 0.5, 40, 2)
    assert repr(plain) == "AgreementResult(cohen_kappa = 0.500, items=40, raters=2)"
    undefined = AgreementResult("cohen_kappa", math.nan, 1.0, 1.0, 40, 2, warnings=("expected agreement is 1",))
    assert repr(undefined) == "AgreementResult(cohen_kappa = nan, items=40, raters=2, warnings=1)"
    analytic = plain.with_interval(0.3, 0.7, 0.1, 0.9, "analytic")
    assert repr(analytic) == "AgreementResult(cohen_kappa = 0.500 [0.300, 0.700], 90% analytic, items=40, raters=2)"


def test_repr_never_dumps_replicates_or_tables():
    r = _boot()
    assert "\n" not in repr(r) and len(repr(r)) < 200 and "array" not in repr(r)
    m = MultilabelResult("multilabel_fleiss", 0.5, 0.7, 0.4, 10, 3, floor=-0.2, raw_prevalence=0.3,
                         by_label=pd.DataFrame({"label": ["a"] * 500}), details={"replicates": np.zeros(10**5)})
    assert repr(m) == ("MultilabelResult(multilabel_fleiss = 0.500, floor=-0.200, raw_prevalence=0.300, items=10, "
                       "raters=3)")
    x = CrossKappaResult("cross_kappa", 0.4, 0.6, 0.3, 20, 4, normalized=0.8, irr_x=0.5, irr_y=0.6)
    assert repr(x) == ("CrossKappaResult(cross_kappa = 0.400, normalized=0.800, irr_x=0.500, irr_y=0.600, "
                       "items=20, raters=4)")


def test_repr_of_real_results():
    x = np.random.default_rng(0).integers(0, 3, (40, 3)).tolist()
    r = sis.fleiss_kappa(x, ci=sis.Bootstrap(n=200, seed=1))
    assert repr(r).startswith(f"AgreementResult(fleiss_kappa = {r.value:.3f} [{r.ci_low:.3f}, {r.ci_high:.3f}], "
                              "95% bootstrap-bca-t B=200, items=40, raters=3")  # the default at 40 items
    s = sis.fleiss_kappa([[f"l{v}" for v in row] for row in x], similarity="levenshtein")
    assert ", similarity=levenshtein," in repr(s)


def _md_rows(text):
    return [line for line in text.splitlines() if line.startswith("|")]


def test_to_markdown_table_and_note():
    md = _boot().to_markdown()
    rows = _md_rows(md)
    assert rows[0] == "| Coefficient | Value | 95% CI | SE | Observed | Expected | Items | Raters |"
    assert rows[2] == "| fleiss_kappa | 0.472 | [0.407, 0.524] | 0.031 | 0.600 | 0.250 | 90 | 3 |"
    assert md.endswith("Interval: 95% bootstrap-percentile, B=1000, design=items.")
    assert _boot().to_markdown(note=False) == "\n".join(rows)
    assert _md_rows(_boot().to_markdown(digits=4))[2].startswith("| fleiss_kappa | 0.4721 | [0.4071, 0.5239] |")
    # every row has the header's number of cells
    assert len({r.count(" | ") for r in rows}) == 1


def test_markdown_shows_warnings_and_missing_values():
    r = AgreementResult("cohen_kappa", math.nan, 1.0, 1.0, 40, 2, warnings=("expected agreement is 1",))
    md = r.to_markdown()
    assert "| cohen_kappa | — | 1.000 | 1.000 | 40 | 2 |" in md
    assert md.endswith("Warnings: expected agreement is 1.")


def test_subclass_tables_add_their_columns():
    x = CrossKappaResult("cross_kappa", 0.4, 0.6, 0.3, 20, 4, normalized=0.8, irr_x=0.5, irr_y=0.6)
    assert _md_rows(x.to_markdown())[0].endswith("| Normalized | IRR x | IRR y | Items | Raters |")
    ann = sis.Annotations.from_wide([[{"a"}, {"a", "b"}], [{"b"}, {"b"}], [{"a", "c"}, {"c"}]])
    m = sis.multilabel_agreement(ann)
    assert "| Floor | Raw prevalence |" in m.to_markdown()
    by_label = _md_rows(m.by_label_markdown())
    assert by_label[0].startswith("| Label | Prevalence | Observed | Expected | Coefficient | Weight |")
    assert len(by_label) == 2 + len(m.by_label)
    assert r"\toprule" in m.by_label_latex()


def test_to_latex_escapes_and_typesets():
    r = _boot()
    tex = r.to_latex()
    assert tex.startswith(r"\begin{tabular}{lrrrrrrr}")  # without a caption, the note follows the tabular
    assert tex.endswith("\\end{tabular}\n" + r"\par\smallskip{\footnotesize Interval: 95\% bootstrap-percentile, "
                        "B=1000, design=items.}")
    assert r"fleiss\_kappa & 0.472 & {}[0.407, 0.524] & 0.031" in tex
    assert r"95\% CI" in tex and r"\toprule" in tex and r"\midrule" in tex and r"\bottomrule" in tex
    floated = r.to_latex(caption="Agreement of the three raters", label="tab:irr")
    assert r"\caption{Agreement of the three raters. Interval: 95\% bootstrap-percentile, B=1000, design=items.}" \
        in floated
    assert r"\label{tab:irr}" in floated and floated.startswith(r"\begin{table}")
    neg = AgreementResult("scott_pi", -0.125, 0.4, 0.47, 10, 2).to_latex()
    assert r"scott\_pi & $-$0.125 &" in neg and neg.endswith(r"\end{tabular}")  # nothing to note


def test_to_latex_without_a_caption_keeps_the_warnings():
    r = AgreementResult("cohen_kappa", 0.5, 0.75, 0.5, 40, 2, warnings=("2 items dropped; see --categories",))
    tex = r.to_latex()
    assert tex.endswith(r"\par\smallskip{\footnotesize Warnings: 2 items dropped; see -{}-categories.}")
    labelled = r.to_latex(label="tab:k")
    assert labelled.endswith("-{}-categories.}\n" + r"\end{table}") and r"\label{tab:k}" in labelled
    captioned = r.to_latex(caption="Kappa")
    assert r"\caption{Kappa. Warnings: 2 items dropped; see -{}-categories.}" in captioned


def test_a_test_of_h0_is_shown_wherever_the_result_is():
    r = AgreementResult("fleiss_kappa", 0.3, 0.6, 0.43, 60, 3).with_test(
        2.9, 0.01, "permutation (labels permuted within raters), B=99")
    said = "permutation (labels permuted within raters), B=99: z = 2.900, p = 0.010"
    assert repr(r) == "AgreementResult(fleiss_kappa = 0.300, z=2.900, p=0.010, items=60, raters=3)"
    assert said in str(r) and said in r.to_markdown() and said in r._repr_html_()
    assert "| z | p |" in r.to_markdown() and "| 2.900 | 0.010 |" in r.to_markdown()
    assert "z & p" in r.to_latex() and said in r.to_latex()
    plain = AgreementResult("fleiss_kappa", 0.3, 0.6, 0.43, 60, 3)
    assert "z" not in plain.to_markdown().split("\n")[0] and "p=" not in repr(plain)


def test_repr_names_b_only_for_a_bootstrap_interval():
    r = AgreementResult("span_f1", 0.6, 0.6, 0.0, 20, 2).with_interval(
        0.5, 0.7, 0.05, 0.95, "jackknife-t-logit", bootstrap_n=200)
    assert "B=" not in repr(r) and "B=" not in str(r) and "B=" not in r.to_markdown()
    assert "95% jackknife-t-logit" in repr(r)


def test_to_dict_keeps_warnings_whole_and_to_json_is_strict():
    import json

    texts = ("analytic interval: upper limit truncated at 1; see docs", "q = 3 categories; declare them")
    r = AgreementResult("cohen_kappa", float("nan"), 1.0, 1.0, 4, 2, warnings=texts)
    assert tuple(r.to_dict()["warnings"].splitlines()) == texts
    assert math.isnan(r.to_dict()["value"])  # to_dict keeps nan as a float

    def refuse(token):
        raise ValueError(token)

    doc = json.loads(r.to_json(), parse_constant=refuse)
    assert doc["value"] is None and doc["warnings"] == list(texts)


def test_to_dict_records_the_bootstrap_settings_that_change_the_interval():
    x = np.random.default_rng(0).integers(0, 3, (30, 3))
    strata = np.arange(30) % 2
    r = sis.fleiss_kappa(x, ci=sis.Bootstrap(n=50, seed=0, generator="numpy", strata=strata))
    assert r.to_dict()["bootstrap_generator"] == "numpy"
    full = r.to_dict(details=True)
    assert full["bootstrap_strata"] == "per-item codes (30 items)" and full["bootstrap_few_units"] == "t"
    assert full["bootstrap_method"] == "auto" and "bootstrap_cluster" not in full


def test_reporting_tables_of_a_sensitivity_frame():
    t = np.array([[13, 0, 0], [0, 20, 7], [0, 4, 56]])
    rows = [[i, j] for i, j in zip(*np.nonzero(t), strict=True) for _ in range(t[i, j])]
    df = sis.sensitivity(rows, coefficients=["cohen_kappa", "scott_pi"], similarities=[None, "quadratic"],
                         ci="analytic")
    md = reporting.to_markdown(df)
    lines = _md_rows(md)
    assert lines[0] == "| Coefficient | Similarity | Value | 95% CI | SE | Items | Raters |"
    # irrCAC's cont3x3abstractors values, as in the sensitivity docstring
    assert lines[2].startswith("| cohen_kappa | identity | 0.796 | [")
    assert lines[3].startswith("| cohen_kappa | quadratic | 0.892 | [")
    assert "| 0.059 | 100 | 2 |" in lines[2]
    assert md.endswith("Intervals: 95% analytic.")
    tex = reporting.to_latex(df, caption="Sensitivity", label="tab:s")
    assert r"\caption{Sensitivity. Intervals: 95\% analytic.}" in tex and tex.count(r" \\") == 5
    chosen = _md_rows(reporting.to_markdown(df, columns=["coefficient", "value", "ci"]))
    assert chosen[0] == "| Coefficient | Value | 95% CI |"
    with pytest.raises(ValueError, match=r"columns \['kappa'\] are not in the table"):
        reporting.to_markdown(df, columns=["kappa"])


def test_reporting_tables_of_results_and_other_frames():
    x = [["a", "a", "a"], ["b", "b", "a"], ["b", "b", "b"], ["c", "c", "c"], ["a", "b", "a"]]
    rs = [sis.fleiss_kappa(x), sis.gwet_ac1(x)]
    md = reporting.to_markdown(rs)
    lines = _md_rows(md)
    notes = [w for r in rs for w in r.warnings]
    assert lines[0] == "| Coefficient | Value | Items | Raters |" + (" Note |" if notes else "")
    assert lines[2].startswith(f"| fleiss_kappa | {rs[0].value:.3f} | 5 | 3 |")
    for w in dict.fromkeys(notes):  # each warning printed once, below the table, as text (escaped as the cells)
        assert md.count(escape_text(w, "markdown")) == 1
    assert reporting.to_markdown(rs[0]) == rs[0].to_markdown()
    other = pd.DataFrame({"rater": ["r|1", "r2"], "accuracy": [0.91234, np.nan], "n": [10, 12]})
    assert _md_rows(reporting.to_markdown(other)) == [
        "| rater | accuracy | n |", "| :-- | --: | --: |", r"| r\|1 | 0.912 | 10 |", "| r2 | — | 12 |"]
    assert "r2 & -- & 12" in reporting.to_latex(other)
    with pytest.raises(TypeError, match="expected a pandas DataFrame"):
        reporting.to_markdown([1, 2])


@pytest.mark.parametrize(("x", "text"), [(0.47213, "0.472"), (-0.1, "-0.100"), (0.0, "0.000"), (3, "3"),
                                         (np.int64(7), "7"), (1.5e-5, "1.5e-05"), (2.5e7, "2.5e+07"),
                                         (float("nan"), "—"), (None, "—"), (float("inf"), "inf"), (True, "True")])
def test_format_number(x, text):
    assert format_number(x) == text


def test_interval_and_level_text():
    assert format_interval(0.1, float("nan")) == "—"
    assert format_interval(-0.0612, 0.15649) == "[-0.061, 0.156]"
    assert (level_text(0.95), level_text(0.975), level_text(0.9), level_text(float("nan"))) == ("95%", "97.5%", "90%", "")


@pytest.mark.parametrize("module", [
    "softirr_stats.base._format", "softirr_stats.agreement._result", "softirr_stats.reporting._tables",
    "softirr_stats.data._readers", "softirr_stats.data._readers._spans", "softirr_stats.data._io",
])
def test_docstring_examples_run(module):
    res = doctest.testmod(importlib.import_module(module), optionflags=doctest.NORMALIZE_WHITESPACE)
    assert res.failed == 0 and res.attempted > 0


# ------------------------------------------------------------------ one formatter for papers (issue 22)
def _sens_frame_with_warnings():
    return pd.DataFrame({
        "coefficient": ["fleiss_kappa", "fleiss_kappa", "gwet_ac1"], "similarity": ["exact", "levenshtein", "exact"],
        "chance": ["exact"] * 3, "value": [0.41, 0.45, 0.52], "ci_low": [0.3, 0.33, 0.42], "ci_high": [0.52, 0.57, 0.62],
        "se": [0.05, 0.06, 0.05], "level": [0.95] * 3, "ci_method": ["bootstrap-percentile"] * 3,
        "n_items": [30] * 3, "n_raters": [3] * 3, "seconds": [1.25, 0.5, 0.75],
        "warnings": ["a long warning about items with a single rating", "a long warning about items with a single "
                     "rating", "another warning"]})


def test_paper_table_drops_timing_merges_the_interval_and_numbers_each_warning_once():
    df = _sens_frame_with_warnings()
    md = reporting.paper_table(df)
    lines = md.splitlines()
    assert lines[0] == "| Coefficient | Similarity | Value | 95% CI | SE | Items | Raters | Note |"
    assert "1.25" not in md and "Seconds" not in md  # no timing column
    assert lines[2] == "| fleiss_kappa | exact | 0.410 | [0.300, 0.520] | 0.050 | 30 | 3 | 1 |"
    assert lines[4].endswith("| 2 |")
    assert md.count("a long warning about items with a single rating") == 1
    assert md.endswith("Intervals: 95% bootstrap-percentile.\n\n[1] a long warning about items with a single "
                       "rating\n\n[2] another warning")
    table, notes = reporting.table_with_notes(df, "latex")
    assert notes == ["a long warning about items with a single rating", "another warning"]
    assert r"\toprule" in table and r"\hline" not in table and "seconds" not in table.lower()
    tex = reporting.paper_table(df, "latex", caption="Sensitivity", label="tab:s")
    assert r"\caption{Sensitivity. Intervals: 95\% bootstrap-percentile.}" in tex
    assert r"\footnotesize [1] a long warning" in tex and tex.endswith(r"\end{table}")
    assert reporting.to_markdown(df) == md  # one formatter


def test_paper_table_of_cli_rows_and_credible_intervals():
    rows = [{"coefficient": "model_kappa", "similarity": "exact", "value": 0.455, "ci_low": 0.296, "ci_high": 0.616,
             "level": 0.95, "ci_method": "posterior (dawid_skene, nuts)", "n_items": 30, "n_raters": 3,
             "seconds": 4.2, "warnings": ""}]
    md = reporting.paper_table(rows)
    assert md.splitlines()[0] == "| Coefficient | Value | 95% CrI | Items | Raters |"
    assert md.endswith("Credible intervals (CrI): 95% posterior (dawid_skene, nuts).")
    assert " CI" not in md
    with pytest.raises(ValueError, match="style"):
        reporting.table_with_notes(rows, "html")


def test_str_names_the_measure_and_the_kind_of_interval():
    boot = _boot()
    text = str(boot)
    assert text.startswith("fleiss_kappa = 0.4721 (similarity: identity), 95% confidence interval [0.4071, 0.5239] by "
                           "bootstrap-percentile, B=1000")
    post = AgreementResult("model_kappa", 0.45, 0.6, 0.3, 30, 3, similarity="levenshtein").with_interval(
        0.30, 0.61, 0.08, 0.95, "posterior (dawid_skene, nuts)")
    assert "95% credible interval [0.3000, 0.6100]" in str(post) and "similarity: levenshtein" in str(post)
    assert " CI" not in str(post) and "credible" in repr(post)
    assert post.interval_kind == "credible" and boot.interval_kind == "confidence"
    assert "95% CrI" in post.to_markdown() and "95% CI" not in post.to_markdown()


def test_repr_html_of_results_and_annotations():
    page = _boot()._repr_html_()
    assert page.startswith("<table") and "[0.407, 0.524]" in page and "Confidence interval: 95% bootstrap-percentile" in page
    warned = AgreementResult("cohen_kappa", 0.5, 0.75, 0.5, 40, 2, warnings=("x < y & z",))._repr_html_()
    assert "[1] x &lt; y &amp; z" in warned
    ann = sis.Annotations.from_wide([["a", "<b>"], ["a", None]])
    html_ = ann._repr_html_()
    assert "2 items, 2 raters" in html_ and "&lt;b&gt;" in html_ and "<b>" not in html_.replace("<b>Annotations</b>", "")


def test_paper_table_leaves_out_secondary_columns_to_fit_a_width():
    df = _sens_frame_with_warnings()
    full, _ = reporting.table_with_notes(df)
    width = max(map(len, full.splitlines()))
    narrow, notes = reporting.table_with_notes(df, max_width=width - 10)
    assert max(map(len, narrow.splitlines())) <= width - 10
    assert "Raters" not in narrow.splitlines()[0] and "Value" in narrow.splitlines()[0]
    assert notes[-1].startswith(f"Left out to fit {width - 10} characters: n_raters")
    same, same_notes = reporting.table_with_notes(df, max_width=width)
    assert same == full and not same_notes[-1].startswith("Left out")
    with pytest.raises(ValueError, match="max_width"):
        reporting.table_with_notes(df, max_width=0)


def test_markdown_cells_show_labels_as_written_never_as_markup():
    from softirr_stats.base._format import markdown_table

    hostile = ["<script>alert(1)</script>", "</td><img src=x onerror=alert(2)>", "*bold*", "`code`",
               "[link](javascript:alert(4))", "a\rb", "a\r\nb|c", "_x_", "\x1b[2J\x1b[Hcleared", "back\\slash"]
    table = markdown_table(["<b>ann</b>"], [[h] for h in hostile], ["l"])
    lines = table.split("\n")
    assert len(lines) == 2 + len(hostile)  # a carriage return or line break never splits a row
    assert lines[0] == "| &lt;b&gt;ann&lt;/b&gt; |"
    assert lines[2:] == ["| &lt;script&gt;alert(1)&lt;/script&gt; |", "| &lt;/td&gt;&lt;img src=x onerror=alert(2)&gt; |",
                         r"| \*bold\* |", r"| \`code\` |", r"| \[link\](javascript:alert(4)) |", "| a b |",
                         r"| a b\|c |", r"| \_x\_ |", r"| \\x1b\[2J\\x1b\[Hcleared |", r"| back\\slash |"]
    assert "<" not in table and "\x1b" not in table and "\r" not in table
    # what numbers and names of the package's own tables look like is unchanged
    assert markdown_table(["a"], [["fleiss_kappa"], ["[0.407, 0.524]"], ["-0.5"]], ["l"]).split("\n")[2:] == [
        "| fleiss_kappa |", "| [0.407, 0.524] |", "| -0.5 |"]


def test_latex_cells_escape_ot1_symbols_ligatures_and_line_breaks():
    from softirr_stats.base._format import latex_table

    out = latex_table(["a<b"], [["x|y>z"], ["''q''"], ["--flag"], ["?`"], ["one\n\ntwo"], ["esc\x1b[1m"], ["--"]],
                      ["l"])
    body = out.split("\n")[2:-2]
    assert body == [r"a\textless{}b \\", r"\midrule", r"x\textbar{}y\textgreater{}z \\", r"'{}'q'{}' \\",
                    r"-{}-flag \\", r"?{}` \\", r"one two \\", r"esc\textbackslash{}x1b[1m \\", r"-- \\"]
    assert "\n\n" not in out and "\x1b" not in out


def test_visible_text_display_text_and_short_reprs():
    from softirr_stats.base._format import display_text, short_repr, short_reprs, visible_text

    assert visible_text("a\x1b]8;;http://evil.example\x1b\\click\x85\u202e\x7f") == \
        "a\\x1b]8;;http://evil.example\\x1b\\click\\x85\\u202e\\x7f"
    assert visible_text("tab\there\nnl", keep="\t") == "tab\there\\nnl"
    assert visible_text("café 漢字 \u200b") == "café 漢字 \u200b"  # printable text (and invisibles, for a warning) stay
    assert display_text("x" * 10**6) == "x" * 60 + "... (1000000 characters)"
    assert display_text("\x1b" * 100, limit=2) == "\\x1b\\x1b... (100 characters)"
    assert short_repr("y" * 10**6) == repr("y" * 40) + "... (1000000 characters)"
    big = "z" * 10**6
    shown = short_reprs([big, big + " "])
    assert shown[0].endswith("' (1000000 characters)") and shown[1].endswith(" ' (1000001 characters)")
    assert max(map(len, shown)) < 100
    assert short_reprs(["cafe", "cafe "]) == ["'cafe'", "'cafe '"]


def test_latex_notes_compile_after_a_line_break():
    """A note opening with "[2]" after "\\\\" read as a length (! Illegal unit of measure); "--" typeset a dash."""
    df = pd.DataFrame({"coefficient": ["fleiss_kappa", "gwet_ac1"], "value": [0.41, 0.52], "ci_low": [0.3, 0.42],
                       "ci_high": [0.52, 0.62], "level": 0.95, "ci_method": "analytic",
                       "warnings": [("q = 3 categories (on the command line: --categories A,B,C)",), ("other",)]})
    tex = reporting.paper_table(df, "latex")
    assert "\\\\ [" not in tex
    assert (r"\par\smallskip{\footnotesize Intervals: 95\% analytic. \\{} [1] q = 3 categories (on the command "
            r"line: -{}-categories A,B,C) \\{} [2] other}") in tex
    assert "-{}-" not in reporting.to_latex(pd.DataFrame({"coefficient": ["a"], "value": [float("nan")]}))


# ------------------------------------------------------------------ zero up to floating-point error
#: two raters, each label a third of each rater's ratings and a third of the items agreed on: observed = expected = 1/3,
#: so Cohen's kappa is 0 exactly; computed, it is -8.3e-17
ZERO_A = ["b", "b", "b", "a", "a", "c", "b", "b", "b", "b", "a", "b"]
ZERO_B = ["a", "c", "b", "b", "a", "b", "b", "c", "c", "a", "a", "c"]
NOISE = -8.326672684688674e-17


def test_a_coefficient_zero_up_to_rounding_prints_as_zero_and_small_ses_and_ps_stay():
    from softirr_stats.base._format import ZERO_TOL, fixed_number, zero_noise

    # values, bounds and z (a coefficient's scale): zero up to rounding is 0, never "-0.000" or "-8.33e-17"
    assert format_number(NOISE, zero=ZERO_TOL) == format_number(-NOISE, zero=ZERO_TOL) == "0.000"
    assert format_number(-0.0) == "0.000" and format_number(-0.0, 4, zero=ZERO_TOL) == "0.0000"
    assert format_interval(NOISE, 0.425) == "[0.000, 0.425]" and format_interval(-0.425, -NOISE) == "[-0.425, 0.000]"
    assert (zero_noise(NOISE), zero_noise(-0.0), zero_noise(-2e-12)) == (0.0, 0.0, -2e-12)
    assert fixed_number(NOISE, 4) == "0.0000" and fixed_number(-4.78e-16, 3) == "0.000"
    # a genuinely small value keeps its sign and its digits
    assert format_number(-0.0004, zero=ZERO_TOL) == "-0.0004" and fixed_number(-0.00004, 4) == "-0.0000"
    # SEs and p-values are not on that scale: their small values are real and keep the short form
    assert (format_number(1e-20), format_number(1.5e-5), format_number(3e-13)) == ("1e-20", "1.5e-05", "3e-13")


def test_a_result_whose_kappa_is_zero_up_to_rounding_prints_zero_everywhere():
    r = sis.cohen_kappa(list(zip(ZERO_A, ZERO_B, strict=True)), ci="analytic")
    # independently: each rater uses a, b, c with marginals (3, 8, 1) and (4, 4, 4); observed 4/12
    p_o = np.mean(np.array(ZERO_A) == np.array(ZERO_B))
    p_e = sum(ZERO_A.count(c) * ZERO_B.count(c) for c in "abc") / 12 ** 2
    assert abs(p_o - 1 / 3) < 1e-15 and abs(p_e - 1 / 3) < 1e-15
    assert abs(r.value) < 1e-12 and abs(r.observed - p_o) < 1e-12 and abs(r.expected - p_e) < 1e-12
    assert abs(r.z) < 1e-12 and abs(r.p_value - 1.0) < 1e-12 and abs(r.se - 0.19320038532282713) < 1e-12
    for text in (str(r), repr(r), r.to_markdown(), r.to_latex(), r._repr_html_()):
        assert "-0.000" not in text and "e-16" not in text and "e-17" not in text, text
    assert str(r).startswith("cohen_kappa = 0.0000 (") and "z = 0.000, p = 1.000" in str(r)
    assert "| cohen_kappa | 0.000 | [-0.425, 0.425] | 0.193 | 0.333 | 0.333 | 0.000 | 1.000 | 12 | 2 |" in r.to_markdown()
    assert repr(r).startswith("AgreementResult(cohen_kappa = 0.000 [-0.425, 0.425]")


def test_results_with_rounding_noise_and_small_ses_and_ps_print_each_as_it_is():
    """Built directly, so the noise is there whatever the platform's arithmetic: the value, a bound and z
    print as zero; an SE of 2e-06 and a p of 1e-20 keep their digits, in the table and in the sentence."""
    r = AgreementResult("fleiss_kappa", NOISE, 1 / 3, 1 / 3, 40, 3).with_interval(
        NOISE, 0.25, 2e-6, 0.95, "analytic").with_test(-4.78e-16, 1e-20, "test")
    assert str(r).startswith("fleiss_kappa = 0.0000 (similarity: identity), 95% confidence interval [0.0000, 0.2500]")
    assert "z = 0.000, p < 0.001" in str(r)
    assert "| fleiss_kappa | 0.000 | [0.000, 0.250] | 2e-06 | 0.333 | 0.333 | 0.000 | 1e-20 | 40 | 3 |" in r.to_markdown()
    frame = pd.DataFrame({"coefficient": ["fleiss_kappa"], "value": [NOISE], "ci_low": [NOISE], "ci_high": [0.25],
                          "se": [2e-6], "observed": [-NOISE], "z": [-4.78e-16], "p": [1e-20], "n_items": [40]})
    row = _md_rows(reporting.to_markdown(frame, columns=["coefficient", "value", "ci", "se", "observed", "z", "p",
                                                           "n_items"]))[2]
    assert row == "| fleiss_kappa | 0.000 | [0.000, 0.250] | 2e-06 | 0.000 | 0.000 | 1e-20 | 40 |", row


def test_the_cross_kappa_and_multilabel_columns_print_rounding_noise_as_zero_and_keep_small_values():
    """Normalized, IRR x, IRR y (and the multi-label floor) are on a coefficient's scale: zero up to 1e-12 prints
    as zero, as the value and the interval do, and a true -4e-05 keeps its sign (they printed -8.3e-17)."""
    r = CrossKappaResult("cross_kappa", NOISE, 1 / 3, 1 / 3, 40, 2, normalized=NOISE, irr_x=-4.78e-16, irr_y=-4e-5)
    header, _, row = _md_rows(r.to_markdown())
    cells = dict(zip(header.strip("| ").split(" | "), row.strip("| ").split(" | "), strict=True))
    assert (cells["Value"], cells["Normalized"], cells["IRR x"], cells["IRR y"]) == ("0.000", "0.000", "0.000",
                                                                                      "-4e-05"), row
    assert ", normalized=0.000, irr_x=0.000, irr_y=-4e-05, items=40" in repr(r)
    for text in (r.to_markdown(), r.to_latex(), r._repr_html_(), repr(r)):
        assert "e-16" not in text and "e-17" not in text and "-0.000" not in text, text
    assert "& 0.000 & 0.333 & 0.333 & 0.000 & 0.000 & $-$4e-05 & 40 &" in r.to_latex()
    m = MultilabelResult("multilabel_fleiss", 0.5, 0.75, 0.5, 40, 3, floor=NOISE, raw_prevalence=2e-13)
    assert "| 0.000 | 2e-13 | 40 | 3 |" in m.to_markdown()  # the floor is a coefficient; a prevalence is a share
    assert ", floor=0.000, raw_prevalence=2e-13," in repr(m)


def test_no_level_is_rounded_to_a_whole_percent_in_the_source():
    """``f"{level:.0%}"`` printed 0.995 as "100%" and 0.975 as "98%": every level goes through level_text."""
    import pathlib
    import re

    root = pathlib.Path(__file__).resolve().parents[2]
    pattern = re.compile(r"\{[^{}\n]*level[^{}\n]*:[^{}\n]*%\}|\{[^{}\n]*level[^{}\n]*:\.[0-5][fg]\}%")
    files = sorted({py.resolve() for folder in ("softirr_stats", "models", "inference") for py in (root / folder).rglob("*.py")})
    assert len(files) > 100
    found = [f"{py}:{n}: {line.strip()}" for py in files
             for n, line in enumerate(py.read_text(encoding="utf-8").splitlines(), 1) if pattern.search(line)]
    assert not found, "format levels with softirr_stats.base._format.level_text:\n" + "\n".join(found)
    assert (level_text(0.995), level_text(0.999)) == ("99.5%", "99.9%")


# ------------------------------------------------------------------ p-values too small for the table's decimals
@pytest.mark.parametrize(("p", "digits", "text"), [
    (0.04512, 4, "0.0451"), (0.0001, 4, "0.0001"), (1.0, 4, "1.0000"), (0.04512, 3, "0.045"), (0.000512, 3, "0.000512"),
    (3.2148e-21, 4, "3.2e-21"), (4.1e-5, 3, "4.1e-05"), (2.2380978812026502e-222, 4, "2.2e-222"),
    (1e-300, 4, "1e-300"), (9.9e-301, 4, "<1e-300"), (5e-324, 4, "<1e-300"), (0.0, 3, "<1e-300"),
    (np.float64(3.2e-21), 3, "3.2e-21"), (float("nan"), 4, "—"), (None, 4, "—")])
def test_format_p_never_prints_a_p_as_zero(p, digits, text):
    from softirr_stats.base._format import format_p

    assert format_p(p, digits) == text
    if "e" in text and text[0].isdigit():  # the printed digits are p's, rounded: two significant ones
        assert float(text) == pytest.approx(p, rel=0.05)
    elif text[0].isdigit():  # or its decimals
        assert abs(float(text) - p) <= 0.5 * 10.0 ** -len(text.partition(".")[2]) + 1e-15


def test_every_table_of_results_prints_its_p_columns_with_format_p():
    from softirr_stats.base._format import frame_table, is_p_column

    assert [is_p_column(c) for c in ("p", "p_value", "p_value_greater", "change_p_value", "value", "se", "top_share")] \
        == [True, True, True, True, False, False, False]
    frame = pd.DataFrame({"coefficient": ["fleiss_kappa", "gwet_ac1"], "value": [0.92, 0.93], "z": [31.8, 55.6],
                          "p_value": [2.2380978812026502e-222, 0.0], "p_value_greater": [0.0005, 1e-20],
                          "se": [1e-20, 0.0]})
    _, rows, _ = frame_table(frame, columns=["coefficient", "p_value", "p_value_greater", "se"])
    assert rows == [["fleiss_kappa", "2.2e-222", "0.0005", "1e-20"], ["gwet_ac1", "<1e-300", "1e-20", "0.000"]]
    assert "| gwet_ac1 | 0.930 | 0.000 | 55.600 | &lt;1e-300 | 1e-20 |" in reporting.to_markdown(frame)
    r = AgreementResult("fleiss_kappa", 0.92, 0.95, 0.33, 600, 3).with_test(55.6, 0.0, "analytic")
    assert "| 0.920 | 0.950 | 0.330 | 55.600 | &lt;1e-300 | 600 | 3 |" in r.to_markdown()
    assert '<td style="text-align:right">&lt;1e-300</td>' in r._repr_html_() and "\\textless{}1e-300" in r.to_latex()
