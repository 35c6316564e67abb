"""What exact trees tell a diagram: a lower bound on its objective, and starts.

**Bound.**  A univariate diagram with D decision layers sends every row
through at most one node per layer, so unfolding it gives a tree of depth
<= D with the same predictions; a diagram with k decision nodes meets at most
k of them on any path, so that tree's depth is <= min(D, k).  With E(d) the
fewest training errors of a tree of depth d,

    errors(any diagram with k nodes) >= E(min(D, k))
    objective >= min over k of  E(min(D, k)) / n + penalty * (k - 1),

whatever the constraints (fairness, min_flow, max_nodes and tree mode only
remove diagrams).  Any valid lower bound on E(d) may stand in for it (a
search stopped by its time limit gives one), and E(d) >= E(d') for d < d'.
A diagram with k nodes also uses at most k distinct tests, so where fewer
than C tests cannot separate the classes (:mod:`.separation`) every diagram
of k < C nodes has an error.  The lower convex hull of the points
(k, bound(k) / n) gives linear cuts "error rate >= a + b * (used nodes)" that
the MILP's relaxation lacks.

**Starts.**  An optimal tree is a diagram once identical subtrees on one
level are folded into one node; where a level is still wider than the
skeleton (or the tree has more than ``max_nodes`` nodes) its cheapest
subtrees are cut to leaves.  Merges of nodes of one layer are then searched
from it (:func:`merge_search`).
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from optimaltrees.data.counts import misclassified
from optimaltrees.model.tree import Tree
from optimaltrees.search.contree import search_tree
from optimaltrees.search.diagram.heuristic import Points, Settings, node_penalty, objective
from optimaltrees.search.diagram.separation import tests_needed
from optimaltrees.search.diagram.skeleton import Placement, Skeleton, constant_placement

#: a split of the tree as the placement's (feature, threshold), or None when
#: the diagram's encoding cannot hold it (a multivariate margin too small)
SplitMap = Callable[[int, float], "tuple[int, float] | None"]


@dataclass
class TreeKnowledge:
    """What the exact tree searches found for one diagram fit."""

    error_bounds: np.ndarray | None          # (D + 1,): errors of any tree of depth <= d are >= [d]; None: no bound
    tests_needed: int = 0                    # fewer tests than this leave two classes together (0: not known)
    trees: list[Tree] = field(default_factory=list)      # start candidates, the priced tree first
    searches: list[dict] = field(default_factory=list)   # one record per search
    interrupted: bool = False                # Ctrl-C during a search
    node_search: object = None               # the SAT node bounds (:class:`.sat_nodes.NodeSearch`), if asked
    seconds: float = 0.0


# -- the bound -------------------------------------------------------------------

def errors_by_nodes(error_bounds: np.ndarray, skeleton: Skeleton, tests_needed: int = 0,
                    unit: float = 1.0) -> np.ndarray:
    """[k - 1]: a lower bound on the errors of any diagram of k = 1..m nodes:
    the depth bound E(min(D, k)), and one error where k < ``tests_needed``
    (``unit``: its least cost, the lightest row's weight with sample weights)."""
    D = skeleton.depth
    k = np.arange(1, skeleton.n_internal + 1)
    by_nodes = np.asarray(error_bounds, dtype=float)[np.minimum(k, D)]
    return np.where(k < tests_needed, np.maximum(by_nodes, unit), by_nodes)


def objective_bound(by_nodes: np.ndarray, n: float, skeleton: Skeleton, settings: Settings) -> float:
    """The least objective any univariate diagram of the skeleton can have,
    from the bound on its errors by node count (:func:`errors_by_nodes`)."""
    errs = np.asarray(by_nodes, dtype=float)
    k = np.arange(1, len(errs) + 1)
    if settings.max_nodes is not None:
        errs, k = errs[:settings.max_nodes], k[:settings.max_nodes]
    return float(np.min(errs / n + node_penalty(skeleton, settings.alpha) * (k - 1)))


def hull_cuts(by_nodes: np.ndarray, n: float) -> list[tuple[float, float]]:
    """(a, b) with "error rate >= a + b * k" for every diagram of k nodes: the
    facets of the lower convex hull of the points (k, by_nodes[k - 1] / n)."""
    f = np.asarray(by_nodes, dtype=float) / n
    pts = list(zip(range(1, len(f) + 1), f.tolist()))
    hull: list[tuple[int, float]] = []
    for p in pts:        # monotone chain, lower hull
        while len(hull) >= 2 and _cross(hull[-2], hull[-1], p) <= 0:
            hull.pop()
        hull.append(p)
    if len(hull) == 1:
        return [(hull[0][1], 0.0)] if hull[0][1] > 0 else []
    cuts = []
    for (k0, f0), (k1, f1) in zip(hull, hull[1:]):
        slope = (f1 - f0) / (k1 - k0)
        cuts.append((f0 - slope * k0, slope))
    return [c for c in cuts if max(c[0] + c[1] * k for k in (1, len(f))) > 0]


def separate(know: TreeKnowledge, X: np.ndarray, y: np.ndarray, skeleton: Skeleton, best_nodes: int,
             deadline: float, unit: float = 1.0) -> None:
    """Set ``know.tests_needed`` where it can raise the bound: for diagrams of
    fewer nodes than the best one (``best_nodes``) whose error bound is still 0."""
    by_nodes = errors_by_nodes(know.error_bounds, skeleton)
    open_k = [k for k in range(1, min(best_nodes, len(by_nodes) + 1)) if by_nodes[k - 1] < unit]
    if open_k and time.perf_counter() < deadline:
        know.tests_needed = tests_needed(X, y, max(open_k), deadline)


def _cross(o, a, b) -> float:
    return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])


