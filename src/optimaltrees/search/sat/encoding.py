"""Avellaneda's CNF of a perfect decision tree of depth k (AAAI 2020).

Nodes are numbered in heap order: internal nodes 1..N-1 (N = 2^k), children
of q are 2q (left, test false) and 2q+1 (right, test true), leaf v is heap
node N + v.  The variables (see ``../shared/papers/notes/satdepth.md``):

* ``F[q, f]``   internal node q tests Boolean feature f;
* ``C[v, a]``   leaf v predicts class a;
* ``X[i, j]``   example i goes right at depth j (its k bits spell its leaf);
* ``U[v]``      leaf v is labelled (only for the size bound);
* ``T[q, f]``   for tests in a chain (a numeric column's thresholds, in
  order): q tests that chain at f's position or later.  Routing is stated on
  these, two clauses per (node, column) instead of one per (node, threshold);
  without chains, T is F and the clauses are the paper's.

Clause families (1)-(6) of the paper are added per node once and per example
when the example joins the formula; the size bound (7)-(10) is a leaf counter
whose limit is a solver *assumption*, so one solver instance serves every
bound of the size search.  Per-example clauses are built in C
(:mod:`._loop`) and handed to the solver in one call.
"""
from __future__ import annotations

import functools
import gc
from itertools import repeat

import numpy as np
from pysat.card import ITotalizer
from pysat.formula import IDPool
from pysat.solvers import Solver, SolverNames

from optimaltrees.search.sat._loop import ExampleClauses, decode_model
from optimaltrees.search.sat.worker import solve_within

#: CaDiCaL options for this use: its "lucky" phase tries constant assignments
#: over the whole formula at the start of *every* call, and the loop makes
#: about a thousand incremental calls on formulas of millions of clauses, so
#: that phase would take most of the time
CADICAL_OPTIONS = {"lucky": 0}
#: Glucose in its incremental mode (Audemard, Lagniez and Simon, SAT 2013:
#: assumption literals left out of the clause quality, LBD, that decides which
#: learnt clauses are kept) for DT-size fits, from their first call: their
#: leaf bound and repairs are assumptions, the case that mode is made for (it
#: roughly halves balance-scale's DT-size; switched on only when the leaf bound
#: arrives, the clauses learnt before it slow the search down instead).  Not
#: for DT-depth alone, whose calls run several times slower in it
INCREMENTAL_MODE_SOLVERS = frozenset(
    getattr(SolverNames, "glucose3", ()) + getattr(SolverNames, "glucose4", ())
    + getattr(SolverNames, "glucose42", ()))
#: pairwise at-most-one up to this many features, a sequential counter beyond
PAIRWISE_AMO_MAX = 32
CARDINALITIES = ("counter", "totalizer")
#: pairwise symmetry breaking (m^2/2 clauses a node) up to this many features,
#: an equivalent chain of 3m clauses beyond (30,000 tests: 450M clauses -> 90k)
PAIRWISE_SYMMETRY_MAX = 64
#: formula size caps, in clauses: beyond them the formula would not fit in
#: memory (about 230 bytes a clause as Python lists for MaxSAT, and tens of
#: bytes inside a SAT solver) or take minutes only to build (~1M clauses/s)
MAX_LISTED_CLAUSES = 10_000_000
#: the leaf bound's symmetry breaking adds a clause per (node, feature); above
#: this many it is left out (it only speeds the search up)
MAX_CANONICAL_CLAUSES = 2_000_000
MAX_SOLVER_CLAUSES = 50_000_000


class FormulaTooLargeError(ValueError):
    """The SAT/MaxSAT formula would exceed its size cap: refused, not built."""


def too_large_message(clauses: int, cap: int, depth: int, m: int, rows: int) -> str:
    return (f"the SAT formula would have about {clauses:,} clauses at depth {depth} "
            f"({m:,} Boolean tests x {rows:,} distinct examples), over the cap of {cap:,}; "
            "reduce the number of distinct values (e.g. round or bin numeric columns), the "
            "rows or max_depth, or use OptimalTreeClassifier, which handles thresholds natively")


