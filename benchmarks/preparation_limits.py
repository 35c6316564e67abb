"""How far a fit overruns a short time limit when its data preparation is
the expensive part (wide categorical columns, thousands of SAT tests).

Each fit runs in a fresh interpreter (so page faults and imports count as a
user's first fit does), ``--repeats`` times per case and per Python; the
table gives the median wall time of ``fit`` and its overrun of the limit.

    python benchmarks/preparation_limits.py [--python .venv/bin/python] \\
        [--before /path/to/old/venv/bin/python]

writes ``benchmarks/results/preparation-limits/preparation-limits.md`` (the
committed report; ``--out`` elsewhere).  ``--before`` adds an older install's
columns, to review a change; the committed report has the current columns only.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import textwrap

#: name -> (what, limit in seconds, code building X, y and the estimator ``est``)
CASES = {
    "tree-cat-20k": ("OptimalTreeClassifier depth 3, 20,000 rows x (4,000 categories + 1 numeric)", 0.2, """
        X = pd.DataFrame({"s": rng.integers(0, 4000, 20000).astype(str), "a": rng.random(20000)})
        y = rng.integers(0, 2, 20000)
        est = OptimalTreeClassifier(max_depth=3, time_limit=LIMIT)"""),
    "tree-cat-65k": ("OptimalTreeClassifier depth 3, 65,000 rows x (4,000 categories + 1 numeric): "
                     "2.6e8 cells, near the encoder's cap", 0.2, """
        X = pd.DataFrame({"s": rng.integers(0, 4000, 65000).astype(str), "a": rng.random(65000)})
        y = rng.integers(0, 2, 65000)
        est = OptimalTreeClassifier(max_depth=3, time_limit=LIMIT)"""),
    "sat-cat-20k": ("SATTreeClassifier depth, 20,000 rows x (4,000 categories + 1 column of 10 values)", 0.5, """
        s = rng.integers(0, 4000, 20000)
        X = pd.DataFrame({"s": s.astype(str), "a": rng.integers(0, 10, 20000)})
        y = (s % 3 == 0).astype(int)                  # a function of the row: a perfect tree exists
        est = SATTreeClassifier("depth", time_limit=LIMIT)"""),
    "sat-num-10k": ("SATTreeClassifier depth, 10,000 rows x 26 three-decimal columns (26,000 tests)", 0.3, """
        X = np.round(rng.random((10000, 26)), 3)
        y = (X[:, 0] + X[:, 1] > 1).astype(int)
        est = SATTreeClassifier("depth", time_limit=LIMIT)"""),
    "sat-num-3k": ("SATTreeClassifier size, 3,000 rows x 10 float columns (30,000 tests)", 0.05, """
        X = rng.random((3000, 10))
        y = (rng.random(3000) < 0.5).astype(int)
        est = SATTreeClassifier("size", time_limit=LIMIT)"""),
    "tree-text-200k": ("OptimalTreeClassifier depth 2, 200,000 rows x 60 text columns of 3 values", 0.2, """
        X = pd.DataFrame({f"s{i}": rng.choice(["a", "b", "c"], 200000).astype(object) for i in range(60)})
        y = rng.integers(0, 2, 200000)
        est = OptimalTreeClassifier(max_depth=2, time_limit=LIMIT, categorical_features="from_dtype")"""),
    "sat-text-200k": ("SATTreeClassifier errors depth 2, 200,000 rows x 60 text columns of 3 values", 0.2, """
        X = pd.DataFrame({f"s{i}": rng.choice(["a", "b", "c"], 200000).astype(object) for i in range(60)})
        y = rng.integers(0, 2, 200000)
        est = SATTreeClassifier("errors", max_depth=2, time_limit=LIMIT)"""),
    "dd-cat-20k": ("DecisionDiagramClassifier (1, 2, 4, 4), 20,000 rows x (4,000 categories + 1 numeric): "
                   "its MILP is too large, refused", 1.0, """
        X = pd.DataFrame({"s": rng.integers(0, 4000, 20000).astype(str), "a": rng.random(20000)})
        y = (X["a"] > 0.5).astype(int).to_numpy()
        est = DecisionDiagramClassifier((1, 2, 4, 4), time_limit=LIMIT)"""),
}


def _run(python: str, code: str, limit: float) -> dict:
    script = textwrap.dedent("""
        import json, time, warnings
        import numpy as np, pandas as pd
        from optimaltrees import DecisionDiagramClassifier, OptimalTreeClassifier, SATTreeClassifier
        warnings.simplefilter("ignore")
        rng = np.random.default_rng(0)
        LIMIT = %r
    """ % limit) + textwrap.dedent(code) + textwrap.dedent("""
        t = time.perf_counter()
        try:
            est.fit(X, y)
            model = est.diagram_ if hasattr(est, "diagram_") else est.tree_
            out = {"seconds": time.perf_counter() - t, "nodes": int(model.node_count),
                   "timed_out": bool(est.timed_out_)}
        except Exception as exc:
            out = {"seconds": time.perf_counter() - t, "error": f"{type(exc).__name__}: {str(exc)[:80]}"}
        print(json.dumps(out))
    """)
    proc = subprocess.run([python, "-c", script], capture_output=True, text=True, timeout=600)
    if proc.returncode != 0:
        return {"seconds": float("nan"), "error": proc.stderr.strip().splitlines()[-1][:80]}
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--python", default=sys.executable, help="the interpreter with the package to measure")
    ap.add_argument("--before", help="an interpreter with an older install, measured beside it")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--cases", nargs="+", default=list(CASES), choices=list(CASES))
    ap.add_argument("--out", default="benchmarks/results/preparation-limits/preparation-limits.md",
                    help="markdown file to write (default %(default)s)")
    args = ap.parse_args(argv)
    pythons = [("before", args.before)] if args.before else []
    pythons.append(("now", args.python))
    lines = ["# Time limits during data preparation", "",
             f"Fit wall time, median of {args.repeats} fresh processes (overrun = time - limit).", "",
             "| case | limit s | " + " | ".join(f"{who} s (overrun) | {who} answer" for who, _ in pythons) + " |",
             "|---|---:|" + "---:|---|" * len(pythons)]
    for name in args.cases:
        what, limit, code = CASES[name]
        cells = []
        for who, python in pythons:
            runs = [_run(python, code, limit) for _ in range(args.repeats)]
            sec = statistics.median(r["seconds"] for r in runs)
            answer = runs[-1].get("error") or (f"{runs[-1]['nodes']} nodes"
                                               + (", timed out" if runs[-1]["timed_out"] else ""))
            cells += [f"{sec:.2f} ({sec - limit:+.2f})", answer]
            print(name, who, [round(r["seconds"], 3) for r in runs], answer, flush=True)
        lines.append(f"| {name}: {what} | {limit:g} | " + " | ".join(cells) + " |")
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        os.makedirs(os.path.dirname(args.out) or ".", exist_ok=True)
        with open(args.out, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
