"""Suite ``anytime``: how fast each search strategy's best tree approaches the optimum.

Per data set every method gets the same time budget, each fit in its own
process:

* ours, one run per ``--strategies`` entry (``search[:schedule]``), traced at
  every improvement (``trace_``);
* the depth-first peers (pydl8.5 and pystreed on 0/1 data, pycontree on
  numeric data) expose no trace, so each runs once per ``--peer-budgets``
  value: the tree it returns when stopped at b seconds is its incumbent from
  then on (the paper's convention for methods that output a tree only at the
  end); runs after the first that proves optimality are ignored;
* CART at the same depth: the first-tree reference.

The optimum is the best error any run reached (stated as proven when a run
proved it).  Each trace is scored by the normalised primal integral 100·P(T)/T
(:func:`optimaltrees.anytime.primal_integral`).  The report has the mean per
method, a table per data set (first tree time and error, final error, time
to proof, score) and a PNG of error versus time per data set beside the
report, named after it (``binary-d6.md``: ``binary-d6-NAME.png``).
"""
from __future__ import annotations

import argparse
import statistics
from pathlib import Path

from optimaltrees._optional import require
from optimaltrees.anytime import primal_integral
from optimaltrees.bench.fits import LIBRARIES, libraries_note, missing_libraries
from optimaltrees.bench.report import failures_section, machine_block, markdown_table
from optimaltrees.bench.runner import Job
from optimaltrees.bench.common import OURS, data_files, progress_line

NAME = "anytime"
WORKERS = 1      # timings: fits must not compete for the 2 cores
# kind -> (data folder, data sets, peers, depth)
KINDS = {
    "binary": ("../shared/datasets/binary",
               ["anneal", "australian-credit", "diabetes", "german-credit", "heart-cleveland", "splice-1"],
               ["pydl85", "pystreed"], 6),
    "numeric": ("../shared/datasets/continuous/train", ["bean", "fault", "magic", "rice"], ["pycontree"], 4),
}
STRATEGIES = ["blossom:monotonic", "discrepancy:luby", "top-k:luby", "top-k*:luby", "gain:luby",
              "purity:exponential", "exhaustive"]
FIRST_TREE_TARGET_S = 0.1


def add_arguments(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--kind", choices=sorted(KINDS), default="binary",
                    help="binary: CP4IM 0/1 sets against pydl8.5 and pystreed (depth 6); numeric: continuous "
                         "sets against pycontree (depth 4)")
    ap.add_argument("--data-dir", help="folder of NAME.txt files (default: the kind's folder under "
                                       "../shared/datasets)")
    ap.add_argument("--datasets", nargs="+", help="data set names (default: the kind's)")
    ap.add_argument("--depth", type=int, help="default 6 (binary) / 4 (numeric)")
    ap.add_argument("--budget", type=float, default=60.0, help="seconds per method and data set (default 60)")
    ap.add_argument("--strategies", nargs="+", default=STRATEGIES,
                    metavar="SEARCH[:SCHEDULE]", help=f"our methods (default: {' '.join(STRATEGIES)})")
    ap.add_argument("--peers", nargs="*", choices=[lib for lib in LIBRARIES if lib not in (OURS, "cart")],
                    metavar="PEER", help="peers without a trace, among pycontree pystreed pydl85 (default: the "
                                         "kind's; none with a bare --peers)")
    ap.add_argument("--peer-budgets", type=float, nargs="+",
                    help="seconds; each peer runs once per budget (default: 1 and 10 when below --budget, "
                         "and --budget)")


def _resolve(args) -> None:
    """Fill the kind's defaults into ``args`` (idempotent)."""
    data_dir, datasets, peers, depth = KINDS[args.kind]
    args.data_dir = args.data_dir or data_dir
    args.datasets = args.datasets or datasets
    args.depth = args.depth or depth
    args.peers = peers if args.peers is None else args.peers
    args.peer_budgets = sorted(args.peer_budgets or [b for b in (1.0, 10.0) if b < args.budget] + [args.budget])


def _split_spec(spec: str) -> tuple[str, str]:
    from optimaltrees.search.strategies import SCHEDULES, STRATEGIES as SEARCHES

    search, _, schedule = spec.partition(":")
    schedule = schedule or "luby"
    if search not in SEARCHES or schedule not in SCHEDULES:
        raise ValueError(f"strategy {spec!r}: expected search[:schedule] with search in {', '.join(SEARCHES)} "
                         f"and schedule in {', '.join(SCHEDULES)}")
    return search, schedule


