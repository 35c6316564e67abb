"""One benchmark fit per function: each runs inside a fresh worker process
(:mod:`optimaltrees.bench.worker`) and returns a JSON-able record.

Only the library a function names is imported, so a peer that is not
installed fails its own runs (status "failed", ImportError) and nothing else;
the suites check :data:`LIBRARIES` with :func:`missing_libraries` first and
skip such a peer with a note instead.
"""
from __future__ import annotations

import importlib.util
import resource
import time
import warnings

import numpy as np

from optimaltrees.bench.data import load_table, split_rows


def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


class _Clock:
    """Wall and CPU seconds of the fit() call alone, and the peak RSS just
    before it (so peak minus that is roughly what the fit itself allocated)."""

    def __enter__(self):
        from optimaltrees.bench.worker import peak_rss_mb

        self.rss_before_mb = peak_rss_mb()
        self.t0, self.c0 = time.perf_counter(), _cpu()
        return self

    def __exit__(self, *exc):
        self.seconds = time.perf_counter() - self.t0
        self.cpu_seconds = _cpu() - self.c0
        return False


def _accuracy(model, X, y) -> float | None:
    return None if len(y) == 0 else float(np.mean(model.predict(X) == y))


def _split(data: str, seed: int, fractions):
    X, y, names = load_table(data)
    parts = split_rows(y, seed, fractions)
    return [(X[p], y[p]) for p in parts], names, X.shape


def diagram(*, data: str, seed: int, skeleton, splits: str = "univariate", tree: bool = False,
            alpha: float = 0.01, time_limit: float = 60.0, fractions=(0.5, 0.25, 0.25),
            save: str | None = None) -> dict:
    """DecisionDiagramClassifier on a train/validation/test split of a table."""
    from optimaltrees import DecisionDiagramClassifier

    (tr, va, te), names, shape = _split(data, seed, fractions)
    model = DecisionDiagramClassifier(tuple(skeleton), splits=splits, tree=tree, alpha=alpha,
                                      time_limit=time_limit, random_state=seed)
    with _Clock() as clock:
        model.fit(*tr)
    if save:
        from optimaltrees.io import save_model

        save_model(model, save)
    s = model.summary_
    return dict(n=shape[0], p=shape[1], seconds=clock.seconds, cpu_seconds=clock.cpu_seconds,
                train_acc=_accuracy(model, *tr), val_acc=_accuracy(model, *va),
                test_acc=_accuracy(model, *te), objective=s.objective, bound=s.lower_bound,
                gap=s.gap, optimal=s.proven, timed_out=s.timed_out, solver_status=model.status_,
                from_heuristic=bool(model.from_heuristic_), heuristic_objective=model.heuristic_objective_,
                source=model.diagram_source_, tree_bound=model.stats_.get("tree_bound"),
                nodes=int(model.n_nodes_), merges=int(np.sum(model.diagram_.in_degree()[1:] > 1)),
                train_error=int(model.train_error_), points=int(model.stats_["points"]),
                variables=model.stats_.get("variables"))


def optimal_tree_split(*, data: str, seed: int, depth: int, time_limit: float = 60.0,
                       fractions=(0.5, 0.25, 0.25)) -> dict:
    """OptimalTreeClassifier of a given depth on the same split as :func:`diagram`."""
    import warnings

    from optimaltrees import OptimalTreeClassifier

    (tr, va, te), names, shape = _split(data, seed, fractions)
    model = OptimalTreeClassifier(max_depth=depth, time_limit=time_limit)
    with _Clock() as clock, warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)     # the time-out warning: the record says it
        model.fit(*tr)
    s = model.summary_
    return dict(n=shape[0], p=shape[1], seconds=clock.seconds, cpu_seconds=clock.cpu_seconds,
                train_acc=_accuracy(model, *tr), val_acc=_accuracy(model, *va),
                test_acc=_accuracy(model, *te), optimal=s.proven, timed_out=s.timed_out, gap=s.gap,
                nodes=int(model.tree_.n_branch_nodes))


def cart_split(*, data: str, seed: int, depth: int, fractions=(0.5, 0.25, 0.25)) -> dict:
    """scikit-learn's CART of a given depth on the same split as :func:`diagram`."""
    from sklearn.tree import DecisionTreeClassifier

    (tr, va, te), names, shape = _split(data, seed, fractions)
    model = DecisionTreeClassifier(max_depth=depth, random_state=seed)
    with _Clock() as clock:
        model.fit(*tr)
    return dict(n=shape[0], p=shape[1], seconds=clock.seconds, cpu_seconds=clock.cpu_seconds,
                train_acc=_accuracy(model, *tr), val_acc=_accuracy(model, *va),
                test_acc=_accuracy(model, *te), optimal=False,
                nodes=int(np.sum(model.tree_.children_left >= 0)))


