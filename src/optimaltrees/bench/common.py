"""What the benchmark suites share: the data files of a suite, a whole-data
tree fit as a :class:`Job`, the per-library summary of repeats, the "errors
agree" check, the table cell formats, and the before/after baseline (another
checkout of optimaltrees run as a peer).  Suites import from here, never from
one another."""
from __future__ import annotations

import os
import statistics
import subprocess
from itertools import combinations
from pathlib import Path

from optimaltrees.bench.fits import LIBRARIES
from optimaltrees.bench.runner import Job, run_job

OURS = "optimaltrees"
BASELINE = "baseline"   # the "library" optimaltrees as found in another checkout's src (--baseline DIR)


def data_files(args) -> dict[str, Path]:
    """NAME -> data file, failing early on a name without a file."""
    files = {name: Path(args.data_dir) / f"{name}.txt" for name in args.datasets}
    for path in files.values():
        if not path.is_file():
            raise FileNotFoundError(f"no data file {path}")
    return files


def fit_job(lib: str, data: Path, depth: int, time_limit: float | None, key: dict, *, jobs: int = 1,
            kill_after: float = 3600.0, baseline: str | None = None, tie_break: str = "first_found",
            cost: float = 0.0) -> Job:
    """A whole-data fit of ``lib``; a fit without a limit is killed after ``kill_after`` s.
    ``lib`` BASELINE is our fit run by the optimaltrees found in ``baseline``;
    ``tie_break`` is ours only (a baseline returns the first optimum it proves);
    ``cost``: the ``complexity_cost`` of ours and the baseline."""
    params = dict(data=str(data), depth=depth, time_limit=time_limit)
    if lib in (OURS, BASELINE):
        params["jobs"] = jobs
        if cost:
            params["cost"] = cost
    if lib == OURS and tie_break != "first_found":
        params["tie_break"] = tie_break
    fit = LIBRARIES[OURS if lib == BASELINE else lib][0]
    path = None
    if lib == BASELINE:
        if not baseline:
            raise ValueError("a baseline fit needs the baseline's folder")
        path = baseline
    if time_limit is None:
        return Job(fit, params, key, time_limit=kill_after, grace=0.0, path=path)
    return Job(fit, params, key, time_limit=time_limit, grace=60.0, path=path)


# ------------------------------------------------------------------ before/after (--baseline DIR)

def check_baseline(folder: str) -> str:
    """The absolute path of ``folder``, once a process really imports
    optimaltrees from it (the src folder of a built checkout); else an error."""
    path = os.path.realpath(folder)
    if not os.path.isfile(os.path.join(path, "optimaltrees", "__init__.py")):
        raise FileNotFoundError(f"--baseline {folder}: no optimaltrees package in it "
                                "(give the src folder of a built checkout)")
    rec = run_job(Job("idle", {"seconds": 0}, time_limit=300, path=path))
    if rec.get("status") != "ok":
        raise RuntimeError(f"--baseline {folder}: cannot run optimaltrees from it: {rec.get('message')}")
    return path


def _head(folder: str) -> tuple[str, bool] | None:
    """The commit checked out in ``folder`` and whether tracked files differ from it (None: no git)."""
    try:
        head = subprocess.run(["git", "-C", folder, "rev-parse", "HEAD"], capture_output=True,
                              text=True, timeout=30).stdout.strip()
        dirty = subprocess.run(["git", "-C", folder, "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, timeout=30).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return (head, bool(dirty)) if head else None


def baseline_note(baseline: str) -> str:
    """One report line: where the before and after versions come from.

    It names the folders and says whether they hold the same commit, not
    which: reports are regenerated in place and the tree's text names no
    commits (version control keeps that history)."""
    import optimaltrees

    here = os.path.dirname(os.path.dirname(os.path.realpath(optimaltrees.__file__)))
    before, after = _head(baseline), _head(here)
    if before is None or after is None:
        source = "commits unknown (no git)"
    else:
        source = "the same commit" if before[0] == after[0] else "different commits"
        changed = [side for side, state in (("before", before), ("after", after)) if state[1]]
        if changed:
            source += f", uncommitted changes in {' and '.join(changed)}"
    return (f"Before/after: `{BASELINE}` (before) is optimaltrees from `{baseline}`, `{OURS}` (after) from "
            f"`{here}` ({source}); both run the same fit in their own processes, alternating; ratios are "
            "after/before (below 1: faster now).")


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
        lower_bounds=sorted({r["lower_bound"] for r in ok if r.get("lower_bound") is not None}),
        proven=bool(ok) and len(ok) == len(recs) and all(r.get("optimal") is True for r in ok),
        limited=any(r.get("timed_out") or r.get("status") == "killed" for r in recs),
        median_s=median("seconds"), median_cpu_s=median("cpu_seconds"), median_mb=median("peak_rss_mb"),
        peak_mb=max((r["peak_rss_mb"] for r in ok if r.get("peak_rss_mb") is not None), default=None),
        delta_mb=max(deltas) if deltas else None,
        pred_mismatch=any(r.get("error_predict") is not None and r["error_predict"] != r.get("error")
                          for r in ok),
        messages=sorted({r.get("message", "") for r in recs if r.get("status") != "ok"}))


def agree(a: dict, b: dict, tol: float = 0.0) -> str:
    """✓ / ✗ / n/a / err for the training errors of two libraries' summaries;
    ``tol``: errors this close are equal (a sum of squares in floating point)."""
    if not a["errors"] or not b["errors"]:
        return "err" if (a["failed"] or b["failed"]) else "n/a"
    if a["proven"] and b["proven"]:
        both = a["errors"] + b["errors"]
        return "✓" if max(both) - min(both) <= tol else "✗"
    # a proven optimum must be <= anything the other side found, proven or not
    if a["proven"] and min(b["errors"]) < max(a["errors"]) - tol:
        return "✗"
    if b["proven"] and min(a["errors"]) < max(b["errors"]) - tol:
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
