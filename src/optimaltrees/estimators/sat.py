"""``SATTreeClassifier``: the smallest tree that fits the training data, by SAT."""
from __future__ import annotations

import time
import warnings
from numbers import Integral

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils._param_validation import StrOptions

from optimaltrees.data.binarize import Binarizer
from optimaltrees.data.validation import check_class_labels, check_raw_labels, is_missing
from optimaltrees.estimators._base import (FittedTreeMixin, Range, check_integer, positive_seconds,
                                           validate_params)
from optimaltrees.model.summary import FitSummary, relative_gap, status_text
from optimaltrees.search.sat import CARDINALITIES, infer, min_errors, prepare
from optimaltrees.search.sat.encoding import check_solver_name
from optimaltrees.search.sat.inference import DEFAULT_REPAIR
from optimaltrees.search.sat.decode import to_tree
from optimaltrees.search.sat.worker import SearchInterrupted, run_limited

OBJECTIVES = ("depth", "size", "errors")
DEPTH_SEARCHES = ("sat", "dp")
#: a perfect tree of this depth already has 2^20 leaves in the formula
MAX_SAT_DEPTH = 20
#: cap on rows x Boolean tests (bytes of the 0/1 matrix the encodings read)
MAX_TEST_CELLS = 1_000_000_000


def _errors_search(problem, depth, solver, report=None):
    return min_errors(problem, depth, solver=solver)


