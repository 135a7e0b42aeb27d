"""``softirr report`` / ``build_report``: every section is present and the page is self-contained."""

import hashlib
import itertools
import re
from html.parser import HTMLParser

import matplotlib
import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

import softirr_stats as sis
from softirr_stats.cli import app
from softirr_stats.data import demo_path
from softirr_stats.reporting import build_report

matplotlib.use("Agg")
runner = CliRunner()
RESOURCE_ATTRS = {"src", "href", "xlink:href", "action", "poster", "data", "srcset", "background"}


class Audit(HTMLParser):
    """Section ids, images, and every reference to something outside the page."""

    def __init__(self) -> None:
        super().__init__()
        self.sections: list[str] = []
        self.images = 0
        self.external: list[str] = []
        self._in_style = False

    def handle_starttag(self, tag, attrs):
        d = dict(attrs)
        if tag == "section":
            self.sections.append(d.get("id"))
        if tag == "img":
            self.images += 1
        if tag == "link" or (tag in ("script", "iframe", "object", "embed") and "src" in d):
            self.external.append(f"<{tag}>")
        for name, value in attrs:
            if name in RESOURCE_ATTRS and not (value or "").startswith(("data:", "#")):
                self.external.append(f"{tag} {name}={value}")
        self._in_style = tag == "style"

    def handle_endtag(self, tag):
        self._in_style = False

    def handle_data(self, data):
        if self._in_style and ("@import" in data or re.search(r"url\((?!\s*['\"]?data:)", data)):
            self.external.append("css url/import")


def audit(page: str) -> Audit:
    a = Audit()
    a.feed(page)
    # embedded files (the PNG figures and their SVG / PDF downloads) are local: drop them before looking for URLs
    text = re.sub(r"data:(?:image/png|image/svg\+xml|application/pdf);base64,[A-Za-z0-9+/=]+", "", page)
    for bad in ("http:", "https:", "//"):
        if bad in text:
            a.external.append(bad)
    return a


def demo_judgments(path):
    """Human-style judgments for demo label pairs: 1 when both labels name the same HPO concept."""
    d = pd.read_csv(demo_path())
    rows = [(a, b, float(ca == cb)) for _, g in d.groupby("item")
            for (a, ca), (b, cb) in itertools.combinations(zip(g["label"], g["concept"], strict=True), 2)]
    pd.DataFrame(rows, columns=["label_a", "label_b", "judgment"]).to_csv(path, index=False)


def test_report_cli_on_the_demo_data(tmp_path):
    out, judged = tmp_path / "report.html", tmp_path / "judged.csv"
    demo_judgments(judged)
    res = runner.invoke(app, ["report", str(demo_path()), "-o", str(out), "-m", "exact,levenshtein",
                              "-c", "fleiss_kappa,krippendorff_alpha", "--bootstrap", "50",
                              "--judgments", str(judged)])
    assert res.exit_code == 0, res.output
    page = out.read_text(encoding="utf-8")
    a = audit(page)
    assert a.external == []
    assert a.sections == ["headline", "summary", "coefficients", "sensitivity", "raters", "calibration", "provenance"]
    assert a.images == 3  # forest plot, rater heatmap, reliability diagram
    assert hashlib.sha256(demo_path().read_bytes()).hexdigest() in page
    assert "softirr report" in page and "--judgments" in page  # the exact command
    assert "B = 50 bootstrap replicates, design = items" in page
    for name in ("numpy", "pandas", "jax", "softirr_stats"):
        assert f"<td>{name}</td>" in page
    assert "<td>device</td><td>auto</td>" in page  # where it was computed (and JAX's backend when JAX ran)
    assert "90 items, 3 raters, 226 labels" in page


