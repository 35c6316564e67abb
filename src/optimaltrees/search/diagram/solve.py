"""Run a :class:`~optimaltrees.search.diagram.formulation.Milp` on a MILP solver.

HiGHS (highspy) is the default and always installed; Gurobi (gurobipy) is
used when asked for and importable.  Both get the heuristic's diagram as a
starting solution and its objective as a cutoff, a time limit, one thread
by default, and a zero relative gap: "proven" means proven.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from optimaltrees.search.diagram.formulation import Milp

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


def solve(milp: Milp, *, solver: str = "highs", start: np.ndarray | None = None, cutoff: float | None = None,
          time_limit: float | None = None, threads: int = 1, verbose: bool = False) -> MilpResult:
    check_solver(solver)
    if solver == "gurobi":
        return _solve_gurobi(milp, start, cutoff, time_limit, threads, verbose)
    return _solve_highs(milp, start, cutoff, time_limit, threads, verbose)


def _solve_highs(milp, start, cutoff, time_limit, threads, verbose) -> MilpResult:
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
    lp.integrality_ = [highspy.HighsVarType.kInteger if i else highspy.HighsVarType.kContinuous
                       for i in milp.integer]
    h.passModel(lp)
    if start is not None:
        h.setSolution(milp.n_cols, np.arange(milp.n_cols, dtype=np.int32), np.asarray(start, dtype=np.float64))
    trace: list = []
    t0 = time.perf_counter()

    def on_solution(e):
        trace.append((time.perf_counter() - t0, float(e.data_out.objective_function_value),
                      float(e.data_out.mip_dual_bound)))

    h.cbMipImprovingSolution.subscribe(on_solution)
    if time_limit is not None:
        # HiGHS checks its own time_limit rarely inside a long root LP, which
        # overran the limit 2x on 1,000 rows: interrupt it from every phase.
        deadline = t0 + float(time_limit)

        def on_poll(e):
            if time.perf_counter() > deadline:
                e.interrupt()

        for event in (h.cbSimplexInterrupt, h.cbIpmInterrupt, h.cbMipInterrupt):
            event.subscribe(on_poll)
    h.HandleKeyboardInterrupt = True
    h.solve()
    seconds = time.perf_counter() - t0
    status = h.getModelStatus()
    interrupted_by_deadline = time_limit is not None and seconds >= float(time_limit)
    info = h.getInfo()
    S = highspy.HighsModelStatus
    names = {S.kOptimal: "optimal", S.kTimeLimit: "time_limit", S.kInterrupt: "interrupted",
             S.kInfeasible: "infeasible", S.kObjectiveBound: "cutoff", S.kSolutionLimit: "time_limit"}
    name = names.get(status, h.modelStatusToString(status))
    if name == "interrupted" and interrupted_by_deadline:
        name = "time_limit"
    has_solution = info.primal_solution_status == highspy.SolutionStatus.kSolutionStatusFeasible
    x = np.asarray(h.getSolution().col_value) if has_solution else None
    objective = float(info.objective_function_value) if has_solution else np.inf
    bound = float(info.mip_dual_bound)
    if name == "infeasible" and cutoff is not None:
        name = "cutoff"     # infeasible only because nothing beats the cutoff
    if name == "optimal" and x is None:
        name = "cutoff"
    if name == "cutoff" and cutoff is not None:
        bound = max(bound, cutoff) if np.isfinite(bound) else cutoff
    return MilpResult(x, objective, bound, name, seconds, trace)


def _solve_gurobi(milp, start, cutoff, time_limit, threads, verbose) -> MilpResult:
    import gurobipy as gp
    from gurobipy import GRB

    model = gp.Model()
    model.Params.OutputFlag = int(bool(verbose))
    model.Params.Threads = int(threads)
    model.Params.MIPGap = 0.0
    model.Params.MIPGapAbs = 1e-9
    if time_limit is not None:
        model.Params.TimeLimit = float(time_limit)
    if cutoff is not None:
        model.Params.Cutoff = float(cutoff)
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
