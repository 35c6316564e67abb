"""
Choosing the depth by cross-validation
======================================

The estimators are scikit-learn classifiers, so model selection works as
with any other: here ``GridSearchCV`` picks the depth and the price of a
node (``complexity_cost``) of an optimal tree by 5-fold cross-validation.
"""

# %%
import pandas as pd
from sklearn.datasets import load_wine
from sklearn.model_selection import GridSearchCV

from optimaltrees import OptimalTreeClassifier

X, y = load_wine(return_X_y=True, as_frame=True)
grid = GridSearchCV(OptimalTreeClassifier(),
                    {"max_depth": [1, 2, 3], "complexity_cost": [0.0, 0.01, 0.05]}, cv=5)
grid.fit(X, y)
results = pd.DataFrame(grid.cv_results_)[["param_max_depth", "param_complexity_cost",
                                          "mean_test_score", "std_test_score"]]
print(results.sort_values("mean_test_score", ascending=False).to_string(index=False))
print("best:", grid.best_params_)

# %%
# ``complexity_cost`` is the price of each split as a fraction of the rows:
# the search minimises errors + cost x rows x splits, so a larger cost keeps
# only the splits that pay for themselves.
best = grid.best_estimator_
print(best.export_text())
print(f"{best.tree_.n_branch_nodes} splits, {best.train_error_} training errors")