def test_report_cli_rejects_bad_options_before_work(tmp_path):
    res = runner.invoke(app, ["report", str(demo_path()), "-o", str(tmp_path / "r.txt")])
    assert res.exit_code == 2 and "--output" in res.stderr
    res = runner.invoke(app, ["report", str(demo_path()), "-o", str(tmp_path / "r.html"), "--model", "nope"])
    assert res.exit_code == 2 and "unknown --model 'nope'" in res.stderr
    bad = tmp_path / "j.csv"
    bad.write_text("a,b\nx,y\n")
    res = runner.invoke(app, ["report", str(demo_path()), "-o", str(tmp_path / "r.html"), "--judgments", str(bad)])
    assert res.exit_code == 2 and "label_a" in res.stderr


SETS = [({"a", "b"}, {"a", "b"}, {"a"}), ({"c"}, {"c"}, {"c"}), ({"a"}, {"b"}, {"a"}),
        ({"b", "c"}, {"b", "c"}, {"b"}), (set(), set(), {"a"}), ({"a", "c"}, {"a", "c"}, {"a", "c"})] * 3


def test_build_report_multilabel_decomposition():
    ann = sis.Annotations.from_wide([list(s) for s in SETS])
    page = build_report(ann, coefficients=["fleiss_kappa", "multilabel_fleiss"], command="python build")
    a = audit(page)
    assert a.external == []
    assert a.sections == ["headline", "summary", "coefficients", "sensitivity", "labels", "raters", "provenance"]
    by_label = sis.multilabel_agreement(ann).by_label
    labels_html = page.split('id="labels"')[1].split("</section>")[0]
    for lab, coef in zip(by_label["label"], by_label["coefficient"], strict=True):
        assert f"<td>{lab}</td>" in labels_html and f"{coef:.4f}" in labels_html


@pytest.mark.slow  # NumPyro compiles the model: a minute or more on a busy machine
def test_build_report_model_section():
    ann = sis.Annotations.from_wide([list(s) for s in SETS])
    page = build_report(ann, coefficients=["fleiss_kappa"], model="dawid_skene", model_steps=30, model_method="svi")
    assert audit(page).sections[-2:] == ["model", "provenance"]
    model_html = page.split('id="model"')[1].split("</section>")[0]
    assert "accuracy[0]" in model_html and "accuracy[2]" in model_html
    kappa_row = re.search(r"<td>kappa</td>((?:<td[^>]*>[^<]*</td>){4})", model_html).group(1)
    mean, sd, lo, hi = (float(x) for x in re.findall(r">([-0-9.]+)<", kappa_row))
    assert lo <= mean <= hi and sd > 0


# ------------------------------------------------------------------ issue 22: judged pairs, diagnostics, one level
def _demo_sheet(n=80, seed=0):
    """A judged plan on the demo: the judgment is 1 when both labels name the same HPO concept."""
    ann = sis.read_annotations(demo_path())
    plan = sis.judging_plan(ann, similarity="levenshtein", n=n, coefficient="fleiss_kappa", seed=seed)
    d = pd.read_csv(demo_path())
    concept = dict(zip(d["label"], d["concept"], strict=True))
    sheet = plan.pairs.copy()
    sheet["judgment"] = [float(concept[a] == concept[b]) for a, b in zip(sheet["label_a"], sheet["label_b"],
                                                                          strict=True)]
    return ann, sheet


def _cells(section_html, first):
    row = re.search(rf"<td>{re.escape(first)}</td>((?:<td[^>]*>[^<]*</td>)+)", section_html).group(1)
    return re.findall(r"<td[^>]*>([^<]*)</td>", row)


