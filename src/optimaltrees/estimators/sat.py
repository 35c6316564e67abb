"""``SATTreeClassifier``: the smallest tree that fits the training data, by SAT."""
from __future__ import annotations

import math
import time
import warnings
from numbers import Integral

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import DataConversionWarning
from sklearn.utils._param_validation import StrOptions
from sklearn.utils.validation import _num_samples

from optimaltrees.data.binarize import fit_binarizer
from optimaltrees.data.validation import (PreparationTimeout, check_class_labels, check_fit_weights,
                                          check_raw_labels, is_missing, preparation_clock)
from optimaltrees.estimators._base import (DEFAULT_TIME_LIMIT, FittedTreeMixin, Range, check_integer,
                                           positive_seconds, validate_params)
from optimaltrees.model.summary import FitSummary, objective_tolerance, relative_gap, status_text
from optimaltrees.search.sat import CARDINALITIES, infer, min_errors, prepare
from optimaltrees.search.sat.problem import refuse_conflicts
from optimaltrees.search.sat.encoding import check_solver_name
from optimaltrees.model.tree import Tree
from optimaltrees.search.sat.inference import DEFAULT_REPAIR, DEPTH_SEARCHES, SIZE_SEARCHES
from optimaltrees.search.sat.result import SATProgress, SATResult, SATStats, min_leaves
from optimaltrees.search.sat.decode import nested_to_tree, to_tree
from optimaltrees.search.sat.exact import OrdinalTests, min_errors_dp, test_chains
from optimaltrees.search.sat.greedy import CRITERIA, GreedyTree, greedy_tree
from optimaltrees.search.sat.worker import SearchInterrupted, check_deadline, run_limited

OBJECTIVES = ("depth", "size", "errors")
ERRORS_SEARCHES = ("dp", "maxsat")
#: seconds between progress reports of a verbose fit
PROGRESS_EVERY = 0.25
#: a perfect tree of this depth already has 2^20 leaves in the formula
MAX_SAT_DEPTH = 20
#: cap on rows x Boolean tests (bytes of the 0/1 matrix the encodings read)
MAX_TEST_CELLS = 1_000_000_000


#: share of the time limit the greedy fallback tree may take
GREEDY_SHARE = 0.25


def _search(report, *, errors_mode: bool, search: dict, problem, greedy_depth: int,
            greedy_budget: float | None):
    """The worker's job: under a time limit (``greedy_budget`` set) the greedy
    tree first, reported as the answer of last resort; then the search."""
    if greedy_budget is not None:
        # the first greedy tree whatever it takes (the worker is stopped at the
        # limit anyway; without it the answer would be a leaf), the second
        # only within the budget, so the search keeps most of the time
        stop = time.perf_counter() + greedy_budget
        for i, criterion in enumerate(CRITERIA):
            fallback = _greedy(problem, greedy_depth, math.inf if i == 0 else stop, criterion)
            if fallback is not None:
                report(fallback)          # the parent keeps the better one
    if errors_mode:
        if search["errors_search"] == "dp":
            return min_errors_dp(search["tests"], search["depth"])
        return min_errors(search["problem"], search["depth"], solver=search["solver"])
    return infer(report=report, **search)


class _OverBudget(Exception):
    pass


def _greedy(problem, depth: int, stop: float, criterion: str) -> GreedyTree | None:
    """The greedy tree, or None when it is not done at ``stop`` (perf_counter)."""
    def checkpoint() -> None:
        check_deadline()                   # in-process limit: the whole search ends
        if time.perf_counter() > stop:
            raise _OverBudget

    try:
        return greedy_tree(problem, depth, checkpoint, criterion)
    except _OverBudget:
        return None


def _greedy_key(tree: GreedyTree, errors_mode: bool) -> tuple:
    """Which greedy tree is the better answer: fewest errors, then (DT-depth,
    DT-size) the shallower, then the smaller."""
    return (tree.errors, 0 if errors_mode else tree.depth, tree.leaves)


