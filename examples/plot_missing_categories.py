"""
Missing values, categories and weights from a pandas frame
==========================================================

:class:`~optimaltrees.OptimalTreeClassifier` reads a pandas ``DataFrame`` as
it is: missing values (``NaN``, ``None``, ``pd.NA``) and categorical columns
are part of the search, not a preprocessing step, and the tree is still
proven optimal over every split the data allow.

We make such a frame from the bundled banknote data: 15 % of one column goes
missing and another becomes a category with three levels.
"""

# %%
# The frame
# ---------
import numpy as np
import pandas as pd

from optimaltrees import OptimalTreeClassifier
from optimaltrees.data import load_bank

X, y = load_bank()
rng = np.random.default_rng(0)
frame = pd.DataFrame(X, columns=["variance", "skewness", "curtosis", "entropy"])
frame["skewness"] = frame["skewness"].mask(rng.random(len(frame)) < 0.15)
frame["curtosis"] = pd.cut(frame["curtosis"], [-np.inf, 0.3, 0.6, np.inf], labels=["low", "mid", "high"])
print(frame.head())
print(frame.dtypes)

# %%
# Fit on it directly
# ------------------
# Category columns (``category``, string, object or bool dtype) are split by
# ``x == v`` tests. Every split also decides which side the rows with a
# missing value take; the printed tree says so (``or missing``).
clf = OptimalTreeClassifier(max_depth=3).fit(frame, y)
print(clf.export_text())
print(f"training errors: {clf.train_error_}, proven optimal: {clf.is_optimal_}")

# %%
# Prediction takes the same kinds of rows: a missing value goes where the
# split sent them in training (or, for a column that had none, to the child
# that saw more rows), and a category never seen in training takes the
# ``!=`` side.
new = pd.DataFrame({"variance": [0.3, 0.7], "skewness": [np.nan, 0.2],
                    "curtosis": pd.Categorical(["low", "very high"]), "entropy": [0.5, np.nan]})
print(clf.predict(new))

# %%
# Subsets of categories
# ---------------------
# ``categorical_splits="subsets"`` also searches ``x in {a, b}`` tests: every
# way to split a column's values in two (3 values give 3 tests, 8 give 127).
subsets = OptimalTreeClassifier(max_depth=2, categorical_splits="subsets").fit(frame, y)
print(subsets.export_text())

# %%
# Weights
# -------
# ``sample_weight`` and ``class_weight`` make the objective the misclassified
# weight. On a subset where one class is rare, ``class_weight="balanced"``
# finds the tree with the best balanced accuracy instead of the fewest errors.
from sklearn.metrics import balanced_accuracy_score

rare = np.flatnonzero(y == 1)[:60]
keep = np.concatenate([np.flatnonzero(y == 0), rare])
Xs, ys = frame.iloc[keep], y[keep]
for weight in (None, "balanced"):
    model = OptimalTreeClassifier(max_depth=2, class_weight=weight).fit(Xs, ys)
    errors = int(np.sum(model.predict(Xs) != ys))
    print(f"class_weight={weight!s:>8}: {errors:3d} errors, balanced accuracy "
          f"{balanced_accuracy_score(ys, model.predict(Xs)):.3f}")

# %%
# Integer weights give exactly the tree of the data with each row repeated
# that many times; a row of weight 0 is left out.
w = rng.integers(0, 3, size=len(frame))
weighted = OptimalTreeClassifier(max_depth=2).fit(frame, y, sample_weight=w)
repeated = OptimalTreeClassifier(max_depth=2).fit(frame.loc[frame.index.repeat(w)], np.repeat(y, w))
print(weighted.train_error_, repeated.train_error_)
