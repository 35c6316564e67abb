"""One benchmark fit per function: each runs inside a fresh worker process
(:mod:`optimaltrees.bench.worker`) and returns a JSON-able record.

Only the library a function names is imported, so a peer that is not
installed fails its own runs (status "failed", ImportError) and nothing else;
the suites check :data:`LIBRARIES` with :func:`missing_libraries` first and
skip such a peer with a note instead.
"""
from __future__ import annotations

import importlib.util
import os
import resource
import time
import warnings

import numpy as np

from optimaltrees.bench.data import (holdout_rows, load_table, quantile_binarise, regression_table, split_rows,
                                     uci_monks)


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
                variables=model.stats_.get("variables"), **_node_bound_record(model.stats_))


def _node_bound_record(stats: dict) -> dict:
    """What the SAT node bound did in a diagram fit (questions answered, and
    whether it answered every one it asked): where a proof got stuck."""
    if "sat_questions" not in stats:
        return {}
    return dict(sat_questions=len(stats["sat_questions"]), sat_complete=bool(stats["sat_complete"]),
                sat_seconds=round(float(stats["sat_seconds"]), 2))


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


def cart_pruned_split(*, data: str, seed: int, depth: int, fractions=(0.5, 0.25, 0.25)) -> dict:
    """CART of a given depth, cost-complexity pruned with the ``ccp_alpha``
    of its pruning path that scores best on the validation rows (ties: the
    smaller tree): CART's own regularisation, chosen on the same split and
    rows as a diagram's alpha, so that calibrated models meet calibrated ones."""
    from sklearn.tree import DecisionTreeClassifier

    (tr, va, te), names, shape = _split(data, seed, fractions)
    with _Clock() as clock:
        path = DecisionTreeClassifier(max_depth=depth, random_state=seed).cost_complexity_pruning_path(*tr)
        candidates = np.unique(path.ccp_alphas)
        best = None
        for ccp in candidates:                        # increasing: later = smaller tree
            model = DecisionTreeClassifier(max_depth=depth, random_state=seed, ccp_alpha=float(ccp)).fit(*tr)
            score = _accuracy(model, *va)
            if best is None or score >= best[0]:
                best = (score, float(ccp), model)
    score, ccp, model = best
    return dict(n=shape[0], p=shape[1], seconds=clock.seconds, cpu_seconds=clock.cpu_seconds,
                train_acc=_accuracy(model, *tr), val_acc=score, test_acc=_accuracy(model, *te),
                optimal=False, ccp_alpha=ccp, candidates=int(len(candidates)),
                nodes=int(np.sum(model.tree_.children_left >= 0)))


# ---------------------------------------------------------------- whole-data tree fits

