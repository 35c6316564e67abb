"""Suite ``selection``: depth and node cost chosen by cross-validation, judged on held-out rows.

``OptimalTreeClassifierCV`` (depth 1..``--depth`` and node cost chosen by
``--folds``-fold cross-validation over exact cost-complexity paths) against
the tuned greedy tree and another optimal-tree library's own tuning:

* **ours**: ``OptimalTreeClassifierCV(max_depth=4, cv=StratifiedKFold(5),
  time_limit=T)``, T = ``--time-limit`` for the whole search;
* **one fit**: one ``OptimalTreeClassifier(max_depth=4, time_limit=T)`` on
  the same rows, the yardstick of what the cross-validation costs;
* **CART**: scikit-learn's ``DecisionTreeClassifier`` tuned by
  ``GridSearchCV`` on the same folds over depth 1..4 and, per depth, every
  ``ccp_alpha`` of that depth's pruning path;
* **pystreed**: ``STreeDClassifier(max_depth=4, hyper_tune=True,
  time_limit=T)`` on 0/1 features (numeric columns cut at ``--thresholds``
  quantiles of the training rows, text columns one-hot).

Each data set is split once, 70/30 stratified (``--seed``); every method
fits the 70 % in a process of its own and is scored by accuracy on the 30 %.
The data sets come from the four collections of the shared data (numeric,
0/1, categorical, diagrams); :data:`DATASETS` says which file each is.
The report gives per set the held-out accuracy, leaves and seconds of each
method, the seconds of CV over one fit, and a summary against the targets.
"""
from __future__ import annotations

import argparse
import statistics
from pathlib import Path

from optimaltrees.bench.common import OURS, progress_line
from optimaltrees.bench.fits import libraries_note, missing_libraries
from optimaltrees.bench.fits_selection import METHODS
from optimaltrees.bench.report import failures_section, geo_mean, machine_block, markdown_table
from optimaltrees.bench.runner import Job

NAME = "selection"
WORKERS = 1      # timings: fits must not compete for the 2 cores

#: data set -> (collection, file under --data-dir, columns that are not
#: features).  Sets of at most 5,000 rows from each collection of the shared
#: data, each set once, with one exception: australian-credit and
#: credit-approval are the same 653 credit applications, as 0/1 features
#: (CP4IM) and with their own columns (numbers and one-hot categories), so
#: that one set is seen in both encodings.
DATASETS: dict[str, tuple[str, str, tuple[str, ...]]] = {
    "bank": ("numeric", "continuous/full/bank.txt", ()),
    "fault": ("numeric", "continuous/full/fault.txt", ()),
    "raisin": ("numeric", "continuous/full/raisin.txt", ()),
    "rice": ("numeric", "continuous/full/rice.txt", ()),
    "segment": ("numeric", "continuous/full/segment.txt", ()),
    "wilt": ("numeric", "continuous/full/wilt.txt", ()),
    "anneal": ("binary", "binary/anneal.txt", ()),
    "audiology": ("binary", "binary/audiology.txt", ()),
    "australian-credit": ("binary", "binary/australian-credit.txt", ()),
    "breast-wisconsin": ("binary", "binary/breast-wisconsin.txt", ()),
    "diabetes": ("binary", "binary/diabetes.txt", ()),
    "german-credit": ("binary", "binary/german-credit.txt", ()),
    "heart-cleveland": ("binary", "binary/heart-cleveland.txt", ()),
    "hepatitis": ("binary", "binary/hepatitis.txt", ()),
    "lymph": ("binary", "binary/lymph.txt", ()),
    "primary-tumor": ("binary", "binary/primary-tumor.txt", ()),
    "soybean": ("binary", "binary/soybean.txt", ()),
    "tic-tac-toe": ("binary", "binary/tic-tac-toe.txt", ()),
    "vote": ("binary", "binary/vote.txt", ()),
    "car": ("categorical", "categorical/car.csv", ()),
    "monk1": ("categorical", "categorical/monk1.csv", ()),
    "mouse": ("categorical", "categorical/mouse.csv", ()),
    "zoo": ("categorical", "categorical/zoo.csv", ("animal_name",)),
    "iris": ("diagrams", "diagrams/iris.csv", ()),
    "wine": ("diagrams", "diagrams/wine.csv", ()),
    "balance-scale": ("diagrams", "diagrams/balance-scale.csv", ()),
    "hayes-roth": ("diagrams", "diagrams/hayes-roth.csv", ()),
    "thyroid-new": ("diagrams", "diagrams/thyroid-new.csv", ()),
    "habermans-survival": ("diagrams", "diagrams/habermans-survival.csv", ()),
    "mammographic-mass": ("diagrams", "diagrams/mammographic-mass.csv", ()),
    "dermatology": ("diagrams", "diagrams/dermatology.csv", ()),
    "ionosphere": ("diagrams", "diagrams/ionosphere.csv", ()),
    "breast-cancer-diagnostic": ("diagrams", "diagrams/breast-cancer-diagnostic.csv", ()),
    "credit-approval": ("diagrams", "diagrams/credit-approval.csv", ()),
    "climate-simulation-crashes": ("diagrams", "diagrams/climate-simulation-crashes.csv", ()),
}

