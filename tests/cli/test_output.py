"""Numbers and titles of the terminal tables: zero up to rounding error, and confidence levels with their decimals."""

import pytest
from typer.testing import CliRunner

import softirr_stats as sis
from softirr_stats.cli import app
from softirr_stats.cli._options import ci_title
from softirr_stats.cli._output import _cell

runner = CliRunner()
#: two raters: observed = expected agreement = 1/3, so Cohen's kappa is 0 (computed: -8.3e-17)
ZERO = [("b", "a"), ("b", "c"), ("b", "b"), ("a", "b"), ("a", "a"), ("c", "b"), ("b", "b"), ("b", "c"), ("b", "c"),
        ("b", "a"), ("a", "a"), ("b", "c")]


def test_a_cell_zero_up_to_rounding_prints_without_a_minus_sign():
    assert (_cell(-8.326672684688674e-17), _cell(-0.0), _cell(4.8e-16)) == ("0.0000", "0.0000", "0.0000")
    assert (_cell(-0.00004), _cell(-0.1234567), _cell(float("nan")), _cell(3)) == ("-0.0000", "-0.1235", "", "3")


@pytest.fixture
def zero_csv(tmp_path):
    path = tmp_path / "zero.csv"
    path.write_text("item,rater,label\n" + "".join(f"i{i},A,{x}\ni{i},B,{y}\n" for i, (x, y) in enumerate(ZERO)))
    return path


def test_agree_prints_a_kappa_of_zero_as_zero_and_a_level_with_its_decimals(zero_csv):
    res = sis.cohen_kappa(sis.read_annotations(zero_csv), ci=sis.Analytic(level=0.995))
    assert abs(res.value) < 1e-12
    out = runner.invoke(app, ["agree", str(zero_csv), "-c", "cohen_kappa", "--analytic", "--level", "0.995"],
                        env={"COLUMNS": "200"})
    assert out.exit_code == 0, out.output
    assert "99.5% analytic intervals" in out.output and "100%" not in out.output
    assert "-0.0000" not in out.output
    assert f"│  0.0000 │ [{res.ci_low:.4f}, {res.ci_high:.4f}]" in out.output or \
        f"│ 0.0000 │ [{res.ci_low:.4f}, {res.ci_high:.4f}]" in out.output, out.output


def test_interval_titles_keep_the_decimals_of_the_level():
    assert ci_title(sis.Analytic(level=0.995), 0, "items", "auto", 0.995, 0).startswith("99.5% analytic intervals")
    assert ci_title(sis.Bootstrap(n=100, level=0.975), 100, "items", "percentile", 0.975, 0).startswith(
        "97.5% percentile intervals, B = 100")


def test_the_ci_cell_prints_a_bound_that_is_zero_up_to_rounding_as_zero(capsys, monkeypatch):
    # the value column applied the zero rule; the merged CI cell printed [-0.0000, 0.2500]
    from softirr_stats.cli._grid import present

    monkeypatch.setenv("COLUMNS", "160")
    row = dict(similarity="exact", coefficient="fleiss_kappa", chance="exact", value=-1.1e-16, ci_low=-2.2e-17,
               ci_high=0.25, se=0.1, level=0.95, ci_method="bca-t", observed=1 / 3, expected=1 / 3, n_items=30,
               n_raters=3, n_pairs_scored=0, warnings=[])
    present([row, {**row, "ci_low": -4e-5}], [], fmt="table", title="t", meta={}, json_out=None, keep_going=False,
            strict=False)
    out = capsys.readouterr().out
    assert "[0.0000, 0.2500]" in out and "[-0.0000, 0.2500]" in out  # a true -4e-05 keeps its sign
    assert out.count("-0.0000") == 1, out