def tie_note(tie_break: str) -> str:
    """What a whole-data suite's report says about the tree ours returns among equal optima."""
    if tie_break == "first_found":
        return ("optimaltrees fits with `tie_break=\"first_found\"`: like the peers, it returns the first "
                "optimal tree it proves. Its default, the optimal tree with the fewest branch nodes, is a "
                "harder problem where many trees make no error.")
    return ("optimaltrees fits with `tie_break=\"fewest_nodes\"` (its default): of the optimal trees, the one "
            "with the fewest branch nodes, proven; a baseline or peer returns the first optimal tree it proves.")

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
         schedule: str = "luby", jobs: int = 1, tie_break: str = "first_found", cost: float = 0.0) -> dict:
    """OptimalTreeClassifier on a whole data set (training error, objective,
    proof, trace).  ``tie_break``: "first_found" (the default here) returns
    the first optimal tree proven, as the peers do; ``cost``: its
    ``complexity_cost``."""
    from optimaltrees import OptimalTreeClassifier

    X, y, _ = load_table(data)
    ties = {"tie_break": tie_break} if "tie_break" in OptimalTreeClassifier().get_params() else {}
    model = OptimalTreeClassifier(max_depth=depth, time_limit=time_limit, n_jobs=jobs, search=search,
                                  schedule=schedule, complexity_cost=cost, **ties)
    with _Clock() as clock:
        model.fit(X, y)
    recomputed = int((model.predict(X) != y).sum())
    s = model.summary_
    return _tree_record(X, model.train_error_, clock, error_predict=recomputed,
                        optimal=s.proven, lower_bound=s.lower_bound, gap=s.gap, timed_out=s.timed_out,
                        search=search, schedule=schedule, jobs=jobs, tie_break=tie_break,
                        cost=cost, objective=float(model.objective_),
                        leaves=int(model.get_n_leaves()),
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


def fit_pycontree(X: np.ndarray, y: np.ndarray, depth: int, time_limit: float | None):
    """pycontree's ConTree fitted on (X, y): (model, clock, whether its limit
    stopped it). It has no "no limit" setting, so no limit becomes one that
    is never reached."""
    from pycontree import ConTree

    model = ConTree(max_depth=depth, time_limit=float(time_limit) if time_limit else 1e9)
    with warnings.catch_warnings(record=True) as caught, _Clock() as clock:
        warnings.simplefilter("always")
        model.fit(X, y)
    hit = any("exceeds time limit" in str(w.message) for w in caught)
    config = getattr(model, "_config", None)
    if config is not None and hasattr(config, "is_within_time_limit"):
        hit = hit or not config.is_within_time_limit()
    return model, clock, hit


def pycontree(*, data: str, depth: int, time_limit: float | None = None) -> dict:
    """pycontree's ConTree; exact, so finishing inside its limit means optimal."""
    X, y, _ = load_table(data)
    model, clock, hit = fit_pycontree(X, y, depth, time_limit)
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



# ---------------------------------------------------------------- regression trees

#: libraries of the regression suite -> what fits there
REGRESSION_LIBRARIES = ("optimaltrees", "pystreed", "cart")


def regression(*, lib: str, data: str, depth: int, target: int | None = None, thresholds: int | None = None,
               test_share: float | None = None, seed: int = 0, time_limit: float | None = None) -> dict:
    """One least-squares tree of depth ``depth`` (cost 0, leaves of one row allowed).

    ``lib``: "optimaltrees" (OptimalTreeRegressor), "pystreed" (STreeD's
    depth-limited squared-error task; it needs 0/1 features) or "cart"
    (scikit-learn's DecisionTreeRegressor).  ``thresholds`` k: the features
    become the 0/1 matrix of :func:`quantile_binarise` first, the same for
    every library.  ``test_share``: fit on the rest of a split seeded by
    ``seed`` and score R^2 on the held-out rows.  The record's ``error`` is
    the training SSE of ``predict`` (the same sum for every library);
    ``sse_reported`` the library's own figure; ``sst`` the training rows'
    squared error around their mean."""
    X, y, _ = regression_table(data, target)
    shape = X.shape
    if thresholds:
        X, _ = quantile_binarise(X, int(thresholds))
    train, test = (np.arange(len(y)), None) if not test_share else holdout_rows(len(y), seed, float(test_share))
    Xtr, ytr = X[train], y[train]
    extra: dict = {}
    if lib == "optimaltrees":
        import optimaltrees
        from optimaltrees import OptimalTreeRegressor

        Xtr = Xtr.astype(np.float64)
        # the first optimum proven, as the peers return
        model = OptimalTreeRegressor(max_depth=depth, time_limit=time_limit, complexity_cost=0.0, min_samples_leaf=1,
                                     tie_break="first_found")
        with _Clock() as clock, warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)        # the time-out warning: the record says it
            model.fit(Xtr, ytr)
        extra = dict(optimal=bool(model.is_optimal_), timed_out=bool(model.timed_out_),
                     lower_bound=float(model.lower_bound_), gap=float(model.gap_),
                     sse_reported=float(model.train_error_), leaves=int(model.get_n_leaves()),
                     source=os.path.dirname(os.path.realpath(optimaltrees.__file__)))
    elif lib == "pystreed":
        from pystreed import STreeDRegressor

        Xtr = _binary(Xtr, "pystreed").astype(np.int32)
        limit = float(time_limit) if time_limit else 1e9
        # "regression": the depth-limited squared-error task (pystreed sets its cost_complexity to 0)
        model = STreeDRegressor(optimization_task="regression", max_depth=depth, cost_complexity=0.0,
                                min_leaf_node_size=1, time_limit=limit)
        with _Clock() as clock:
            model.fit(Xtr, ytr)
        proven = bool(model.fit_result.is_optimal())
        # its score() is the mean squared error of the training rows
        extra = dict(optimal=proven, timed_out=not proven, sse_reported=float(model.fit_result.score()) * len(ytr),
                     leaves=int(model.get_n_leaves()))
    elif lib == "cart":
        from sklearn.tree import DecisionTreeRegressor

        model = DecisionTreeRegressor(max_depth=depth, random_state=0)
        with _Clock() as clock:
            model.fit(Xtr, ytr)
        extra = dict(optimal=False, timed_out=False, leaves=int(model.get_n_leaves()))
    else:
        raise ValueError(f"unknown regression library {lib!r}; expected one of {', '.join(REGRESSION_LIBRARIES)}")
    sse = float(np.sum((ytr - model.predict(Xtr)) ** 2))
    rec = _tree_record(Xtr, 0, clock, sst=float(np.sum((ytr - ytr.mean()) ** 2)), **extra)
    rec.update(error=sse, rows=int(shape[0]), features=int(shape[1]))
    if test is not None:
        from sklearn.metrics import r2_score

        Xte = X[test].astype(np.int32 if lib == "pystreed" else np.float64)
        rec.update(test_r2=float(r2_score(y[test], model.predict(Xte))), n_test=int(len(test)))
    return rec

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