# ---------------------------------------------------------------- whole-data tree fits

#: library name used by the suites -> (fit function here, module it imports,
#: distribution name for its version)
LIBRARIES = {
    "optimaltrees": ("tree", "optimaltrees", "optimaltrees"),
    "cart": ("cart", "sklearn", "scikit-learn"),
    "pycontree": ("pycontree", "pycontree", "pycontree"),
    "pystreed": ("pystreed", "pystreed", "pystreed"),
    "pydl85": ("pydl85", "pydl85", "pydl8.5"),
}


def missing_libraries(libs) -> list[str]:
    """The libraries among ``libs`` that this interpreter cannot import (checked
    without importing them), so a suite can skip them up front."""
    return [lib for lib in libs if importlib.util.find_spec(LIBRARIES[lib][1]) is None]


def libraries_note(libs, missing) -> str:
    """One report line: versions of the libraries that ran, and which were skipped."""
    from importlib.metadata import PackageNotFoundError, version

    def ver(lib: str) -> str:
        try:
            return version(LIBRARIES[lib][2])
        except PackageNotFoundError:
            return "?"

    line = "Libraries: " + ", ".join(f"{lib} {ver(lib)}" for lib in libs if lib not in missing) + "."
    if missing:
        line += (f" **Skipped, not installed: {', '.join(missing)}** (`pip install '.[bench]'` "
                 "installs the peers).")
    return line


def _tree_record(X, errors: int, clock: _Clock, **extra) -> dict:
    return dict(error=int(errors), seconds=clock.seconds, cpu_seconds=clock.cpu_seconds,
                n=int(X.shape[0]), p=int(X.shape[1]), rss_before_fit_mb=clock.rss_before_mb, **extra)


def tree(*, data: str, depth: int, time_limit: float | None = None, search: str = "exhaustive",
         schedule: str = "luby", jobs: int = 1) -> dict:
    """OptimalTreeClassifier on a whole data set (training error, proof, trace)."""
    from optimaltrees import OptimalTreeClassifier

    X, y, _ = load_table(data)
    model = OptimalTreeClassifier(max_depth=depth, time_limit=time_limit, n_jobs=jobs, search=search,
                                  schedule=schedule)
    with _Clock() as clock:
        model.fit(X, y)
    recomputed = int((model.predict(X) != y).sum())
    s = model.summary_
    return _tree_record(X, model.train_error_, clock, error_predict=recomputed,
                        optimal=s.proven, lower_bound=s.lower_bound, gap=s.gap, timed_out=s.timed_out,
                        search=search, schedule=schedule, jobs=jobs,
                        trace=[[round(p.time, 6), int(p.error), float(p.lower_bound)] for p in model.trace_])


def cart(*, data: str, depth: int, time_limit: float | None = None) -> dict:
    """CART of the same depth on a whole data set: the greedy reference."""
    from sklearn.tree import DecisionTreeClassifier

    X, y, _ = load_table(data)
    model = DecisionTreeClassifier(max_depth=depth, random_state=0)
    with _Clock() as clock:
        model.fit(X, y)
    errors = int((model.predict(X) != y).sum())
    return _tree_record(X, errors, clock, optimal=False, timed_out=False,
                        trace=[[round(clock.seconds, 6), errors, 0.0]])


def pycontree(*, data: str, depth: int, time_limit: float | None = None) -> dict:
    """pycontree's ConTree; exact, so finishing inside its limit means optimal.
    It has no "no limit" setting, so no limit becomes one that is never reached."""
    from pycontree import ConTree

    X, y, _ = load_table(data)
    model = ConTree(max_depth=depth, time_limit=float(time_limit) if time_limit else 1e9)
    with warnings.catch_warnings(record=True) as caught, _Clock() as clock:
        warnings.simplefilter("always")
        model.fit(X, y)
    hit = any("exceeds time limit" in str(w.message) for w in caught)
    config = getattr(model, "_config", None)
    if config is not None and hasattr(config, "is_within_time_limit"):
        hit = hit or not config.is_within_time_limit()
    errors = int((model.predict(X) != y).sum())
    return _tree_record(X, errors, clock, optimal=not hit, timed_out=hit)


def _binary(X: np.ndarray, peer: str) -> np.ndarray:
    Xi = X.astype(int)
    if not (Xi == X).all() or Xi.min() < 0 or Xi.max() > 1:
        raise ValueError(f"{peer} needs 0/1 features")
    return Xi