def tree_knowledge(X: np.ndarray, y: np.ndarray, n_classes: int, skeleton: Skeleton, settings: Settings, *,
                   budget: float, deadline: float | None, bounds: bool,
                   weight: np.ndarray | None = None) -> TreeKnowledge:
    """Run the exact tree searches within ``budget`` seconds (and ``deadline``):
    first the tree of the skeleton's depth at the diagram's price per node
    (the best start), then the fewest errors at depth D (a second start,
    cut to fit) and, with ``bounds``, below it (the bound).  ``X``: the
    original training rows; ``weight``: their sample weights (errors are then weights)."""
    start = time.perf_counter()
    stop = start + budget if deadline is None else min(start + budget, deadline)
    by_class = np.bincount(y, weights=weight, minlength=n_classes)
    n = float(by_class.sum())
    D = skeleton.depth
    leaf = float(n - by_class.max())
    know = TreeKnowledge(None)
    X = np.ascontiguousarray(X, dtype=np.float64)
    penalty = node_penalty(skeleton, settings.alpha)

    def run(depth: int, cost: float, share: float):
        left = stop - time.perf_counter()
        if left <= 0.01:
            return None
        found = search_tree(X, y, n_classes, depth, node_cost=cost, time_limit=max(0.01, left * share),
                            sample_weight=weight)
        if found.interrupted:
            know.interrupted = True
            return None
        proven = not (found.timed_out or found.stopped or found.memory_out)
        errors = found.tree.training_errors() if weight is None else found.tree.weighted_errors()
        know.searches.append({"depth": depth, "node_cost": cost, "errors": errors,
                              "branch_nodes": int(found.tree.n_branch_nodes),
                              "objective": float(found.objective), "lower_bound": float(found.lower_bound),
                              "proven": bool(proven), "seconds": float(found.seconds)})
        return found, proven

    # the tree pays for its root, the diagram does not: the same optimum
    # among trees with a split, but a leaf may win where a stump is free
    priced = run(D, penalty * n, 0.4 if bounds else 0.5 if penalty > 0 else 1.0)
    if priced is not None:
        know.trees.append(priced[0].tree)
        if priced[0].tree.n_branch_nodes == 0 and not know.interrupted:
            stump = run(1, 0.0, 0.2)
            if stump is not None:
                know.trees.append(stump[0].tree)
    if not bounds and penalty > 0 and not know.interrupted:
        # the fewest-errors tree is a second start (cut to fit, it can beat the priced one)
        fewest = run(D, 0.0, 1.0)
        if fewest is not None:
            know.trees.append(fewest[0].tree)
    if bounds and not know.interrupted:
        lb = np.zeros(D + 1)
        lb[0] = leaf
        for depth in range(D, 0, -1):          # the skeleton's depth matters most
            if know.interrupted:
                break
            if depth == D and penalty == 0 and priced is not None:
                got = priced                    # alpha = 0: the priced search was this one
            else:
                got = run(depth, 0.0, 0.5 if depth > 1 else 1.0)
            if got is None:
                continue
            found, proven = got
            lb[depth] = float(found.objective) if proven else max(float(found.lower_bound), 0.0)
            if depth == D and got is not priced:
                know.trees.append(found.tree)
        # E(d) >= E(d') for d < d': a bound for a deeper tree holds for a shallower one
        know.error_bounds = np.maximum.accumulate(lb[::-1])[::-1]
    know.seconds = time.perf_counter() - start
    return know


