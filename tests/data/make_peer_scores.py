"""Write tests/data/peer_scores.json: peer outputs that tests/test_peer_scores.py holds the package to.

Run by hand (not a test) where the Python peers are installed:
    pip install pingouin==0.7.0 pyirr==0.84.1.2 && python tests/data/make_peer_scores.py
pingouin 0.7.0 (``intraclass_corr``) and pyirr 0.84.1.2 (a line-by-line Python port of R ``irr``
0.84.1: ``icc``, ``kendall``, ``kappam_fleiss``, ``kappam_light``, ``agree``, ``bhapkar``) compute
every value; nothing is typed in by hand. The data sets are the published ones named in the JSON.
"""

import json
import pathlib
import warnings

import numpy as np
import pandas as pd
import pingouin as pg
import pyirr

warnings.simplefilter("ignore")
HERE = pathlib.Path(__file__).parent

DATA = {
    # Shrout & Fleiss (1979), Table 2: 6 targets x 4 judges
    "shrout_fleiss": [[9, 2, 5, 8], [6, 1, 3, 2], [8, 4, 6, 8], [7, 1, 2, 6], [10, 5, 6, 9], [6, 2, 4, 7]],
    # pingouin's bundled "icc" dataset (8 wines x 4 judges), as a wide table
    "pingouin_wine": pg.read_dataset("icc").pivot(index="Wine", columns="Judge", values="Scores").to_numpy().tolist(),
    # McGraw & Wong (1996), Table 6: 10 targets x 2 measurements
    "mcgraw_wong_t6": [[103, 119], [82, 65], [116, 106], [102, 102], [99, 105], [98, 100], [104, 107], [62, 85],
                       [97, 101], [107, 110]],
    # R irr's anxiety data: 20 subjects x 3 raters
    "anxiety": [[3, 3, 2], [3, 6, 1], [3, 4, 4], [4, 6, 4], [5, 2, 3], [5, 4, 2], [2, 2, 1], [3, 4, 6], [5, 3, 1],
                [2, 3, 1], [2, 2, 1], [6, 3, 2], [1, 3, 3], [5, 3, 3], [2, 2, 1], [2, 2, 1], [1, 1, 3], [2, 3, 3],
                [4, 3, 2], [3, 4, 2]],
    # R irr's diagnoses (Fleiss 1971): 30 patients x 6 raters, categories 1..5
    "diagnoses": [[4, 4, 4, 4, 4, 4], [2, 2, 2, 5, 5, 5], [2, 3, 3, 3, 3, 5], [5, 5, 5, 5, 5, 5], [2, 2, 2, 4, 4, 4],
                  [1, 1, 3, 3, 3, 3], [3, 3, 3, 3, 5, 5], [1, 1, 3, 3, 3, 4], [1, 1, 4, 4, 4, 4], [5, 5, 5, 5, 5, 5],
                  [1, 4, 4, 4, 4, 4], [1, 2, 4, 4, 4, 4], [2, 2, 2, 3, 3, 3], [1, 4, 4, 4, 4, 4], [2, 2, 4, 4, 4, 5],
                  [3, 3, 3, 3, 3, 5], [1, 1, 1, 4, 5, 5], [1, 1, 1, 1, 1, 2], [2, 2, 4, 4, 4, 4], [1, 3, 3, 5, 5, 5],
                  [5, 5, 5, 5, 5, 5], [2, 4, 4, 4, 4, 4], [2, 2, 4, 5, 5, 5], [1, 1, 4, 4, 4, 4], [1, 4, 4, 4, 4, 5],
                  [2, 2, 2, 2, 2, 4], [1, 1, 1, 1, 5, 5], [2, 2, 4, 4, 4, 4], [1, 3, 3, 3, 3, 3], [5, 5, 5, 5, 5, 5]],
}
FORMS = ["ICC1", "ICC2", "ICC3", "ICC1k", "ICC2k", "ICC3k"]


def pingouin_icc(x):
    x = np.asarray(x, dtype=float)
    long = pd.DataFrame([(i, j, x[i, j]) for i in range(x.shape[0]) for j in range(x.shape[1])],
                        columns=["target", "rater", "score"])
    out = pg.intraclass_corr(long, "target", "rater", "score")
    return {form: {"icc": float(r.ICC), "F": float(r.F), "df1": float(r.df1), "df2": float(r.df2),
                   "p": float(r.pval), "ci95": [float(v) for v in r.CI95]}
            for form, (_, r) in zip(FORMS, out.iterrows(), strict=True)}


def irr_icc(x):
    out = {}
    for key, (model, kind, unit) in {"ICC1": ("oneway", "consistency", "single"),
                                     "ICC2": ("twoway", "agreement", "single"),
                                     "ICC3": ("twoway", "consistency", "single"),
                                     "ICC2k": ("twoway", "agreement", "average"),
                                     "ICC3k": ("twoway", "consistency", "average")}.items():
        r = pyirr.intraclass_correlation(np.asarray(x, dtype=float), model, kind, unit)
        out[key] = {"icc": float(r.value), "F": float(r.Fvalue), "df1": float(r.df1), "df2": float(r.df2),
                    "p": float(r.pvalue), "ci95": [float(r.lower_bound), float(r.upper_bound)]}
    return out


cases = {
    "pingouin.intraclass_corr": {name: pingouin_icc(DATA[name])
                                 for name in ("shrout_fleiss", "pingouin_wine", "mcgraw_wong_t6", "anxiety")},
    "irr.icc": {name: irr_icc(DATA[name]) for name in ("anxiety", "shrout_fleiss")},
    "irr.kendall": {f"{name}:correct={c}": {"W": float(r.value), "chi2": float(r.statistic), "p": float(r.pvalue)}
                    for name, c in (("anxiety", False), ("anxiety", True), ("shrout_fleiss", True))
                    for r in [pyirr.kendall(np.asarray(DATA[name], dtype=float), correct=c)]},
    "irr.kappam_fleiss.detail": (lambda d: {"kappa": d["Kappa"].tolist(), "z": d["z"].tolist(),
                                             "p": d["p.value"].tolist()})(
        pyirr.kappam_fleiss(np.asarray(DATA["diagnoses"]), detail=True).detail),
    "irr.kappam_light": {name: (lambda r: {"kappa": float(r.value), "z": None if np.isnan(r.statistic)
                                           else float(r.statistic)})(pyirr.kappam_light(np.asarray(x)))
                         for name, x in {"diagnoses[,1:3]": np.asarray(DATA["diagnoses"])[:, :3],
                                         "diagnoses[,1:2]": np.asarray(DATA["diagnoses"])[:, :2],
                                         "anxiety": np.asarray(DATA["anxiety"])}.items()},
    "irr.bhapkar": {name: (lambda r: {"chi2": float(r.value), "p": float(r.pvalue)})(pyirr.bhapkar(np.asarray(x)))
                    for name, x in {"anxiety[,1:2]": np.asarray(DATA["anxiety"])[:, :2],
                                    "diagnoses[,3:4]": np.asarray(DATA["diagnoses"])[:, 2:4]}.items()},
    "irr.agree": {f"anxiety:tolerance={t}": float(pyirr.agree(np.asarray(DATA["anxiety"]), tolerance=t).value)
                  for t in (0, 1, 2)},
}
(HERE / "peer_scores.json").write_text(json.dumps({"data": DATA, "cases": cases,
                                                   "versions": {"pingouin": pg.__version__, "pyirr": "0.84.1.2"}},
                                                  indent=1) + "\n")
print("wrote", HERE / "peer_scores.json")
