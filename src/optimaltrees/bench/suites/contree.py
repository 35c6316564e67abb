"""Suite ``contree``: time to a provably optimal tree, against pycontree (ConTree).

On the training splits of the continuous-feature data sets, optimaltrees and
the peer (``--peer``, default pycontree) each fit every (data set, depth)
``--repeats`` times, one fit at a time, alternating which library goes first
so that slow drift of the shared machine hits both alike.  Shallow depths run
without a time limit; from ``--limit-from-depth`` on both get ``--time-limit``.
The report has one table per depth: training errors of both (and whether they
agree), median wall seconds, their ratio ours/peer, peak memory, the CPU-time
ratio, and under it the geometric-mean and max ratio.

With ``--baseline DIR`` the peer is optimaltrees itself as found in DIR (the
src folder of another built checkout), each fit in its own process like
ours: before and after in one run, ratios after/before, and whether every
optimum stayed identical.  ``--cost C`` (before/after only: the peers have
no node cost) fits both with ``complexity_cost=C`` and compares objectives.
"""
from __future__ import annotations

import argparse
from pathlib import Path

from optimaltrees.bench.common import (BASELINE, OURS, agree, baseline_note, check_baseline, data_files, fit_job,
                                       fmt_err, fmt_gm, fmt_mb, fmt_ratio, fmt_s, progress_line, ratio, side_notes,
                                       summarise)
from optimaltrees.bench.fits import LIBRARIES, libraries_note, missing_libraries, tie_note
from optimaltrees.bench.report import geo_mean, machine_block, markdown_table, time_scatter
from optimaltrees.bench.runner import Job

NAME = "contree"
WORKERS = 1      # timings: fits must not compete for the 2 cores
DATASETS = ["bank", "bean", "bidding", "fault", "magic", "occupancy", "page", "raisin", "rice",
            "segment", "wilt"]
LEGEND = ("Legend: † = not proven optimal / stopped at the time limit (error is an upper bound, time ≈ "
          "the limit); a–b = repeats gave different errors; errors agree: ✓ all proven and equal, "
          "✗ different proven optima or a proven optimum beaten by another library's tree (a correctness "
          "bug, it outranks any speed result), n/a = some library stopped without a proof, err = a "
          "library failed; killed = the fit outlived its limit + grace and was killed.")


def add_arguments(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--data-dir", default="../shared/datasets/continuous/train",
                    help="folder of NAME.txt files (label in the first column)")
    ap.add_argument("--datasets", nargs="+", default=DATASETS, help="data set names (default: all 11)")
    ap.add_argument("--depths", type=int, nargs="+", default=[2, 3, 4], help="tree depths (default: 2 3 4)")
    ap.add_argument("--repeats", type=int, default=3, help="fits per (data set, depth, library) (default 3)")
    ap.add_argument("--time-limit", type=float, default=60.0,
                    help="seconds for BOTH libraries at depths >= --limit-from-depth (default 60)")
    ap.add_argument("--limit-from-depth", type=int, default=4,
                    help="shallower depths run without a time limit (default 4)")
    ap.add_argument("--no-limit-timeout", type=float, default=3600.0,
                    help="kill a fit without a time limit after this many seconds (default 3600); "
                         "fits with a limit are killed at limit + 60 s")
    ap.add_argument("--peer", default="pycontree", choices=sorted(set(LIBRARIES) - {OURS}),
                    help="library to compare with (default pycontree; cart is a quick harness check)")
    ap.add_argument("--jobs", type=int, default=1,
                    help="n_jobs of optimaltrees (default 1: single-threaded like the peer)")
    ap.add_argument("--dry-run", action="store_true",
                    help="harness self-test: the peer on both sides (not a result)")
    ap.add_argument("--tie-break", choices=["first_found", "fewest_nodes"], default="first_found",
                    help="optimaltrees' tie_break (default first_found: the first optimum proven, as the peers "
                         "and a baseline return); fewest_nodes measures the cost of the fewest-node optimum")
    ap.add_argument("--baseline", metavar="DIR",
                    help="before/after: the peer is optimaltrees as found in DIR (the src folder of another "
                         "built checkout), run like ours; the report's ratios are after/before")
    ap.add_argument("--cost", type=float, default=0.0,
                    help="complexity_cost of both sides (default 0); above 0 only with --baseline, and the "
                         "tables compare objectives (errors + cost x rows x branch nodes)")
    ap.add_argument("--baseline-jobs", type=int, default=None,
                    help="n_jobs of the baseline (default: --jobs); with the baseline being this checkout's "
                         "src, --jobs 2 --baseline-jobs 1 measures the speed-up of two threads over one")


# ------------------------------------------------------------------ the suite

def _peer(args) -> str:
    return BASELINE if getattr(args, "baseline", None) else args.peer


