"""``python -m paper_repro <command>``: reproduce the seed paper's experiments.

Commands
--------
synthetic     true vs estimated kappa on synthetic populations -> DIR/synthetic_results.csv
              and the figures (Figs. 3, 4, 5, 8, calibration)
figures       redraw the figures of a finished synthetic run (DIR holds its CSV files)
dice-jaccard  review fix 1: Dice vs Jaccard set normalisation with the oracle
dperm         review fix 2: D = 2, 3, 10 permutations vs exact chance and SampledPairs
multilabel    the multi-label seed paper's worked example vs the published numbers
xrr           cross-replication example (kappa_x, normalised, IRR_X, IRR_Y, bootstrap CIs)
ppi           prediction-powered soft kappa: bias, coverage and width against judge-only
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
    if args.coefficients:
        changes["coefficients"] = tuple(c.strip() for c in args.coefficients.split(",") if c.strip())
    cfg = dataclasses.replace(cfg, **changes)
    df = syn.run(cfg, args.out)
    print(f"wrote {args.out}/synthetic_results.csv ({len(df)} rows)")
    if not args.no_figures:
        _figures(args)
    return 0


def _figures(args: argparse.Namespace) -> int:
    from paper_repro import figures

    files = figures.make_all(args.out, n_permutations=args.permutations)
    print("wrote " + ", ".join(p.name for p in files.values()))
    return 0


def _print(df, title: str) -> None:  # type: ignore[no-untyped-def]
    import pandas as pd

    with pd.option_context("display.width", 200, "display.max_columns", 30):
        print(f"# {title}")
        print(df.round(4).to_string(index=False))


def _dice_jaccard(args: argparse.Namespace) -> int:
    from paper_repro import studies

    pops, items = (3, 20) if args.smoke else (args.populations, args.items)
    conds = ("siblings",) if args.smoke else ("random", "siblings", "ancestors", "lexical")
    s = studies.dice_jaccard_study(args.out, populations=pops, items=items, conditions=conds,
                                   terminology=args.terminology, seed=args.seed)
    _print(s[s.condition == "all"], "oracle set estimates vs each ground truth (exact chance)")
    return 0


def _dperm(args: argparse.Namespace) -> int:
    from paper_repro import studies

    seeds = 5 if args.smoke else args.seeds
    items = 30 if args.smoke else args.items
    s = studies.permutation_study(args.out, seeds=seeds, items=items,
                                  terminology=args.terminology, seed=args.seed)
    _print(s[["measure", "coefficient", "method", "D", "pairs_scored", "pe_exact", "pe_mean",
              "pe_sd", "chance_se_mean", "chance_se_over_sd", "kappa_sd", "kappa_range95"]],
           "chance agreement over seeds")
    return 0


def _multilabel(args: argparse.Namespace) -> int:
    from paper_repro import studies

    _print(studies.multilabel_example(args.out), "multi-label worked example: ours vs published")
    return 0


def _xrr(args: argparse.Namespace) -> int:
    from paper_repro import studies

    n_boot, items = (50, 20) if args.smoke else (args.boot, args.items)
    _print(studies.xrr_example(args.out, items=items, n_boot=n_boot, seed=args.seed,
                               terminology=args.terminology),
           "cross-replication reliability (95% item-bootstrap percentile intervals)")
    return 0


def _ppi(args: argparse.Namespace) -> int:
    from paper_repro import ppi_study

    return ppi_study.main(args)


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
    s.add_argument("--coefficients", default=None, help="comma-separated: cohen,scott (default both)")
    s.add_argument("--no-figures", action="store_true", help="only the CSV files")
    s.add_argument("--permutations", type=int, default=10_000,
                   help="sign flips of the paired permutation tests (default 10000)")
    s.set_defaults(func=_synthetic)
    g = sub.add_parser("figures", help="redraw the figures of a finished synthetic run")
    g.add_argument("--out", required=True, help="folder holding synthetic_results.csv")
    g.add_argument("--permutations", type=int, default=10_000)
    g.set_defaults(func=_figures)

    def study(name: str, fn, help_: str):  # type: ignore[no-untyped-def]
        p = sub.add_parser(name, help=help_)
        p.add_argument("--out", required=True, help="output folder")
        p.add_argument("--smoke", action="store_true", help="tiny sizes, for tests")
        p.add_argument("--seed", type=int, default=0)
        p.add_argument("--terminology", default="fixture-hpo")
        p.set_defaults(func=fn)
        return p

    p = study("dice-jaccard", _dice_jaccard, "review fix 1: Dice vs Jaccard set normalisation")
    p.add_argument("--populations", type=int, default=5, help="per condition (paper: 15)")
    p.add_argument("--items", type=int, default=50, help="set pairs per population (paper: 100)")
    p = study("dperm", _dperm, "review fix 2: D permutations vs exact and SampledPairs")
    p.add_argument("--seeds", type=int, default=100)
    p.add_argument("--items", type=int, default=100)
    study("multilabel", _multilabel, "multi-label worked example vs published numbers")
    p = sub.add_parser("ppi", help="prediction-powered soft kappa: bias, coverage, width vs judge-only")
    p.add_argument("--out", required=True, help="output folder")
    size = p.add_mutually_exclusive_group()
    size.add_argument("--quick", action="store_true", help="reduced sizes (minutes)")
    size.add_argument("--smoke", action="store_true", help="tiny sizes, for tests")
    p.add_argument("--terminology", default=None, help="fixture-hpo (default) | hpo | mondo | icd10cm ...")
    p.add_argument("--estimators", default=None, help="comma-separated cheap estimators: indel,exact,embedding")
    p.add_argument("--conditions", default=None, help="comma-separated: random,siblings,ancestors,lexical")
    p.add_argument("--budgets", default=None, help="comma-separated judged draws, e.g. 50,100,200,400")
    p.add_argument("--strategies", default=None, help="uniform,active")
    p.add_argument("--populations", type=int, default=None, help="populations per condition")
    p.add_argument("--items", type=int, default=None, help="items per population (2 raters)")
    p.add_argument("--draws", type=int, default=None, help="judging plans per population")
    p.add_argument("--targets", default=None, help="lo,hi: population agreement targets (default 0.1,0.9)")
    p.add_argument("--seed", type=int, default=None)
    p.add_argument("--no-figures", action="store_true")
    p.set_defaults(func=_ppi)
    p = study("xrr", _xrr, "cross-replication example with bootstrap intervals")
    p.add_argument("--items", type=int, default=60)
    p.add_argument("--boot", type=int, default=1000)
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
