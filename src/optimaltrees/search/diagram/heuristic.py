"""A good diagram at once (the paper's Step 1): a CART-like pass down the
skeleton's layers that merges flows where a layer is too narrow, restarted
on random feature subsets, then pruned bottom-up.

It is the MILP's starting solution and cutoff, and the answer when the
solver finds nothing better in time.  Every diagram it returns is feasible
for the MILP: thresholds sit on a training value with a gap of at least
epsilon below it, and merges never give a node's two arcs one target.
"""
from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass

import numpy as np

from optimaltrees.search.contree import search_tree
from optimaltrees.search.diagram.skeleton import Placement, Skeleton


@dataclass(frozen=True)
class Points:
    """Distinct training rows with per-class counts: per-column ranks
    (0, 1, 2, ...) for univariate splits, features scaled to [0, 1] for
    hyperplanes."""

    X: np.ndarray        # (n_points, d)
    counts: np.ndarray   # (n_points, K) float
    group: np.ndarray | None = None   # (n_points,) 0/1 sensitive group, when fairness is asked

    @property
    def n(self) -> float:
        return float(self.counts.sum())


@dataclass(frozen=True)
class Settings:
    """What makes a diagram admissible and how it is scored (objective (18))."""

    alpha: float = 0.0
    epsilon: float = 1e-4
    tree: bool = False                 # in-degree <= 1
    max_nodes: int | None = None       # active internal nodes, root included
    min_flow: float = 0.0              # rows through every active non-root node
    fairness: tuple[int, float] | None = None   # (positive class, ratio xi)


def objective(points: Points, skeleton: Skeleton, placement: Placement, settings: Settings) -> tuple[float, float]:
    """(objective (18), misclassified weight) of a placement on the points."""
    cls, _, _ = placement.route(skeleton, points.X)
    errors = points.n - float(points.counts[np.arange(len(cls)), cls].sum())
    return errors / points.n + node_penalty(skeleton, settings.alpha) * (int(placement.active.sum()) - 1), errors


def node_penalty(skeleton: Skeleton, alpha: float) -> float:
    """The objective's price of one active non-root node: alpha / (|V^I| - 1)."""
    return alpha / (skeleton.n_internal - 1) if skeleton.n_internal > 1 else 0.0


