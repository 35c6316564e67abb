"""Suite ``sat``: smallest perfect trees by SAT on the categorical sets, beside the paper.

On mouse, monk1, zoo and car (zoo without the animal's name), under two
ways of turning columns into yes/no tests (``--tests``):

* ``auto``    what ``SATTreeClassifier`` does by default: integer-coded
  columns become threshold tests "x > v".  The paper's code (InferDT) does
  the same on these files, and on car this reproduces the paper's 603
  encoded examples and 143 DT-size nodes, so this is the comparable setting
  (the paper's text says 21 Boolean features; thresholds give 15);
* ``onehot``  one test "x == v" per value of every column (21 on car);

each configuration runs in its own process under a wall clock limit:

* ``sat-depth``    DT-depth by incremental SAT (Avellaneda, AAAI 2020), with
  the library's neighbourhood repair (``repair="auto"``);
* ``sat-depth-plain``  the paper's plain loop (``repair=None``);
* ``sat-depth-shuffled``  ``sat-depth`` with the examples tried in a random
  order (``random_state`` = repeat number): the spread over orders;
* ``sat-depth-rows-shuffled`` / ``sat-size-rows-shuffled``  the rows of the
  file shuffled (seed = repeat number) before the fit, as a user's rows may
  come: the search tries distinct rows in a canonical order, so these
  should take the time of the file's order;
* ``sat-size``     DT-size: then the fewest nodes at that depth;
* ``dp-depth``     the library's exact DP engine asked for the smallest depth
  with zero error (``depth_search="auto"``, the estimator's default);
* ``dp+sat-size``  that depth, then SAT for the fewest nodes (``depth_search="dp"``);
* ``dp-size``      the DP engine alone (the default): at that depth, a cost of
  2^-depth per node (below one error) makes its optimum the fewest nodes among
  zero-error trees;

the SAT configurations once per ``--solvers`` entry (python-sat solvers).
The table gives depth, nodes, examples encoded, SAT calls and seconds
(median of the repeats) beside the paper's published values.
"""
from __future__ import annotations

import argparse
import statistics
from pathlib import Path

from optimaltrees._optional import require
from optimaltrees.bench.fits import SAT_TESTS
from optimaltrees.bench.report import failures_section, machine_block, markdown_table
from optimaltrees.bench.runner import Job
from optimaltrees.bench.common import progress_line

NAME = "sat"
WORKERS = 1      # timings: fits must not compete for the 2 cores
DATASETS = ["mouse", "monk1", "zoo", "car"]
DROP = {"zoo": ["animal_name"]}        # an identifier, not a feature
SLOW = "car"                           # one run, under --car-limit
PAPER = {  # Avellaneda (AAAI 2020) Tables 1-2 and the InferDT README (zoo, monk1)
    "mouse": dict(depth=4, nodes=15, depth_s=0.02, size_s=0.07),
    "car": dict(depth=8, nodes=143, depth_s=127, size_s=217),
    "monk1": dict(depth=None, nodes=15, depth_s=0.03, size_s=0.14),
    "zoo": dict(depth=4, nodes=20, depth_s=0.047, size_s=0.2),
}
# config -> (fit in optimaltrees.bench.fits, its parameters, whether it calls a SAT solver)
CONFIGS = {
    "sat-depth": ("sat", dict(objective="depth"), True),
    "sat-depth-plain": ("sat", dict(objective="depth", repair=None), True),
    "sat-depth-shuffled": ("sat", dict(objective="depth", shuffled=True), True),
    "sat-size": ("sat", dict(objective="size"), True),
    "sat-depth-rows-shuffled": ("sat", dict(objective="depth", rows_shuffled=True), True),
    "sat-size-rows-shuffled": ("sat", dict(objective="size", rows_shuffled=True), True),
    "dp-depth": ("sat", dict(objective="depth", depth_search="auto"), False),
    "dp+sat-size": ("sat", dict(objective="size", depth_search="dp"), True),
    "dp-size": ("sat", dict(objective="size", depth_search="auto"), False),
}


