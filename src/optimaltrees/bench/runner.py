"""Run benchmark fits on Dask, each in its own process with its own limits.

A :class:`Job` names a fit function of :mod:`optimaltrees.bench.fits` and its
parameters.  :func:`run_job` runs it in a fresh Python process (so imports,
allocator state and peak memory of one fit never touch another, and a runaway
fit can be killed) under a wall-clock limit and an address-space cap; a crash,
a kill or a timeout becomes a record with that status instead of an exception.
:func:`run_jobs` spreads jobs over a ``dask.distributed`` cluster: a local one
by default, or the scheduler at ``scheduler`` (its workers need this package
and the data files at the same paths).
"""
from __future__ import annotations

import json
import os
import resource
import signal
import subprocess
import sys
from dataclasses import dataclass, field
from typing import Callable, Iterable

from optimaltrees._optional import require


@dataclass(frozen=True)
class Job:
    fit: str                          # name of a function in optimaltrees.bench.fits
    params: dict                      # its keyword arguments (JSON-serialisable)
    key: dict = field(default_factory=dict)   # what identifies the run in the report
    time_limit: float | None = None   # the fit's own limit; the process is killed at limit + grace
    grace: float = 60.0
    memory_mb: int | None = 8192      # address-space cap of the fit's process
    path: str | None = None           # import optimaltrees (fits included) from this folder instead,
                                      # e.g. the src of another checkout: a before/after baseline


def _limit_memory(mb: int | None):
    def apply() -> None:  # runs in the child between fork and exec
        if mb is not None:
            cap = int(mb) * 1024 * 1024
            resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
    return apply


# The child of a Job with a path: that folder first on sys.path, and a loud
# failure (no record) when optimaltrees still comes from somewhere else.
_FROM_PATH = """\
import os, sys
root = os.path.realpath(sys.argv[1])
sys.path.insert(0, root)
import optimaltrees
found = os.path.realpath(optimaltrees.__file__)
if not found.startswith(root + os.sep):
    sys.exit(f"optimaltrees was imported from {found}, not from {root}")
from optimaltrees.bench.worker import main
sys.exit(main())
"""


def _command(job: Job, python: str | None) -> tuple[list[str], dict | None]:
    """The worker's command line and environment (None: this one's)."""
    python = python or sys.executable
    if job.path is None:
        return [python, "-m", "optimaltrees.bench.worker"], None
    # also on PYTHONPATH, for any process the fit starts itself
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [job.path, os.environ.get("PYTHONPATH")])))
    return [python, "-c", _FROM_PATH, job.path], env


_LIVE: set[subprocess.Popen] = set()   # fits running in this process's threads (a local cluster)


def _kill(proc: subprocess.Popen, reap: bool = True) -> None:
    """SIGKILL the fit's whole session; ``reap`` collects it (only from the
    thread that waits on it: another thread's kill lets that wait return)."""
    try:
        if os.name == "posix":
            os.killpg(proc.pid, signal.SIGKILL)
        else:  # pragma: no cover
            proc.kill()
    except ProcessLookupError:
        pass
    if reap:
        proc.communicate()


def run_job(job: Job, python: str | None = None) -> dict:
    """Run one fit in a child process and return its record (never raises for
    a failing fit: the record's ``status`` says ok, failed, killed or crashed)."""
    record = dict(job.key, fit=job.fit)
    spec = json.dumps({"fit": job.fit, "params": job.params})
    timeout = None if job.time_limit is None else job.time_limit + job.grace
    try:
        # its own session, so that a kill also reaches anything the fit started (e.g. a SAT worker)
        command, env = _command(job, python)
        proc = subprocess.Popen(command, env=env,
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                start_new_session=os.name == "posix",
                                preexec_fn=_limit_memory(job.memory_mb) if os.name == "posix" else None)
    except OSError as exc:   # e.g. the memory cap is too small to start Python at all
        record.update(status="crashed", message=f"could not start the fit: {exc}")
        return record
    _LIVE.add(proc)
    try:
        stdout, stderr = proc.communicate(spec, timeout=timeout)
    except subprocess.TimeoutExpired:
        _kill(proc)
        record.update(status="killed", message=f"no answer within {timeout:g} s (time limit + grace)")
        return record
    except BaseException:    # the suite itself is stopped: take the fit down with it
        _kill(proc)
        raise
    finally:
        _LIVE.discard(proc)
    lines = [ln for ln in stdout.splitlines() if ln.startswith("{")]
    if not lines:
        tail = stderr.strip().splitlines()[-3:]
        why = "out of memory" if "MemoryError" in stderr else f"exit code {proc.returncode}"
        record.update(status="crashed", message=f"{why}: " + " | ".join(tail))
        return record
    record.update(json.loads(lines[-1]))
    return record


def run_jobs(jobs: Iterable[Job], *, scheduler: str | None = None, workers: int = 1,
             on_record: Callable[[dict], None] | None = None, python: str | None = None) -> list[dict]:
    """Run every job on a Dask cluster; ``on_record`` sees each record as it
    arrives (e.g. to rewrite the report).  Returns the records in job order."""
    distributed = require("dask.distributed", "bench", "running benchmark suites")
    Client, LocalCluster, as_completed = distributed.Client, distributed.LocalCluster, distributed.as_completed

    jobs = list(jobs)
    if scheduler:
        client, cluster = Client(scheduler), None
    else:
        # threads are enough: every task only waits on its own child process
        cluster = LocalCluster(n_workers=max(1, int(workers)), threads_per_worker=1, processes=False,
                               dashboard_address=":0")
        client = Client(cluster)
    try:
        futures = [client.submit(run_job, job, python, pure=False) for job in jobs]
        index = {f.key: i for i, f in enumerate(futures)}
        records: list[dict | None] = [None] * len(jobs)
        for fut in as_completed(futures):
            rec = fut.result()
            records[index[fut.key]] = rec
            if on_record is not None:
                on_record(rec)
        return [r for r in records if r is not None]
    except BaseException:
        # Ctrl-C or an error in on_record: the fits run in their own sessions
        # (out of reach of the terminal's signal), so stop them here
        for proc in list(_LIVE):
            _kill(proc, reap=False)
        raise
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


