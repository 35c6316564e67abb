#!/usr/bin/env python3
"""Benchmark optimaltrees against the peer pycontree (ConTree) on the continuous suite.

Every fit is a fresh subprocess running ``fit_one.py`` (ours with this
interpreter or --ours-python, the peer with --peer-python / $PEER_PYTHON /
/tmp/peervenv/bin/python). For each (dataset, depth) both libraries are run
``--repeats`` times, alternating which goes first. Results: a markdown report
(``--out``) and the raw JSON lines beside it (same name, ``.jsonl``).

    python3 benchmarks/bench_contree.py --depths 2 3 --repeats 3 \
        --datasets bank raisin wilt occupancy segment page bidding

See benchmarks/README.md for the targets and how to read the table.
"""
from __future__ import annotations

import argparse
import datetime as _dt
import json
import math
import os
import platform
import shlex
import signal
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
WORKER = os.path.join(HERE, "fit_one.py")
DEFAULT_DATA_DIR = os.path.normpath(os.path.join(REPO, "..", "shared", "datasets", "continuous", "train"))
ALL_DATASETS = ["bank", "bean", "bidding", "fault", "magic", "occupancy",
                "page", "raisin", "rice", "segment", "wilt"]
DEFAULT_PEER_PYTHON = "/tmp/peervenv/bin/python"
OURS, PEER = "ours", "peer"


def log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


# --------------------------------------------------------------------------- running

def data_shape(path):
    """(n, p) of a label-first, space-separated file, without numpy."""
    n, p = 0, None
    with open(path) as f:
        for line in f:
            if line.strip():
                n += 1
                if p is None:
                    p = len(line.split()) - 1
    return n, p


def _default_peer_python():
    """This interpreter when ``pip install .[bench]`` put pycontree beside us."""
    import importlib.util

    return sys.executable if importlib.util.find_spec("pycontree") else DEFAULT_PEER_PYTHON


def run_one(python, lib, data, depth, time_limit, wall_timeout, jobs=1, extra=()):
    """Run one fit in a fresh process. Never raises; always returns a record.
    ``extra``: further worker arguments (e.g. ``--search blossom``)."""
    cmd = [python, WORKER, "--lib", lib, "--data", data, "--depth", str(depth), *extra]
    if lib == "optimaltrees":
        cmd += ["--jobs", str(jobs)]
    if time_limit is not None:
        cmd += ["--time-limit", repr(float(time_limit))]
    dataset = os.path.splitext(os.path.basename(data))[0]
    base = dict(lib=lib, dataset=dataset, depth=depth, time_limit=time_limit)
    t0 = time.perf_counter()
    try:
        # Own session so that a timeout kills the worker and anything it spawned.
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True, start_new_session=True, cwd=HERE)
    except OSError as exc:
        return dict(base, status="failed", message=f"cannot start {python}: {exc}")
    try:
        out, err = proc.communicate(timeout=wall_timeout)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        out, err = proc.communicate()
        return dict(base, status="killed", timed_out=True, optimal=False, error=None,
                    seconds=None, wall_process_s=round(time.perf_counter() - t0, 3),
                    message=f"worker killed after the {wall_timeout:g} s wall-clock timeout")
    wall = round(time.perf_counter() - t0, 3)
    rec = None
    for line in reversed(out.splitlines()):
        line = line.strip()
        if line.startswith("{"):
            try:
                rec = json.loads(line)
                break
            except ValueError:
                continue
    if rec is None:
        tail = " | ".join(err.strip().splitlines()[-3:])
        return dict(base, status="failed", wall_process_s=wall,
                    message=f"rc={proc.returncode}, no JSON output; stderr: {tail}")
    rec["wall_process_s"] = wall
    if proc.returncode != 0 and rec.get("status") == "ok":
        rec["status"] = "failed"
        rec["message"] = f"rc={proc.returncode}"
    return rec


# --------------------------------------------------------------------------- summarising

