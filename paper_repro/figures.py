"""Figures and tables of the synthetic experiment (paper Figs. 3, 4, 5, 8 and calibration).

Everything is computed from the CSV files :func:`paper_repro.synthetic.run` writes, so the
figures can be redrawn without re-running the experiment
(``python -m paper_repro figures --out DIR``). The default slice is the paper's main
setting: Cohen's kappa with exact chance; set-level errors against the Jaccard ground truth.

Files written to ``DIR`` (``make_all``):

===============================  ===============================================================
``fig3_mae_violin.png``          absolute error |estimated - true| per population, per measure
                                 (violins; single-label and set-level panels)
``fig4_error_vs_truth.png``      absolute error against the true kappa, per measure and condition
``fig_calibration.png``          (left) reliability diagram of each measure's pair score
                                 ``P(a == b)`` against synonymy (oracle), with the library's ECE;
                                 (right) estimated vs true kappa binned, with a kappa-scale ECE
``calibration_ece.csv``          both ECEs per measure
``fig5_delta_mae_single.png``    Delta-MAE heatmaps (row minus column) per negative condition,
``fig8_delta_mae_set.png``       single-label (Fig. 5) and set-level (Fig. 8), with stars for
                                 paired sign-flip permutation p-values
``delta_mae.csv``                every (setting, condition, measure_a, measure_b) difference
                                 and its p-value
===============================  ===============================================================
"""

from __future__ import annotations

import pathlib
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["paired_permutation_test", "delta_mae", "kappa_calibration", "pair_calibration",
           "make_all", "MEASURE_ORDER"]

MEASURE_ORDER = ("oracle", "oracle-jaccard", "oracle-dice", "embedding", "indel", "lcs",
                 "levenshtein", "jaccard", "masi", "exact")


def _order(measures: Sequence[str]) -> list[str]:
    known = [m for m in MEASURE_ORDER if m in set(measures)]
    return known + sorted(set(measures) - set(known))


def main_slice(df: pd.DataFrame, setting: str, coefficient: str = "cohen",
               chance: str = "exact") -> pd.DataFrame:
    """Rows of one setting in the paper's main configuration (set: Jaccard ground truth)."""
    truth = "concept" if setting == "single" else "jaccard"
    sel = ((df.setting == setting) & (df.coefficient == coefficient) & (df.chance == chance)
           & (df.truth == truth))
    out = df[sel].copy()
    out["abs_error"] = (out.estimated_kappa - out.true_kappa).abs()
    return out


def paired_permutation_test(diff: np.ndarray, n_permutations: int = 10_000,
                            seed: int = 0) -> np.ndarray:
    """Two-sided paired sign-flip permutation p-values of ``mean(diff) == 0`` along the last axis.

    Under the null each population's paired difference is symmetric around 0, so its sign
    is flipped at random. All tests share the same ``n_permutations`` random sign vectors
    (one matrix product); ``p = (1 + #{|mean*| >= |mean|}) / (1 + n_permutations)``.

    Parameters
    ----------
    diff : array (..., n)
        Paired differences, e.g. absolute errors of measure a minus those of measure b
        over the same populations.
    n_permutations : int
    seed : int

    Returns
    -------
    array (...) of p-values (1 where every difference is 0).

    Examples
    --------
    >>> p = paired_permutation_test(np.array([[0.1] * 12, [0.1, -0.1] * 6]), 2000, seed=0)
    >>> bool(p[0] < 0.001), bool(p[1] > 0.5)
    (True, True)
    """
    d = np.asarray(diff, dtype=np.float64)
    if d.ndim < 1 or d.shape[-1] < 1:
        raise ValueError(f"diff: expected an array with a non-empty last axis, got {d.shape}")
    if not isinstance(n_permutations, int | np.integer) or n_permutations < 1:
        raise ValueError(f"n_permutations: expected an int >= 1, got {n_permutations!r}")
    n = d.shape[-1]
    flat = d.reshape(-1, n)
    rng = np.random.default_rng(seed)
    signs = rng.integers(0, 2, size=(n_permutations, n)).astype(np.float64) * 2.0 - 1.0
    obs = np.abs(flat.mean(axis=1))
    null = np.abs(flat @ signs.T) / n  # (tests, permutations)
    tol = 1e-12 * np.maximum(1.0, obs)
    count = (null >= (obs - tol)[:, None]).sum(axis=1)
    return ((1.0 + count) / (1.0 + n_permutations)).reshape(d.shape[:-1])


