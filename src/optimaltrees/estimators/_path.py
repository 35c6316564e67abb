"""The cost-complexity path: the optimal tree at every node cost, from a few fits.

A tree's objective at node cost ``a`` (the estimators' ``complexity_cost``)
is ``loss + a * unit * nodes``: a line in ``a`` (``unit`` is the number of
rows, the total weight or the total squared error that makes the cost
scale-free).  The optimum over all trees, their lower envelope, is concave
and piecewise linear; each piece is one tree, optimal on an interval of
costs.  The pieces are found as Eisner and Severance find the breakpoints of
a parametric optimum: given two trees A (more nodes) and B, optimal on
either side, one exact fit where their lines cross either finds a tree
below both (a piece between them) or proves that B takes over from A
there.  So a path of k trees costs about 2k fits, each at a positive cost,
where the cost prunes.
"""
from __future__ import annotations

import time
import warnings
from dataclasses import dataclass

import numpy as np
from sklearn.base import clone
from sklearn.utils import Bunch


@dataclass
class _Fit:
    """One exact fit, read as the line of its tree."""

    estimator: object
    cost: float          # the complexity_cost it was fitted at
    loss: float          # the objective without node costs (errors, costs or squared error)
    nodes: int           # branch nodes
    proven: bool         # the fit proved its optimum
    lower_bound: float   # its bound on the optimal objective at ``cost``


def _fit_at(estimator, X, y, sample_weight, cost: float, deadline: float | None,
            max_depth: int | None = None) -> _Fit:
    """A clone of ``estimator`` fitted at node cost ``cost`` (depth
    ``max_depth`` if given) within what is left of the path's time."""
    params = {"complexity_cost": cost, "callback": None, "verbose": False}
    if "tie_break" in estimator.get_params():
        # the path needs only whether a tree lies below the line; at ties it
        # keeps the one with fewer nodes itself (the envelope's rule)
        params["tie_break"] = "first_found"
    if max_depth is not None:
        params["max_depth"] = max_depth
    if deadline is not None:
        params["time_limit"] = max(deadline - time.perf_counter(), 1e-3)
    est = clone(estimator).set_params(**params)
    with warnings.catch_warnings():
        # a fit stopped by the clock warns; the path says so once, at its end
        warnings.simplefilter("ignore", UserWarning)
        est.fit(X, y, sample_weight=sample_weight)
    nodes = int(est.tree_.n_branch_nodes)
    loss = float(est.objective_) - cost * est._node_cost_unit * nodes
    return _Fit(est, cost, max(loss, 0.0), nodes, bool(est.is_optimal_), float(est.lower_bound_))


def _crossing(a: _Fit, b: _Fit, unit: float) -> float:
    """The cost where the lines of ``a`` (more nodes) and ``b`` cross: at
    most 1, as no node can save more than the leaf's loss (``unit``
    bounds it), but rounding may pass it."""
    return min((b.loss - a.loss) / (unit * (a.nodes - b.nodes)), 1.0)


def complexity_path(estimator, X, y, sample_weight=None) -> Bunch:
    """The path of ``estimator`` (a tree classifier or regressor) on (X, y):
    see :meth:`PathMixin.cost_complexity_path`."""
    if int(estimator.max_depth) < 1:
        raise ValueError(f"cost_complexity_path needs max_depth >= 1 (got {estimator.max_depth}): "
                         "at depth 0 the only tree is one leaf")
    start = time.perf_counter()
    deadline = None if estimator.time_limit is None else start + float(estimator.time_limit)
    top = _fit_at(estimator, X, y, sample_weight, 0.0, deadline)
    unit = top.estimator._node_cost_unit
    takeover = {}                     # id(tree) -> the fit at the cost where the next piece takes over
    if top.nodes == 0:
        stop = bool(top.estimator.interrupted_)
        return _path_bunch([top], takeover, top, unit, stop, stop)
    leaf = _fit_at(estimator, X, y, sample_weight, 0.0, deadline, max_depth=0)
    # objectives this close are equal (the estimators' own tolerance, in the loss's scale)
    tol = 1e-9 * max(unit, leaf.loss, 1e-300)
    pieces = [top, leaf]              # the envelope's trees, most nodes first
    pending = [(top, leaf)]
    cut = interrupted = top.estimator.interrupted_
    if cut:
        pending = []
    while pending:
        a, b = pending.pop()
        if b.loss <= a.loss + tol:
            # b is as good with fewer nodes: a is optimal at cost 0 at most, where b is preferred
            pieces.remove(a)
            takeover.pop(id(a), None)
            continue
        if deadline is not None and time.perf_counter() >= deadline:
            cut = True
            break
        cost = _crossing(a, b, unit)
        t = _fit_at(estimator, X, y, sample_weight, cost, deadline)
        if t.estimator.interrupted_:
            cut = interrupted = True     # Ctrl-C: keep what is known, fit nothing more
            break
        line = a.loss + cost * unit * a.nodes
        if t.estimator.objective_ < line - tol and b.nodes < t.nodes < a.nodes:
            pieces.insert(pieces.index(b), t)
            pending += [(t, b), (a, t)]
        else:
            takeover[id(a)] = t       # (not proven if the fit was stopped: the flags say so)
    return _path_bunch(pieces, takeover, top, unit, cut, interrupted)


