"""Suite ``contree``: time to a provably optimal tree, against pycontree (ConTree).

On the training splits of the continuous-feature data sets, optimaltrees and
the peer (``--peer``, default pycontree) each fit every (data set, depth)
``--repeats`` times, one fit at a time, alternating which library goes first
so that slow drift of the shared machine hits both alike.  Shallow depths run
without a time limit; from ``--limit-from-depth`` on both get ``--time-limit``.
The report has one table per depth: training errors of both (and whether they
agree), median wall seconds, their ratio ours/peer, peak memory, the CPU-time
ratio, and under it the geometric-mean and max ratio.
"""
from __future__ import annotations

import argparse
import statistics
from itertools import combinations
from pathlib import Path

from optimaltrees.bench.fits import LIBRARIES, libraries_note, missing_libraries
from optimaltrees.bench.report import geo_mean, machine_block, markdown_table, time_scatter
from optimaltrees.bench.runner import Job

NAME = "contree"
WORKERS = 1      # timings: fits must not compete for the 2 cores
DATASETS = ["bank", "bean", "bidding", "fault", "magic", "occupancy", "page", "raisin", "rice",
            "segment", "wilt"]
OURS = "optimaltrees"
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


# ------------------------------------------------------------------ shared with the binary suite
# (the per-library summary of repeats, the "errors agree" check, the cell formats)

def data_files(args) -> dict[str, Path]:
    """NAME -> data file, failing early on a name without a file."""
    files = {name: Path(args.data_dir) / f"{name}.txt" for name in args.datasets}
    for path in files.values():
        if not path.is_file():
            raise FileNotFoundError(f"no data file {path}")
    return files


def fit_job(lib: str, data: Path, depth: int, time_limit: float | None, key: dict, *, jobs: int = 1,
            kill_after: float = 3600.0) -> Job:
    """A whole-data fit of ``lib``; a fit without a limit is killed after ``kill_after`` s."""
    params = dict(data=str(data), depth=depth, time_limit=time_limit)
    if lib == OURS:
        params["jobs"] = jobs
    if time_limit is None:
        return Job(LIBRARIES[lib][0], params, key, time_limit=kill_after, grace=0.0)
    return Job(LIBRARIES[lib][0], params, key, time_limit=time_limit, grace=60.0)


def summarise(recs: list[dict]) -> dict:
    """What the tables show of one library's repeats on one (data set, depth)."""
    ok = [r for r in recs if r.get("status") == "ok" and r.get("seconds") is not None]

    def median(key):
        values = [r[key] for r in ok if r.get(key) is not None]
        return statistics.median(values) if values else None

    deltas = [r["peak_rss_mb"] - r["rss_before_fit_mb"] for r in ok
              if r.get("peak_rss_mb") is not None and r.get("rss_before_fit_mb") is not None]
    return dict(
        runs=len(recs), ok=len(ok),
        killed=sum(r.get("status") == "killed" for r in recs),
        failed=sum(r.get("status") in ("failed", "crashed") for r in recs),
        errors=sorted({r["error"] for r in ok if r.get("error") is not None}),
        proven=bool(ok) and len(ok) == len(recs) and all(r.get("optimal") is True for r in ok),
        limited=any(r.get("timed_out") or r.get("status") == "killed" for r in recs),
        median_s=median("seconds"), median_cpu_s=median("cpu_seconds"), median_mb=median("peak_rss_mb"),
        peak_mb=max((r["peak_rss_mb"] for r in ok if r.get("peak_rss_mb") is not None), default=None),
        delta_mb=max(deltas) if deltas else None,
        pred_mismatch=any(r.get("error_predict") is not None and r["error_predict"] != r.get("error")
                          for r in ok),
        messages=sorted({r.get("message", "") for r in recs if r.get("status") != "ok"}))


def agree(a: dict, b: dict) -> str:
    """✓ / ✗ / n/a / err for the training errors of two libraries' summaries."""
    if not a["errors"] or not b["errors"]:
        return "err" if (a["failed"] or b["failed"]) else "n/a"
    if a["proven"] and b["proven"]:
        return "✓" if a["errors"] == b["errors"] and len(a["errors"]) == 1 else "✗"
    # a proven optimum must be <= anything the other side found, proven or not
    if a["proven"] and min(b["errors"]) < max(a["errors"]):
        return "✗"
    if b["proven"] and min(a["errors"]) < max(b["errors"]):
        return "✗"
    return "n/a"


def agree_all(summaries) -> str:
    """The agree mark of several libraries: ✗ BUG when any pair contradicts."""
    verdicts = {agree(a, b) for a, b in combinations(list(summaries), 2)}
    return "✗ BUG" if "✗" in verdicts else ("✓" if verdicts == {"✓"} else "n/a")


def ratio(a: dict, b: dict, key: str = "median_s") -> float | None:
    return a[key] / b[key] if a[key] is not None and b[key] else None


