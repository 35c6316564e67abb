"""Suite ``regression``: exact least-squares trees against pystreed (STreeD) and CART.

Three comparisons of OptimalTreeRegressor (cost 0, leaves of one row allowed),
each fit in its own process, the order alternating between repeats (ours
first on odd repeats, the other library first on even ones):

* **the same 0/1 features**: every numeric feature becomes ``x <= q`` for the
  distinct quantiles q (values of the feature) of levels 1/(k+1), ...,
  k/(k+1) (``--thresholds`` k), and optimaltrees and STreeD's depth-limited
  squared-error task fit that very matrix (all rows).  Both solve the same problem exactly, so when both
  prove optimality their training SSE must agree (within 1e-9 of the total
  sum of squares); a difference is a correctness failure and the report says
  so.  Times, peak memory and the ratio ours/pystreed, with geometric means
  per depth.
* **raw numeric features**: optimaltrees (every threshold, ``--time-limit``)
  against scikit-learn's greedy CART of the same depth, fitted on the
  training part of a fixed 70/30 split: training SSE (a proven optimum is
  never above CART's), held-out R^2, seconds, proven or not.
* **scale**: the project's target for regression, a proven depth-two tree on
  100,000 rows x 10 numeric features within 30 s (:data:`TARGET_SECONDS`), measured
  on a synthetic table made from a seed
  (:func:`optimaltrees.bench.data.synthetic_regression`, every value
  distinct: the exact search's worst case), against CART of the same depth
  on all rows: seconds, proven or not, training SSE, peak memory.

The data of the first two: scikit-learn's diabetes, and numeric sets of at
most 5,000 rows regressed on one of their feature columns (:data:`TARGETS`),
the class label becoming a feature.
"""
from __future__ import annotations

import argparse
import statistics
from pathlib import Path

from optimaltrees.bench.common import (OURS, agree, fmt_gm, fmt_mb, fmt_ratio, fmt_s, progress_line, ratio,
                                       side_notes, summarise)
from optimaltrees.bench.data import SKLEARN_REGRESSION, SYNTHETIC_REGRESSION, SYNTHETIC_USED, synthetic_name
from optimaltrees.bench.fits import libraries_note, missing_libraries
from optimaltrees.bench.report import geo_mean, machine_block, markdown_table, time_scatter
from optimaltrees.bench.runner import Job

NAME = "regression"
WORKERS = 1      # timings: fits must not compete for the 2 cores
#: two training SSEs agree when they differ by at most this share of the
#: total sum of squares (the engine's own tolerance)
TOLERANCE = 1e-9

#: The regression targets.  data set -> (feature column regressed on, its
#: name in the UCI attribute order, why).  Columns count the file's features
#: from 0 (the label, first in the file, is not counted: it becomes the last
#: feature).  The rule: the last feature, unless a linear fit on the other
#: columns explains nearly all of it (R^2 > 0.99), as raisin's Perimeter
#: (0.995 from Area and ConvexArea): such a target copies another column,
#: and its tree only measures that copy.  Then the last column below the
#: cut.  bidding (5,056 rows) is over the 5,000-row size of the suite.
TARGETS: dict[str, tuple[int | None, str, str]] = {
    "diabetes": (None, "disease progression", "scikit-learn's own target (one year after baseline)"),
    "bank": (3, "entropy", "the last feature; linear R² 0.46 on the others"),
    "raisin": (5, "Extent", "Perimeter, the last feature, is near-linear in Area and ConvexArea "
                            "(linear R² 0.995); Extent 0.35"),
    "rice": (6, "Extent", "the last feature; linear R² 0.12 on the others"),
    "wilt": (4, "SD_pan", "the last feature; linear R² 0.08 on the others"),
    "page": (9, "wb_trans", "the last feature; linear R² 0.89 on the others"),
    "segment": (17, "hue-mean", "the last feature; linear R² 0.89 on the others"),
}
DATASETS = list(TARGETS)
PARTS = ("binary", "raw", "scale")
PEER = {"binary": "pystreed", "raw": "cart", "scale": "cart"}
#: the project's target: a proven depth-two tree on 100,000 rows x 10
#: features within this many seconds; the scale part reports each fit against it
TARGET_SECONDS = 30.0
#: the scale part's table in the records (its size is in each record)
SYNTHETIC = "synthetic"
LEGEND = ("Legend: † = not proven optimal / stopped at the time limit (the SSE is an upper bound, the time "
          "about the limit); a–b = repeats differed; SSE agree: ✓ both proven and equal within "
          f"{TOLERANCE:g}·SST, ✗ BUG = two proven optima differ or a proven optimum is beaten by the other "
          "library's tree (a correctness failure, it outranks any speed result), n/a = a side did not prove; "
          "ours ≤ CART: ✓ at most CART's SSE, ✗ BUG = a proven optimum above CART's, above† = an unproven tree "
          "above CART's; killed/failed = no result.")