# -- trees as diagrams -------------------------------------------------------------

@dataclass
class _Node:
    counts: np.ndarray
    split: tuple[int, float] | None = None      # the placement's (feature, threshold)
    left: "_Node | None" = None                 # negative side
    right: "_Node | None" = None                # positive side

    @property
    def cls(self) -> int:
        return int(np.argmax(self.counts))

    def leaf_errors(self) -> float:
        return float(misclassified(self.counts)[0])

    def errors(self) -> float:
        if self.split is None:
            return self.leaf_errors()
        return self.left.errors() + self.right.errors()


def _key(node: _Node):
    """Equal keys: equal predictions for every row (subtrees that agree are one)."""
    if node.split is None:
        return ("leaf", node.cls)
    left, right = _key(node.left), _key(node.right)
    if left == right:
        return left
    return ("split", node.split, left, right)


def _from_tree(tree: Tree, split_map: SplitMap) -> _Node | None:
    def build(i: int) -> _Node | None:
        node = _Node(np.asarray(tree.value[i], dtype=float))
        if tree.feature[i] >= 0:
            split = split_map(int(tree.feature[i]), float(tree.threshold[i]))
            if split is None:
                return None
            left, right = build(int(tree.children_left[i])), build(int(tree.children_right[i]))
            if left is None or right is None:
                return None
            node.split, node.left, node.right = split, left, right
        return node

    return build(0)


def _levels(root: _Node, fold: bool) -> list[list]:
    """Per depth, the decision nodes a diagram needs: distinct subtrees (``fold``)
    or every split node (trees without merges)."""
    levels: list[list] = []
    frontier = [root]
    depth = 0
    while frontier:
        nxt = []
        seen = set()
        level = []
        for node in frontier:
            key = _key(node)
            if key[0] == "leaf":
                continue
            node = _simplified(node)
            if fold:
                if key in seen:
                    continue
                seen.add(key)
            level.append((key, node))
            nxt += [node.left, node.right]
        if level:
            levels.append(level)
        frontier = nxt
        depth += 1
    return levels


def _simplified(node: _Node) -> _Node:
    """The first node below ``node`` whose two sides differ (a split whose
    sides agree decides nothing)."""
    while node.split is not None and _key(node.left) == _key(node.right):
        node = node.left
    return node


def _fits(levels: list[list], skeleton: Skeleton, max_nodes: int | None) -> bool:
    if len(levels) > skeleton.depth:
        return False
    if any(len(level) > w for level, w in zip(levels, skeleton.widths)):
        return False
    return max_nodes is None or sum(len(level) for level in levels) <= max_nodes