def sat(*, data: str, drop=(), objective: str = "depth", solver: str = "glucose4",
        depth_search: str = "sat", tests: str = "onehot", repair="auto",
        random_state: int | None = None, shuffle_rows: int | None = None) -> dict:
    """SATTreeClassifier (Avellaneda's DT-depth / DT-size); ``tests``: "onehot"
    (one test per value of every column) or "auto" (integer columns become
    thresholds); ``depth_search``: "sat" the paper's loop, "dp" the DP
    engine's depth then SAT's size, "auto" the DP engine for both;
    ``repair=None`` is the paper's plain loop; ``random_state`` shuffles the
    order in which examples are tried; ``shuffle_rows`` (a seed) the rows of
    the data before the fit, as a user's file may come in any order."""
    from optimaltrees import SATTreeClassifier

    X, y = _categorical(data, drop)
    if shuffle_rows is not None:
        perm = np.random.default_rng(shuffle_rows).permutation(len(y))
        X, y = X.iloc[perm], np.asarray(y)[perm]
    # time_limit=None: the paper's method alone (no greedy fallback); the runner's
    # per-fit limit stops it
    model = SATTreeClassifier(objective, categorical=SAT_TESTS[tests], solver=solver,
                              depth_search=depth_search, repair=repair, random_state=random_state,
                              time_limit=None)
    with _Clock() as clock:
        model.fit(X, y)
    return _sat_record(model, clock)


def _consistent(X, y):
    """Rows of (X, y) with every conflicting feature vector reduced to the
    rows of its majority class (ties: the first class in sorted order), and
    how many rows were dropped: a perfect tree needs consistent data."""
    import pandas as pd

    frame = pd.DataFrame(np.asarray(X, dtype=object))
    key = pd.util.hash_pandas_object(frame.astype(str), index=False).to_numpy()
    labels = np.asarray(y)
    keep = np.ones(len(labels), dtype=bool)
    for k in np.unique(key):
        rows = np.flatnonzero(key == k)
        values, counts = np.unique(labels[rows], return_counts=True)
        if values.size > 1:
            keep[rows[labels[rows] != values[np.argmax(counts)]]] = False
    return keep, int((~keep).sum())


#: Table 3 methods: SATTreeClassifier's objective, route and other
#: parameters, or a depth-limited peer at the fold's minimum depth
#: (``sat-size-binary``: the paper's binary search on the leaf bound)
TABLE3_METHODS = {
    "sat-depth": ("depth", "sat", {}), "sat-size": ("size", "sat", {}),
    "sat-size-binary": ("size", "sat", {"size_search": "binary"}),
    "auto-depth": ("depth", "auto", {}), "auto-size": ("size", "auto", {}),
    "cart": None, "optimal-tree": None,
}