def add_arguments(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--data-dir", default="../shared/datasets/continuous/train",
                    help="folder of NAME.txt files (label in the first column); diabetes comes with scikit-learn")
    ap.add_argument("--datasets", nargs="+", default=DATASETS, choices=DATASETS, metavar="NAME",
                    help=f"data sets among {', '.join(DATASETS)} (default: all)")
    # scale is in the default: its fits (seconds each) are a small share of the other parts' (minutes)
    ap.add_argument("--parts", nargs="+", default=list(PARTS), choices=PARTS,
                    help="binary: the same 0/1 features against pystreed; raw: numeric features against CART; "
                         "scale: a synthetic table of --scale-rows x --scale-features against CART "
                         "(default: all three)")
    ap.add_argument("--thresholds", type=int, default=8,
                    help="k: each numeric feature becomes x <= q for its distinct quantiles of levels "
                         "1/(k+1)..k/(k+1) in the binary part (default 8)")
    ap.add_argument("--binary-depths", type=int, nargs="+", default=[3, 4],
                    help="depths of the binary part (default: 3 4)")
    ap.add_argument("--raw-depths", type=int, nargs="+", default=[2, 3, 4],
                    help="depths of the raw part (default: 2 3 4)")
    ap.add_argument("--repeats", type=int, default=3, help="fits per (part, data set, depth, library) (default 3)")
    ap.add_argument("--binary-time-limit", type=float, default=300.0,
                    help="seconds for both libraries in the binary part (default 300; a fit is killed at "
                         "limit + 60 s)")
    ap.add_argument("--time-limit", type=float, default=60.0,
                    help="seconds for optimaltrees in the raw part (default 60)")
    ap.add_argument("--test-share", type=float, default=0.3,
                    help="held-out share of the raw part's fixed split (default 0.3)")
    ap.add_argument("--seed", type=int, default=0, help="seed of that split (default 0)")
    ap.add_argument("--scale-rows", type=int, default=100_000,
                    help="rows of the scale part's synthetic table (default 100000)")
    ap.add_argument("--scale-features", type=int, default=10,
                    help="numeric features of that table, at least 3 (default 10)")
    ap.add_argument("--scale-seed", type=int, default=0, help="seed of that table (default 0)")
    ap.add_argument("--scale-depths", type=int, nargs="+", default=[2],
                    help="depths of the scale part (default: 2)")
    ap.add_argument("--scale-time-limit", type=float, default=60.0,
                    help=f"seconds for optimaltrees in the scale part (default 60; the target is "
                         f"{TARGET_SECONDS:g} s, reported per fit)")


# ------------------------------------------------------------------ the plan

def _data(args, name: str) -> str:
    """What :func:`optimaltrees.bench.fits.regression` reads for ``name``."""
    if name in SKLEARN_REGRESSION:
        return f"sklearn:{name}"
    path = Path(args.data_dir) / f"{name}.txt"
    if not path.is_file():
        raise FileNotFoundError(f"no data file {path}")
    return str(path)


def _depths(args, part: str) -> list[int]:
    return list({"binary": args.binary_depths, "raw": args.raw_depths, "scale": args.scale_depths}[part])


