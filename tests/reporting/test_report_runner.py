"""The report only formats: its coefficient table is the analysis runner's, its model section the runner's fit."""

import re

import matplotlib
import numpy as np
import pandas as pd

import softirr_stats as sis
from softirr_stats.analysis import resolve_measures, run_analysis, run_model
from softirr_stats.data import demo_path
from softirr_stats.inference import SviConfig
from softirr_stats.reporting import _html, build_report
from softirr_stats.reporting._symbols import symbol

matplotlib.use("Agg")


def _section(page: str, sid: str) -> str:
    return page.split(f'<section id="{sid}"')[1].split("</section>")[0]


def _rows(section: str) -> list[list[str]]:
    body = section.split("<tbody>")[1].split("</tbody>")[0]
    return [re.findall(r"<td[^>]*>(.*?)</td>", row) for row in body.split("</tr>") if "<td" in row]


def test_report_coefficient_table_equals_run_analysis(monkeypatch):
    ann = sis.read_annotations(demo_path())
    measures = resolve_measures(["exact", "levenshtein"], ann)
    ci = sis.Bootstrap(n=200, seed=3)
    chance = ["exact", "mc:50"]
    seen = []
    real = _html._coefficients_html
    monkeypatch.setattr(_html, "_coefficients_html", lambda df, text: seen.append(df) or real(df, text))
    page = build_report(ann, measures=measures, coefficients=["fleiss_kappa", "krippendorff_alpha"], chance=chance,
                        ci=ci)
    want = run_analysis(ann, coefficients=["fleiss_kappa", "krippendorff_alpha"], measures=measures, chance=chance,
                        ci=ci).table
    got = seen[0]
    pd.testing.assert_frame_equal(got.drop(columns=["seconds"], errors="ignore"),
                                  want.drop(columns=["seconds"], errors="ignore"))  # every number, unrounded
    first = want[want["chance"] == "exact"]  # the first chance setting: both coefficients take one
    shown = _rows(_section(page, "coefficients"))
    assert len(shown) == len(first) == 4
    for cells, row in zip(shown, first.itertuples(index=False), strict=True):
        assert cells[:4] == [symbol(row.coefficient), row.coefficient, row.similarity, "exact"]  # symbol, then name
        assert cells[4:7] == [f"{row.value:.4f}", f"{row.ci_low:.4f}", f"{row.ci_high:.4f}"]
    assert np.isfinite(first["value"]).all()


def test_report_model_section_is_the_runner_fit():
    ann = sis.Annotations.from_wide([["a", "a", "a"], ["b", "b", "a"], ["b", "b", "b"], ["a", "b", "a"]] * 6)
    page = build_report(ann, coefficients=["fleiss_kappa"], model="dawid_skene", model_method="svi", model_steps=300,
                        seed=2)
    fit = run_model(ann, "dawid_skene", method="svi", level=0.95, seed=2, config=SviConfig(steps=300))
    want = _html.model_summary(fit.result, ann.raters, 0.95)
    shown = _rows(_section(page, "model"))[:len(want)]
    assert [c[0] for c in shown] == want["quantity"].tolist()
    for cells, row in zip(shown, want.itertuples(index=False), strict=True):
        assert cells[1:5] == [_html._num(v) for v in (row.mean, row.sd, row.lower, row.upper)]  # "" for nan
    assert np.isfinite(want["lower"].iloc[0]) and cells[0] != "kappa"  # kappa has an interval; all rows compared


def test_report_gives_a_level_of_measurement_its_symbol():
    """``-c krippendorff_alpha:ordinal`` printed its name in the symbol column; it is alpha with its level."""
    ann = sis.Annotations.from_wide([[1, 2, 2], [3, 3, 4], [5, 5, 5], [2, 1, 2], [4, 4, 3]] * 4)
    page = build_report(ann, coefficients=["krippendorff_alpha:ordinal", "krippendorff_alpha"], ci=None)
    shown = _rows(_section(page, "coefficients"))
    assert [c[:2] for c in shown] == [["α (Krippendorff, ordinal)", "krippendorff_alpha:ordinal"],
                                     ["α (Krippendorff)", "krippendorff_alpha"]]