def _sides(args) -> dict[str, str]:
    return {"ours": _peer(args) if args.dry_run else OURS, "peer": _peer(args)}


def _jobs(args, lib: str) -> int:
    """Threads of one side's fits: the baseline's own count when given."""
    own = getattr(args, "baseline_jobs", None)
    return own if lib == BASELINE and own is not None else args.jobs


def _at_a_time(args) -> str:
    """How many fits shared the machine: each side's seconds are only as quiet as this."""
    workers = getattr(args, "workers", 1) or 1
    return "one fit at a time" if workers == 1 else f"{workers} fits at a time (one per worker)"


def _cost(args) -> float:
    return getattr(args, "cost", 0.0) or 0.0


def _as_objectives(records: list[dict]) -> list[dict]:
    """Under a node cost the tables compare objectives: each record's
    ``error`` becomes its objective (rounded off below the engine's
    tolerance, so that equal optima print and compare equal)."""
    out = []
    for r in records:
        if r.get("objective") is not None and r.get("error") is not None:
            node_costs = r["objective"] - r["error"]
            r = dict(r, error=round(r["objective"], 6))
            if r.get("error_predict") is not None:
                r["error_predict"] = round(r["error_predict"] + node_costs, 6)
        out.append(r)
    return out


def _limit(args, depth: int) -> float | None:
    return args.time_limit if depth >= args.limit_from_depth else None


def plan(args, out_dir: Path) -> list[Job]:
    files = data_files(args)
    sides = _sides(args)
    args.skipped = missing_libraries(sorted(set(sides.values()) - {BASELINE}))
    if getattr(args, "baseline", None):
        args.baseline = check_baseline(args.baseline)
    elif getattr(args, "baseline_jobs", None) is not None:
        raise ValueError("--baseline-jobs sets the threads of the --baseline side: give --baseline too")
    if _cost(args) and not getattr(args, "baseline", None):
        raise ValueError("--cost needs --baseline: the peers have no node cost")
    if _cost(args) < 0:
        raise ValueError(f"--cost must be at least 0, not {_cost(args)}")
    jobs = []
    for depth in args.depths:
        limit = _limit(args, depth)
        for name, path in files.items():
            for rep in range(args.repeats):
                order = ("ours", "peer") if rep % 2 == 0 else ("peer", "ours")
                for pos, side in enumerate(order):
                    lib = sides[side]
                    if lib in args.skipped:
                        continue
                    key = dict(dataset=name, depth=depth, side=side, lib=lib, repeat=rep + 1, order=pos + 1,
                               time_limit=limit)
                    if _cost(args):
                        key["cost"] = _cost(args)
                    jobs.append(fit_job(lib, path, depth, limit, key, jobs=_jobs(args, lib),
                                        kill_after=args.no_limit_timeout, baseline=getattr(args, "baseline", None),
                                        tie_break=getattr(args, "tie_break", "first_found"), cost=_cost(args)))
    args.planned = len(jobs)
    return jobs


def _fmt_bound(summary: dict) -> str:
    """The lowest proven lower bound over the repeats ("–": none recorded)."""
    if not summary.get("lower_bounds"):
        return "–"
    return f"{min(summary['lower_bounds']):g}"