class SATTreeClassifier(FittedTreeMixin, ClassifierMixin, BaseEstimator):
    """Smallest decision tree that classifies every training example correctly.

    Found by incremental SAT (Avellaneda, AAAI 2020) or by the library's
    exact DP engine: the minimum depth, then the fewest nodes at that depth.

    Columns become yes/no tests automatically (see
    :class:`optimaltrees.data.binarize.Binarizer`): two-valued columns one
    test, numeric columns one threshold test per gap between values (at the
    shortest decimal inside it), categorical columns
    (strings, pandas categories, or those named in ``categorical``) one test
    per value.  The tree prints in the original column names.

    Parameters
    ----------
    objective : {"depth", "size", "errors"}, default="depth"
        ``"depth"`` (DT-depth): the smallest depth of a tree that fits every
        example.  ``"size"`` (DT-size): then the fewest nodes at that depth.
        ``"errors"``: the tree of depth ``max_depth`` with the fewest
        misclassifications (for data no tree fits exactly), by the exact DP
        engine or MaxSAT (``errors_search``).
    max_depth : int or None, default=None
        Cap on the depth (required for ``"errors"``).  When no tree of depth
        <= cap fits the data, ``fit`` raises a ValueError saying so.
    time_limit : float or None, default=60
        Seconds for the whole ``fit``, counted from its start (the default
        every estimator of the library shares); None: until proven (the paper's method alone, which may run for hours: DT-depth
        on a few hundred numeric rows can take minutes).  Binarising and
        reducing the data come first, then the search, which runs in a worker
        process (a SAT call cannot be interrupted mid-call) for the time left -
        or, where a worker cannot be started (a daemonic process such as a
        ``multiprocessing.Pool``, Dask or some joblib workers, or a thread
        other than the main one), in ``fit``'s own process with every SAT
        call cut into conflict-budgeted slices of about 0.1 s, so the limit
        holds there too (see :mod:`optimaltrees.search.sat.worker`).  ``fit``
        never raises at the limit; it returns the best tree known, warns
        (UserWarning naming the limit) and sets ``timed_out_``:

        * the search's tree when it has one: for DT-depth a tree of the
          proven minimum depth, for DT-size the smallest tree found at that
          depth (``is_optimal_`` False until its size is proven);
        * otherwise a greedy tree, built first in the worker (a second one,
          by another split criterion, only within a quarter of the time left;
          the better kept: fewest errors, then shallower, then smaller; depth
          <= ``max_depth``, or 20).  It takes a pass over the data per level
          (milliseconds on a few thousand rows and tests, seconds on 3,000
          rows x 30,000 tests).  On consistent data it usually fits every
          example: an upper bound on the minimum depth and size, not minimal
          (``is_optimal_`` False unless its depth meets
          ``depth_lower_bound_``).  Under a depth cap (``max_depth``, or 20)
          it may not fit them all: ``train_error_`` says how many it misses;
        * otherwise (the limit struck even before the greedy tree was done)
          a single leaf predicting the majority class.

        ``"errors"`` likewise returns the greedy tree of depth <= ``max_depth``
        when its search has not finished.  The overrun is the time to stop the
        worker and build the tree (about 0.05 s), or, for a limit shorter than
        the preparation, the preparation itself (about 0.6 s for 3,000 rows x
        30,000 tests), after which no search starts.  Without a limit no
        greedy tree is built (the paper's method alone).  Formulas beyond a
        size cap (``search.sat.encoding.MAX_*_CLAUSES``) are refused with a
        ValueError instead of exhausting memory.
    solver : str, default="glucose4"
        A python-sat solver name (``optimaltrees.search.sat.available_solvers()``).
        Glucose 4 is the default because this loop makes hundreds of small
        incremental calls, where it takes a third to a half of CaDiCaL's time
        on the paper's sets.
        ``errors_search="maxsat"`` uses it inside RC2.
    categorical : "auto", "all", "none" or list of columns, default="auto"
        Which columns are categorical (one test per value).
    cardinality : {"counter", "totalizer"}, default="totalizer"
        Leaf bound for ``"size"``: python-sat's incremental totalizer or the
        paper's sequential counter.  Over the leaves in tree order the
        totalizer counts each subtree's leaves, which the solver reasons
        with; it roughly halves pure-SAT DT-size on balance-scale.
    size_search : {"descending", "binary"}, default="descending"
        How the SAT loop walks the leaf bound for ``"size"``: one leaf fewer
        than the best tree until the bound is infeasible (a single UNSAT
        call, usually the costly kind), or the paper's binary search.
    examples_per_round : int, default=1
        Misclassified examples added to the formula per round (the paper adds one).
    depth_search : {"auto", "sat", "dp"}, default="auto"
        How the minimum depth (and, for ``"size"``, the fewest nodes) is
        found; every route proves the same optimum.  ``"auto"``: the library's
        exact DP engine on the same tests, for both: the smallest depth whose
        fewest-errors tree has no error, then at that depth a cost of 2^-k
        per node (below one error) for the fewest nodes; numeric columns go
        to the engine as ranks.  The fastest route measured on the paper's
        sets (the ``sat-table3`` benchmark).  ``"sat"``: the paper's
        incremental SAT loop throughout (Avellaneda's DT-depth / DT-size).
        ``"dp"``: the DP engine's depth, then SAT's DT-size at it.
        ``stats_["search"]`` says which answered ("dp", "sat", "dp+sat").
    errors_search : {"dp", "maxsat"}, default="dp"
        How ``"errors"`` finds the fewest-errors tree of depth ``max_depth``
        over the Boolean tests.  ``"dp"``: the library's exact DP engine on
        the 0/1 test matrix (what ``OptimalTreeClassifier`` runs): the same
        proven optimum (training errors), usually orders of magnitude faster
        (300 numeric rows at depth 3: 0.1 s, where MaxSAT ran 9 CPU-minutes);
        numeric columns go to the engine as ranks, its native thresholds.
        ``"maxsat"``: the MaxSAT formulation on ``solver`` (RC2).  On
        numeric data, ``OptimalTreeClassifier(max_depth=...)`` solves the
        same problem on the raw thresholds directly.
    repair : "auto", None or sequence of int, default="auto"
        Neighbourhood repair (not in the paper): before each full SAT call,
        look for a tree that keeps the last tree's tests except on its bottom
        ``r`` levels, for each ``r`` in turn ("auto": half the depth, then
        four fifths, e.g. 4 then 6 levels at depth 8).  Usually far
        faster on deep trees; the result is still proven (only a call
        without these assumptions declares a depth infeasible).  None: the
        paper's plain loop.
    random_state : int or None, default=None
        Order in which the SAT loop picks misclassified examples.  None: the
        canonical order (distinct rows sorted as bit strings), so the search,
        its time and its tree do not depend on the order of the training rows;
        an int: a random order (the paper's averaged runs).
    verbose : bool, default=False
        Show a live progress line (on stderr): the depth being tried (and
        the leaf bound, for DT-size), SAT calls, examples encoded so far, the
        best tree known (upper bound), the proven lower bound and the
        elapsed time against the limit.

    class_weight : "balanced", dict or None, default=None
        Weights of the classes, as in scikit-learn (multiplying ``fit``'s
        ``sample_weight``).  ``"errors"`` then minimises the misclassified
        weight; a perfect tree leaves out the rows of weight 0.

    Attributes
    ----------
    tree_ : Tree
        The fitted tree, over the Boolean tests of ``binarizer_``.
    binarizer_ : Binarizer
        The tests, applied again at predict time.
    classes_ : ndarray of shape (n_classes,)
        The class labels, sorted.
    n_classes_ : int
        Number of classes.
    n_features_in_ : int
        Number of input columns seen in ``fit``.
    feature_names_in_ : ndarray of shape (n_features,)
        Column names of a DataFrame seen in ``fit`` (only then).
    depth_ : int
        Depth of ``tree_``.
    n_nodes_ : int
        Nodes of ``tree_`` (2 * leaves - 1).
    min_depth_ : int or None
        The proven minimum depth (``"depth"`` and ``"size"``), else None.
    depth_lower_bound_ : int or None
        Every shallower tree misclassifies some training example (proven;
        None for ``"errors"``); equals ``depth_`` when the depth is proven
        minimal.
    size_lower_bound_ : int or None
        ``"size"`` only: every tree of the minimum depth that fits the data
        has at least this many nodes (one leaf per class and
        ``depth_lower_bound_ + 1`` leaves at least, more once DT-size
        refuted smaller leaf counts); ``n_nodes_`` when proven.
    train_error_ : int or float
        Training misclassifications (their weight, a float, for
        ``"errors"`` with sample weights): 0 unless ``"errors"``, or a
        time-limited fit that returned an imperfect greedy tree or a leaf.
    is_optimal_ : bool
        The objective is proven optimal: the minimum depth (``"depth"``),
        the fewest nodes at it (``"size"``), the fewest errors (``"errors"``).
    gap_ : float
        Relative gap of the objective (depth, nodes or errors) to its proven
        lower bound, as a fraction (0.0 when proven); nan for ``"depth"``
        and ``"size"`` when the tree is not perfect (a greedy tree or the
        leaf at a stop).
    tree_source_ : str
        ``"search"`` (the SAT, MaxSAT or DP search), ``"greedy"`` (the
        time-limit fallback) or ``"leaf"`` (nothing found in time).
    timed_out_ : bool
        The time limit stopped the search.
    interrupted_ : bool
        Ctrl-C stopped the fit: the best tree known is kept (the search's,
        else the greedy tree, else the majority leaf), with a RuntimeWarning.
    fit_time_ : float
        Seconds in ``fit``.
    summary_ : FitSummary
        The fit in the fields every estimator shares (method ``"sat"``).
    stats_ : dict
        depth, nodes, perfect_nodes, examples_encoded, distinct_examples,
        boolean_features, sat_calls, rounds (trees checked), repaired (rounds
        answered by a repair), variables, clauses, solve_seconds,
        depths_tried, greedy_depth, greedy_nodes, greedy_errors (the greedy
        tree's, None without one), search (``"sat"``, ``"dp"``, ``"dp+sat"``
        or ``"maxsat"``: what found the answer), seconds.

    See Also
    --------
    OptimalTreeClassifier : The tree of bounded depth with the fewest errors.

    Examples
    --------
    >>> from optimaltrees import SATTreeClassifier
    >>> from optimaltrees.data import load_mouse
    >>> X, y, names = load_mouse()
    >>> clf = SATTreeClassifier("size", categorical="all").fit(X, y)
    >>> clf.depth_, clf.n_nodes_, clf.is_optimal_
    (4, 15, True)
    """

    def __init__(self, objective: str = "depth", *, max_depth: int | None = None,
                 time_limit: float | None = DEFAULT_TIME_LIMIT, solver: str = "glucose4",
                 categorical="auto", cardinality: str = "totalizer", size_search: str = "descending",
                 examples_per_round: int = 1,
                 depth_search: str = "auto", errors_search: str = "dp", repair="auto",
                 random_state: int | None = None, verbose: bool = False, class_weight=None) -> None:
        self.objective = objective
        self.max_depth = max_depth
        self.time_limit = time_limit
        self.solver = solver
        self.categorical = categorical
        self.cardinality = cardinality
        self.size_search = size_search
        self.examples_per_round = examples_per_round
        self.depth_search = depth_search
        self.errors_search = errors_search
        self.repair = repair
        self.random_state = random_state
        self.verbose = verbose
        self.class_weight = class_weight

    _parameter_constraints = {
        "objective": [StrOptions(set(OBJECTIVES))],
        "max_depth": [Range(Integral, 0, MAX_SAT_DEPTH, closed="both"), None],
        "time_limit": positive_seconds(),
        "solver": [str],                        # one python-sat offers: _check_param_combinations
        "categorical": [StrOptions({"auto", "all", "none"}), "array-like"],
        "cardinality": [StrOptions(set(CARDINALITIES))],
        "size_search": [StrOptions(set(SIZE_SEARCHES))],
        "examples_per_round": [Range(Integral, 1, None, closed="left")],
        "depth_search": [StrOptions(set(DEPTH_SEARCHES))],
        "errors_search": [StrOptions(set(ERRORS_SEARCHES))],
        "repair": [StrOptions({"auto"}), "array-like", None],
        "random_state": [Range(Integral, 0, None, closed="left"), None],
        "verbose": ["verbose"],
        "class_weight": [StrOptions({"balanced"}), dict, None],
    }

    def _check_param_combinations(self) -> None:
        """What the constraints cannot say: "errors" needs a depth, the solver
        must be one python-sat offers, repair levels are positive ints."""
        if self.objective == "errors" and self.max_depth is None:
            raise ValueError("objective='errors' needs max_depth: the fewest errors of a tree of "
                             "which depth? (without a cap a deep enough tree always has 0)")
        check_solver_name(self.solver)
        self._repair_levels()

    def _repair_levels(self) -> tuple[int, ...] | str:
        """``repair`` as the tuple of bottom levels each repair may change, or
        "auto" (levels chosen per depth by the search)."""
        if self.repair is None:
            return ()
        if isinstance(self.repair, str):
            if self.repair != "auto":
                raise ValueError(f"repair must be 'auto', None or a sequence of positive ints, "
                                 f"got {self.repair!r}")
            return DEFAULT_REPAIR
        try:
            levels = tuple(self.repair)
        except TypeError:
            raise ValueError(f"repair must be 'auto', None or a sequence of positive ints, "
                             f"got {self.repair!r}") from None
        for level in levels:
            check_integer("repair level", level, low=1)
        return tuple(int(v) for v in levels)

    # -- fitting -----------------------------------------------------------------
    def fit(self, X, y, sample_weight=None) -> "SATTreeClassifier":
        """Make the yes/no tests of X, then search for the smallest tree.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Numeric and categorical columns; no missing values.
        y : array-like of shape (n_samples,)
            Class labels.
        sample_weight : array-like of shape (n_samples,) or None, default=None
            One weight >= 0 per row.  ``"errors"`` minimises the
            misclassified weight; a perfect tree (``"depth"``, ``"size"``)
            fits the rows of positive weight (a row of weight 0 is left out;
            a greedy fallback at the time limit weighs the rows).

        Returns
        -------
        SATTreeClassifier
            The fitted estimator.

        Raises
        ------
        ConflictingExamplesError
            Identical rows with different labels (unless ``"errors"``): no
            perfect tree exists.  A time limit that passes while the rows
            are still being encoded returns the majority leaf instead,
            before conflicting rows could be seen.
        ValueError
            No tree of depth <= ``max_depth`` fits the data.
        """
        start = time.perf_counter()
        validate_params(self)
        y = _check_y(y)
        y_full, weight, keep = y, None, None
        if sample_weight is not None or self.class_weight is not None:
            check_class_labels(y)
            try:
                classes, y_all = np.unique(y, return_inverse=True)
            except TypeError as exc:
                raise TypeError(f"class labels must be mutually comparable (sortable): {exc}") from None
            weight = check_fit_weights(sample_weight, self.class_weight, y_all.reshape(-1), classes)
            if (self.objective == "errors" and self.errors_search == "maxsat"
                    and not np.array_equal(weight, np.round(weight))):
                raise ValueError("errors_search='maxsat' takes integer sample weights (RC2 sums "
                                 "integers); use errors_search='dp' for any weights")
            keep = weight > 0
            if keep.all():
                keep = None
            else:
                weight = weight[keep]
                X, y = _rows(X, keep), y[keep]
        deadline = None if self.time_limit is None else start + float(self.time_limit)
        checkpoint = preparation_clock(deadline)
        binarizer = fit_binarizer(X, self.categorical, owner=type(self).__name__, checkpoint=checkpoint)
        stopped = binarizer.stopped_       # "time" or "Ctrl-C" while the data is prepared
        n_rows = _num_samples(X)
        if n_rows != y.shape[0]:           # (before the encoding, which the clock may stop)
            raise ValueError("Found input variables with inconsistent numbers of samples: "
                             f"[{n_rows}, {y.shape[0]}]")
        if n_rows * binarizer.n_tests_ > MAX_TEST_CELLS:
            raise ValueError(f"{binarizer.n_tests_:,} Boolean tests x {n_rows:,} rows is too large "
                             f"for the SAT encodings (cap {MAX_TEST_CELLS:,} cells); round or bin "
                             "the numeric columns, or use OptimalTreeClassifier")
        B = None
        try:
            if stopped is None:
                B = binarizer.transform(X, owner=type(self).__name__, checkpoint=checkpoint)
        except PreparationTimeout:
            stopped = "time"
        except KeyboardInterrupt:
            stopped = "Ctrl-C"
        check_class_labels(y_full)
        try:     # the classes of every row, as scikit-learn's trees (weight 0 or not)
            self.classes_, y_index = np.unique(y_full, return_inverse=True)
        except TypeError as exc:
            raise TypeError(f"class labels must be mutually comparable (sortable): {exc}") from None
        y_index = y_index.reshape(-1) if keep is None else y_index.reshape(-1)[keep]
        self.n_classes_ = len(self.classes_)
        self.binarizer_ = binarizer
        self.n_features_in_ = binarizer.n_features_in_
        if binarizer.feature_names_in_ is not None:
            self.feature_names_in_ = np.asarray(binarizer.feature_names_in_, dtype=object)
        elif hasattr(self, "feature_names_in_"):
            del self.feature_names_in_
        errors_mode = self.objective == "errors"
        try:
            if stopped is None:
                problem, tests = self._prepare(B, y_index, weight, errors_mode, checkpoint)
        except PreparationTimeout:
            stopped = "time"
        except KeyboardInterrupt:
            stopped = "Ctrl-C"
        if stopped is not None:
            # the limit (or Ctrl-C) came while the data was being prepared: the
            # majority leaf, as when the search finds nothing in time; but rows
            # that no perfect tree fits are still an error, when they can be
            # seen (one pass over the encoded rows; before it, they cannot)
            if B is not None and not errors_mode:
                refuse_conflicts(B, y_index, self.n_classes_)
            found = self._set_tree(None, {"greedy": None, "sat": None}, None, None, y_index, errors_mode,
                                   timed_out=stopped == "time", interrupted=stopped == "Ctrl-C",
                                   weight=weight)
            return self._finish_fit(start, *found)
        order = None
        if self.random_state is not None:
            order = np.random.default_rng(self.random_state).permutation(problem.n_rows)
        if errors_mode:
            search = dict(problem=problem, depth=int(self.max_depth), solver=self.solver,
                          errors_search=self.errors_search, tests=tests)
        else:
            search = dict(problem=problem, objective=self.objective, max_depth=self.max_depth,
                          solver=self.solver, cardinality=self.cardinality,
                          size_search=self.size_search,
                          per_round=int(self.examples_per_round), order=order,
                          depth_search=self.depth_search, tests=tests,
                          repair=self._repair_levels(),
                          progress=PROGRESS_EVERY if self.verbose else None)
        remaining = None if deadline is None else max(0.0, deadline - time.perf_counter())
        # under a time limit, a greedy tree first: the answer should the
        # search find nothing in time (see _search for its share of the time)
        greedy_cap = MAX_SAT_DEPTH if self.max_depth is None else int(self.max_depth)
        kwargs = dict(errors_mode=errors_mode, search=search, problem=problem,
                      greedy_depth=greedy_cap,
                      greedy_budget=None if remaining is None else remaining * GREEDY_SHARE)
        known = {"greedy": None, "sat": None, "progress": None}
        line = _Progress(self, start, problem.n_rows, known) if self.verbose else None

        def on_report(report) -> None:
            if isinstance(report, SATProgress):
                known["progress"] = report
            elif not isinstance(report, GreedyTree):
                known["sat"] = report
            elif known["greedy"] is None or (_greedy_key(report, errors_mode)
                                             < _greedy_key(known["greedy"], errors_mode)):
                known["greedy"] = report
            if line is not None:
                line.show()

        interrupted = False
        try:
            if line is not None:
                line.show()
            value, timed_out, _ = run_limited(_search, kwargs, remaining, on_report)
        except SearchInterrupted:         # the best tree known, else the majority leaf
            value, timed_out, interrupted = None, False, True
        except BaseException:
            if line is not None:
                line.close()
            raise
        if line is not None:
            line.finish(value, errors_mode)
        found = self._set_tree(value, known, problem, B, y_index, errors_mode, timed_out, interrupted, weight)
        return self._finish_fit(start, *found)

    def _prepare(self, B: np.ndarray, y_index: np.ndarray, weight, errors_mode: bool, checkpoint):
        """The SAT problem (distinct rows, kept tests) and, when the DP engine
        searches, the tests as it reads them; ``checkpoint`` raises
        :class:`PreparationTimeout` at the time limit."""
        chains = test_chains(self.binarizer_.tests_)
        # a perfect tree misclassifies nothing whatever the weights; they still
        # weigh the rows for the greedy fallback, as repeated rows would
        problem = prepare(B, y_index, self.n_classes_, allow_conflicts=errors_mode, weight=weight,
                          chains=chains, checkpoint=checkpoint)
        # the DP engine reads every row, numeric columns as ranks (one column
        # each, not one 0/1 column per threshold)
        uses_dp = self.errors_search == "dp" if errors_mode else self.depth_search != "sat"
        if not uses_dp:
            return problem, None
        if errors_mode:
            return problem, OrdinalTests(B, y_index, self.n_classes_, chains, weight=weight,
                                         checkpoint=checkpoint)
        # a perfect tree depends on the distinct rows only: repeated rows,
        # their weights and their order leave the search (and its ties) as they are
        return problem, OrdinalTests(B, y_index, self.n_classes_, chains, rows=problem.first_example,
                                     checkpoint=checkpoint)

    def _finish_fit(self, start: float, name: str, objective: float, bound: float) -> "SATTreeClassifier":
        self.fit_time_ = time.perf_counter() - start
        self.stats_["seconds"] = self.fit_time_
        self.summary_ = FitSummary(
            method="sat", objective_name=name, objective=objective, lower_bound=bound,
            gap=self.gap_, proven=bool(self.is_optimal_), timed_out=self.timed_out_,
            interrupted=self.interrupted_, memory_out=False, stopped=False, fit_seconds=self.fit_time_,
            status=status_text(bool(self.is_optimal_), timed_out=self.timed_out_,
                               interrupted=self.interrupted_))
        return self

    def _set_tree(self, value, known, problem, B, y_index, errors_mode: bool, timed_out: bool,
                  interrupted: bool, weight: np.ndarray | None = None) -> tuple[str, float, float]:
        """The fitted tree and what is proven about it, from the search's answer
        (``value``, None when stopped) or else its last report and the greedy tree."""
        greedy = known["greedy"]
        n_tests = self.binarizer_.n_tests_
        present = int(np.unique(y_index).size)
        trivial_depth = 0 if present <= 1 else max(1, math.ceil(math.log2(present)))
        cost = None
        if errors_mode:
            result, cost = value if value is not None else (None, None)
        else:
            result = value if value is not None else known["sat"]
        if result is not None and result.tree is not None:
            source = "search"
            columns = np.arange(n_tests) if result.over_tests else problem.columns
            tree = to_tree(result.tree, columns, B, y_index, self.n_classes_, n_tests,
                           majority=errors_mode, weight=weight)
        elif greedy is not None:
            source = "greedy"
            tree = nested_to_tree(greedy.root, problem.columns, B, y_index, self.n_classes_, n_tests,
                                  weight=weight)
        else:                              # nothing known in time: the majority leaf
            source = "leaf"
            counts = np.bincount(y_index, minlength=self.n_classes_, weights=weight).astype(np.float64)
            tree = Tree([-1], [-2.0], [-1], [-1], counts[None, :], n_tests, weighted=weight is not None)
        self.tree_ = tree
        self.train_error_ = tree.training_errors() if weight is None else tree.weighted_errors()
        self.tree_source_ = source
        if weight is not None and cost is not None:
            cost = float(cost)

        # weighted errors agree to a tolerance relative to the total weight
        # (a perfect tree scores 0 whatever the weights)
        tolerance = None if weight is None else objective_tolerance(float(weight.sum()), len(weight))

        def differ(a, b) -> bool:
            return abs(a - b) > tolerance if weight is not None else a != b
        # every search tree is checked against all training examples
        if source == "search" and differ(self.train_error_, cost if errors_mode else 0):
            raise RuntimeError(f"internal error: the SAT tree makes {self.train_error_} training "
                               f"errors, the solver promised {cost if errors_mode else 0}")
        if source == "greedy" and differ(self.train_error_, greedy.errors):
            raise RuntimeError(f"internal error: the greedy tree makes {self.train_error_} training "
                               f"errors, expected {greedy.errors}")
        self.timed_out_ = bool(timed_out)
        self.interrupted_ = bool(interrupted)
        self.depth_ = tree.max_depth
        self.n_nodes_ = tree.node_count
        stats = result.stats if result is not None else SATStats()
        if errors_mode:
            self.min_depth_ = None
            self.depth_lower_bound_ = None
            self.size_lower_bound_ = None
            # a greedy tree without error is optimal too: no tree has fewer
            self.is_optimal_ = source == "search" or self.train_error_ == 0
        else:
            # every shallower tree is proven to misclassify some example
            depth_lb = trivial_depth if result is None else max(trivial_depth, result.depth_lower_bound)
            proven_depth = source == "search" and bool(result.depth_optimal)
            if source == "greedy" and self.train_error_ == 0 and self.depth_ <= depth_lb:
                proven_depth = True                    # the greedy tree reaches the bound
            if proven_depth:
                depth_lb = self.depth_
            self.min_depth_ = self.depth_ if proven_depth else None
            self.depth_lower_bound_ = int(depth_lb)
            size_proven = False
            if self.objective == "size":
                # leaves of a tree of the minimum depth; more once DT-size has
                # refuted smaller leaf counts
                leaves_lb = min_leaves(present, depth_lb)
                if source == "search" and proven_depth:
                    leaves_lb = max(leaves_lb, int(result.leaves_lower_bound))
                    size_proven = bool(result.size_optimal) or self.depth_ == 0
                elif proven_depth and self.depth_ == 0:
                    size_proven = True
                if size_proven:
                    leaves_lb = tree.n_leaves
                self.size_lower_bound_ = int(2 * max(1, leaves_lb) - 1)
            else:
                self.size_lower_bound_ = None
            done = size_proven if self.objective == "size" else proven_depth
            # a search answer only reported before Ctrl-C is not trusted as final
            self.is_optimal_ = bool(done) and not (interrupted and source == "search")
        # the objective and its proven bound, for gap_ and the summary
        if errors_mode:
            name, value = "training errors", self.train_error_
            bound = value if self.is_optimal_ else 0
        elif self.objective == "depth":
            name, value = "depth", self.depth_
            bound = min(self.depth_lower_bound_, value)
        else:
            name, value = "nodes at the minimum depth", self.n_nodes_
            bound = min(self.size_lower_bound_, value)
        if self.is_optimal_:
            bound = value
        self.gap_ = relative_gap(value, bound)
        if not errors_mode and self.train_error_ > 0:
            # not a perfect tree (a greedy tree or the leaf at a stop): its depth or
            # size says nothing against the bound, whose true value is kept
            bound = float(self.depth_lower_bound_ if self.objective == "depth" else self.size_lower_bound_)
            self.gap_ = math.nan
        objective = (name, float(value), float(bound))
        self.stats_ = {
            "depth": self.depth_, "nodes": self.n_nodes_,
            # the perfect tree the formula describes (the search's depth k)
            "perfect_nodes": (1 << ((result.tree.depth if source == "search" else self.depth_) + 1)) - 1,
            # (None: the time limit passed before the data was prepared)
            "examples_encoded": stats.examples_encoded,
            "distinct_examples": None if problem is None else problem.n_rows,
            "boolean_features": n_tests,
            "boolean_features_kept": None if problem is None else int(problem.columns.size),
            # kept tests the SAT formula encodes as ordered thresholds (see nested_chains)
            "boolean_features_chained": None if problem is None else sum(
                c.size for c in problem.chains or () if c.size > 1),
            "sat_calls": stats.sat_calls, "rounds": stats.rounds, "repaired": stats.repaired,
            "variables": stats.variables, "clauses": stats.clauses,
            "solve_seconds": stats.solve_seconds, "depths_tried": list(stats.depths_tried),
            "greedy_depth": None if greedy is None else greedy.depth,
            "greedy_nodes": None if greedy is None else 2 * greedy.leaves - 1,
            "greedy_errors": None if greedy is None else greedy.errors,
            "search": self._route(errors_mode),
        }
        self._warn_stopped(source)
        return objective

    def _route(self, errors_mode: bool) -> str:
        """Which search answered: "sat" (the paper's loop), "dp" (the DP
        engine), "dp+sat" (the DP's depth, SAT's fewest nodes), "maxsat"."""
        if errors_mode:
            return self.errors_search
        if self.depth_search == "dp" and self.objective == "size":
            return "dp+sat"
        return "sat" if self.depth_search == "sat" else "dp"

    def _warn_stopped(self, source: str) -> None:
        if not (self.timed_out_ or self.interrupted_):
            return
        why = (f"time_limit={self.time_limit} s reached" if self.timed_out_
               else "search interrupted (Ctrl-C)")
        what = {"search": "the best tree the search found", "greedy": "a greedy tree",
                "leaf": "a single leaf (no tree was found before the stop)"}[source]
        fit = ("it fits every training example" if self.train_error_ == 0
               else f"it misclassifies {self.train_error_} training examples")
        proof = "" if self.is_optimal_ else ", not proven optimal"
        category = UserWarning if self.timed_out_ else RuntimeWarning
        warnings.warn(f"{why}: returning {what} (depth {self.depth_}, {self.n_nodes_} nodes); "
                      f"{fit}{proof}{self._hint() if self.timed_out_ else ''}", category,
                      stacklevel=4)

    def _hint(self) -> str:
        """Another way to the same answer, when there is a faster one."""
        if self.objective == "errors":
            if self.errors_search == "maxsat":
                return ("; errors_search='dp' (the default) proves the same fewest-errors tree "
                        "with the exact DP engine, usually far faster")
            return ("; OptimalTreeClassifier(max_depth=...) searches the same depth-limited "
                    "trees on numeric data (thresholds) directly")
        if self.depth_search != "auto":
            return ("; depth_search='auto' (the default: the exact DP engine) often proves the "
                    "same minimum much faster")
        return ""

    # -- prediction (FittedTreeMixin) ------------------------------------------------
    def _code_tests(self):
        """The binarizer's tests: the tree's columns answer them."""
        return self.binarizer_.tests_

    def _tree_input(self, X) -> np.ndarray:
        return self.binarizer_.transform(X, owner=type(self).__name__).astype(np.float64)

    def _export_labels(self, decimals: int, feature_names) -> dict:
        return {"split_labels": self.binarizer_.test_labels(decimals, feature_names)}

    def _importance_columns(self):
        """Each Boolean test counts for the input column it tests."""
        return np.array([t.column for t in self.binarizer_.tests_], dtype=np.int64)