def estimate_clauses(m: int, depth: int, n_classes: int, rows: int, groups: int | None = None,
                     chains: list[np.ndarray] | None = None) -> int:
    """Clauses of the depth-``depth`` formula with ``rows`` examples (and
    ``groups`` class blocks, default one a row), without building it (at most
    that many with ``chains``: see :meth:`TreeEncoding._chain_clauses`)."""
    N = 1 << depth
    sizes = [1] * m if chains is None else [len(c) for c in chains]
    heads = len(sizes)
    chained = sum(d for d in sizes if d > 1)
    node = (N - 1) * (heads * (heads - 1) // 2 + 1 if heads <= PAIRWISE_AMO_MAX else 3 * heads)
    node += (N - 1) * 4 * chained
    sym = max(N // 2 - 1, 0) * (m * (m - 1) // 2 if m <= PAIRWISE_SYMMETRY_MAX else 3 * m)
    per_row = (N - 1) * sum(2 if d > 1 else 1 for d in sizes)
    return node + sym + rows * per_row + (rows if groups is None else groups) * N * n_classes


def available_solvers() -> list[str]:
    return sorted(n for n in vars(SolverNames) if not n.startswith("_"))


def check_solver_name(name) -> None:
    if not isinstance(name, str) or name not in available_solvers():
        raise ValueError(f"unknown SAT solver {name!r}; python-sat offers {available_solvers()}")


def _new_solver(name: str, incremental: bool = False) -> Solver:
    incremental = incremental and name in INCREMENTAL_MODE_SOLVERS
    solver = Solver(name=name, incr=True) if incremental else Solver(name=name)
    configure = getattr(solver.solver, "configure", None)
    if configure is not None and name.startswith("cadical"):
        configure(CADICAL_OPTIONS)
    return solver


#: python-sat's compiled clause adders, by solver class: (function in
#: ``pysolvers``, attribute holding the solver handle).  python-sat's own
#: ``append_formula`` spends two Python calls a clause; calling the compiled
#: adder directly halves the time to add clauses, which is most of a pure-SAT
#: fit on small data sets.
_COMPILED_ADDERS = {
    "Minisat22": ("minisat22_add_cl", "minisat"), "Glucose3": ("glucose3_add_cl", "glucose"),
    "Glucose4": ("glucose41_add_cl", "glucose"), "Glucose42": ("glucose421_add_cl", "glucose"),
    "Cadical153": ("cadical153_add_cl", "cadical"), "Cadical195": ("cadical195_add_cl", "cadical"),
    "MapleChrono": ("maplechrono_add_cl", "maplesat"), "MapleCM": ("maplecm_add_cl", "maplesat"),
    "Maplesat": ("maplesat_add_cl", "maplesat"), "Mergesat3": ("mergesat3_add_cl", "mergesat"),
}


def clause_adder(solver: Solver):
    """A function adding a list of clauses to ``solver``: python-sat's compiled
    adder called directly where this python-sat has it (the solver's
    ``status`` kept as its own ``add_clause`` keeps it), else ``append_formula``."""
    inner = solver.solver
    entry = _COMPILED_ADDERS.get(type(inner).__name__)
    try:
        import pysolvers
        add = getattr(pysolvers, entry[0]) if entry else None
        handle = getattr(inner, entry[1]) if entry else None
    except (ImportError, AttributeError):
        add = handle = None
    if add is None or handle is None:
        return solver.append_formula

    def add_all(clauses) -> None:
        # map keeps the loop in C; it stops at a level-0 conflict, after which
        # the solver is unsatisfiable whatever else is added
        if not all(map(add, repeat(handle), clauses)):
            inner.status = False
    return add_all


def clause_batch(method):
    """Run ``method`` with Python's cyclic garbage collector paused.

    Why: a batch of clauses is thousands of small lists that live until
    python-sat copies them.  Soon after the imports of a fresh process, such a
    batch made the collector scan every object of the process (a full
    collection over about 120,000 objects: 60 ms of the 0.2 s DT-depth fit on
    a monks-2 fold).  The lists hold only ints, so they cannot form cycles,
    and they are freed before the collector runs again.  A collector that the
    caller switched off stays off."""
    @functools.wraps(method)
    def paused(*args, **kwargs):
        if not gc.isenabled():
            return method(*args, **kwargs)
        gc.disable()
        try:
            return method(*args, **kwargs)
        finally:
            gc.enable()
    return paused


class TreeEncoding:
    """The growing formula for one depth k, on one incremental solver.

    ``B`` is the (n, m) 0/1 matrix of the examples, ``y`` their class indices
    (0..c-1); examples are added by row index with :meth:`add_examples`.
    With ``solver=None`` the clauses are collected in :attr:`clauses` instead
    (the MaxSAT formulation builds its hard part that way).  ``incremental``:
    Glucose in its incremental mode (see INCREMENTAL_MODE_SOLVERS).
    """

    @clause_batch
    def __init__(self, B: np.ndarray, y: np.ndarray, n_classes: int, depth: int,
                 solver: str | None = "glucose4", chains: list[np.ndarray] | None = None,
                 incremental: bool = False) -> None:
        if depth < 1:
            raise ValueError("the SAT encoding needs depth >= 1")
        self.B = np.ascontiguousarray(B, dtype=np.uint8)     # rows cast to int64 when encoded
        self.y = np.asarray(y, dtype=np.int64)
        self.k = depth
        self.N = 1 << depth
        self.m = self.B.shape[1]
        self.c = n_classes
        self.pool = IDPool()
        self.solver = _new_solver(solver, incremental) if solver is not None else None
        self._append = clause_adder(self.solver) if solver is not None else None
        self.clauses: list[list[int]] = []
        self.n_clauses = 0
        self.max_clauses = MAX_SOLVER_CLAUSES if solver is not None else MAX_LISTED_CLAUSES
        self.encoded: list[int] = []
        self.is_encoded = np.zeros(self.B.shape[0], dtype=bool)
        # F[q, f] for q in 1..N-1 (row 0 unused), C[v, a]
        self.F = np.zeros((self.N, self.m), dtype=np.int64)
        self.F[1:] = self.new_vars((self.N - 1, self.m))
        self.C = self.new_vars((self.N, self.c))
        self._chain_clauses(chains)
        self._builder = ExampleClauses(self.B, self.chain_cols, self.chain_start, self.chain_len,
                                       self.T, self.C, depth)
        self._node_clauses()
        self._symmetry_clauses()
        self.counter_bound_lits: dict[int, int] | None = None
        self.max_leaves_encoded = 0

    # -- clause plumbing -----------------------------------------------------
    def _add(self, clauses) -> None:
        if self.n_clauses + len(clauses) > self.max_clauses:
            raise FormulaTooLargeError(too_large_message(
                self.n_clauses + len(clauses), self.max_clauses, self.k, self.m, len(self.encoded)))
        if isinstance(clauses, np.ndarray):
            clauses = clauses.tolist()
        if self.solver is None:
            self.clauses += clauses
        else:
            self._append(clauses)
        self.n_clauses += len(clauses)

    def new_vars(self, shape) -> np.ndarray:
        """A block of fresh variables (numbered in one step: an ``IDPool.id``
        call a variable took 5 % of a 20 ms fit on iris)."""
        count = int(np.prod(shape))
        first = self.pool.top + 1
        self.pool.top += count
        return np.arange(first, first + count, dtype=np.int64).reshape(shape)

    @property
    def n_vars(self) -> int:
        return self.pool.top

    def _node_clauses(self) -> None:
        """(1) every internal node tests a feature; (2) at most one: pairwise
        for few features, else Sinz's sequential counter (s_i = 'one of the
        first i+1 tests is chosen'), both built as numpy blocks.  Over the
        chains' heads ('tests chain c'): within a chain the order variables
        already allow one test (with single tests, the paper's clauses)."""
        F = self.T[1:, self.chain_head]
        m = F.shape[1]
        self._add(F.tolist())                                            # (1)
        if m < 2:
            return
        if m <= PAIRWISE_AMO_MAX:
            f, g = np.triu_indices(m, 1)
            self._add(np.stack([-F[:, f], -F[:, g]], axis=2).reshape(-1, 2))
            return
        S = self.new_vars((F.shape[0], m - 1))
        x, s_ = F[:, 1:-1], S[:, 1:]                                     # tests 1..m-2
        self._add(np.stack([-F[:, 0], S[:, 0]], axis=1))                 # x0 -> s0
        for block in (np.stack([-x, s_], axis=2), np.stack([-S[:, :-1], s_], axis=2),
                      np.stack([-x, -S[:, :-1]], axis=2)):
            self._add(block.reshape(-1, 2))
        self._add(np.stack([-F[:, -1], -S[:, -1]], axis=1))              # x_last -> not s_{m-2}

    def _chain_clauses(self, chains: list[np.ndarray] | None) -> None:
        """Order variables for nested tests (a numeric column's thresholds).

        ``chains`` partition the columns; each lists tests whose true-sets
        shrink along it (``B[:, c[0]] >= B[:, c[1]] >= ...`` on every row), so a
        row is true on exactly its first r tests.  ``T[q, c[j]]`` means 'q tests
        chain c at position j or later' (``T[q, c[0]]``: q tests the chain at
        all); the last position's T is its F.  An example then needs at most
        two routing clauses per (node, chain) instead of one per (node, test):
        wine's 1,074 threshold tests are 13 columns.  ``T`` is defined by F
        (F[q, c[j]] <-> T[q, c[j]] and not T[q, c[j+1]], T descending along
        the chain), so the formula has the same trees as the paper's."""
        m = self.m
        if chains is None:
            chains = [np.array([f]) for f in range(m)]
        chains = [np.asarray(c, dtype=np.int64) for c in chains]
        if sorted(int(f) for c in chains for f in c) != list(range(m)):
            raise ValueError("chains must partition the columns 0..m-1")
        self.chain_cols = np.concatenate(chains) if chains else np.zeros(0, dtype=np.int64)
        self.chain_start = np.cumsum([0] + [c.size for c in chains])[:-1].astype(np.int64)
        self.chain_len = np.array([c.size for c in chains], dtype=np.int64)
        self.chain_head = self.chain_cols[self.chain_start]    # T of the head: 'tests the chain'
        self.T = self.F.copy()
        F = self.F[1:]
        for c in chains:
            if c.size < 2:
                continue
            head, tail = c[:-1], c[1:]
            T = self.new_vars((F.shape[0], head.size))
            self.T[1:, head] = T
            nxt = self.T[1:, tail]
            for block in (np.stack([-nxt, T], axis=2),                      # T descending
                          np.stack([-F[:, head], T], axis=2),               # F[j] -> T[j]
                          np.stack([-F[:, head], -nxt], axis=2),            # F[j] -> not T[j+1]
                          np.stack([-T, nxt, F[:, head]], axis=2)):         # T[j], not T[j+1] -> F[j]
                self._add(block.reshape(-1, block.shape[2]))

    def _symmetry_clauses(self) -> None:
        """Symmetry breaking (not in the paper; keeps every optimum): when both
        children of q test the same feature g, q's feature f < g.  Swapping f
        and g below q gives the same tree with its grandchildren permuted and
        lowers the features in breadth-first order, so a least tree remains.
        (Forbidding a feature twice on a path, also sound for DT-depth, made
        car's UNSAT proofs slower and is not used.)

        Many features: the same constraint through S[q, f] = 'q tests a feature
        > f' (implied by F[q, f+1] and by S[q, f+1]), linear instead of quadratic."""
        m = self.m
        if m <= PAIRWISE_SYMMETRY_MAX:
            clauses = []
            f_idx, g_idx = np.triu_indices(m, 1)            # f < g: forbid F[q, g] with children f
            for q in range(1, self.N >> 1):
                block = np.stack([-self.F[q, g_idx], -self.F[2 * q, f_idx], -self.F[2 * q + 1, f_idx]],
                                 axis=1)
                clauses += block.tolist()
            self._add(clauses)
            return
        for q in range(1, self.N >> 1):
            S = self.new_vars(m - 1)
            f = np.arange(m - 1)
            blocks = [np.stack([-self.F[q, f + 1], S], axis=1),                    # F[q,f+1] -> S[q,f]
                      np.stack([-S[1:], S[:-1]], axis=1),                          # S[q,f+1] -> S[q,f]
                      np.stack([-S, -self.F[2 * q, f], -self.F[2 * q + 1, f]], axis=1)]
            for block in blocks:
                self._add(block)

    # -- examples ----------------------------------------------------------------
    def new_example_vars(self) -> int:
        """The first of an example's k consecutive path variables X[0..k-1]."""
        return int(self.new_vars(self.k)[0])

    def routing_clauses(self, row: int, x0: int) -> list[list[int]]:
        """Families (3) and (4) for example ``row`` with path variables
        ``x0 ..``: at every node on its path, it goes right exactly when the
        tested feature is 1.  Per chain (see :meth:`_chain_clauses`), with
        the row true on its first r of d tests: 'goes right -> not T[r]'
        (r < d; so 'not tested' for r = 0), 'goes left -> chain not tested'
        (r = d), and for 0 < r < d 'goes left and tested -> T[r]'.  With single
        tests these are the paper's clauses (built in C: :mod:`._loop`)."""
        out: list[list[int]] = []
        self._builder.routing(out, int(row), int(x0))
        return out

    def class_clauses(self, x0: int, a: int, guard: int = 0) -> list[list[int]]:
        """Families (5) and (6): the example's leaf holds class ``a`` and no
        other; each clause also holds ``guard`` when it is not 0."""
        out: list[list[int]] = []
        self._builder.classes(out, int(x0), int(a), int(guard))
        return out

    @clause_batch
    def add_examples(self, rows) -> None:
        """Families (3)-(6) for each example not yet in the formula."""
        clauses: list[list[int]] = []
        for i in rows:
            i = int(i)
            if self.is_encoded[i]:
                continue
            self.is_encoded[i] = True
            self.encoded.append(i)
            x0 = self.new_example_vars()
            self._builder.routing(clauses, i, x0)
            self._builder.classes(clauses, x0, int(self.y[i]), 0)
        if clauses:
            self._add(clauses)

    # -- size bound ----------------------------------------------------------------
    @clause_batch
    def add_leaf_counter(self, max_leaves: int, cardinality: str = "totalizer") -> None:
        """(7) a labelled leaf is used, and a counter over the used leaves whose
        bound 'at most L' is the assumption :meth:`at_most_leaves` returns.

        ``counter``: the paper's unary sequential counter (8)-(10) with H[i, j]
        = 'at least j used leaves among the first i'; ``totalizer``:
        python-sat's incremental totalizer over the same U literals."""
        N = self.N
        U = [self.pool.id(("U", v)) for v in range(N)]
        self._add([[-int(self.C[v, a]), U[v]] for v in range(N) for a in range(self.c)])
        top = max_leaves + 1
        if cardinality == "counter":
            # H[i, j] only for j <= i (nothing can count more leaves than it saw)
            H = {(i, j): self.pool.id(("H", i, j)) for i in range(N + 1) for j in range(min(i, top) + 1)}
            clauses = [[H[0, 0]]]
            for i in range(N):
                for j in range(min(i, top) + 1):
                    clauses.append([-H[i, j], H[i + 1, j]])                       # (8)
                    if j + 1 <= top:
                        clauses.append([-U[i], -H[i, j], H[i + 1, j + 1]])        # (9)
            self._add(clauses)
            # (10): "not H[N, L+1]" bounds the used leaves by L
            self.counter_bound_lits = {L: -H[N, L + 1] for L in range(0, max_leaves + 1)
                                       if (N, L + 1) in H}
        elif cardinality == "totalizer":
            tot = ITotalizer(lits=U, ubound=top, top_id=self.pool.top)
            self.pool.top = tot.top_id
            self._add(tot.cnf.clauses)
            self.counter_bound_lits = {L: -tot.rhs[L] for L in range(0, max_leaves + 1)
                                       if L < len(tot.rhs)}
            self._totalizer = tot
        else:
            raise ValueError(f"cardinality must be one of {CARDINALITIES}, got {cardinality!r}")
        self.max_leaves_encoded = max_leaves
        self._canonical_empty_sides(U)

    def _canonical_empty_sides(self, U: list[int]) -> None:
        """Symmetry breaking for the leaf bound (not in the paper; keeps every
        bound's answer): a node with no labelled leaf on one side tests its
        parent's feature, and the empty side is the one away from the parent.

        Why sound: a smallest tree consistent with the encoded examples has
        no idle split, and Theorem 2's expansion to a perfect tree can push
        each shallow leaf v down along its parent's test (v's examples all go
        v's way there), leaving empty subtrees whose nodes also test that
        feature.  That expansion has exactly these properties, and the f < g
        rule of :meth:`_symmetry_clauses` still holds on it (a swap there
        permutes whole non-empty subtrees).  Without it, an UNSAT leaf bound
        has to refute every feature that sends a node's examples one way
        (wine: most of its 1,263 tests) on every empty side."""
        N = self.N
        added = (N - 2) * (self.m + 4)
        if N < 4 or added > MAX_CANONICAL_CLAUSES or self.n_clauses + added > self.max_clauses:
            return                       # an optional speed-up: never the reason a formula is refused
        # A[h] for heap nodes h in 2..2N-1: 'the subtree at h has a labelled leaf'
        A = np.zeros(2 * N, dtype=np.int64)
        A[N:] = U
        A[2:N] = self.new_vars(N - 2)
        q = np.arange(2, N)
        for child in (2 * q, 2 * q + 1):                      # A[q] <-> A[2q] or A[2q+1]
            self._add(np.stack([-A[child], A[q]], axis=1))
        self._add(np.stack([-A[q], A[2 * q], A[2 * q + 1]], axis=1))
        side = q & 1
        same, away = A[2 * q + side], A[2 * q + 1 - side]
        self._add(np.stack([-away, same], axis=1))            # away non-empty -> same side too
        block = np.empty((N - 2, self.m, 3), dtype=np.int64)  # away empty -> F[q] = F[parent]
        block[:, :, 0] = away[:, None]
        block[:, :, 1] = -self.F[q >> 1]
        block[:, :, 2] = self.F[q]
        self._add(block.reshape(-1, 3))

    def at_most_leaves(self, L: int) -> list[int]:
        if self.counter_bound_lits is None:
            raise RuntimeError("add_leaf_counter first")
        if L not in self.counter_bound_lits:
            if L >= min(self.max_leaves_encoded, self.N):
                return []                # the bound cuts nothing
            raise ValueError(f"no leaf bound {L} was encoded")
        return [self.counter_bound_lits[L]]

    # -- solving -------------------------------------------------------------------
    def solve(self, assumptions=()) -> bool:
        """Satisfiable under ``assumptions``?  Ends by the in-process deadline
        of a time-limited search, if any (see :mod:`.worker`)."""
        return solve_within(self.solver, assumptions)

    def decode(self) -> tuple[np.ndarray, np.ndarray]:
        """(node_feature (N,), leaf_class (N,)) from the last model; node 0 is
        unused, leaf_class is -1 where the model labels a leaf with no class or
        with several (only leaves no encoded example reaches)."""
        model = self.solver.get_model()
        # python-sat lists variable v at index v - 1: read only the tree's
        # variables (the whole model, examples included, was a tenth of an iris fit)
        fast = decode_model(model, self.F, self.C) if isinstance(model, list) else None
        if fast is not None:
            return fast
        model = np.asarray(model, dtype=np.int64)
        truth = np.zeros(self.pool.top + 1, dtype=bool)
        pos = model[model > 0]
        truth[pos[pos <= self.pool.top]] = True
        F = truth[self.F[1:]]                     # (N-1, m)
        node_feature = np.full(self.N, -1, dtype=np.int64)
        node_feature[1:] = np.argmax(F, axis=1)
        Ct = truth[self.C]                        # (N, c)
        leaf_class = np.where(Ct.sum(axis=1) == 1, np.argmax(Ct, axis=1), -1)
        return node_feature, leaf_class

    def delete(self) -> None:
        if self.solver is not None:
            self.solver.delete()
            self.solver = None
