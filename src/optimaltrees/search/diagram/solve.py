"""Run a :class:`~optimaltrees.search.diagram.formulation.Milp` on a MILP solver.

HiGHS (highspy) is the default and always installed; Gurobi (gurobipy) is
used when asked for and importable.  Both get the heuristic's diagram as a
starting solution and its objective as a cutoff, a time limit, one thread
by default, and a zero relative gap: "proven" means proven.
"""
from __future__ import annotations

import os
import signal
import sys
import time
import warnings
from dataclasses import dataclass, field

import numpy as np

from optimaltrees.search.diagram.formulation import Milp
from optimaltrees.search.diagram.interrupts import CtrlC

SOLVERS = ("highs", "gurobi")


@dataclass
class MilpResult:
    x: np.ndarray | None          # best solution found (None: none better than the cutoff)
    objective: float              # its objective (inf when x is None)
    bound: float                  # proven lower bound
    status: str                   # "optimal", "time_limit", "cutoff" (nothing beats the cutoff), "interrupted", ...
    seconds: float
    trace: list = field(default_factory=list)   # (seconds, objective, bound) on every improvement


def check_solver(name: str) -> None:
    """A clear error when the asked solver is unknown or not installed."""
    if name not in SOLVERS:
        raise ValueError(f"unknown solver {name!r}; expected one of {SOLVERS}")
    if name == "gurobi":
        try:
            import gurobipy  # noqa: F401
        except ImportError:
            raise ImportError("solver='gurobi' needs gurobipy (pip install gurobipy, and a licence "
                              "for models beyond its size limit); solver='highs' needs nothing more") from None


#: HiGHS options of a solve that should prove rather than search (``prove=True``):
#: on univariate diagram MILPs started from the exact tree, the primal
#: heuristics (sub-MIPs, feasibility jump) and a restart took the whole
#: time at the root (hepatitis (1, 2, 4, 8), 20 s: 0 nodes; without them,
#: 36 nodes and 21 % of the tree)
PROVE_OPTIONS = {"mip_heuristic_effort": 0.0, "mip_heuristic_run_rins": False, "mip_heuristic_run_rens": False,
                 "mip_heuristic_run_root_reduced_cost": False, "mip_heuristic_run_feasibility_jump": False,
                 "mip_allow_restart": False, "mip_detect_symmetry": False}


def solve(milp: Milp, *, solver: str = "highs", start: np.ndarray | None = None, cutoff: float | None = None,
          time_limit: float | None = None, threads: int = 1, verbose: bool = False,
          prove: bool = False, ctrl_c: CtrlC | None = None) -> MilpResult:
    """``prove``: spend the time on the bound (the start is already good).
    ``ctrl_c``: a SIGINT it records ends a HiGHS solve in its own process
    as Ctrl-C does, even one whose KeyboardInterrupt Python swallowed."""
    check_solver(solver)
    if solver == "gurobi":
        return _solve_gurobi(milp, start, cutoff, time_limit, threads, verbose, prove)
    return _solve_highs(milp, start, cutoff, time_limit, threads, verbose, prove, ctrl_c)


HARD_STOP_GRACE = 0.25   # seconds past the time limit before a HiGHS process that has not ended is killed
_POLL = 0.02             # the parent's wait between looks at the solver process
_BOUND_EVERY = 0.2       # the child reports its dual bound at most this often


def _process_context():
    """fork where it is safe and cheap (Linux: the child inherits the MILP,
    nothing is pickled), spawn elsewhere."""
    import multiprocessing

    return multiprocessing.get_context("fork" if sys.platform.startswith("linux") else "spawn")


def _solve_highs(milp, start, cutoff, time_limit, threads, verbose, prove=False, ctrl_c=None) -> MilpResult:
    """HiGHS in a child process, killed at the limit.

    HiGHS polls its interrupt callbacks (and its own time_limit) only in
    some phases: presolve of a 170,000-row diagram MILP ran 4 s without a
    poll, so a 5 s limit took 8 s, and a cancelled solve could run on for a
    minute after Ctrl-C.  A process can be stopped at once: every improving
    solution and the dual bound are streamed to this process as they come,
    the child stops itself at the limit when HiGHS lets it, and is killed
    ``HARD_STOP_GRACE`` seconds later (or at once on Ctrl-C) otherwise.
    The child's stdout/stderr go to /dev/null unless ``verbose`` (HiGHS
    prints its banner before any option can silence it)."""
    import multiprocessing

    import highspy  # noqa: F401  (imported here so that the forked child has it already)

    if multiprocessing.current_process().daemon:
        # a daemonic process (a multiprocessing.Pool worker) may not start
        # children: solve here, stopped by HiGHS's own polls (a weaker limit)
        return _solve_highs_here(milp, start, cutoff, time_limit, threads, verbose, prove)
    ctx = _process_context()
    receiver, sender = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_highs_child, args=(sender, milp, start, cutoff, time_limit, threads, verbose,
                                                  False, prove), daemon=True)
    t0 = time.perf_counter()
    hard_stop = None if time_limit is None else t0 + float(time_limit) + HARD_STOP_GRACE
    got = _Reports()
    try:
        with warnings.catch_warnings():
            # Python >= 3.12 warns about fork() in a process with threads; the
            # child only runs HiGHS and writes to its pipe
            warnings.simplefilter("ignore", DeprecationWarning)
            proc.start()
        sender.close()
        while got.status is None:
            if receiver.poll(_POLL):
                try:
                    got.take(receiver.recv())
                except EOFError:     # the child died without a word
                    proc.join(1.0)
                    got.status = f"solver process ended abnormally (exit code {proc.exitcode})"
            elif not proc.is_alive() and not receiver.poll(0):
                got.status = f"solver process ended abnormally (exit code {proc.exitcode})"
            if got.status is None and hard_stop is not None and time.perf_counter() > hard_stop:
                got.status = "time_limit"
            if got.status is None and ctrl_c is not None and ctrl_c.seen:
                got.status = "interrupted"
    except KeyboardInterrupt:
        got.status = "interrupted"
    finally:
        if proc.is_alive():
            proc.kill()
        proc.join(2.0)
        receiver.close()
    return got.result(time.perf_counter() - t0, cutoff)


