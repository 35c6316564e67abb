"""``OptimalTreeClassifierCV`` and ``OptimalTreeRegressorCV``: the depth and
node cost chosen by k-fold cross-validation over exact cost-complexity paths.

A grid search fits one tree per (depth, cost, fold).  Here each fold and
depth costs one path (:func:`~optimaltrees.estimators._path.complexity_path`),
which holds the optimal tree at *every* cost; a candidate cost is then
scored by looking its tree up in each fold's path, as rpart scores its cost
table.  The candidates are the geometric means of consecutive breakpoints
of the path on all rows (one per tree of that path), so the chosen tree is
read off that path too: no refit.
"""
from __future__ import annotations

import time
import warnings
from concurrent.futures import ProcessPoolExecutor
from numbers import Integral

import numpy as np
from joblib import effective_n_jobs
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin, is_classifier
from sklearn.metrics import check_scoring
from sklearn.model_selection import check_cv
from sklearn.utils import _safe_indexing, indexable
from sklearn.utils._param_validation import StrOptions
from sklearn.utils.validation import check_is_fitted

from optimaltrees.estimators._base import (DEFAULT_TIME_LIMIT, MAX_SUPPORTED_DEPTH, TREE_SEARCH_CONSTRAINTS, Range,
                                           validate_params)
from optimaltrees.estimators._path import complexity_path
from optimaltrees.estimators.classifier import OptimalTreeClassifier
from optimaltrees.estimators.regressor import OptimalTreeRegressor


