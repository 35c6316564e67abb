"""The SAT loop's compiled steps (``search/sat/_loop.pyx``) against their meaning.

The clauses are checked semantically, not against a copy of the builder:
with the variables set from a tree and an example's true path, every
routing clause holds, and every other path breaks one; the class clauses
hold exactly when the example's leaf predicts its class.
"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from optimaltrees.search.sat._loop import decode_model, misclassified
from optimaltrees.search.sat.encoding import TreeEncoding


def _nested_rows(rng, n: int, chain_lengths: list[int]) -> tuple[np.ndarray, list[np.ndarray]]:
    """0/1 rows whose columns form the given chains (a row is true on the
    first r tests of each chain, r random), and the chains."""
    blocks, chains, col = [], [], 0
    for d in chain_lengths:
        r = rng.integers(0, d + 1, n)
        blocks.append((np.arange(d)[None, :] < r[:, None]).astype(np.uint8))
        chains.append(np.arange(col, col + d))
        col += d
    return np.concatenate(blocks, axis=1), chains


def _path(B_row: np.ndarray, node_feature: np.ndarray, depth: int) -> list[int]:
    q, bits = 1, []
    for _ in range(depth):
        bit = int(B_row[node_feature[q]])
        bits.append(bit)
        q = 2 * q + bit
    return bits


def _assignment(enc: TreeEncoding, node_feature: np.ndarray, chains) -> dict[int, bool]:
    """F and T of the tree whose node q tests column node_feature[q]."""
    truth: dict[int, bool] = {}
    for q in range(1, enc.N):
        for f in range(enc.m):
            truth[int(enc.F[q, f])] = node_feature[q] == f
        for c in chains:
            tested = [j for j, f in enumerate(c) if node_feature[q] == f]
            for j, f in enumerate(c):          # T[q, c[j]]: tests the chain at j or later
                truth[int(enc.T[q, f])] = bool(tested) and tested[0] >= j
    return truth


def _holds(clauses, truth: dict[int, bool]) -> bool:
    return all(any(truth[abs(lit)] == (lit > 0) for lit in clause) for clause in clauses)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10**6), depth=st.integers(1, 3),
       lengths=st.lists(st.integers(1, 5), min_size=1, max_size=3), classes=st.integers(2, 3))
def test_example_clauses_hold_on_the_true_path_only(seed, depth, lengths, classes):
    rng = np.random.default_rng(seed)
    B, chains = _nested_rows(rng, 6, lengths)
    y = rng.integers(0, classes, B.shape[0])
    enc = TreeEncoding(B, y, classes, depth, solver=None, chains=chains)
    node_feature = np.full(enc.N, -1)
    node_feature[1:] = rng.integers(0, enc.m, enc.N - 1)
    leaf_class = rng.integers(0, classes, enc.N)
    truth = _assignment(enc, node_feature, chains)
    for v in range(enc.N):
        for a in range(classes):
            truth[int(enc.C[v, a])] = leaf_class[v] == a
    for i in range(B.shape[0]):
        x0 = enc.new_example_vars()
        routing = enc.routing_clauses(i, x0)
        labels = enc.class_clauses(x0, int(y[i]))
        true_bits = _path(B[i], node_feature, depth)
        for leaf in range(enc.N):
            bits = [(leaf >> (depth - 1 - j)) & 1 for j in range(depth)]
            at = dict(truth)
            at.update({x0 + j: bool(b) for j, b in enumerate(bits)})
            assert _holds(routing, at) == (bits == true_bits)
            if bits == true_bits:
                assert _holds(labels, at) == (leaf_class[leaf] == y[i])
        guarded = enc.class_clauses(x0, int(y[i]), guard=-99)
        assert [c[:-1] for c in guarded] == labels and all(c[-1] == -99 for c in guarded)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10**6), depth=st.integers(0, 4), n=st.integers(0, 30),
       m=st.integers(1, 5))
def test_misclassified_matches_routing_each_row(seed, depth, n, m):
    rng = np.random.default_rng(seed)
    B = rng.integers(0, 2, (n, m)).astype(np.uint8)
    y = rng.integers(0, 3, n).astype(np.int64)
    node_feature = np.full(1 << depth, -1, dtype=np.int64)
    node_feature[1:] = rng.integers(0, m, (1 << depth) - 1)
    leaf_class = rng.integers(-1, 3, 1 << depth).astype(np.int64)
    expected = []
    for i in range(n):
        bits = _path(B[i], node_feature, depth)
        leaf = int("".join(map(str, bits)) or "0", 2)
        if leaf_class[leaf] != y[i]:
            expected.append(i)
    assert misclassified(B, y, node_feature, leaf_class, depth).tolist() == expected


def test_decode_model_reads_the_tree_or_declines():
    """decode_model reads F and C from a model listing variable v at index
    v - 1: the first true feature of a node (0 when none is), -1 for a leaf
    with no class or several; any other layout is declined (None), never
    misread."""
    F = np.zeros((4, 3), dtype=np.int64)
    F[1:] = np.arange(1, 10).reshape(3, 3)
    C = np.arange(10, 18, dtype=np.int64).reshape(4, 2)
    true = {2, 4, 9, 10, 13, 16, 17}      # nodes 1..3 test 1, 0, 2; leaves: 0, 1, none, both
    model = [v if v in true else -v for v in range(1, 20)]
    nodes, leaves = decode_model(model, F, C)
    assert nodes.tolist() == [-1, 1, 0, 2]
    assert leaves.tolist() == [0, 1, -1, -1]
    assert decode_model(model[::-1], F, C) is None
    assert decode_model(model[:10], F, C) is None
    assert decode_model([v for v in model if v > 0], F, C) is None
    no_test = [-v if v == 9 else v for v in model]          # node 3 tests nothing: reads as column 0
    assert decode_model(no_test, F, C)[0].tolist() == [-1, 1, 0, 0]
    # one entry out of place is enough to decline (not only the last variable read)
    assert decode_model(model[:3] + [model[4], model[3]] + model[5:], F, C) is None


@pytest.mark.parametrize("chains", [None, "nested"])
def test_add_examples_is_the_routing_and_class_clauses(chains):
    """add_examples hands the solver each new example's routing and class
    clauses once (an example already in the formula adds nothing)."""
    rng = np.random.default_rng(1)
    B, groups = _nested_rows(rng, 8, [4, 1, 3])
    y = rng.integers(0, 2, 8)
    enc = TreeEncoding(B, y, 2, 2, solver=None, chains=groups if chains else None)
    before = enc.n_clauses
    probe = TreeEncoding(B, y, 2, 2, solver=None, chains=groups if chains else None)
    expected = []
    for i in (3, 5):
        x0 = probe.new_example_vars()
        expected += probe.routing_clauses(i, x0) + probe.class_clauses(x0, int(y[i]))
    enc.add_examples([3, 5, 3])
    enc.add_examples([5])
    assert enc.clauses[before:] == expected and enc.encoded == [3, 5]


def test_the_kernels_refuse_indices_outside_their_arrays():
    """The compiled steps run without bounds checks, so they check their
    indices once at the door: a row outside the formula, or a node testing
    a column that does not exist, raises instead of reading past an array."""
    B = np.array([[0, 1], [1, 0]], dtype=np.uint8)
    enc = TreeEncoding(B, np.array([0, 1]), 2, 2, solver=None)
    for row in (-1, 2):
        with pytest.raises(IndexError, match="not one of the formula's 2 examples"):
            enc.routing_clauses(row, enc.new_example_vars())
    y = np.array([0, 1], dtype=np.int64)
    leaves = np.zeros(4, dtype=np.int64)
    for bad in (-1, 2):
        nodes = np.array([-1, 0, bad, 1], dtype=np.int64)
        with pytest.raises(ValueError, match=f"node 2 tests column {bad}"):
            misclassified(B, y, nodes, leaves, 2)
    with pytest.raises(ValueError, match="shorter"):
        misclassified(B, y, np.array([-1, 0], dtype=np.int64), leaves, 2)


def test_clause_batches_run_with_the_collector_paused_and_restore_it():
    # the formula's big batches (a depth's formula, examples, the leaf bound)
    # build their lists with the collector off, and leave it as they found it
    import gc

    from optimaltrees.search.sat.encoding import clause_batch

    seen = []

    class Recorder:           # stands in for the compiled builder
        def __init__(self, inner):
            self.inner = inner

        def routing(self, out, row, x0):
            seen.append(("routing", gc.isenabled()))
            self.inner.routing(out, row, x0)

        def classes(self, out, x0, a, guard=0):
            self.inner.classes(out, x0, a, guard)

    rng = np.random.default_rng(0)
    B = rng.integers(0, 2, size=(8, 3)).astype(np.uint8)
    y = rng.integers(0, 2, size=8)
    assert gc.isenabled()
    enc = TreeEncoding(B, y, 2, 2)
    enc._builder = Recorder(enc._builder)
    enc.add_examples([0, 1])
    assert seen == [("routing", False), ("routing", False)] and gc.isenabled()
    enc.add_leaf_counter(3)
    assert gc.isenabled()

    @clause_batch
    def build(fail: bool):
        seen.append(("build", gc.isenabled()))
        if fail:
            raise RuntimeError("stop")
        return 7

    seen.clear()
    assert build(False) == 7 and gc.isenabled()
    with pytest.raises(RuntimeError):
        build(True)
    assert gc.isenabled() and seen == [("build", False), ("build", False)]
    gc.disable()
    try:
        build(False)
        assert not gc.isenabled()           # the caller's choice stays
    finally:
        gc.enable()
