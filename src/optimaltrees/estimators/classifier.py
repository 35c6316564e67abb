"""``OptimalTreeClassifier``: exact optimal classification trees as a scikit-learn estimator."""
from __future__ import annotations

import dataclasses
import os
import time
import warnings

import numpy as np
from joblib import effective_n_jobs
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils._param_validation import StrOptions

from optimaltrees.data.validation import check_class_labels, check_fit_weights, warn_numeric_classes
from optimaltrees.estimators._base import (DEFAULT_TIME_LIMIT, TREE_SEARCH_CONSTRAINTS, ClusterParamMixin,
                                           EncodedTreeMixin, encode_for_fit, progress_reporting, validate_params)
from optimaltrees.estimators._path import PathMixin
from optimaltrees.estimators._tie_break import node_tie_break, untie_trace
from optimaltrees.model.sklearn_tree import float32_mismatches
from optimaltrees.model.summary import FitSummary, objective_tolerance, relative_gap, status_text
from optimaltrees.search.contree import leaf_result, search_tree
from optimaltrees.search.distributed import check_cluster


def check_cost_matrix(cost_matrix, n_classes: int | None = None) -> np.ndarray:
    """The cost matrix as a float64 (K, K) array of finite costs >= 0, or a
    ValueError naming the problem (``n_classes``: the K it must have)."""
    try:
        costs = np.array(cost_matrix, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError("cost_matrix must be a square matrix of numbers") from None
    if costs.ndim != 2 or costs.shape[0] != costs.shape[1] or costs.shape[0] < 1:
        raise ValueError(f"cost_matrix must be a square matrix (classes x classes), got shape {costs.shape}")
    if not np.all(np.isfinite(costs)) or np.any(costs < 0):
        raise ValueError("cost_matrix must hold finite costs >= 0")
    if n_classes is not None and costs.shape[0] != n_classes:
        raise ValueError(f"cost_matrix is {costs.shape[0]} x {costs.shape[0]}, but y has {n_classes} classes "
                         "(rows and columns in the order of classes_)")
    return costs




class OptimalTreeClassifier(ClusterParamMixin, PathMixin, EncodedTreeMixin, ClassifierMixin, BaseEstimator):
    """Decision tree with the fewest training errors among all trees of bounded depth.

    The search (ConTree: dynamic programming with branch-and-bound over every
    threshold of every numeric feature) returns a tree together with a proof:
    ``lower_bound_`` bounds the optimum from below, and ``is_optimal_`` is True
    when the tree's objective meets it.

    Parameters
    ----------
    max_depth : int, default=3
        Maximum number of branching nodes on a root-to-leaf path (0 = one leaf).
    time_limit : float or None, default=60
        Seconds for the whole ``fit`` (the default every estimator of the
        library shares); None: until proven.  At the limit the best tree found
        so far is returned, with a valid ``lower_bound_``, ``is_optimal_``
        False and a ``UserWarning``.  With a limit, the exhaustive search
        starts from the greedy tree (every node's best Gini split, the last
        level exact; milliseconds), so a stopped fit is never worse than it:
        on the numeric benchmark sets at depth 4 this greedy start then
        exhaustive search ends with the best or equal-best tree of every order
        after 60 s (the ``anytime`` benchmark), while the anytime orders
        improve sooner.
    max_gap : float, default=0.0
        Allowed suboptimality as a fraction of the number of training samples:
        the objective found is at most the optimum plus ``max_gap * n_samples``.
        0 asks for a proven optimum.  The slack is spent pruning thresholds at the
        root; ``lower_bound_`` stays a proven bound either way.
    complexity_cost : float, default=0.0
        Cost of each branching node as a fraction of the number of training
        samples; the objective becomes errors + complexity_cost * n * branches.
    min_samples_leaf : int, default=1
        Every leaf must hold at least this many training samples.  Values above 1
        switch off the similarity-bound pruning (it is unsound under this
        constraint), so searches are slower.
    memory_limit : float or None, default=None
        Megabytes for what the search allocates: its buffers (sized by rows x
        features x depth; a limit below them is an error that names their
        size), its node pool and its cache of solved subproblems.  What the
        buffers and pool leave over is cache; once it is full, new results
        are no longer cached (the search stays exact, only slower).  If the
        pool alone outgrows the limit the search stops with its best tree
        (``memory_out_``, not proven).  The Python process, the input and its
        sorted copies are not counted.
    n_jobs : int or None, default=None
        Threads that share the root's search, pruning against each other's
        best tree: at depth >= 3 each takes the most promising root threshold
        interval left, at depth two whole root features.  None means 1, -1
        all cores (scikit-learn's convention); more threads than the
        machine's cores are not started (each costs memory and would only
        wait for a core).  The result is the same
        optimum; memory grows per thread.  Used by ``search="exhaustive"``;
        the anytime strategies run on one thread.
    search : str, default="exhaustive"
        Order of the search, all over the same space and all complete (with
        enough time each proves the same optimum):

        - ``"exhaustive"``: ConTree's depth-first branch-and-bound, fastest to a proof.
        - ``"blossom"``: anytime; the greedy tree at once (Gini splits, the
          deepest by error), then whole levels optimised from the bottom up.
        - ``"discrepancy"``, ``"top-k"``, ``"top-k*"``, ``"gain"``, ``"purity"``:
          anytime; CA-DL8.5 restarts under a rule relaxed by ``schedule``
          (limited discrepancy, the k best splits per node, k halved per level,
          cumulative Gini-gain gap, node purity).  On numeric features the
          candidate splits are the thresholds, ranked round-robin over features;
          as a rule admits them one by one, discrepancy, top-k, top-k* and gain
          run *proof slices* between restarts (the exhaustive search under a
          time limit doubling from slice to slice, whenever the slices have
          had less than half the restarts' time; a restart may run twice the
          last slice's share, and one stopped there runs again after the
          slice), so their lower bound rises and they prove the optimum within
          a small factor of the exhaustive search's time;
          ``stats_["proof_slices"]`` and ``stats_["capped_restarts"]`` count them.
    schedule : {"monotonic", "exponential", "luby"}, default="luby"
        How an anytime strategy relaxes its rule between restarts.
    callback : callable or None, default=None
        ``callback(progress)`` with an :class:`optimaltrees.anytime.Progress`
        (elapsed, objective, lower_bound, gap) on every better tree and about
        twice a second; returning False stops the search and keeps the best tree.
    verbose : bool, default=False
        Show a live progress line (elapsed, incumbent, bound, gap).
    categorical_features : "from_dtype", array-like or None, default="from_dtype"
        Columns whose values are categories, as in scikit-learn's
        ``HistGradientBoostingClassifier``: "from_dtype" takes the pandas
        columns of category, string, object or bool dtype (and every column
        of a non-numeric array); a list of column indices or names, or a
        Boolean mask, names them; None means every column is numeric.  A
        categorical column is split by ``x == v`` tests (one value against
        the rest), searched exactly with the numeric thresholds; the tree
        prints ``colour == red``, and a category unseen in training takes
        the ``!=`` side.  A missing category is a missing value.
    categorical_splits : {"one-vs-rest", "subsets"}, default="one-vs-rest"
        "subsets" also searches ``x in {a, b, ...}`` splits: every way of
        splitting a column's m values in two, 2^(m-1) - 1 tests per column
        instead of m, exactly, in the same search (the search time grows
        with the tests: 3 values give 3, 5 give 15, 8 give 127; more than
        12 values is refused).  An unseen category takes the ``not in`` side.
    class_weight : "balanced", dict or None, default=None
        Weights of the classes, as in scikit-learn: a dict maps a label to
        its weight (1 for the labels it leaves out); "balanced" weighs each
        class by n_samples / (n_classes * its rows), so that the optimal tree
        maximises balanced accuracy.  Multiplies ``sample_weight``.
    cost_matrix : array-like of shape (n_classes, n_classes) or None, default=None
        Cost-sensitive classification: ``cost_matrix[i, j]`` is the cost of
        predicting ``classes_[j]`` for a row of class ``classes_[i]`` (finite,
        >= 0; classes in sorted order, as ``classes_``).  The objective becomes
        the total cost (times the sample weights) and each leaf predicts its
        cheapest class; ``train_error_`` still counts the misclassified rows,
        ``objective_`` is the cost plus node costs.  None: every error costs
        1 (plain misclassification, with its faster search).
    max_bins : int or None, default=None
        For data in the millions of rows: merge each feature's values into at
        most this many bins of about equal row counts (as histogram-based
        boosting does) and search exactly over the thresholds between bins.
        ``is_optimal_`` then means optimal over those thresholds (the summary
        says so), not over every threshold.  Also fast on features with few
        values (integer codes, binned data): depth-two subproblems are then
        solved from class histograms.  None searches every threshold.
    cluster : dask.distributed.Client, str or None, default=None
        Run the search on a Dask cluster: a ``Client``, a scheduler address,
        or "local" for a two-worker ``LocalCluster`` started (and closed) by
        the fit.  At depth >= 3 each root feature is one Dask task running
        the compiled engine; the tasks prune against each other's best tree
        through a Dask ``Variable``, and a task lost with its worker is run
        again by Dask.  Same optimum and bound as one thread.  Needs
        ``pip install 'optimaltrees[bench]'``; ``search="exhaustive"`` only.
    tie_break : {"fewest_nodes", "first_found"}, default="fewest_nodes"
        Which of several optimal trees (equal objective) to return.
        ``"fewest_nodes"``: the one with the fewest branch nodes, proven like
        the objective (``fewest_nodes_``); it costs little where the optimum
        makes errors, more where many trees make none (a perfect tree proves
        itself at once, the smallest perfect tree does not).  It needs the
        objective on a known grid: row weights and costs that are multiples of
        ``2**-10`` (unweighted data always is), and no ``max_gap``; otherwise
        ties stay with the search, and ``fewest_nodes_`` is False.
        ``"first_found"``: whichever optimum the search meets first.

    Attributes
    ----------
    tree_ : Tree
        The fitted tree.
    classes_ : ndarray of shape (n_classes,)
        The class labels, sorted.
    n_classes_ : int
        Number of classes.
    n_features_in_ : int
        Number of input columns seen in ``fit``.
    feature_names_in_ : ndarray of shape (n_features,)
        Column names of a DataFrame seen in ``fit`` (only then).
    train_error_ : int or float
        Training misclassifications of ``tree_`` (their weight, a float,
        when fitted with ``sample_weight`` or ``class_weight``).
    objective_ : float
        ``train_error_`` plus the node cost of every branching node.
    lower_bound_ : float
        Proven lower bound on the optimal objective.
    gap_ : float
        Relative gap ``(objective_ - lower_bound_) / objective_`` as a
        fraction: 0.0 when the bound meets the objective, 0.05 for 5 %.
    is_optimal_ : bool
        ``objective_`` is proven optimal.
    fewest_nodes_ : bool
        ``tree_`` is proven to have the fewest branch nodes of the trees with
        its objective (``tie_break="fewest_nodes"``, proven optimal).
    timed_out_ : bool
        The time limit stopped the search.
    interrupted_ : bool
        Ctrl-C stopped the search (the best tree so far is kept).
    stopped_ : bool
        The callback stopped the search.
    memory_out_ : bool
        The memory limit stopped the search (the best tree so far is kept).
    fit_time_ : float
        Seconds spent in ``fit`` (validation, encoding, search, export).
    summary_ : FitSummary
        The fit in the fields every estimator shares (method ``"tree"``).
    trace_ : list of TracePoint
        (time, error, objective, lower_bound) at every better tree or bound;
        errors never increase and bounds never decrease along it.
    stats_ : dict
        Counters of the search: subproblems, d2_calls, cache_hits,
        cache_entries, restarts, search_megabytes, ...
    encoder_ : Binarizer or None
        With categorical columns: the tree's columns, the numeric columns as
        they are and one ``x == v`` test per category (``tree_`` splits
        those); None when every column is numeric.

    See Also
    --------
    SATTreeClassifier : The smallest tree that classifies every example correctly.
    DecisionDiagramClassifier : Optimal decision diagrams, whose branches may merge.

    Notes
    -----
    ``fit(X, y, sample_weight=w)`` minimises the misclassified weight: the
    search's bounds and pruning are re-derived for weights, integer weights
    give exactly the optimum of the data with each row repeated that many
    times, other real weights hold it to a billionth of the lightest row's
    weight plus the rounding of double sums (about rows x 1e-16 of the
    total), and a row of weight 0 is left out (``min_samples_leaf`` counts
    the other rows).  With weights, ``max_gap`` and ``complexity_cost`` are
    fractions of the total weight, ``train_error_``, ``objective_`` and
    ``lower_bound_`` are in weight, and ``tree_.value`` holds class weights.
    Weighted data always takes the sorted-order layout (the bitset layout
    counts rows), so weighted fits on binary features are slower.  Weights
    that are all 1 search as no weights (the same tree as an unweighted fit).

    Missing values (NaN, None, pandas NA) are searched, not imputed: every
    split also chooses the side the rows with a missing value take (both are
    tried, and splitting missing from present values is a candidate), and
    the optimum over (feature, threshold, side) is proven as any other.  A
    feature with no missing value in training sends one at prediction to the
    child that saw more training rows.  A numeric feature with missing values
    is searched as two columns, so it costs about twice a complete one; a 0/1
    feature or a category's test costs one.

    Examples
    --------
    >>> from optimaltrees import OptimalTreeClassifier
    >>> from optimaltrees.data import load_bank
    >>> X, y = load_bank()
    >>> clf = OptimalTreeClassifier(max_depth=3).fit(X, y)
    >>> clf.train_error_, clf.is_optimal_
    (19, True)
    """

    def __init__(
        self,
        max_depth: int = 3,
        *,
        time_limit: float | None = DEFAULT_TIME_LIMIT,
        max_gap: float = 0.0,
        complexity_cost: float = 0.0,
        min_samples_leaf: int = 1,
        memory_limit: float | None = None,
        n_jobs: int | None = None,
        search: str = "exhaustive",
        schedule: str = "luby",
        callback=None,
        verbose: bool = False,
        categorical_features="from_dtype",
        categorical_splits: str = "one-vs-rest",
        class_weight=None,
        cost_matrix=None,
        max_bins: int | None = None,
        cluster=None,
        tie_break: str = "fewest_nodes",
    ) -> None:
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
        self.categorical_features = categorical_features
        self.categorical_splits = categorical_splits
        self.class_weight = class_weight
        self.max_bins = max_bins
        self.cluster = cluster
        self.cost_matrix = cost_matrix
        self.tie_break = tie_break

    _parameter_constraints = {
        **TREE_SEARCH_CONSTRAINTS,
        "categorical_splits": [StrOptions({"one-vs-rest", "subsets"})],
        "class_weight": [StrOptions({"balanced"}), dict, None],
        "cost_matrix": ["array-like", None],
        "tie_break": [StrOptions({"fewest_nodes", "first_found"})],
    }

    def _check_param_combinations(self) -> None:
        """A Dask cluster runs the exhaustive search only."""
        if self.cluster is not None and self.search != "exhaustive":
            raise ValueError(f"cluster= runs search='exhaustive' only, not search={self.search!r}")
        check_cluster(self.cluster)
        if self.cost_matrix is not None:
            check_cost_matrix(self.cost_matrix)

    # -- fitting ---------------------------------------------------------------
    def fit(self, X, y, sample_weight=None) -> "OptimalTreeClassifier":
        """Search for the optimal tree on (X, y).

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Numeric columns, categorical columns (see
            ``categorical_features``) and missing values.
        y : array-like of shape (n_samples,)
            Class labels of any sortable type.
        sample_weight : array-like of shape (n_samples,) or None, default=None
            One weight >= 0 per row (None: 1 each); the objective becomes the
            misclassified weight.

        Returns
        -------
        OptimalTreeClassifier
            The fitted estimator.
        """
        start = time.perf_counter()
        validate_params(self)
        X, y, stopped = encode_for_fit(self, X, y, start, subsets=self.categorical_splits == "subsets")
        encoder = self.encoder_
        check_class_labels(y)
        try:
            self.classes_, y_index = np.unique(y, return_inverse=True)
        except TypeError as exc:
            raise TypeError(f"class labels must be mutually comparable (sortable): {exc}") from None
        y_index = y_index.reshape(-1)
        self.n_classes_ = len(self.classes_)
        warn_numeric_classes(self.classes_, self.n_classes_, type(self).__name__)
        weight = check_fit_weights(sample_weight, self.class_weight, y_index, self.classes_)
        costs = None if self.cost_matrix is None else check_cost_matrix(self.cost_matrix, self.n_classes_)
        # unit weights are the unweighted problem: the same search (and so the
        # same tree among equal optima) on the faster unweighted paths; the
        # fitted tree still reports weights, as the user gave them
        search_weight = None if weight is not None and (weight == 1.0).all() else weight
        # costs and gaps are fractions of the data: of its rows, or of its weight
        n = X.shape[0] if weight is None else float(weight.sum())
        node_cost = float(self.complexity_cost) * n
        self._node_cost_unit = n
        ties = node_tie_break(node_cost, int(self.max_depth), X.shape[0], search_weight, costs) if (
            self.tie_break == "fewest_nodes" and self.max_gap == 0) else None
        step = 0.0 if ties is None else ties.step
        with progress_reporting(self, ties) as (callback, every):
            result = leaf_result(encoder.n_tests_, y_index, self.n_classes_, start, weight,
                                 interrupted=stopped == "Ctrl-C") if stopped else search_tree(
                X, y_index, self.n_classes_, int(self.max_depth),
                node_cost=node_cost + step,
                max_gap=float(self.max_gap) * n,
                # above n only the root leaf is allowed either way; keeps the engine's int32
                min_samples_leaf=int(min(self.min_samples_leaf, X.shape[0])),
                time_limit=self.time_limit,
                memory_limit_mb=self.memory_limit,
                n_threads=min(effective_n_jobs(self.n_jobs), os.cpu_count() or 1),
                strategy=self.search,
                schedule=self.schedule,
                callback=callback,
                progress_every=every,
                clock_start=start,
                sample_weight=search_weight,
                max_bins=self.max_bins,
                cluster=self.cluster,
                cost_matrix=costs,
            )
        tree = result.tree
        if weight is not None:
            tree.weighted = True            # (unit weights: its counts are the weights)
        if costs is not None:
            tree = dataclasses.replace(tree, cost_matrix=costs)    # (a leaf cut short by the clock has none)
        errors = tree.training_errors() if weight is None else tree.weighted_errors()
        # the objective: errors, or their cost under the cost matrix
        objective = (errors if costs is None else tree.misclassification_cost()) + node_cost * tree.n_branch_nodes
        # The search's value is recomputed from the exported tree: a mismatch is
        # a bug, and an "optimal" tree that is not optimal must never leave fit.
        tolerance = objective_tolerance(n, 0 if weight is None else X.shape[0]) * (
            1.0 if costs is None else max(1.0, float(costs.max())))
        if abs(objective + step * tree.n_branch_nodes - result.objective) > tolerance:
            raise RuntimeError(
                f"internal error: search reported objective {result.objective}, "
                f"its tree scores {objective}"
            )
        if result.lower_bound > objective + step * tree.n_branch_nodes + tolerance:
            raise RuntimeError(
                f"internal error: lower bound {result.lower_bound} exceeds objective {objective}"
            )
        self.tree_ = tree
        self._float32_mismatches = float32_mismatches(tree.feature, tree.threshold, X)   # (for to_sklearn)
        self.train_error_ = errors
        self.objective_ = objective
        # with a tie-break the search proved the perturbed objective: proven
        # there is proven here, and its bound less every node's step bounds ours
        proven = objective + step * tree.n_branch_nodes - result.lower_bound <= tolerance
        lower_bound = result.lower_bound if ties is None else ties.lower_bound(result.lower_bound)
        # a bound is never below 0 nor above the objective (rounding may put it just outside)
        self.lower_bound_ = min(max(lower_bound, 0.0), objective)
        self.timed_out_ = result.timed_out
        self.interrupted_ = result.interrupted
        if result.interrupted:
            warnings.warn("search interrupted (Ctrl-C): returning the best tree found so far, "
                          "not proven optimal", RuntimeWarning, stacklevel=2)
        self.stopped_ = result.stopped
        self.memory_out_ = result.memory_out
        if result.timed_out:
            why = "the search stopped early" if self.time_limit is None else f"time_limit={self.time_limit:g} s reached"
            warnings.warn(f"{why}: returning the best tree found "
                          f"({errors:g} {'training errors' if weight is None else 'misclassified weight'}), "
                          "not proven optimal; lower bound "
                          f"{self.lower_bound_:g}, gap {relative_gap(objective, self.lower_bound_):.2%}",
                          UserWarning, stacklevel=2)
        if result.memory_out:
            warnings.warn(f"memory_limit={self.memory_limit:g} MB reached: the search stopped with the "
                          "best tree found so far, not proven optimal", RuntimeWarning, stacklevel=2)
        self.trace_ = result.trace if ties is None else untie_trace(result.trace, ties)
        stopped_early = result.timed_out or result.interrupted or result.stopped or result.memory_out
        self.is_optimal_ = (not stopped_early) and proven
        self.fewest_nodes_ = self.is_optimal_ and ties is not None
        if self.is_optimal_:
            self.lower_bound_ = objective       # met, up to rounding: report no gap
        self.gap_ = relative_gap(objective, self.lower_bound_)
        self.fit_time_ = time.perf_counter() - start
        self.stats_ = result.stats
        self.summary_ = FitSummary(
            method="tree",
            objective_name=(("training cost" if costs is not None else "training errors")
                            + (" + node cost" if node_cost else "")) + (
                f", over the thresholds between at most {self.max_bins} quantile bins per feature"
                if self.max_bins is not None else ""),
            objective=float(objective), lower_bound=float(self.lower_bound_), gap=self.gap_,
            proven=bool(self.is_optimal_), timed_out=bool(self.timed_out_), interrupted=bool(self.interrupted_),
            memory_out=bool(self.memory_out_), stopped=bool(self.stopped_), fit_seconds=self.fit_time_,
            status=status_text(bool(self.is_optimal_), timed_out=bool(self.timed_out_),
                               interrupted=bool(self.interrupted_), memory_out=bool(self.memory_out_),
                               stopped=bool(self.stopped_)))
        return self

    # -- prediction ------------------------------------------------------------

    def _importance_columns(self):
        """Each category test counts for the column it tests."""
        encoder = getattr(self, "encoder_", None)
        return None if encoder is None else np.array([t.column for t in encoder.tests_], dtype=np.int64)


