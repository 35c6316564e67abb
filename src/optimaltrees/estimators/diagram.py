"""DecisionDiagramClassifier: optimal decision diagrams (Florio et al., AAAI 2023) on HiGHS."""
from __future__ import annotations

import numbers
import time
import warnings
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils._param_validation import StrOptions
from sklearn.utils.validation import check_is_fitted

from optimaltrees.data.binarize import categorical_encoder, raw_columns
from optimaltrees.data.validation import (check_class_labels, check_fit_data, check_fit_weights,
                                          check_predict_data, is_missing)
from optimaltrees.estimators._base import DEFAULT_TIME_LIMIT, Range, positive_seconds, validate_params
from optimaltrees.model.export import export_diagram_dot, export_diagram_text
from optimaltrees.search.diagram.heuristic import Settings, node_penalty
from optimaltrees.search.diagram.skeleton import make_skeleton
from optimaltrees.model.summary import FitSummary, relative_gap
from optimaltrees.search.diagram.solve import SOLVERS, check_solver
from optimaltrees.search.diagram.train import encode, errors_text, fairness_rates, train_diagram


#: the exact tree searches (starts and bounds): by default this share of the
#: time limit (EXACT_TREE_SECONDS without one), skeletons up to this depth
EXACT_TREE_SHARE = 0.3
EXACT_TREE_SECONDS = 60.0
EXACT_TREE_MAX_DEPTH = 8
#: ``diagram_source_`` in words
SOURCE_TEXT = {"heuristic": "the heuristic's diagram", "exact tree": "the exact tree laid on the skeleton",
               "sat": "the smaller diagram the SAT node bound found"}


def _status(proven: bool, status: str, solver_status, source: str, bound: float = 0.0) -> str:
    """The summary's status line from the trainer's status (a solver status,
    where the diagram came from, or why the answer is not trusted) and the solver's."""
    if proven:
        return "proven optimal"
    plain = {"time_limit": "time limit reached", "interrupted": "interrupted"}
    if status in ("heuristic", "exact tree", "sat") or status in plain:     # the solver's status says more
        text = f"not proven optimal ({plain.get(solver_status, solver_status)})"
    else:
        text = f"not proven optimal: {status}"
    if source != "milp" and not status.startswith(("heuristic (", "exact tree (", "sat (", "unverified")):
        text += "; " + SOURCE_TEXT[source] + ": the MILP found nothing better"
        text += (" and proved no lower bound above 0" if bound <= 0
                 else f" (the lower bound: {bound:.6g})")
    return text


