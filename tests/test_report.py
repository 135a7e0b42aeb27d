"""``softirr report`` / ``build_report``: every section is present and the page is self-contained."""

import hashlib
import itertools
import re
from html.parser import HTMLParser

import matplotlib
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
    text = re.sub(r"data:image/png;base64,[A-Za-z0-9+/=]+", "", page)
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
    assert a.sections == ["summary", "coefficients", "sensitivity", "raters", "calibration", "provenance"]
    assert a.images == 3  # forest plot, rater heatmap, reliability diagram
    assert hashlib.sha256(demo_path().read_bytes()).hexdigest() in page
    assert "softirr report" in page and "--judgments" in page  # the exact command
    assert "B = 50 bootstrap replicates, design = items" in page
    for name in ("numpy", "pandas", "jax", "softirr_stats"):
        assert f"<td>{name}</td>" in page
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
    assert a.sections == ["summary", "coefficients", "sensitivity", "labels", "raters", "provenance"]
    by_label = sis.multilabel_agreement(ann).by_label
    labels_html = page.split('id="labels"')[1].split("</section>")[0]
    for lab, coef in zip(by_label["label"], by_label["coefficient"], strict=True):
        assert f"<td>{lab}</td>" in labels_html and f"{coef:.4f}" in labels_html


@pytest.mark.slow  # NumPyro compiles the model: a minute or more on a busy machine
def test_build_report_model_section():
    ann = sis.Annotations.from_wide([list(s) for s in SETS])
    page = build_report(ann, coefficients=["fleiss_kappa"], model="dawid_skene", model_steps=30)
    assert audit(page).sections[-2:] == ["model", "provenance"]
    model_html = page.split('id="model"')[1].split("</section>")[0]
    assert "accuracy[0]" in model_html and "accuracy[2]" in model_html
    kappa_row = re.search(r"<td>kappa</td>((?:<td[^>]*>[^<]*</td>){4})", model_html).group(1)
    mean, sd, lo, hi = (float(x) for x in re.findall(r">([-0-9.]+)<", kappa_row))
    assert lo <= mean <= hi and sd > 0