def _peers(args) -> list[str]:
    return [lib for lib in args.peers if lib not in getattr(args, "skipped", [])]


def _runs_per_set(args) -> int:
    return len(args.strategies) + len(_peers(args)) * len(args.peer_budgets) + 1


def report_name(args) -> str:
    """The default report's name: the kind of data and the depth (``binary-d6``)."""
    _resolve(args)
    return f"{args.kind}-d{args.depth}"


def plan(args, out_dir: Path) -> list[Job]:
    _resolve(args)
    files = data_files(args)
    args.skipped = missing_libraries(args.peers)
    jobs = []
    for name, path in files.items():
        for spec in args.strategies:
            search, schedule = _split_spec(spec)
            params = dict(data=str(path), depth=args.depth, time_limit=args.budget, search=search, schedule=schedule)
            jobs.append(Job("tree", params, dict(dataset=name, method=spec, lib=OURS), time_limit=args.budget))
        for lib in _peers(args):
            for budget in args.peer_budgets:
                params = dict(data=str(path), depth=args.depth, time_limit=budget)
                jobs.append(Job(LIBRARIES[lib][0], params, dict(dataset=name, method=lib, lib=lib, budget=budget),
                                time_limit=budget))
        jobs.append(Job("cart", dict(data=str(path), depth=args.depth), dict(dataset=name, method="cart", lib="cart"),
                        time_limit=600, grace=0.0))
    args.planned = len(jobs)
    return jobs


def _monotone(points) -> list[tuple[float, int]]:
    """Sorted by time, improvements only (the incumbent never gets worse)."""
    out: list[tuple[float, int]] = []
    for t, e in sorted(points):
        if not out or e < out[-1][1]:
            out.append((t, e))
    return out


def _curve(method: str, recs: list[dict], peers: list[str]) -> dict:
    """The incumbent curve of one method on one data set, and its proof time."""
    points, proof = [], None
    if method in peers:
        for r in sorted(recs, key=lambda r: r["budget"]):
            if r.get("status") != "ok":
                break
            points.append((min(r["seconds"], r["budget"]), r["error"]))
            if r.get("optimal"):
                proof = r["seconds"]
                break
    else:
        r = recs[0]
        if r.get("status") == "ok":
            trace = r.get("trace") or [[r["seconds"], r["error"]]]
            points = [(t, e) for t, e, *_ in trace]
            proof = r["seconds"] if r.get("optimal") else None
    return dict(method=method, curve=_monotone(points), proof_s=proof)


_drawn: dict[str, list] = {}   # picture path -> the curves it shows: redraw only on a change


def _plot(path: Path, title: str, results: list[dict], optimum: int, budget: float, ours: list[str]) -> None:
    Figure = require("matplotlib.figure", "bench", "the benchmark pictures").Figure

    from optimaltrees.plot import save

    fig = Figure(figsize=(7, 4.2), layout="constrained")
    ax = fig.add_subplot()
    for r in results:
        pts = r["curve"]
        if pts:
            xs = [max(t, 1e-3) for t, _ in pts] + [budget]
            ys = [e for _, e in pts] + [pts[-1][1]]
            ax.step(xs, ys, where="post", linestyle="-" if r["method"] in ours else "--", label=r["method"])
    ax.axhline(optimum, color="grey", linewidth=0.8, linestyle=":", label=f"best known {optimum}")
    ax.set_xscale("log")
    ax.set_xlim(1e-3, budget)
    ax.set_xlabel("seconds (log)")
    ax.set_ylabel("training errors of the best tree")
    ax.set_title(title)
    ax.legend(fontsize=7, ncol=2)
    save(fig, str(path), dpi=110)


def _data_set(name: str, records: list[dict], args, out_dir: Path) -> dict | None:
    """Curves, optimum and scores of one data set; draws its picture once all its runs are in."""
    recs = [r for r in records if r.get("dataset") == name]
    peers = _peers(args)
    methods = list(args.strategies) + peers + ["cart"]
    results = [_curve(m, [r for r in recs if r.get("method") == m], peers)
               for m in methods if any(r.get("method") == m for r in recs)]
    finals = [r["curve"][-1][1] for r in results if r["curve"]]
    if not finals:
        return None
    optimum = min(finals)
    proven = any(r["proof_s"] is not None and r["curve"] and r["curve"][-1][1] == optimum for r in results)
    score = {r["method"]: primal_integral(r["curve"], optimum, args.budget) for r in results}
    picture = out_dir / f"{Path(args.out or report_name(args)).stem}-{name}.png"
    shown = [[r["method"], r["curve"]] for r in results]
    if len(recs) >= _runs_per_set(args) and _drawn.get(str(picture)) != shown:
        picture.parent.mkdir(parents=True, exist_ok=True)
        _plot(picture, f"{name}, depth {args.depth}", results, optimum, args.budget, args.strategies)
        _drawn[str(picture)] = shown
    size = [next((r[k] for r in recs if r.get(k) is not None), "?") for k in ("n", "p")]
    return dict(n=size[0], p=size[1], optimum=optimum, proven=proven, score=score, results=results,
                picture=picture if picture.is_file() else None)


