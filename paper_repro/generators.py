"""Synthetic annotation populations of the seed paper, built from a terminology.

Two raters label ``n_items`` items. Ground truth is exact matching on **concept ids**
(before synonym replacement); the estimators under study only see the surface strings.

Single-label populations (paper: 30 populations x 100 concepts)
    Each item is a concept with at least two surface forms (name + synonyms); the two
    raters get two *different* sampled surface forms of it. A population has a target
    agreement level ``t``; exactly ``round(t * n_items)`` items keep the pair of synonyms,
    and in each of the others one rater's label (which rater is random) is replaced by a
    *negative* of the item's concept under the chosen condition.

Set-level populations (paper: 15 populations x 100 set pairs of 2-5 concepts)
    See :func:`set_level_populations` for our reading of Appendix B.1.

Negative conditions (the negative is never a surface form of the concept, casefolded,
and never belongs to the concept itself):
    ``random``     any surface form of another concept;
    ``siblings``   a surface form of a concept sharing a parent;
    ``ancestors``  a surface form of a parent or grandparent (roots excluded);
    ``lexical``    one of the ``lexical_k`` (10) surface forms of *other* concepts closest
                   to the concept by normalised Indel distance.

All randomness goes through ``numpy.random.default_rng(seed)``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from paper_repro.terminology import Terminology
from paper_repro.truth import cohen_kappa_codes, incidence, scott_pi_codes, set_agreement

__all__ = [
    "CONDITIONS",
    "RATERS",
    "Population",
    "NegativeSampler",
    "single_label_populations",
    "set_level_populations",
]

CONDITIONS = ("random", "siblings", "ancestors", "lexical")
RATERS = ("rater_1", "rater_2")


@dataclass
class Population:
    """One synthetic population.

    Attributes
    ----------
    setting : {"single", "set"}
    condition : one of :data:`CONDITIONS`
    index : position of the population in its batch
    target : target agreement level
    frame : long DataFrame with columns ``item, rater, label, concept``; for the set
        setting ``label`` holds a ``frozenset`` of strings and ``concept`` a ``frozenset``
        of concept ids
    truth : ground truth on concept ids. Single: ``cohen_kappa``, ``scott_pi``,
        ``observed``. Set: ``jaccard_kappa``, ``dice_kappa`` (Cohen-type),
        ``jaccard_pi``, ``dice_pi`` (Scott-type), ``jaccard_observed``,
        ``jaccard_expected``, ``dice_observed``, ``dice_expected``.
    """

    setting: str
    condition: str
    index: int
    target: float
    frame: pd.DataFrame
    truth: dict[str, float] = field(default_factory=dict)
    item_concept: np.ndarray | None = None

    def wide(self) -> pd.DataFrame:
        """Items x raters table of labels."""
        return self.frame.pivot(index="item", columns="rater", values="label")


def _check_condition(condition: str) -> None:
    if condition not in CONDITIONS:
        raise ValueError(f"condition: expected one of {list(CONDITIONS)}, got {condition!r}")


def _check_targets(targets: Any, n_populations: int) -> np.ndarray:
    if not isinstance(n_populations, int | np.integer) or n_populations < 1:
        raise ValueError(f"n_populations: expected an int >= 1, got {n_populations!r}")
    if targets is None:
        return np.linspace(0.0, 1.0, n_populations) if n_populations > 1 else np.array([1.0])
    t = np.asarray(targets, dtype=np.float64).ravel()
    if t.size != n_populations:
        raise ValueError(f"targets: expected {n_populations} values, got {t.size}")
    if np.any((t < 0) | (t > 1)) or not np.all(np.isfinite(t)):
        raise ValueError(f"targets: expected values in [0, 1], got {t.tolist()}")
    return t


class NegativeSampler:
    """Candidate negatives per concept, as index arrays into ``t.term_table()``.

    Candidates of the deterministic conditions (siblings, ancestors, lexical) are kept in
    CSR form (``offsets``, ``cands``) for the concepts they were built for; ``random``
    draws from all terms by vectorised rejection.
    """

    def __init__(self, t: Terminology, condition: str, lexical_k: int = 10,
                 ancestor_depths: tuple[int, int] = (1, 2)) -> None:
        _check_condition(condition)
        self.t = t
        self.condition = condition
        self.lexical_k = lexical_k
        self.ancestor_depths = ancestor_depths
        self.terms, self.owner, norm = t.term_table()
        self.index = {c: i for i, c in enumerate(t.concepts)}
        self.n_terms_of = np.bincount(self.owner, minlength=len(t))
        self.first_term = np.concatenate([[0], np.cumsum(self.n_terms_of)[:-1]])
        _, self.text_code = np.unique(norm.astype(str), return_inverse=True)
        # sorted keys concept_index * n_codes + text_code of every own surface form
        self.n_codes = int(self.text_code.max()) + 1
        self.own_keys = np.unique(self.owner * self.n_codes + self.text_code)
        self._csr: dict[str, np.ndarray] = {}

    # ------------------------------------------------------------- helpers
    def _valid(self, concept_idx: np.ndarray, term_idx: np.ndarray) -> np.ndarray:
        """Term belongs to another concept and is not (casefolded) a form of the concept."""
        keys = concept_idx * self.n_codes + self.text_code[term_idx]
        pos = np.minimum(np.searchsorted(self.own_keys, keys), self.own_keys.size - 1)
        return (self.owner[term_idx] != concept_idx) & (self.own_keys[pos] != keys)

    def _concept_terms(self, cids: Sequence[str]) -> np.ndarray:
        if not cids:
            return np.zeros(0, dtype=np.int64)
        idx = np.array([self.index[c] for c in cids])
        return np.concatenate([np.arange(self.first_term[i], self.first_term[i] + self.n_terms_of[i])
                               for i in idx])

    def candidates(self, concept_id: str) -> np.ndarray:
        """Valid negative term indices for one concept (deterministic conditions)."""
        t = self.t
        if self.condition == "siblings":
            cand = self._concept_terms(t.siblings(concept_id))
        elif self.condition == "ancestors":
            lo, hi = self.ancestor_depths
            cand = self._concept_terms(t.ancestors(concept_id, min_depth=lo, max_depth=hi))
        elif self.condition == "lexical":
            nb = t.lexical_neighbours([concept_id], k=self.lexical_k)[0]
            cand = self._lexical_terms({(s, o) for s, o, _ in nb})
        else:
            cand = np.flatnonzero(self.owner != self.index[concept_id])
        ci = np.full(cand.size, self.index[concept_id])
        return cand[self._valid(ci, cand)] if cand.size else cand

    def _lexical_terms(self, pairs: set[tuple[str, str]]) -> np.ndarray:
        return np.array(sorted(self._term_position(s, o) for s, o in pairs), dtype=np.int64)

    def _term_position(self, term: str, owner_id: str) -> int:
        i = self.index[owner_id]
        lo, n = self.first_term[i], self.n_terms_of[i]
        forms = list(self.terms[lo : lo + n])
        return int(lo + forms.index(term))

    def build(self, concept_ids: Sequence[str]) -> None:
        """Precompute candidates for the given concepts (lexical: one batched cdist)."""
        need = [c for c in dict.fromkeys(concept_ids) if c not in self._csr]
        if self.condition == "random" or not need:
            return
        if self.condition == "lexical":
            neighbours = self.t.lexical_neighbours(need, k=self.lexical_k)
            for c, nb in zip(need, neighbours, strict=True):
                cand = self._lexical_terms({(s, o) for s, o, _ in nb})
                ci = np.full(cand.size, self.index[c])
                self._csr[c] = cand[self._valid(ci, cand)] if cand.size else cand
        else:
            for c in need:
                self._csr[c] = self.candidates(c)

    def has_negative(self, concept_id: str) -> bool:
        """Whether the concept has at least one valid negative."""
        if self.condition == "random":
            return len(self.t) > 1
        self.build([concept_id])
        return self._csr[concept_id].size > 0

    def sample(self, concept_ids: Sequence[str], rng: np.random.Generator) -> np.ndarray:
        """One negative term index per concept (vectorised)."""
        n = len(concept_ids)
        if n == 0:
            return np.zeros(0, dtype=np.int64)
        cidx = np.array([self.index[c] for c in concept_ids])
        if self.condition == "random":
            out = rng.integers(0, self.terms.size, size=n)
            bad = ~self._valid(cidx, out)
            while bad.any():  # rejection over the few invalid draws, not over items
                out[bad] = rng.integers(0, self.terms.size, size=int(bad.sum()))
                bad = ~self._valid(cidx, out)
            return out
        self.build(concept_ids)
        uniq = list(dict.fromkeys(concept_ids))
        pos = {c: i for i, c in enumerate(uniq)}
        counts = np.array([self._csr[c].size for c in uniq])
        if np.any(counts == 0):
            empty = [c for c, k in zip(uniq, counts, strict=True) if k == 0][:5]
            raise ValueError(f"no {self.condition} negative for concepts {empty}")
        flat = np.concatenate([self._csr[c] for c in uniq])
        offs = np.concatenate([[0], np.cumsum(counts)[:-1]])
        u = np.array([pos[c] for c in concept_ids])
        pick = np.floor(rng.random(n) * counts[u]).astype(np.int64)
        return flat[offs[u] + pick]


def _eligible(t: Terminology, sampler: NegativeSampler, min_terms: int) -> list[str]:
    if not isinstance(min_terms, int | np.integer) or min_terms < 2:
        raise ValueError(f"min_terms: expected an int >= 2 (two raters need two surface "
                         f"forms), got {min_terms!r}")
    pool = [c for c in t.concepts if len(t.terms(c)) >= min_terms]
    if sampler.condition in ("siblings", "ancestors"):
        pool = [c for c in pool if sampler.has_negative(c)]
    return pool


def _two_forms(n_terms: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Two different positions in ``range(n)`` per entry (n >= 2), uniformly."""
    i1 = np.floor(rng.random(n_terms.size) * n_terms).astype(np.int64)
    step = 1 + np.floor(rng.random(n_terms.size) * (n_terms - 1)).astype(np.int64)
    return i1, (i1 + step) % n_terms


