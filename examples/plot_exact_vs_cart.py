"""
An optimal tree next to CART
============================

scikit-learn's ``DecisionTreeClassifier`` (CART) grows a tree greedily: each
split is the best one for that node alone. :class:`~optimaltrees.OptimalTreeClassifier`
searches all trees of the given depth and returns one with the fewest training
errors, together with a proof (a lower bound that meets its error).

The data are the bundled banknote set: 1,097 banknotes, four statistics of
their photographs, genuine or forged.
"""

# %%
# Fit both at the same depth
# --------------------------
import time

import numpy as np
from sklearn.model_selection import train_test_split
from sklearn.tree import DecisionTreeClassifier

from optimaltrees import OptimalTreeClassifier
from optimaltrees.data import load_bank

X, y = load_bank()
names = ["variance", "skewness", "curtosis", "entropy"]
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, random_state=0, stratify=y)

rows = []
for depth in (1, 2, 3):
    opt = OptimalTreeClassifier(max_depth=depth).fit(X_train, y_train)
    start = time.perf_counter()
    cart = DecisionTreeClassifier(max_depth=depth, random_state=0).fit(X_train, y_train)
    cart_seconds = time.perf_counter() - start
    for label, clf, seconds in (("optimal", opt, opt.fit_time_), ("CART", cart, cart_seconds)):
        errors = int(np.sum(clf.predict(X_train) != y_train))
        rows.append((depth, label, errors, clf.score(X_test, y_test), seconds))
    print(f"depth {depth}: optimal tree {opt.train_error_} errors, proven: {opt.is_optimal_} "
          f"(lower bound {opt.lower_bound_:g})")

print(f"\n{'depth':>5} {'method':>8} {'train errors':>13} {'test accuracy':>14} {'seconds':>8}")
for depth, label, errors, accuracy, seconds in rows:
    print(f"{depth:>5} {label:>8} {errors:>13} {accuracy:>14.3f} {seconds:>8.3f}")

# %%
# At every depth the optimal tree makes at most CART's training errors, and
# ``is_optimal_`` says no tree of that depth makes fewer. Fewer training errors
# need not mean better test accuracy; at a small depth they usually go together.
#
# The tree, in the feature names
# ------------------------------
opt = OptimalTreeClassifier(max_depth=3).fit(X_train, y_train)
print(opt.export_text(feature_names=names))
print(opt.summary_.describe())

# %%
# Draw it
# -------
# :func:`optimaltrees.plot.plot_tree` draws a tree with matplotlib alone (no
# Graphviz). Each box shows the condition of its solid "yes" arc; the dashed
# arc is "no". Leaves show their class, training rows and errors.
from optimaltrees.plot import plot_tree

fig = plot_tree(opt.tree_, feature_names=names, title="optimal depth-3 tree")