def test_report_prediction_powered_section_equals_the_python_api():
    ann, sheet = _demo_sheet()
    page = build_report(ann, measures=["exact", "levenshtein"], coefficients=["fleiss_kappa"], judgments=sheet)
    a = audit(page)
    assert a.external == []
    assert a.sections == ["headline", "summary", "coefficients", "sensitivity", "raters", "ppi", "calibration", "provenance"]
    ppi = page.split('id="ppi"')[1].split("</section>")[0]
    want = sis.fleiss_kappa(ann, similarity="levenshtein", judgments=sis.read_judgments(sheet), ci="analytic")
    plain = sis.fleiss_kappa(ann, similarity="levenshtein")
    pp, judge, est = _cells(ppi, "prediction-powered"), _cells(ppi, "judge-only"), _cells(ppi, "estimator-only")
    assert float(pp[0]) == pytest.approx(want.value, abs=5e-5)
    assert float(pp[1]) == pytest.approx(want.ci_low, abs=5e-5) and float(pp[2]) == pytest.approx(want.ci_high,
                                                                                                   abs=5e-5)
    assert float(judge[0]) == pytest.approx(want.details["ppi"]["judge_only"], abs=5e-5)
    assert float(est[0]) == pytest.approx(plain.value, abs=5e-5)
    assert float(judge[2]) <= 1.0
    cal = page.split('id="calibration"')[1].split("</section>")[0]
    assert "weighted by draws / q" in cal


def test_weighted_reliability_weights_each_pair_by_one_over_q():
    from softirr_stats.reporting import weighted_reliability

    s = [0.05, 0.1, 0.12, 0.55, 0.6, 0.95]
    y = [0.0, 1.0, 0.0, 1.0, 0.0, 1.0]
    q = [0.5, 0.1, 0.5, 0.2, 0.4, 0.25]
    t = weighted_reliability(s, y, 1 / pd.Series(q), bins=2)
    w = 1 / pd.Series(q)
    low = w[:3]
    assert t["mean_label"].iloc[0] == pytest.approx(float((low * pd.Series(y[:3])).sum() / low.sum()))
    assert t["mean_label"].iloc[0] != pytest.approx(1 / 3)  # not the simple-random-sample mean
    assert t["weight"].sum() == pytest.approx(1.0) and t["count"].tolist() == [3.0, 3.0]
    flat = weighted_reliability(s, y, bins=2)
    assert flat["mean_label"].iloc[0] == pytest.approx(1 / 3)
    with pytest.raises(ValueError, match="weights must be finite and positive"):
        weighted_reliability(s, y, [1, 1, 1, 1, 1, 0])
    with pytest.raises(ValueError, match="same length"):
        weighted_reliability(s, y[:-1])


def test_forest_plot_legend_sits_outside_the_data():
    from softirr_stats.reporting import plot_sensitivity

    df = pd.DataFrame({"coefficient": ["a", "a", "b", "b"], "similarity": ["exact", "lev"] * 2,
                       "chance": ["exact"] * 4, "value": [0.9, 0.95, 0.92, 0.97], "ci_low": [0.8, 0.85, 0.82, 0.9],
                       "ci_high": [1.0, 1.0, 1.0, 1.0]})
    ax = plot_sensitivity(df)
    ax.figure.canvas.draw()
    legend = ax.get_legend().get_window_extent()
    assert legend.x0 >= ax.get_window_extent().x1  # right of the axes: covers no row


@pytest.mark.slow  # NUTS on 30 x 3 ratings: seconds with a warm compile cache
def test_report_model_section_shows_diagnostics_at_one_level():
    from softirr_stats import models

    sim = models.simulate_dawid_skene(30, 3, 3, accuracy=0.8, seed=5)
    ann = sis.Annotations.from_wide(pd.DataFrame(pd.Series(["neg", "neu", "pos"]).to_numpy(dtype=object)[sim["codes"]]))
    page = build_report(ann, coefficients=["fleiss_kappa"], ci=sis.Bootstrap(n=50, seed=0), model="dawid_skene")
    model_html = page.split('id="model"')[1].split("</section>")[0]
    for text in ("max r_hat", "min bulk ESS", "divergent transitions", "predictive check p (fleiss_kappa)",
                 "fitted by NUTS", "95% equal-tailed posterior (credible) intervals"):
        assert text in model_html
    assert "90%" not in page  # one interval level on the page
    assert "dawid_skene (NUTS, level 0.95)" in page