def _entropy(counts: np.ndarray) -> np.ndarray:
    """n * H (natural log) of each row of class counts (last axis)."""
    total = counts.sum(axis=-1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        p = np.where(counts > 0, counts / total, 1.0)
        return -(counts * np.log(p)).sum(axis=-1)


def best_split(Xs: np.ndarray, counts: np.ndarray, features: np.ndarray,
               epsilon: float) -> tuple[int, float] | None:
    """(feature, threshold) of the univariate split with the least weighted
    entropy; thresholds are training values with a gap >= epsilon below them,
    so both sides respect the MILP's margin.  Ties go to the larger smaller side."""
    best, best_key = None, None
    total = counts.sum(axis=0)
    for j in features:
        order = np.argsort(Xs[:, j], kind="stable")
        v = Xs[order, j]
        cut = np.flatnonzero(np.diff(v) >= epsilon * (1 + 1e-6) + 1e-12)   # split after position cut
        if not cut.size:
            continue
        left = np.cumsum(counts[order], axis=0)[cut]
        right = total - left
        score = _entropy(left) + _entropy(right)
        small = np.minimum(left.sum(axis=1), right.sum(axis=1))
        k = np.lexsort((-small, np.round(score, 12)))[0]
        key = (round(float(score[k]), 12), -float(small[k]))
        if best_key is None or key < best_key:
            best_key, best = key, (int(j), float(v[cut[k] + 1]))
    return best


def lookahead_split(Xs: np.ndarray, counts: np.ndarray, features: np.ndarray, epsilon: float,
                    depth: int) -> tuple[int, float] | None:
    """(feature, threshold) at the root of the exact optimal tree of ``depth``
    (<= 2) on these rows: the library's own DP engine, so the split already
    accounts for what the layers below can do with it (CART's entropy cannot).
    None when that split falls between values closer than ``epsilon``."""
    rows, labels = np.nonzero(counts > 0)
    X = np.ascontiguousarray(Xs[rows][:, features], dtype=np.float64)
    classes, y = np.unique(labels, return_inverse=True)
    if len(classes) < 2:
        return None
    # each (point, class) once, weighted by its count (or summed sample weight)
    found = search_tree(X, y.reshape(-1), len(classes), depth, sample_weight=counts[rows, labels])
    if found.interrupted:        # the engine caught Ctrl-C: pass it on to the restarts' handler
        raise KeyboardInterrupt
    tree = found.tree
    if tree.feature[0] < 0:
        return None
    j = int(features[tree.feature[0]])
    col = Xs[:, j]
    above = col[col > tree.threshold[0]]
    below = col[col <= tree.threshold[0]]
    if not above.size or not below.size or above.min() - below.max() < epsilon * (1 + 1e-6) + 1e-12:
        return None
    return j, float(above.min())


@dataclass
class _Flow:
    rows: np.ndarray                   # point indices
    parents: list[tuple[int, bool]]    # (skeleton node, positive side) arcs that carry it
    counts: np.ndarray                 # class counts

    @property
    def weight(self) -> float:
        return float(self.counts.sum())


def construct(points: Points, skeleton: Skeleton, settings: Settings, features: np.ndarray,
              lookahead: bool = False) -> Placement:
    """One top-down pass restricted to ``features`` for the splits: by least
    entropy, or with ``lookahead`` by the optimal tree of the remaining depth
    (up to 2) below each node."""
    d = points.X.shape[1]
    K = skeleton.n_classes
    plc = Placement.empty(skeleton, d)

    def point(parents, target):
        for u, pos in parents:
            (plc.positive if pos else plc.negative)[u] = target

    root_counts = points.counts.sum(axis=0)
    layer_flows = [_Flow(np.arange(len(points.X)), [], root_counts)]
    for layer in range(skeleton.depth):
        out: list[_Flow] = []
        for k, flow in enumerate(layer_flows):
            u = skeleton.layer_start[layer] + k
            split = None
            if np.count_nonzero(flow.counts) > 1 and len(flow.rows) > 1:
                args = (points.X[flow.rows], points.counts[flow.rows], features, settings.epsilon)
                split = lookahead_split(*args, min(2, skeleton.depth - layer)) if lookahead else None
                split = split or best_split(*args)
            if split is None and layer > 0:
                point(flow.parents, skeleton.terminal(int(flow.counts.argmax())))
                continue
            plc.active[u] = True
            point(flow.parents, u)
            if split is None:   # the root must split: send every row to its positive side
                plc.coef[u, 0], plc.threshold[u] = 1.0, 0.0
                out.append(_Flow(flow.rows[:0], [(u, False)], np.zeros(K)))
                out.append(_Flow(flow.rows, [(u, True)], flow.counts))
                continue
            j, t = split
            plc.coef[u, j], plc.threshold[u] = 1.0, t
            pos = points.X[flow.rows, j] >= t - 1e-12
            for side in (False, True):
                rows = flow.rows[pos == side]
                out.append(_Flow(rows, [(u, side)], points.counts[rows].sum(axis=0)))
        if layer + 1 == skeleton.depth:
            for flow in out:
                point(flow.parents, skeleton.terminal(int(flow.counts.argmax())))
            break
        layer_flows = _fit_width(out, skeleton.widths[layer + 1], settings, point, skeleton)
    _repair(plc, skeleton, points)
    return plc


def _fit_width(flows: list[_Flow], width: int, settings: Settings, point, skeleton: Skeleton) -> list[_Flow]:
    """The flows that become the next layer's nodes: pure and small flows go
    to their majority terminal; while more remain than ``width``, either merge
    the two flows whose union loses the least information (never a node's two
    sides, never in tree mode) or send the flow with the least entropy to a
    terminal, whichever costs less entropy."""
    keep = []
    for f in flows:
        if np.count_nonzero(f.counts) <= 1 or len(f.rows) < 2 or f.weight < settings.min_flow:
            point(f.parents, skeleton.terminal(int(f.counts.argmax())))
        else:
            keep.append(f)
    while len(keep) > width:
        best = None
        for a in range(len(keep)):
            stop_cost = float(_entropy(keep[a].counts))
            if best is None or stop_cost < best[0]:
                best = (stop_cost, a, -1)
            if settings.tree:
                continue
            tails_a = {u for u, _ in keep[a].parents}
            for b in range(a + 1, len(keep)):
                if tails_a & {u for u, _ in keep[b].parents}:
                    continue
                merged = keep[a].counts + keep[b].counts
                cost = float(_entropy(merged) - _entropy(keep[a].counts) - _entropy(keep[b].counts))
                if cost < best[0]:
                    best = (cost, a, b)
        _, a, b = best
        if b < 0:
            f = keep.pop(a)
            point(f.parents, skeleton.terminal(int(f.counts.argmax())))
        else:
            fb = keep.pop(b)
            fa = keep[a]
            keep[a] = _Flow(np.concatenate([fa.rows, fb.rows]), fa.parents + fb.parents, fa.counts + fb.counts)
    return keep


def _repair(plc: Placement, skeleton: Skeleton, points: Points) -> None:
    """No node may send both arcs to one target (the MILP forbids it): such a
    non-root node is bypassed; the root sends its lighter side elsewhere."""
    changed = True
    while changed:
        changed = False
        for u in np.flatnonzero(plc.active)[::-1]:
            if plc.negative[u] != plc.positive[u]:
                continue
            target = plc.negative[u]
            if u == 0:
                cls, path, sides = plc.route(skeleton, points.X)
                side_counts = [points.counts[(path[:, 0] == 0) & (sides[:, 0] == s)].sum(axis=0)
                               for s in (False, True)]
                light = int(side_counts[1].sum() < side_counts[0].sum())
                c = side_counts[light].copy()
                c[target - skeleton.n_internal] = -1.0
                new = skeleton.terminal(int(c.argmax()))
                (plc.positive if light else plc.negative)[0] = new
            else:
                _bypass(plc, u, target)
            changed = True


def _bypass(plc: Placement, u: int, target: int) -> None:
    plc.negative[plc.negative == u] = target
    plc.positive[plc.positive == u] = target
    plc.active[u] = False
    plc.negative[u] = plc.positive[u] = -1
    plc.coef[u] = 0.0
    plc.threshold[u] = 0.0


def prune(plc: Placement, points: Points, skeleton: Skeleton, settings: Settings) -> Placement:
    """Bottom-up pruning: a node whose both arcs reach terminals is removed
    (each arc into it redirected to the majority class of what it carries)
    when that does not raise the objective, or while the diagram has more
    nodes than ``max_nodes`` (cheapest first)."""
    plc = plc.copy()
    penalty = node_penalty(skeleton, settings.alpha)
    while True:
        cls, path, sides = plc.route(skeleton, points.X)
        base_err = points.n - float(points.counts[np.arange(len(cls)), cls].sum())
        options = []
        for u in np.flatnonzero(plc.active)[1:]:
            if plc.negative[u] < skeleton.n_internal or plc.positive[u] < skeleton.n_internal:
                continue
            trial = plc.copy()
            layer = skeleton.layer_of(u)
            for p in np.flatnonzero((trial.negative == u) | (trial.positive == u)):
                for side, arr in ((False, trial.negative), (True, trial.positive)):
                    if arr[p] != u:
                        continue
                    via = (path[:, layer - 1] == p) & (sides[:, layer - 1] == side)
                    arr[p] = skeleton.terminal(int(points.counts[via].sum(axis=0).argmax()))
            _bypass(trial, u, -1)
            _repair(trial, skeleton, points)
            t_cls, _, _ = trial.route(skeleton, points.X)
            err = points.n - float(points.counts[np.arange(len(t_cls)), t_cls].sum())
            options.append(((err - base_err) / points.n - penalty * (plc.active.sum() - trial.active.sum()), trial))
        if not options:
            return plc
        delta, trial = min(options, key=lambda o: o[0])
        over = settings.max_nodes is not None and plc.active.sum() > settings.max_nodes
        if delta <= 1e-12 or over:
            plc = trial
        else:
            return plc


def heuristic(points: Points, skeleton: Skeleton, settings: Settings, *, time_budget: float = 1.0,
              max_starts: int = 200, random_state: np.random.Generator | None = None,
              deadline: float | None = None) -> tuple[Placement, float, bool]:
    """The best pruned diagram over one pass on all features and restarts on
    random subsets of 50-100 % of them (the authors' code), within ``time_budget``.
    A tree is a diagram too: without ``settings.tree`` every start also builds
    the merge-free diagram, which on small data often needs fewer nodes.
    ``deadline`` (``time.perf_counter``) ends it too, after the first diagram
    (a CART pass: there must be one to return).
    Returns (diagram, objective, interrupted): Ctrl-C after the first start
    ends the restarts and keeps the best diagram."""
    modes = [settings] if settings.tree else [settings, dataclasses.replace(settings, tree=True)]
    rng = random_state if random_state is not None else np.random.default_rng(0)
    d = points.X.shape[1]
    start = time.perf_counter()
    stop = start + time_budget if deadline is None else min(start + time_budget, deadline)
    best, best_obj = None, np.inf
    try:
        for k in range(max_starts):
            if k and time.perf_counter() > stop:
                break
            feats = np.arange(d) if k == 0 else np.sort(
                rng.choice(d, size=max(1, int(round(rng.uniform(0.5, 1.0) * d))), replace=False))
            for mode, look in [(m, look) for m in modes for look in ((False, True) if k == 0 else (False,))]:
                if best is not None and deadline is not None and time.perf_counter() > deadline:
                    break
                plc = prune(construct(points, skeleton, mode, feats, lookahead=look), points, skeleton, settings)
                obj, _ = objective(points, skeleton, plc, settings)
                if obj < best_obj - 1e-12:
                    best, best_obj = plc, obj
            if d == 1:
                break
    except KeyboardInterrupt:
        if best is None:
            raise
        return best, best_obj, True
    return best, best_obj, False
