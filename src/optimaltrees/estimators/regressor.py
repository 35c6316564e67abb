"""``OptimalTreeRegressor``: exact optimal regression trees (squared error) as a scikit-learn estimator."""
from __future__ import annotations

import os
import time
import warnings

import numpy as np
from joblib import effective_n_jobs
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.utils._param_validation import StrOptions
from sklearn.utils.validation import column_or_1d

from optimaltrees.estimators._base import (DEFAULT_TIME_LIMIT, TREE_SEARCH_CONSTRAINTS, ClusterParamMixin,
                                           EncodedTreeMixin, encode_for_fit, progress_reporting, validate_params)
from optimaltrees.estimators._path import PathMixin
from optimaltrees.estimators._tie_break import squared_error_tie_break, untie_trace
from optimaltrees.model.sklearn_tree import float32_mismatches
from optimaltrees.model.summary import FitSummary, relative_gap, status_text
from optimaltrees.search.distributed import check_cluster
from optimaltrees.search.regression import scale_targets, search_regression_tree

#: the engine's tolerance, as a share of the total squared error: objectives
#: this close are equal, and a bound this close to the objective proves it
TOLERANCE = 1e-9


class OptimalTreeRegressor(ClusterParamMixin, PathMixin, EncodedTreeMixin, RegressorMixin, BaseEstimator):
    """Regression tree with the least squared error among all trees of bounded depth.

    The classifier's search (dynamic programming with branch-and-bound over
    every threshold of every numeric feature) over the sum of squared errors
    of leaves that predict their rows' mean.  It returns a tree with a proof:
    ``lower_bound_`` bounds the optimum from below, and ``is_optimal_`` is
    True when the tree's objective meets it.  No binarisation: every
    threshold between two consecutive training values is considered.

    Parameters
    ----------
    max_depth : int, default=3
        Maximum number of branching nodes on a root-to-leaf path (0 = one leaf).
    time_limit : float or None, default=60
        Seconds for the whole ``fit`` (the default every estimator of the
        library shares); None: until proven.  At the limit the best tree found
        so far is returned, with a valid ``lower_bound_``, ``is_optimal_``
        False and a ``UserWarning``; with a limit the search starts from the
        greedy tree, so the answer is never worse than it.
    max_gap : float, default=0.0
        Allowed suboptimality as a share of the total squared error (SST, the
        root leaf's): the tree's objective is at most the optimum plus
        ``max_gap * SST``.  0 asks for a proven optimum.
    complexity_cost : float, default=0.0
        Cost of each branching node as a share of SST: the objective becomes
        squared error + ``complexity_cost * SST * branches``, so a split must
        buy at least that much R^2.  Scale-free, as the classifier's.
    min_samples_leaf : int, default=1
        Every leaf must hold at least this many training rows.
    memory_limit : float or None, default=None
        Megabytes for the search's buffers, node pool and cache (None: no limit).
    n_jobs : int or None, default=None
        Threads that share the root's search, as in
        :class:`OptimalTreeClassifier` (None: 1, -1: all cores).
    search : str, default="exhaustive"
        Order of the search: ``"exhaustive"`` (fastest to a proof) or an
        anytime strategy (``"blossom"``, ``"top-k"``, ``"discrepancy"``, ...,
        as :class:`OptimalTreeClassifier`'s), whose rules rank candidate
        splits by their children's squared error.
    schedule : {"monotonic", "exponential", "luby"}, default="luby"
        How an anytime strategy relaxes its rule between restarts.
    callback : callable or None, default=None
        ``callback(progress)`` with an :class:`optimaltrees.anytime.Progress`
        (objective and lower bound in squared units) on every better tree
        and about twice a second; returning False stops the search.
    verbose : bool, default=False
        Show a live progress line (elapsed, incumbent, bound, gap).
    tie_break : {"fewest_nodes", "first_found"}, default="fewest_nodes"
        Which optimal tree to return when several tie.  Squared errors are
        real numbers: objectives closer than the search's resolution
        (1e-7 of the targets' variance per branch node) tie.
        ``"fewest_nodes"``: no tree with at most the returned tree's
        objective has fewer branch nodes, proven with the optimum
        (``fewest_nodes_``); its objective is then within that resolution
        times the most branch nodes of the optimum.  ``"first_found"``: the
        first optimum the search proves.  With ``max_gap > 0`` ties stay with
        the search, and ``fewest_nodes_`` is False.
    categorical_features : "from_dtype", array-like or None, default="from_dtype"
        Which columns are categories, as in :class:`OptimalTreeClassifier`:
        each becomes one equality test per value, searched exactly.
    max_bins : int or None, default=None
        Search only the thresholds between at most this many quantile bins
        of each feature (``is_optimal_`` then means optimal over those).
    cluster : dask.distributed.Client, str or None, default=None
        Run the search on a Dask cluster, as :class:`OptimalTreeClassifier`
        does (exhaustive search only).

    Attributes
    ----------
    tree_ : RegressionTree
        The fitted tree; each node's ``value`` is its rows' (weighted) mean.
    train_error_ : float
        The tree's (weighted) sum of squared errors on the training data.
    objective_ : float
        ``train_error_ + complexity_cost * SST * tree_.n_branch_nodes``.
    lower_bound_ : float
        A proven lower bound on the optimal objective.
    gap_ : float
        ``(objective_ - lower_bound_) / objective_`` (0 when proven).
    is_optimal_ : bool
        The objective meets the bound (within a share 1e-9 of SST, and the
        tie-break's resolution).
    fewest_nodes_ : bool
        ``tree_`` is proven optimal, and no tree with at most its objective
        has fewer branch nodes (``tie_break="fewest_nodes"``).
    timed_out_ : bool
        ``time_limit`` stopped the search before its proof.
    interrupted_ : bool
        Ctrl-C stopped the search (the best tree so far is kept).
    total_sse_ : float
        SST: the training targets' squared error around their mean.
    summary_ : FitSummary
        The objective, bound and status in one record.
    n_features_in_ : int
        Number of columns seen in ``fit``.
    feature_names_in_ : ndarray of str
        Column names, when ``X`` was a DataFrame with string names.

    See Also
    --------
    OptimalTreeClassifier : The same search over misclassifications.

    Notes
    -----
    Targets are centred and scaled before the search, and weights scaled to
    a mean of one, so the result does not depend on the targets' units.
    Targets whose squared error overflows a double (targets spread over
    more than about 1e150) are refused: rescale them.

    Examples
    --------
    >>> from sklearn.datasets import load_diabetes
    >>> from optimaltrees import OptimalTreeRegressor
    >>> X, y = load_diabetes(return_X_y=True)
    >>> reg = OptimalTreeRegressor(max_depth=2).fit(X, y)
    >>> reg.is_optimal_, round(reg.train_error_)
    (True, 1477077)
    """

    def __init__(self, max_depth: int = 3, *, time_limit: float | None = DEFAULT_TIME_LIMIT,
                 max_gap: float = 0.0, complexity_cost: float = 0.0, min_samples_leaf: int = 1,
                 memory_limit: float | None = None, n_jobs: int | None = None, search: str = "exhaustive",
                 schedule: str = "luby", callback=None, verbose: bool = False, tie_break: str = "fewest_nodes",
                 categorical_features="from_dtype", max_bins: int | None = None, cluster=None) -> None:
        self.max_depth = max_depth
        self.time_limit = time_limit
        self.max_gap = max_gap
        self.complexity_cost = complexity_cost
        self.min_samples_leaf = min_samples_leaf
        self.memory_limit = memory_limit
        self.n_jobs = n_jobs
        self.search = search
        self.schedule = schedule
        self.callback = callback
        self.verbose = verbose
        self.tie_break = tie_break
        self.categorical_features = categorical_features
        self.max_bins = max_bins
        self.cluster = cluster

    _parameter_constraints = {**TREE_SEARCH_CONSTRAINTS, "tie_break": [StrOptions({"fewest_nodes", "first_found"})]}

    _predicts_classes = False

    def _check_param_combinations(self) -> None:
        """A Dask cluster runs the exhaustive search only."""
        if self.cluster is not None and self.search != "exhaustive":
            raise ValueError(f"cluster= runs search='exhaustive' only, not search={self.search!r}")
        check_cluster(self.cluster)

    def fit(self, X, y, sample_weight=None) -> "OptimalTreeRegressor":
        """Search for the optimal regression tree on (X, y).

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Numeric and categorical columns; missing values (NaN) are
            searched: each split also chooses the side of the missing rows.
        y : array-like of shape (n_samples,)
            Finite numeric targets.
        sample_weight : array-like of shape (n_samples,) or None, default=None
            One weight >= 0 per row (None: 1 each): the objective becomes the
            weighted squared error around weighted means.

        Returns
        -------
        OptimalTreeRegressor
            The fitted estimator.
        """
        start = time.perf_counter()
        validate_params(self)
        X, y, stopped = encode_for_fit(self, X, y, start, targets=check_targets)
        weight = check_sample_weight(sample_weight, len(y))
        kept = slice(None) if weight is None else weight > 0
        scaled = scale_targets(y[kept], None if weight is None else weight[kept])
        sst = scaled.total_sse
        self.total_sse_ = sst
        self._node_cost_unit = sst
        node_cost = float(self.complexity_cost) * sst
        ties = squared_error_tie_break(node_cost, int(self.max_depth), X.shape[0], scaled.unit) if (
            self.tie_break == "fewest_nodes" and self.max_gap == 0) else None
        step = 0.0 if ties is None else ties.step
        with progress_reporting(self, ties) as (callback, every):
            result = search_regression_tree(
                X, y, int(self.max_depth),
                node_cost=node_cost + step,
                max_gap=float(self.max_gap) * sst,
                min_samples_leaf=int(min(self.min_samples_leaf, X.shape[0])),
                time_limit=0.0 if stopped is not None else self.time_limit,
                memory_limit_mb=self.memory_limit,
                sample_weight=weight,
                clock_start=start,
                n_threads=min(effective_n_jobs(self.n_jobs), os.cpu_count() or 1),
                strategy=self.search, schedule=self.schedule,
                callback=callback, progress_every=every,
                max_bins=self.max_bins, cluster=self.cluster)
        if stopped == "Ctrl-C":
            result.interrupted, result.timed_out = True, False
        tree = result.tree
        errors = tree.squared_error()
        objective = errors + node_cost * tree.n_branch_nodes
        tolerance = TOLERANCE * sst
        if abs(objective + step * tree.n_branch_nodes - result.objective) > tolerance:
            raise RuntimeError(f"internal error: search reported objective {result.objective}, "
                               f"its tree scores {objective}")
        self.tree_ = tree
        self._float32_mismatches = float32_mismatches(tree.feature, tree.threshold, X)   # (for to_sklearn)
        self.train_error_ = errors
        self.objective_ = objective
        # with a tie-break the search proved the perturbed objective: proven
        # there is proven here, and its bound less every node's step bounds ours
        proven = objective + step * tree.n_branch_nodes - result.lower_bound <= tolerance
        lower_bound = result.lower_bound if ties is None else ties.lower_bound(result.lower_bound)
        self.lower_bound_ = min(max(lower_bound, 0.0), objective)
        self.timed_out_ = result.timed_out
        self.interrupted_ = result.interrupted
        if result.interrupted:
            warnings.warn("search interrupted (Ctrl-C): returning the best tree found so far, "
                          "not proven optimal", RuntimeWarning, stacklevel=2)
        self.stopped_ = result.stopped
        self.memory_out_ = result.memory_out
        if result.memory_out:
            warnings.warn(f"memory_limit={self.memory_limit:g} MB reached: the search stopped with the "
                          "best tree found so far, not proven optimal", RuntimeWarning, stacklevel=2)
        stopped = result.timed_out or result.interrupted or result.stopped or result.memory_out
        self.is_optimal_ = (not stopped) and proven
        self.fewest_nodes_ = self.is_optimal_ and ties is not None
        if self.is_optimal_:
            self.lower_bound_ = objective
        self.gap_ = relative_gap(objective, self.lower_bound_)
        if result.timed_out:
            why = "the search stopped early" if self.time_limit is None else f"time_limit={self.time_limit:g} s reached"
            warnings.warn(f"{why}: returning the best tree found (squared error {errors:.6g}), not proven "
                          f"optimal; lower bound {self.lower_bound_:.6g}, gap {self.gap_:.2%}",
                          UserWarning, stacklevel=2)
        self.fit_time_ = time.perf_counter() - start
        self.stats_ = result.stats
        self.trace_ = result.trace if ties is None else untie_trace(result.trace, ties)
        self.summary_ = FitSummary(
            method="tree",
            objective_name=("squared error + node cost" if self.complexity_cost else "squared error") + (
                f", over the thresholds between at most {self.max_bins} quantile bins per feature"
                if self.max_bins is not None else ""),
            objective=float(objective), lower_bound=float(self.lower_bound_), gap=self.gap_,
            proven=bool(self.is_optimal_), timed_out=bool(self.timed_out_), interrupted=bool(self.interrupted_),
            memory_out=bool(self.memory_out_), stopped=bool(self.stopped_), fit_seconds=self.fit_time_,
            status=status_text(bool(self.is_optimal_), timed_out=bool(self.timed_out_),
                               interrupted=bool(self.interrupted_), memory_out=bool(self.memory_out_),
                               stopped=bool(self.stopped_)))
        return self

    def predict(self, X) -> np.ndarray:
        """Predict each row's target: the mean training target of its leaf.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Rows with the columns the model was fitted on.

        Returns
        -------
        ndarray of shape (n_samples,)
            The (weighted) mean training target of each row's leaf.
        """
        X = self._validated(X)
        return self.tree_.predict(X)

    def score(self, X, y, sample_weight=None) -> float:
        """Return the coefficient of determination R^2 of ``predict(X)`` against ``y``.

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




def check_targets(y) -> np.ndarray:
    """Regression targets as finite float64, or a ValueError naming the problem
    (text, NaN or infinite targets, with the rows)."""
    if y is None:
        raise ValueError("OptimalTreeRegressor requires y to be passed, but the target y is None")
    arr = np.asarray(y)
    if arr.dtype.kind == "c":
        raise ValueError("Complex data not supported: OptimalTreeRegressor needs real targets")
    if arr.dtype.kind not in "iuf":
        try:
            arr = np.asarray(y, dtype=np.float64)
        except (TypeError, ValueError):
            raise ValueError("OptimalTreeRegressor needs numeric targets; for class labels use "
                             "OptimalTreeClassifier") from None
    arr = column_or_1d(np.asarray(arr, dtype=np.float64), warn=True)
    bad = np.flatnonzero(~np.isfinite(arr))
    if len(bad):
        what = "missing (NaN)" if np.isnan(arr[bad[0]]) else "infinite"
        raise ValueError(f"y has {len(bad)} target(s) that are NaN or infinite, the first {what}, at row(s) "
                         f"{bad[:10].tolist()}{' ...' if len(bad) > 10 else ''}: drop those rows")
    return arr


def check_sample_weight(sample_weight, n: int) -> np.ndarray | None:
    """One finite weight >= 0 per row (a number: the same for all), not all 0; None for none."""
    if sample_weight is None:
        return None
    try:
        w = np.asarray(sample_weight, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError("sample_weight must be numbers") from None
    if w.ndim == 0:
        w = np.full(n, float(w))
    if w.shape != (n,):
        raise ValueError(f"sample_weight has shape {w.shape}, expected ({n},)")
    if not np.all(np.isfinite(w)) or np.any(w < 0):
        raise ValueError("sample_weight must be finite and >= 0")
    if not np.any(w > 0):
        raise ValueError("every sample weight is zero: nothing to fit")
    if np.all(w == 1.0):
        return None
    return w
