"""Write tests/data/peer_missing.json: R irr's numbers on data with missing ratings.

Run by hand (not a test) where pyirr is installed:
    pip install pyirr==0.84.1.2 && python tests/data/make_peer_missing.py
pyirr 0.84.1.2 is a line-by-line Python port of R ``irr`` 0.84.1. R's ``kappa2``, ``kappam.fleiss`` and
``kappam.light`` begin with ``ratings <- as.matrix(na.omit(ratings))``: they drop every row with a missing
rating. pyirr's ``kappa2`` and ``kappam_light`` keep that line (``dropna``); its ``kappam_fleiss`` leaves it
out, so this script drops the incomplete rows itself, as R does, before calling each function. The data are
R irr's published ``diagnoses`` (Fleiss 1971) and ``anxiety`` with some ratings blanked (the cells listed in
the JSON); ``tests/test_missing_peers.py`` holds softirr_stats' notes to these numbers.
"""

import json
import pathlib

import numpy as np
import pandas as pd
import pyirr

HERE = pathlib.Path(__file__).parent
DIAGNOSES = [[4, 4, 4, 4, 4, 4], [2, 2, 2, 5, 5, 5], [2, 3, 3, 3, 3, 5], [5, 5, 5, 5, 5, 5], [2, 2, 2, 4, 4, 4],
             [1, 1, 3, 3, 3, 3], [3, 3, 3, 3, 5, 5], [1, 1, 3, 3, 3, 4], [1, 1, 4, 4, 4, 4], [5, 5, 5, 5, 5, 5],
             [1, 4, 4, 4, 4, 4], [1, 2, 4, 4, 4, 4], [2, 2, 2, 3, 3, 3], [1, 4, 4, 4, 4, 4], [2, 2, 4, 4, 4, 5],
             [3, 3, 3, 3, 3, 5], [1, 1, 1, 4, 5, 5], [1, 1, 1, 1, 1, 2], [2, 2, 4, 4, 4, 4], [1, 3, 3, 5, 5, 5],
             [5, 5, 5, 5, 5, 5], [2, 4, 4, 4, 4, 4], [2, 2, 4, 5, 5, 5], [1, 1, 4, 4, 4, 4], [1, 4, 4, 4, 4, 5],
             [2, 2, 2, 2, 2, 4], [1, 1, 1, 1, 5, 5], [2, 2, 4, 4, 4, 4], [1, 3, 3, 3, 3, 3], [5, 5, 5, 5, 5, 5]]
ANXIETY = [[3, 3, 2], [3, 6, 1], [3, 4, 4], [4, 6, 4], [5, 2, 3], [5, 4, 2], [2, 2, 1], [3, 4, 6], [5, 3, 1],
           [2, 3, 1], [2, 2, 1], [6, 3, 2], [1, 3, 3], [5, 3, 3], [2, 2, 1], [2, 2, 1], [1, 1, 3], [2, 3, 3],
           [4, 3, 2], [3, 4, 2]]
# blanked cells (row, column), 0-based
DIAGNOSES_BLANK = [[2, 0], [11, 3], [20, 5], [25, 1]]
ANXIETY_BLANK = [[1, 0], [7, 1], [12, 1]]


def blanked(rows, cells):
    x = np.asarray(rows, dtype=float)
    for i, j in cells:
        x[i, j] = np.nan
    return x


def na_omit(x):
    return pd.DataFrame(x).dropna().astype(int)


diag = blanked(DIAGNOSES, DIAGNOSES_BLANK)
anx = blanked(ANXIETY, ANXIETY_BLANK)[:, :2]
out = {
    "source": "pyirr 0.84.1.2 (port of R irr 0.84.1) on the complete rows (R's na.omit); tests/data/make_peer_missing.py",
    "diagnoses_blank": DIAGNOSES_BLANK,
    "anxiety_blank": ANXIETY_BLANK,
    "kappam.fleiss(diagnoses)": float(pyirr.kappam_fleiss(na_omit(diag)).value),
    "kappam.fleiss(diagnoses, exact=TRUE)": float(pyirr.kappam_fleiss(na_omit(diag), exact=True).value),
    "kappam.light(diagnoses)": float(pyirr.kappam_light(na_omit(diag)).value),
    "kappa2(anxiety[,1:2])": float(pyirr.kappa2(na_omit(anx), weight="unweighted").value),
    "kappa2(anxiety[,1:2], 'squared')": float(pyirr.kappa2(na_omit(anx), weight="squared").value),
    "n_complete(diagnoses)": int(len(na_omit(diag))),
    "n_complete(anxiety[,1:2])": int(len(na_omit(anx))),
}
(HERE / "peer_missing.json").write_text(json.dumps(out, indent=1) + "\n")