class DecisionDiagramClassifier(ClassifierMixin, BaseEstimator):
    """Decision diagram (a tree whose branches may merge again) trained by MILP.

    On a fixed skeleton, the diagram is optimal for the training error rate
    + ``alpha`` * used nodes, by the MILP of Florio et al. (AAAI 2023) on
    HiGHS, started from a heuristic diagram and the exact optimal tree, and
    bounded by exact trees and a SAT node bound.

    Parameters
    ----------
    skeleton : sequence of int, default=(1, 2, 4, 4)
        Widths of the decision layers, root first, e.g. ``(1, 2, 4, 8)``,
        ``(1, 2, 4, 4, 4)``, ``(1, 2, 3, 3, 3, 3)``.  Each layer can hold at
        most twice the nodes of the one above.  Any node may also send rows
        straight to a class.
    splits : {"univariate", "multivariate"}, default="univariate"
        ``"univariate"``: one feature per node, tested exactly on the
        original values whatever their scale (the MILP works on per-column
        ranks).  ``"multivariate"``: a hyperplane on the [0, 1]-scaled
        features (a feature whose range overflows float64 is refused).
    alpha : float, default=0.01
        Price of using every node but the root: the objective is the
        training error rate + alpha * (used nodes - 1) / (skeleton nodes - 1).
    tree : bool, default=False
        Forbid merges (in-degree <= 1): the optimal *tree* of the skeleton.
    max_nodes : int or None, default=None
        At most this many decision nodes, root included (parsimony).
    min_flow : int, float or None, default=None
        Every used non-root node carries at least this many training rows
        (an int), or this share of them (a float in (0, 1)) (stability).
        With sample weights: this much weight, or this share of the total.
    fairness_ratio : float or None, default=None
        Demographic parity: each of the two groups given by ``sensitive``
        (or ``fit(..., sensitive=...)``) is predicted ``positive_class`` at
        a rate >= this ratio times the other's (0.8 is the four-fifths rule).
    sensitive : int, str or None, default=None
        Column (index, or name for a DataFrame) of X that defines the two
        groups; it stays a feature.
    positive_class : object, default=None
        The favourable label (None: the largest class label).
    time_limit : float or None, default=60
        Seconds for the whole fit (validation, heuristic, building the MILP,
        solver, checks; the default every estimator of the library shares);
        None: until proven (the MILP may then run for
        hours: iris on the default skeleton is not proven in minutes).  At
        the limit ``fit`` returns the best diagram known (the heuristic's or
        the exact tree's when the MILP found nothing better), warns
        (UserWarning naming the limit, the lower bound and, where one
        exists, a faster method for the same problem) and sets
        ``timed_out_``; ``status_`` and ``summary_.status`` say whether the
        MILP improved on its start and what it proved.  The solver runs in a
        child process that is killed 0.25 s past the limit (HiGHS cannot be
        interrupted in some phases), so a fit ends within about 0.5 s of it;
        with no time left for the MILP the best start is returned.  Ctrl-C
        returns the best diagram so far at once.
    solver : {"highs", "gurobi"}, default="highs"
        The MILP solver: HiGHS (installed) or Gurobi (needs gurobipy).
    heuristic_time : float, default=1.0
        Seconds of heuristic restarts before the solver starts.
    tree_time : float or None, default=None
        Seconds for the exact tree searches (``OptimalTreeClassifier``'s
        engine) that come before the MILP; None: 30 % of ``time_limit`` (60 s
        without one); 0 turns them off.  The optimal tree of the skeleton's
        depth at the diagram's price per node, laid on the skeleton
        (identical subtrees of a level folded into one node, cut where a
        level is too narrow, then merges searched), is the MILP's start when
        it beats the heuristic's diagram.  With univariate splits the fewest
        errors of trees of depth 1..D also bound every diagram (a diagram
        unfolds into a tree of depth <= its layers and <= its nodes): the
        bound is the MILP's cut, and a start that meets it is proven optimal
        without the MILP.  ``stats_["tree_searches"]`` has each search,
        ``stats_["tree_bound"]`` the bound.  Univariate splits then ask a SAT
        solver, node count by node count, whether a diagram of that size can
        beat the best start (up to 90 % of the time left): each "no" raises
        the bound, a "yes" is a better diagram (``diagram_source_ = "sat"``);
        ``stats_["sat_questions"]``.
    epsilon : float, default=1e-4
        Margin that makes "<" usable in the multivariate MILP (features
        scaled to [0, 1]); univariate tests are exact and need none.
    threads : int, default=1
        Threads of the MILP solver.
    random_state : int, numpy.random.Generator or None, default=None
        Seed of the heuristic's restarts.
    verbose : bool, default=False
        Print the phases (heuristic, exact trees and their bound, MILP size,
        solver result) and the solver's log.
    categorical_features : "from_dtype", array-like or None, default="from_dtype"
        Columns whose values are categories (as ``OptimalTreeClassifier``'s):
        each becomes one 0/1 column per value (``colour=red``) that the
        diagram splits; a value unseen in training is 0 in all of them.
        Missing values are refused (a diagram's MILP has no side for them).
    class_weight : "balanced", dict or None, default=None
        Weights of the classes, as in scikit-learn (multiplying ``fit``'s
        ``sample_weight``).  With weights the error rate is the misclassified
        share of the total weight, and rows of weight 0 are left out.

    Attributes
    ----------
    diagram_ : DecisionDiagram
        The fitted diagram.
    classes_ : ndarray of shape (n_classes,)
        The class labels, sorted.
    n_features_in_ : int
        Number of input columns seen in ``fit``.
    feature_names_in_ : ndarray of shape (n_features,)
        Column names of a DataFrame seen in ``fit`` (only then).
    encoder_ : Binarizer or None
        With categorical columns: the diagram's columns (numeric columns as
        they are, one 0/1 column per category); else None.
    train_error_ : int or float
        Training misclassifications (their weight, a float, with sample
        weights).
    objective_ : float
        Error rate + alpha * (used nodes - 1) / (skeleton nodes - 1).
    lower_bound_ : float
        Proven lower bound on the optimal objective.
    gap_ : float
        Relative gap ``(objective_ - lower_bound_) / objective_`` as a
        fraction (0.0 when the bound meets the objective).
    is_optimal_ : bool
        Proven optimal and verified (see Notes).
    status_ : str
        The solver's status, or why the answer is not trusted.
    from_heuristic_ : bool
        The diagram is the heuristic's (nothing better was found).
    diagram_source_ : str
        Where the diagram comes from: ``"heuristic"``, ``"exact tree"`` (the
        optimal tree laid on the skeleton), ``"sat"`` (a smaller diagram
        found while proving the SAT node bound) or ``"milp"``.
    timed_out_ : bool
        The time limit stopped the solver (or kept it from starting).
    interrupted_ : bool
        Ctrl-C stopped the fit (the best diagram so far is kept).
    heuristic_objective_ : float
        Objective of the heuristic's diagram.
    trace_ : list of tuple
        (seconds, objective, lower bound) at every better diagram or bound.
    solve_time_ : float
        Seconds in the MILP solver.
    n_nodes_ : int
        Decision nodes of ``diagram_``.
    stats_ : dict
        Sizes and counters of the phases (MILP rows, columns and nonzeros,
        tree searches, SAT questions, ...).
    fairness_rates_ : tuple of float
        With ``fairness_ratio`` only: each group's (weighted) share of rows
        predicted ``positive_class``.
    fit_time_ : float
        Seconds spent in ``fit``.
    summary_ : FitSummary
        The fit in the fields every estimator shares (method ``"diagram"``).

    See Also
    --------
    OptimalTreeClassifier : The tree of bounded depth with the fewest errors.

    Notes
    -----
    Trust: ``is_optimal_`` is True only when the returned diagram, routed
    through its own prediction code on the training rows, scores exactly
    what the solver claimed and meets every constraint (``min_flow``,
    ``max_nodes``, ``tree``, fairness).  Otherwise ``status_`` says why
    (``"unverified: ..."``, ``"...; constraint violated ..."``,
    ``"heuristic (time limit ...)"``).  The MILP's size is estimated first:
    beyond ~30 million nonzeros (or a skeleton of more than a million arcs,
    e.g. a million classes) the fit is refused with a ValueError before any
    work.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from optimaltrees import DecisionDiagramClassifier
    >>> X, y = load_iris(return_X_y=True)
    >>> clf = DecisionDiagramClassifier((1, 2, 2), time_limit=10).fit(X, y)
    >>> clf.train_error_, clf.is_optimal_
    (2, True)
    """

    def __init__(self, skeleton=(1, 2, 4, 4), *, splits: str = "univariate", alpha: float = 0.01,
                 tree: bool = False, max_nodes: int | None = None, min_flow: float | None = None,
                 fairness_ratio: float | None = None, sensitive=None, positive_class=None,
                 time_limit: float | None = DEFAULT_TIME_LIMIT, solver: str = "highs",
                 heuristic_time: float = 1.0, tree_time: float | None = None,
                 epsilon: float = 1e-4, threads: int = 1, random_state: int | None = None,
                 verbose: bool = False, categorical_features="from_dtype", class_weight=None):
        self.skeleton = skeleton
        self.splits = splits
        self.alpha = alpha
        self.tree = tree
        self.max_nodes = max_nodes
        self.min_flow = min_flow
        self.fairness_ratio = fairness_ratio
        self.sensitive = sensitive
        self.positive_class = positive_class
        self.time_limit = time_limit
        self.solver = solver
        self.heuristic_time = heuristic_time
        self.tree_time = tree_time
        self.epsilon = epsilon
        self.threads = threads
        self.random_state = random_state
        self.verbose = verbose
        self.categorical_features = categorical_features
        self.class_weight = class_weight

    _parameter_constraints = {
        "skeleton": "no_validation",      # checked with the number of classes in fit (make_skeleton)
        "splits": [StrOptions({"univariate", "multivariate"})],
        "alpha": [Range(Real, 0, np.inf, closed="left")],
        "tree": ["boolean"],
        "max_nodes": [Range(Integral, 1, None, closed="left"), None],
        "min_flow": [Range(Real, 0, np.inf, closed="left"), None],
        "class_weight": [StrOptions({"balanced"}), dict, None],
        "fairness_ratio": [Range(Real, 0, 1, closed="both"), None],
        "sensitive": [Range(Integral, 0, None, closed="left"), str, None],
        "positive_class": "no_validation",    # any class label; checked against y in fit
        "time_limit": positive_seconds(),
        "solver": [StrOptions(set(SOLVERS))],
        "heuristic_time": [Range(Real, 0, np.inf, closed="left")],
        "tree_time": [Range(Real, 0, np.inf, closed="left"), None],
        "epsilon": [Range(Real, 0, 0.1, closed="right")],
        "threads": [Range(Integral, 1, None, closed="left")],
        "random_state": [Range(Integral, 0, None, closed="left"), np.random.Generator, None],
        "verbose": ["verbose"],
        "categorical_features": [StrOptions({"from_dtype"}), "array-like", None],
    }

    def _check_param_combinations(self) -> None:
        """What the constraints cannot say: the solver must be installed."""
        check_solver(self.solver)

    def _groups(self, X: np.ndarray, sensitive) -> np.ndarray | None:
        if self.fairness_ratio is None:
            if sensitive is not None or self.sensitive is not None:
                raise ValueError("a sensitive attribute was given but fairness_ratio is None; "
                                 "set fairness_ratio (e.g. 0.8) to constrain demographic parity")
            return None
        if sensitive is not None and self.sensitive is not None:
            raise ValueError("give the sensitive groups either as the sensitive= parameter or to fit(), not both")
        if sensitive is None and self.sensitive is None:
            raise ValueError("fairness_ratio needs the two groups: set sensitive= to a column of X, "
                             "or pass fit(X, y, sensitive=array)")
        if sensitive is None:
            col = self.sensitive
            names = getattr(self, "feature_names_in_", None)
            if isinstance(col, str):
                if names is None or col not in list(names):
                    raise ValueError(f"sensitive column {col!r} is not among X's column names")
                col = list(names).index(col)
            if not isinstance(col, numbers.Integral) or not 0 <= col < X.shape[1]:
                raise ValueError(f"sensitive must name a column of X (0..{X.shape[1] - 1}), got {self.sensitive!r}")
            values = X[:, int(col)]
        else:
            values = np.asarray(sensitive).reshape(-1)
            if len(values) != X.shape[0]:
                raise ValueError(f"sensitive has {len(values)} entries, X has {X.shape[0]} rows")
        gaps = [i for i, v in enumerate(values.tolist()) if is_missing(v)]
        if gaps:
            raise ValueError(f"the sensitive attribute is missing (None, NaN or NA) at row(s) {gaps[:10]}: "
                             "every row needs its group")
        try:
            levels, group = np.unique(values, return_inverse=True)
        except TypeError:
            raise ValueError("the sensitive attribute mixes values that cannot be ordered "
                             f"(e.g. {sorted({type(v).__name__ for v in values.tolist()})}); give one type") from None
        if len(levels) != 2:
            raise ValueError(f"the sensitive attribute must take exactly two values (two groups), "
                             f"got {len(levels)}: {levels[:5].tolist()}")
        self.sensitive_levels_ = levels
        return group.reshape(-1).astype(np.intp)

    def fit(self, X, y, sensitive=None, sample_weight=None) -> "DecisionDiagramClassifier":
        """Train the diagram on (X, y).

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Numeric and categorical columns; no missing values.
        y : array-like of shape (n_samples,)
            Class labels.
        sensitive : array-like of shape (n_samples,) or None, default=None
            The two groups of the fairness constraint (or give the
            ``sensitive`` column instead).
        sample_weight : array-like of shape (n_samples,) or None, default=None
            One weight >= 0 per row (None: 1 each).

        Returns
        -------
        DecisionDiagramClassifier
            The fitted estimator.
        """
        start = time.perf_counter()
        validate_params(self)
        encoder = categorical_encoder(X, self.categorical_features, type(self).__name__)
        raw = X
        if encoder is not None:
            X, y = check_fit_data(self, self._encoded(encoder, X), y)
            self.n_features_in_ = encoder.n_features_in_
            if encoder.feature_names_in_ is not None:
                self.feature_names_in_ = np.asarray(encoder.feature_names_in_, dtype=object)
        else:
            X, y = check_fit_data(self, X, y)
        self.encoder_ = encoder
        check_class_labels(np.asarray(y))
        try:
            self.classes_, y_index = np.unique(y, return_inverse=True)
        except TypeError as exc:
            raise TypeError(f"class labels must be mutually comparable (sortable): {exc}") from None
        y_index = y_index.reshape(-1)
        K = len(self.classes_)
        if K < 2:
            raise ValueError(f"y has one class only ({self.classes_[0]!r}); a decision diagram needs two or more")
        skeleton = make_skeleton(self.skeleton, K)
        group = self._groups(X if encoder is None else _raw_matrix(raw), sensitive)
        weight = check_fit_weights(sample_weight, self.class_weight, y_index, self.classes_)
        if weight is not None:
            keep = weight > 0           # a row of weight 0 is left out
            X, y_index, weight = X[keep], y_index[keep], weight[keep]
            group = None if group is None else group[keep]
            if len(np.unique(y_index)) < 2:
                raise ValueError("the rows of positive weight hold one class only; a decision diagram "
                                 "needs two or more")
        n = X.shape[0] if weight is None else float(weight.sum())
        min_flow = 0.0
        if self.min_flow is not None:
            min_flow = float(self.min_flow) * n if 0 < self.min_flow < 1 else float(self.min_flow)
            if min_flow > n:
                raise ValueError(f"min_flow={self.min_flow} asks every node for more rows than the "
                                 f"{n:g} training {'rows' if weight is None else 'weight'}: only the "
                                 "root could be used")
        fairness = None
        if self.fairness_ratio is not None:
            pos = self.classes_[-1] if self.positive_class is None else self.positive_class
            hit = np.flatnonzero(self.classes_ == pos)
            if not len(hit):
                raise ValueError(f"positive_class {pos!r} is not a class of y ({self.classes_.tolist()})")
            fairness = (int(hit[0]), float(self.fairness_ratio))
        settings = Settings(alpha=float(self.alpha), epsilon=float(self.epsilon), tree=bool(self.tree),
                            max_nodes=self.max_nodes, min_flow=min_flow, fairness=fairness)
        deadline = None if self.time_limit is None else start + float(self.time_limit)
        enc = encode(X, y_index, K, group, skeleton, settings, univariate=self.splits == "univariate",
                     weight=weight)
        rng = np.random.default_rng(self.random_state)
        res = train_diagram(enc, skeleton, settings, deadline=deadline, solver=self.solver,
                            heuristic_time=float(self.heuristic_time), rng=rng,
                            threads=int(self.threads), verbose=bool(self.verbose),
                            tree_time=self._tree_time(skeleton))
        exact = self._exact_tree(res.stats, skeleton, settings, n)
        # univariate: thresholds between neighbouring training values in the original units;
        # multivariate: halfway between the training projections; both exact (epsilon = 0)
        self.diagram_ = res.model
        self.scale_offset_ = res.model.offset
        self.scale_ = res.model.scale
        self.train_error_ = int(round(res.errors)) if weight is None else float(res.errors)
        self.objective_ = res.objective
        self.lower_bound_ = res.bound
        self.gap_ = relative_gap(res.objective, res.bound)
        self.is_optimal_ = res.proven
        self.status_ = res.status
        self.from_heuristic_ = res.from_heuristic
        self.diagram_source_ = res.source
        solver_status = res.stats.get("solver_status")
        self.timed_out_ = solver_status == "time_limit"
        self.interrupted_ = solver_status == "interrupted"
        if self.interrupted_:
            warnings.warn("fit interrupted (Ctrl-C): returning the best diagram found so far"
                          + ("" if res.proven else ", not proven optimal"), RuntimeWarning, stacklevel=2)
        self.heuristic_objective_ = res.heuristic_objective
        self.trace_ = res.trace
        self.solve_time_ = res.solve_seconds
        self.n_nodes_ = self.diagram_.n_nodes
        self.stats_ = res.stats
        if exact is not None:
            self.stats_["exact_tree"] = exact
        if group is not None:
            pred = self.diagram_.predict(X) == fairness[0]
            self.fairness_rates_ = fairness_rates(np.ones(len(X)) if weight is None else weight, group, pred)
        self.fit_time_ = time.perf_counter() - start
        self.summary_ = FitSummary(
            method="diagram", objective_name="error rate + alpha * node share", objective=float(res.objective),
            lower_bound=float(res.bound), gap=self.gap_, proven=bool(res.proven),
            timed_out=bool(self.timed_out_), interrupted=bool(self.interrupted_), memory_out=False,
            stopped=False, fit_seconds=self.fit_time_,
            status=_status(res.proven, res.status, solver_status, res.source, res.bound))
        if self.timed_out_ and not res.proven:
            self._warn_time_limit(skeleton, settings, exact)
        return self

    def _tree_time(self, skeleton) -> float:
        """Seconds for the exact tree searches (0: none)."""
        if skeleton.depth > EXACT_TREE_MAX_DEPTH:
            return 0.0
        if self.tree_time is not None:
            return float(self.tree_time)
        return EXACT_TREE_SECONDS if self.time_limit is None else EXACT_TREE_SHARE * float(self.time_limit)

    def _exact_tree(self, stats: dict, skeleton, settings, n: int) -> dict | None:
        """The optimal tree of the skeleton's depth at the diagram's price per
        node, in the diagram's units (the root is free), from the fit's first
        exact tree search: every tree-shaped univariate diagram of the
        skeleton is one of its trees.  None where it does not compare
        (multivariate splits, fairness, min_flow, max_nodes) or did not run."""
        searches = stats.get("tree_searches") or []
        if (self.splits != "univariate" or settings.fairness is not None or settings.min_flow > 0
                or settings.max_nodes is not None or not searches or searches[0]["depth"] != skeleton.depth):
            return None
        first = searches[0]
        cost = node_penalty(skeleton, settings.alpha)
        objective = first["errors"] / n + cost * max(first["branch_nodes"] - 1, 0)
        return {"depth": skeleton.depth, "complexity_cost": cost, "errors": first["errors"],
                "objective": float(objective), "proven": bool(first["proven"])}

    def _exact_text(self, skeleton, exact) -> str:
        cost = exact["complexity_cost"]
        call = (f"OptimalTreeClassifier(max_depth={exact['depth']}"
                + (f", complexity_cost={cost:.4g})" if cost > 0 else ")"))
        return (f"{call} finds a tree with {errors_text(exact['errors'])}, objective "
                f"{exact['objective']:.4g} on this diagram's scale "
                f"({'proven optimal' if exact['proven'] else 'not proven'}), better than this "
                f"diagram's {self.objective_:.4g}")

    def _warn_time_limit(self, skeleton, settings, exact) -> None:
        milp = ("no time was left for the MILP" if "before the MILP" in self.status_
                else "the MILP found nothing better")
        what = (f"{SOURCE_TEXT[self.diagram_source_]} ({milp})"
                if self.diagram_source_ in SOURCE_TEXT else "the best diagram the MILP found")
        bound = (f"lower bound {self.lower_bound_:.4g} (gap {self.gap_:.1%})" if self.lower_bound_ > 0
                 else "no lower bound proven above 0")
        warnings.warn(f"time_limit={self.time_limit} s reached: returning {what}; "
                      f"{errors_text(self.train_error_)}, objective {self.objective_:.4g}, {bound}, "
                      f"not proven optimal{self._hint(skeleton, settings, exact)}", UserWarning,
                      stacklevel=3)

    def _hint(self, skeleton, settings, exact=None) -> str:
        """Where the exact tree engine solves the same problem (or beats this
        answer): a tree-shaped univariate diagram is a tree of depth <= the
        skeleton's, and ``OptimalTreeClassifier`` proves the best of those."""
        if self.splits != "univariate" or settings.fairness is not None or settings.min_flow > 0:
            return ""
        if exact is not None and exact["objective"] < self.objective_ - 1e-9:
            return f"; {self._exact_text(skeleton, exact)}"
        depth = skeleton.depth
        cost = node_penalty(skeleton, settings.alpha)
        call = (f"OptimalTreeClassifier(max_depth={depth}"
                + (f", complexity_cost={cost:.4g})" if cost > 0 else ")"))
        if settings.max_nodes is None and (self.tree or self.diagram_.is_tree()):
            why = ("with tree=True every diagram of this skeleton is a tree" if self.tree
                   else "the diagram returned has no merges")
            return (f"; {why}, so {call} finds a tree at least as good on this objective (it "
                    "searches every tree of that depth, at the same price per node) and proves "
                    "it optimal, usually in seconds")
        return (f"; a longer time_limit or a smaller skeleton may let the MILP prove more; {call} "
                "gives the proven-optimal tree of the same depth for comparison")

    def _input(self, X) -> np.ndarray:
        check_is_fitted(self, "diagram_")
        encoder = getattr(self, "encoder_", None)
        if encoder is None:
            return check_predict_data(self, X)
        return self._encoded(encoder, X)

    def _encoded(self, encoder, X) -> np.ndarray:
        """``encoder``'s 0/1 and numeric columns of X; missing values are
        refused naming the input columns they are in."""
        X = encoder.transform(X, owner=type(self).__name__)
        gaps = np.isnan(X).any(axis=0)
        if gaps.any():
            names = sorted({encoder.tests_[j].name for j in np.flatnonzero(gaps)})
            raise ValueError(f"Input X contains NaN (missing values) in column(s) {names}. "
                             f"{type(self).__name__} does not accept missing values.")
        return X

    def predict(self, X) -> np.ndarray:
        """Predict the class of each row: the class of the terminal it reaches.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Rows with the columns the model was fitted on.

        Returns
        -------
        ndarray of shape (n_samples,)
            One label of ``classes_`` per row.
        """
        X = self._input(X)          # first: raises NotFittedError before any fitted attribute is read
        return self.classes_[self.diagram_.predict(X)]

    def predict_proba(self, X) -> np.ndarray:
        """Predict class probabilities: one-hot on the predicted class.

        A diagram's terminals are classes (the MILP may route a flow to a
        class that is not its majority, e.g. for fairness).  Dense (rows x
        classes); beyond 4 GiB it is refused with a ValueError: predict in
        batches, or use :meth:`predict`.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Rows with the columns the model was fitted on.

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            1 in the predicted class's column, 0 elsewhere.
        """
        X = self._input(X)
        return self.diagram_.predict_proba(X)

    def node_flows(self, X) -> np.ndarray:
        """Count the rows of X that pass through each decision node.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Rows with the columns the model was fitted on.

        Returns
        -------
        ndarray of shape (n_nodes,)
            Rows through each decision node.
        """
        X = self._input(X)
        return self.diagram_.node_flows(X)

    def _names(self, feature_names):
        check_is_fitted(self, "diagram_")
        names = feature_names if feature_names is not None else getattr(self, "feature_names_in_", None)
        if names is not None and len(names) != self.n_features_in_:
            raise ValueError(f"feature_names has {len(names)} names, the model was fitted with "
                             f"{self.n_features_in_} features")
        encoder = getattr(self, "encoder_", None)
        if encoder is not None:      # one name per diagram column: "size", "colour=red"
            return [name if t.kind == "value" else f"{name}={t.value}"
                    for t, name in zip(encoder.tests_, encoder.test_names(names))]
        return None if names is None else [str(s) for s in names]

    def _split_labels(self, feature_names):
        """Per diagram column, the texts of a category test's two values
        (``island != Dream`` / ``island == Dream``), None for a numeric one."""
        encoder = getattr(self, "encoder_", None)
        if encoder is None:
            return None
        names = feature_names if feature_names is not None else getattr(self, "feature_names_in_", None)
        return encoder.test_labels(4, names)

    def export_text(self, decimals: int = 4, feature_names=None) -> str:
        """Return the diagram as text, node by node.

        Parameters
        ----------
        decimals : int, default=4
            Significant digits of hyperplane coefficients; univariate
            thresholds print exactly.
        feature_names : list of str or None, default=None
            One name per input column; None uses the training data's.

        Returns
        -------
        str
            Per node its layer, merges (``[2 incoming arcs]``), both
            conditions in the original units and where each leads.
        """
        return export_diagram_text(self.diagram_, self._names(feature_names), list(self.classes_), decimals,
                                   self._split_labels(feature_names))

    def export_dot(self, decimals: int = 4, feature_names=None) -> str:
        """Return Graphviz DOT source of the diagram.

        Parameters
        ----------
        decimals : int, default=4
            As in :meth:`export_text`.
        feature_names : list of str or None, default=None
            As in :meth:`export_text`.

        Returns
        -------
        str
            A ``digraph`` for Graphviz's ``dot``.
        """
        return export_diagram_dot(self.diagram_, self._names(feature_names), list(self.classes_), decimals,
                                  self._split_labels(feature_names))

    # -- exports, through the diagram unfolded to a tree -----------------------
    def _unfolded(self):
        """An ``OptimalTreeClassifier`` holding the diagram unfolded to a tree
        (:meth:`DecisionDiagram.unfold`), with this model's encoder and
        classes: it predicts as this diagram, and exports as a tree does."""
        from optimaltrees.estimators.classifier import OptimalTreeClassifier

        check_is_fitted(self, "diagram_")
        tree = OptimalTreeClassifier()
        tree.tree_ = self.diagram_.unfold()
        tree.encoder_ = getattr(self, "encoder_", None)
        tree.classes_, tree.n_classes_ = self.classes_, len(self.classes_)
        tree.n_features_in_ = self.n_features_in_
        if hasattr(self, "feature_names_in_"):
            tree.feature_names_in_ = self.feature_names_in_
        return tree

    def to_sklearn(self):
        """Return the diagram unfolded to scikit-learn's ``DecisionTreeClassifier``.

        A node reached by several paths is copied once per path (up to
        2^depth leaves); see :meth:`OptimalTreeClassifier.to_sklearn` for
        the float32 thresholds and the ``Pipeline`` of categorical columns
        (no training values are kept to check the float32 reading against).

        Returns
        -------
        DecisionTreeClassifier or Pipeline
            Fitted, predicting as this diagram.

        Raises
        ------
        ValueError
            A diagram with hyperplanes of several features (no tree form).
        """
        return self._unfolded().to_sklearn()

    def to_onnx(self):
        """Return the diagram unfolded to a tree, as an ONNX model.

        See :meth:`OptimalTreeClassifier.to_onnx`; the probabilities are one-hot
        on the class, as this diagram's.

        Returns
        -------
        onnx.ModelProto
            Predicting as this diagram in onnxruntime.

        Raises
        ------
        ValueError
            A diagram with hyperplanes of several features (no tree form).
        """
        return self._unfolded().to_onnx()

    def export_code(self, language: str = "python", *, feature_names=None, function_name: str = "predict") -> str:
        """Return the diagram unfolded to a tree, as Python, SQL or C code.

        See :meth:`OptimalTreeClassifier.export_code`.

        Parameters
        ----------
        language : {"python", "sql", "c"}, default="python"
            The language of the code.
        feature_names : list of str or None, default=None
            Column names for SQL and the comments.
        function_name : str, default="predict"
            Name of the Python or C function.

        Returns
        -------
        str
            The source code.

        Raises
        ------
        ValueError
            A diagram with hyperplanes of several features, or what the
            language cannot write.
        """
        return self._unfolded().export_code(language, feature_names=feature_names, function_name=function_name)

    # -- the tree API of scikit-learn, read for a diagram ------------------------
    @property
    def n_classes_(self) -> int:
        """Number of classes (``len(classes_)``)."""
        stored = self.__dict__.get("n_classes_")
        if stored is not None:
            return stored
        check_is_fitted(self, "diagram_")
        return len(self.classes_)

    @n_classes_.setter
    def n_classes_(self, value) -> None:
        self.__dict__["n_classes_"] = value

    def get_depth(self) -> int:
        """Return the most decisions a row can meet.

        Returns
        -------
        int
            Decision nodes on the longest root-to-class path (the number of
            decision layers when a path crosses them all; arcs may skip
            layers).
        """
        check_is_fitted(self, "diagram_")
        return self.diagram_.longest_path()

    def get_n_leaves(self) -> int:
        """Return the number of the diagram's leaves.

        Returns
        -------
        int
            Class terminals that some arc reaches (at most ``n_classes_``; a
            diagram has one terminal per class, shared by all the arcs that
            predict it).
        """
        check_is_fitted(self, "diagram_")
        d = self.diagram_
        return int(d.reachable()[d.n_nodes:].sum())

    def apply(self, X) -> np.ndarray:
        """Return the terminal each row reaches.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Rows with the columns the model was fitted on.

        Returns
        -------
        ndarray of shape (n_samples,)
            Index of each row's terminal, numbered as the columns of
            :meth:`decision_path` (``n_nodes_`` + class index).
        """
        X = self._input(X)
        return self.diagram_.predict(X) + self.diagram_.n_nodes

    def decision_path(self, X):
        """Return the nodes each row passes through.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Rows with the columns the model was fitted on.

        Returns
        -------
        scipy.sparse.csr_matrix of shape (n_samples, n_nodes + n_classes)
            Entry (i, j) is 1 when row i passes through decision node j, or,
            for j >= ``n_nodes_``, ends at the terminal of class
            j - ``n_nodes_``.  Rows reach their terminal by paths of
            different lengths (arcs may skip layers).
        """
        X = self._input(X)
        return self.diagram_.decision_path(X)

    def feature_importances(self, X, y) -> np.ndarray:
        """Compute the flow-weighted Gini decrease of each input column on (X, y).

        Every decision node scores the impurity its split removes from the
        rows that reach it, whichever parent sent them; a hyperplane shares
        its score between its features in proportion to ``|coef|`` on the
        [0, 1]-scaled features (see
        :meth:`optimaltrees.DecisionDiagram.feature_importances`).

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Rows with the columns the model was fitted on (the training rows
            give scikit-learn's meaning).
        y : array-like of shape (n_samples,)
            Their labels, among ``classes_``.

        Returns
        -------
        ndarray of shape (n_features,)
            Importances per input column, normalised to sum to 1.
        """
        X = self._input(X)
        y = np.asarray(y).reshape(-1)
        if len(y) != len(X):
            raise ValueError(f"y has {len(y)} labels, X has {len(X)} rows")
        index = np.searchsorted(self.classes_, y)
        index = np.clip(index, 0, len(self.classes_) - 1)
        unknown = self.classes_[index] != y
        if np.any(unknown):
            raise ValueError(f"y holds labels the model was not fitted on, e.g. {y[np.argmax(unknown)]!r}")
        scores = self.diagram_.feature_importances(X, index)
        encoder = getattr(self, "encoder_", None)
        if encoder is None:
            return scores
        out = np.zeros(self.n_features_in_)       # a category's columns count for its column
        np.add.at(out, [t.column for t in encoder.tests_], scores)
        return out

    @property
    def feature_importances_(self):
        """Not stored: use :meth:`feature_importances` with the training rows.

        A diagram keeps no per-node training counts (its arcs merge flows
        from several parents), so reading this raises AttributeError;
        ``model.feature_importances(X, y)`` with the training rows gives
        scikit-learn's measure.
        """
        check_is_fitted(self, "diagram_")
        raise AttributeError("DecisionDiagramClassifier keeps no per-node training counts, so it has no "
                             "feature_importances_; call feature_importances(X_train, y_train) for the "
                             "flow-weighted Gini importance of each column")


def _raw_matrix(X) -> np.ndarray:
    """The input's columns side by side as objects (the sensitive column may be text)."""
    return np.column_stack(raw_columns(X)).astype(object)
