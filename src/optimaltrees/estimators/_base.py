"""What the estimators share: prediction and export over ``tree_``
(``FittedTreeMixin``), and parameter validation (``validate_params``).

Tree subclasses say how raw input becomes the tree's feature matrix
(``_tree_input``) and how splits read (``_export_labels``)."""
from __future__ import annotations

from contextlib import contextmanager
from numbers import Integral, Real

import numpy as np
from sklearn.utils._param_validation import Interval, StrOptions, make_constraint, validate_parameter_constraints
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import _num_samples, check_is_fitted

from optimaltrees.anytime import ProgressLine
from optimaltrees.estimators._tie_break import TieBreak, untie_progress
from optimaltrees.data.binarize import categorical_encoder
from optimaltrees.data.validation import (PreparationTimeout, check_fit_data, check_predict_data,  # noqa: F401
                                          check_integer, preparation_clock)  # (check_integer: re-exported)
from optimaltrees.model.export import export_text, export_tree_dot
from optimaltrees.search.strategies import SCHEDULES, STRATEGIES


class ClusterParamMixin:
    """Estimators with a ``cluster`` parameter: clones share a Dask ``Client``
    and pickles name it by its scheduler's address."""

    def __sklearn_clone__(self):
        """A clone shares a Dask ``Client`` (a connection, not a value: it
        cannot be deep-copied), so that model selection runs on the cluster."""
        from sklearn.base import _clone_parametrized

        cluster = self.cluster
        if cluster is None or isinstance(cluster, str):
            return _clone_parametrized(self)
        self.cluster = None
        try:
            twin = _clone_parametrized(self)
        finally:
            self.cluster = cluster
        twin.cluster = cluster
        return twin

    def __getstate__(self):
        """A pickled estimator names its Dask ``Client`` by its scheduler's
        address (a live connection does not pickle)."""
        state = dict(super().__getstate__() if hasattr(super(), "__getstate__") else self.__dict__)
        cluster = state.get("cluster")
        if cluster is not None and not isinstance(cluster, str):
            state["cluster"] = getattr(getattr(cluster, "scheduler", None), "address", None)
        return state