class _Reports:
    """What the solver reported so far: ("solution", t, objective, bound, x),
    ("bound", bound) and finally ("done", status, x, objective, bound).
    Also the pipe's end for a solve in this process (``send``)."""

    def __init__(self) -> None:
        self.x, self.objective, self.bound, self.status, self.trace = None, np.inf, -np.inf, None, []

    def take(self, msg: tuple) -> None:
        if msg[0] == "solution":
            _, t, obj, bnd, sol = msg
            if obj < self.objective:
                self.x, self.objective = sol, obj
            self.bound = max(self.bound, bnd)
            self.trace.append((t, obj, bnd))
        elif msg[0] == "bound":
            self.bound = max(self.bound, msg[1])
        else:
            _, self.status, sol, obj, bnd = msg
            if sol is not None and obj <= self.objective:
                self.x, self.objective = sol, obj
            self.bound = max(self.bound, bnd)

    send = take

    def close(self) -> None:
        pass

    def result(self, seconds: float, cutoff: float | None) -> MilpResult:
        """The answer with cutoff semantics: "infeasible" under a cutoff means
        nothing beats it, which proves the cutoff's solution."""
        return _result(self.x, self.objective, self.bound, self.status, seconds, self.trace, cutoff)


def _solve_highs_here(milp, start, cutoff, time_limit, threads, verbose, prove=False) -> MilpResult:
    got = _Reports()
    t0 = time.perf_counter()
    try:
        _highs_child(got, milp, start, cutoff, time_limit, threads, verbose, in_process=True, prove=prove)
    except KeyboardInterrupt:
        got.status = "interrupted"
    return got.result(time.perf_counter() - t0, cutoff)


def _result(x, objective, bound, status, seconds, trace, cutoff) -> MilpResult:
    if status == "infeasible" and cutoff is not None:
        status = "cutoff"     # infeasible only because nothing beats the cutoff
    if status == "optimal" and x is None:
        status = "cutoff"
    if status == "cutoff" and cutoff is not None:
        bound = max(bound, cutoff) if np.isfinite(bound) else cutoff
    if not np.isfinite(bound):
        bound = 0.0 if status not in ("optimal",) else objective
    return MilpResult(x, objective, bound, status, seconds, trace)