def _ok(recs):
    return [r for r in recs if r.get("status") == "ok" and r.get("seconds") is not None]


def side_summary(recs):
    ok = _ok(recs)
    s = dict(runs=len(recs), ok=len(ok))
    s["killed"] = sum(r.get("status") == "killed" for r in recs)
    s["failed"] = sum(r.get("status") == "failed" for r in recs)
    s["errors"] = sorted({r["error"] for r in ok if r.get("error") is not None})
    s["proven"] = bool(ok) and all(r.get("optimal") is True for r in ok) and len(ok) == len(recs)
    s["limited"] = any(r.get("timed_out") for r in recs)
    s["median_s"] = statistics.median([r["seconds"] for r in ok]) if ok else None
    s["peak_mb"] = max((r["peak_rss_mb"] for r in ok if r.get("peak_rss_mb") is not None), default=None)
    deltas = [r["peak_rss_mb"] - r["rss_before_fit_mb"] for r in ok
              if r.get("peak_rss_mb") is not None and r.get("rss_before_fit_mb") is not None]
    s["delta_mb"] = max(deltas) if deltas else None
    cpu = [r["cpu_seconds"] for r in ok if r.get("cpu_seconds") is not None]
    s["median_cpu_s"] = statistics.median(cpu) if cpu else None
    s["pred_mismatch"] = any(r.get("error_predict") is not None and r.get("error") is not None
                             and r["error_predict"] != r["error"] for r in ok)
    s["messages"] = sorted({r.get("message", "") for r in recs if r.get("status") != "ok"})
    return s


def agree(o, p):
    """✓ / ✗ / n/a / err for the training errors of the two sides."""
    if not o["errors"] or not p["errors"]:
        return "err" if (o["failed"] or p["failed"]) else "n/a"
    if o["proven"] and p["proven"]:
        return "✓" if o["errors"] == p["errors"] and len(o["errors"]) == 1 else "✗"
    # A proven optimum must be <= anything the other side found, proven or not.
    if o["proven"] and min(p["errors"]) < max(o["errors"]):
        return "✗"
    if p["proven"] and min(o["errors"]) < max(p["errors"]):
        return "✗"
    return "n/a"  # at least one side stopped without a proof


def fmt_err(s):
    if not s["errors"]:
        return "killed" if s["killed"] else ("failed" if s["failed"] else "–")
    e = s["errors"]
    txt = str(e[0]) if len(e) == 1 else f"{e[0]}–{e[-1]}"
    return txt if s["proven"] else txt + "†"


def fmt_s(x, s=None):
    if x is None:
        return "–"
    txt = f"{x:.2g}" if x < 0.01 else (f"{x:.3f}" if x < 10 else f"{x:.1f}")
    return txt + ("†" if s is not None and s["limited"] else "")


def fmt_mb(x):
    return "–" if x is None else f"{x:.0f}"


def fmt_ratio(x):
    return "–" if x is None else (f"{x:.2f}" if x >= 0.1 else f"{x:.2g}")


def geomean(xs):
    xs = [x for x in xs if x is not None and x > 0]
    return math.exp(sum(map(math.log, xs)) / len(xs)) if xs else None


# --------------------------------------------------------------------------- machine info

def _cmd(args):
    try:
        return subprocess.run(args, capture_output=True, text=True, timeout=30).stdout.strip()
    except Exception:
        return ""