def _cut_cheapest(root: _Node, levels: list[list], skeleton: Skeleton, max_nodes: int | None) -> bool:
    """Turn one subtree into a leaf: at the deepest level wider than the
    skeleton allows (or, over ``max_nodes``, anywhere), the one whose cut
    adds the fewest errors.  False when nothing can be cut."""
    widths = list(skeleton.widths) + [0] * max(0, len(levels) - skeleton.depth)
    over = [d for d, level in enumerate(levels) if len(level) > widths[d]]
    depths = [over[-1]] if over else range(len(levels))
    best, best_cost = None, np.inf
    for d in depths:
        for _, node in levels[d]:
            cost = node.leaf_errors() - node.errors()
            if cost < best_cost:
                best, best_cost = node, cost
    if best is None:
        return False
    # every copy of the subtree (folded ones share one key) becomes a leaf
    target = _key(best)
    _replace(root, target)
    return True


def _replace(node: _Node, target) -> None:
    if node.split is None:
        return
    if _key(node) == target:
        node.split, node.left, node.right = None, None, None
        return
    _replace(node.left, target)
    _replace(node.right, target)


def _unify_thresholds(root: _Node, X: np.ndarray, margin: float) -> None:
    """Give splits of one tree level that test the same feature, above the
    same subtrees, one threshold wherever one threshold routes every
    training row of each of them as its own does, so that folding takes
    them as one node.  A tree's threshold sits in its node's gap (the
    largest value sent left, the smallest sent right); nodes of one level
    see different rows, so the optimal tree's thresholds for "the same"
    test differ, and folding by equal thresholds missed them (parity of
    four features: a 7-node diagram, cut to an 8-node one with 28 errors).
    Per group, the fewest thresholds stab every gap (gaps sorted by their
    upper end); ``X`` holds the placement's coordinates (ranks, or scaled
    values), ``margin`` the least gap a threshold needs below it."""
    gaps: dict[int, tuple[float, float]] = {}
    levels: list[list[_Node]] = []

    def visit(node: _Node, rows: np.ndarray, depth: int) -> None:
        if node.split is None:
            return
        j, thr = node.split
        right = X[rows, j] >= thr - 1e-7           # as Placement.route sends rows
        lo = float(X[rows[~right], j].max()) if (~right).any() else -np.inf
        hi = float(X[rows[right], j].min()) if right.any() else np.inf
        gaps[id(node)] = (lo, hi)
        while len(levels) <= depth:
            levels.append([])
        levels[depth].append(node)
        visit(node.left, rows[~right], depth + 1)
        visit(node.right, rows[right], depth + 1)

    visit(root, np.arange(len(X)), 0)
    for level in reversed(levels):           # children's keys first: they decide the groups
        groups: dict = {}
        for node in level:
            groups.setdefault((node.split[0], _key(node.left), _key(node.right)), []).append(node)
        for (j, _, _), nodes in groups.items():
            if len(nodes) < 2:
                continue
            nodes.sort(key=lambda nd: gaps[id(nd)][1])
            k = 0
            while k < len(nodes):
                upper = gaps[id(nodes[k])][1]
                cluster = [nd for nd in nodes[k:] if gaps[id(nd)][0] <= upper - margin]
                if np.isfinite(upper):
                    for nd in cluster:
                        nd.split = (j, upper)
                done = {id(nd) for nd in cluster} | {id(nodes[k])}
                nodes[k:] = [nd for nd in nodes[k:] if id(nd) not in done]
                k += 1


def fit_tree(tree: Tree, skeleton: Skeleton, split_map: SplitMap, *, fold: bool = True,
             max_nodes: int | None = None, points: Points | None = None,
             margin: float = 1.0) -> tuple[_Node, list[list], int] | None:
    """(root, nodes per level, subtrees cut) of the tree made to fit the
    skeleton, or None when a split cannot be held.  An empty level list: a
    leaf.  With the training ``points`` (folding), splits of one level that
    one threshold can serve get it (:func:`_unify_thresholds`, ``margin``
    as there)."""
    root = _from_tree(tree, split_map)
    if root is None:
        return None
    if fold and points is not None:
        _unify_thresholds(root, points.X, margin)
    cuts = 0
    while True:
        if _simplified(root).split is None:
            return root, [], cuts
        levels = _levels(root, fold)
        if _fits(levels, skeleton, max_nodes):
            return root, levels, cuts
        if not _cut_cheapest(root, levels, skeleton, max_nodes):
            return None
        cuts += 1