def check_cost_grid(costs) -> np.ndarray | None:
    """``complexity_costs`` as a sorted float64 array of distinct costs in
    [0, 1], or None; a ValueError names what is wrong."""
    if costs is None:
        return None
    try:
        grid = np.asarray(costs, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError("complexity_costs must be a list of numbers in [0, 1]") from None
    if grid.ndim != 1 or grid.size == 0:
        raise ValueError(f"complexity_costs must be a non-empty 1-d list of costs, got shape {grid.shape}")
    bad = grid[~((grid >= 0) & (grid <= 1))]      # (NaN fails both)
    if bad.size:
        raise ValueError(f"complexity_costs must lie in [0, 1] (a node costs that fraction of the data), "
                         f"got {bad[0]!r}")
    return np.unique(grid)


def _representative_costs(breakpoints: np.ndarray) -> np.ndarray:
    """One cost inside each tree's interval of a path: the geometric mean of
    its ends (0 for the first, which starts at 0; the single leaf's interval
    ends at 1, where one node costs as much as every row)."""
    ends = np.append(breakpoints[1:], 1.0)
    return np.sqrt(breakpoints * np.maximum(ends, breakpoints))


def tree_at(path, cost: float) -> int:
    """Index of the tree a path holds at ``cost``: the last whose interval
    starts at or below it."""
    return max(int(np.searchsorted(path.complexity_costs, cost, side="right")) - 1, 0)


def _spread(scores: np.ndarray, ddof: int = 0) -> np.ndarray:
    """Standard deviation over folds (axis 0), scaled first so that scores
    near the float range (squared errors of huge targets) do not overflow."""
    scale = np.max(np.abs(scores), axis=0)
    scale[~(scale > 0) | ~np.isfinite(scale)] = 1.0
    return (scores / scale).std(axis=0, ddof=ddof) * scale


def selection_reserve(time_limit: float) -> float:
    """Seconds of ``time_limit`` the paths leave to the scoring and
    selection that follow them (1 %, at least 0.1 s and at most 5 s): they
    take a fraction of a second, and the whole fit must end within the limit."""
    return min(max(0.01 * time_limit, 0.1), 5.0)


def _one_path(base, depth: int, X, y, sample_weight, time_limit):
    """The path of ``base`` at ``depth`` on (X, y) within ``time_limit`` (a task)."""
    est = base.set_params(max_depth=depth, time_limit=time_limit)
    with warnings.catch_warnings():
        # stopped paths warn; the search says so once, at its end
        warnings.simplefilter("ignore", UserWarning)
        return complexity_path(est, X, y, sample_weight)


class _TreeCV(BaseEstimator):
    """What the two CV estimators share; subclasses say which tree they tune
    (``_tree_class``) and with which of their parameters (``_TREE_PARAMS``)."""

    _tree_class: type
    _TREE_PARAMS: tuple[str, ...] = ("min_samples_leaf", "memory_limit", "categorical_features", "max_bins")

    _parameter_constraints = {
        "max_depth": [Range(Integral, 1, MAX_SUPPORTED_DEPTH, closed="both")],
        "cv": ["cv_object"],
        "select": [StrOptions({"best", "1se"})],
        "scoring": [callable, str, None],
        "complexity_costs": ["array-like", None],
        "time_limit": TREE_SEARCH_CONSTRAINTS["time_limit"],
        "n_jobs": TREE_SEARCH_CONSTRAINTS["n_jobs"],
        "min_samples_leaf": TREE_SEARCH_CONSTRAINTS["min_samples_leaf"],
        "memory_limit": TREE_SEARCH_CONSTRAINTS["memory_limit"],
        "categorical_features": TREE_SEARCH_CONSTRAINTS["categorical_features"],
        "max_bins": TREE_SEARCH_CONSTRAINTS["max_bins"],
        "verbose": ["verbose"],
    }

    def _check_param_combinations(self) -> None:
        check_cost_grid(self.complexity_costs)

    def _base_tree(self):
        """The tree estimator every path clones (depth and time set per path)."""
        return self._tree_class(**{name: getattr(self, name) for name in self._TREE_PARAMS},
                                time_limit=None, n_jobs=None)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True       # missing values are searched, not imputed
        return tags

    def _check_folds(self, y) -> None:
        """Nothing here: the classifier checks its classes against ``cv``."""

    # -- fitting ---------------------------------------------------------------
    def fit(self, X, y, sample_weight=None):
        """Choose depth and node cost by cross-validation.

        The chosen tree is then read off the path on all rows.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            As the tree estimator's ``fit`` takes it (categories and missing
            values included).
        y : array-like of shape (n_samples,)
            Targets, as the tree estimator's ``fit`` takes them.
        sample_weight : array-like of shape (n_samples,) or None, default=None
            Row weights for the fits and for the default validation score
            (a ``scoring`` other than None scores unweighted).

        Returns
        -------
        self
            The fitted estimator.
        """
        start = time.perf_counter()
        validate_params(self)
        grid = check_cost_grid(self.complexity_costs)
        base = self._base_tree()
        # the data's checks, once and with the tree's messages, before any split
        base.set_params(max_depth=0).fit(X, y, sample_weight=sample_weight)
        X, y, sample_weight = indexable(X, y, sample_weight)
        y_arr = np.asarray(y).reshape(-1)
        self._check_folds(y_arr)
        splitter = check_cv(self.cv, y_arr, classifier=is_classifier(self))
        folds = list(splitter.split(np.zeros((len(y_arr), 1)), y_arr))
        self.n_splits_ = len(folds)
        w = None if sample_weight is None else np.asarray(sample_weight, dtype=np.float64).reshape(-1)
        deadline = (None if self.time_limit is None
                    else start + float(self.time_limit) - selection_reserve(float(self.time_limit)))
        paths, interrupted = self._run_paths(base, X, y_arr, w, folds, deadline)
        depths = [d for d in range(1, int(self.max_depth) + 1) if all((d, i) in paths for i in range(-1, len(folds)))]
        if not depths:
            raise KeyboardInterrupt("cross-validation interrupted before any depth was searched on every fold")
        self._select(paths, depths, grid, X, y_arr, w, folds)
        self.paths_ = {d: paths[(d, -1)] for d in depths}
        # depth -> each fold's path (for inspection and tests)
        self._fold_paths = {d: [paths[(d, i)] for i in range(len(folds))] for d in depths}
        stopped = [key for key, path in paths.items() if key[0] in depths and not path.proven.all()]
        if interrupted:
            warnings.warn("cross-validation interrupted (Ctrl-C): the selection is over depths "
                          f"{depths[0]}..{depths[-1]}, with the trees found so far", RuntimeWarning, stacklevel=2)
        elif stopped:
            warnings.warn(f"time_limit={self.time_limit:g} s stopped {len(stopped)} of {len(paths)} paths before "
                          "their proof: the selection uses the best trees found (cv_results_'s split<i>_proven "
                          "and split<i>_timed_out say where)", UserWarning, stacklevel=2)
        self.fit_time_ = time.perf_counter() - start
        return self

    def _run_paths(self, base, X, y, w, folds, deadline) -> tuple[dict, bool]:
        """Every (depth, fold) path, fold -1 being all rows, depth by depth,
        until ``deadline`` (the fit's less :func:`selection_reserve`).  Each
        path gets an equal share of the time left for the rounds still to
        run, so time a shallow path leaves over goes to the deeper ones."""
        workers = max(1, min(effective_n_jobs(self.n_jobs), len(folds) + 1))
        rows = [(-1, np.arange(len(y)))] + [(i, train) for i, (train, _) in enumerate(folds)]
        rounds_per_depth = -(-len(rows) // workers)
        paths = {}
        for depth in range(1, int(self.max_depth) + 1):
            budget = None
            if deadline is not None:
                rounds_left = rounds_per_depth * (int(self.max_depth) - depth + 1)
                budget = max(deadline - time.perf_counter(), 1e-3) / rounds_left
            tasks = [(i, depth, _safe_indexing(X, idx), y[idx], None if w is None else w[idx]) for i, idx in rows]
            if workers == 1:
                done = []
                try:
                    for i, d, Xi, yi, wi in tasks:
                        done.append(_one_path(base, d, Xi, yi, wi, budget))
                        if done[-1].interrupted:
                            break
                except KeyboardInterrupt:
                    pass          # (Ctrl-C between two fits: the path it cut is lost, the others kept)
            else:
                # a pool of this depth's tasks only: its processes end with it (a reused
                # pool would leave workers behind the fit)
                with ProcessPoolExecutor(max_workers=workers) as pool:
                    done = list(pool.map(_one_path, *zip(*[(base, d, Xi, yi, wi, budget)
                                                           for i, d, Xi, yi, wi in tasks])))
            for (i, *_), path in zip(tasks, done):
                paths[(depth, i)] = path
                if self.verbose:
                    print(f"depth {depth}, {'all rows' if i < 0 else f'fold {i}'}: {len(path.estimators)} trees, "
                          f"{int(path.proven.sum())} proven")
            if any(p.interrupted for p in done) or len(done) < len(tasks):
                return paths, True
        return paths, False

    def _scorer(self):
        """The validation score of a fitted tree on rows (X, y, w)."""
        if self.scoring is None:
            return lambda est, X, y, w: est.score(X, y, sample_weight=w)
        scorer = check_scoring(self._tree_class(), scoring=self.scoring)
        return lambda est, X, y, w: scorer(est, X, y)

    def _select(self, paths, depths, grid, X, y, w, folds) -> None:
        """Score every candidate (depth, cost) on every fold and keep the best."""
        score = self._scorer()
        k = len(folds)
        held_out = [(_safe_indexing(X, test), y[test], None if w is None else w[test]) for _, test in folds]
        cand_depth, cand_cost = [], []
        for d in depths:
            costs = grid if grid is not None else _representative_costs(paths[(d, -1)].complexity_costs)
            cand_depth += [d] * len(costs)
            cand_cost += list(costs)
        m = len(cand_depth)
        scores = np.empty((k, m))
        proven = np.empty((k, m), dtype=bool)
        stopped = np.empty((k, m), dtype=bool)
        leaves = np.empty((k, m), dtype=np.int64)
        memo = {}
        for j, (d, c) in enumerate(zip(cand_depth, cand_cost)):
            for i in range(k):
                path = paths[(d, i)]
                t = tree_at(path, c)
                if (d, i, t) not in memo:
                    est = path.estimators[t]
                    memo[(d, i, t)] = score(est, *held_out[i])
                scores[i, j] = memo[(d, i, t)]
                proven[i, j] = path.proven[t]
                stopped[i, j] = not path.proven.all()
                leaves[i, j] = path.branch_nodes[t] + 1
        full = [(paths[(d, -1)], tree_at(paths[(d, -1)], c)) for d, c in zip(cand_depth, cand_cost)]
        results = {
            "params": [{"max_depth": d, "complexity_cost": float(c)} for d, c in zip(cand_depth, cand_cost)],
            "param_max_depth": np.array(cand_depth, dtype=np.int64),
            "param_complexity_cost": np.array(cand_cost, dtype=np.float64),
        }
        for i in range(k):
            results[f"split{i}_test_score"] = scores[i]
        mean, std = scores.mean(axis=0), _spread(scores)
        results["mean_test_score"] = mean
        results["std_test_score"] = std
        # rank 1 is the best; ties share the lowest rank, as scikit-learn's searches
        results["rank_test_score"] = (np.searchsorted(np.sort(-mean), -mean, side="left") + 1).astype(np.int32)
        for i in range(k):
            results[f"split{i}_n_leaves"] = leaves[i]
            results[f"split{i}_proven"] = proven[i]
            results[f"split{i}_timed_out"] = stopped[i]
        results["n_leaves"] = np.array([p.branch_nodes[t] + 1 for p, t in full], dtype=np.int64)
        results["proven"] = np.array([bool(p.proven[t]) for p, t in full])
        self.cv_results_ = results
        self.best_index_ = self._choose(mean, _spread(scores, ddof=1) / np.sqrt(k) if k > 1 else np.zeros(m),
                                        results["n_leaves"], np.array(cand_cost), np.array(cand_depth))
        self.best_params_ = results["params"][self.best_index_]
        self.best_score_ = float(mean[self.best_index_])
        path, t = full[self.best_index_]
        self.best_estimator_ = path.estimators[t]
        self.n_features_in_ = self.best_estimator_.n_features_in_
        if hasattr(self.best_estimator_, "feature_names_in_"):
            self.feature_names_in_ = self.best_estimator_.feature_names_in_
        if hasattr(self.best_estimator_, "classes_"):
            self.classes_ = self.best_estimator_.classes_
        self.tree_ = self.best_estimator_.tree_
        self.is_optimal_ = bool(results["proven"][self.best_index_])

    def _choose(self, mean, se, leaves, costs, depths) -> int:
        """The chosen candidate: the best mean score (ties: fewer leaves,
        then the larger cost, then the shallower depth); with ``select="1se"``
        the fewest leaves among those within one standard error of it."""
        order = np.lexsort((depths, -costs, leaves, -mean))     # last key sorts first
        best = int(order[0])
        if self.select == "best":
            return best
        near = mean >= mean[best] - se[best] - 1e-12
        order = np.lexsort((depths, -costs, -mean, leaves))
        return int(next(j for j in order if near[j]))

    # -- prediction, through the chosen tree -------------------------------------------
    def predict(self, X) -> np.ndarray:
        """Predict with the chosen tree (``best_estimator_``).

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Rows with the columns the model was fitted on.

        Returns
        -------
        ndarray of shape (n_samples,)
            One prediction per row.
        """
        check_is_fitted(self, "best_estimator_")
        return self.best_estimator_.predict(X)

    def apply(self, X) -> np.ndarray:
        """Return the leaf of the chosen tree that each row reaches.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Rows with the columns the model was fitted on.

        Returns
        -------
        ndarray of shape (n_samples,)
            Node ids of ``tree_``, as the tree estimator's ``apply``.
        """
        check_is_fitted(self, "best_estimator_")
        return self.best_estimator_.apply(X)

    def export_text(self, **kwargs) -> str:
        """Return the chosen tree as text.

        Parameters
        ----------
        **kwargs
            As the tree estimator's ``export_text`` takes them.

        Returns
        -------
        str
            The tree, one line per node.
        """
        check_is_fitted(self, "best_estimator_")
        return self.best_estimator_.export_text(**kwargs)


#: each parameter's entry in the docstrings, assembled in each class's signature order
_PARAM_DOCS = {
    "max_depth": """max_depth : int, default=3
        The deepest depth tried: every depth from 1 to this one is searched.""",
    "cv": """cv : int, cross-validation generator or iterable, default=5
        As scikit-learn's ``cv``: a number of folds{stratified}, a
        splitter, or (train, test) index pairs.""",
    "select": """select : {"best", "1se"}, default="best"
        "best": the candidate with the best mean validation score (ties: the
        fewest leaves).  "1se": the one-standard-error rule, the candidate
        with the fewest leaves among those whose mean score is within one
        standard error (over folds) of the best.""",
    "scoring": """scoring : str, callable or None, default=None
        A scikit-learn scorer name or callable; None uses the tree's
        ``score`` ({score}, weighted by ``sample_weight`` when given).""",
    "complexity_costs": """complexity_costs : array-like of float or None, default=None
        The node costs to try at each depth (each in [0, 1]); None tries
        one cost per tree of the path on all rows, which covers every tree
        that path holds.""",
    "time_limit": """time_limit : float or None, default=60
        Seconds for the whole search (every path of every fold and depth,
        then the selection, for which the paths leave 1 % of it, 0.1 s to
        5 s); a path the limit stops keeps its best trees, with ``proven``
        False, and the fit warns.  None: until every path is proven.""",
    "n_jobs": """n_jobs : int or None, default=None
        Paths of different folds run in this many processes (-1: all cores).""",
    "min_samples_leaf": """min_samples_leaf : int, default=1
        As the tree estimator's.""",
    "memory_limit": """memory_limit : float or None, default=None
        As the tree estimator's, for each path's fits.""",
    "categorical_features": """categorical_features : "from_dtype", array-like or None, default="from_dtype"
        As the tree estimator's.""",
    "categorical_splits": """categorical_splits : {"one-vs-rest", "subsets"}, default="one-vs-rest"
        As :class:`OptimalTreeClassifier`'s.""",
    "class_weight": """class_weight : "balanced", dict or None, default=None
        As :class:`OptimalTreeClassifier`'s.""",
    "cost_matrix": """cost_matrix : array-like of shape (n_classes, n_classes) or None, default=None
        As :class:`OptimalTreeClassifier`'s.""",
    "max_bins": """max_bins : int or None, default=None
        As the tree estimator's.""",
    "verbose": """verbose : bool, default=False
        Print one line per path.""",
}


def _params_doc(names, stratified: str, score: str) -> str:
    """The Parameters entries of ``names``, in that order, with the words
    that differ between the classifier and the regressor filled in."""
    return "".join("\n    " + _PARAM_DOCS[name].replace("{stratified}", stratified).replace("{score}", score)
                   for name in names)


_CV_ATTRIBUTES_DOC = """
    cv_results_ : dict of ndarray
        As scikit-learn's searches: ``params``, ``param_max_depth``,
        ``param_complexity_cost``, ``split<i>_test_score``,
        ``mean_test_score``, ``std_test_score``, ``rank_test_score``; per
        fold ``split<i>_n_leaves``, ``split<i>_proven`` (the fold's tree is
        proven optimal at that cost) and ``split<i>_timed_out`` (the time
        limit stopped that fold's path); for the tree on all rows
        ``n_leaves`` and ``proven``.  ``pandas.DataFrame(cv_results_)``
        tabulates it.
    best_index_ : int
        The chosen candidate's row of ``cv_results_``.
    best_params_ : dict
        Its ``max_depth`` and ``complexity_cost``.
    best_score_ : float
        Its mean validation score.
    best_estimator_ : estimator
        The tree on all rows at those parameters: the path's exact fit at
        the cost where that tree becomes optimal (its own
        ``complexity_cost``), no refit needed.
    tree_ : Tree
        ``best_estimator_.tree_``.
    is_optimal_ : bool
        ``best_estimator_`` is proven optimal at the chosen cost.
    paths_ : dict
        Depth -> the cost-complexity path on all rows (a ``Bunch``, as
        ``cost_complexity_path`` returns).
    n_splits_ : int
        Folds.
    fit_time_ : float
        Seconds of the whole ``fit``."""


_REGRESSOR_PARAMS = ("max_depth", "cv", "select", "scoring", "complexity_costs", "time_limit", "n_jobs",
                     "min_samples_leaf", "memory_limit", "categorical_features", "max_bins", "verbose")
_CLASSIFIER_PARAMS = _REGRESSOR_PARAMS[:-2] + ("categorical_splits", "class_weight", "cost_matrix", "max_bins",
                                               "verbose")


class OptimalTreeClassifierCV(ClassifierMixin, _TreeCV):
    __doc__ = f"""Optimal classification tree with depth and node cost chosen by cross-validation.

    For every fold and every depth up to ``max_depth``, the exact
    cost-complexity path (:meth:`OptimalTreeClassifier.cost_complexity_path`)
    gives the optimal tree at every node cost; each candidate (depth, cost)
    is scored on the held-out rows by the fold's tree at that cost.  The
    chosen tree is read off the path on all rows.  One path per fold and
    depth replaces a grid of fits.

    Parameters
    ----------{_params_doc(_CLASSIFIER_PARAMS, stratified=" (stratified)", score="accuracy")}

    Attributes
    ----------{_CV_ATTRIBUTES_DOC}
    classes_ : ndarray of shape (n_classes,)
        The class labels, sorted.

    See Also
    --------
    OptimalTreeClassifier.cost_complexity_path : The path of one fit.

    Examples
    --------
    >>> from optimaltrees import OptimalTreeClassifierCV
    >>> from optimaltrees.data import load_bank
    >>> X, y = load_bank()
    >>> search = OptimalTreeClassifierCV(max_depth=2, cv=3).fit(X, y)
    >>> sorted(search.best_params_)
    ['complexity_cost', 'max_depth']
    """

    _tree_class = OptimalTreeClassifier
    _TREE_PARAMS = _TreeCV._TREE_PARAMS + ("categorical_splits", "class_weight", "cost_matrix")
    _parameter_constraints = {
        **_TreeCV._parameter_constraints,
        "categorical_splits": OptimalTreeClassifier._parameter_constraints["categorical_splits"],
        "class_weight": OptimalTreeClassifier._parameter_constraints["class_weight"],
        "cost_matrix": OptimalTreeClassifier._parameter_constraints["cost_matrix"],
    }

    def __init__(self, max_depth: int = 3, *, cv=5, select: str = "best", scoring=None, complexity_costs=None,
                 time_limit: float | None = DEFAULT_TIME_LIMIT, n_jobs: int | None = None, min_samples_leaf: int = 1,
                 memory_limit: float | None = None, categorical_features="from_dtype",
                 categorical_splits: str = "one-vs-rest", class_weight=None, cost_matrix=None,
                 max_bins: int | None = None, verbose: bool = False) -> None:
        self.max_depth = max_depth
        self.cv = cv
        self.select = select
        self.scoring = scoring
        self.complexity_costs = complexity_costs
        self.time_limit = time_limit
        self.n_jobs = n_jobs
        self.min_samples_leaf = min_samples_leaf
        self.memory_limit = memory_limit
        self.categorical_features = categorical_features
        self.categorical_splits = categorical_splits
        self.class_weight = class_weight
        self.cost_matrix = cost_matrix
        self.max_bins = max_bins
        self.verbose = verbose

    def _check_folds(self, y) -> None:
        """Stratified folds need every class in every fold: a class with
        fewer rows than folds is refused, naming it."""
        if not isinstance(self.cv, Integral):
            return
        classes, counts = np.unique(y, return_counts=True)
        if counts.min() < self.cv:
            small = classes[int(np.argmin(counts))]
            small = small.item() if isinstance(small, np.generic) else small
            n = int(counts.min())
            raise ValueError(f"cv={self.cv} folds, but class {small!r} has only {n} sample{'s' if n > 1 else ''}: "
                             "every fold needs one of each class; use fewer folds")

    def predict_proba(self, X) -> np.ndarray:
        """Predict class probabilities with the chosen tree.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Rows with the columns the model was fitted on.

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            Columns in the order of ``classes_``, as the tree's ``predict_proba``.
        """
        check_is_fitted(self, "best_estimator_")
        return self.best_estimator_.predict_proba(X)


class OptimalTreeRegressorCV(RegressorMixin, _TreeCV):
    __doc__ = f"""Optimal regression tree with depth and node cost chosen by cross-validation.

    As :class:`OptimalTreeClassifierCV`, over the exact paths of
    :class:`OptimalTreeRegressor` (whose node cost is the fraction of the
    root's squared error a split must save); scored by R² unless
    ``scoring`` says otherwise.

    Parameters
    ----------{_params_doc(_REGRESSOR_PARAMS, stratified="", score="R²")}

    Attributes
    ----------{_CV_ATTRIBUTES_DOC}

    See Also
    --------
    OptimalTreeRegressor.cost_complexity_path : The path of one fit.
    """

    _tree_class = OptimalTreeRegressor

    def score(self, X, y, sample_weight=None) -> float:
        """Return the coefficient of determination R^2 of the chosen tree's predictions.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Rows with the columns the model was fitted on.
        y : array-like of shape (n_samples,)
            True targets.
        sample_weight : array-like of shape (n_samples,) or None, default=None
            Row weights.

        Returns
        -------
        float
            1 - (squared error) / (squared error of predicting the mean of ``y``).
        """
        return super().score(X, y, sample_weight=sample_weight)

    def __init__(self, max_depth: int = 3, *, cv=5, select: str = "best", scoring=None, complexity_costs=None,
                 time_limit: float | None = DEFAULT_TIME_LIMIT, n_jobs: int | None = None, min_samples_leaf: int = 1,
                 memory_limit: float | None = None, categorical_features="from_dtype",
                 max_bins: int | None = None, verbose: bool = False) -> None:
        self.max_depth = max_depth
        self.cv = cv
        self.select = select
        self.scoring = scoring
        self.complexity_costs = complexity_costs
        self.time_limit = time_limit
        self.n_jobs = n_jobs
        self.min_samples_leaf = min_samples_leaf
        self.memory_limit = memory_limit
        self.categorical_features = categorical_features
        self.max_bins = max_bins
        self.verbose = verbose