#: what the report's data table says of a set beside its file
NOTES = {"australian-credit": "the applications of credit-approval, as 0/1 features",
         "credit-approval": "the applications of australian-credit, with their own columns"}

#: the targets: held-out accuracy at least tuned CART's on this share of
#: the sets (and on average), the CV estimator within this many seconds on
#: every set of at most :data:`TARGET_ROWS` rows, and within this many times
#: one depth-4 fit in geometric mean
TARGET_SHARE = 0.7
TARGET_SECONDS = 120.0
TARGET_ROWS = 5000
TARGET_RATIO = 10.0
#: two accuracies closer than this are equal (one held-out row is 1/n apart)
TIE = 1e-12

#: the methods that select a model, as the report names them
SELECTORS = {"ours": "ours", "cart": "CART", "pystreed": "pystreed"}
#: library of each method (for the versions line and the missing-peer check)
LIBRARY = {"ours": OURS, "one_fit": OURS, "cart": "cart", "pystreed": "pystreed"}

#: what ``timed_out`` means in each method's record, as the summary says it
LIMITED = {"ours": "ours: the time limit stopped some cost-complexity path",
           "one_fit": "one depth-4 fit: not proven within the time limit",
           "pystreed": "pystreed: not proven within the time limit"}

LEGEND = ("Legend: s = wall-clock seconds of the whole selection (the tuned method's `fit`, grid included for "
          "CART); † on ours = the time limit stopped some path (the selection used the best trees found), on "
          "the one fit and pystreed = not proven optimal within the limit; CV / one fit = ours s over the one "
          "depth-4 fit's s; proven = the share of the candidate-fold trees the cross-validation scored that are "
          "proven optimal; – = no result (see below).")