def test_report_model_section_shows_the_per_rater_check_of_the_api():
    """An adversarial rater (answers (c + 1) mod 3 three times in four): the Python API warns; the report's
    diagnostics table has the per-rater row (its smallest p, 'check') and the warning's text once, as a caveat."""
    import html
    import warnings

    from softirr_stats.inference import annotator_agreement

    rng = np.random.default_rng(7)
    truth = rng.integers(3, size=60)
    good = np.where(rng.random((60, 3)) < 0.85, truth[:, None], (truth[:, None] + rng.integers(1, 3, (60, 3))) % 3)
    bad = np.where(rng.random(60) < 0.75, (truth + 1) % 3, rng.integers(3, size=60))
    ann = sis.Annotations.from_wide(pd.DataFrame(np.array(["a", "b", "c"])[np.column_stack([good, bad])],
                                                 columns=["r0", "r1", "r2", "r3"]))
    page = build_report(ann, coefficients=["fleiss_kappa"], model="item_difficulty", model_method="svi",
                        model_steps=300, seed=0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = annotator_agreement(ann, model="item_difficulty", method="svi", seed=0, config=SviConfig(steps=300),
                                  progress=False)
    message = next(str(w.message) for w in caught if str(w.message).startswith("per-rater"))
    want = res.details["rater_check"]
    assert want["failed"].tolist() == [False, False, False, True]
    section = html.unescape(_section(page, "model"))
    diag = "<tbody>" + _section(page, "model").split("<h3>Diagnostics</h3>")[1].split("<tbody>")[1]  # 2nd table
    row = next(r for r in _rows(diag) if r[0].startswith("per-rater"))
    assert html.unescape(row[0]) == "per-rater check p (lowest: rater r3)"
    # no replicated draw of 1000 was as far from r3's agreement: the bound 2/N (two-sided), not 0.0000
    r3 = want.set_index("rater").loc["r3"]
    assert r3["p_value"] == want["p_value"].min() == 0.0 and r3["n_draws"] == 1000
    assert html.unescape(row[1]) == "< 0.002 (none of 1000 draws)" and row[3] == "check"
    assert section.count(f"{message[0].upper()}{message[1:]}.") == 1 and "Fit warning: per-rater" not in section


#: three raters on 12 items, text labels (no order: --similarity linear fails on them)
THREE = [["a", "a", "b"], ["b", "b", "b"], ["a", "c", "a"], ["c", "c", "c"], ["a", "a", "a"], ["b", "c", "b"],
         ["c", "a", "c"], ["b", "b", "a"], ["a", "a", "a"], ["c", "c", "b"], ["b", "a", "b"], ["a", "b", "c"]]


def _headline_in_table(page: str) -> list[str]:
    """The coefficients table's row of the headline's coefficient, checked to show the headline's number."""
    lead = re.search(r'<span class="big">(.*?) = (-?\d\.\d{3}).*?<span class="which">similarity (\S+), chance ([^<\s]+)<',
                     _section(page, "headline"))
    assert lead, _section(page, "headline")
    rows = [c for c in _rows(_section(page, "coefficients")) if c[0] == lead.group(1) and c[2:4] == list(lead.groups()[2:])]
    assert len(rows) == 1 and f"{float(rows[0][4]):.3f}" == lead.group(2), (lead.groups(), rows)
    return rows[0]


def test_report_coefficient_table_shows_every_coefficient_once_under_the_first_chance_setting():
    """The table kept the rows whose chance matched the first row's: with percent agreement first (chance "none")
    every chance-corrected coefficient was left out; with two chance settings it is shown under the first."""
    ann = sis.Annotations.from_wide(THREE)
    names = ["percent_agreement", "fleiss_kappa", "gwet_ac1"]
    for chance in (["exact"], ["mc:20", "exact"]):
        page = build_report(ann, coefficients=names, chance=chance, ci=None)
        shown = _rows(_section(page, "coefficients"))
        want = [sis.percent_agreement(ann), sis.fleiss_kappa(ann, chance=chance[0]), sis.gwet_ac1(ann)]
        assert [c[1] for c in shown] == names
        for cells, res in zip(shown, want, strict=True):
            assert cells[3:5] == [res.chance, f"{res.value:.4f}"], (cells, res)
        assert shown[1][3] == ("exact" if chance == ["exact"] else "monte_carlo(D=20)")
        _headline_in_table(page)
        assert ("the first chance setting asked for" in page) == (len(chance) > 1)


def test_report_coefficient_table_keeps_a_failed_setting_beside_the_ones_that_ran():
    """-m exact,linear on text labels: the failed linear rows have no chance label; percent agreement's exact row
    (chance "none") was hidden while the failed rows were shown."""
    ann = sis.Annotations.from_wide(THREE)
    page = build_report(ann, measures=["exact", "linear"], coefficients=["fleiss_kappa", "percent_agreement"],
                        ci="analytic")
    shown = _rows(_section(page, "coefficients"))
    assert [(c[1], c[2]) for c in shown] == [("fleiss_kappa", "exact"), ("fleiss_kappa", "linear"),
                                             ("percent_agreement", "exact"), ("percent_agreement", "linear")]
    for cells, res in ((shown[0], sis.fleiss_kappa(ann, ci="analytic")),
                       (shown[2], sis.percent_agreement(ann, ci="analytic"))):
        assert cells[4:7] == [f"{res.value:.4f}", f"{res.ci_low:.4f}", f"{res.ci_high:.4f}"]
    assert shown[1][4] == shown[3][4] == ""  # no value: the note says why
    _headline_in_table(page)


def test_report_headline_is_a_number_of_the_coefficients_table():
    """Every rating the same label: the chance-corrected coefficients are undefined, and the headline (percent
    agreement) was a number found in no table."""
    ann = sis.Annotations.from_wide([["x", "x"]] * 10)
    page = build_report(ann, ci=None)
    row = _headline_in_table(page)
    assert row[1] == "percent_agreement" and row[4] == "1.0000"