def sat_fold(*, data: str, method: str, fold: int, folds: int = 5, seed: int = 0,
             time_limit: float = 60.0, draw: int | None = None, monks: str | None = None,
             splits: str = "cv") -> dict:
    """One fold of Avellaneda's Table 3: train on the other folds (stratified,
    shuffled by ``seed``), then test.  SAT methods fit a perfect tree (the
    paper's method, or the default route) without a limit inside the fit;
    ``cart`` / ``optimal-tree`` fit a tree of the fold's minimum perfect depth.
    Conflicting training rows keep their majority class (see :func:`_consistent`).

    ``draw``: first draw this many rows with replacement (seeded by ``seed``)
    and cross-validate those, as the paper's split files of balance-scale
    were made (864 rows of its 625): a fold's training part then repeats rows,
    holds fewer distinct ones, and shares rows with its test part.

    ``monks``: read ``data`` as the diagrams copy of that MONK's problem and
    cross-validate its UCI training set (see :func:`uci_monks`).

    ``splits="half"``: instead of fold ``fold`` of a cross-validation, the
    ``fold``-th stratified split into halves and quarters (seed ``seed +
    fold``): train on the half, test on the last quarter, as the split files
    the paper used (BinOCT's, in the InferDT repository: iris 75 training
    rows of 150, monks-3 61 of 122)."""
    import pandas as pd
    from sklearn.model_selection import StratifiedKFold

    from optimaltrees import OptimalTreeClassifier, SATTreeClassifier
    from optimaltrees.data.tables import read_table

    if monks is not None:
        X, y = uci_monks(data, monks)
    else:
        table = read_table(data)
        X, y = table.X.reset_index(drop=True), np.asarray(table.y)
    if draw is not None:
        pick = np.random.default_rng(seed).choice(len(y), size=draw, replace=True)
        X, y = X.iloc[pick].reset_index(drop=True), y[pick]
    if splits == "cv":
        train, test = list(StratifiedKFold(folds, shuffle=True, random_state=seed).split(X, y))[fold]
    elif splits == "half":
        train, _, test = split_rows(np.unique(y, return_inverse=True)[1], seed + fold, (0.5, 0.25, 0.25))
    else:
        raise ValueError(f"splits must be 'cv' or 'half', got {splits!r}")
    keep, dropped = _consistent(X.iloc[train], y[train])
    train = train[keep]
    Xtr, ytr, Xte, yte = X.iloc[train], y[train], X.iloc[test], y[test]
    spec = TABLE3_METHODS[method]
    if spec is not None:
        objective, route, extra = spec
        model = SATTreeClassifier(objective, depth_search=route, time_limit=None, **extra)
        with _Clock() as clock:
            model.fit(Xtr, ytr)
        rec = _sat_record(model, clock)
    else:
        depth = SATTreeClassifier("depth", time_limit=None).fit(Xtr, ytr).depth_
        if method == "cart":
            from sklearn.tree import DecisionTreeClassifier
            model = DecisionTreeClassifier(max_depth=max(1, depth), random_state=0)
        else:
            model = OptimalTreeClassifier(max_depth=depth, time_limit=time_limit)
        with _Clock() as clock:
            model.fit(Xtr.to_numpy(dtype=float), ytr)
        Xtr, Xte = Xtr.to_numpy(dtype=float), Xte.to_numpy(dtype=float)
        errors = int((model.predict(Xtr) != ytr).sum())
        rec = dict(seconds=clock.seconds, cpu_seconds=clock.cpu_seconds, depth=int(model.get_depth()),
                   nodes=int(model.tree_.node_count), train_errors=errors,
                   optimal=bool(getattr(model, "is_optimal_", False)))
    distinct = int(len(pd.unique(pd.util.hash_pandas_object(X.iloc[train].astype(str), index=False))))
    rec.update(test_acc=float(np.mean(model.predict(Xte) == yte)), n_train=int(len(train)),
               distinct_train=distinct, dropped=dropped)
    return rec


def generator_tree(seed: int, depth: int = 5, features: int = 10):
    """Avellaneda's artificial data: a random tree of ``depth`` over
    ``features`` Boolean features and 2 classes (a random test at every
    node, none repeated on a path; random leaf classes, siblings differing
    at the bottom level so that no split is idle) as a function of 0/1 rows."""
    rng = np.random.default_rng(seed)

    def grow(level: int, used: frozenset):
        if level == depth:
            return int(rng.integers(2))
        f = int(rng.choice([j for j in range(features) if j not in used]))
        left, right = grow(level + 1, used | {f}), grow(level + 1, used | {f})
        if isinstance(left, int) and left == right:
            right = 1 - left
        return (f, left, right)

    root = grow(0, frozenset())

    def classify(X: np.ndarray) -> np.ndarray:
        out = np.empty(X.shape[0], dtype=np.int64)

        def walk(node, rows):
            if isinstance(node, int):
                out[rows] = node
                return
            f, left, right = node
            go = X[rows, f] == 1
            walk(left, rows[~go])
            walk(right, rows[go])

        walk(root, np.arange(X.shape[0]))
        return out

    return classify