class FittedTreeMixin:
    """predict / predict_proba / apply / decision_path / export_text / export_dot /
    get_depth / get_n_leaves / feature_importances_, as scikit-learn's trees."""

    #: class probabilities exist (a regressor has none: ``predict_proba`` is then absent)
    _predicts_classes = True

    def _tree_input(self, X) -> np.ndarray:
        raise NotImplementedError

    def _export_labels(self, decimals: int, feature_names) -> dict:
        names = feature_names if feature_names is not None else getattr(self, "feature_names_in_", None)
        return {"feature_names": None if names is None else list(names)}

    def _class_names(self) -> list | None:
        """The class labels a leaf prints (None for a regressor)."""
        classes = getattr(self, "classes_", None)
        return None if classes is None else list(classes)

    def _validated(self, X) -> np.ndarray:
        check_is_fitted(self, "tree_")
        return self._tree_input(X)

    def predict(self, X) -> np.ndarray:
        """Predict the class of each row: the majority training class of its leaf.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Rows with the columns the model was fitted on.

        Returns
        -------
        ndarray of shape (n_samples,)
            One label of ``classes_`` per row.
        """
        X = self._validated(X)
        return self.classes_[self.tree_.predict(X)]

    @available_if(lambda est: est._predicts_classes)
    def predict_proba(self, X) -> np.ndarray:
        """Predict class probabilities: the training class frequencies of each row's leaf.

        The result is dense (rows x classes doubles); beyond 4 GiB
        (:data:`~optimaltrees.model.checks.MAX_PROBABILITY_BYTES`) it is
        refused with a ValueError: predict in batches, or use :meth:`predict`,
        which never builds that array.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Rows with the columns the model was fitted on.

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            Columns in the order of ``classes_``; each row sums to 1.
        """
        X = self._validated(X)
        return self.tree_.predict_proba(X)

    @available_if(lambda est: est._predicts_classes)
    def predict_log_proba(self, X) -> np.ndarray:
        """Predict the logarithm of the class probabilities.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Rows with the columns the model was fitted on.

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            ``log(predict_proba(X))``; -inf for a class the leaf never saw.
        """
        with np.errstate(divide="ignore"):
            return np.log(self.predict_proba(X))

    def apply(self, X) -> np.ndarray:
        """Return the leaf each row falls into.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Rows with the columns the model was fitted on.

        Returns
        -------
        ndarray of shape (n_samples,)
            Index in ``tree_`` of each row's leaf.
        """
        X = self._validated(X)
        return self.tree_.apply(X)

    def decision_path(self, X):
        """Return the nodes each row passes through, as scikit-learn's ``decision_path``.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Rows with the columns the model was fitted on.

        Returns
        -------
        scipy.sparse.csr_matrix of shape (n_samples, n_nodes)
            Entry (i, j) is 1 when row i passes through node j of ``tree_``
            (root to leaf).
        """
        X = self._validated(X)
        return self.tree_.decision_path(X)

    def _importance_columns(self):
        """Input column of each of the tree's features (None: the same)."""
        return None

    @property
    def feature_importances_(self) -> np.ndarray:
        """Impurity-based importance of every input column, as scikit-learn's trees.

        The Gini decrease of each split, weighted by the training rows that
        reach it, summed per input column and normalised to sum to 1 (all 0
        for a single leaf).  A Boolean test (SAT trees) or a category test
        counts for the column it tests.
        """
        check_is_fitted(self, "tree_")
        return self.tree_.feature_importances(self._importance_columns(), self.n_features_in_)

    def _labels(self, decimals: int, feature_names) -> dict:
        check_is_fitted(self, "tree_")
        if feature_names is not None and len(feature_names) != self.n_features_in_:
            raise ValueError(f"feature_names has {len(feature_names)} names, the model was fitted "
                             f"with {self.n_features_in_} features")
        return self._export_labels(decimals, feature_names)

    def export_text(self, decimals: int = 4, feature_names=None) -> str:
        """Return the fitted tree as indented text.

        Parameters
        ----------
        decimals : int, default=4
            Kept for compatibility with scikit-learn: thresholds always print
            exactly, as the shortest text that routes every value as
            ``predict`` does.
        feature_names : list of str or None, default=None
            One name per input column; None uses the training data's column
            names (a DataFrame's), else ``x[0]``, ``x[1]``, ...

        Returns
        -------
        str
            One line per branch (``|--- size <= 2.5 or missing``) and leaf
            (class, training rows and errors).
        """
        labels = self._labels(decimals, feature_names)
        return export_text(self.tree_, class_names=self._class_names(), decimals=decimals, **labels)

    def export_dot(self, decimals: int = 4, feature_names=None) -> str:
        """Return Graphviz DOT source of the fitted tree, labelled as :meth:`export_text`.

        Parameters
        ----------
        decimals : int, default=4
            As in :meth:`export_text` (thresholds print exactly).
        feature_names : list of str or None, default=None
            One name per input column, as in :meth:`export_text`.

        Returns
        -------
        str
            A ``digraph`` for Graphviz's ``dot``.
        """
        labels = self._labels(decimals, feature_names)
        return export_tree_dot(self.tree_, class_names=self._class_names(), decimals=decimals, **labels)

    def _code_tests(self):
        """The Boolean tests the tree's columns answer (None: the tree reads the input columns)."""
        encoder = getattr(self, "encoder_", None)
        return None if encoder is None else encoder.tests_

    def export_code(self, language: str = "python", *, feature_names=None, function_name: str = "predict") -> str:
        """Return the fitted tree as code with no dependency that predicts as ``predict``.

        The model's encoding is compiled into the comparisons: the code
        reads the raw columns (categories as their values, missing values
        as None, NaN, NULL), and a missing value takes the side the search
        chose.  Literals read back exactly (floats as Python's ``repr``, C's
        hexadecimal floats, SQL's shortest round-trip decimals; text quoted
        and escaped), so the code runs nothing but comparisons.

        Parameters
        ----------
        language : {"python", "sql", "c"}, default="python"
            "python": ``def predict(x)`` over a sequence of one row's values
            (None or NaN: missing), returning the label or value.  "sql": a
            ``CASE`` expression over the columns, named by
            ``feature_names`` and quoted (NULL: missing), for a ``SELECT``.
            "c": ``predict(const double *x, const char *const *s)``, numeric
            column i in ``x[i]`` (NaN: missing) and text column i in ``s[i]``
            (NULL: missing), returning the class's index in ``classes_``
            (an ``int``) or the value (a ``double``).
        feature_names : list of str or None, default=None
            Column names for SQL (and the comments); None: the names seen
            in ``fit``, else ``x0``, ``x1``, ...
        function_name : str, default="predict"
            Name of the Python or C function.

        Returns
        -------
        str
            The source code.

        Raises
        ------
        ValueError
            An unknown language, or a category or label the language cannot
            write (not text, a finite number or a Boolean; text with NUL).
        """
        from optimaltrees.model.code_export import tree_code

        check_is_fitted(self, "tree_")
        n = self.n_features_in_
        names = feature_names if feature_names is not None else getattr(self, "feature_names_in_", None)
        names = [f"x{i}" for i in range(n)] if names is None else [str(v) for v in names]
        if len(names) != n:
            raise ValueError(f"export_code: feature_names has {len(names)} names for {n} columns")
        classes = self.classes_ if self._predicts_classes else None
        return tree_code(self.tree_, language, tests=self._code_tests(), classes=classes, names=names,
                         function_name=function_name)

    def get_depth(self) -> int:
        """Return the depth of the fitted tree.

        Returns
        -------
        int
            Branching nodes on the longest root-to-leaf path (0 for a single leaf).
        """
        check_is_fitted(self, "tree_")
        return self.tree_.max_depth

    def get_n_leaves(self) -> int:
        """Return the number of leaves of the fitted tree.

        Returns
        -------
        int
            Leaves of ``tree_``.
        """
        check_is_fitted(self, "tree_")
        return self.tree_.n_leaves