def add_arguments(ap: argparse.ArgumentParser) -> None:
    """The suite's options; the defaults are the committed report's setting."""
    ap.add_argument("--data-dir", default="../shared/datasets",
                    help="the shared datasets folder (its continuous/, binary/, categorical/ and diagrams/ "
                         "collections)")
    ap.add_argument("--datasets", nargs="+", default=list(DATASETS), choices=list(DATASETS), metavar="NAME",
                    help=f"data sets (default: all {len(DATASETS)}; the table DATASETS in "
                         "optimaltrees/bench/suites/selection.py says where each is)")
    ap.add_argument("--methods", nargs="+", default=list(METHODS), choices=list(METHODS),
                    help="ours: OptimalTreeClassifierCV; one_fit: one OptimalTreeClassifier of --depth; cart: "
                         "tuned CART; pystreed: STreeD's hyper_tune (default: all four)")
    ap.add_argument("--time-limit", type=float, default=120.0,
                    help="seconds for the whole of ours, of the one fit and of pystreed (default 120; a fit is "
                         "killed at limit + 60 s)")
    ap.add_argument("--depth", type=int, default=4, help="the deepest tree tried (default 4)")
    ap.add_argument("--folds", type=int, default=5, help="cross-validation folds of ours and CART (default 5)")
    ap.add_argument("--test-share", type=float, default=0.3, help="held-out share of the split (default 0.3)")
    ap.add_argument("--seed", type=int, default=0, help="seed of the split (default 0)")
    ap.add_argument("--thresholds", type=int, default=5,
                    help="pystreed: each numeric column becomes x <= q for its distinct quantiles of levels "
                         "1/(k+1)..k/(k+1) (default 5, pystreed's own n_thresholds)")


# ------------------------------------------------------------------ the plan

def data_path(args, name: str) -> Path:
    """The file of data set ``name`` under ``--data-dir``, which must exist."""
    path = Path(args.data_dir) / DATASETS[name][1]
    if not path.is_file():
        raise FileNotFoundError(f"no data file {path}")
    return path


def _params(args, name: str, method: str) -> dict:
    collection, _, drop = DATASETS[name]
    params = dict(data=str(data_path(args, name)), collection=collection, drop=list(drop), depth=args.depth,
                  test_share=args.test_share, seed=args.seed)
    if method in ("ours", "cart"):
        params["folds"] = args.folds
    if method != "cart":              # CART has no time limit of its own
        params["time_limit"] = args.time_limit
    if method == "pystreed":
        params["thresholds"] = args.thresholds
    return params


def plan(args, out_dir: Path) -> list[Job]:
    """One job per (data set, method), the methods of a set one after the
    other, so that a set's fits run close in time on the shared machine; a
    method whose library is missing is left out (the report says so)."""
    if args.folds < 2:
        raise ValueError(f"--folds must be at least 2, got {args.folds}")
    if not args.time_limit > 0:
        raise ValueError(f"--time-limit must be a number of seconds > 0, got {args.time_limit:g}")
    args.skipped = missing_libraries(sorted({LIBRARY[m] for m in args.methods}))
    jobs = []
    for name in args.datasets:
        for method in args.methods:
            if LIBRARY[method] in args.skipped:
                continue
            # CART's limit is the runner's safety net only
            jobs.append(Job(f"optimaltrees.bench.fits_selection:{method}", _params(args, name, method),
                            dict(dataset=name, method=method), time_limit=args.time_limit, grace=60.0))
    args.planned = len(jobs)
    return jobs


def progress(rec: dict, done: int, total: int, args) -> str:
    """The line printed as each fit ends."""
    where = f"[{done}/{total}] {rec.get('dataset')} {rec.get('method')}"
    if rec.get("status") != "ok":
        return f"{where}: {rec.get('status')} ({rec.get('message', '')})"
    return (f"{where}: held-out accuracy {rec['test_acc']:.3f}, {rec['leaves']} leaves, {rec['seconds']:.2f} s"
            + (" (time limit)" if rec.get("timed_out") else ""))


# ------------------------------------------------------------------ the summary

def _by_set(records: list[dict]) -> dict[str, dict[str, dict]]:
    """dataset -> method -> its record with a result (status ok)."""
    out: dict[str, dict[str, dict]] = {}
    for r in records:
        if r.get("status") == "ok" and r.get("test_acc") is not None:
            out.setdefault(r["dataset"], {})[r["method"]] = r
    return out


def _mean(values) -> float | None:
    values = list(values)
    return statistics.fmean(values) if values else None