def single_label_populations(
    t: Terminology,
    condition: str,
    n_populations: int = 30,
    n_items: int = 100,
    targets: Sequence[float] | np.ndarray | None = None,
    seed: int = 0,
    lexical_k: int = 10,
    min_terms: int = 2,
) -> list[Population]:
    """Single-label populations as in the seed paper.

    Parameters
    ----------
    t : Terminology
    condition : {"random", "siblings", "ancestors", "lexical"}
    n_populations, n_items : int
        The paper uses 30 x 100.
    targets : sequence of float in [0, 1], optional
        Target agreement level per population; default ``linspace(0, 1, n_populations)``.
        Exactly ``round(target * n_items)`` items agree on the concept.
    seed : int
    lexical_k : int
        Size of the lexical-neighbour candidate list (paper: 10).
    min_terms : int
        Minimum number of surface forms (name + synonyms) of a sampled concept.

    Examples
    --------
    >>> from paper_repro.terminology import load_fixture
    >>> pops = single_label_populations(load_fixture("HPO"), "siblings", 2, 20, seed=1)
    >>> [round(p.truth["observed"], 2) for p in pops]
    [0.0, 1.0]
    """
    _check_condition(condition)
    tg = _check_targets(targets, n_populations)
    if not isinstance(n_items, int | np.integer) or n_items < 1:
        raise ValueError(f"n_items: expected an int >= 1, got {n_items!r}")
    rng = np.random.default_rng(seed)
    sampler = NegativeSampler(t, condition, lexical_k=lexical_k)
    pool = _eligible(t, sampler, min_terms)
    if not pool:
        raise ValueError(f"no concept of {t.name!r} has {min_terms}+ surface forms and a "
                         f"{condition} negative")
    replace = len(pool) < n_items
    picks = np.stack([rng.choice(len(pool), size=n_items, replace=replace)
                      for _ in range(n_populations)])  # (P, N)
    concepts = np.array(pool, dtype=object)[picks]
    sampler.build(list(dict.fromkeys(concepts.ravel())))
    cidx = np.vectorize(sampler.index.__getitem__, otypes=[np.int64])(concepts)
    n_terms = sampler.n_terms_of[cidx]
    out = []
    items = np.array([f"item-{i:03d}" for i in range(n_items)], dtype=object)
    names = np.array(t.concepts, dtype=object)
    for p in range(n_populations):  # populations are few; all per-item work is vectorised
        i1, i2 = _two_forms(n_terms[p], rng)
        term_a = sampler.first_term[cidx[p]] + i1
        term_b = sampler.first_term[cidx[p]] + i2
        n_agree = int(np.round(tg[p] * n_items))
        agree = np.zeros(n_items, dtype=bool)
        agree[rng.permutation(n_items)[:n_agree]] = True
        dis = np.flatnonzero(~agree)
        neg = sampler.sample(list(concepts[p, dis]), rng)
        side = rng.random(dis.size) < 0.5  # True: rater_1's label is replaced
        term_a[dis[side]] = neg[side]
        term_b[dis[~side]] = neg[~side]
        own_a, own_b = sampler.owner[term_a], sampler.owner[term_b]
        frame = pd.DataFrame({
            "item": np.concatenate([items, items]),
            "rater": np.repeat(np.array(RATERS, dtype=object), n_items),
            "label": np.concatenate([sampler.terms[term_a], sampler.terms[term_b]]),
            "concept": np.concatenate([names[own_a], names[own_b]]),
        })
        truth = {
            "cohen_kappa": float(cohen_kappa_codes(own_a, own_b)),
            "scott_pi": float(scott_pi_codes(own_a, own_b)),
            "observed": float(np.mean(own_a == own_b)),
        }
        out.append(Population("single", condition, p, float(tg[p]), frame, truth,
                              item_concept=concepts[p].copy()))
    return out