class Range(Interval):
    """scikit-learn's ``Interval`` that also refuses booleans (``True`` is
    neither a depth nor a number of seconds); messages are scikit-learn's,
    naming the parameter: "The 'max_depth' parameter of ... must be an int
    in the range [0, 30]. Got -1 instead."."""

    def is_satisfied_by(self, val):
        return not isinstance(val, (bool, np.bool_)) and super().is_satisfied_by(val)


#: every estimator's default ``time_limit``, seconds: a fit with default
#: settings always returns, and says so when its model is not proven
DEFAULT_TIME_LIMIT = 60.0


def positive_seconds():
    """A time limit: seconds > 0 and finite, or None for none."""
    return [Range(Real, 0, np.inf, closed="neither"), None]


#: deeper searches need per-level buffers of n * p entries; 30 is far beyond what
#: any exact search can finish and keeps a typo from exhausting memory
MAX_SUPPORTED_DEPTH = 30

#: the parameters the exact tree search takes, as the classifier and the
#: regressor validate them (each adds its own)
TREE_SEARCH_CONSTRAINTS = {
    "max_depth": [Range(Integral, 0, MAX_SUPPORTED_DEPTH, closed="both")],
    "time_limit": positive_seconds(),
    "max_gap": [Range(Real, 0, 1, closed="both")],
    "complexity_cost": [Range(Real, 0, 1, closed="both")],
    "min_samples_leaf": [Range(Integral, 1, None, closed="left")],
    "memory_limit": [Range(Real, 0, np.inf, closed="neither"), None],
    # None: 1 thread; -1: all cores; 0 is meaningless
    "n_jobs": [Range(Integral, 1, None, closed="left"), Range(Integral, None, -1, closed="right"), None],
    "search": [StrOptions(set(STRATEGIES))],
    "schedule": [StrOptions(set(SCHEDULES))],
    "callback": [callable, None],
    "verbose": ["verbose"],
    "categorical_features": [StrOptions({"from_dtype"}), "array-like", None],
    "max_bins": [Range(Integral, 2, 65536, closed="both"), None],
    "cluster": "no_validation",      # checked when the fit connects (search/distributed.py)
}


def validate_params(estimator) -> None:
    """Every parameter check of an optimaltrees estimator: scikit-learn's
    validation against its ``_parameter_constraints``, then the checks that
    involve several parameters (``_check_param_combinations``).  Raises
    ValueError or TypeError naming the parameter; ``fit`` and the model-file
    loader both call it.

    Valid parameters are checked against constraint objects built once per
    class; anything else goes through scikit-learn's own checker, for its
    message.  (Rebuilding the constraints, or ``BaseEstimator._validate_params``
    with its ``inspect.signature``, cost more than a small fit's search.)"""
    params = {name: getattr(estimator, name) for name in estimator._parameter_constraints}
    checks = _compiled_constraints(type(estimator))
    if not all(any(c.is_satisfied_by(params[name]) for c in cs) for name, cs in checks.items()):
        validate_parameter_constraints(estimator._parameter_constraints, params,
                                       caller_name=type(estimator).__name__)
    estimator._check_param_combinations()


_COMPILED: dict[type, dict] = {}


def _compiled_constraints(cls: type) -> dict:
    """``cls._parameter_constraints`` as scikit-learn constraint objects,
    built on first use (a class's table never changes)."""
    compiled = _COMPILED.get(cls)
    if compiled is None:
        compiled = {name: [make_constraint(c) for c in constraints]
                    for name, constraints in cls._parameter_constraints.items()
                    if constraints != "no_validation"}
        _COMPILED[cls] = compiled
    return compiled



