"""Child process of the benchmark runner: read one job from stdin, fit, print
one JSON line.  Whatever the fitted library prints goes to stderr, so stdout
carries only the record."""
from __future__ import annotations

import contextlib
import json
import math
import os
import resource
import sys
import traceback


def peak_rss_mb() -> float:
    kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss   # KiB on Linux
    return round(kb / (1024.0 if sys.platform != "darwin" else 1024.0 ** 2), 1)


@contextlib.contextmanager
def stdout_to_stderr():
    """Point file descriptor 1 at stderr (also for C and C++ code)."""
    sys.stdout.flush()
    saved = os.dup(1)
    try:
        os.dup2(2, 1)
        yield
    finally:
        sys.stdout.flush()
        os.dup2(saved, 1)
        os.close(saved)


def _clean(value):
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_clean(v) for v in value]
    return value


def resolve(name: str):
    """A fit function: ``NAME`` in optimaltrees.bench.fits, or ``module:NAME``
    inside optimaltrees.bench (a suite's own fit)."""
    import importlib

    module, _, func = name.rpartition(":")
    module = module or "optimaltrees.bench.fits"
    if not module.startswith("optimaltrees.bench") or func.startswith("_"):
        raise ValueError(f"unknown fit {name!r}")
    fit = getattr(importlib.import_module(module), func, None)
    if not callable(fit):
        raise ValueError(f"unknown fit {name!r}")
    return fit


def main() -> int:
    spec = json.loads(sys.stdin.read())
    out = os.fdopen(os.dup(1), "w")
    record: dict = {"status": "ok"}
    try:
        with stdout_to_stderr():
            record.update(resolve(spec["fit"])(**spec["params"]))
    except Exception as exc:
        traceback.print_exc(file=sys.stderr)
        record.update(status="failed", message=f"{type(exc).__name__}: {exc}")
    record["peak_rss_mb"] = peak_rss_mb()
    out.write(json.dumps(_clean(record)) + "\n")
    out.flush()
    return 0 if record["status"] == "ok" else 1


if __name__ == "__main__":
    sys.exit(main())
