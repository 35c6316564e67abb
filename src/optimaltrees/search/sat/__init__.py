"""SAT and MaxSAT inference of decision trees (Avellaneda's depth encoding).

``problem`` (distinct rows, reduced columns) -> ``encoding`` (the CNF on one
incremental solver) -> ``inference`` (DT-depth, DT-size) / ``maxsat`` (fewest
errors) -> ``decode`` (the library's Tree); ``worker`` adds wall-clock limits.
"""
from optimaltrees.search.sat.encoding import CARDINALITIES, available_solvers
from optimaltrees.search.sat.inference import NoTreeWithinDepthError, SATResult, infer
from optimaltrees.search.sat.maxsat import min_errors
from optimaltrees.search.sat.problem import ConflictingExamplesError, prepare

__all__ = ["CARDINALITIES", "ConflictingExamplesError", "NoTreeWithinDepthError", "SATResult",
           "available_solvers", "infer", "min_errors", "prepare"]
