"""The seed paper's synthetic experiment: true vs estimated kappa per measure.

``python -m paper_repro synthetic [--quick] --out DIR`` writes ``DIR/synthetic_results.csv``
with one row per (setting, condition, measure, population, chance, coefficient, truth):

=================  ==========================================================================
setting            ``single`` (one label per rater) or ``set`` (sets of 2-5 labels)
condition          negative condition: random / siblings / ancestors / lexical
measure            equivalence estimator: exact, jaccard, masi, levenshtein, indel, lcs,
                   embedding (packaged MiniLM, when the transformers extra is installed),
                   ``oracle`` (true concept identity); in the set setting each element
                   measure is aggregated by greedy matching + Dice normalisation (paper
                   eq. 13), plus ``oracle-dice`` and ``oracle-jaccard`` (Hungarian matching
                   of the oracle with each normalisation: the set-normalisation study)
population         population index within (setting, condition)
true_kappa         ground truth on concept ids (single: Cohen's kappa or Scott's pi; set:
                   Jaccard- or Dice-based set kappa, see column ``truth``)
estimated_kappa    the library's soft coefficient with that measure
chance             ``exact`` or ``mc3`` / ``mc2`` (the paper's D = 3 / 2 permutations)
coefficient        ``cohen`` or ``scott``
truth              ``concept`` (single), ``jaccard`` or ``dice`` (set)
target             the population's target agreement level
=================  ==========================================================================

Also ``synthetic_summary.csv`` (MAE per measure and condition), ``synthetic_pairs.csv``
(single-label item pairs: each measure's score and whether the labels are synonyms, the
calibration data) and ``synthetic_meta.json``. The figures are drawn from these files by
:mod:`paper_repro.figures`.
"""

from __future__ import annotations

import json
import pathlib
import sys
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from paper_repro.generators import CONDITIONS, set_level_populations, single_label_populations
from paper_repro.terminology import Terminology

__all__ = ["Config", "QUICK", "FULL", "SMOKE", "run", "summarise", "concept_oracle_matrix",
           "LookupEstimator"]