def _limit(args, part: str) -> float:
    return {"binary": args.binary_time_limit, "raw": args.time_limit, "scale": args.scale_time_limit}[part]


def _tables(args, part: str) -> dict[str, str]:
    """Name -> data of a part's tables; files are looked for only when a part reads them."""
    if part == "scale":
        # refused here, not in every worker: the target reads x0, x1 and x2
        if args.scale_rows < 2 or args.scale_features < SYNTHETIC_USED:
            raise ValueError(f"--scale-rows must be at least 2 and --scale-features at least {SYNTHETIC_USED}, "
                             f"got {args.scale_rows} and {args.scale_features}")
        return {SYNTHETIC: synthetic_name(args.scale_rows, args.scale_features, args.scale_seed)}
    return {name: _data(args, name) for name in args.datasets}


def plan(args, out_dir: Path) -> list[Job]:
    files = {part: _tables(args, part) for part in args.parts}
    args.skipped = missing_libraries(sorted({OURS} | {PEER[p] for p in args.parts}))
    jobs = []
    for part in args.parts:
        limit = _limit(args, part)
        for depth in _depths(args, part):
            for name, data in files[part].items():
                for rep in range(args.repeats):
                    order = ("ours", "peer") if rep % 2 == 0 else ("peer", "ours")
                    for pos, side in enumerate(order):
                        lib = OURS if side == "ours" else PEER[part]
                        if lib in args.skipped:
                            continue
                        target = TARGETS[name][0] if name in TARGETS else None    # the synthetic table: its y
                        params = dict(lib=lib, data=data, depth=depth, target=target)
                        if part == "binary":
                            params.update(thresholds=args.thresholds, time_limit=limit)
                        elif part == "raw":
                            params.update(test_share=args.test_share, seed=args.seed,
                                          time_limit=limit if lib == OURS else None)
                        else:   # scale: all rows, no held-out part (the target is about fitting)
                            params.update(time_limit=limit if lib == OURS else None)
                        key = dict(part=part, dataset=name, depth=depth, side=side, lib=lib, repeat=rep + 1,
                                   order=pos + 1)
                        if part == "scale":     # a resumed run never mixes two tables
                            key["table"] = data
                        # CART needs no limit of its own: the runner's is only a safety net
                        jobs.append(Job("regression", params, key, time_limit=limit, grace=60.0))
    args.planned = len(jobs)
    return jobs


# ------------------------------------------------------------------ the report

def _summaries(records: list[dict], part: str, depth: int, name: str) -> tuple[dict, dict, list[dict]]:
    recs = [r for r in records if r.get("part") == part and r.get("depth") == depth and r.get("dataset") == name]
    return (summarise([r for r in recs if r.get("side") == "ours"]),
            summarise([r for r in recs if r.get("side") == "peer"]), recs)


def _first(recs: list[dict], key: str):
    return next((r[key] for r in recs if r.get(key) is not None), None)


def _tol(recs: list[dict]) -> float:
    sst = _first(recs, "sst")
    return TOLERANCE * sst if sst else 0.0


def fmt_sse(s: dict, exact: bool = True) -> str:
    """The training SSE of a summary (a range when repeats differ); an exact
    library's is marked † when not proven (``exact=False``: a greedy one's never is)."""
    if not s["errors"]:
        return "killed" if s["killed"] else ("failed" if s["failed"] else "–")
    e = s["errors"]
    text = f"{e[0]:.6g}" if len(e) == 1 or e[-1] - e[0] <= 1e-12 * abs(e[-1]) else f"{e[0]:.6g}–{e[-1]:.6g}"
    return text if s["proven"] or not exact else text + "†"


def progress(rec: dict, done: int, total: int, args) -> str:
    """The line printed as each fit ends."""
    seconds = rec.get("seconds")
    return (f"[{done}/{total}] {rec.get('part')} depth {rec.get('depth')} {rec.get('dataset')} {rec.get('lib')} "
            f"repeat {rec.get('repeat')}: {rec.get('status')}"
            + ("" if seconds is None else f" {seconds:.3f} s" + ("" if rec.get("optimal") or rec.get("lib") == "cart"
                                                                else " (not proven)")))