def _path_bunch(pieces: list[_Fit], takeover: dict, top: _Fit, unit: float, cut: bool,
                interrupted: bool = False) -> Bunch:
    """The envelope as the path's arrays: piece i is optimal from
    ``complexity_costs[i]`` until the next; proven when the fits at both
    ends proved their optimum."""
    costs, bounds, proven = [], [], []
    start = top                        # the fit at the cost where piece i takes over
    for piece in pieces:
        end = takeover.get(id(piece))
        costs.append(start.cost)
        bounds.append(start.lower_bound)
        ends_proven = piece is pieces[-1] or (end is not None and end.proven)
        proven.append(bool(start.proven and ends_proven))
        if end is None and piece is not pieces[-1]:
            break                      # the path stopped here: the rest is unknown
        start = end
    pieces = pieces[:len(costs)]
    if interrupted:
        warnings.warn("cost_complexity_path interrupted (Ctrl-C): the path holds the trees found so far",
                      RuntimeWarning, stacklevel=3)
    elif cut or not all(proven):
        warnings.warn("cost_complexity_path: the time limit stopped some fits before their proof; "
                      "the path holds the best trees found, and `proven` marks which are optimal",
                      UserWarning, stacklevel=3)
    return Bunch(
        complexity_costs=np.array(costs, dtype=np.float64),
        errors=np.array([p.estimator.train_error_ for p in pieces], dtype=np.float64),
        branch_nodes=np.array([p.nodes for p in pieces], dtype=np.int64),
        objectives=np.array([p.loss + c * unit * p.nodes for p, c in zip(pieces, costs)], dtype=np.float64),
        lower_bounds=np.array(bounds, dtype=np.float64),
        proven=np.array(proven, dtype=bool),
        estimators=[p.estimator for p in pieces],
        interrupted=bool(interrupted),
    )


class PathMixin:
    """``cost_complexity_path`` for the tree estimators."""

    def cost_complexity_path(self, X, y, sample_weight=None) -> Bunch:
        """Every optimal tree as the node cost grows, from 0 to a single leaf.

        Like scikit-learn's ``cost_complexity_pruning_path``, but each tree
        is the exact optimum of depth <= ``max_depth`` at its costs, not a
        pruned subtree of one greedy tree.  The trees are found by a few
        exact fits at positive costs (about two per tree), where the cost
        prunes the search; ``complexity_cost`` is ignored, and
        ``time_limit`` bounds the whole path.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            As ``fit`` takes it (categories and missing values included).
        y : array-like of shape (n_samples,)
            As ``fit`` takes it.
        sample_weight : array-like of shape (n_samples,) or None, default=None
            As ``fit`` takes it.

        Returns
        -------
        sklearn.utils.Bunch
            With arrays, one entry per tree, in order of increasing cost:

            - ``complexity_costs``: where the tree becomes optimal; it stays
              so until the next entry's cost (the last, a single leaf, for
              every cost beyond).  At a cost where two trees tie, the one
              with fewer branch nodes is listed.
            - ``errors``: its ``train_error_`` (misclassifications or their
              weight; squared error for the regressor).
            - ``branch_nodes``: its branch nodes, decreasing along the path.
            - ``objectives``: its objective at ``complexity_costs``.
            - ``lower_bounds``: a proven bound on the optimal objective at
              ``complexity_costs`` (equal to ``objectives`` where proven).
            - ``proven``: the tree is proven optimal over its whole interval
              (False where the time limit stopped a fit first).
            - ``estimators``: the fitted estimators, each fitted at a cost
              where its tree is optimal (its own ``complexity_cost``).

            and ``interrupted``, True when Ctrl-C stopped the path (with a
            ``RuntimeWarning``; the trees found so far are kept).

        Raises
        ------
        ValueError
            If ``max_depth`` is 0 (one leaf is the only tree).
        """
        return complexity_path(self, X, y, sample_weight)
