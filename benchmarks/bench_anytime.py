#!/usr/bin/env python3
"""Anytime benchmark: how fast each search strategy's best tree approaches the optimum.

For every data set, every method gets the same time budget, each fit in its
own process (``fit_one.py``):

* ours, one run per ``--strategies`` entry (``search[:schedule]``), traced at
  every improvement (``trace_``);
* depth-first peers (pydl8.5, pystreed on 0/1 data; pycontree on numeric data)
  expose no trace, so each runs once per budget in ``--peer-budgets``: the
  tree it returns when stopped at b seconds is its incumbent from then on
  (the paper's convention for methods that output a tree only at the end);
* CART at the same depth: the first-tree reference.

The optimum is the best error any run reached (stated as proven when some run
proved it).  Each trace is scored by the normalised primal integral 100·P(T)/T
(:func:`optimaltrees.anytime.primal_integral`); a table per data set, the mean
per method, and a PNG plot of error versus time per data set are written.

    python benchmarks/bench_anytime.py --suite binary --depth 6 --budget 60
    python benchmarks/bench_anytime.py --suite numeric --depth 4 --budget 60
"""
from __future__ import annotations

import argparse
import json
import os
import shlex
import statistics
import sys
import time

from bench_contree import HERE, REPO, log, machine_info, run_one

from optimaltrees.anytime import primal_integral

SUITES = {
    "binary": (os.path.join(REPO, "..", "shared", "datasets", "binary"),
               ["anneal", "australian-credit", "diabetes", "german-credit", "heart-cleveland",
                "splice-1"],
               ["pydl85", "pystreed"]),
    "numeric": (os.path.join(REPO, "..", "shared", "datasets", "continuous", "train"),
                ["bean", "fault", "magic", "rice"],
                ["pycontree"]),
}
DEFAULT_STRATEGIES = ["blossom:monotonic", "discrepancy:luby", "top-k:luby", "top-k*:luby",
                      "gain:luby", "purity:exponential", "exhaustive"]


def run_ours(python: str, data: str, depth: int, budget: float, spec: str) -> dict:
    search, _, schedule = spec.partition(":")
    rec = run_one(python, "optimaltrees", data, depth, budget, budget + 60,
                  extra=["--search", search, "--schedule", schedule or "luby"])
    rec["method"] = spec
    rec["points"] = [(t, e) for t, e, *_ in rec.get("trace") or []]
    rec["proof_s"] = rec.get("seconds") if rec.get("optimal") else None
    return rec


def run_peer(python: str, lib: str, data: str, depth: int, budgets: list[float]) -> dict:
    """One run per budget; stops once a run finishes (its tree is then final and optimal)."""
    points, runs, proof = [], [], None
    for b in budgets:
        rec = run_one(python, lib, data, depth, b, b + 60)
        runs.append(rec)
        if rec.get("status") != "ok":
            break
        points.append((min(rec["seconds"], b), rec["error"]))
        if rec.get("optimal"):
            proof = rec["seconds"]
            break
    return dict(method=lib, points=points, proof_s=proof, runs=runs,
                status="ok" if points else runs[-1].get("status"),
                peak_rss_mb=max((r.get("peak_rss_mb") or 0) for r in runs))


def monotone(points: list[tuple[float, int]]) -> list[tuple[float, int]]:
    """Sort by time and keep only improvements (the incumbent never gets worse)."""
    out: list[tuple[float, int]] = []
    for t, e in sorted(points):
        if not out or e < out[-1][1]:
            out.append((t, e))
    return out


