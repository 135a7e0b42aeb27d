"""Write the bundled demo data set ``softirr_stats/data/examples/demo_annotations.csv``.

Run ``python -m paper_repro.make_demo_data``. Deterministic (numpy ``default_rng(SEED)``),
offline, built from the HPO part of the vendored terminology fixture.

Design: ``N_ITEMS`` clinical "documents", each about one HPO finding (a concept with at
least one EXACT synonym, a sibling and a non-root parent). Three annotators write a
free-text term for each document's finding:

- with probability ``P_SAME`` the finding itself, as its preferred name or one of its
  EXACT synonyms (each annotator has a preference for the preferred name, and
  ``annotator_2`` writes in lower case);
- with probability ``P_SIBLING`` a sibling finding (same parent), a real disagreement;
- with probability ``P_PARENT`` the parent finding (a less specific answer);
- otherwise nothing (a missing rating; at most one per document).

Columns: ``item, rater, label, concept`` where ``concept`` is the document's true HPO id
(the concept the label was generated from is not recorded).
"""

from __future__ import annotations

import argparse
import pathlib

import numpy as np
import pandas as pd

from paper_repro.terminology import load_fixture

__all__ = ["make_demo", "main", "DEMO_PATH", "SEED"]

SEED = 20260601
N_ITEMS = 90
RATERS = ("annotator_1", "annotator_2", "annotator_3")
P_SAME, P_SIBLING, P_PARENT, P_MISSING = 0.74, 0.12, 0.08, 0.06
P_PREFERRED = (0.6, 0.3, 0.4)  # per annotator: P(preferred name | writes the finding)

DEMO_PATH = (
    pathlib.Path(__file__).resolve().parents[1]
    / "softirr_stats" / "data" / "examples" / "demo_annotations.csv"
)


def make_demo(seed: int = SEED, n_items: int = N_ITEMS) -> pd.DataFrame:
    """The demo annotations as a long DataFrame (item, rater, label, concept).

    Examples
    --------
    >>> df = make_demo(n_items=5)
    >>> list(df.columns), df["rater"].nunique()
    (['item', 'rater', 'label', 'concept'], 3)
    """
    t = load_fixture("HPO")
    rng = np.random.default_rng(seed)
    pool = [
        c for c in t.concepts
        if t.synonyms(c) and t.siblings(c) and t.ancestors(c, max_depth=1)
    ]
    if n_items > len(pool):
        raise ValueError(f"n_items: expected <= {len(pool)} (eligible concepts), got {n_items}")
    concepts = [pool[j] for j in np.sort(rng.choice(len(pool), size=n_items, replace=False))]
    concepts = [concepts[j] for j in rng.permutation(n_items)]  # document order is random
    n_r = len(RATERS)
    kind = rng.choice(4, size=(n_items, n_r), p=[P_SAME, P_SIBLING, P_PARENT, P_MISSING])
    # at most one missing rating per document: extra missings become "same"
    miss = kind == 3
    extra = miss & (np.cumsum(miss, axis=1) > 1)
    kind[extra] = 0
    u_pref = rng.random((n_items, n_r))
    u_pick = rng.random((n_items, n_r, 2))
    rows = []
    for i, c in enumerate(concepts):  # small generator script; not a hot path
        for r, rater in enumerate(RATERS):
            k = kind[i, r]
            if k == 3:
                continue
            if k == 0:
                target = c
            elif k == 1:
                sibs = t.siblings(c)
                target = sibs[int(u_pick[i, r, 0] * len(sibs))]
            else:
                par = t.ancestors(c, max_depth=1)
                target = par[int(u_pick[i, r, 0] * len(par))]
            syn = t.synonyms(target)
            if u_pref[i, r] < P_PREFERRED[r] or not syn:
                label = t.label(target)
            else:
                label = syn[int(u_pick[i, r, 1] * len(syn))]
            if rater == "annotator_2":
                label = label.lower()
            rows.append((f"doc-{i + 1:03d}", rater, label, c))
    return pd.DataFrame(rows, columns=["item", "rater", "label", "concept"])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=SEED)
    ap.add_argument("--out", type=pathlib.Path, default=DEMO_PATH)
    args = ap.parse_args(argv)
    df = make_demo(args.seed)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    df.to_csv(args.out, index=False, lineterminator="\n")
    print(f"wrote {args.out}: {len(df)} rows, {df['item'].nunique()} items, "
          f"{args.out.stat().st_size / 1024:.1f} KiB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