def summarise(records: list[dict], datasets, methods) -> dict:
    """The report's summary figures.

    ``common``: the sets every selecting method among ``methods`` has a
    result on, and each method's mean held-out accuracy and leaves over
    them; ``pair``: the same for ours and CART alone (the targets are about
    that pair); ``wins``: sets where ours' held-out accuracy is at least
    CART's; ``ratio``: geometric mean of ours' seconds over the one fit's;
    ``largest``: ours' largest seconds, and its set, among the sets of at
    most :data:`TARGET_ROWS` rows, and ``over``: those sets over
    :data:`TARGET_SECONDS` (a set where ours has no result counts as over
    the target: ``unfinished``); ``limited``: per method, the sets where its
    record says the time limit cut it short."""
    got = _by_set(records)
    sets = [d for d in datasets if d in got]
    selectors = [m for m in SELECTORS if m in methods]

    def over(names: list[str], among: list[str]) -> dict:
        return {m: dict(acc=_mean(got[d][m]["test_acc"] for d in among),
                        leaves=_mean(got[d][m]["leaves"] for d in among)) for m in names}

    common = [d for d in sets if all(m in got[d] for m in selectors)]
    pair = [d for d in sets if "ours" in got[d] and "cart" in got[d]]
    wins = [d for d in pair if got[d]["ours"]["test_acc"] >= got[d]["cart"]["test_acc"] - TIE]
    ratios = [(d, got[d]["ours"]["seconds"] / got[d]["one_fit"]["seconds"]) for d in sets
              if "ours" in got[d] and "one_fit" in got[d] and got[d]["one_fit"]["seconds"] > 0]
    rows = {d: next((r["rows"] for r in records if r.get("dataset") == d and r.get("rows") is not None), None)
            for d in datasets}
    small = [d for d in datasets if rows[d] is not None and rows[d] <= TARGET_ROWS]
    timed = [(got[d]["ours"]["seconds"], d) for d in small if d in got and "ours" in got[d]]
    unfinished = [d for d in datasets if "ours" in methods and any(r.get("dataset") == d and r.get("method") == "ours"
                                                                    and r.get("status") != "ok" for r in records)]
    limited = {m: [d for d in sets if m in got[d] and got[d][m].get("timed_out")] for m in METHODS}
    return dict(sets=sets, common=common, common_means=over(selectors, common), pair=pair, limited=limited,
                pair_means=over([m for m in ("ours", "cart") if m in selectors], pair), wins=wins,
                ratio=geo_mean(r for _, r in ratios), ratios=len(ratios), largest=max(timed, default=None),
                over=[d for t, d in timed if t > TARGET_SECONDS],
                small=len(timed), unfinished=unfinished,
                results={m: sum(m in got[d] for d in sets) for m in METHODS if m in methods})


def targets(s: dict) -> list[tuple[str, str, bool | None]]:
    """(target, what was measured, met: True / False / None when nothing measured it)."""
    pm = s["pair_means"]
    out = []
    n = len(s["pair"])
    share = len(s["wins"]) / n if n else None
    out.append((f"held-out accuracy at least tuned CART's on ≥ {_pct(TARGET_SHARE)} of the sets",
                "–" if share is None else f"{len(s['wins'])} of {n} sets ({_pct(share)})",
                None if share is None else share >= TARGET_SHARE - TIE))
    have = "ours" in pm and "cart" in pm and pm["ours"]["acc"] is not None
    out.append(("mean held-out accuracy at least tuned CART's",
                f"{_acc(pm['ours']['acc'])} vs {_acc(pm['cart']['acc'])}" if have else "–",
                pm["ours"]["acc"] >= pm["cart"]["acc"] - TIE if have else None))
    out.append(("mean leaves at most tuned CART's",
                f"{_num(pm['ours']['leaves'])} vs {_num(pm['cart']['leaves'])}" if have else "–",
                pm["ours"]["leaves"] <= pm["cart"]["leaves"] + TIE if have else None))
    big = s["largest"]
    measured = "–" if big is None else (f"largest {_sec(big[0])} s ({big[1]}); over {TARGET_SECONDS:g} s on "
                                         f"{len(s['over'])} of {s['small']} sets")
    if s["unfinished"]:
        measured += f"; no result on {', '.join(s['unfinished'])}"
    out.append((f"the CV estimator within {TARGET_SECONDS:g} s on every set of at most {TARGET_ROWS:,} rows",
                measured, None if big is None and not s["unfinished"]
                else (not s["unfinished"] and big[0] <= TARGET_SECONDS)))
    out.append((f"the CV estimator within {TARGET_RATIO:g}× one depth-4 fit, in geometric mean",
                "–" if s["ratio"] is None else f"{_ratio(s['ratio'])}× over {s['ratios']} sets",
                None if s["ratio"] is None else s["ratio"] <= TARGET_RATIO))
    return out


