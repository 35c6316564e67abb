"""A fitted decision diagram as flat arrays, like :class:`~optimaltrees.model.tree.Tree`.

Internal nodes are ``0 .. n_nodes - 1`` (0 is the root, ordered by layer);
an arc target ``t`` is internal node ``t`` when ``t < n_nodes`` and the
terminal of class ``t - n_nodes`` otherwise.  Hyperplanes act on the
features mapped by ``(x - offset) * scale``.

Two rules, told apart by ``epsilon``:

* ``epsilon == 0`` (every fitted model): exact.  A row goes to the positive
  side iff ``coef @ ((x - offset) * scale) >= threshold``, with no tolerance
  and no clipping, so the training rows go exactly where the fit verified
  they go.  Univariate diagrams use ``offset = 0``, ``scale = 1`` and a
  threshold between two neighbouring training values in the original units
  (extreme, outlying and denormal values included).
* ``epsilon > 0`` (the MILP's own rule, e.g. a raw solver answer): features
  clipped to [0, 1] as the big-M values assume; positive when
  ``coef @ x >= threshold`` (up to 1e-7 solver slack), negative when
  ``<= threshold - epsilon``; a row inside that band goes to the nearer side.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from optimaltrees.data.thresholds import format_threshold
from optimaltrees.model.checks import dense_probabilities

_TOL = 1e-7   # solver feasibility slack allowed on either side of a hyperplane


def project(coef: np.ndarray, Xs: np.ndarray) -> np.ndarray:
    """Row-wise ``coef . x`` as the exact rule computes it (the fit computes
    its thresholds with this very function, so training rows land on the
    side it verified): zero coefficients contribute exactly 0 (never
    ``0 * inf``), and a single nonzero coefficient of 1 gives x_j bit for bit."""
    with np.errstate(invalid="ignore", over="ignore"):
        return np.where(coef != 0, coef * Xs, 0.0).sum(axis=1)


def scale_features(X: np.ndarray, offset: np.ndarray, scale: np.ndarray) -> np.ndarray:
    """``(X - offset) * scale``, 0 where ``scale`` is 0 (constant features)."""
    X = np.asarray(X, dtype=np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        Xs = (X - offset) * scale
    return np.where(scale == 0, 0.0, Xs)


@dataclass(frozen=True)
class DecisionDiagram:
    """A fitted decision diagram as flat arrays.

    Decision nodes are ``0 .. n_nodes - 1`` (0 is the root, ordered by
    layer).  Each node sends a row along its positive arc when
    ``coef[u] @ ((x - offset) * scale) >= threshold[u]``, else along its
    negative arc; an arc's head ``t`` is decision node ``t`` when
    ``t < n_nodes`` and the terminal of class ``t - n_nodes`` otherwise.
    :class:`~optimaltrees.DecisionDiagramClassifier` holds one in
    ``diagram_``.

    Parameters
    ----------
    coef : ndarray of shape (n_nodes, n_features)
        Each node's hyperplane on the scaled features (one nonzero
        coefficient for a univariate node).
    threshold : ndarray of shape (n_nodes,)
        Each node's right-hand side.
    negative, positive : ndarray of shape (n_nodes,)
        Head of each node's negative and positive arc.
    layer : ndarray of shape (n_nodes,)
        Decision layer of each node.
    n_classes : int
        Number of classes (terminals).
    offset : ndarray of shape (n_features,)
        Training minimum of each feature (0 for univariate diagrams).
    scale : ndarray of shape (n_features,)
        1 / training range of each feature, 0 for a constant one (1 for
        univariate diagrams).
    epsilon : float
        0: the exact rule (every fitted model); > 0: the MILP's own rule on
        features clipped to [0, 1], with a band of this width.

    Attributes
    ----------
    n_nodes : int
        Number of decision nodes.
    n_features : int
        Number of columns the diagram reads.
    depth : int
        Number of decision layers.
    """

    coef: np.ndarray         # (n_nodes, n_features) on scaled features
    threshold: np.ndarray    # (n_nodes,)
    negative: np.ndarray     # (n_nodes,) target of the negative arc
    positive: np.ndarray     # (n_nodes,) target of the positive arc
    layer: np.ndarray        # (n_nodes,) decision layer of each node
    n_classes: int
    offset: np.ndarray       # (n_features,) training minimum (0 for univariate diagrams)
    scale: np.ndarray        # (n_features,) 1 / training range, 0 for a constant feature (1 for univariate)
    epsilon: float           # 0: the exact rule; > 0: the MILP's band rule on clipped features

    @property
    def n_nodes(self) -> int:
        return len(self.threshold)

    @property
    def n_features(self) -> int:
        return len(self.offset)

    @property
    def depth(self) -> int:
        return int(self.layer.max()) + 1 if self.n_nodes else 0

    def is_terminal(self, target) -> np.ndarray:
        return np.asarray(target) >= self.n_nodes

    def arcs(self) -> list[tuple[int, str, int]]:
        """List every arc.

        Returns
        -------
        list of tuple
            (tail, "-" or "+", head) for every arc; heads >= ``n_nodes`` are
            terminals.
        """
        out = []
        for u in range(self.n_nodes):
            out.append((u, "-", int(self.negative[u])))
            out.append((u, "+", int(self.positive[u])))
        return out

    def in_degree(self) -> np.ndarray:
        """Count the incoming arcs of every decision node.

        Returns
        -------
        ndarray of shape (n_nodes,)
            Arcs into each node; a merge shows as more than 1.
        """
        heads = np.concatenate([self.negative, self.positive])
        heads = heads[heads < self.n_nodes]
        return np.bincount(heads, minlength=self.n_nodes)

    def is_tree(self) -> bool:
        """Tell whether no two arcs lead to the same decision node.

        Returns
        -------
        bool
            True when the diagram is a tree.
        """
        return bool(np.all(self.in_degree()[1:] <= 1))

    def scale_input(self, X: np.ndarray) -> np.ndarray:
        X = np.asarray(X, dtype=np.float64)
        if self.epsilon == 0 and np.all(self.offset == 0) and np.all(self.scale == 1):
            return X     # univariate: the original values, bit for bit
        Xs = scale_features(X, self.offset, self.scale)
        return np.clip(Xs, 0.0, 1.0) if self.epsilon > 0 else Xs

    def _side(self, nodes: np.ndarray, Xs: np.ndarray) -> np.ndarray:
        """True where the row goes to the positive side of its node."""
        coef = self.coef[nodes]
        if self.epsilon == 0:
            return project(coef, Xs) >= self.threshold[nodes]
        delta = np.einsum("ij,ij->i", coef, Xs) - self.threshold[nodes]
        return (delta >= -_TOL) | ((delta > -self.epsilon + _TOL) & (delta >= -self.epsilon / 2))

    def route_scaled(self, Xs: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(terminal class, last internal node, last side) of every scaled row."""
        n = Xs.shape[0]
        node = np.zeros(n, dtype=np.intp)
        last = np.zeros(n, dtype=np.intp)
        side = np.zeros(n, dtype=bool)
        live = np.arange(n) if self.n_nodes else np.empty(0, dtype=np.intp)
        while live.size:
            pos = self._side(node[live], Xs[live])
            target = np.where(pos, self.positive[node[live]], self.negative[node[live]])
            last[live], side[live] = node[live], pos
            node[live] = target
            live = live[target < self.n_nodes]
        return node - self.n_nodes, last, side

    def predict(self, X: np.ndarray) -> np.ndarray:
        """Return the class of the terminal each row reaches.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Numeric rows in the diagram's own columns.

        Returns
        -------
        ndarray of shape (n_samples,)
            Class index of each row's terminal.
        """
        return self.route_scaled(self.scale_input(X))[0]

    def predict_proba(self, X: np.ndarray) -> np.ndarray:
        """Return one-hot rows on the terminal's class.

        A diagram's terminals *are* classes (the MILP may route a flow to a
        class that is not its majority, e.g. for fairness).  Dense, rows x
        classes: a size beyond
        :data:`~optimaltrees.model.checks.MAX_PROBABILITY_BYTES` is refused
        with a ValueError.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Numeric rows in the diagram's own columns.

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            1 in the column of each row's terminal.
        """
        predicted = self.predict(X)
        out = dense_probabilities(len(predicted), self.n_classes)
        out.fill(0.0)
        out[np.arange(len(predicted)), predicted] = 1.0
        return out

    def node_flows(self, X: np.ndarray, sample_weight: np.ndarray | None = None) -> np.ndarray:
        """Count the rows that pass through every decision node.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Numeric rows in the diagram's own columns.
        sample_weight : array-like of shape (n_samples,) or None, default=None
            Weights to sum instead of counting rows.

        Returns
        -------
        ndarray of shape (n_nodes,)
            Rows (or their weight) through each node.
        """
        Xs = self.scale_input(X)
        flows = np.zeros(self.n_nodes, dtype=np.int64 if sample_weight is None else np.float64)
        node = np.zeros(len(Xs), dtype=np.intp)
        live = np.arange(len(Xs)) if self.n_nodes else np.empty(0, dtype=np.intp)
        while live.size:
            flows += np.bincount(node[live], minlength=self.n_nodes,
                                 weights=None if sample_weight is None else sample_weight[live])
            pos = self._side(node[live], Xs[live])
            node[live] = np.where(pos, self.positive[node[live]], self.negative[node[live]])
            live = live[node[live] < self.n_nodes]
        return flows

    def decision_path(self, X: np.ndarray):
        """Return the nodes each row visits, as scikit-learn's ``decision_path``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Numeric rows in the diagram's own columns.

        Returns
        -------
        scipy.sparse.csr_matrix of shape (n_samples, n_nodes + n_classes)
            Decision nodes 0 .. n_nodes - 1, then column ``n_nodes + c`` for
            the terminal of class c (a diagram's leaves).
        """
        from scipy.sparse import csr_matrix

        Xs = self.scale_input(X)
        n = len(Xs)
        node = np.zeros(n, dtype=np.intp)
        rows, cols = [], []
        live = np.arange(n) if self.n_nodes else np.empty(0, dtype=np.intp)
        while live.size:
            rows.append(live)
            cols.append(node[live].copy())
            pos = self._side(node[live], Xs[live])
            node[live] = np.where(pos, self.positive[node[live]], self.negative[node[live]])
            done = live[node[live] >= self.n_nodes]
            rows.append(done)
            cols.append(node[done].copy())
            live = live[node[live] < self.n_nodes]
        rows = np.concatenate(rows) if rows else np.empty(0, dtype=np.intp)
        cols = np.concatenate(cols) if cols else np.empty(0, dtype=np.intp)
        return csr_matrix((np.ones(len(rows), dtype=np.intp), (rows, cols)),
                          shape=(n, self.n_nodes + self.n_classes))

    def reachable(self) -> np.ndarray:
        """Boolean mask over decision nodes then terminals: reached from the root."""
        seen = np.zeros(self.n_nodes + self.n_classes, dtype=bool)
        if not self.n_nodes:
            return seen
        seen[0] = True
        for u in np.argsort(self.layer, kind="stable"):      # arcs lead to later layers
            if seen[u]:
                seen[[int(self.negative[u]), int(self.positive[u])]] = True
        return seen

    def longest_path(self) -> int:
        """Return the most decisions a row can meet.

        Returns
        -------
        int
            Decision nodes on the longest path from the root to a class
            terminal (the number of decision layers when some path crosses
            every layer).
        """
        if not self.n_nodes:
            return 0
        reach = np.zeros(self.n_nodes, dtype=np.int64)    # decisions up to and including u
        reach[0] = 1
        for u in np.argsort(self.layer, kind="stable"):
            if reach[u]:
                for t in (int(self.negative[u]), int(self.positive[u])):
                    if t < self.n_nodes:
                        reach[t] = max(reach[t], reach[u] + 1)
        return int(reach.max())

    def split_counts(self, X: np.ndarray, y: np.ndarray) -> np.ndarray:
        """Shape (n_nodes, 2, n_classes): rows of class c that node u sends
        to its negative (``[u, 0, c]``) and positive (``[u, 1, c]``) side;
        ``y`` holds class indices."""
        Xs = self.scale_input(X)
        y = np.asarray(y, dtype=np.intp)
        out = np.zeros((self.n_nodes, 2, self.n_classes), dtype=np.int64)
        node = np.zeros(len(Xs), dtype=np.intp)
        live = np.arange(len(Xs)) if self.n_nodes else np.empty(0, dtype=np.intp)
        while live.size:
            pos = self._side(node[live], Xs[live])
            np.add.at(out, (node[live], pos.astype(np.intp), y[live]), 1)
            node[live] = np.where(pos, self.positive[node[live]], self.negative[node[live]])
            live = live[node[live] < self.n_nodes]
        return out

    def feature_importances(self, X: np.ndarray, y: np.ndarray) -> np.ndarray:
        """Compute the flow-weighted Gini decrease of each feature on (X, y).

        Every node u scores N_u G(u) - N_neg G(neg) - N_pos G(pos) on the
        rows that reach it (the flow it receives, from every parent, and how
        it splits that flow), with N rows and G the Gini impurity.  A
        univariate node credits its feature; a hyperplane shares its score
        between its features in proportion to ``|coef|`` (coefficients act
        on [0, 1]-scaled features, so they are comparable).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Numeric rows in the diagram's own columns.
        y : array-like of shape (n_samples,)
            Class indices.

        Returns
        -------
        ndarray of shape (n_features,)
            Importances normalised to sum to 1 (all 0 when no node separates
            any classes).
        """
        counts = self.split_counts(X, y).astype(np.float64)

        def weighted(c):          # N * Gini of count vectors along the last axis
            n = c.sum(axis=-1)
            return np.where(n > 0, n - (c ** 2).sum(axis=-1) / np.where(n > 0, n, 1.0), 0.0)

        decrease = weighted(counts.sum(axis=1)) - weighted(counts).sum(axis=1)
        share = np.abs(self.coef) * (self.scale != 0)
        totals = share.sum(axis=1, keepdims=True)
        share = np.divide(share, totals, out=np.zeros_like(share), where=totals > 0)
        out = (decrease[:, None] * share).sum(axis=0)
        total = out.sum()
        return out / total if total > 0 else out

    def _cut(self, u: int, j: int, increasing: bool, guess: float) -> float | None:
        """The float where node u's decision on feature j (its only one) flips,
        found with the node's own rule (:meth:`_side`), so text built on it
        routes every value exactly as :meth:`predict`: with ``increasing``
        the smallest x sent to the positive side, else the largest; None when
        no finite x is (the side never changes).  Decisions are monotone in x
        (rounding is), so a bisection over the ordered floats finds it;
        ``guess`` (the threshold in original units) is tried first."""
        nodes = np.array([u], dtype=np.intp)

        def positive(x: float) -> bool:
            row = np.zeros((1, self.n_features))
            row[0, j] = x
            with np.errstate(all="ignore"):
                return bool(self._side(nodes, self.scale_input(row))[0])

        def key(x: float) -> int:        # floats in order as integers (-0.0 and 0.0 both 0)
            bits = int(np.float64(x).view(np.int64))
            return bits if bits >= 0 else -(bits & 0x7FFF_FFFF_FFFF_FFFF)

        def value(k: int) -> float:
            x = float(np.int64(abs(k)).view(np.float64))
            return -x if k < 0 else x

        def holds(k: int) -> bool:       # the side of large x: positive if increasing, else negative
            return positive(value(k)) == increasing

        if np.isfinite(guess):           # usually exact: one test on each side of it
            k = key(guess)
            if increasing and holds(k) and not holds(k - 1):
                return guess
            if not increasing and not holds(k) and holds(k + 1):
                return guess
        big = float(np.finfo(np.float64).max)
        lo, hi = key(-big), key(big)
        if holds(lo) or not holds(hi):   # the same side for every finite value
            return None
        while hi - lo > 1:               # holds(lo) is False, holds(hi) is True
            mid = (lo + hi) // 2
            if holds(mid):
                hi = mid
            else:
                lo = mid
        return value(hi) if increasing else value(lo)

    def _original_units(self, u: int) -> tuple[np.ndarray, float, np.ndarray]:
        """Node u's hyperplane on the original features: (coefficients,
        right-hand side, the features it uses)."""
        # coef . ((x - offset) * scale) >= b  <=>  sum_j (coef_j scale_j) x_j >= b + sum_j coef_j scale_j offset_j
        raw = self.coef[u] * self.scale
        return raw, float(self.threshold[u] + np.dot(raw, self.offset)), np.flatnonzero(np.abs(raw) > 0)

    def univariate_rule(self, u: int) -> tuple[int, bool, float | None, bool]:
        """Node u's one-feature test as (feature j, increasing, cut, always):
        positive iff ``x_j >= cut`` (``increasing``) or ``x_j <= cut``, found
        with the node's own rule (:meth:`_cut`); ``cut`` None when no finite
        value changes the side, ``always`` then telling whether it is the
        positive one.  A ValueError for a hyperplane of several features."""
        raw, b, used = self._original_units(u)
        if len(used) > 1:
            raise ValueError(f"node {u} splits on {len(used)} features at once (a hyperplane), "
                             "which no threshold on one feature writes")
        always = bool(self._side(np.array([u]), self.scale_input(np.zeros((1, self.n_features))))[0])
        if len(used) == 0:
            return 0, True, None, always
        j = int(used[0])
        increasing = bool(raw[j] > 0)
        with np.errstate(over="ignore"):      # a tiny coefficient: an infinite guess, which _cut handles
            guess = b / raw[j]
        return j, increasing, self._cut(u, j, increasing, guess), always

    def unfold(self):
        """Return the diagram as a :class:`~optimaltrees.model.tree.Tree`
        routing every row to the same class.

        A node reached by several paths is copied once per path, so the tree
        can hold up to 2^depth leaves.  Each one-feature test becomes the
        threshold where the node's own rule flips (``x <= t`` the left
        side); a leaf holds 1 for its terminal's class.  A diagram with
        hyperplanes of several features has no such tree (ValueError).

        Returns
        -------
        Tree
            Over the diagram's columns; missing values are not part of a
            diagram (its estimator refuses them).
        """
        from optimaltrees.model.tree import Tree

        feature, threshold, left, right, value = [], [], [], [], []

        def visit(target: int) -> int:
            me = len(feature)
            feature.append(-1), threshold.append(0.0), left.append(-1), right.append(-1)
            value.append(np.zeros(self.n_classes))
            if target >= self.n_nodes:
                value[me][target - self.n_nodes] = 1.0
                return me
            j, increasing, cut, always = self.univariate_rule(target)
            neg, pos = int(self.negative[target]), int(self.positive[target])
            if cut is None:                      # one side for every value: that side's subtree here
                del feature[me], threshold[me], left[me], right[me], value[me]
                return visit(pos if always else neg)
            # increasing: positive iff x >= cut, so x <= the float below cut is the negative side
            feature[me] = j
            threshold[me] = float(np.nextafter(cut, -np.inf)) if increasing else float(cut)
            left[me] = visit(neg if increasing else pos)
            right[me] = visit(pos if increasing else neg)
            value[me] = value[left[me]] + value[right[me]]
            return me

        visit(0 if self.n_nodes else self.n_nodes)
        return Tree(feature=feature, threshold=threshold, children_left=left, children_right=right,
                    value=np.array(value), n_features=self.n_features,
                    missing_left=np.zeros(len(feature), dtype=bool))

    def split_text(self, u: int, feature_names: Sequence[str] | None = None,
                   decimals: int = 4, split_labels=None) -> tuple[str, str]:
        """Return node u's two conditions in the original feature units.

        A one-feature test prints the exact float where the node's own rule
        flips, so ``x >= 107.5`` in the text sends every value where
        :meth:`predict` does.  A hyperplane (several features) prints its
        coefficients and right-hand side to ``decimals`` significant digits:
        an approximation of the rule (its arithmetic on scaled features
        cannot be written exactly in the original units).

        Parameters
        ----------
        u : int
            The decision node.
        feature_names : sequence of str or None, default=None
            One name per column (None: ``x[0]``, ``x[1]``, ...).
        decimals : int, default=4
            Significant digits of a hyperplane's numbers.
        split_labels : sequence of (str, str) or None, default=None
            Per column, None or the (value 0, value 1) texts of a 0/1 column,
            e.g. ("island != Dream", "island == Dream") for one value of a
            categorical column: a one-feature test on it prints them.

        Returns
        -------
        tuple of str
            The (negative, positive) conditions.
        """
        name = (lambda j: str(feature_names[j])) if feature_names is not None else (lambda j: f"x[{j}]")
        raw, b, used = self._original_units(u)
        fmt = f".{decimals}g"
        if len(used) == 0:
            return ("always", "never") if b > 0 else ("never", "always")
        if len(used) == 1:
            j, increasing, cut, always = self.univariate_rule(u)
            if cut is None:      # no finite value changes the side
                return ("never", "always") if always else ("always", "never")
            labels = None if split_labels is None else split_labels[j]
            if labels is not None and 0.0 < cut <= 1.0 and increasing:      # 1 positive, 0 not
                return labels[0], labels[1]
            if labels is not None and 0.0 <= cut < 1.0 and not increasing:  # 0 positive, 1 not
                return labels[1], labels[0]
            t = format_threshold(cut)
            if increasing:       # positive iff x >= cut
                return (f"{name(j)} < {t}", f"{name(j)} >= {t}")
            return (f"{name(j)} > {t}", f"{name(j)} <= {t}")      # positive iff x <= cut
        terms = " ".join(f"{'+' if raw[j] >= 0 else '-'} {abs(raw[j]):{fmt}}*{name(j)}" for j in used)
        terms = terms[2:] if terms.startswith("+ ") else "-" + terms[2:]
        return (f"{terms} < {b:{fmt}}", f"{terms} >= {b:{fmt}}")
