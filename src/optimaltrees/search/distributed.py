"""One exhaustive tree search spread over a Dask cluster.

The root's features are shared out, one Dask task per feature: each task
builds the compiled engine on the (scattered) encoded data, restricted to
splitting the root on its feature, and searches that share exactly.  The
tasks prune against each other's best tree: a ``distributed.Variable``
holds the best objective found so far (updated under a
``distributed.Lock``), and every task reads it every ``sync_every`` seconds
through the engine's progress hook.  The answer is the best share's tree;
the proven bound is the least of the shares' bounds, so it certifies the
same optimum as one engine would.

Dask's own scheduler survives worker loss: a task whose worker dies is run
again elsewhere (the engine is deterministic, so the answer does not
change).  Nothing here manages processes or sockets.
"""
from __future__ import annotations

import math
import time
import uuid
from dataclasses import dataclass

import numpy as np

from optimaltrees._optional import require


@dataclass
class ShareResult:
    """What one root share's search proved (its tree as a compact pool)."""

    objective: float
    lower_bound: float
    aborted: bool
    pool: np.ndarray        # (5, m) int32: feature, lo, hi, left, right; node 0 the leaf
    root: int
    subproblems: int


def client_for(cluster) -> tuple[object, bool]:
    """A ``distributed.Client`` for ``cluster``: a Client as given, a
    scheduler address, or "local" for a new ``LocalCluster`` (closed by the
    caller when the second value is True)."""
    distributed = require("dask.distributed", "bench", "a search on a Dask cluster")
    if isinstance(cluster, distributed.Client):
        return cluster, False
    if cluster == "local":
        return distributed.Client(distributed.LocalCluster(n_workers=2, threads_per_worker=1,
                                                           dashboard_address=None)), True
    if isinstance(cluster, str) and cluster:
        return distributed.Client(cluster), True
    raise ValueError(f"cluster must be a dask.distributed.Client, a scheduler address or 'local', "
                     f"got {cluster!r}")


def _compact(pool: np.ndarray, root: int) -> tuple[np.ndarray, int]:
    """The subtree at ``root`` of an engine's node pool, renumbered (node 0
    stays the shared leaf): a task sends back its tree, not its whole pool."""
    if root <= 0:
        return pool[:, :1].copy(), 0
    index, stack = {0: 0}, [root]          # old node -> new node, the leaf stays 0
    while stack:
        node = stack.pop()
        if node > 0 and node not in index:
            index[node] = len(index)
            stack += [int(pool[3, node]), int(pool[4, node])]
    out = np.zeros((5, len(index)), dtype=np.int32)
    out[:, 0] = pool[:, 0]
    for old, new in index.items():
        if old:
            out[:3, new] = pool[:3, old]
            out[3, new] = index[int(pool[3, old])] if pool[3, old] >= 0 else -1
            out[4, new] = index[int(pool[4, old])] if pool[4, old] >= 0 else -1
    return out, index[root]


def solve_share(data: dict, features: list[int] | None, best_name: str, lock_name: str,
                time_limit: float, known_lb: float, sync_every: float) -> ShareResult:
    """One Dask task: the search of one root share, pruning against the
    cluster's best objective (read and offered every ``sync_every`` s)."""
    from distributed import Lock, Variable

    from optimaltrees.search.engine import SharedRoot, build_engine

    engine = build_engine(data["order"], data["rank"], data["y"], data["n_classes"], data["depth"],
                          cost=data["cost"], gap=data["gap"], min_leaf=data["min_leaf"],
                          memory_limit_mb=data["memory_limit_mb"], weights=data["weights"])
    shared = SharedRoot()           # carries the cluster's best objective into the engine
    engine.share_root_with(shared)
    engine.restrict_root(features)
    best, lock = Variable(best_name), Lock(lock_name)

    def publish(value: float) -> None:
        with lock:
            if value < best.get():
                best.set(value)

    def hook(val, tree):
        if val is not None:
            publish(val)
        else:
            shared.offer(best.get())
        return True

    shared.offer(best.get())
    engine.set_hook(hook, sync_every)
    out = engine.solve(time_limit, known_lb)
    pool, root = _compact(engine.tree_arrays(), max(out.root, 0))
    return ShareResult(out.objective, out.lower_bound, out.aborted, pool, root,
                       int(engine.stats["subproblems"]))


def solve_on_dask(cluster, data: dict, *, time_limit: float, known_lb: float, upper_bound: float,
                  sync_every: float = 0.5) -> list[ShareResult]:
    """Every root share of the search described by ``data`` (the encoded
    problem and the engine's parameters), one Dask task each, with the
    cluster's best objective starting at ``upper_bound``.  The answer is the
    best share; the bound the least of the shares'.  With depth < 3 the
    search is one task (shallow searches take seconds)."""
    distributed = require("dask.distributed", "bench", "a search on a Dask cluster")
    client, owned = client_for(cluster)
    try:
        tag = uuid.uuid4().hex
        best = distributed.Variable(f"optimaltrees-best-{tag}", client=client)
        best.set(float(upper_bound) if math.isfinite(upper_bound) else math.inf)
        p = data["order"].shape[0]
        shares = [[f] for f in range(p)] if data["depth"] >= 3 and p > 1 else [None]
        # one object (a dict would scatter by key), a key of its own (not shared with an earlier fit)
        data_future = client.scatter([data], broadcast=True, hash=False)[0]
        start = time.perf_counter()
        futures = [client.submit(solve_share, data_future, share, best.name, f"optimaltrees-lock-{tag}",
                                 time_limit, known_lb, sync_every, pure=False,
                                 key=f"optimaltrees-share-{tag}-{k}")
                   for k, share in enumerate(shares)]
        try:
            # each task stops at the limit itself; the wait only guards a stuck cluster
            wait = None if not math.isfinite(time_limit) else time_limit + 60.0
            results = client.gather(futures, errors="raise") if wait is None else [
                f.result(timeout=max(wait - (time.perf_counter() - start), 1.0)) for f in futures]
        finally:
            client.cancel(futures)
            best.delete()
        return results
    finally:
        if owned:
            cluster_obj = getattr(client, "cluster", None)
            client.close()
            if cluster_obj is not None:
                cluster_obj.close()