class _Progress:
    """The verbose fit's live line: what the search reports, with the best
    tree known (greedy or search) and the proven lower bound."""

    def __init__(self, est: SATTreeClassifier, start: float, n_rows: int, known: dict) -> None:
        from optimaltrees.anytime import ProgressLine

        self.start, self.n_rows, self.known = start, n_rows, known
        self.objective, self.depth = est.objective, est.max_depth
        self.search = est.errors_search if est.objective == "errors" else est.depth_search
        self.line = ProgressLine(est.time_limit, desc=f"sat ({est.objective})")

    def _state(self) -> str:
        known = self.known
        greedy, sat, prog = known["greedy"], known["sat"], known["progress"]
        if self.objective == "errors":
            best = "-" if greedy is None else f"{greedy.errors} errors (greedy tree)"
            engine = "MaxSAT" if self.search == "maxsat" else "DP engine"
            return f"{engine} at depth {self.depth} | best {best}"
        parts = []
        lower = 0 if sat is None else sat.depth_lower_bound
        if prog is not None:
            # a depth refuted since the last report: the next one is being tried
            depth = max(prog.depth, lower) if prog.phase == "depth" else prog.depth
            where = f"depth {depth}" + (f", <= {prog.leaves} leaves" if prog.leaves else "")
            if self.search == "auto" or (self.search == "dp" and prog.phase == "depth"):
                parts.append(f"DP engine, {'fewest nodes at' if prog.phase == 'size' else 'trying'} "
                             f"depth {depth}")
            else:
                parts.append(f"trying {where} | {prog.sat_calls} SAT calls | "
                             f"{prog.examples_encoded}/{self.n_rows} examples encoded")
        if prog is not None and prog.phase == "size":
            parts.append(f"depth {prog.depth} proven minimum | nodes: best {prog.upper}, "
                         f"proven >= {prog.lower}")
            return " | ".join(parts)
        if prog is not None:
            lower = max(lower, prog.lower)
        if sat is not None and sat.tree is not None:
            upper = f"depth {sat.tree.depth}"
        elif greedy is not None and greedy.errors == 0:
            upper = f"depth {greedy.depth} (greedy tree)"
        else:
            upper = "-"
        parts.append(f"best {upper} | proven >= depth {lower}")
        return " | ".join(parts)

    def show(self) -> None:
        self.line.show(time.perf_counter() - self.start, self._state())

    def finish(self, value, errors_mode: bool) -> None:
        if value is not None:
            if errors_mode:
                self.line.show(time.perf_counter() - self.start,
                               f"done ({self.search}): {value[1]} errors, proven fewest")
            elif isinstance(value, SATResult) and value.tree is not None:
                what = (f"{2 * value.leaves - 1} nodes, proven fewest at depth {value.tree.depth}"
                        if self.objective == "size" else f"depth {value.tree.depth}, proven minimum")
                self.line.show(time.perf_counter() - self.start, f"done: {what}")
        else:
            self.line.show(time.perf_counter() - self.start, f"{self._state()} | stopped")
        self.close()

    def close(self) -> None:
        self.line.close()