def delta_mae(df: pd.DataFrame, n_permutations: int = 10_000, seed: int = 0) -> pd.DataFrame:
    """MAE differences between every pair of measures, per setting and condition.

    ``delta = MAE(measure_a) - MAE(measure_b)`` over the same populations (negative: a is
    better), with the paired sign-flip permutation p-value of
    :func:`paired_permutation_test` on the per-population absolute errors.
    """
    rows = []
    for setting in ("single", "set"):
        sl = main_slice(df, setting)
        if sl.empty:
            continue
        for cond, g in sl.groupby("condition", sort=False):
            ae = g.pivot_table(index="measure", columns="population", values="abs_error")
            ae = ae.loc[_order(ae.index)].dropna(axis=1)
            a = ae.to_numpy()
            diff = a[:, None, :] - a[None, :, :]  # (M, M, P)
            p = paired_permutation_test(diff, n_permutations, seed)
            m = list(ae.index)
            ii, jj = np.meshgrid(np.arange(len(m)), np.arange(len(m)), indexing="ij")
            rows.append(pd.DataFrame({
                "setting": setting, "condition": cond,
                "measure_a": np.asarray(m, dtype=object)[ii.ravel()],
                "measure_b": np.asarray(m, dtype=object)[jj.ravel()],
                "delta_mae": diff.mean(axis=2).ravel(), "p_value": p.ravel(),
                "n_populations": a.shape[1]}))
    cols = ["setting", "condition", "measure_a", "measure_b", "delta_mae", "p_value",
            "n_populations"]
    return pd.concat(rows, ignore_index=True) if rows else pd.DataFrame(columns=cols)


def pair_calibration(pairs: pd.DataFrame, bins: int = 10) -> pd.DataFrame:
    """ECE of each measure's pair score against synonymy (the oracle), per measure.

    The library's :func:`softirr_stats.calibration.expected_calibration_error` on the
    single-label item pairs (score of the two raters' labels, label 1 when both are forms
    of the same concept), uniform and quantile bins.
    """
    from softirr_stats.calibration import brier_score, expected_calibration_error

    rows = []
    for m, g in pairs.groupby("measure", sort=False):
        s, y = g.score.clip(0, 1).to_numpy(), g.equivalent.to_numpy()
        rows.append({"measure": m, "n_pairs": len(g), "share_equivalent": float(y.mean()),
                     "ece_uniform": expected_calibration_error(s, y, bins, "uniform"),
                     "ece_quantile": expected_calibration_error(s, y, bins, "quantile"),
                     "brier": brier_score(s, y)})
    return pd.DataFrame(rows)


def kappa_calibration(df: pd.DataFrame, setting: str = "single", bins: int = 10
                      ) -> pd.DataFrame:
    """Kappa-scale ECE: populations binned by estimated kappa, mean true vs mean estimate.

    Computed with the library's ``expected_calibration_error`` on kappa mapped to [0, 1]
    by ``(k + 1) / 2`` (uniform bins of width 0.2 on the kappa scale), times 2 to return to
    the kappa scale.
    """
    from softirr_stats.calibration import expected_calibration_error

    sl = main_slice(df, setting)
    rows = []
    for m, g in sl.groupby("measure", sort=False):
        s = ((g.estimated_kappa.to_numpy() + 1) / 2).clip(0, 1)
        y = ((g.true_kappa.to_numpy() + 1) / 2).clip(0, 1)
        rows.append({"setting": setting, "measure": m, "n_populations": len(g),
                     "kappa_ece": 2 * expected_calibration_error(s, y, bins, "uniform")})
    return pd.DataFrame(rows)


# ---------------------------------------------------------------------------------- plots


def _plt() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def save_png(fig: Any, path: pathlib.Path, **kw: Any) -> None:
    """Save at 72 dpi, then quantise to a 64-colour palette (small files for the docs)."""
    import io

    from PIL import Image

    plt = _plt()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=72, **kw)
    plt.close(fig)
    buf.seek(0)
    with Image.open(buf) as im:
        im.convert("RGB").quantize(colors=64).save(path, optimize=True)