def report(records: list[dict], args, out_dir: Path) -> str:
    sides = _sides(args)
    skipped = getattr(args, "skipped", [])
    baseline = getattr(args, "baseline", None)
    # column words: ours and the peer, or after and before
    we, they, us, them = ("after", "before", "after", "before") if baseline else ("our", "peer", "ours", "peer")
    title = "optimaltrees before/after" if baseline else f"optimaltrees vs {args.peer}"
    if _cost(args):
        title += f" at complexity_cost {_cost(args):g}"
        records = _as_objectives(records)
    lines = [f"# {title} — training-set runtime", ""]
    if args.dry_run:
        lines += [f"**DRY RUN: both sides are {_peer(args)}** (harness self-test, not a result).", ""]
    lines += progress_line(records, args)
    lines += [machine_block(args), "", libraries_note(sorted(set(sides.values()) - {BASELINE}), skipped), "",
              tie_note(getattr(args, "tie_break", "first_found")), ""]
    if baseline:
        lines += [baseline_note(baseline), ""]
    if _cost(args):
        lines += [f"Both sides fit with `complexity_cost={_cost(args):g}`: the error columns hold the objective "
                  "(training errors + the cost × rows × branch nodes), which two optima share.", ""]
    if baseline and _jobs(args, OURS) != _jobs(args, BASELINE):
        lines += [f"Threads: after n_jobs={_jobs(args, OURS)}, before n_jobs={_jobs(args, BASELINE)}.", ""]
    lines += [f"Repeats per (data set, depth, library): {args.repeats}, order alternated ({us} first on odd "
              f"repeats, {them} first on even), {_at_a_time(args)}, each in a fresh process. Times are wall-clock "
              "seconds of `fit()` only; peak MB is the worker's peak RSS (interpreter + imports + data; "
              "ΔMB = peak minus the peak just before `fit()`).", ""]
    notes = []
    for depth in args.depths:
        recs = [r for r in records if r.get("depth") == depth]
        if not recs:
            continue
        limit = _limit(args, depth)
        lines += [f"## Depth {depth}" + (f" (time limit {limit:g} s)" if limit is not None else " (no time limit)"),
                  ""]
        rows, ratios, proven_ratios, cpu_ratios, worst, dots, same = [], [], [], [], None, [], 0
        bounded = stopped = 0
        for name in args.datasets:
            o = summarise([r for r in recs if r.get("dataset") == name and r.get("side") == "ours"])
            p = summarise([r for r in recs if r.get("dataset") == name and r.get("side") == "peer"])
            if not o["runs"] and not p["runs"]:
                continue
            size = [next((r[k] for r in recs if r.get("dataset") == name and r.get(k) is not None), "–")
                    for k in ("n", "p")]
            rt, crt = ratio(o, p), ratio(o, p, "median_cpu_s")
            dots.append((name, o.get("median_s"), p.get("median_s")))
            if rt is not None:
                ratios.append(rt)
                if o["proven"] and p["proven"]:
                    proven_ratios.append(rt)
                if worst is None or rt > worst[1]:
                    worst = (name, rt)
            if crt is not None:
                cpu_ratios.append(crt)
            peer_err = "skipped" if sides["peer"] in skipped else fmt_err(p)
            same += agree(o, p) == "✓"
            row = [name, *size, fmt_err(o), peer_err, agree(o, p), fmt_s(o), fmt_s(p),
                   "–" if rt is None else fmt_ratio(rt) + ("†" if o["limited"] or p["limited"] else ""),
                   fmt_mb(o["peak_mb"]), fmt_mb(p["peak_mb"]), fmt_mb(o["delta_mb"]), fmt_mb(p["delta_mb"]),
                   fmt_ratio(crt)]
            if limit is not None:
                # what a stopped fit proves: its lower bound (lowest over repeats)
                row[5:5] = [_fmt_bound(o), _fmt_bound(p)]
                if o["limited"] and o["lower_bounds"]:
                    bounded += min(o["lower_bounds"]) > 0
                    stopped += 1
            rows.append(row)
            notes += side_notes(f"depth {depth}, {name}, ours", o) + side_notes(f"depth {depth}, {name}, peer", p)
        header = ["dataset", "n", "p", f"{we} error", f"{they} error", "errors agree",
                  f"{we} median s", f"{they} median s", f"ratio {us}/{them}", f"{we} peak MB",
                  f"{they} peak MB", f"{we} ΔMB", f"{they} ΔMB", "CPU ratio"]
        if limit is not None:
            header[5:5] = [f"{we} lower bound", f"{they} lower bound"]
        lines += [markdown_table(header, rows), ""]
        if stopped:
            lines += [f"Depth {depth}: {we} fits stopped at the limit on {stopped} data sets; their lower bound "
                      f"is above 0 on {bounded} of them.", ""]
        gm, gm_proven = geo_mean(ratios), geo_mean(proven_ratios)
        lines.append(f"**Depth {depth}: geometric-mean ratio ({us}/{them}) = {fmt_gm(gm)}** over {len(ratios)} "
                     f"data sets; max ratio = {'–' if worst is None else f'{fmt_ratio(worst[1])} ({worst[0]})'}"
                     + (f"; over the {len(proven_ratios)} where both proved optimality: {gm_proven:.3f}"
                        if gm_proven is not None and len(proven_ratios) != len(ratios) else "") + "."
                     + (f" Optima identical (both proven, same error) on {same} of {len(rows)} data sets."
                        if baseline else ""))
        picture = time_scatter(out_dir / f"{Path(args.out or 'contree.md').stem}-d{depth}.png", dots,
                               ours="after" if baseline else "optimaltrees",
                               peer="before" if baseline else args.peer, title=f"depth {depth}: fit seconds")
        if picture:
            lines += ["", f"![depth {depth} times]({picture})"]
        gm_cpu = geo_mean(cpu_ratios)
        if gm_cpu is not None:
            lines += ["", f"Depth {depth}: geometric-mean CPU-time ratio = {gm_cpu:.3f} (less sensitive to a "
                          "loaded machine than wall time; penalises multi-threaded fits)."]
        lines.append("")
    lines += [LEGEND, ""]
    if notes:
        lines += ["## Notes", ""] + [f"- {x}" for x in notes] + [""]
    return "\n".join(lines)