def tree_placement(tree: Tree, skeleton: Skeleton, n_features: int, split_map: SplitMap, *,
                   fold: bool = True, max_nodes: int | None = None, points: Points | None = None,
                   margin: float = 1.0) -> Placement | None:
    """The tree laid on the skeleton (identical subtrees of one level folded
    when ``fold``, their thresholds unified on ``points`` where one serves;
    cut where too wide), or None when a split cannot be held."""
    fitted = fit_tree(tree, skeleton, split_map, fold=fold, max_nodes=max_nodes, points=points, margin=margin)
    if fitted is None:
        return None
    root, levels, _ = fitted
    if not levels:
        return constant_placement(skeleton, n_features, _simplified(root).cls)
    plc = Placement.empty(skeleton, n_features)
    ids: list[dict] = []
    for depth, level in enumerate(levels):
        layer = skeleton.layer_nodes(depth)
        ids.append({id(node) if not fold else key: layer[i] for i, (key, node) in enumerate(level)})

    def target(node: _Node, depth: int) -> int:
        key = _key(node)
        if key[0] == "leaf":
            return skeleton.terminal(key[1])
        node = _simplified(node)
        return ids[depth][key if fold else id(node)]

    for depth, level in enumerate(levels):
        for key, node in level:
            u = ids[depth][key if fold else id(node)]
            j, thr = node.split
            plc.active[u] = True
            plc.coef[u, j] = 1.0
            plc.threshold[u] = thr
            plc.negative[u] = target(node.left, depth + 1)
            plc.positive[u] = target(node.right, depth + 1)
    return plc


# -- merges --------------------------------------------------------------------

def drop_unreachable(plc: Placement, skeleton: Skeleton) -> None:
    """Deactivate non-root nodes that no arc reaches any more."""
    while True:
        deg = plc.in_degree(skeleton)
        orphans = [u for u in np.flatnonzero(plc.active) if u > 0 and deg[u] == 0]
        if not orphans:
            return
        for u in orphans:
            plc.active[u] = False
            plc.negative[u] = plc.positive[u] = -1
            plc.coef[u] = 0.0
            plc.threshold[u] = 0.0


def merged(plc: Placement, skeleton: Skeleton, keep: int, drop: int) -> Placement | None:
    """Every arc into ``drop`` sent to ``keep`` (same layer) instead; None when
    that would give a node two arcs to one target."""
    out = plc.copy()
    out.negative[out.negative == drop] = keep
    out.positive[out.positive == drop] = keep
    if np.any(out.active & (out.negative == out.positive)):
        return None
    out.active[drop] = False
    out.negative[drop] = out.positive[drop] = -1
    out.coef[drop] = 0.0
    out.threshold[drop] = 0.0
    drop_unreachable(out, skeleton)
    return out


def merge_search(plc: Placement, points: Points, skeleton: Skeleton, settings: Settings,
                 feasible: Callable[[Placement], bool], deadline: float | None = None) -> tuple[Placement, float]:
    """Best-improvement local search over merges of two nodes of one layer,
    while the objective falls (each merge saves a node's price; it pays when
    the kept node classifies the other's rows about as well)."""
    best_obj = objective(points, skeleton, plc, settings)[0]
    if settings.tree:
        return plc, best_obj
    while deadline is None or time.perf_counter() < deadline:
        step, step_obj = None, best_obj
        for layer in range(1, skeleton.depth):
            nodes = [u for u in skeleton.layer_nodes(layer) if plc.active[u]]
            for i, u in enumerate(nodes):
                for v in nodes[i + 1:]:
                    for keep, drop in ((u, v), (v, u)):
                        if deadline is not None and time.perf_counter() > deadline:
                            return (step, step_obj) if step is not None else (plc, best_obj)
                        trial = merged(plc, skeleton, keep, drop)
                        if trial is None or not feasible(trial):
                            continue
                        obj = objective(points, skeleton, trial, settings)[0]
                        if obj < step_obj - 1e-12:
                            step, step_obj = trial, obj
        if step is None:
            break
        plc, best_obj = step, step_obj
    return plc, best_obj
