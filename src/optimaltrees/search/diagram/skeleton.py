"""The fixed skeleton a diagram is trained on: decision layers of given widths
and one terminal per class.

Node ids follow the paper: the root is 0, layers are numbered consecutively,
terminals get the highest ids (the symmetry-breaking order relies on it).
Every internal node of layer l may point to every node of layer l + 1 and,
through a "long arc", to every terminal; the last layer points to terminals
only.  An arc here is a (tail, head) pair; each exists once per side.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from optimaltrees.data.validation import check_integer

MAX_ARCS = 1_000_000   # a skeleton's arc arrays (and the MILP's per-row arc variables) stay sane


@dataclass(frozen=True)
class Skeleton:
    widths: tuple[int, ...]
    n_classes: int
    layer_start: np.ndarray = field(init=False, repr=False)   # first node id per layer, + end
    arc_tail: np.ndarray = field(init=False, repr=False)
    arc_head: np.ndarray = field(init=False, repr=False)

    def __post_init__(self) -> None:
        starts = np.concatenate([[0], np.cumsum(self.widths)]).astype(np.intp)
        tails, heads = [], []
        n_int = int(starts[-1])
        terminals = np.arange(n_int, n_int + self.n_classes)
        for layer, width in enumerate(self.widths):
            nxt = (np.arange(starts[layer + 1], starts[layer + 2])
                   if layer + 1 < len(self.widths) else np.empty(0, dtype=np.intp))
            succ = np.concatenate([nxt, terminals])
            for u in range(starts[layer], starts[layer + 1]):
                tails.append(np.full(len(succ), u))
                heads.append(succ)
        object.__setattr__(self, "layer_start", starts)
        object.__setattr__(self, "arc_tail", np.concatenate(tails).astype(np.intp))
        object.__setattr__(self, "arc_head", np.concatenate(heads).astype(np.intp))

    @property
    def depth(self) -> int:
        return len(self.widths)

    @property
    def n_internal(self) -> int:
        return int(self.layer_start[-1])

    @property
    def n_arcs(self) -> int:
        return len(self.arc_tail)

    def terminal(self, c: int) -> int:
        return self.n_internal + c

    def layer_nodes(self, layer: int) -> range:
        return range(int(self.layer_start[layer]), int(self.layer_start[layer + 1]))

    def layer_of(self, node: int) -> int:
        return int(np.searchsorted(self.layer_start, node, side="right") - 1)

    def arcs_out(self, u: int) -> np.ndarray:
        return np.flatnonzero(self.arc_tail == u)

    def arcs_in(self, v: int) -> np.ndarray:
        return np.flatnonzero(self.arc_head == v)

    def arc(self, u: int, v: int) -> int:
        hit = np.flatnonzero((self.arc_tail == u) & (self.arc_head == v))
        if len(hit) != 1:
            raise KeyError(f"the skeleton has no arc {u} -> {v}")
        return int(hit[0])


def make_skeleton(widths, n_classes: int) -> Skeleton:
    """A validated :class:`Skeleton`; errors name what is wrong with ``widths``."""
    if isinstance(widths, (str, bytes)) or not hasattr(widths, "__len__"):
        raise TypeError(f"skeleton must be a sequence of layer widths such as (1, 2, 4, 8), got {widths!r}")
    widths = tuple(widths)
    if not widths:
        raise ValueError("skeleton must have at least one decision layer, e.g. (1,) or (1, 2, 4)")
    for i, w in enumerate(widths):
        check_integer(f"skeleton[{i}]", w, low=1)
    if widths[0] != 1:
        raise ValueError(f"skeleton must start with the root layer of width 1, got {widths}")
    for i in range(1, len(widths)):
        if widths[i] > 2 * widths[i - 1]:
            raise ValueError(f"skeleton layer {i} has width {widths[i]}, but the {widths[i - 1]} node(s) "
                             f"of layer {i - 1} have only {2 * widths[i - 1]} arcs to reach it")
    if n_classes < 2:
        raise ValueError("a decision diagram needs at least two classes in y")
    arcs = count_arcs(widths, n_classes)
    if arcs > MAX_ARCS:
        raise ValueError(f"the skeleton {widths} with {n_classes} classes has {arcs:,} arcs (every node "
                         f"reaches every class and the next layer), more than the {MAX_ARCS:,} a diagram "
                         "MILP can hold: use fewer classes or a smaller skeleton")
    return Skeleton(tuple(int(w) for w in widths), int(n_classes))


def count_arcs(widths, n_classes: int) -> int:
    """Arcs of a skeleton, counted without building it (Python ints: no overflow)."""
    widths = [int(w) for w in widths]
    nxt = widths[1:] + [0]
    return sum(w * (v + int(n_classes)) for w, v in zip(widths, nxt))


@dataclass
class Placement:
    """A diagram laid on a skeleton: per skeleton node, whether it is used,
    its hyperplane and its two arc targets (skeleton ids; terminals last).
    The currency between the heuristic, the MILP's start and its answer."""

    active: np.ndarray       # (n_internal,) bool
    coef: np.ndarray         # (n_internal, d)
    threshold: np.ndarray    # (n_internal,)
    negative: np.ndarray     # (n_internal,) int, -1 when inactive
    positive: np.ndarray

    @classmethod
    def empty(cls, skeleton: Skeleton, n_features: int) -> "Placement":
        m = skeleton.n_internal
        return cls(np.zeros(m, dtype=bool), np.zeros((m, n_features)), np.zeros(m),
                   np.full(m, -1, dtype=np.intp), np.full(m, -1, dtype=np.intp))

    def copy(self) -> "Placement":
        return Placement(self.active.copy(), self.coef.copy(), self.threshold.copy(),
                         self.negative.copy(), self.positive.copy())

    def route(self, skeleton: Skeleton, Xs: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(terminal class, path (n, depth) of skeleton nodes or -1, side per layer) of each row.
        Training rows never fall inside the epsilon band, so sides are exact."""
        n, D = Xs.shape[0], skeleton.depth
        path = np.full((n, D), -1, dtype=np.intp)
        sides = np.zeros((n, D), dtype=bool)
        node = np.zeros(n, dtype=np.intp)
        live = np.arange(n)
        for layer in range(D):
            if not live.size:
                break
            u = node[live]
            pos = np.einsum("ij,ij->i", self.coef[u], Xs[live]) >= self.threshold[u] - 1e-7
            path[live, layer], sides[live, layer] = u, pos
            node[live] = np.where(pos, self.positive[u], self.negative[u])
            live = live[node[live] < skeleton.n_internal]
        return node - skeleton.n_internal, path, sides

    def in_degree(self, skeleton: Skeleton) -> np.ndarray:
        heads = np.concatenate([self.negative[self.active], self.positive[self.active]])
        heads = heads[(heads >= 0) & (heads < skeleton.n_internal)]
        return np.bincount(heads, minlength=skeleton.n_internal)

    def canonical(self, skeleton: Skeleton, epsilon: float, flip: bool = True) -> "Placement":
        """The same diagram under the MILP's symmetry breaking: in each layer
        the nodes sorted by non-increasing in-degree (12), and (with ``flip``,
        for multivariate splits) every node's negative target before its
        positive one (11), by flipping its hyperplane (a, b) -> (-a, epsilon - b),
        which swaps the two sides."""
        out = self.copy()
        for layer in range(1, skeleton.depth):
            ids = np.asarray(skeleton.layer_nodes(layer))
            deg = out.in_degree(skeleton)[ids] + out.active[ids]   # active before inactive on ties
            perm = ids[np.argsort(-deg, kind="stable")]             # new position k holds old perm[k]
            if np.array_equal(perm, ids):
                continue
            relabel = np.arange(skeleton.n_internal + skeleton.n_classes)
            relabel[perm] = ids
            for arr in (out.active, out.coef, out.threshold, out.negative, out.positive):
                arr[ids] = arr[perm].copy()
            for arr in (out.negative, out.positive):
                ok = arr >= 0
                arr[ok] = relabel[arr[ok]]
        for u in np.flatnonzero(out.active) if flip else ():
            if out.negative[u] > out.positive[u]:
                out.negative[u], out.positive[u] = out.positive[u], out.negative[u]
                out.coef[u] = -out.coef[u]
                out.threshold[u] = epsilon - out.threshold[u]
        return out

    def to_model(self, skeleton: Skeleton, offset: np.ndarray, scale: np.ndarray, epsilon: float):
        """The compact :class:`~optimaltrees.model.diagram.DecisionDiagram` of the used nodes."""
        from optimaltrees.model.diagram import DecisionDiagram

        used = np.flatnonzero(self.active)
        m = len(used)
        new_id = np.full(skeleton.n_internal + skeleton.n_classes, -1, dtype=np.intp)
        new_id[used] = np.arange(m)
        new_id[skeleton.n_internal:] = m + np.arange(skeleton.n_classes)
        layers = np.array([skeleton.layer_of(u) for u in used], dtype=np.intp)
        return DecisionDiagram(self.coef[used].copy(), self.threshold[used].copy(),
                               new_id[self.negative[used]], new_id[self.positive[used]], layers,
                               skeleton.n_classes, np.asarray(offset, float), np.asarray(scale, float),
                               float(epsilon))


def constant_placement(skeleton: Skeleton, n_features: int, cls: int) -> Placement:
    """The root sends every row to its positive side, to class ``cls`` (feature
    0 >= 0 holds for ranks and for features scaled to [0, 1])."""
    plc = Placement.empty(skeleton, n_features)
    plc.active[0] = True
    plc.coef[0, 0], plc.threshold[0] = 1.0, 0.0
    plc.positive[0] = skeleton.terminal(cls)
    plc.negative[0] = skeleton.terminal(1 if cls == 0 else 0)
    return plc
