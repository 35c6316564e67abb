"""Optimal decision diagrams (Florio et al., AAAI 2023) trained by MILP.

``skeleton`` (the fixed layered graph) -> ``heuristic`` (a CART-like
diagram at once) and ``trees`` (exact trees: a start and a lower bound) ->
``formulation`` (the MILP as sparse arrays) ->
``solve`` (HiGHS, or Gurobi when installed) -> the ``DecisionDiagram`` model.
"""
