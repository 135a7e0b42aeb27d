"""mkdocs hook: serve MathJax from the site itself, so formulas render offline.

``pymdownx.arithmatex`` (generic mode) leaves ``$...$`` / ``$$...$$`` for MathJax in the page;
this hook copies MathJax 3 (``es5/tex-chtml.js`` and its woff fonts) from the Python package
``django-static-mathjax`` (the ``[docs]`` extra; no Django is imported) into
``site/javascripts/mathjax/``. No CDN is contacted, when building or when reading the site.
"""

from __future__ import annotations

import importlib.util
import shutil
from pathlib import Path

from mkdocs.exceptions import PluginError


def _source() -> Path:
    spec = importlib.util.find_spec("mathjax")
    if spec is None or not spec.submodule_search_locations:
        raise PluginError("MathJax is missing: pip install -e '.[docs]' (it brings django-static-mathjax, "
                          "whose files the docs serve offline)")
    es5 = Path(list(spec.submodule_search_locations)[0]) / "static" / "mathjax" / "es5"
    if not (es5 / "tex-chtml.js").is_file():
        raise PluginError(f"MathJax's tex-chtml.js is not under {es5}; reinstall django-static-mathjax")
    return es5


def on_post_build(config, **kwargs) -> None:
    es5 = _source()
    target = Path(config["site_dir"]) / "javascripts" / "mathjax"
    fonts = target / "output" / "chtml" / "fonts" / "woff-v2"
    fonts.mkdir(parents=True, exist_ok=True)
    shutil.copy2(es5 / "tex-chtml.js", target / "tex-chtml.js")
    for font in (es5 / "output" / "chtml" / "fonts" / "woff-v2").glob("*.woff"):
        shutil.copy2(font, fonts / font.name)
    licence = es5.parent / "LICENSE"
    if licence.is_file():
        shutil.copy2(licence, target / "LICENSE")