def _rows(X, keep: np.ndarray):
    """The rows of X (array, list or DataFrame) where ``keep``."""
    if hasattr(X, "iloc"):
        if len(X) != len(keep):
            raise ValueError(f"Found input variables with inconsistent numbers of samples: [{len(X)}, {len(keep)}]")
        return X.iloc[np.flatnonzero(keep)]
    n = X.shape[0] if isinstance(X, np.ndarray) and X.ndim else len(X) if hasattr(X, "__len__") else -1
    if n != len(keep):
        raise ValueError(f"Found input variables with inconsistent numbers of samples: [{n}, {len(keep)}]")
    if isinstance(X, np.ndarray):
        return X[keep]
    return [row for row, k in zip(X, keep) if k]      # a list keeps its cells' types


def _check_y(y) -> np.ndarray:
    if y is None:
        raise ValueError("SATTreeClassifier requires y to be passed, but the target y is None")
    check_raw_labels(y)
    if hasattr(y, "isna") and bool(np.asarray(y.isna()).any()):
        raise ValueError("Input y contains missing values (NaN/None/NA).")
    y = np.asarray(y.to_numpy() if hasattr(y, "to_numpy") else y)
    if y.ndim == 2 and y.shape[1] == 1:
        warnings.warn("A column-vector y was passed when a 1d array was expected. Please change "
                      "the shape of y to (n_samples, ), for example using ravel().",
                      DataConversionWarning, stacklevel=3)
        y = y.ravel()
    if y.ndim != 1:
        raise ValueError(f"y should be a 1d array, got an array of shape {y.shape} instead.")
    if y.shape[0] == 0:
        raise ValueError("Found array with 0 sample(s) while a minimum of 1 is required.")
    if y.dtype.kind == "f" and not np.isfinite(y).all():
        raise ValueError("Input y contains NaN or infinity.")
    if y.dtype.kind == "O" and any(is_missing(v) for v in y):
        raise ValueError("Input y contains missing values (NaN/None/NA).")
    return y