def fmt_err(s: dict) -> str:
    if not s["errors"]:
        return "killed" if s["killed"] else ("failed" if s["failed"] else "–")
    e = s["errors"]
    text = str(e[0]) if len(e) == 1 else f"{e[0]}–{e[-1]}"
    return text if s["proven"] else text + "†"


def fmt_s(s: dict, key: str = "median_s") -> str:
    x = s[key]
    if x is None:
        return "–"
    text = f"{x:.2g}" if x < 0.01 else (f"{x:.3f}" if x < 10 else f"{x:.1f}")
    return text + ("†" if s["limited"] else "")


def fmt_mb(x) -> str:
    return "–" if x is None else f"{x:.0f}"


def fmt_ratio(x) -> str:
    return "–" if x is None else (f"{x:.2f}" if x >= 0.1 else f"{x:.2g}")


def fmt_gm(x) -> str:
    return "–" if x is None else f"{x:.3f}"


def side_notes(where: str, s: dict) -> list[str]:
    """Failures, predict() mismatches and multi-threaded fits of one summary."""
    notes = [f"{where}: {m}" for m in s["messages"]]
    if s["pred_mismatch"]:
        notes.append(f"{where}: train_error_ differs from the errors of predict(X)")
    if s["median_cpu_s"] and s["median_s"] and s["median_s"] > 0.05 and s["median_cpu_s"] > 1.3 * s["median_s"]:
        notes.append(f"{where}: CPU time {s['median_cpu_s']:.2f} s > wall {s['median_s']:.2f} s "
                     "(used more than one thread)")
    return notes


def progress_line(records: list[dict], args) -> list[str]:
    planned = getattr(args, "planned", None)
    if planned and len(records) < planned:
        return [f"**Partial report: {len(records)} of {planned} fits so far.**", ""]
    return []


# ------------------------------------------------------------------ the suite

def _sides(args) -> dict[str, str]:
    return {"ours": args.peer if args.dry_run else OURS, "peer": args.peer}


def _limit(args, depth: int) -> float | None:
    return args.time_limit if depth >= args.limit_from_depth else None


def plan(args, out_dir: Path) -> list[Job]:
    files = data_files(args)
    sides = _sides(args)
    args.skipped = missing_libraries(sorted(set(sides.values())))
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
                    jobs.append(fit_job(lib, path, depth, limit, key, jobs=args.jobs,
                                        kill_after=args.no_limit_timeout))
    args.planned = len(jobs)
    return jobs


def report(records: list[dict], args, out_dir: Path) -> str:
    sides = _sides(args)
    skipped = getattr(args, "skipped", [])
    lines = [f"# optimaltrees vs {args.peer} — training-set runtime", ""]
    if args.dry_run:
        lines += [f"**DRY RUN: both sides are {args.peer}** (harness self-test, not a result).", ""]
    lines += progress_line(records, args)
    lines += [machine_block(args), "", libraries_note(sorted(set(sides.values())), skipped), "",
              f"Repeats per (data set, depth, library): {args.repeats}, order alternated (ours first on odd "
              "repeats, peer first on even), one fit at a time, each in a fresh process. Times are wall-clock "
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
        rows, ratios, proven_ratios, cpu_ratios, worst, dots = [], [], [], [], None, []
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
            rows.append([name, *size, fmt_err(o), peer_err, agree(o, p), fmt_s(o), fmt_s(p),
                         "–" if rt is None else fmt_ratio(rt) + ("†" if o["limited"] or p["limited"] else ""),
                         fmt_mb(o["peak_mb"]), fmt_mb(p["peak_mb"]), fmt_mb(o["delta_mb"]), fmt_mb(p["delta_mb"]),
                         fmt_ratio(crt)])
            notes += side_notes(f"depth {depth}, {name}, ours", o) + side_notes(f"depth {depth}, {name}, peer", p)
        lines += [markdown_table(["dataset", "n", "p", "our error", "peer error", "errors agree", "our median s",
                                  "peer median s", "ratio ours/peer", "our peak MB", "peer peak MB", "our ΔMB",
                                  "peer ΔMB", "CPU ratio"], rows), ""]
        gm, gm_proven = geo_mean(ratios), geo_mean(proven_ratios)
        lines.append(f"**Depth {depth}: geometric-mean ratio (ours/peer) = {fmt_gm(gm)}** over {len(ratios)} "
                     f"data sets; max ratio = {'–' if worst is None else f'{fmt_ratio(worst[1])} ({worst[0]})'}"
                     + (f"; over the {len(proven_ratios)} where both proved optimality: {gm_proven:.3f}"
                        if gm_proven is not None and len(proven_ratios) != len(ratios) else "") + ".")
        picture = time_scatter(out_dir / f"{Path(args.out or 'contree.md').stem}-d{depth}.png", dots,
                               ours="optimaltrees", peer=args.peer, title=f"depth {depth}: fit seconds")
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
