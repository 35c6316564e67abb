"""
Every tree size at once: the cost-complexity path
=================================================

``cost_complexity_path`` returns every tree that is optimal at some price of
a node (``complexity_cost``), from the fewest training errors to a single
leaf, each proven optimal over its interval of prices. It plays the part of
scikit-learn's ``cost_complexity_pruning_path`` for CART, whose trees are
pruned subtrees of one greedy tree. Here both paths are compared on held-out
rows of the bundled banknote data.
"""

# %%
# The two paths
# -------------
import matplotlib.pyplot as plt
from sklearn.model_selection import train_test_split
from sklearn.tree import DecisionTreeClassifier

from optimaltrees import OptimalTreeClassifier
from optimaltrees.data import load_bank

X, y = load_bank()
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, stratify=y, random_state=0)

path = OptimalTreeClassifier(max_depth=3).cost_complexity_path(X_train, y_train)
for cost, errors, nodes, proven, est in zip(path.complexity_costs, path.errors, path.branch_nodes,
                                            path.proven, path.estimators):
    print(f"from cost {cost:.5f}: {nodes} branch nodes, {errors:g} training errors, "
          f"held-out accuracy {est.score(X_test, y_test):.3f}, proven {proven}")

cart = DecisionTreeClassifier(max_depth=3, random_state=0).cost_complexity_pruning_path(X_train, y_train)
cart_trees = [DecisionTreeClassifier(max_depth=3, ccp_alpha=a, random_state=0).fit(X_train, y_train)
              for a in cart.ccp_alphas]

# %%
# Held-out accuracy against tree size
# -----------------------------------
# At each size the optimal tree fits the training rows at least as well as
# the pruned CART tree of that size; whether that carries over to new rows is
# what cross-validation over the path decides.
fig, ax = plt.subplots(figsize=(6, 3.5))
ax.plot([e.get_n_leaves() for e in path.estimators], [e.score(X_test, y_test) for e in path.estimators],
        "o-", label="optimal trees (path)")
ax.plot([t.get_n_leaves() for t in cart_trees], [t.score(X_test, y_test) for t in cart_trees],
        "s--", label="CART, pruning path")
ax.set_xlabel("leaves")
ax.set_ylabel("held-out accuracy")
ax.legend()
fig.tight_layout()
