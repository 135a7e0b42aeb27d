"""Reproduction of the seed paper's experiments on top of softirr_stats.

Run as ``python -m paper_repro <command>`` from the repository root; this folder is not
installed by pip. Modules:

- :mod:`paper_repro.terminology` -- terminologies (vendored fixture; HPO, MONDO, ICD-10-CM
  through the ``softirr-stats[terminologies]`` extra);
- :mod:`paper_repro.generators` -- the paper's synthetic single-label and set-level
  populations with random / siblings / ancestors / lexical negatives;
- :mod:`paper_repro.truth` -- ground-truth agreement on concept ids;
- :mod:`paper_repro.synthetic` -- the synthetic experiment (CSV output);
- :mod:`paper_repro.figures` -- Figs. 3, 4, 5, 8, calibration/ECE, paired permutation tests;
- :mod:`paper_repro.studies` -- the review fixes (Dice vs Jaccard, D permutations) and the
  multi-label and cross-replication worked examples;
- :mod:`paper_repro.build_fixture`, :mod:`paper_repro.make_demo_data` -- regenerate the
  vendored data files.
"""

from paper_repro.generators import (
    CONDITIONS,
    Population,
    set_level_populations,
    single_label_populations,
)
from paper_repro.terminology import (
    Concept,
    Terminology,
    load_fixture,
    load_hpo,
    load_icd10cm,
    load_mondo,
)

__all__ = [
    "CONDITIONS",
    "Concept",
    "Population",
    "Terminology",
    "load_fixture",
    "load_hpo",
    "load_icd10cm",
    "load_mondo",
    "set_level_populations",
    "single_label_populations",
]