def machine_info(ours_python, peer_python, ours_lib, peer_lib):
    cpu = "unknown"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    ver = "import importlib.metadata as m, sys; print(m.version(sys.argv[1]))"
    info = {
        "date": _dt.datetime.now().astimezone().isoformat(timespec="seconds"),
        "host": platform.node(),
        "nproc": _cmd(["nproc"]) or str(os.cpu_count()),
        "cpu": cpu,
        "kernel": platform.release(),
        "loadavg_start": " ".join(f"{x:.2f}" for x in os.getloadavg()),
        "ours": f"{ours_lib} {_cmd([ours_python, '-c', ver, ours_lib]) or '?'} "
                f"({ours_python}, Python {_cmd([ours_python, '-c', 'import platform; print(platform.python_version())'])})",
        "peer": f"{peer_lib} {_cmd([peer_python, '-c', ver, peer_lib]) or '?'} "
                f"({peer_python}, Python {_cmd([peer_python, '-c', 'import platform; print(platform.python_version())'])})",
        "git": _cmd(["git", "-C", REPO, "rev-parse", "--short", "HEAD"]) or "no commit",
    }
    dirty = _cmd(["git", "-C", REPO, "status", "--porcelain"])
    if dirty:
        info["git"] += " (working tree has uncommitted changes)"
    return info


# --------------------------------------------------------------------------- report