def plot(path: str, title: str, results: list[dict], optimum: int, budget: float) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.2))
    for r in results:
        pts = r["curve"]
        if not pts:
            continue
        xs = [max(t, 1e-3) for t, _ in pts] + [budget]
        ys = [e for _, e in pts] + [pts[-1][1]]
        style = "--" if r["method"] in ("pydl85", "pystreed", "pycontree", "cart") else "-"
        ax.step(xs, ys, where="post", linestyle=style, label=r["method"])
    ax.axhline(optimum, color="grey", linewidth=0.8, linestyle=":", label=f"best known {optimum}")
    ax.set_xscale("log")
    ax.set_xlim(1e-3, budget)
    ax.set_xlabel("seconds (log)")
    ax.set_ylabel("training errors of the best tree")
    ax.set_title(title)
    ax.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def write_report(path: str, args, info: dict, table: dict, cmdline: str) -> None:
    methods = [m for m in args.strategies] + table["peers"] + ["cart"]
    lines = [f"# Anytime benchmark: {args.suite} data, depth {args.depth}, {args.budget:g} s budget", "",
             f"Command: `{cmdline}`  ", f"Machine: {info['nproc']} cpus, {info['cpu']}; "
             f"load {info['loadavg_start']}; {info['date']}; optimaltrees {info['git']}", "",
             "Score: normalised primal integral 100·P(T)/T (0 = optimum from the first instant, "
             "100 = no tree all along); optimum = best error any run reached. Peers without a "
             f"trace ran once per budget {args.peer_budgets} s; their tree counts from the end "
             "of that run. One run per method and data set on a shared 2-core machine.", ""]
    means = {}
    for m in methods:
        vals = [table["sets"][ds]["pi"].get(m) for ds in table["sets"]]
        vals = [v for v in vals if v is not None]
        means[m] = statistics.mean(vals) if vals else None
    lines += ["## Mean normalised primal integral", "", "| method | mean PI | sets |", "|---|---:|---:|"]
    for m in sorted(methods, key=lambda k: (means[k] is None, means[k] or 0)):
        n_sets = sum(1 for ds in table["sets"] if table["sets"][ds]["pi"].get(m) is not None)
        lines.append(f"| {m} | {'' if means[m] is None else f'{means[m]:.2f}'} | {n_sets} |")
    ours = {m: v for m, v in means.items() if m in args.strategies and v is not None}
    ref = "pydl85" if "pydl85" in means else table["peers"][0] if table["peers"] else None
    if ours and ref and means.get(ref):
        best = min(ours, key=ours.get)
        lines += ["", f"Best strategy **{best}**: {ours[best]:.2f} = **{ours[best] / means[ref]:.3f}×** "
                      f"{ref}'s {means[ref]:.2f}."]
    lines += [""]
    for ds, row in table["sets"].items():
        lines += [f"## {ds} (n={row['n']}, p={row['p']}); best known error {row['optimum']}"
                  f"{' (proven)' if row['proven'] else ''}", "",
                  f"![{ds}](anytime/{args.suite}-d{args.depth}-{ds}.png)", "",
                  "| method | first tree (s) | first error | final error | proof (s) | PI |",
                  "|---|---:|---:|---:|---:|---:|"]
        for r in row["results"]:
            pts = r["curve"]
            first = f"{pts[0][0]:.3f} | {pts[0][1]}" if pts else "- | -"
            final = pts[-1][1] if pts else "-"
            proof = f"{r['proof_s']:.2f}" if r.get("proof_s") is not None else "-"
            pi = row["pi"].get(r["method"])
            lines.append(f"| {r['method']} | {first} | {final} | {proof} | "
                         f"{'' if pi is None else f'{pi:.2f}'} |")
        lines.append("")
    with open(path, "w") as f:
        f.write("\n".join(lines))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--suite", choices=sorted(SUITES), default="binary")
    ap.add_argument("--depth", type=int, default=None, help="default 6 (binary) / 4 (numeric)")
    ap.add_argument("--budget", type=float, default=60.0)
    ap.add_argument("--datasets", nargs="+", default=None)
    ap.add_argument("--strategies", nargs="+", default=DEFAULT_STRATEGIES)
    ap.add_argument("--peers", nargs="*", default=None)
    ap.add_argument("--peer-budgets", type=float, nargs="+", default=None,
                    help="default: 1, 10 and the budget")
    ap.add_argument("--python", default=sys.executable, help="interpreter with ours and the peers")
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv)
    data_dir, default_sets, default_peers = SUITES[args.suite]
    args.depth = args.depth or (6 if args.suite == "binary" else 4)
    args.datasets = args.datasets or default_sets
    peers = default_peers if args.peers is None else args.peers
    args.peer_budgets = args.peer_budgets or [1.0, 10.0, args.budget]
    out = args.out or os.path.join(HERE, "results", f"anytime-{args.suite}.md")
    os.makedirs(os.path.join(os.path.dirname(out), "anytime"), exist_ok=True)
    cmdline = " ".join(shlex.quote(a) for a in ["python"] + sys.argv)
    info = machine_info(args.python, args.python, "optimaltrees", peers[0] if peers else "optimaltrees")
    table = {"peers": peers, "sets": {}}
    raw = open(os.path.splitext(out)[0] + ".jsonl", "w")
    for ds in args.datasets:
        data = os.path.join(data_dir, ds + ".txt")
        results = []
        for spec in args.strategies:
            rec = run_ours(args.python, data, args.depth, args.budget, spec)
            log(f"{ds} {spec}: {rec.get('status')} error {rec.get('error')} in {rec.get('seconds')} s, "
                f"{len(rec['points'])} improvements")
            results.append(rec)
        for lib in peers:
            rec = run_peer(args.python, lib, data, args.depth, args.peer_budgets)
            log(f"{ds} {lib}: {rec['points']}")
            results.append(rec)
        cart = run_one(args.python, "cart", data, args.depth, None, 600)
        results.append(dict(method="cart", points=[(cart.get("seconds") or 0.0, cart.get("error"))]
                            if cart.get("status") == "ok" else [], proof_s=None))
        for r in results:
            r["curve"] = monotone(r["points"])
            raw.write(json.dumps({k: v for k, v in r.items() if k != "runs"}, default=str) + "\n")
        raw.flush()
        finals = [r["curve"][-1][1] for r in results if r["curve"]]
        optimum = min(finals)
        proven = any(r.get("proof_s") is not None and r["curve"] and r["curve"][-1][1] == optimum
                     for r in results)
        pi = {r["method"]: primal_integral(r["curve"], optimum, args.budget) for r in results}
        n_p = next(((r.get("n"), r.get("p")) for r in results if r.get("n")), ("?", "?"))
        table["sets"][ds] = dict(n=n_p[0], p=n_p[1], optimum=optimum, proven=proven, pi=pi,
                                 results=results)
        plot(os.path.join(os.path.dirname(out), "anytime", f"{args.suite}-d{args.depth}-{ds}.png"),
             f"{ds}, depth {args.depth}", results, optimum, args.budget)
        write_report(out, args, info, table, cmdline)
    raw.close()
    log(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