def artificial(*, generator: int, examples: int, method: str, features: int = 10,
               depth: int = 5) -> dict:
    """One point of Avellaneda's Figure 2: ``examples`` rows drawn at random
    from generator tree ``generator``; does the inferred tree classify all
    2^features inputs as the generator does (equivalent)?  ``method``:
    ``sat-depth`` / ``sat-size`` (the paper's loop), ``auto-depth`` /
    ``auto-size`` (the default route), ``greedy`` (an unpruned entropy tree,
    the paper's J48 without pruning)."""
    from optimaltrees import SATTreeClassifier

    classify = generator_tree(generator, depth, features)
    rng = np.random.default_rng(10_000 + generator * 1_000 + examples)
    X = rng.integers(0, 2, size=(examples, features)).astype(np.float64)
    y = classify(X)
    every = ((np.arange(1 << features)[:, None] >> np.arange(features)) & 1).astype(np.float64)
    if method == "greedy":
        from sklearn.tree import DecisionTreeClassifier
        model = DecisionTreeClassifier(criterion="entropy", random_state=0)
    else:
        objective, route, extra = TABLE3_METHODS[method]
        model = SATTreeClassifier(objective, depth_search=route, categorical="none", time_limit=None,
                                  **extra)
    with _Clock() as clock:
        model.fit(X, y)
    return dict(seconds=clock.seconds, cpu_seconds=clock.cpu_seconds, depth=int(model.get_depth()),
                nodes=int(model.tree_.node_count),
                equivalent=bool(np.array_equal(model.predict(every), classify(every))))


def idle(*, seconds: float) -> dict:
    """Wait and return: the runner's self-check of time limits and process isolation."""
    time.sleep(float(seconds))
    return dict(seconds=float(seconds))


#: ``missing_values`` methods: the exact tree on the raw table, the exact tree
#: after imputation + one-hot encoding, scikit-learn's CART on the raw table
#: (its own NaN support; categorical columns one-hot, which it needs)
MISSING_METHODS = ("optimal-raw", "optimal-imputed", "cart-raw")


def raw_table(data: str, remove: float, seed: int):
    """(X DataFrame with NaN / None and text columns, y class indices) of a
    table: one-hot groups ``k_v`` folded back into one categorical column
    ``k`` (the shared diagrams files were one-hot encoded), then a share
    ``remove`` of each feature column's values removed at random."""
    import pandas as pd

    from optimaltrees.data.tables import read_table

    table = read_table(data, allow_missing=True)
    X = fold_one_hot(table.X)
    rng = np.random.default_rng(1_000 + seed)
    if remove > 0:
        X = X.astype(object).where(rng.random(X.shape) >= remove, None)
        X = pd.DataFrame({c: (pd.to_numeric(X[c]) if table.X.get(c) is not None
                              and pd.api.types.is_numeric_dtype(table.X[c]) else X[c]) for c in X.columns})
    _, y = np.unique(table.y, return_inverse=True)
    return X, y.astype(np.int64)


def fold_one_hot(X):
    """Columns ``k_v1, k_v2, ...`` (0/1, at most one 1 per row) as one text
    column ``k`` holding ``v``; a row with no 1 holds the level the encoding
    dropped (``"other"``)."""
    import pandas as pd

    groups: dict[str, list[str]] = {}
    for c in map(str, X.columns):
        if "_" in c:
            groups.setdefault(c.rsplit("_", 1)[0], []).append(c)
    out, done = {}, set()
    for c in map(str, X.columns):
        prefix = c.rsplit("_", 1)[0] if "_" in c else None
        block = groups.get(prefix, [])
        if prefix is not None and len(block) >= 2:
            if prefix in done:
                continue
            values = X[block].to_numpy(dtype=np.float64)
            if np.isin(values, (0.0, 1.0)).all() and (values.sum(axis=1) <= 1).all():
                labels = np.array([b.rsplit("_", 1)[1] for b in block], dtype=object)
                col = np.where(values.sum(axis=1) == 1, labels[values.argmax(axis=1)], "other")
                out[prefix] = pd.Series(col, dtype=object)
                done.add(prefix)
                continue
        out[c] = X[c].reset_index(drop=True)
    return pd.DataFrame(out)