def _log(msg: str) -> None:
    print(f"[paper_repro {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


COLUMNS = ["setting", "condition", "measure", "population", "true_kappa", "estimated_kappa",
           "chance", "coefficient", "truth", "target"]
OFFLINE_MEASURES = ("exact", "jaccard", "masi", "levenshtein", "indel", "lcs", "embedding")


@dataclass(frozen=True)
class Config:
    """Sizes and options of a synthetic run."""

    terminology: str = "fixture-hpo"
    single_populations: int = 30
    single_items: int = 100
    set_populations: int = 15
    set_items: int = 100
    conditions: tuple[str, ...] = CONDITIONS
    measures: tuple[str, ...] = OFFLINE_MEASURES
    coefficients: tuple[str, ...] = ("cohen", "scott")
    single_permutations: int = 3
    set_permutations: int = 2
    settings: tuple[str, ...] = ("single", "set")
    seed: int = 0
    extra: dict[str, Any] = field(default_factory=dict)


FULL = Config(terminology="hpo")
QUICK = Config(terminology="fixture-hpo", single_populations=10, single_items=100,
               set_populations=5, set_items=50)
SMOKE = Config(terminology="fixture-hpo", single_populations=3, single_items=20,
               set_populations=3, set_items=10, conditions=("siblings", "lexical"),
               measures=("exact", "indel"), coefficients=("cohen", "scott"))


def load_terminology(name: str) -> Terminology:
    """``fixture-hpo`` / ``fixture-mondo`` / ``fixture-icd10cm`` / ``hpo`` / ``mondo`` / ``icd10cm``."""
    from paper_repro import terminology as tm

    loaders: dict[str, Callable[[], Terminology]] = {
        "fixture-hpo": lambda: tm.load_fixture("HPO"),
        "fixture-mondo": lambda: tm.load_fixture("MONDO"),
        "fixture-icd10cm": lambda: tm.load_fixture("ICD10CM"),
        "hpo": tm.load_hpo,
        "mondo": tm.load_mondo,
        "icd10cm": tm.load_icd10cm,
    }
    if name not in loaders:
        raise ValueError(f"terminology: expected one of {sorted(loaders)}, got {name!r}")
    return loaders[name]()


def concept_oracle_matrix(t: Terminology, labels: Sequence[str]) -> np.ndarray:
    """``S[i, j] = 1`` when labels i and j are surface forms of a common concept.

    Examples
    --------
    >>> from paper_repro.terminology import load_fixture
    >>> t = load_fixture("HPO"); c = t.concepts[3]
    >>> concept_oracle_matrix(t, [t.terms(c)[0], t.terms(c)[-1], "unrelated"]).tolist()
    [[1.0, 1.0, 0.0], [1.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
    """
    terms, owner, _ = t.term_table()
    index = pd.Index(np.asarray(labels, dtype=object))
    rows = index.get_indexer(terms)  # label row of each (term, owner) entry, -1 if absent
    keep = rows >= 0
    inc = np.zeros((len(labels), len(t)), dtype=np.float64)
    inc[rows[keep], owner[keep]] = 1.0
    s = (inc @ inc.T > 0).astype(np.float64)
    np.fill_diagonal(s, 1.0)
    return s


class LookupEstimator:
    """An element estimator backed by a precomputed matrix over a label universe.

    Unknown labels score 0 against everything but themselves (1).
    """

    symmetric = True

    def __init__(self, name: str, universe: Sequence[str], matrix: np.ndarray) -> None:
        self.name = name
        self.universe = pd.Index(np.asarray(universe, dtype=object))
        self.matrix = np.asarray(matrix, dtype=np.float64)
        self.fingerprint = f"lookup:{name}:{len(universe)}"

    def __call__(self, a: Sequence[Any], b: Sequence[Any]) -> np.ndarray:
        aa = np.asarray(a, dtype=object)
        bb = np.asarray(b, dtype=object)
        ia, ib = self.universe.get_indexer(aa), self.universe.get_indexer(bb)
        ok = (ia >= 0) & (ib >= 0)
        out = np.where(aa == bb, 1.0, 0.0)
        out[ok] = self.matrix[ia[ok], ib[ok]]
        return out


def _estimators(names: Sequence[str]) -> dict[str, Any]:
    from softirr_stats import equivalence as eq

    makers: dict[str, Callable[[], Any]] = {
        "exact": eq.Exact, "jaccard": eq.Jaccard, "masi": eq.Masi,
        "levenshtein": eq.Levenshtein, "indel": eq.Indel, "lcs": eq.Lcs,
        "embedding": eq.Embedding,
    }
    out: dict[str, Any] = {}
    for n in names:
        if n not in makers:
            raise ValueError(f"measures: expected names from {sorted(makers)}, got {n!r}")
        try:
            out[n] = makers[n]()
        except ImportError as err:  # the transformers extra is optional
            warnings.warn(f"measure {n!r} skipped: {err}", RuntimeWarning, stacklevel=2)
    return out


def _universe(t: Terminology) -> list[str]:
    terms, _, _ = t.term_table()
    return sorted(set(terms.tolist()))


def _element_matrices(t: Terminology, estimators: dict[str, Any], universe: list[str],
                      timings: dict[str, float] | None = None) -> dict[str, np.ndarray]:
    from softirr_stats.equivalence import similarity_matrix

    mats: dict[str, np.ndarray] = {}
    for name, est in estimators.items():
        t0 = time.perf_counter()
        mats[name] = similarity_matrix(est, universe)
        if timings is not None:
            key = f"score:{name}"
            timings[key] = timings.get(key, 0.0) + time.perf_counter() - t0
    mats["oracle"] = concept_oracle_matrix(t, universe)
    return mats


# Terminologies up to this many surface forms are scored once as a whole (and declared as
# categories, which keeps array shapes constant); larger ones are scored per population.
UNIVERSE_LIMIT = 3000


@dataclass
class _Scorer:
    t: Terminology
    estimators: dict[str, Any]
    universe: list[str] | None
    mats: dict[str, np.ndarray] | None
    timings: dict[str, float]

    @classmethod
    def make(cls, t: Terminology, estimators: dict[str, Any], timings: dict[str, float]
             ) -> _Scorer:
        universe = _universe(t)
        if len(universe) > UNIVERSE_LIMIT:
            return cls(t, estimators, None, None, timings)
        return cls(t, estimators, universe, _element_matrices(t, estimators, universe, timings),
                   timings)

    def element_mats(self, labels: Sequence[str]) -> tuple[list[str], dict[str, np.ndarray]]:
        """(label universe, {measure: matrix over it}) covering ``labels``."""
        if self.mats is not None and self.universe is not None:
            return self.universe, self.mats
        lab = sorted(set(labels))
        return lab, _element_matrices(self.t, self.estimators, lab, self.timings)


def _coef(name: str) -> Callable[..., Any]:
    import softirr_stats as sis

    table = {"cohen": sis.cohen_kappa, "scott": sis.scott_pi}
    if name not in table:
        raise ValueError(f"coefficients: expected names from {sorted(table)}, got {name!r}")
    return table[name]


def _pair_scores(pop: Any, universe: list[str], mats: dict[str, np.ndarray]
                 ) -> list[pd.DataFrame]:
    """Per item: each measure's score of the two raters' labels and whether they are synonyms."""
    w = pop.frame.pivot(index="item", columns="rater", values=["label", "concept"])
    r1, r2 = sorted(pop.frame["rater"].unique())
    idx = pd.Index(np.asarray(universe, dtype=object))
    ia = idx.get_indexer(w[("label", r1)].to_numpy(dtype=object))
    ib = idx.get_indexer(w[("label", r2)].to_numpy(dtype=object))
    equiv = (w[("concept", r1)].to_numpy() == w[("concept", r2)].to_numpy()).astype(np.float64)
    return [pd.DataFrame({"condition": pop.condition, "measure": name, "population": pop.index,
                          "score": m[ia, ib], "equivalent": equiv})
            for name, m in mats.items()]


def run_single(cfg: Config, t: Terminology, scorer: _Scorer,
               pairs: list[pd.DataFrame] | None = None) -> list[dict[str, Any]]:
    """Rows of the single-label experiment.

    When ``pairs`` is a list, the per-item pair scores of every measure (with the
    ground-truth equivalence) are appended to it (the calibration data).
    """
    import softirr_stats as sis

    rows: list[dict[str, Any]] = []
    truth_key = {"cohen": "cohen_kappa", "scott": "scott_pi"}
    for ci, cond in enumerate(cfg.conditions):
        _log(f"single / {cond}: {cfg.single_populations} populations x {cfg.single_items} items")
        pops = single_label_populations(t, cond, cfg.single_populations, cfg.single_items,
                                        seed=cfg.seed + 1000 * ci)
        for pop in pops:
            universe, mats = scorer.element_mats(pop.frame["label"].tolist())
            if pairs is not None:
                pairs.extend(_pair_scores(pop, universe, mats))
            # declaring the label universe keeps every population at one shape
            ann = sis.Annotations.from_long(pop.frame[["item", "rater", "label"]],
                                            categories=universe)
            chances = {"exact": "exact",
                       f"mc{cfg.single_permutations}": sis.MonteCarlo(
                           permutations=cfg.single_permutations, seed=cfg.seed + pop.index)}
            for measure, s in mats.items():
                for coef in cfg.coefficients:
                    fn = _coef(coef)
                    for clabel, chance in chances.items():
                        with warnings.catch_warnings():
                            warnings.simplefilter("ignore")
                            est = fn(ann, similarity=s, chance=chance).value
                        rows.append(dict(setting="single", condition=cond, measure=measure,
                                         population=pop.index,
                                         true_kappa=pop.truth[truth_key[coef]],
                                         estimated_kappa=float(est), chance=clabel,
                                         coefficient=coef, truth="concept", target=pop.target))
    return rows


def _pad_sets(labels: list[frozenset[str]], size: int) -> list[frozenset[str]]:
    """Declared set categories padded to a fixed count (constant shapes, no recompiles)."""
    pads = [frozenset({f"\x00pad{i:04d}"}) for i in range(max(0, size - len(labels)))]
    return labels + pads


def _set_measures(universe: list[str], mats: dict[str, np.ndarray]) -> dict[str, Any]:
    from softirr_stats.equivalence import SetMatch

    set_measures: dict[str, Any] = {}
    for name, m in mats.items():
        base = LookupEstimator(name, universe, m)
        if name == "oracle":
            for norm in ("dice", "jaccard"):
                set_measures[f"oracle-{norm}"] = SetMatch(base, assignment="hungarian",
                                                          normalize=norm)
        else:
            set_measures[name] = SetMatch(base, assignment="greedy", normalize="dice")
    return set_measures


def run_set(cfg: Config, t: Terminology, scorer: _Scorer) -> list[dict[str, Any]]:
    """Rows of the set-level experiment (and the Dice-vs-Jaccard oracle study)."""
    import softirr_stats as sis
    from softirr_stats.equivalence import similarity_matrix

    rows: list[dict[str, Any]] = []
    for ci, cond in enumerate(cfg.conditions):
        _log(f"set / {cond}: {cfg.set_populations} populations x {cfg.set_items} set pairs")
        pops = set_level_populations(t, cond, cfg.set_populations, cfg.set_items,
                                     seed=cfg.seed + 5000 + 1000 * ci)
        for pop in pops:
            labels = sorted(set(pop.frame["label"]), key=lambda s: sorted(s))
            cats = _pad_sets(labels, 2 * cfg.set_items)
            ann = sis.Annotations.from_long(pop.frame[["item", "rater", "label"]],
                                            categories=cats)
            vocab = list(ann.vocabulary)
            elements = [e for lab in pop.frame["label"] for e in lab]
            set_measures = _set_measures(*scorer.element_mats(elements))
            chances = {"exact": "exact",
                       f"mc{cfg.set_permutations}": sis.MonteCarlo(
                           permutations=cfg.set_permutations, seed=cfg.seed + pop.index)}
            for measure, est in set_measures.items():
                s = similarity_matrix(est, vocab)
                for coef in cfg.coefficients:
                    fn = _coef(coef)
                    for clabel, chance in chances.items():
                        with warnings.catch_warnings():
                            warnings.simplefilter("ignore")
                            val = float(fn(ann, similarity=s, chance=chance).value)
                        for truth in ("jaccard", "dice"):
                            rows.append(dict(setting="set", condition=cond, measure=measure,
                                             population=pop.index,
                                             true_kappa=pop.truth[
                                                 f"{truth}_{'kappa' if coef == 'cohen' else 'pi'}"],
                                             estimated_kappa=val, chance=clabel,
                                             coefficient=coef, truth=truth,
                                             target=pop.target))
    return rows


def summarise(df: pd.DataFrame) -> pd.DataFrame:
    """Mean absolute error of estimated vs true kappa per measure and condition.

    One row per (setting, coefficient, chance, truth, measure, condition) with ``mae``,
    ``bias`` (mean signed error) and ``n`` (populations).

    Examples
    --------
    >>> df = pd.DataFrame({"setting": "single", "coefficient": "cohen", "chance": "exact",
    ...                    "truth": "concept", "measure": "exact", "condition": "random",
    ...                    "true_kappa": [0.5, 1.0], "estimated_kappa": [0.4, 0.6]})
    >>> summarise(df)[["mae", "bias", "n"]].round(6).values.tolist()
    [[0.25, -0.25, 2.0]]
    """
    err = df["estimated_kappa"] - df["true_kappa"]
    keys = ["setting", "coefficient", "chance", "truth", "measure", "condition"]
    g = df.assign(abs_err=err.abs(), err=err).groupby(keys, sort=True)
    return g.agg(mae=("abs_err", "mean"), bias=("err", "mean"), n=("err", "size")).reset_index()


def run(cfg: Config, out: str | pathlib.Path) -> pd.DataFrame:
    """Run the experiment and write ``out/synthetic_results.csv`` and ``out/synthetic_meta.json``."""
    out = pathlib.Path(out)
    out.mkdir(parents=True, exist_ok=True)
    timings: dict[str, float] = {}
    t0 = time.perf_counter()
    t = load_terminology(cfg.terminology)
    estimators = _estimators(cfg.measures)
    _log(f"{cfg.terminology}: {len(t)} concepts; measures {sorted(estimators)}")
    scorer = _Scorer.make(t, estimators, timings)
    rows: list[dict[str, Any]] = []
    pairs: list[pd.DataFrame] = []
    if "single" in cfg.settings:
        t1 = time.perf_counter()
        rows += run_single(cfg, t, scorer, pairs)
        timings["single"] = time.perf_counter() - t1
    if "set" in cfg.settings:
        t1 = time.perf_counter()
        rows += run_set(cfg, t, scorer)
        timings["set"] = time.perf_counter() - t1
    df = pd.DataFrame(rows, columns=COLUMNS)
    df.to_csv(out / "synthetic_results.csv", index=False, lineterminator="\n")
    if pairs:
        pd.concat(pairs, ignore_index=True).to_csv(out / "synthetic_pairs.csv", index=False,
                                                   lineterminator="\n")
    summarise(df).to_csv(out / "synthetic_summary.csv", index=False, lineterminator="\n")
    timings["total"] = time.perf_counter() - t0
    meta = {"config": asdict(cfg), "terminology_version": t.version,
            "n_universe_terms": None if scorer.universe is None else len(scorer.universe),
            "measures_run": [*sorted(estimators), "oracle"],
            "timings_s": {k: round(v, 2) for k, v in timings.items()}}
    (out / "synthetic_meta.json").write_text(json.dumps(meta, indent=2, default=str) + "\n")
    return df