# ------------------------------------------------------------------ cell formats

def _acc(x) -> str:
    return "–" if x is None else f"{x:.3f}"


def _num(x) -> str:
    return "–" if x is None else f"{x:.1f}"


def _sec(x) -> str:
    if x is None:
        return "–"
    return f"{x:.2g}" if x < 0.01 else (f"{x:.3f}" if x < 10 else f"{x:.1f}")


def _ratio(x) -> str:
    return "–" if x is None else (f"{x:.2g}" if x < 10 else f"{x:.0f}")


def _pct(x: float) -> str:
    return f"{100 * x:.0f} %"


def _met(flag) -> str:
    return "–" if flag is None else ("**yes**" if flag else "**no**")


def _cell(recs: dict, method: str, key: str, fmt, mark: bool = False) -> str:
    r = recs.get(method)
    if r is None:
        return "–"
    text = fmt(r.get(key))
    return text + ("†" if mark and r.get("timed_out") else "")


# ------------------------------------------------------------------ the report

def _summary_lines(s: dict, methods) -> list[str]:
    """The summary table, its bullet lines and the targets table."""
    selectors = [m for m in SELECTORS if m in methods]
    cm, pm = s["common_means"], s["pair_means"]
    head = ["", *(SELECTORS[m] for m in selectors)]
    rows = [["sets with a result", *(s["results"].get(m, 0) for m in selectors)],
            [f"mean held-out accuracy, the {len(s['common'])} sets all finished",
             *(_acc(cm[m]["acc"]) for m in selectors)],
            [f"mean leaves, the {len(s['common'])} sets all finished", *(_num(cm[m]["leaves"]) for m in selectors)]]
    if "ours" in pm and "cart" in pm and s["pair"] != s["common"]:
        rows += [[f"mean held-out accuracy, the {len(s['pair'])} sets ours and CART finished",
                  *(_acc(pm[m]["acc"]) if m in pm else "" for m in selectors)],
                 [f"mean leaves, the {len(s['pair'])} sets ours and CART finished",
                  *(_num(pm[m]["leaves"]) if m in pm else "" for m in selectors)]]
    lines = [markdown_table(head, rows), ""]
    if "ours" in pm and "cart" in pm:
        n = len(s["pair"])
        lines.append(f"- ours ≥ tuned CART in held-out accuracy on {len(s['wins'])} of {n} sets"
                     + (f" ({_pct(len(s['wins']) / n)})" if n else ""))
    if s["ratio"] is not None:
        lines.append(f"- geometric mean of ours' seconds / one depth-4 fit's seconds: {_ratio(s['ratio'])} "
                     f"over {s['ratios']} sets")
    if s["largest"] is not None:
        lines.append(f"- largest seconds of ours on the sets of at most {TARGET_ROWS:,} rows: "
                     f"{_sec(s['largest'][0])} ({s['largest'][1]})")
    for method, what in LIMITED.items():
        if method in s["results"]:
            hit = s["limited"][method]
            lines.append(f"- {what} on {len(hit)} of {s['results'][method]} sets"
                         + (f": {', '.join(hit)}" if hit else ""))
    lines.append("")
    rows = [[target, measured, _met(met)] for target, measured, met in targets(s)]
    return lines + ["### Targets", "", markdown_table(["target", "measured", "met"], rows), ""]


