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
