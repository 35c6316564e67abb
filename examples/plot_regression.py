"""
An optimal regression tree next to CART
=======================================

:class:`~optimaltrees.OptimalTreeRegressor` searches every tree of the given
depth for the least sum of squared errors, with a proof, over every threshold
of every numeric feature. scikit-learn's ``DecisionTreeRegressor`` (CART)
chooses each split greedily. The data are scikit-learn's diabetes set: 442
patients, ten measurements, and a number for how the disease progressed a
year later.
"""

# %%
# Fit both at depths one to three
# -------------------------------
import numpy as np
from sklearn.datasets import load_diabetes
from sklearn.model_selection import train_test_split
from sklearn.tree import DecisionTreeRegressor

from optimaltrees import OptimalTreeRegressor

X, y = load_diabetes(return_X_y=True)
names = ["age", "sex", "bmi", "bp", "s1", "s2", "s3", "s4", "s5", "s6"]
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, random_state=0)

for depth in (1, 2, 3):
    opt = OptimalTreeRegressor(max_depth=depth).fit(X_train, y_train)
    cart = DecisionTreeRegressor(max_depth=depth, random_state=0).fit(X_train, y_train)
    cart_sse = float(np.sum((cart.predict(X_train) - y_train) ** 2))
    print(f"depth {depth}: optimal SSE {opt.train_error_:,.0f} (proven: {opt.is_optimal_}, "
          f"{opt.fit_time_:.2f} s), CART {cart_sse:,.0f}; held-out R^2 {opt.score(X_test, y_test):.3f} "
          f"against {cart.score(X_test, y_test):.3f}")

# %%
# The depth-two tree
# ------------------
# Each leaf predicts the mean of its training rows; the text gives their
# number and squared error.
opt = OptimalTreeRegressor(max_depth=2).fit(X_train, y_train)
print(opt.export_text(feature_names=names))

# %%
# A price per split
# -----------------
# ``complexity_cost`` is the share of R^2 a split must buy: at 0.05 only splits
# that explain at least 5 % of the variance stay.
for cost in (0.0, 0.02, 0.05, 0.1):
    reg = OptimalTreeRegressor(max_depth=3, complexity_cost=cost).fit(X_train, y_train)
    print(f"complexity_cost={cost}: {reg.tree_.n_leaves} leaves, training R^2 {reg.score(X_train, y_train):.3f}, "
          f"held-out R^2 {reg.score(X_test, y_test):.3f}")
