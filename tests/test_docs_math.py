"""Formulas in the docs render offline: arithmatex marks them, the hook serves MathJax from the site."""

import importlib.util
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]


def _hook():
    spec = importlib.util.spec_from_file_location("mathjax_offline", ROOT / "docs" / "_hooks" / "mathjax_offline.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_mkdocs_config_serves_mathjax_from_the_site():
    yaml = pytest.importorskip("yaml")  # comes with mkdocs (the [docs] extra)
    cfg = yaml.safe_load((ROOT / "mkdocs.yml").read_text())
    ext = [next(iter(e)) if isinstance(e, dict) else e for e in cfg["markdown_extensions"]]
    assert "pymdownx.arithmatex" in ext
    assert cfg["hooks"] == ["docs/_hooks/mathjax_offline.py"]
    assert cfg["extra_javascript"] == ["javascripts/mathjax-config.js", "javascripts/mathjax/tex-chtml.js"]
    assert not any(str(j).startswith(("http:", "https:", "//")) for j in cfg["extra_javascript"])
    assert (ROOT / "docs" / "javascripts" / "mathjax-config.js").is_file()


def test_hook_copies_mathjax_and_its_fonts(tmp_path):
    pytest.importorskip("mkdocs")
    if importlib.util.find_spec("mathjax") is None:
        pytest.fail("django-static-mathjax is missing: pip install -e '.[docs]'")
    _hook().on_post_build({"site_dir": str(tmp_path)})
    target = tmp_path / "javascripts" / "mathjax"
    assert (target / "tex-chtml.js").stat().st_size > 500_000
    fonts = list((target / "output" / "chtml" / "fonts" / "woff-v2").glob("*.woff"))
    assert any(f.name == "MathJax_Main-Regular.woff" for f in fonts)


def test_model_page_formulas_are_marked_for_mathjax():
    text = (ROOT / "docs" / "annotator_models.md").read_text()
    assert "$$\nP_o = \\sum_{j \\ne j'}" in text


FORMULA_PAGES = ["formulas/coefficients.md", "formulas/variance.md", "formulas/resampling.md",
                 "formulas/annotator_models.md", "formulas/calibration.md", "formulas/ppi.md",
                 "coefficients.md", "calibration.md", "ppi.md", "span_agreement.md", "uncertainty.md", "multilabel.md",
                 "annotator_models.md"]


@pytest.mark.parametrize("page", FORMULA_PAGES)
def test_formulas_are_marked_as_math_and_render(page):
    """The pages' formulas are TeX for MathJax (arithmatex finds them), not plain text."""
    markdown = pytest.importorskip("markdown")  # comes with mkdocs (the [docs] extra)
    text = (ROOT / "docs" / page).read_text()
    html = markdown.markdown(text, extensions=["pymdownx.arithmatex", "pymdownx.superfences", "tables"],
                             extension_configs={"pymdownx.arithmatex": {"generic": True}})
    assert html.count('class="arithmatex"') >= 2, page


@pytest.mark.parametrize("page", sorted(p.name for p in (ROOT / "docs" / "formulas").glob("*.md")))
def test_formula_pages_have_no_plain_text_formula_blocks(page):
    """A ```text block of formulas (``x = ... / ...``) on a formula page is a formula not rendered."""
    text = (ROOT / "docs" / "formulas" / page).read_text()
    blocks = [b for b in text.split("```text")[1:] if "=" in b.split("```")[0]]
    assert blocks == [], f"formulas/{page}: write these as $$...$$"
