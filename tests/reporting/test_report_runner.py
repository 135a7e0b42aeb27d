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
    first = want[want["chance"] == want["chance"].iloc[0]]
    shown = _rows(_section(page, "coefficients"))
    assert len(shown) == len(first) == 4
    for cells, row in zip(shown, first.itertuples(index=False), strict=True):
        assert cells[:3] == [symbol(row.coefficient), row.coefficient, row.similarity]  # the symbol, then the name
        assert cells[3:6] == [f"{row.value:.4f}", f"{row.ci_low:.4f}", f"{row.ci_high:.4f}"]
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
    assert row[1] == _html._num(want["p_value"].min()) and row[3] == "check"
    assert section.count(f"{message[0].upper()}{message[1:]}.") == 1 and "Fit warning: per-rater" not in section