def not_above_cart(o: dict, c: dict, tol: float) -> str:
    """Is our tree's training SSE at most CART's?  ✗ BUG when a proven optimum is above it."""
    if not o["errors"] or not c["errors"]:
        return "err" if (o["failed"] or c["failed"]) else "n/a"
    above = max(o["errors"]) > min(c["errors"]) + tol
    if o["proven"]:
        return "✗ BUG" if above else "✓"
    return "above†" if above else "✓"


def _sse_notes(where: str, recs: list[dict], tol: float) -> list[str]:
    """A library whose own SSE figure differs from the SSE of its predictions."""
    bad = [r for r in recs if r.get("status") == "ok" and r.get("sse_reported") is not None
           and abs(r["sse_reported"] - r["error"]) > max(tol, 1e-12)]
    return [f"{where}, {r['lib']}: reported SSE {r['sse_reported']:.10g}, its predictions {r['error']:.10g}"
            for r in bad]


def _binary_section(records: list[dict], args, out_dir: Path):
    """(lines, summary lines, notes, picture points) of the 0/1-feature part."""
    lines, summary, notes, dots = [], [], [], []
    peer = PEER["binary"]
    for depth in args.binary_depths:
        if not any(r.get("part") == "binary" and r.get("depth") == depth for r in records):
            continue
        rows, ratios, proven_ratios, worst, same, both, bugs = [], [], [], None, 0, 0, []
        for name in args.datasets:
            o, p, recs = _summaries(records, "binary", depth, name)
            if not recs:
                continue
            tol = _tol(recs)
            mark = agree(o, p, tol)
            same += mark == "✓"
            both += o["proven"] and p["proven"]
            if mark == "✗":
                mark = "✗ BUG"
                bugs.append(name)
                notes.append(f"binary, depth {depth}, {name}: the training SSEs contradict a proof "
                             f"(ours {fmt_sse(o)}, {peer} {fmt_sse(p)}): a correctness failure")
            rt = ratio(o, p)
            if rt is not None:
                ratios.append(rt)
                if o["proven"] and p["proven"]:
                    proven_ratios.append(rt)
                if worst is None or rt > worst[1]:
                    worst = (name, rt)
            dots.append((f"{name} d{depth}", o.get("median_s"), p.get("median_s")))
            rows.append([name, _first(recs, "n") or "–", _first(recs, "features") or "–", _first(recs, "p") or "–",
                         fmt_sse(o), fmt_sse(p), mark, fmt_s(o), fmt_s(p),
                         "–" if rt is None else fmt_ratio(rt) + ("†" if o["limited"] or p["limited"] else ""),
                         fmt_mb(o["peak_mb"]), fmt_mb(p["peak_mb"]), fmt_mb(o["delta_mb"]), fmt_mb(p["delta_mb"])])
            notes += side_notes(f"binary, depth {depth}, {name}, ours", o)
            notes += side_notes(f"binary, depth {depth}, {name}, {peer}", p)
            notes += _sse_notes(f"binary, depth {depth}, {name}", recs, tol)
        head = ["dataset", "n", "features", "0/1 columns", "ours SSE", f"{peer} SSE", "SSE agree", "ours median s",
                f"{peer} median s", f"ratio ours/{peer}", "ours peak MB", f"{peer} peak MB", "ours ΔMB",
                f"{peer} ΔMB"]
        gm, gm_proven = geo_mean(ratios), geo_mean(proven_ratios)
        line = (f"depth {depth}: geometric-mean time ratio ours/{peer} = {fmt_gm(gm)} over {len(ratios)} data sets"
                + (f" ({fmt_gm(gm_proven)} over the {len(proven_ratios)} both proved)"
                   if len(proven_ratios) != len(ratios) else "")
                + f"; max = {'–' if worst is None else f'{fmt_ratio(worst[1])} ({worst[0]})'}; "
                + f"SSE agree on {same} of {both} sets both proved"
                + (f"; **DISAGREE on {', '.join(bugs)}**" if bugs else "; no disagreement"))
        summary.append(line)
        lines += [f"### Depth {depth} (time limit {args.binary_time_limit:g} s, both libraries)", "",
                  markdown_table(head, rows), "", f"**{line[0].upper() + line[1:]}.**", ""]
    return lines, summary, notes, dots