@pytest.mark.slow
def test_report_model_section_caveats_an_open_vocabulary():
    rng = pd.Series(range(90)).sample(frac=1, random_state=0).to_numpy() % 35
    ann = sis.Annotations.from_wide(pd.DataFrame((pd.Series(rng).map(lambda i: f"phrase {i}")).to_numpy(
        dtype=object).reshape(30, 3)))
    page = build_report(ann, coefficients=["fleiss_kappa"], model="dawid_skene", model_method="svi", model_steps=200)
    model_html = page.split('id="model"')[1].split("</section>")[0]
    assert '<p class="caveat">Open vocabulary: 35 distinct labels' in model_html
    assert "SVI is a variational approximation" in model_html
    # the checks' p-values are shares of the 1000 draws: 0 and 1 show as bounds, not as 0.0000 and 1.0000
    assert ('<td>predictive check p (fleiss_kappa)</td><td class="num">&gt; 0.999 (all 1000 draws)</td>'
            in model_html)
    assert ('<td>per-rater check p (lowest: rater 0)</td><td class="num">&lt; 0.002 (none of 1000 draws)</td>'
            in model_html)
    assert "in 1000 of 1000 draws (p &gt; 0.999)" in model_html and "p = 0.0000" not in model_html


def test_build_report_lists_the_readers_notes(tmp_path):
    path = tmp_path / "w.csv"
    path.write_text("doc,a,b\nd1,x,x\nd2,y,x\nd3,y,y\n")
    ann = sis.read_annotations(path, wide=True, item="doc")
    page = build_report(ann, coefficients=["cohen_kappa"])
    assert '<p class="note">w.csv: read as a wide table' in page
    page = build_report(ann, coefficients=["cohen_kappa"], read_notes=["LabelWarning: a reading warning"])
    assert "read as a wide table" not in page and '<p class="note warn">LabelWarning: a reading warning' in page


@pytest.mark.parametrize("raters", [["a", "b", "c"], ["all", "label", "c"]])
def test_report_of_numeric_ratings_and_raters_named_like_the_summary(raters):
    # numbers as labels broke the summary table (their texts written into an int column); raters named 'all' or
    # 'label' keep their own columns
    rows = [[1, 2, 2], [3, 3, 4], [5, 5, 5], [2, 1, 2], [4, 4, 3]] * 4
    ann = sis.Annotations.from_wide(pd.DataFrame(rows, columns=raters))
    page = build_report(ann, coefficients=["fleiss_kappa"])
    assert "Most frequent labels" in page and f">{raters[0]}<" in page


def test_report_where_every_rater_agrees_says_nothing_raw(recwarn):
    # numpy's "Mean of empty slice" leaked from the pairwise table (every pairwise kappa undefined)
    ann = sis.Annotations.from_wide([["x", "x"], ["x", "x"], ["x", "x"]])
    build_report(ann, coefficients=["fleiss_kappa", "percent_agreement"], ci=sis.Bootstrap(n=50, seed=0))
    assert not [w for w in recwarn if issubclass(w.category, RuntimeWarning)]


def test_the_pairwise_section_of_many_raters_is_left_out_with_a_note(monkeypatch):
    """1,200 raters made 719,400 pairwise kappas (minutes, no estimate): beyond MAX_PAIRWISE_RATERS raters the
    section says why it was left out and how to get it, and the report takes seconds."""
    import time

    from softirr_stats.reporting import _html

    monkeypatch.setattr(_html, "pairwise_agreement", lambda *a, **k: pytest.fail("pairwise kappas were computed"))
    rng = np.random.default_rng(0)
    ann = sis.Annotations.from_wide(rng.integers(0, 3, (20, 200)).astype(str))
    started = time.perf_counter()
    page = _html.build_report(ann, coefficients=["fleiss_kappa"], ci=None)
    assert time.perf_counter() - started < 60
    assert f"shown for up to {_html.MAX_PAIRWISE_RATERS} raters" in page and "200 (19,900 rater pairs" in page
    assert 'id="raters"' in page


