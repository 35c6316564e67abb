"""
The smallest perfect tree, by SAT
=================================

:class:`~optimaltrees.SATTreeClassifier` answers a different question from
the other estimators: what is the smallest tree that classifies *every*
training example correctly? First the minimum depth (``"depth"``), then the
fewest nodes at that depth (``"size"``), as in Avellaneda's AAAI 2020 paper.

The bundled mouse data (69 examples, 5 categorical columns) is the paper's
running example.
"""

# %%
# Minimum depth, then minimum size
# --------------------------------
import pandas as pd

from optimaltrees import SATTreeClassifier
from optimaltrees.data import load_mouse

X, y, names = load_mouse()
frame = pd.DataFrame(X, columns=names).astype("category")     # every column is categorical

depth = SATTreeClassifier("depth").fit(frame, y)
size = SATTreeClassifier("size").fit(frame, y)
for clf in (depth, size):
    print(f"{clf.objective:>5}: depth {clf.depth_}, {clf.n_nodes_} nodes, proven: {clf.is_optimal_}, "
          f"{clf.summary_.fit_seconds:.3f} s, answered by {clf.stats_['search']!r}")

# %%
# No tree of depth 3 classifies every example correctly, and no tree of depth
# 4 does it with fewer than 15 nodes. The tree prints in the column names:
print(size.export_text())

# %%
# The paper's SAT loop
# --------------------
# By default the library's exact dynamic-programming engine answers both
# questions (fastest). ``depth_search="sat"`` runs the paper's incremental
# SAT loop instead: the formula holds only the examples the last tree got
# wrong, so it proves the same minimum with part of the data.
sat = SATTreeClassifier("size", depth_search="sat").fit(frame, y)
print(f"depth {sat.depth_}, {sat.n_nodes_} nodes; examples in the formula: "
      f"{sat.stats_['examples_encoded']} of {sat.stats_['distinct_examples']} distinct; "
      f"SAT calls: {sat.stats_['sat_calls']}")

# %%
# Draw it
# -------
from optimaltrees.plot import plot_model

fig = plot_model(size, title="smallest perfect tree of the mouse data")

# %%
# When no tree is perfect
# -----------------------
# ``objective="errors"`` returns the tree of depth ``max_depth`` with the
# fewest misclassifications over the same yes/no tests.
few = SATTreeClassifier("errors", max_depth=2).fit(frame, y)
print(f"depth 2: {few.train_error_} errors, proven: {few.is_optimal_}")
