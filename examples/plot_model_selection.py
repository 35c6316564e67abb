"""
Choosing the depth and the node cost by cross-validation
========================================================

``OptimalTreeClassifierCV`` chooses the depth and the price of a node
(``complexity_cost``) of an optimal tree by k-fold cross-validation.  Each
fold and depth costs one exact cost-complexity path, which holds the
optimal tree at every cost, so every tree size is tried without a grid of
fits.  ``GridSearchCV`` works too (the estimators are scikit-learn
classifiers); it fits one tree per grid point and fold.
"""

# %%
import matplotlib.pyplot as plt
import pandas as pd
from sklearn.datasets import load_wine

from optimaltrees import OptimalTreeClassifierCV

X, y = load_wine(return_X_y=True, as_frame=True)
search = OptimalTreeClassifierCV(max_depth=3, cv=5).fit(X, y)
results = pd.DataFrame(search.cv_results_)[["param_max_depth", "param_complexity_cost", "n_leaves",
                                            "mean_test_score", "std_test_score", "rank_test_score"]]
print(results.to_string(index=False))
print("chosen:", search.best_params_, f"mean accuracy {search.best_score_:.3f}")

# %%
# Each depth contributes one candidate per tree of its path on all rows.
# Mean validation accuracy against leaves shows where extra leaves stop
# paying: the one-standard-error rule (``select="1se"``) takes the fewest
# leaves whose score is within one standard error of the best.
simple = OptimalTreeClassifierCV(max_depth=3, cv=5, select="1se").fit(X, y)
fig, ax = plt.subplots(figsize=(6, 3.5))
for depth, rows in results.groupby("param_max_depth"):
    ax.errorbar(rows["n_leaves"], rows["mean_test_score"], yerr=rows["std_test_score"] / 5 ** 0.5,
                marker="o", capsize=3, label=f"depth {depth}")
ax.axvline(search.tree_.n_leaves, color="grey", linestyle="--", label="best")
ax.axvline(simple.tree_.n_leaves, color="black", linestyle=":", label="1se")
ax.set_xlabel("leaves of the tree on all rows")
ax.set_ylabel("mean validation accuracy")
ax.legend()
fig.tight_layout()

# %%
# The chosen tree is the path's exact optimum on all rows at the chosen
# cost, proven like any fit.
print(search.export_text())
print(f"{search.tree_.n_leaves} leaves, proven optimal: {search.is_optimal_}")