class SATTreeClassifier(FittedTreeMixin, ClassifierMixin, BaseEstimator):
    """Decision tree that classifies every training example correctly, as small
    as possible, found by incremental SAT (Avellaneda, AAAI 2020).

    Columns become yes/no tests automatically (see
    :class:`optimaltrees.data.binarize.Binarizer`): two-valued columns one
    test, numeric columns one threshold test per midpoint, categorical columns
    (strings, pandas categories, or those named in ``categorical``) one test
    per value.  The tree prints in the original column names.

    Parameters
    ----------
    objective : {"depth", "size", "errors"}, default="depth"
        ``"depth"`` (DT-depth): the smallest depth of a tree that fits every
        example.  ``"size"`` (DT-size): then the fewest nodes at that depth.
        ``"errors"``: the tree of depth ``max_depth`` with the fewest
        misclassifications, by MaxSAT (for data no tree fits exactly).
    max_depth : int or None, default=None
        Cap on the depth (required for ``"errors"``).  When no tree of depth
        <= cap fits the data, ``fit`` raises a ValueError saying so.
    time_limit : float or None, default=None
        Seconds for the whole ``fit``, counted from its start: binarising and
        reducing the data, then the search, which runs in a worker process
        (CaDiCaL cannot be interrupted mid-call) for the time left; at the
        limit the best tree found so far is kept (``is_optimal_`` False), or,
        when none was found, ``fit`` raises TimeoutError.  The overrun is the
        time to stop the worker and build the tree (about 0.05 s), or, for a
        limit shorter than the preparation, the preparation itself (about
        0.6 s for 3,000 rows x 30,000 tests), after which no search starts.
        Formulas beyond a size cap (``search.sat.encoding.MAX_*_CLAUSES``) are
        refused with a ValueError instead of exhausting memory.
    solver : str, default="cadical195"
        A python-sat solver name (``optimaltrees.search.sat.available_solvers()``).
        ``"errors"`` uses it inside RC2.
    categorical : "auto", "all", "none" or list of columns, default="auto"
        Which columns are categorical (one test per value).
    cardinality : {"counter", "totalizer"}, default="counter"
        Leaf bound for ``"size"``: the paper's sequential counter or
        python-sat's incremental totalizer.
    examples_per_round : int, default=1
        Misclassified examples added to the formula per round (the paper adds one).
    depth_search : {"sat", "dp"}, default="sat"
        How the minimum depth is found: the paper's incremental SAT loop, or
        the library's exact DP engine on the same tests (the smallest depth
        whose optimum has no error; often much faster than SAT's proofs that
        a depth is infeasible).  DT-size then runs SAT at that depth.
    repair : "auto", None or sequence of int, default="auto"
        Neighbourhood repair (not in the paper): before each full SAT call,
        look for a tree that keeps the last tree's tests except on its bottom
        ``r`` levels, for each ``r`` in turn ("auto": 4, then 6).  Usually far
        faster on deep trees; the result is still proven (only a call
        without these assumptions declares a depth infeasible).  None: the
        paper's plain loop.
    random_state : int or None, default=None
        Order in which misclassified examples are picked: None keeps the data
        order (deterministic); an int shuffles it (the paper's averaged runs).

    Attributes
    ----------
    tree_ : Tree               over the Boolean tests of ``binarizer_``
    binarizer_ : Binarizer     the tests, applied again at predict time
    classes_, n_classes_, n_features_in_, feature_names_in_
    depth_ : int               depth of ``tree_``
    n_nodes_ : int             nodes of ``tree_`` (2 * leaves - 1)
    min_depth_ : int or None   the proven minimum depth ("depth"/"size")
    train_error_ : int         training misclassifications (0 unless "errors")
    is_optimal_ : bool         the objective is proven optimal
    gap_ : float               relative gap of the objective (depth, nodes or errors) to its
        proven lower bound, as a fraction (0.0 when proven), as on every estimator
    timed_out_ : bool
    interrupted_ : bool        Ctrl-C stopped the search (the best tree so far is kept,
        with a RuntimeWarning; with no tree yet, KeyboardInterrupt propagates)
    fit_time_ : float          seconds in ``fit``
    summary_ : FitSummary      the fit in the fields every estimator shares (method "sat")
    stats_ : dict              depth, nodes, perfect_nodes, examples_encoded,
        distinct_examples, boolean_features, sat_calls, rounds (trees checked),
        repaired (rounds answered by a repair), variables, clauses,
        solve_seconds, depths_tried, seconds
    """

    def __init__(self, objective: str = "depth", *, max_depth: int | None = None,
                 time_limit: float | None = None, solver: str = "cadical195",
                 categorical="auto", cardinality: str = "counter", examples_per_round: int = 1,
                 depth_search: str = "sat", repair="auto", random_state: int | None = None) -> None:
        self.objective = objective
        self.max_depth = max_depth
        self.time_limit = time_limit
        self.solver = solver
        self.categorical = categorical
        self.cardinality = cardinality
        self.examples_per_round = examples_per_round
        self.depth_search = depth_search
        self.repair = repair
        self.random_state = random_state

    _parameter_constraints = {
        "objective": [StrOptions(set(OBJECTIVES))],
        "max_depth": [Range(Integral, 0, MAX_SAT_DEPTH, closed="both"), None],
        "time_limit": positive_seconds(),
        "solver": [str],                        # one python-sat offers: _check_param_combinations
        "categorical": [StrOptions({"auto", "all", "none"}), "array-like"],
        "cardinality": [StrOptions(set(CARDINALITIES))],
        "examples_per_round": [Range(Integral, 1, None, closed="left")],
        "depth_search": [StrOptions(set(DEPTH_SEARCHES))],
        "repair": [StrOptions({"auto"}), "array-like", None],
        "random_state": [Range(Integral, 0, None, closed="left"), None],
    }

    def _check_param_combinations(self) -> None:
        """What the constraints cannot say: "errors" needs a depth, the solver
        must be one python-sat offers, repair levels are positive ints."""
        if self.objective == "errors" and self.max_depth is None:
            raise ValueError("objective='errors' needs max_depth: the fewest errors of a tree of "
                             "which depth? (without a cap a deep enough tree always has 0)")
        check_solver_name(self.solver)
        self._repair_levels()

    def _repair_levels(self) -> tuple[int, ...]:
        """``repair`` as the tuple of bottom levels each repair may change."""
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
    def fit(self, X, y) -> "SATTreeClassifier":
        """Binarize X, then search; raises on conflicting rows (unless "errors")."""
        start = time.perf_counter()
        validate_params(self)
        y = _check_y(y)
        deadline = None if self.time_limit is None else start + float(self.time_limit)
        binarizer = Binarizer(self.categorical).fit(X)
        n_rows = y.shape[0]
        if n_rows * binarizer.n_tests_ > MAX_TEST_CELLS:
            raise ValueError(f"{binarizer.n_tests_:,} Boolean tests x {n_rows:,} rows is too large "
                             f"for the SAT encodings (cap {MAX_TEST_CELLS:,} cells); round or bin "
                             "the numeric columns, or use OptimalTreeClassifier")
        B = binarizer.transform(X)
        if B.shape[0] != y.shape[0]:
            raise ValueError("Found input variables with inconsistent numbers of samples: "
                             f"[{B.shape[0]}, {y.shape[0]}]")
        check_class_labels(y)
        try:
            self.classes_, y_index = np.unique(y, return_inverse=True)
        except TypeError as exc:
            raise TypeError(f"class labels must be mutually comparable (sortable): {exc}") from None
        y_index = y_index.reshape(-1)
        self.n_classes_ = len(self.classes_)
        self.binarizer_ = binarizer
        self.n_features_in_ = binarizer.n_features_in_
        if binarizer.feature_names_in_ is not None:
            self.feature_names_in_ = np.asarray(binarizer.feature_names_in_, dtype=object)
        elif hasattr(self, "feature_names_in_"):
            del self.feature_names_in_
        errors_mode = self.objective == "errors"
        problem = prepare(B, y_index, self.n_classes_, allow_conflicts=errors_mode)
        order = None
        if self.random_state is not None:
            order = np.random.default_rng(self.random_state).permutation(problem.n_rows)
        if errors_mode:
            fn, kwargs = _errors_search, dict(problem=problem, depth=int(self.max_depth),
                                              solver=self.solver)
        else:
            fn, kwargs = infer, dict(problem=problem, objective=self.objective,
                                     max_depth=self.max_depth, solver=self.solver,
                                     cardinality=self.cardinality,
                                     per_round=int(self.examples_per_round), order=order,
                                     depth_search=self.depth_search,
                                     repair=self._repair_levels())
        remaining = None if deadline is None else max(0.0, deadline - time.perf_counter())
        interrupted = False
        try:
            value, timed_out, last = run_limited(fn, kwargs, remaining)
        except SearchInterrupted as stop:
            if errors_mode or stop.last is None or stop.last.tree is None:
                raise KeyboardInterrupt("SAT search interrupted before any tree was found") from None
            value, timed_out, last, interrupted = None, False, stop.last, True
        cost = None
        if errors_mode:
            if value is None:
                raise TimeoutError(f"MaxSAT found no proven tree within time_limit={self.time_limit} s")
            result, cost = value
        else:
            result = value if value is not None else last
            if result is None or result.tree is None:
                bound = "" if result is None else (
                    f"; every depth below {result.depth_lower_bound} is proven infeasible")
                raise TimeoutError(f"no tree that fits every example was found within "
                                   f"time_limit={self.time_limit} s{bound}")
        self.tree_ = to_tree(result.tree, problem.columns, B, y_index, self.n_classes_,
                             binarizer.n_tests_, majority=errors_mode)
        self.train_error_ = self.tree_.training_errors()
        # every returned tree is checked against all training examples
        expected = cost if errors_mode else 0
        if self.train_error_ != expected:
            raise RuntimeError(f"internal error: the SAT tree makes {self.train_error_} training "
                               f"errors, the solver promised {expected}")
        self.timed_out_ = timed_out
        self.interrupted_ = interrupted
        if interrupted:
            warnings.warn("search interrupted (Ctrl-C): returning the best tree found so far, "
                          "not proven optimal", RuntimeWarning, stacklevel=2)
        self.depth_ = self.tree_.max_depth
        self.n_nodes_ = self.tree_.node_count
        if errors_mode:
            self.min_depth_ = None
            self.is_optimal_ = True
            name, value, bound = "training errors", self.train_error_, self.train_error_
        else:
            self.min_depth_ = result.tree.depth if result.depth_optimal else None
            self.is_optimal_ = bool(result.size_optimal if self.objective == "size"
                                    else result.depth_optimal) and not interrupted
            if self.objective == "depth":
                name, value = "depth", self.depth_
                bound = value if result.depth_optimal else min(result.depth_lower_bound, value)
            else:
                name, value = "nodes at the minimum depth", self.n_nodes_
                bound = value if result.size_optimal else min(2 * result.leaves_lower_bound - 1, value)
            if self.is_optimal_:
                bound = value
        self.gap_ = relative_gap(value, bound)
        stats = result.stats
        self.fit_time_ = time.perf_counter() - start
        self.stats_ = {
            "depth": self.depth_, "nodes": self.n_nodes_,
            "perfect_nodes": (1 << (result.tree.depth + 1)) - 1,
            "examples_encoded": stats.examples_encoded, "distinct_examples": problem.n_rows,
            "boolean_features": binarizer.n_tests_, "boolean_features_kept": int(problem.columns.size),
            "sat_calls": stats.sat_calls, "rounds": stats.rounds, "repaired": stats.repaired,
            "variables": stats.variables, "clauses": stats.clauses,
            "solve_seconds": stats.solve_seconds, "depths_tried": list(stats.depths_tried),
            "seconds": self.fit_time_,
        }
        self.summary_ = FitSummary(
            method="sat", objective_name=name, objective=float(value), lower_bound=float(bound),
            gap=self.gap_, proven=bool(self.is_optimal_), timed_out=bool(timed_out),
            interrupted=bool(interrupted), memory_out=False, stopped=False, fit_seconds=self.fit_time_,
            status=status_text(bool(self.is_optimal_), timed_out=bool(timed_out), interrupted=bool(interrupted)))
        return self

    # -- prediction (FittedTreeMixin) ------------------------------------------------
    def _tree_input(self, X) -> np.ndarray:
        return self.binarizer_.transform(X, owner=type(self).__name__).astype(np.float64)

    def _export_labels(self, decimals: int, feature_names) -> dict:
        return {"split_labels": self.binarizer_.test_labels(decimals, feature_names)}


def _check_y(y) -> np.ndarray:
    if y is None:
        raise ValueError("SATTreeClassifier requires y to be passed, but the target y is None")
    check_raw_labels(y)
    if hasattr(y, "isna") and bool(np.asarray(y.isna()).any()):
        raise ValueError("Input y contains missing values (NaN/None/NA).")
    y = np.asarray(y.to_numpy() if hasattr(y, "to_numpy") else y)
    if y.ndim == 2 and y.shape[1] == 1:
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