def _set_table(records: list[dict], args) -> str:
    """The per-set table: what the targets are judged on, set by set."""
    got = _by_set(records)
    head = ["dataset", "collection", "rows", "features", "ours acc", "CART acc", "pystreed acc", "ours leaves",
            "CART leaves", "pystreed leaves", "ours s", "CART s", "pystreed s", "one fit s", "CV / one fit",
            "ours proven"]
    rows = []
    for name in args.datasets:
        recs = got.get(name, {})
        any_rec = next(iter(recs.values()), None) or {}
        o, one = recs.get("ours"), recs.get("one_fit")
        ratio = o["seconds"] / one["seconds"] if o and one and one["seconds"] > 0 else None
        proven = _pct(o["fold_trees_proven"] / o["fold_trees"]) if o and o.get("fold_trees") else "–"
        rows.append([name, DATASETS[name][0], any_rec.get("rows", "–"), any_rec.get("features", "–"),
                     *(_cell(recs, m, "test_acc", _acc) for m in SELECTORS),
                     *(_cell(recs, m, "leaves", str) for m in SELECTORS),
                     _cell(recs, "ours", "seconds", _sec, mark=True), _cell(recs, "cart", "seconds", _sec),
                     _cell(recs, "pystreed", "seconds", _sec, mark=True),
                     _cell(recs, "one_fit", "seconds", _sec, mark=True), _ratio(ratio), proven])
    return markdown_table(head, rows)


def _choice_table(records: list[dict], args) -> str:
    """What each method chose per set: a reader's check that the selections are comparable."""
    got = _by_set(records)
    head = ["dataset", "ours depth", "ours cost", "ours candidates", "ours paths stopped", "one fit leaves",
            "CART depth", "CART ccp_alpha", "CART candidates", "CART columns", "pystreed depth",
            "pystreed 0/1 columns"]
    rows = []
    for name in args.datasets:
        recs = got.get(name, {})
        o = recs.get("ours")
        rows.append([name, _cell(recs, "ours", "tree_depth", str), _cell(recs, "ours", "cost", _cost),
                     _cell(recs, "ours", "candidates", str),
                     f"{o['paths_stopped']} of {o['paths']}" if o and o.get("paths") else "–",
                     _cell(recs, "one_fit", "leaves", str), _cell(recs, "cart", "tree_depth", str),
                     _cell(recs, "cart", "cost", _cost), _cell(recs, "cart", "candidates", str),
                     _cell(recs, "cart", "encoded_columns", str), _cell(recs, "pystreed", "tree_depth", str),
                     _cell(recs, "pystreed", "encoded_columns", str)])
    return markdown_table(head, rows)


def _cost(x) -> str:
    return "–" if x is None else ("0" if x == 0 else f"{x:.3g}")


def _data_table(records: list[dict], args) -> str:
    """Where each set comes from (collection and file) and its size as read."""
    rows = []
    for name in args.datasets:
        collection, file, drop = DATASETS[name]
        rec = next((r for r in records if r.get("dataset") == name and r.get("rows") is not None), {})
        rows.append([name, collection, f"`{file}`", rec.get("rows", "–"), rec.get("features", "–"),
                     rec.get("categorical", "–"), rec.get("classes", "–"),
                     f"{rec['n_train']} / {rec['n_test']}" if "n_train" in rec else "–",
                     "; ".join(([f"column {', '.join(drop)} dropped (a name)"] if drop else [])
                               + ([NOTES[name]] if name in NOTES else []))])
    return markdown_table(["data", "collection", "file", "rows", "features", "text columns", "classes",
                           "train / held-out", "note"], rows)