def write_report(path, records, args, info, cmdline, done=True):
    lines = ["# optimaltrees vs pycontree (ConTree) — training-set runtime", ""]
    if args.dry_run:
        lines += ["**DRY RUN: both sides are pycontree** (harness self-test, not a result).", ""]
    if not done:
        lines += ["**Partial report (run still in progress or interrupted).**", ""]
    lines += [f"Command: `{cmdline}`", ""]
    lines += ["| machine | |", "|---|---|"]
    for k in ("date", "host", "nproc", "cpu", "kernel", "loadavg_start", "loadavg_end", "ours", "peer", "git"):
        if k in info:
            lines.append(f"| {k} | {info[k]} |")
    lines += ["", f"Repeats per (dataset, depth, library): {args.repeats}, order alternated "
              "(ours first on odd repeats, peer first on even). Each fit is a fresh process. "
              "Times are wall-clock seconds of `fit()` only; peak MB is the worker's peak RSS "
              "(includes interpreter + imports + data; ΔMB = peak minus the peak just before `fit()`).", ""]
    notes = []
    for depth in args.depths:
        tl = time_limit_for(args, depth)
        recs = [r for r in records if r.get("depth") == depth]
        if not recs:
            continue
        lines += [f"## Depth {depth}" + (f" (time limit {tl:g} s)" if tl is not None else " (no time limit)"), ""]
        lines += ["| dataset | n | p | our error | peer error | errors agree | our median s | "
                  "peer median s | ratio ours/peer | our peak MB | peer peak MB | our ΔMB | peer ΔMB | CPU ratio |",
                  "|---|---:|---:|---:|---:|:---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
        ratios, ratios_proven, cpu_ratios, worst = [], [], [], None
        for ds in args.datasets:
            o_recs = [r for r in recs if r.get("dataset") == ds and r.get("side") == OURS]
            p_recs = [r for r in recs if r.get("dataset") == ds and r.get("side") == PEER]
            if not o_recs and not p_recs:
                continue
            o, p = side_summary(o_recs), side_summary(p_recs)
            n = next((r["n"] for r in o_recs + p_recs if r.get("n") is not None), None)
            pp = next((r["p"] for r in o_recs + p_recs if r.get("p") is not None), None)
            ratio = (o["median_s"] / p["median_s"]
                     if o["median_s"] is not None and p["median_s"] else None)
            if ratio is not None:
                ratios.append(ratio)
                if o["proven"] and p["proven"]:
                    ratios_proven.append(ratio)
                if worst is None or ratio > worst[1]:
                    worst = (ds, ratio)
            cratio = (o["median_cpu_s"] / p["median_cpu_s"]
                      if o["median_cpu_s"] is not None and p["median_cpu_s"] else None)
            if cratio is not None:
                cpu_ratios.append(cratio)
            rtxt = "–" if ratio is None else fmt_ratio(ratio) + ("†" if (o["limited"] or p["limited"]) else "")
            lines.append(f"| {ds} | {n or '–'} | {pp or '–'} | {fmt_err(o)} | {fmt_err(p)} | {agree(o, p)} | "
                         f"{fmt_s(o['median_s'], o)} | {fmt_s(p['median_s'], p)} | {rtxt} | "
                         f"{fmt_mb(o['peak_mb'])} | {fmt_mb(p['peak_mb'])} | "
                         f"{fmt_mb(o['delta_mb'])} | {fmt_mb(p['delta_mb'])} | "
                         f"{fmt_ratio(cratio)} |")
            for side, s in ((OURS, o), (PEER, p)):
                for m in s["messages"]:
                    notes.append(f"depth {depth}, {ds}, {side}: {m}")
                if s["pred_mismatch"]:
                    notes.append(f"depth {depth}, {ds}, {side}: train_error_ differs from errors of predict(X)")
                if s["median_cpu_s"] and s["median_s"] and s["median_cpu_s"] > 1.3 * s["median_s"] and s["median_s"] > 0.05:
                    notes.append(f"depth {depth}, {ds}, {side}: CPU time {s['median_cpu_s']:.2f} s > wall "
                                 f"{s['median_s']:.2f} s (used more than one thread)")
        gm, gmp = geomean(ratios), geomean(ratios_proven)
        lines.append("")
        lines.append(f"**Depth {depth}: geometric-mean ratio (ours/peer) = "
                     f"{'–' if gm is None else f'{gm:.3f}'}** over {len(ratios)} data sets; "
                     f"max ratio = {'–' if worst is None else f'{fmt_ratio(worst[1])} ({worst[0]})'}"
                     + (f"; over the {len(ratios_proven)} where both proved optimality: {gmp:.3f}"
                        if gmp is not None and len(ratios_proven) != len(ratios) else "") + ".")
        gmc = geomean(cpu_ratios)
        if gmc is not None:
            lines.append("")
            lines.append(f"Depth {depth}: geometric-mean CPU-time ratio = {gmc:.3f} (less sensitive to a "
                         "loaded machine than wall time; penalises multi-threaded fits).")
        lines.append("")
    lines += ["Legend: † = not proven optimal / stopped at the time limit (error is an upper bound, "
              "time ≈ the limit); ranges a–b = repeats disagreed; errors agree: ✓ both proven and equal, "
              "✗ different optima or a proven optimum beaten by the other side, n/a = a side stopped "
              "without a proof, err = a side failed. killed = worker exceeded the wall-clock timeout.", ""]
    if notes:
        lines += ["### Notes", ""] + [f"- {x}" for x in notes] + [""]
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write("\n".join(lines))
    os.replace(tmp, path)


# --------------------------------------------------------------------------- main

def time_limit_for(args, depth):
    return args.time_limit if depth >= args.limit_from_depth else None


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--depths", type=int, nargs="+", default=[2, 3, 4])
    ap.add_argument("--datasets", nargs="+", default=ALL_DATASETS)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--time-limit", type=float, default=60.0,
                    help="time limit (s) given to BOTH libraries at depths >= --limit-from-depth (default 60)")
    ap.add_argument("--limit-from-depth", type=int, default=4,
                    help="apply --time-limit at this depth and deeper; shallower runs have no limit (default 4)")
    ap.add_argument("--no-limit-timeout", type=float, default=3600.0,
                    help="wall-clock kill timeout (s) for runs WITHOUT a time limit (default 3600); "
                         "runs with a limit are killed at limit + 60 s")
    ap.add_argument("--data-dir", default=DEFAULT_DATA_DIR)
    ap.add_argument("--out", default=None,
                    help="markdown report (default benchmarks/results/contree.md, or contree-dryrun.md "
                         "with --dry-run); raw JSON lines go to the same name with .jsonl")
    ap.add_argument("--ours-python", default=sys.executable)
    ap.add_argument("--peer-python", default=os.environ.get("PEER_PYTHON", _default_peer_python()),
                    help="interpreter with pycontree (default: this one if it has pycontree, "
                         "else $PEER_PYTHON or /tmp/peervenv/bin/python)")
    ap.add_argument("--ours-jobs", type=int, default=1,
                    help="n_jobs for optimaltrees (default 1: single-threaded like the peer)")
    ap.add_argument("--dry-run", action="store_true",
                    help="harness self-test: run pycontree (peer interpreter) on BOTH sides")
    args = ap.parse_args(argv)

    ours_lib, ours_py = ("pycontree", args.peer_python) if args.dry_run else ("optimaltrees", args.ours_python)
    peer_lib, peer_py = "pycontree", args.peer_python
    for ds in args.datasets:
        if not os.path.exists(os.path.join(args.data_dir, ds + ".txt")):
            ap.error(f"no data file {os.path.join(args.data_dir, ds + '.txt')}")
    if not args.dry_run:
        chk = subprocess.run([ours_py, "-c", "import optimaltrees"], capture_output=True, text=True, cwd="/")
        if chk.returncode != 0:
            log(f"WARNING: `import optimaltrees` fails with {ours_py}; our runs will be recorded as failed "
                f"({chk.stderr.strip().splitlines()[-1] if chk.stderr.strip() else ''}). Use --dry-run for a self-test.")

    out_md = args.out or os.path.join(HERE, "results", "contree-dryrun.md" if args.dry_run else "contree.md")
    os.makedirs(os.path.dirname(os.path.abspath(out_md)), exist_ok=True)
    out_jsonl = os.path.splitext(out_md)[0] + ".jsonl"
    cmdline = " ".join(shlex.quote(a) for a in [os.path.basename(sys.executable)] + sys.argv)
    info = machine_info(ours_py, peer_py, ours_lib, peer_lib)
    log(f"machine: {info['nproc']} cpus, {info['cpu']}, load {info['loadavg_start']}")
    log(f"ours = {info['ours']}; peer = {info['peer']}")

    records = []
    sides = {OURS: (ours_py, ours_lib), PEER: (peer_py, peer_lib)}
    total = len(args.depths) * len(args.datasets) * args.repeats * 2
    k = 0
    t_start = time.time()
    with open(out_jsonl, "w") as jf:
        jf.write(json.dumps(dict(kind="meta", command=cmdline, **info)) + "\n")
        try:
            for depth in args.depths:
                tl = time_limit_for(args, depth)
                wall_timeout = tl + 60.0 if tl is not None else args.no_limit_timeout
                for ds in args.datasets:
                    data = os.path.join(args.data_dir, ds + ".txt")
                    n, p = data_shape(data)
                    for rep in range(args.repeats):
                        order = (OURS, PEER) if rep % 2 == 0 else (PEER, OURS)
                        for pos, side in enumerate(order):
                            k += 1
                            py, lib = sides[side]
                            rec = run_one(py, lib, data, depth, tl, wall_timeout, args.ours_jobs)
                            rec.setdefault("n", n)
                            rec.setdefault("p", p)
                            rec.update(kind="fit", side=side, repeat=rep + 1, order=pos + 1)
                            records.append(rec)
                            jf.write(json.dumps(rec) + "\n")
                            jf.flush()
                            err = rec.get("error")
                            sec = rec.get("seconds")
                            log(f"[{k}/{total}] depth {depth} {ds:<10} rep {rep + 1} {side:<4} ({lib}): "
                                + (f"error {err}, {sec:.3f} s, {rec.get('peak_rss_mb')} MB, optimal={rec.get('optimal')}"
                                   if rec.get("status") == "ok" else f"{rec.get('status').upper()}: {rec.get('message')}"))
                    write_report(out_md, records, args, info, cmdline, done=False)
        except KeyboardInterrupt:
            log("interrupted; writing a partial report")
            info["loadavg_end"] = " ".join(f"{x:.2f}" for x in os.getloadavg())
            write_report(out_md, records, args, info, cmdline, done=False)
            return 130
    info["loadavg_end"] = " ".join(f"{x:.2f}" for x in os.getloadavg())
    write_report(out_md, records, args, info, cmdline, done=True)
    log(f"done in {time.time() - t_start:.0f} s; wrote {out_md} and {out_jsonl}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
