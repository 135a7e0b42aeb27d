"""Names and labels from the data are drawn as written, never as TeX (issue 35, row 21).

A rater named ``$\\frac{1}{$`` made matplotlib's mathtext parser abort ``softirr report``; a
valid ``$x^2$`` was drawn as math. Every text from the data or the user that reaches a figure
has its ``$`` escaped.
"""

import matplotlib
import pandas as pd
import pytest

from softirr_stats.base._mpltext import literal
from softirr_stats.cli import main

matplotlib.use("Agg")

NAMES = [r"$\frac{1}{$", "$x^2$", "a$b", "$$", "\\$", r"$\alpha", "plain"]


def _mathtext_free(text):
    """What matplotlib does with the string: (is it math?, the text drawn)."""
    from matplotlib.text import Text

    t = Text(0, 0, text)
    return t._preprocess_math(text)


@pytest.mark.parametrize("name", NAMES, ids=repr)
def test_literal_is_drawn_as_written(name):
    drawn, math = _mathtext_free(literal(name))
    assert math is False and drawn == name


def _data(path, names):
    rows = [(f"i{i}", r, ("x" if (i + k) % 3 else "y")) for i in range(12) for k, r in enumerate(names)]
    pd.DataFrame(rows, columns=["item", "rater", "label"]).to_json(path, orient="records", lines=True)
    return path


@pytest.mark.parametrize("names", [NAMES[:3], NAMES[3:6], [r"$\frac{1}{$", "bob"]], ids=["a", "b", "c"])
def test_report_with_tex_in_rater_names(tmp_path, capsys, names):
    data = _data(tmp_path / "d.jsonl", names)
    out = tmp_path / "r.html"
    with pytest.raises(SystemExit) as info:
        main(["report", str(data), "-o", str(out), "--bootstrap", "0", "-m", "exact,levenshtein"])
    err = capsys.readouterr().err
    assert info.value.code == 0, err
    assert "ParseFatalException" not in err and "mathtext" not in err.lower()
    assert out.read_text(encoding="utf-8").count("<img") >= 2  # the forest plot and the rater heatmap


def test_forest_plot_title_and_labels_with_dollars():
    from softirr_stats.reporting import plot_sensitivity

    df = pd.DataFrame({"coefficient": ["$\\frac{1}{$"], "similarity": ["$x$"], "chance": ["exact"],
                       "value": [0.5], "ci_low": [0.4], "ci_high": [0.6]})
    ax = plot_sensitivity(df, title="$\\frac{$")
    ax.figure.canvas.draw()  # mathtext would raise here
    assert [t.get_text() for t in ax.get_yticklabels()] == [literal("$\\frac{1}{$")]
    matplotlib.pyplot.close(ax.figure)