def _raw_section(records: list[dict], args):
    """(lines, summary lines, notes) of the raw-feature part."""
    lines, summary, notes = [], [], []
    for depth in args.raw_depths:
        if not any(r.get("part") == "raw" and r.get("depth") == depth for r in records):
            continue
        rows, sse_ratios, r2 = [], [], {"ours": [], "cart": []}
        proven = not_above = sets = 0
        bugs = []
        for name in args.datasets:
            o, c, recs = _summaries(records, "raw", depth, name)
            if not recs:
                continue
            sets += 1
            tol = _tol(recs)
            mark = not_above_cart(o, c, tol)
            proven += o["proven"]
            not_above += mark == "✓"
            if mark == "✗ BUG":
                bugs.append(name)
                notes.append(f"raw, depth {depth}, {name}: a proven optimum {fmt_sse(o)} above CART's "
                             f"{fmt_sse(c, exact=False)}: a correctness failure")
            sse_ratio = (max(o["errors"]) / min(c["errors"])) if o["errors"] and c["errors"] and min(c["errors"]) \
                else None
            if sse_ratio is not None:
                sse_ratios.append(sse_ratio)
            scores = {side: _median(recs, side, "test_r2") for side in ("ours", "peer")}
            if scores["ours"] is not None and scores["peer"] is not None:
                r2["ours"].append(scores["ours"])
                r2["cart"].append(scores["peer"])
            gap = _median(recs, "ours", "gap")
            rows.append([name, _first(recs, "n") or "–", _first(recs, "n_test") or "–", _first(recs, "p") or "–",
                         fmt_sse(o), fmt_sse(c, exact=False), mark, "–" if sse_ratio is None else f"{sse_ratio:.3f}",
                         _fmt_r2(scores["ours"]), _fmt_r2(scores["peer"]), fmt_s(o), fmt_s(c),
                         "yes" if o["proven"] else "no", _fmt_gap(gap)])
            notes += side_notes(f"raw, depth {depth}, {name}, ours", o) + side_notes(f"raw, depth {depth}, {name}, "
                                                                                   "cart", c)
            notes += _sse_notes(f"raw, depth {depth}, {name}", recs, tol)
        head = ["dataset", "train rows", "held-out rows", "features", "ours SSE", "CART SSE", "ours ≤ CART",
                "SSE ours/CART", "ours test R²", "CART test R²", "ours median s", "CART median s", "proven",
                "ours gap"]
        mean_r2 = {k: statistics.fmean(v) if v else None for k, v in r2.items()}
        line = (f"depth {depth}: ours proven on {proven} of {sets} sets; SSE at most CART's on {not_above} of {sets}"
                + (f"; **a proven optimum above CART's on {', '.join(bugs)}**" if bugs else "")
                + f"; geometric-mean SSE ours/CART = {fmt_gm(geo_mean(sse_ratios))}; mean held-out R² "
                + f"ours {_fmt_r2(mean_r2['ours'])}, CART {_fmt_r2(mean_r2['cart'])}")
        summary.append(line)
        lines += [f"### Depth {depth} (optimaltrees time limit {args.time_limit:g} s)", "",
                  markdown_table(head, rows), "", f"**{line[0].upper() + line[1:]}.**", ""]
    return lines, summary, notes