def add_arguments(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--data-dir", default="../shared/datasets/categorical",
                    help="folder of NAME.csv files (header, class in the last column)")
    ap.add_argument("--datasets", nargs="+", default=DATASETS, help=f"data set names (default: {' '.join(DATASETS)})")
    ap.add_argument("--configs", nargs="+", default=list(CONFIGS), choices=list(CONFIGS), metavar="CONFIG",
                    help=f"among {', '.join(CONFIGS)} (default: all; see above)")
    ap.add_argument("--tests", nargs="+", default=list(SAT_TESTS), choices=list(SAT_TESTS),
                    help="column -> test encodings (default: auto onehot; see above)")
    ap.add_argument("--solvers", nargs="+", default=["glucose4", "cadical195"],
                    help="python-sat solvers for the SAT configurations (default: glucose4 cadical195)")
    ap.add_argument("--repeats", type=int, default=3, help="runs per configuration (default 3)")
    ap.add_argument("--car-repeats", type=int, default=1, help=f"runs per configuration on {SLOW} (default 1)")
    ap.add_argument("--limit", type=float, default=60.0, help="wall seconds per fit (default 60)")
    ap.add_argument("--car-limit", type=float, default=300.0, help="wall seconds per fit on car (default 300)")


def _rows(args):
    """(data set, tests, config, solver) of every table row, in run order;
    solver None without SAT."""
    for name in args.datasets:
        for tests in args.tests:
            for i, solver in enumerate(args.solvers):
                for config in args.configs:
                    uses_sat = CONFIGS[config][2]
                    if uses_sat or i == 0:          # no SAT call: one solver is enough
                        yield name, tests, config, solver if uses_sat else None


def plan(args, out_dir: Path) -> list[Job]:
    from optimaltrees.search.sat.encoding import check_solver_name

    for solver in args.solvers:
        check_solver_name(solver)
    jobs = []
    for name, tests, config, solver in _rows(args):
        path = Path(args.data_dir) / f"{name}.csv"
        if not path.is_file():
            raise FileNotFoundError(f"no data file {path}")
        fit, params, _ = CONFIGS[config]
        params = dict(params, data=str(path), drop=DROP.get(name, []), tests=tests)
        if solver:
            params["solver"] = solver
        limit = args.car_limit if name == SLOW else args.limit
        for rep in range(args.car_repeats if name == SLOW else args.repeats):
            key = dict(dataset=name, tests=tests, config=config, solver=solver or "-", repeat=rep + 1)
            job_params = {k: v for k, v in params.items() if k not in ("shuffled", "rows_shuffled")}
            if params.get("shuffled"):
                job_params["random_state"] = rep
            if params.get("rows_shuffled"):
                job_params["shuffle_rows"] = rep + 1
            # the limit bounds the whole process, start-up included, as a wall clock would
            jobs.append(Job(fit, job_params, key, time_limit=limit, grace=0.0))
    args.planned = len(jobs)
    return jobs


def _paper(name: str, config: str) -> str:
    p = PAPER.get(name)
    if p is None:
        return "-"
    size = "size" in config
    depth = "-" if p["depth"] is None else p["depth"]
    # the paper counts a DT-depth tree as perfect: 2^(k+1) - 1 nodes
    nodes = p["nodes"] if size else ("-" if p["depth"] is None else 2 ** (p["depth"] + 1) - 1)
    return f"{depth} / {nodes} / {p['size_s' if size else 'depth_s']}"


def _key(r: dict) -> tuple:
    return r.get("dataset"), r.get("tests", "onehot"), r.get("config"), r.get("solver")


def _seconds(ok: list[dict], runs: int) -> str:
    """Median seconds of the finished runs, their range, and how many finished."""
    times = [r["seconds"] for r in ok]
    text = f"{statistics.median(times):.3f}"
    if len(times) > 1:
        text += f" ({min(times):.1f}-{max(times):.1f})"
    if len(times) < runs:
        text += f", {len(times)} of {runs} runs"
    return text