def fig3_violin(df: pd.DataFrame, path: pathlib.Path) -> None:
    plt = _plt()
    settings = [s for s in ("single", "set") if (df.setting == s).any()]
    fig, axes = plt.subplots(1, len(settings), figsize=(5.2 * len(settings), 3.6), squeeze=False)
    for ax, setting in zip(axes[0], settings, strict=True):
        sl = main_slice(df, setting)
        ms = _order(sl.measure.unique())
        data = [sl.loc[sl.measure == m, "abs_error"].to_numpy() for m in ms]
        ax.violinplot(data, showmeans=True, showextrema=False)
        ax.set_xticks(np.arange(1, len(ms) + 1), ms, rotation=45, ha="right", fontsize=8)
        ax.set_ylabel("|estimated - true kappa|")
        truth = "concept" if setting == "single" else "Jaccard"
        ax.set_title(f"{setting}-label, truth: {truth} (all conditions)", fontsize=9)
    fig.tight_layout()
    save_png(fig, path)


def fig4_error_vs_truth(df: pd.DataFrame, path: pathlib.Path) -> None:
    plt = _plt()
    sl = main_slice(df, "single")
    conds = list(dict.fromkeys(sl.condition))
    fig, axes = plt.subplots(1, len(conds), figsize=(3.0 * len(conds), 3.2), squeeze=False,
                             sharey=True)
    for ax, cond in zip(axes[0], conds, strict=True):
        g = sl[sl.condition == cond]
        for k, m in enumerate(_order(g.measure.unique())):
            h = g[g.measure == m].sort_values("true_kappa")
            ax.plot(h.true_kappa, h.abs_error, marker=".", ms=3, lw=1, label=m, color=f"C{k}")
        ax.set_title(cond, fontsize=9)
        ax.set_xlabel("true kappa")
    axes[0][0].set_ylabel("|estimated - true kappa|")
    axes[0][-1].legend(fontsize=6, loc="upper left")
    fig.tight_layout()
    save_png(fig, path)


def fig_calibration(df: pd.DataFrame, pairs: pd.DataFrame | None, path: pathlib.Path) -> None:
    from softirr_stats.calibration import expected_calibration_error, reliability_diagram

    plt = _plt()
    fig, axes = plt.subplots(1, 2, figsize=(9.5, 4.0))
    ax = axes[0]
    ax.plot([0, 1], [0, 1], ls="--", color="0.5", lw=1)
    if pairs is not None and not pairs.empty:
        for k, m in enumerate(_order(pairs.measure.unique())):
            g = pairs[pairs.measure == m]
            s, y = g.score.clip(0, 1).to_numpy(), g.equivalent.to_numpy()
            tab = reliability_diagram(s, y, 10, "uniform")
            ece = expected_calibration_error(s, y, 10, "uniform")
            ax.plot(tab.mean_score, tab.mean_label, marker="o", ms=3, lw=1, color=f"C{k}",
                    label=f"{m} (ECE {ece:.2f})")
        ax.legend(fontsize=6, loc="upper left")
    ax.set_xlabel("pair score P(a == b)")
    ax.set_ylabel("share of synonym pairs")
    ax.set_title("single-label item pairs vs oracle", fontsize=9)
    ax = axes[1]
    sl = main_slice(df, "single")
    ax.plot([-1, 1], [-1, 1], ls="--", color="0.5", lw=1)
    edges = np.linspace(-1, 1, 11)
    for k, m in enumerate(_order(sl.measure.unique())):
        g = sl[sl.measure == m]
        b = np.clip(np.searchsorted(edges[1:-1], g.estimated_kappa.to_numpy()), 0, 9)
        tab = g.assign(b=b).groupby("b").agg(est=("estimated_kappa", "mean"),
                                             true=("true_kappa", "mean"))
        ax.plot(tab.est, tab.true, marker="o", ms=3, lw=1, color=f"C{k}", label=m)
    ax.set_xlabel("estimated kappa (binned, width 0.2)")
    ax.set_ylabel("mean true kappa")
    ax.set_title("population kappa (Cohen, exact chance)", fontsize=9)
    fig.tight_layout()
    save_png(fig, path)