def _scale_section(records: list[dict], args):
    """(lines, summary lines, notes) of the scale part: per depth one row, the
    fits of ours against :data:`TARGET_SECONDS`, and our SSE against CART's."""
    lines, summary, notes = [], [], []
    table = synthetic_name(args.scale_rows, args.scale_features, args.scale_seed)
    mine = [r for r in records if r.get("part") == "scale" and r.get("table") == table]
    rows = []
    for depth in args.scale_depths:
        o, c, recs = _summaries(mine, "scale", depth, SYNTHETIC)
        if not recs:
            continue
        tol = _tol(recs)
        mark = not_above_cart(o, c, tol)
        if mark == "✗ BUG":
            notes.append(f"scale, depth {depth}: a proven optimum {fmt_sse(o)} above CART's "
                         f"{fmt_sse(c, exact=False)}: a correctness failure")
        ours = [r for r in recs if r.get("side") == "ours"]
        # a fit meets the target when it proves its tree within the target's seconds
        met = sum(r.get("status") == "ok" and r.get("optimal") is True and r.get("seconds") is not None
                  and r["seconds"] <= TARGET_SECONDS for r in ours)
        n, p = _first(recs, "rows") or args.scale_rows, _first(recs, "features") or args.scale_features
        rows.append([f"{n:,}", p, depth, fmt_s(o), "yes" if o["proven"] else "no", f"{met} of {len(ours)}",
                     fmt_sse(o), fmt_sse(c, exact=False), mark, fmt_s(c), fmt_mb(o["peak_mb"]),
                     fmt_mb(c["peak_mb"])])
        if o["proven"]:
            verdict = f"proven in {fmt_s(o)} s"
        elif o["errors"]:
            verdict = f"not proven within the {args.scale_time_limit:g} s limit, SSE {fmt_sse(o)}"
        else:
            verdict = "no result (" + ("killed" if o["killed"] else "failed") + ")"
        summary.append(f"depth {depth}: {n:,} × {p} {verdict} (target {TARGET_SECONDS:g} s"
                       + f"; {met} of {len(ours)} fits met it); SSE at most CART's: {mark}")
        notes += side_notes(f"scale, depth {depth}, ours", o) + side_notes(f"scale, depth {depth}, cart", c)
        notes += _sse_notes(f"scale, depth {depth}", recs, tol)
    if rows:
        head = ["rows", "features", "depth", "ours median s", "proven",
                f"proven within {TARGET_SECONDS:g} s", "ours SSE", "CART SSE", "ours ≤ CART", "CART median s",
                "ours peak MB", "CART peak MB"]
        lines += [markdown_table(head, rows), ""]
    return lines, summary, notes


def _median(recs: list[dict], side: str, key: str):
    values = [r[key] for r in recs if r.get("side") == side and r.get("status") == "ok" and r.get(key) is not None]
    return statistics.median(values) if values else None


def _fmt_gap(gap) -> str:
    """A relative gap as a percentage: 0 %, 0.67 %, 13 %, 100 %."""
    if gap is None:
        return "–"
    pct = 100 * gap
    return f"{pct:.2g} %" if pct < 10 else f"{pct:.0f} %"


def _fmt_r2(x) -> str:
    return "–" if x is None else f"{x:.3f}"


def _data_table(records: list[dict], args) -> str:
    rows = []
    for name in args.datasets:
        recs = [r for r in records if r.get("dataset") == name]
        column, target, why = TARGETS[name]
        rows.append([name, _first(recs, "rows") or "–", _first(recs, "features") or "–",
                     "target" if column is None else f"feature {column}", target, why])
    return markdown_table(["data", "rows", "features", "regressed on", "target", "why"], rows)