# ------------------------------------------------------------------ persistent local workers

def _serve(conn, memory_mb: int | None) -> None:
    """A worker of :func:`run_jobs_in_workers`: run (index, fit, params) messages until None."""
    if os.name == "posix":
        os.setsid()          # its own session: a kill also reaches anything a fit starts
    _limit_memory(memory_mb)()
    from optimaltrees.bench.worker import _clean, resolve, stdout_to_stderr

    while True:
        try:
            message = conn.recv()
        except (EOFError, OSError, KeyboardInterrupt):
            return
        if message is None:
            return
        index, fit, params = message
        record: dict = {"status": "ok"}
        try:
            with stdout_to_stderr():
                record.update(resolve(fit)(**params))
        except Exception as exc:   # a failing fit is a record, and the worker goes on
            record.update(status="failed", message=f"{type(exc).__name__}: {exc}")
        conn.send((index, _clean(record)))


def run_jobs_in_workers(jobs: Iterable[Job], *, workers: int = 1,
                        on_record: Callable[[dict], None] | None = None) -> list[dict]:
    """Run every job in one of ``workers`` local processes that live for the
    whole run, as scikit-learn's cross-validation does: the imports, and
    whatever the fit functions cache (a suite's data, read once), are paid
    once per worker, and on a fork platform once for all (the workers are
    forked from this process).  Each job keeps its limits: a job without an
    answer by its time limit + grace is killed with its worker (which is
    replaced) and recorded as killed; a worker that dies is recorded as
    crashed; ``Job.memory_mb`` caps each worker.  Jobs with a ``path`` are
    not supported (use :func:`run_jobs`).  Returns the records in job order."""
    import multiprocessing
    import time
    from collections import deque
    from multiprocessing.connection import wait

    jobs = list(jobs)
    if any(job.path is not None for job in jobs):
        raise ValueError("run_jobs_in_workers runs this optimaltrees only (a job has a path)")
    methods = multiprocessing.get_all_start_methods()
    ctx = multiprocessing.get_context("fork" if "fork" in methods else "spawn")
    memory = max((job.memory_mb for job in jobs if job.memory_mb is not None), default=None)
    records: list[dict | None] = [None] * len(jobs)
    todo = deque(range(len(jobs)))
    slots: list[dict] = []

    def start() -> dict:
        mine, theirs = ctx.Pipe()
        proc = ctx.Process(target=_serve, args=(theirs, memory), name="optimaltrees-bench-worker")
        proc.start()
        theirs.close()
        return {"proc": proc, "conn": mine, "job": None, "deadline": None}

    def stop(slot: dict) -> None:
        proc = slot["proc"]
        try:
            os.killpg(proc.pid, signal.SIGKILL) if os.name == "posix" else proc.kill()
        except (ProcessLookupError, PermissionError):
            proc.kill()
        proc.join()
        slot["conn"].close()

    def done(index: int, rec: dict) -> None:
        job = jobs[index]
        records[index] = dict(job.key, fit=job.fit, **rec)
        if on_record is not None:
            on_record(records[index])

    try:
        slots = [start() for _ in range(max(1, min(int(workers), len(jobs))))]
        while todo or any(s["job"] is not None for s in slots):
            now = time.monotonic()
            for s in slots:
                if s["job"] is None and todo:
                    index = todo.popleft()
                    job = jobs[index]
                    s["conn"].send((index, job.fit, job.params))
                    s["job"] = index
                    s["deadline"] = None if job.time_limit is None else now + job.time_limit + job.grace
            busy = [s for s in slots if s["job"] is not None]
            deadlines = [s["deadline"] for s in busy if s["deadline"] is not None]
            timeout = max(0.0, min(deadlines) - now) if deadlines else None
            ready = wait([s["conn"] for s in busy], timeout)
            now = time.monotonic()
            for k, s in enumerate(slots):
                if s["job"] is None:
                    continue
                index = s["job"]
                if s["conn"] in ready:
                    try:
                        got, rec = s["conn"].recv()
                    except (EOFError, OSError):    # the worker died: out of memory, a crash in C code
                        s["proc"].join(timeout=5)
                        code = s["proc"].exitcode
                        stop(s)
                        slots[k] = start()
                        done(index, {"status": "crashed", "message": f"the worker died (exit code {code})"})
                        continue
                    s["job"] = None
                    done(got, rec)
                elif s["deadline"] is not None and now >= s["deadline"]:
                    job = jobs[index]
                    stop(s)
                    slots[k] = start()
                    done(index, {"status": "killed", "message": f"no answer within "
                                 f"{job.time_limit + job.grace:g} s (time limit + grace)"})
        for s in slots:          # a clean goodbye
            try:
                s["conn"].send(None)
            except OSError:
                pass
            s["proc"].join(timeout=10)
    finally:
        for s in slots:
            if s["proc"].is_alive():
                stop(s)
    return [r for r in records if r is not None]
