"""paper_repro: the synthetic experiment runs end to end (smoke size) through the library."""

from __future__ import annotations

import importlib.util
import json
import pathlib
import sys

import numpy as np
import pandas as pd
import pytest

if importlib.util.find_spec("paper_repro") is None:  # top-level folder, not pip-installed
    sys.path.append(str(pathlib.Path(__file__).resolve().parents[2]))

from paper_repro.__main__ import main  # noqa: E402
from paper_repro.synthetic import (  # noqa: E402
    COLUMNS,
    LookupEstimator,
    concept_oracle_matrix,
    load_terminology,
)


@pytest.fixture(scope="module")
def smoke(tmp_path_factory) -> tuple[pd.DataFrame, dict]:
    out = tmp_path_factory.mktemp("synthetic")
    assert main(["synthetic", "--smoke", "--out", str(out)]) == 0
    df = pd.read_csv(out / "synthetic_results.csv")
    meta = json.loads((out / "synthetic_meta.json").read_text())
    meta["_out"] = str(out)
    summary = pd.read_csv(out / "synthetic_summary.csv")
    # the summary is the per-(measure, condition) mean absolute error of the results
    one = df[(df.setting == "single") & (df.measure == "indel") & (df.chance == "exact")
             & (df.coefficient == "cohen") & (df.condition == "lexical")]
    row = summary[(summary.setting == "single") & (summary.measure == "indel")
                  & (summary.chance == "exact") & (summary.coefficient == "cohen")
                  & (summary.condition == "lexical")]
    assert row["mae"].item() == pytest.approx((one.estimated_kappa - one.true_kappa).abs().mean())
    return df, meta


def test_smoke_output_layout(smoke) -> None:
    df, meta = smoke
    assert list(df.columns) == COLUMNS
    assert COLUMNS[:6] == ["setting", "condition", "measure", "population", "true_kappa",
                           "estimated_kappa"]
    assert set(df["setting"]) == {"single", "set"}
    assert set(df["condition"]) == {"siblings", "lexical"}
    assert set(df.loc[df.setting == "single", "measure"]) == {"exact", "indel", "oracle"}
    assert set(df.loc[df.setting == "set", "measure"]) == {"exact", "indel", "oracle-dice",
                                                           "oracle-jaccard"}
    assert set(df["chance"]) == {"exact", "mc3", "mc2"}
    # single: 2 conditions x 3 populations x 3 measures x 2 coefficients x 2 chances
    assert (df.setting == "single").sum() == 2 * 3 * 3 * 2 * 2
    # set: 2 conditions x 3 populations x 4 measures x 2 coefficients x 2 chances x 2 truths
    assert (df.setting == "set").sum() == 2 * 3 * 4 * 2 * 2 * 2
    assert df["estimated_kappa"].notna().all() and df["true_kappa"].notna().all()
    assert meta["config"]["terminology"] == "fixture-hpo"


def test_oracle_recovers_the_ground_truth(smoke) -> None:
    df, _ = smoke
    exact = df[df.chance == "exact"]
    single = exact[(exact.setting == "single") & (exact.measure == "oracle")]
    np.testing.assert_allclose(single.estimated_kappa, single.true_kappa, atol=1e-9)
    for norm in ("dice", "jaccard"):
        rows = exact[(exact.measure == f"oracle-{norm}") & (exact.truth == norm)]
        np.testing.assert_allclose(rows.estimated_kappa, rows.true_kappa, atol=1e-9)
    # exact string matching never sees synonyms as agreement: it underestimates
    ex = exact[(exact.setting == "single") & (exact.measure == "exact")
               & (exact.true_kappa > 0.5)]
    assert (ex.estimated_kappa < ex.true_kappa - 0.2).all()


def test_oracle_matrix_and_lookup() -> None:
    t = load_terminology("fixture-hpo")
    c1, c2 = t.concepts[10], t.concepts[11]
    labels = [*t.terms(c1)[:2], t.terms(c2)[0]]
    s = concept_oracle_matrix(t, labels)
    assert s.tolist() == [[1, 1, 0], [1, 1, 0], [0, 0, 1]]
    est = LookupEstimator("oracle", labels, s)
    assert est([labels[0], labels[0], "x"], [labels[1], labels[2], "x"]).tolist() == [1, 0, 1]


def test_unknown_terminology_lists_choices() -> None:
    with pytest.raises(ValueError, match="fixture-hpo"):
        load_terminology("mesh")


def test_per_population_scoring_matches_universe_scoring(tmp_path, monkeypatch) -> None:
    """Large terminologies are scored per population: same numbers as the whole-universe path."""
    import dataclasses

    from paper_repro import synthetic as syn

    cfg = dataclasses.replace(syn.SMOKE, conditions=("siblings",), single_populations=2,
                              set_populations=2, coefficients=("cohen",))
    a = syn.run(cfg, tmp_path / "a")
    monkeypatch.setattr(syn, "UNIVERSE_LIMIT", 0)
    b = syn.run(cfg, tmp_path / "b")
    pd.testing.assert_frame_equal(a.drop(columns="estimated_kappa"),
                                  b.drop(columns="estimated_kappa"))
    np.testing.assert_allclose(a.estimated_kappa, b.estimated_kappa, atol=1e-9)


def test_smoke_figures_and_tables(smoke, tmp_path_factory) -> None:
    """``synthetic`` also writes the figures, the Delta-MAE tests and the calibration table."""
    out = pathlib.Path(smoke[1]["_out"])
    for name in ("fig3_mae_violin.png", "fig4_error_vs_truth.png", "fig_calibration.png",
                 "fig5_delta_mae_single.png", "fig8_delta_mae_set.png"):
        assert (out / name).read_bytes()[:4] == b"\x89PNG"
    dm = pd.read_csv(out / "delta_mae.csv")
    one = dm[(dm.setting == "single") & (dm.condition == "lexical")]
    mat = one.pivot(index="measure_a", columns="measure_b", values="delta_mae")
    np.testing.assert_allclose(mat.to_numpy(), -mat.to_numpy().T, atol=1e-12)
    assert (np.diag(mat.to_numpy()) == 0).all()
    assert ((dm.p_value > 0) & (dm.p_value <= 1)).all()
    # with 3 populations a sign-flip test cannot go below 2 / 2**3
    assert dm.p_value.min() >= 0.25 - 0.02
    # delta = difference of the per-measure MAEs over the same populations
    df = smoke[0]
    sl = df[(df.setting == "single") & (df.condition == "lexical") & (df.chance == "exact")
            & (df.coefficient == "cohen")]
    mae = (sl.estimated_kappa - sl.true_kappa).abs().groupby(sl.measure).mean()
    assert mat.loc["exact", "oracle"] == pytest.approx(mae["exact"] - mae["oracle"])
    cal = pd.read_csv(out / "calibration_ece.csv").set_index("measure")
    assert cal.loc["oracle", "ece_uniform"] == 0.0 and cal.loc["oracle", "kappa_ece"] < 1e-9
    # exact matching scores every synonym pair 0: its ECE is the share of synonym pairs
    assert cal.loc["exact", "ece_uniform"] == pytest.approx(cal.loc["exact", "share_equivalent"])