def fig_delta_heatmaps(dm: pd.DataFrame, setting: str, path: pathlib.Path) -> None:
    plt = _plt()
    d = dm[dm.setting == setting]
    conds = list(dict.fromkeys(d.condition))
    ncol = min(2, max(1, len(conds)))
    nrow = -(-max(1, len(conds)) // ncol)
    fig, axes = plt.subplots(nrow, ncol, figsize=(4.3 * ncol, 4.0 * nrow), squeeze=False)
    lim = max(float(d.delta_mae.abs().max()), 1e-9)
    im = None
    flat = axes.ravel()
    for ax in flat[len(conds):]:
        ax.axis("off")
    for ax, cond in zip(flat, conds, strict=False):
        g = d[d.condition == cond]
        ms = list(dict.fromkeys(g.measure_a))
        mat = g.pivot(index="measure_a", columns="measure_b", values="delta_mae").loc[ms, ms]
        pv = g.pivot(index="measure_a", columns="measure_b", values="p_value").loc[ms, ms]
        im = ax.imshow(mat.to_numpy(), cmap="RdBu_r", vmin=-lim, vmax=lim)
        for i in range(len(ms)):
            for j in range(len(ms)):
                if i != j:
                    p = pv.iat[i, j]
                    star = "**" if p < 0.01 else ("*" if p < 0.05 else "")
                    v = mat.iat[i, j]
                    ax.text(j, i, f"{v:.2f}\n{star}", ha="center", va="center",
                            fontsize=5.5, linespacing=0.9,
                            color="white" if abs(v) > 0.6 * lim else "black")
        ax.set_xticks(range(len(ms)), ms, rotation=60, ha="right", fontsize=7)
        ax.set_yticks(range(len(ms)), ms, fontsize=7)
        ax.set_title(cond, fontsize=9)
    fig.subplots_adjust(wspace=0.55, hspace=0.45)
    if im is not None:
        fig.colorbar(im, ax=flat.tolist(), shrink=0.6, label="MAE(row) - MAE(column)")
    fig.suptitle(f"{setting}-label Delta-MAE (* p<0.05, ** p<0.01, paired sign-flip test)",
                 fontsize=9)
    save_png(fig, path, bbox_inches="tight")


def make_all(out: str | pathlib.Path, n_permutations: int = 10_000, seed: int = 0
             ) -> dict[str, pathlib.Path]:
    """Read ``out/synthetic_results.csv`` (and ``synthetic_pairs.csv``); write figures + tables."""
    out = pathlib.Path(out)
    df = pd.read_csv(out / "synthetic_results.csv")
    pairs_path = out / "synthetic_pairs.csv"
    pairs = pd.read_csv(pairs_path) if pairs_path.exists() else None
    files: dict[str, pathlib.Path] = {}
    dm = delta_mae(df, n_permutations, seed)
    dm.to_csv(out / "delta_mae.csv", index=False, lineterminator="\n")
    files["delta_mae"] = out / "delta_mae.csv"
    cal = kappa_calibration(df, "single")
    if pairs is not None:
        cal = cal.merge(pair_calibration(pairs), on="measure", how="left")
    cal.to_csv(out / "calibration_ece.csv", index=False, lineterminator="\n")
    files["calibration_ece"] = out / "calibration_ece.csv"
    plots = {"fig3": ("fig3_mae_violin.png", lambda p: fig3_violin(df, p)),
             "fig4": ("fig4_error_vs_truth.png", lambda p: fig4_error_vs_truth(df, p)),
             "calibration": ("fig_calibration.png", lambda p: fig_calibration(df, pairs, p)),
             "fig5": ("fig5_delta_mae_single.png",
                      lambda p: fig_delta_heatmaps(dm, "single", p)),
             "fig8": ("fig8_delta_mae_set.png", lambda p: fig_delta_heatmaps(dm, "set", p))}
    for key, (name, draw) in plots.items():
        if key == "fig8" and not (dm.setting == "set").any():
            continue
        draw(out / name)
        files[key] = out / name
    return files
