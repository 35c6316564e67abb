"""Benchmark suites, run on Dask: ``optimaltrees bench SUITE``.

Each suite module (``optimaltrees.bench.suites.NAME``) says which fits to
run (``plan``) and how to report them (``report``); :func:`run_suite` runs
the fits (each in its own process, :mod:`optimaltrees.bench.runner`; a suite
with a ``run_local`` runs them its own way unless a scheduler is given, and
one with a ``progress`` writes its own progress lines), keeps
every record in ``OUT.jsonl`` and rewrites the markdown report ``OUT`` as
results arrive, so an interrupted suite still leaves a partial report.

Reports go to ``benchmarks/results/SUITE/NAME.md`` by default: each suite keeps
its current reports in its own folder, one per setting, and a new run of a
setting overwrites its report (earlier measurements live in version control,
so the folder never holds two reports of the same setting side by side).
"""
from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path

SUITES = ("contree", "binary", "anytime", "sat", "sat-table3", "sat-artificial", "diagrams", "cv", "missing", "scale",
          "regression", "selection", "exports", "tables")


def suite_module(name: str):
    if name not in SUITES:
        raise ValueError(f"unknown suite {name!r}; the suites are {', '.join(SUITES)}")
    return importlib.import_module(f"optimaltrees.bench.suites.{name.replace('-', '_')}")


RESULTS = Path("benchmarks/results")


def default_report(name: str, args=None) -> Path:
    """Where suite ``name`` writes without ``--out``: ``benchmarks/results/SUITE/NAME.md``,
    NAME being the suite's ``report_name(args)`` where it has one (a name for
    the setting, e.g. ``binary-d6``), else the suite's name."""
    suite = suite_module(name)
    stem = suite.report_name(args) if args is not None and hasattr(suite, "report_name") else name
    return RESULTS / name / f"{stem}.md"


def run_suite(name: str, args) -> Path:
    """Run suite ``name`` with parsed options ``args`` (see ``optimaltrees bench --help``)."""
    suite = suite_module(name)
    out = Path(args.out) if args.out else default_report(name, args)
    args.out = str(out)         # the suites name their pictures after the report
    out.parent.mkdir(parents=True, exist_ok=True)
    jobs = suite.plan(args, out.parent)
    raw = out.with_suffix(".jsonl")
    records: list[dict] = []
    if getattr(args, "resume", False) and raw.is_file():
        records = previous_records(raw)
        jobs = [job for job in jobs if not any(_matches(job.key, rec) for rec in records)]
        raw.write_text("".join(json.dumps(rec) + "\n" for rec in records))   # without a torn last line
    total = len(records) + len(jobs)
    from optimaltrees.bench.runner import run_jobs

    with raw.open("a" if records else "w") as sink:
        def on_record(rec: dict) -> None:
            records.append(rec)
            sink.write(json.dumps(rec) + "\n")
            sink.flush()
            if hasattr(suite, "progress"):
                line = suite.progress(rec, len(records), total, args)
            else:
                line = f"[{len(records)}/{total}] " + " ".join(
                    f"{k}={v}" for k, v in rec.items()
                    if k in ("dataset", "depth", "seed", "skeleton", "method", "lib", "config", "status", "seconds"))
            print(line, file=sys.stderr, flush=True)
            if len(records) % max(1, getattr(args, "report_every", 1)) == 0:
                out.write_text(suite.report(records, args, out.parent))

        if hasattr(suite, "run_local") and not args.scheduler:
            args.runs_on = f"{args.workers} local worker process(es)"
            suite.run_local(args, jobs, on_record)
        else:
            run_jobs(jobs, scheduler=args.scheduler, workers=args.workers, on_record=on_record)
    out.write_text(suite.report(records, args, out.parent))
    return out


def previous_records(raw: Path) -> list[dict]:
    """The records of an earlier run of the suite (a torn last line, from a
    run that was killed mid-write, is dropped)."""
    records = []
    for line in raw.read_text().splitlines():
        try:
            rec = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(rec, dict):
            records.append(rec)
    return records


def _matches(key: dict, record: dict) -> bool:
    return all(record.get(k) == v for k, v in key.items())