def test_the_pairwise_section_is_drawn_up_to_the_cap():
    from softirr_stats.reporting import _html

    rng = np.random.default_rng(1)
    ann = sis.Annotations.from_wide(rng.integers(0, 3, (15, _html.MAX_PAIRWISE_RATERS)).astype(str))
    assert "pairwise Cohen kappa heatmap" in _html._raters_html(ann, "exact", None)


def test_an_analytic_request_states_its_level_and_the_multilabel_section_says_it_has_none():
    # Analytic(level=0.9) was read as a bootstrap (ci.method: AttributeError), and any analytic request failed the
    # page of set-valued labels (the multi-label baseline has no analytic variance)
    ann = sis.Annotations.from_wide([[1, 2, 2], [3, 3, 3], [4, 5, 4], [2, 2, 1], [5, 5, 5], [1, 1, 2]])
    page = build_report(ann, coefficients=["fleiss_kappa"], ci=sis.Analytic(level=0.9))
    assert "90% analytic intervals" in page
    sets = sis.Annotations.from_long(pd.DataFrame({
        "item": [1, 1, 2, 2, 3, 3, 4, 4], "rater": ["a", "b"] * 4,
        "label": [{"x"}, {"x", "y"}, {"y"}, {"y"}, {"x"}, {"z"}, {"x", "z"}, {"x", "z"}]}))
    for ci in ("analytic", sis.Analytic(level=0.9)):
        assert "no analytic interval: the multi-label baseline has none" in build_report(sets, ci=ci)


def test_report_levels_keep_their_decimals_and_a_kappa_of_zero_prints_as_zero():
    """--level 0.995 was titled "100% ... intervals" (0.975: "98%"); a kappa of exactly 0 (observed = expected =
    1/3), computed as -8.3e-17, printed as "-0.0000" in the table and "-0.000" in the headline."""
    a = ["b", "b", "b", "a", "a", "c", "b", "b", "b", "b", "a", "b"]
    b = ["a", "c", "b", "b", "a", "b", "b", "c", "c", "a", "a", "c"]
    ann = sis.Annotations.from_wide([list(p) for p in zip(a, b, strict=True)])
    res = sis.cohen_kappa(ann, ci=sis.Analytic(level=0.995))
    assert abs(res.value) < 1e-12 and abs(res.observed - 1 / 3) < 1e-12 and abs(res.expected - 1 / 3) < 1e-12
    page = build_report(ann, coefficients=["cohen_kappa"], ci=sis.Analytic(level=0.995))
    assert "99.5% analytic intervals" in page and "100% analytic" not in page
    assert f'κ (Cohen) = 0.000 [{res.ci_low:.3f}, {res.ci_high:.3f}]' in page
    assert '<td class="num">0.0000</td>' in page and "-0.0000" not in page and "= -0.000" not in page
    boot = build_report(ann, coefficients=["cohen_kappa"], ci=sis.Bootstrap(n=40, seed=0, level=0.975))
    assert re.search(r"97\.5% bca-t intervals, B = 40 bootstrap", boot) and not re.search(r"\b98% \w+ intervals", boot)


def test_report_tables_print_a_p_column_as_every_table_does():
    """The report's tables format each number with four decimals; a p-value column (none of the sections has one
    yet, the helper serves them all) prints a p below 0.0001 in scientific form, never as 0.0000, and escaped."""
    from softirr_stats.base._format import format_p
    from softirr_stats.reporting._html import _table

    p = [2.2380978812026502e-222, 0.0, 0.04512]
    page = _table(pd.DataFrame({"coefficient": ["a", "b", "c"], "p_value": p, "value": [1e-20, -8.3e-17, 0.5]}))
    cells = re.findall(r'<td class="num">([^<]*)</td>', page)  # escaped: "<1e-300" is text, not a tag
    assert cells == ["2.2e-222", "0.0000", "&lt;1e-300", "0.0000", "0.0451", "0.5000"], page
    assert [format_p(x) for x in p] == ["2.2e-222", "<1e-300", "0.0451"]
