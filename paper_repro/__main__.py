"""``python -m paper_repro <command>``: reproduce the seed paper's experiments.

Commands
--------
synthetic     true vs estimated kappa on synthetic populations -> DIR/synthetic_results.csv
fixture       regenerate paper_repro/data/terminology_fixture.json (needs the extra)
demo-data     regenerate softirr_stats/data/examples/demo_annotations.csv
"""

from __future__ import annotations

import argparse
import dataclasses
import sys


def _synthetic(args: argparse.Namespace) -> int:
    from paper_repro import synthetic as syn

    cfg = syn.SMOKE if args.smoke else (syn.QUICK if args.quick else syn.FULL)
    changes = {}
    if args.terminology:
        changes["terminology"] = args.terminology
    if args.measures:
        changes["measures"] = tuple(m.strip() for m in args.measures.split(",") if m.strip())
    if args.seed is not None:
        changes["seed"] = args.seed
    cfg = dataclasses.replace(cfg, **changes)
    df = syn.run(cfg, args.out)
    print(f"wrote {args.out}/synthetic_results.csv ({len(df)} rows)")
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m paper_repro", description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="command", required=True)
    s = sub.add_parser("synthetic", help="synthetic single-label and set-level experiment")
    s.add_argument("--out", required=True, help="output folder")
    size = s.add_mutually_exclusive_group()
    size.add_argument("--quick", action="store_true",
                      help="reduced sizes on the vendored HPO fixture (offline, minutes)")
    size.add_argument("--smoke", action="store_true", help="tiny sizes, for tests")
    s.add_argument("--terminology", default=None,
                   help="fixture-hpo | fixture-mondo | fixture-icd10cm | hpo | mondo | icd10cm")
    s.add_argument("--measures", default=None,
                   help="comma-separated: exact,jaccard,masi,levenshtein,indel,lcs,embedding")
    s.add_argument("--seed", type=int, default=None)
    s.set_defaults(func=_synthetic)
    f = sub.add_parser("fixture", help="regenerate the vendored terminology fixture")
    f.set_defaults(func=lambda a: __import__("paper_repro.build_fixture",
                                             fromlist=["main"]).main([]))
    d = sub.add_parser("demo-data", help="regenerate the bundled demo data set")
    d.set_defaults(func=lambda a: __import__("paper_repro.make_demo_data",
                                             fromlist=["main"]).main([]))
    args = ap.parse_args(argv)
    return int(args.func(args))


if __name__ == "__main__":
    sys.exit(main())
