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
again elsewhere, and it is not offered the value it published itself, so
it finds its own tree again (the engine is deterministic): the answer does
not change.  Every task ends at the fit's deadline (a wall-clock time, so
that waiting in the queue counts); past it the fit asks the tasks still
running to stop (the shared value becomes a stop request), keeps what they
return, and counts the others as stopped with the fit's known bound.  Ctrl-C
does the same.  Nothing here manages processes or sockets; Dask's own
connection to a scheduler, which takes no deadline, is waited for in a
thread up to the fit's limit (:func:`_in_background`).
"""
from __future__ import annotations

import math
import re
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
    memory_out: bool = False   # its memory limit stopped it


#: owner tags of the cluster's best objective (a Variable holding [value, owner]):
#: the caller's starting bound, and the request that every share stop now
FROM_CALLER, STOP = -1, -2


#: a scheduler address: an optional protocol, a host and a port ("tcp://10.0.0.5:8786")
_ADDRESS = re.compile(r"^(?:[a-z][a-z0-9+.-]*://)?[^\s/:]+:\d{1,5}$")


def check_cluster(cluster) -> None:
    """Refuse a ``cluster`` that cannot be one before any work (and before a
    ``Client`` is built from it: a Client of a malformed address can hang
    the interpreter at exit)."""
    if cluster is None or (isinstance(cluster, str) and cluster == "local"):
        return
    if isinstance(cluster, str):
        if not _ADDRESS.match(cluster):
            raise ValueError(f"cluster={cluster!r} is not a scheduler address (protocol://host:port, "
                             "e.g. 'tcp://10.0.0.5:8786') nor 'local'")
        return
    distributed = require("dask.distributed", "bench", "a search on a Dask cluster")
    if not isinstance(cluster, distributed.Client):
        raise ValueError(f"cluster must be a dask.distributed.Client, a scheduler address or 'local', "
                         f"got {type(cluster).__name__} {cluster!r}"[:300])
    if cluster.status not in ("running", "connecting", "newly-created"):
        raise ValueError(f"cluster: the Client is {cluster.status}, not running")


class _Late(Exception):
    """What :func:`_in_background` waited for did not finish in time."""


def _close_client(client) -> None:
    """Close a Client and the cluster it started (a local one)."""
    cluster = getattr(client, "cluster", None)
    client.close()
    if cluster is not None:
        cluster.close()


def _in_background(make, seconds: float | None, discard):
    """``make()`` in a daemon thread, waited for ``seconds`` (None: as long as
    it takes): Dask's connection to a scheduler takes no deadline (a port that
    accepts and never answers holds it open).  Raises :class:`_Late` when it
    has not finished; what it makes after that (or after Ctrl-C) is
    ``discard``-ed by the thread itself.  (A thread whose ``make`` never
    returns stays, with its socket, until the process ends.)"""
    import threading

    box: dict = {}
    lock = threading.Lock()
    done = threading.Event()

    def run() -> None:
        try:
            value, error = make(), None
        except BaseException as exc:            # (raised in the caller's thread below)
            value, error = None, exc
        with lock:
            box.update(value=value, error=error)
            late = box.get("abandoned", False)
            done.set()
        if late and error is None:
            try:
                discard(value)
            except Exception:
                pass

    threading.Thread(target=run, daemon=True, name="optimaltrees-dask-connect").start()
    try:
        done.wait(seconds)
        with lock:
            if not done.is_set():
                box["abandoned"] = True
                raise _Late
        if box["error"] is not None:
            raise box["error"]
        return box["value"]
    except _Late:
        raise
    except BaseException:                       # Ctrl-C while waiting, or make's own error
        with lock:
            box["abandoned"] = True
            made = done.is_set() and box["error"] is None
        if made:
            discard(box["value"])
        raise


def client_for(cluster, timeout: float | None = None) -> tuple[object, bool]:
    """A ``distributed.Client`` for ``cluster``: a Client as given, a
    scheduler address (connected within ``timeout`` seconds, at least 1 s),
    or "local" for a new ``LocalCluster``; the caller closes it when the
    second value is True."""
    check_cluster(cluster)
    distributed = require("dask.distributed", "bench", "a search on a Dask cluster")
    if isinstance(cluster, distributed.Client):
        return cluster, False
    if cluster == "local":
        # a daemonic process (a multiprocessing pool's worker) may not start
        # worker processes: the local cluster's workers are then threads
        import multiprocessing

        processes = not multiprocessing.current_process().daemon
        return distributed.Client(distributed.LocalCluster(n_workers=2, threads_per_worker=1,
                                                           processes=processes, dashboard_address=None,
                                                           scheduler_kwargs={"dashboard": False})), True
    wait = 30.0 if timeout is None else max(1.0, min(30.0, timeout))
    try:
        # (not the default Client: one made in a thread and closed there must not
        # leave dask's global scheduler setting pointing at it)
        return _in_background(lambda: distributed.Client(cluster, timeout=wait, set_as_default=False),
                              wait + 0.25, _close_client), True
    except _Late:
        raise ConnectionError(f"cluster={cluster!r}: no Dask scheduler answered within {wait:.0f} s "
                              "(something holds the connection open)") from None
    except OSError as exc:
        raise ConnectionError(f"cluster={cluster!r}: no Dask scheduler answered within {wait:.0f} s "
                              f"({exc})") from None
    except Exception as exc:         # something answered, but not a Dask scheduler
        raise ConnectionError(f"cluster={cluster!r}: what answered there is not a Dask scheduler "
                              f"({type(exc).__name__}: {str(exc)[:120]})") from None


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
                deadline: float, known_lb: float, sync_every: float, share_id: int = 0) -> ShareResult:
    """One Dask task: the search of one root share until ``deadline`` (a
    ``time.time()``, so that a task that waited in the queue, or a cluster
    that took its time to start, still ends with the fit), pruning against
    the cluster's best objective (read and offered every ``sync_every`` s).
    A value this share published itself is not offered back to it: a share
    run again after its worker died must find its own tree again (pruned
    against its own earlier value, it would lose it and the fit would
    return a worse tree)."""
    from distributed import Lock, Variable

    from optimaltrees.search.engine import SharedRoot, build_for

    engine = build_for(data["order"], data["rank"], data, data["depth"],
                       cost=data["cost"], gap=data["gap"], min_leaf=data["min_leaf"],
                       memory_limit_mb=data["memory_limit_mb"], weights=data["weights"])
    shared = SharedRoot()           # carries the cluster's best objective into the engine
    engine.share_root_with(shared)
    engine.restrict_root(features)
    best, lock = Variable(best_name), Lock(lock_name)

    def read() -> tuple[float, int]:
        try:
            value, owner = best.get(timeout=max(10.0, 4 * sync_every))
            return float(value), int(owner)
        except Exception:            # gone or unreachable: the fit has ended
            return -math.inf, STOP

    def publish(value: float) -> None:
        with lock:
            current, owner = read()
            if owner != STOP and value < current:
                best.set([value, share_id])

    def sync() -> None:
        value, owner = read()
        if owner == STOP:
            shared.stop()
        elif owner != share_id:
            shared.offer(value)

    def hook(val, tree):
        if val is not None:
            publish(val)
        else:
            sync()
        return True

    sync()
    engine.set_hook(hook, sync_every)
    out = engine.solve(max(deadline - time.time(), 1e-9), known_lb)
    pool, root = _compact(engine.tree_arrays(), max(out.root, 0))
    return ShareResult(out.objective, out.lower_bound, out.aborted, pool, root,
                       int(engine.stats["subproblems"]), bool(engine.memory_out))


#: seconds the fit waits past its deadline for the shares (which stop at it
#: themselves) before it asks them to stop and returns what it has
GRACE = 0.5


def solve_on_dask(cluster, data: dict, *, deadline: float, known_lb: float, upper_bound: float,
                  sync_every: float = 0.5, on_progress=None,
                  progress_every: float = 0.5) -> tuple[list[ShareResult], bool]:
    """Every root share of the search described by ``data`` (the encoded
    problem and the engine's parameters), one Dask task each, with the
    cluster's best objective starting at ``upper_bound``, all ending at
    ``deadline`` (``time.time()``; inf: none).  Returns the shares' results
    and whether Ctrl-C stopped them.  A share that has not answered by the
    deadline (plus :data:`GRACE`) - a cluster without workers, workers busy
    with other work - is asked to stop and counts as stopped with no tree
    and the bound ``known_lb``; the answer is the best share, the bound the
    least of the shares'.  With depth < 3 the search is one task.
    ``on_progress(best)`` (optional) is called every ``progress_every`` s
    with the cluster's best objective; returning False stops the shares
    (they return their best trees, as at the deadline)."""
    distributed = require("dask.distributed", "bench", "a search on a Dask cluster")
    client, owned = client_for(cluster, None if not math.isfinite(deadline) else deadline - time.time())
    try:
        tag = uuid.uuid4().hex
        best = distributed.Variable(f"optimaltrees-best-{tag}", client=client)
        best.set([float(upper_bound) if math.isfinite(upper_bound) else math.inf, FROM_CALLER])
        p = data["order"].shape[0]
        shares = [[f] for f in range(p)] if data["depth"] >= 3 and p > 1 else [None]
        # one object (a dict would scatter by key), a key of its own (not shared with an earlier fit)
        empty = np.zeros((5, 1), dtype=np.int32)
        nothing = ShareResult(math.inf, known_lb, True, empty, -1, 0)     # a share with no answer
        try:     # (a scheduler without workers would wait for one)
            left = None if not math.isfinite(deadline) else max(deadline - time.time(), 0.1)
            data_future = client.scatter([data], broadcast=True, hash=False, timeout=left)[0]
        except (TimeoutError, distributed.TimeoutError):
            best.delete()
            return [nothing], False
        lock_name = f"optimaltrees-lock-{tag}"
        futures = [client.submit(solve_share, data_future, share, best.name, lock_name,
                                 deadline, known_lb, sync_every, k, pure=False,
                                 key=f"optimaltrees-share-{tag}-{k}")
                   for k, share in enumerate(shares)]
        interrupted = stopped = complete = False
        try:
            while on_progress is not None and not all(f.done() for f in futures):
                left = deadline + GRACE - time.time()
                if left <= 0:
                    raise TimeoutError
                try:
                    distributed.wait(futures, timeout=min(progress_every, left))
                except (TimeoutError, distributed.TimeoutError):
                    pass
                value, owner = best.get(timeout=10)
                if owner != STOP and on_progress(float(value)) is False:
                    raise _Stopped
            # each share stops at the deadline itself; a share whose worker died
            # is run again by Dask, and its result waited for, within the deadline
            results = []
            for f in futures:
                left = None if not math.isfinite(deadline) else max(deadline + GRACE - time.time(), 0.1)
                results.append(f.result(timeout=left))
            complete = True
        except _Stopped:
            stopped = True          # the caller's callback asked to stop
        except KeyboardInterrupt:
            interrupted = stopped = True
        except (TimeoutError, distributed.TimeoutError):
            stopped = True          # no answer by the deadline: stopped below
        finally:
            if not complete:        # (a share's own error too: the others stop)
                best.set([-math.inf, STOP])
            if stopped:
                # every share still running returns its best tree within
                # sync_every once asked to stop: keep what they return
                try:
                    distributed.wait(futures, timeout=2 * sync_every)
                except (Exception, KeyboardInterrupt):
                    pass
                results = [_result_or_none(f) for f in futures]
            client.cancel(futures)
            if all(f.done() for f in futures):       # (a running share still reads them)
                best.delete()
                with client.as_current():
                    distributed.Lock(lock_name).close()
        return [r if r is not None else nothing for r in results], interrupted
    finally:
        if owned:
            _close_client(client)


class _Stopped(Exception):
    """The caller's progress callback asked the shares to stop."""


def _result_or_none(future) -> ShareResult | None:
    """A finished share's result (None: not finished, failed or lost)."""
    if future.status != "finished":
        return None
    try:
        return future.result(timeout=5)
    except Exception:
        return None