def report(records: list[dict], args, out_dir: Path) -> str:
    _resolve(args)
    sets = {name: s for name in args.datasets if (s := _data_set(name, records, args, out_dir)) is not None}
    peers = _peers(args)
    methods = list(args.strategies) + peers + ["cart"]
    lines = [f"# Anytime benchmark: {args.kind} data, depth {args.depth}, {args.budget:g} s budget", ""]
    lines += progress_line(records, args)
    lines += [machine_block(args), "", libraries_note([OURS, *args.peers, "cart"], getattr(args, "skipped", [])), "",
              "Score: normalised primal integral 100·P(T)/T (0 = optimum from the first instant, 100 = no tree "
              "all along); optimum = best error any run reached. Peers without a trace ran once per budget "
              f"{args.peer_budgets} s; their tree counts from the end of that run. One run per method and data "
              "set, one fit at a time, on a shared 2-core machine.", ""]
    means, hits = {}, {}
    for m in methods:
        values = [s["score"][m] for s in sets.values() if m in s["score"]]
        means[m] = statistics.mean(values) if values else None
        if m in args.strategies:   # the target: a first tree this fast, at most CART's error
            judged = [s for s in sets.values() if m in s["score"] and _first(s, "cart")]
            hits[m] = (sum(_first(s, m) is not None and _first(s, m)[0] <= FIRST_TREE_TARGET_S
                           and _first(s, m)[1] <= _first(s, "cart")[1] for s in judged), len(judged))
    rows = [[m, "" if means[m] is None else f"{means[m]:.2f}", sum(m in s["score"] for s in sets.values()),
             f"{hits[m][0]}/{hits[m][1]}" if m in hits else ""]
            for m in sorted(methods, key=lambda k: (means[k] is None, means[k] or 0))]
    lines += ["## Mean normalised primal integral", "",
              markdown_table(["method", "mean PI", "sets",
                              f"first tree ≤ {FIRST_TREE_TARGET_S:g} s and ≤ CART's error"], rows)]
    ours = {m: v for m, v in means.items() if m in args.strategies and v is not None}
    ref = "pydl85" if "pydl85" in peers else (peers[0] if peers else None)
    if ours and ref and means.get(ref):
        best = min(ours, key=ours.get)
        lines += ["", f"Best strategy **{best}**: {ours[best]:.2f} = **{ours[best] / means[ref]:.3f}×** "
                      f"{ref}'s {means[ref]:.2f}."]
    lines.append("")
    for name, s in sets.items():
        lines += [f"## {name} (n={s['n']}, p={s['p']}); best known error {s['optimum']}"
                  f"{' (proven)' if s['proven'] else ''}", ""]
        if s["picture"] is not None:
            lines += [f"![{name}]({s['picture'].relative_to(out_dir).as_posix()})", ""]
        table = []
        for r in s["results"]:
            pts = r["curve"]
            table.append([r["method"], f"{pts[0][0]:.3f}" if pts else "-", pts[0][1] if pts else "-",
                          pts[-1][1] if pts else "-", "-" if r["proof_s"] is None else f"{r['proof_s']:.2f}",
                          f"{s['score'][r['method']]:.2f}"])
        lines += [markdown_table(["method", "first tree (s)", "first error", "final error", "proof (s)", "PI"],
                                 table), ""]
    lines += failures_section(records, lambda r: f"{r['dataset']} {r['method']}"
                              + (f" (budget {r['budget']:g} s)" if "budget" in r else ""))
    return "\n".join(lines)


def _first(s: dict, method: str):
    """(time, error) of a method's first tree on a data set, or None."""
    r = next((r for r in s["results"] if r["method"] == method), None)
    return r["curve"][0] if r and r["curve"] else None