def report(records: list[dict], args, out_dir: Path) -> str:
    skipped = getattr(args, "skipped", [])
    libs = list(dict.fromkeys([OURS] + [PEER[p] for p in args.parts]))
    lines = ["# Regression trees: optimaltrees vs pystreed (same 0/1 features) and CART (raw numeric features, "
             "a large synthetic table)", ""]
    lines += progress_line(records, args)
    lines += [machine_block(args), "", libraries_note(libs, skipped), "",
              f"Repeats per (part, data set, depth, library): {args.repeats}, order alternated (ours first on odd "
              "repeats, the other library first on even ones), one fit at a time, each in a fresh process. "
              "Times are medians of the wall-clock seconds of `fit()` only; peak MB is the worker's peak RSS "
              "(interpreter + imports + data; ΔMB = peak minus the peak just before `fit()`). Every tree has "
              "cost 0 and leaves of at least one row; SSE = training sum of squared errors of the library's "
              "`predict`, the same sum for every library. optimaltrees fits with `tie_break=\"first_found\"`: "
              "like the peers, it returns the first optimum it proves.", ""]
    if {"binary", "raw"} & set(args.parts):
        lines += ["## Data", "", _data_table(records, args), "",
                  "Numeric files: label-first, features scaled to about [0, 1]; the class label becomes the last "
                  "feature (as class index).", ""]
    body, summary, notes = [], [], []
    if "binary" in args.parts:
        part, part_summary, part_notes, dots = _binary_section(records, args, out_dir)
        body += ["## The same 0/1 features: optimaltrees vs pystreed", "",
                 f"Each numeric feature becomes `x <= q` for its distinct quantiles q of levels 1/{args.thresholds + 1}"
                 f" … {args.thresholds}/{args.thresholds + 1} (k = {args.thresholds}; numpy's \"lower\" quantiles, "
                 "values of the feature; columns that would be constant left out); both libraries fit that matrix, all rows. pystreed runs STreeD's depth-limited "
                 "squared-error task (`optimization_task=\"regression\"`, `cost_complexity=0`, "
                 "`min_leaf_node_size=1`) and counts as proven when `fit_result.is_optimal()`; ratios < 1 mean "
                 "optimaltrees is faster.", ""] + part
        picture = time_scatter(out_dir / f"{Path(args.out or 'regression.md').stem}-pystreed.png", dots, ours=OURS,
                               peer=PEER["binary"], title="same 0/1 features: fit seconds")
        if picture:
            body += [f"![fit seconds, ours vs pystreed]({picture})", ""]
        summary += [f"0/1 features, {s}" for s in part_summary]
        notes += part_notes
    if "raw" in args.parts:
        part, part_summary, part_notes = _raw_section(records, args)
        body += ["## Raw numeric features: optimaltrees vs CART", "",
                 f"Fitted on {100 * (1 - args.test_share):g} % of the rows (a fixed shuffled split, seed {args.seed}); "
                 f"R² on the other {100 * args.test_share:g} %. optimaltrees considers every threshold (time limit "
                 f"{args.time_limit:g} s, then its best tree and its gap to the proven bound); CART is scikit-learn's "
                 "`DecisionTreeRegressor(max_depth=d)`.", ""] + part
        summary += [f"raw features, {s}" for s in part_summary]
        notes += part_notes
    if "scale" in args.parts:
        part, part_summary, part_notes = _scale_section(records, args)
        recipe = SYNTHETIC_REGRESSION.format(rows=args.scale_rows, features=args.scale_features, seed=args.scale_seed)
        body += [f"## Scale: {args.scale_rows:,} rows × {args.scale_features} features, optimaltrees vs CART", "",
                 f"The target: a proven depth-two tree on 100,000 rows × 10 features within {TARGET_SECONDS:g} s. "
                 f"The table is synthetic, made inside each worker before the clock starts: {recipe}. The "
                 "values of a feature are all distinct (standard normal draws: the exact search's worst case); "
                 "y depends on x0, x1 and x2 only. "
                 f"optimaltrees considers every threshold (time limit {args.scale_time_limit:g} s); CART is "
                 "scikit-learn's `DecisionTreeRegressor(max_depth=d)`; both fit all rows.", ""] + part
        summary += [f"scale, {s}" for s in part_summary]
        notes += part_notes
    lines += ["## Summary", ""] + [f"- {s}" for s in summary] + [""] + body + [LEGEND, ""]
    sources = sorted({r["source"] for r in records if r.get("source")})
    if len(sources) > 1:
        notes.append(f"optimaltrees was imported from several folders: {', '.join(sources)}")
    if notes:
        lines += ["## Notes", ""] + [f"- {x}" for x in dict.fromkeys(notes)] + [""]
    return "\n".join(lines)