def missing_values(*, data: str, seed: int, method: str, depth: int, remove: float = 0.0,
                   time_limit: float = 60.0, fractions=(0.5, 0.25, 0.25)) -> dict:
    """One fit on a table with missing values and categorical columns."""
    import pandas as pd
    from sklearn.compose import make_column_transformer
    from sklearn.impute import SimpleImputer
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import OneHotEncoder
    from sklearn.tree import DecisionTreeClassifier

    from optimaltrees import OptimalTreeClassifier

    X, y = raw_table(data, remove, seed)
    train, _, test = split_rows(y, seed, fractions)
    text = [c for c in X.columns if not pd.api.types.is_numeric_dtype(X[c])]
    numeric = [c for c in X.columns if c not in text]
    as_str = X.copy()
    for c in text:      # scikit-learn's encoders want one type: missing as NaN
        as_str[c] = as_str[c].astype(object).where(as_str[c].notna(), np.nan)
    one_hot = OneHotEncoder(handle_unknown="ignore", sparse_output=False)
    if method == "optimal-raw":
        model = OptimalTreeClassifier(max_depth=depth, time_limit=time_limit)
        Xin = X
    elif method == "optimal-imputed":
        prep = make_column_transformer(
            (SimpleImputer(strategy="median"), numeric),
            (make_pipeline(SimpleImputer(strategy="most_frequent"), one_hot), text))
        model = make_pipeline(prep, OptimalTreeClassifier(max_depth=depth, time_limit=time_limit))
        Xin = as_str
    elif method == "cart-raw":
        prep = make_column_transformer(("passthrough", numeric), (one_hot, text))
        model = make_pipeline(prep, DecisionTreeClassifier(max_depth=depth, random_state=0))
        Xin = as_str
    else:
        raise ValueError(f"unknown method {method!r}; expected one of {MISSING_METHODS}")
    with _Clock() as clock, warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        model.fit(Xin.iloc[train], y[train])
    tree = model[-1] if hasattr(model, "steps") else model
    leaves = int(tree.get_n_leaves())
    optimal = bool(getattr(tree, "is_optimal_", False))
    return dict(n=len(y), p=X.shape[1], categorical=len(text), missing_share=float(X.isna().to_numpy().mean()),
                seconds=clock.seconds, train_acc=_accuracy(model, Xin.iloc[train], y[train]),
                test_acc=_accuracy(model, Xin.iloc[test], y[test]), leaves=leaves, optimal=optimal)


def scale_data(kind: str, rows: int, seed: int = 0, data_dir: str | None = None):
    """The scaling suite's data: ``"synthetic"`` (10 normal features, a
    linear rule with 10 % label noise) or the name of a shared numeric set,
    its rows drawn with replacement to ``rows`` and jittered by 1e-6 of each
    feature's spread, so every value is distinct (the exact search's worst case)."""
    rng = np.random.default_rng(seed)
    if kind == "synthetic":
        X = rng.normal(size=(rows, 10))
        y = ((X[:, 0] + 0.5 * X[:, 1] - 0.3 * X[:, 2]) > 0).astype(np.int64)
        flip = rng.random(rows) < 0.1
        y[flip] = 1 - y[flip]
        return X, y
    from pathlib import Path

    X0, y0, _ = load_table(str(Path(data_dir or "../shared/datasets/continuous/train") / f"{kind}.txt"))
    pick = rng.integers(0, len(y0), size=rows)
    spread = np.ptp(X0, axis=0)
    X = X0[pick] + rng.normal(size=(rows, X0.shape[1])) * 1e-6 * np.where(spread > 0, spread, 1.0)
    return X, y0[pick]


def scale_fit(*, lib: str, kind: str, rows: int, depth: int, time_limit: float, max_bins: int | None = None,
              seed: int = 0, data_dir: str | None = None, n_jobs: int = 1) -> dict:
    """One point of the scaling suite: ``lib`` ("optimaltrees" or "pycontree")
    on :func:`scale_data`; the data is made before the clock starts.
    ``n_jobs``: threads of an optimaltrees fit."""
    X, y = scale_data(kind, rows, seed, data_dir)
    if lib == "pycontree":
        from pycontree import ConTree

        model = ConTree(max_depth=depth, time_limit=float(time_limit))
        with warnings.catch_warnings(record=True) as caught, _Clock() as clock:
            warnings.simplefilter("always")
            model.fit(X, y)
        hit = any("exceeds time limit" in str(w.message) for w in caught)
        return _tree_record(X, int((model.predict(X) != y).sum()), clock, optimal=not hit, timed_out=hit)
    from optimaltrees import OptimalTreeClassifier

    model = OptimalTreeClassifier(max_depth=depth, time_limit=time_limit, max_bins=max_bins, n_jobs=n_jobs)
    with warnings.catch_warnings(), _Clock() as clock:
        warnings.simplefilter("ignore", UserWarning)
        model.fit(X, y)
    s = model.summary_
    return _tree_record(X, model.train_error_, clock, optimal=s.proven, timed_out=s.timed_out,
                        lower_bound=s.lower_bound, max_bins=max_bins, threads=int(model.stats_["threads"]))