def report(records: list[dict], args, out_dir: Path) -> str:
    lines = ["# SAT inference: smallest perfect trees (categorical sets)", ""]
    lines += progress_line(records, args)
    lines += [machine_block(args), "",
              "`tests`: `auto` = integer columns become threshold tests (the library's default, and what the "
              "paper's code does on these files), `onehot` = one test per value. Zoo without its name column. "
              f"Each fit in its own process, wall limit {args.limit:g} s ({SLOW} {args.car_limit:g} s, start-up "
              f"included); seconds = median of {args.repeats} runs ({SLOW}: {args.car_repeats}), one fit at a "
              "time. `sat` = Avellaneda's incremental SAT loop (`-plain`: as in the paper; otherwise with the "
              "library's neighbourhood repair); `dp` = the library's exact DP engine finds the smallest "
              "zero-error depth. Rounds = trees checked against all examples (repaired: answered near the last "
              "tree). Paper: i7-2600K, MiniSat, C++.", ""]
    rows = []
    for row in _rows(args):
        name, tests, config, solver = row
        recs = [r for r in records if _key(r) == (name, tests, config, solver or "-")]
        if not recs:
            continue
        ok = [r for r in recs if r.get("status") == "ok"]
        cells = [name, tests, config, solver or "-"]
        if ok:
            last = ok[-1]
            rounds = last.get("rounds", 0)
            cells += [last["depth"], last["nodes"], last["examples"],
                      f"{rounds} ({last.get('repaired', 0)})" if rounds else "-",
                      _seconds(ok, len(recs)), "yes" if last["optimal"] else "no"]
        else:
            cells += ["", "", "", "", recs[-1].get("status", "?"), ""]
        rows.append(cells + [_paper(name, config)])
    lines += [markdown_table(["data", "tests", "config", "solver", "depth", "nodes", "examples encoded",
                              "rounds (repaired)", "seconds (range)", "proven", "paper depth / nodes / s"], rows), "",
              "DT-depth returns the perfect tree's depth; `nodes` is the fitted tree after dropping branches no "
              "example reaches and merging same-class sibling leaves (the paper counts DT-depth trees as perfect: "
              "2^(k+1)-1 nodes, shown in the paper column). When only some repeats finished, the row shows "
              "those and the others are listed under \"Runs without a result\".", ""]
    picture = _plot(records, args, out_dir)
    if picture:
        lines += [f"![seconds per configuration]({picture})", ""]
    lines += failures_section(records, lambda r: f"{r['dataset']} {r.get('tests', 'onehot')} {r['config']} "
                                                 f"{r['solver']} repeat {r['repeat']}")
    return "\n".join(lines)


def _plot(records: list[dict], args, out_dir: Path) -> str | None:
    """Median seconds of every (data set, configuration, solver) on a log
    scale, the paper's DT-depth / DT-size times as marks beside them."""
    bars = []
    for name, tests, config, solver in _rows(args):
        ok = [r for r in records if r.get("status") == "ok" and _key(r) == (name, tests, config, solver or "-")]
        if ok:
            paper = PAPER.get(name, {}).get("size_s" if "size" in config else "depth_s")
            bars.append((f"{name} {tests} {config}" + (f" ({solver})" if solver else ""),
                         statistics.median(r["seconds"] for r in ok), paper))
    if not bars:
        return None
    Figure = require("matplotlib.figure", "bench", "the benchmark pictures").Figure

    fig = Figure(figsize=(7, 0.28 * len(bars) + 1.2), layout="constrained")
    ax = fig.add_subplot()
    ys = range(len(bars))
    ax.barh(ys, [b[1] for b in bars], color="#1f6fb4", label="optimaltrees")
    marks = [(y, b[2]) for y, b in zip(ys, bars) if b[2]]
    if marks:
        ax.scatter([m[1] for m in marks], [m[0] for m in marks], color="#d62728", marker="|", s=120,
                   label="paper (C++, MiniSat)", zorder=3)
    ax.set_yticks(list(ys), [b[0] for b in bars], fontsize=7)
    ax.invert_yaxis()
    ax.set_xscale("log")
    ax.set_xlabel("seconds (median)")
    ax.legend(fontsize=7, loc="lower right")
    path = out_dir / f"{Path(args.out or 'sat.md').stem}.png"
    fig.savefig(path, dpi=120)
    return path.name