def report(records: list[dict], args, out_dir: Path) -> str:
    """The markdown report of ``records``: the setting, the summary against
    the targets, the per-set tables, the data, and the runs without a result."""
    skipped = getattr(args, "skipped", [])
    libs = list(dict.fromkeys(LIBRARY[m] for m in args.methods))
    ran = [m for m in args.methods if LIBRARY[m] not in skipped]
    s = summarise(records, args.datasets, ran)
    lines = ["# Model selection: OptimalTreeClassifierCV against tuned CART and pystreed's hyper_tune", ""]
    lines += progress_line(records, args)
    lines += [machine_block(args), "", libraries_note(libs, skipped), "",
              f"Each data set is split once, {_pct(1 - args.test_share)} / {_pct(args.test_share)} stratified "
              f"(`train_test_split(..., stratify=y, random_state={args.seed})`); each method fits the "
              f"training part in a fresh process, one fit at a time, and is scored by accuracy on the held-out "
              f"part. **ours** = `OptimalTreeClassifierCV(max_depth={args.depth}, cv=StratifiedKFold({args.folds}), "
              f"time_limit={args.time_limit:g})` on the table as read (text columns as categories); **one fit** = "
              f"`OptimalTreeClassifier(max_depth={args.depth}, time_limit={args.time_limit:g})` on the same rows; "
              f"**CART** = `GridSearchCV(DecisionTreeClassifier(random_state=0), grid, "
              f"cv=StratifiedKFold({args.folds}))`, the grid one dict per depth 1..{args.depth} with every "
              "`ccp_alpha` of that depth's pruning path on the training part, text columns one-hot; "
              f"**pystreed** = `STreeDClassifier(max_depth={args.depth}, hyper_tune=True, "
              f"time_limit={args.time_limit:g})` (its own 5-fold tuning of depth and branch nodes) on 0/1 "
              f"features: each numeric column `x <= q` at its distinct training quantiles of levels "
              f"1/{args.thresholds + 1} … {args.thresholds}/{args.thresholds + 1}, text columns one-hot. "
              "Seconds are wall-clock seconds of the whole selection.", "",
              "## Summary", ""] + _summary_lines(s, ran)
    lines += ["## Per data set", "", _set_table(records, args), "", LEGEND, "",
              "## What each method chose", "",
              "Depth = the depth of the chosen tree; cost = ours' `complexity_cost`, CART's `ccp_alpha`; "
              "candidates = the (depth, cost) pairs scored; paths stopped = ours' cost-complexity paths (one per "
              "depth and fold, and per depth on all training rows) the time limit stopped.", "",
              _choice_table(records, args), "",
              "## Data", "", _data_table(records, args), "",
              "Files under the shared datasets folder. numeric: label first, space separated, features scaled "
              "to about [0, 1]; binary: label first, 0/1 features; categorical: CSV, class last, every feature "
              "a category code, read as text (a category); diagrams: CSV, class in column `y`, categorical "
              "features one-hot as in the file, numeric ones as numbers.", ""]
    lines += failures_section(records, lambda r: f"{r.get('dataset')}, {r.get('method')}")
    notes = _notes(records)
    if notes:
        lines += ["## Notes", ""] + [f"- {x}" for x in notes] + [""]
    return "\n".join(lines)


def _notes(records: list[dict]) -> list[str]:
    """What a reader needs to read the failures: pystreed's tuning that uses
    up its time limit ends its process (it hands its final fit a negative
    time, which its parameter check refuses)."""
    hit = [r["dataset"] for r in records if r.get("method") == "pystreed" and r.get("status") != "ok"
           and "parameter time" in (r.get("message") or "")]
    if not hit:
        return []
    return [f"pystreed on {', '.join(hit)}: its hyper_tune used up the time limit, then passed the time left "
            "(below zero) to its final fit, whose parameter check ended the process; these sets have no "
            "pystreed result."]