def _set_sizes(target: float, n: int, lo: int, hi: int, rng: np.random.Generator
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Set sizes (a, b) and shared count m for ``n`` set pairs at Jaccard target ``target``.

    Size-gap rule: ``b`` is drawn uniformly among the sizes in ``[lo, hi]`` for which the
    target is reachable, ``min(a, b) / max(a, b) >= target`` (the largest Jaccard two sets
    of sizes a, b can have). Random rounding: the shared count that gives Jaccard
    ``target`` exactly, ``m* = target (a + b) / (1 + target)``, is rounded down or up at
    random with ``P(up) = frac(m*)``, so ``E[m] = m*``.
    """
    sizes = np.arange(lo, hi + 1)
    a = rng.integers(lo, hi + 1, size=n)
    ok = (np.minimum(a[:, None], sizes[None, :]) / np.maximum(a[:, None], sizes[None, :])
          >= target - 1e-12)  # (n, n_sizes); the diagonal a == b is always allowed
    cum = np.cumsum(ok, axis=1)
    pick = np.floor(rng.random(n) * cum[:, -1]).astype(np.int64)
    b = sizes[np.argmax(cum > pick[:, None], axis=1)]
    m_star = np.minimum(target * (a + b) / (1.0 + target), np.minimum(a, b))
    m = np.floor(m_star).astype(np.int64)
    m += rng.random(n) < (m_star - m)
    return a, b, np.minimum(m, np.minimum(a, b))


def set_level_populations(
    t: Terminology,
    condition: str,
    n_populations: int = 15,
    n_items: int = 100,
    targets: Sequence[float] | np.ndarray | None = None,
    seed: int = 0,
    min_size: int = 2,
    max_size: int = 5,
    lexical_k: int = 10,
    min_terms: int = 2,
) -> list[Population]:
    """Set-level populations: pairs of concept sets of 2-5 concepts.

    Our reading of the seed paper's Appendix B.1 (its text is not available offline; the
    issue describes "size-gap and random-rounding rules"):

    1. Rater 1's set size ``a`` is uniform on ``[min_size, max_size]``; rater 2's size
       ``b`` is uniform among the sizes whose gap to ``a`` still lets the pair reach the
       population's target Jaccard (``min/max >= target``), see :func:`_set_sizes`.
    2. The number of shared concepts ``m`` makes the pair's Jaccard ``m / (a + b - m)``
       equal the target in expectation of ``m`` (random rounding of
       ``target (a + b) / (1 + target)``).
    3. Rater 1's set is ``a`` distinct concepts; ``m`` of them are shared, and each shared
       concept is written with two different surface forms (one per rater). Rater 2's other
       ``b - m`` elements are negatives (of the chosen condition) of rater 1's unshared
       concepts in turn (of all of rater 1's concepts when all are shared), never a concept
       or a surface form already in either set.

    Ground truth: Jaccard and Dice of the concept sets, as set-level kappas with exact
    chance over all cross pairs (:func:`paper_repro.truth.set_agreement`).

    Examples
    --------
    >>> from paper_repro.terminology import load_fixture
    >>> pops = set_level_populations(load_fixture("HPO"), "random", 2, 10, seed=0)
    >>> sorted(pops[1].frame.columns), pops[1].truth["jaccard_observed"]
    (['concept', 'item', 'label', 'rater'], 1.0)
    """
    _check_condition(condition)
    tg = _check_targets(targets, n_populations)
    if not (isinstance(min_size, int) and isinstance(max_size, int) and 1 <= min_size <= max_size):
        raise ValueError(f"min_size, max_size: expected 1 <= min_size <= max_size, got "
                         f"{min_size!r}, {max_size!r}")
    rng = np.random.default_rng(seed)
    sampler = NegativeSampler(t, condition, lexical_k=lexical_k)
    pool = _eligible(t, sampler, min_terms)
    if len(pool) < max_size:
        raise ValueError(f"need at least {max_size} eligible concepts, got {len(pool)}")
    names = np.array(t.concepts, dtype=object)
    items = [f"item-{i:03d}" for i in range(n_items)]
    rs: NegativeSampler | None = None
    out = []
    for p in range(n_populations):
        a, b, m = _set_sizes(float(tg[p]), n_items, min_size, max_size, rng)
        # rater 1's concepts: a distinct concepts per item (Gumbel top-k, vectorised)
        keys = rng.random((n_items, len(pool)))
        order = np.argsort(keys, axis=1)[:, :max_size]
        set_a = [[pool[j] for j in order[i, : a[i]]] for i in range(n_items)]
        # negatives are drawn for rater 1's unshared concepts (all of them if none)
        sampler.build([c for i, s in enumerate(set_a) if b[i] > m[i] for c in (s[m[i]:] or s)])
        labels_a, labels_b, conc_a, conc_b = [], [], [], []
        for i in range(n_items):  # set assembly; sizes are at most max_size
            ca = set_a[i]
            ci = np.array([sampler.index[c] for c in ca])
            i1, i2 = _two_forms(sampler.n_terms_of[ci], rng)
            ta = sampler.first_term[ci] + i1
            tb_shared = sampler.first_term[ci[: m[i]]] + i2[: m[i]]
            used_c = set(ca)
            used_txt = {s.casefold() for c in ca for s in t.terms(c)}
            base = ca[m[i]:] or ca
            negs: list[int] = []
            for j in range(b[i] - m[i]):
                src = base[j % len(base)]
                for _ in range(50):
                    cand = int(sampler.sample([src], rng)[0])
                    own = names[sampler.owner[cand]]
                    txt = str(sampler.terms[cand]).casefold()
                    if own not in used_c and txt not in used_txt:
                        break
                else:  # fall back to a random concept outside both sets
                    rs = rs or NegativeSampler(t, "random")
                    while True:
                        cand = int(rs.sample([src], rng)[0])
                        own = names[sampler.owner[cand]]
                        txt = str(sampler.terms[cand]).casefold()
                        if own not in used_c and txt not in used_txt:
                            break
                negs.append(cand)
                used_c.add(own)
                used_txt.update(s.casefold() for s in t.terms(own))
            tb = np.concatenate([tb_shared, np.array(negs, dtype=np.int64)])
            labels_a.append(frozenset(sampler.terms[ta].tolist()))
            labels_b.append(frozenset(sampler.terms[tb].tolist()))
            conc_a.append(frozenset(names[sampler.owner[ta]].tolist()))
            conc_b.append(frozenset(names[sampler.owner[tb]].tolist()))
        frame = pd.DataFrame({
            "item": items + items,
            "rater": [RATERS[0]] * n_items + [RATERS[1]] * n_items,
            "label": labels_a + labels_b,
            "concept": conc_a + conc_b,
        })
        universe = {c: k for k, c in enumerate(sorted(set().union(*conc_a, *conc_b)))}
        ia, ib = incidence(conc_a, universe), incidence(conc_b, universe)
        truth: dict[str, float] = {}
        for measure in ("jaccard", "dice"):
            r = set_agreement(ia, ib, measure)
            truth[f"{measure}_kappa"] = r["kappa"]
            truth[f"{measure}_pi"] = r["pi"]
            truth[f"{measure}_observed"] = r["observed"]
            truth[f"{measure}_expected"] = r["expected"]
        out.append(Population("set", condition, p, float(tg[p]), frame, truth,
                              item_concept=np.array(conc_a, dtype=object)))
    return out
