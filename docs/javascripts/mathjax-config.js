// MathJax 3 settings for pymdownx.arithmatex (generic mode); MathJax itself is served from
// the site (docs/_hooks/mathjax_offline.py copies it there), so no CDN is needed. Pages load
// normally (no navigation.instant), so MathJax's startup typesetting covers every page.
window.MathJax = {
  tex: {inlineMath: [["\\(", "\\)"]], displayMath: [["\\[", "\\]"]], processEscapes: true, processEnvironments: true},
  options: {ignoreHtmlClass: ".*|", processHtmlClass: "arithmatex"}
};