class EncodedTreeMixin(FittedTreeMixin):
    """The exact tree estimators: rows reach the tree through the categorical
    encoder fitted in ``fit`` (``encoder_``, None when every column is
    numeric), missing values included; category tests print as ``colour == red``."""

    def _tree_input(self, X) -> np.ndarray:
        encoder = getattr(self, "encoder_", None)
        if encoder is not None:
            return encoder.transform(X, owner=type(self).__name__)
        return check_predict_data(self, X, allow_nan=True)

    def _export_labels(self, decimals: int, feature_names) -> dict:
        encoder = getattr(self, "encoder_", None)
        if encoder is None:
            return super()._export_labels(decimals, feature_names)
        return {"split_labels": encoder.test_labels(decimals, feature_names),
                "feature_names": encoder.test_names(feature_names)}

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True       # missing values are searched, not imputed
        return tags

    def to_sklearn(self):
        """Return the fitted tree as scikit-learn's own estimator.

        A fitted ``DecisionTreeClassifier`` (``DecisionTreeRegressor`` for
        the regressor) whose ``tree_`` holds this tree, so that
        scikit-learn's ``plot_tree``, ``export_text`` and
        ``export_graphviz``, SHAP's ``TreeExplainer``, dtreeviz and
        skl2onnx take it; it predicts what this model predicts
        (``predict``, ``predict_proba``, ``apply`` up to node numbering),
        missing values included (``missing_go_to_left``).

        scikit-learn reads values as float32: each threshold becomes the
        float32 nearest to ours, so every value seen in training routes as
        here (a split where a training value above the threshold rounds to
        it in float32 is refused, naming the column), and any other value
        does unless it lies within half a float32 spacing above a threshold.
        Values beyond float32's range (about 3.4e38) are refused by
        scikit-learn's trees.  With categorical columns the result is a
        ``Pipeline``: a ``ColumnTransformer`` writes one column per tree
        column (numeric columns as they are; each categorical test as
        ``OrdinalEncoder`` codes, its tested values first and a missing
        value NaN), then the tree, whose categorical splits send the tested
        values left.

        Returns
        -------
        DecisionTreeClassifier, DecisionTreeRegressor or Pipeline
            Fitted, predicting as this model.

        Raises
        ------
        ValueError
            A cost matrix (scikit-learn's leaves predict their most frequent
            class), or a split float32 cannot reproduce.
        """
        from sklearn.pipeline import Pipeline
        from sklearn.utils.validation import check_is_fitted

        from optimaltrees.model.sklearn_tree import category_codes, code_thresholds, sklearn_tree

        check_is_fitted(self, "tree_")
        tree = self.tree_
        if getattr(tree, "cost_matrix", None) is not None:
            raise ValueError("to_sklearn: this tree's leaves predict their cheapest class under cost_matrix, "
                             "and scikit-learn's trees predict the most frequent one")
        encoder = getattr(self, "encoder_", None)
        numeric = (np.ones(tree.n_features, dtype=bool) if encoder is None
                   else np.array([t.kind == "value" for t in encoder.tests_]))
        for node in getattr(self, "_float32_mismatches", []):      # (a model file does not keep them)
            if numeric[tree.feature[node]]:
                name = self._export_labels(4, None)["feature_names"]
                column = int(tree.feature[node]) if name is None else repr(str(name[tree.feature[node]]))
                raise ValueError(f"to_sklearn: feature {column} splits at {float(tree.threshold[node])!r}, between "
                                 "training values that float32, in which scikit-learn's trees read values, "
                                 "cannot tell apart (or beyond its range)")
        classes = self.classes_ if self._predicts_classes else None
        names = getattr(self, "feature_names_in_", None)
        if encoder is None:
            return sklearn_tree(tree, classes=classes, feature_names=names)
        codes, members = category_codes(encoder.tests_, encoder.n_features_in_, names)
        column = np.where(tree.feature >= 0, tree.feature, 0)
        coded = (tree.feature >= 0) & ~numeric[column]
        thresholds = np.where(coded, code_thresholds(tree.threshold, members[column]), np.nan)
        return Pipeline([("columns", codes),
                         ("tree", sklearn_tree(tree, classes=classes, flip=coded, thresholds=thresholds))])

    def to_onnx(self):
        """Return the fitted tree as an ONNX model, for onnxruntime and other ONNX runtimes.

        A ``TreeEnsembleRegressor`` of domain ``ai.onnx.ml`` version 3 with
        double thresholds finds each row's leaf, so every split compares
        exactly as here and a missing value (NaN) goes where the search sent
        it; the label, probabilities or value are then read from double
        tables of the nodes (ONNX's classifier operator would round
        probabilities to float32 and pick a binary label by its own rule).  Numeric data is one
        double input ``X`` of shape (n, n_features).  With categorical
        columns there is one input per column, named as in ``fit``
        (``x0``, ``x1``, ... for an array), of shape (n, 1): strings for a
        column of text categories (the empty string is a missing value),
        doubles otherwise (NaN missing); a category unseen in training takes
        the ``!=`` side, as in ``predict``.  Outputs: ``label`` and
        ``probabilities`` (the leaf's class frequencies) for the
        classifier (doubles), ``variable`` for the regressor.  Needs the ``onnx``
        package (``pip install ".[interop]"``).

        Returns
        -------
        onnx.ModelProto
            Checked by ``onnx.checker``; ``model.SerializeToString()`` is the file.

        Raises
        ------
        ValueError
            Class labels that are neither integers nor text, or categories
            ONNX cannot read as one column type.
        """
        from sklearn.utils.validation import check_is_fitted

        from optimaltrees.model.onnx_export import tree_onnx

        check_is_fitted(self, "tree_")
        encoder = getattr(self, "encoder_", None)
        names = getattr(self, "feature_names_in_", None)
        names = [f"x{i}" for i in range(self.n_features_in_)] if names is None else [str(v) for v in names]
        return tree_onnx(self.tree_, tests=None if encoder is None else encoder.tests_,
                         n_columns=self.n_features_in_, names=names,
                         classes=self.classes_ if self._predicts_classes else None)