def _highs_child(conn, milp, start, cutoff, time_limit, threads, verbose, in_process=False, prove=False) -> None:
    """Runs in the solver process: build the HiGHS model, solve, report."""
    if not in_process:
        signal.signal(signal.SIGINT, signal.SIG_IGN)    # Ctrl-C is the parent's to handle
    if not verbose and not in_process:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.dup2(devnull, 2)
    import highspy

    h = highspy.Highs()
    h.setOptionValue("output_flag", bool(verbose))
    h.setOptionValue("threads", int(threads))
    h.setOptionValue("mip_rel_gap", 0.0)
    h.setOptionValue("mip_abs_gap", 1e-9)
    if time_limit is not None:
        h.setOptionValue("time_limit", float(time_limit))
    if cutoff is not None:
        h.setOptionValue("objective_bound", float(cutoff))
    for name, value in (PROVE_OPTIONS.items() if prove else ()):
        h.setOptionValue(name, value)
    lp = highspy.HighsLp()
    lp.num_col_ = milp.n_cols
    lp.num_row_ = milp.n_rows
    lp.col_cost_ = milp.cost
    lp.col_lower_ = milp.lower
    lp.col_upper_ = milp.upper
    inf = highspy.kHighsInf
    lp.row_lower_ = np.where(np.isinf(milp.row_lower), -inf, milp.row_lower)
    lp.row_upper_ = np.where(np.isinf(milp.row_upper), inf, milp.row_upper)
    A = milp.A
    lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    lp.a_matrix_.num_col_ = milp.n_cols
    lp.a_matrix_.num_row_ = milp.n_rows
    lp.a_matrix_.start_ = A.indptr.astype(np.int32)
    lp.a_matrix_.index_ = A.indices.astype(np.int32)
    lp.a_matrix_.value_ = A.data.astype(np.float64)
    kinds = np.array([highspy.HighsVarType.kContinuous, highspy.HighsVarType.kInteger])
    lp.integrality_ = kinds[milp.integer.astype(np.intp)].tolist()
    h.passModel(lp)
    if start is not None:
        h.setSolution(milp.n_cols, np.arange(milp.n_cols, dtype=np.int32), np.asarray(start, dtype=np.float64))
    t0 = time.perf_counter()
    last = [t0]

    def on_solution(e):
        out = e.data_out
        conn.send(("solution", time.perf_counter() - t0, float(out.objective_function_value),
                   float(out.mip_dual_bound), np.array(out.mip_solution, dtype=np.float64)))

    h.cbMipImprovingSolution.subscribe(on_solution)
    deadline = None if time_limit is None else t0 + float(time_limit)

    def on_poll(e):
        now = time.perf_counter()
        if deadline is not None and now > deadline:
            e.interrupt()
        if e.callback_type == highspy.cb.HighsCallbackType.kCallbackMipInterrupt and now - last[0] > _BOUND_EVERY:
            last[0] = now
            conn.send(("bound", float(e.data_out.mip_dual_bound)))

    for event in (h.cbSimplexInterrupt, h.cbIpmInterrupt, h.cbMipInterrupt):
        event.subscribe(on_poll)
    h.run()
    status = h.getModelStatus()
    info = h.getInfo()
    S = highspy.HighsModelStatus
    names = {S.kOptimal: "optimal", S.kTimeLimit: "time_limit", S.kInterrupt: "time_limit",
             S.kInfeasible: "infeasible", S.kObjectiveBound: "cutoff", S.kSolutionLimit: "time_limit"}
    name = names.get(status, h.modelStatusToString(status))
    has_solution = info.primal_solution_status == highspy.SolutionStatus.kSolutionStatusFeasible
    x = np.asarray(h.getSolution().col_value, dtype=np.float64) if has_solution else None
    objective = float(info.objective_function_value) if has_solution else np.inf
    conn.send(("done", name, x, objective, float(info.mip_dual_bound)))
    conn.close()


def _solve_gurobi(milp, start, cutoff, time_limit, threads, verbose, prove=False) -> MilpResult:
    import gurobipy as gp
    from gurobipy import GRB

    env = gp.Env(empty=True)      # silent from the start: no licence banner when not verbose
    env.setParam("OutputFlag", int(bool(verbose)))
    env.start()
    model = gp.Model(env=env)
    model.Params.OutputFlag = int(bool(verbose))
    model.Params.Threads = int(threads)
    model.Params.MIPGap = 0.0
    model.Params.MIPGapAbs = 1e-9
    if time_limit is not None:
        model.Params.TimeLimit = float(time_limit)
    if cutoff is not None:
        model.Params.Cutoff = float(cutoff)
    if prove:
        model.Params.MIPFocus = 3     # the bound
    vtype = np.where(milp.integer, GRB.INTEGER, GRB.CONTINUOUS)
    x = model.addMVar(milp.n_cols, lb=milp.lower, ub=milp.upper, vtype=vtype)
    A = milp.A.tocsr()
    lo, hi = milp.row_lower, milp.row_upper
    eq = lo == hi
    for mask, sense, rhs in ((eq, "=", lo), (~eq & np.isfinite(hi), "<", hi), (~eq & np.isfinite(lo), ">", lo)):
        if mask.any():
            model.addMConstr(A[mask], x, sense, rhs[mask])
    model.setObjective(milp.cost @ x, GRB.MINIMIZE)
    if start is not None:
        x.Start = start
    trace: list = []
    t0 = time.perf_counter()

    def callback(m, where):
        if where == GRB.Callback.MIPSOL:
            trace.append((time.perf_counter() - t0, m.cbGet(GRB.Callback.MIPSOL_OBJ),
                          m.cbGet(GRB.Callback.MIPSOL_OBJBND)))

    model.optimize(callback)
    seconds = time.perf_counter() - t0
    names = {GRB.OPTIMAL: "optimal", GRB.TIME_LIMIT: "time_limit", GRB.INTERRUPTED: "interrupted",
             GRB.INFEASIBLE: "infeasible", GRB.CUTOFF: "cutoff"}
    name = names.get(model.Status, f"gurobi status {model.Status}")
    has = model.SolCount > 0
    bound = float(model.ObjBound) if model.Status != GRB.CUTOFF else float(cutoff)
    return MilpResult(np.asarray(x.X) if has else None, float(model.ObjVal) if has else np.inf,
                      bound, name, seconds, trace)