def pystreed(*, data: str, depth: int, time_limit: float | None = None) -> dict:
    """STreeD; exact, no bound exposed: optimal when it stops before its limit."""
    from pystreed import STreeDClassifier

    X, y, _ = load_table(data)
    Xi = _binary(X, "pystreed")
    limit = float(time_limit) if time_limit else 1e9
    model = STreeDClassifier(max_depth=depth, time_limit=limit)
    with _Clock() as clock:
        model.fit(Xi, y)
    hit = clock.seconds >= 0.99 * limit
    return _tree_record(X, int((model.predict(Xi) != y).sum()), clock, optimal=not hit, timed_out=hit)


def pydl85(*, data: str, depth: int, time_limit: float | None = None) -> dict:
    """DL8.5; ``timeout_`` says whether it stopped at its limit."""
    from pydl85 import DL85Classifier

    X, y, _ = load_table(data)
    Xi = _binary(X, "pydl8.5")
    model = DL85Classifier(max_depth=depth, time_limit=0 if time_limit is None else float(time_limit))
    with _Clock() as clock:
        model.fit(Xi, y)
    hit = bool(getattr(model, "timeout_", False))
    return _tree_record(X, int((model.predict(Xi) != y).sum()), clock, optimal=not hit, timed_out=hit)


# ---------------------------------------------------------------- smallest perfect trees (SAT suite)

def _categorical(data: str, drop):
    """Features as a DataFrame (every column is then taken as categorical) and labels."""
    from optimaltrees.data.tables import read_table

    table = read_table(data)
    absent = [c for c in drop if c not in table.X.columns]
    if absent:
        raise ValueError(f"{data}: no column {absent[0]!r} to drop")
    return table.X.drop(columns=list(drop)), table.y


def _sat_record(model, clock: _Clock) -> dict:
    st = model.stats_
    return dict(seconds=clock.seconds, cpu_seconds=clock.cpu_seconds, depth=int(model.depth_),
                nodes=int(model.n_nodes_), optimal=model.summary_.proven, train_errors=int(model.train_error_),
                examples=int(st.get("examples_encoded", 0)), sat_calls=int(st.get("sat_calls", 0)),
                rounds=int(st.get("rounds", 0)), repaired=int(st.get("repaired", 0)),
                variables=int(st.get("variables", 0)), clauses=int(st.get("clauses", 0)))


#: how the sat suite turns columns into yes/no tests (SATTreeClassifier's ``categorical``)
SAT_TESTS = {"onehot": "all", "auto": "auto"}


def sat(*, data: str, drop=(), objective: str = "depth", solver: str = "cadical195",
        depth_search: str = "sat", tests: str = "onehot", repair="auto",
        random_state: int | None = None) -> dict:
    """SATTreeClassifier (Avellaneda's DT-depth / DT-size); ``tests``: "onehot"
    (one test per value of every column) or "auto" (integer columns become
    thresholds); ``depth_search="dp"`` finds the smallest depth with the DP
    engine instead; ``repair=None`` is the paper's plain loop; ``random_state``
    shuffles the order in which examples are tried."""
    from optimaltrees import SATTreeClassifier

    X, y = _categorical(data, drop)
    # time_limit=None: the paper's method alone (no greedy fallback); the runner's
    # per-fit limit stops it
    model = SATTreeClassifier(objective, categorical=SAT_TESTS[tests], solver=solver,
                              depth_search=depth_search, repair=repair, random_state=random_state,
                              time_limit=None)
    with _Clock() as clock:
        model.fit(X, y)
    return _sat_record(model, clock)


def dp_size(*, data: str, drop=(), tests: str = "onehot") -> dict:
    """DT-size by the DP engine alone, on the same Boolean tests as :func:`sat`:
    the smallest depth k with zero error, then at k a node cost below one
    error / 2^(k+1) makes the optimum the fewest nodes among zero-error trees."""
    from optimaltrees import OptimalTreeClassifier, SATTreeClassifier

    X, y = _categorical(data, drop)
    with _Clock() as clock:
        depth_fit = SATTreeClassifier("depth", categorical=SAT_TESTS[tests], depth_search="dp",
                                      time_limit=None).fit(X, y)
        B = depth_fit.binarizer_.transform(X).astype(float)
        k = depth_fit.min_depth_
        model = OptimalTreeClassifier(max_depth=k, complexity_cost=1.0 / 2 ** (k + 1) / len(y)).fit(B, y)
    if model.train_error_ != 0:
        raise RuntimeError(f"the DP tree of depth {k} makes {model.train_error_} errors, expected none")
    return dict(seconds=clock.seconds, cpu_seconds=clock.cpu_seconds, depth=int(model.get_depth()),
                nodes=int(model.tree_.node_count), optimal=model.summary_.proven, train_errors=0,
                examples=0, sat_calls=0, variables=0, clauses=0)


def idle(*, seconds: float) -> dict:
    """Wait and return: the runner's self-check of time limits and process isolation."""
    time.sleep(float(seconds))
    return dict(seconds=float(seconds))
