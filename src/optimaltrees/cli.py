"""The ``optimaltrees`` command (also ``python -m optimaltrees``)."""
from __future__ import annotations

import argparse
import shlex
import sys


def _bench_parser(sub) -> None:
    from optimaltrees.bench import SUITES, suite_module

    p = sub.add_parser("bench", help="run a benchmark suite against the peers (on Dask)",
                       description="Run a named benchmark suite; every fit runs in its own process with "
                                   "its own time limit and memory cap, on a local Dask cluster or on "
                                   "--scheduler. Writes a markdown report (and raw .jsonl records).")
    suites = p.add_subparsers(dest="suite", required=True, metavar="SUITE")
    for name in SUITES:
        try:
            module = suite_module(name)
        except ImportError:
            continue
        sp = suites.add_parser(name, help=module.__doc__.splitlines()[0],
                               description=module.__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
        module.add_arguments(sp)
        sp.add_argument("--out", help=f"report path (default benchmarks/results/{name}.md)")
        sp.add_argument("--workers", type=int, default=getattr(module, "WORKERS", 1),
                        help="fits at a time on the local cluster")
        sp.add_argument("--scheduler", help="address of a running Dask scheduler (default: a local cluster)")


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="optimaltrees", description=__doc__)
    sub = ap.add_subparsers(dest="command", required=True, metavar="COMMAND")
    _bench_parser(sub)
    return ap


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    args = build_parser().parse_args(argv)
    args.command_line = "optimaltrees " + " ".join(shlex.quote(a) for a in argv)
    if args.command == "bench":
        from optimaltrees.bench import run_suite

        out = run_suite(args.suite, args)
        print(f"report written to {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