def encode_for_fit(estimator, X, y, start: float, *, subsets: bool = False, targets=None):
    """``fit``'s input: X through the estimator's categorical encoder (when
    ``categorical_features`` makes a column categorical) and checked with y;
    sets ``encoder_``, ``n_features_in_`` and ``feature_names_in_``.

    Learning and encoding a wide categorical table takes seconds: the time
    limit and Ctrl-C stop it as they stop the numeric preparation.  Returns
    (X, y, stopped): ``stopped`` is None, "time" or "Ctrl-C", and a stopped
    fit's X is a stand-in of the encoded width (y is still checked)."""
    name = type(estimator).__name__
    limit = estimator.time_limit
    checkpoint = preparation_clock(None if limit is None else start + limit)
    encoder = categorical_encoder(X, estimator.categorical_features, name, subsets=subsets, checkpoint=checkpoint)
    estimator.encoder_ = encoder
    if targets is not None:
        y = targets(y)
    if encoder is None:
        return (*check_fit_data(estimator, X, y, allow_nan=True), None)
    stopped = encoder.stopped_            # "time" or "Ctrl-C": came while learning the categories
    n_rows = _num_samples(X)
    try:
        if stopped is None:
            encoded = encoder.transform(X, owner=name, checkpoint=checkpoint)
            X, y = check_fit_data(estimator, encoded, y, allow_nan=True, checkpoint=checkpoint)
    except PreparationTimeout:
        stopped = "time"
    except KeyboardInterrupt:
        stopped = "Ctrl-C"
    if stopped is not None:               # y is still checked, against a stand-in X
        X, y = check_fit_data(estimator, np.zeros((n_rows, max(encoder.n_tests_, 1))), y, allow_nan=True)
    estimator.n_features_in_ = encoder.n_features_in_
    if encoder.feature_names_in_ is not None:
        estimator.feature_names_in_ = np.asarray(encoder.feature_names_in_, dtype=object)
    return X, y, stopped


@contextmanager
def progress_reporting(estimator, ties: TieBreak | None = None):
    """The callback a fit gives the search, and how often it is called: the
    live progress line (``verbose``) and the user's ``callback``, the line
    closed after the search however it ends.  ``ties``: the search's
    tie-break, taken out of what they see.  Yields (callback or None, seconds)."""
    line = ProgressLine(estimator.time_limit) if estimator.verbose else None
    user_callback = estimator.callback

    def callback(progress):
        progress = untie_progress(progress, ties)
        if line is not None:
            line.update(progress)
        if user_callback is not None:
            return user_callback(progress)
        return True

    try:
        yield (callback if (line is not None or user_callback is not None) else None,
               0.2 if line is not None else 0.5)
    finally:
        if line is not None:
            line.close()
