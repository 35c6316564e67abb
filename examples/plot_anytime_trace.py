"""
Anytime search under a time limit
=================================

Deep trees on noisy data may not be proven optimal in the time you have.
With ``time_limit`` every fit returns its best tree and a proven lower bound
when the time is up; an anytime strategy (``search=``) finds good trees
sooner. ``trace_`` records every better tree and every rise of the bound.

The data: 1,000 rows of a synthetic problem with 10 % label noise, depth 4.
"""

# %%
# Two searches, three seconds each
# --------------------------------
import warnings

from sklearn.datasets import make_classification

from optimaltrees import OptimalTreeClassifier

X, y = make_classification(n_samples=1000, n_features=8, n_informative=5, n_redundant=0, flip_y=0.1,
                           random_state=0)

fits = {}
for search in ("exhaustive", "discrepancy"):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)    # "time_limit reached: ..."
        fits[search] = OptimalTreeClassifier(max_depth=4, search=search, time_limit=3).fit(X, y)
    clf = fits[search]
    print(f"{search:>12}: {clf.train_error_} errors, lower bound {clf.lower_bound_:g}, "
          f"gap {clf.gap_:.1%}, proven: {clf.is_optimal_}, timed out: {clf.timed_out_}")

# %%
# The trace
# ---------
# Each point holds the time, the best tree's errors and the proven bound.
for point in fits["discrepancy"].trace_:
    print(f"{point.time:7.3f} s  errors {point.error:4g}  bound {point.lower_bound:g}")

# %%
# Neither search proves its tree optimal in three seconds, but each returns a
# proven lower bound: no tree of depth 4 makes fewer errors than that, so the
# gap says how much better the optimum could be. Which search finds good
# trees sooner depends on the data (and, at a time limit, on the machine: the
# numbers above are from the run that built this page).
#
# :func:`optimaltrees.plot.plot_trace` draws the best error and the lower
# bound over time.
from optimaltrees.plot import plot_trace

fig = plot_trace(fits["discrepancy"], title="discrepancy search, depth 4")

# %%
# Scoring a trace
# ---------------
# The primal integral (as in the CA-DL8.5 paper) is the average relative gap
# to the best known tree over the time budget, in percent: 0 means the best
# tree from the first instant. Here the best known error is the best either
# search found.
from optimaltrees.anytime import primal_integral

best = min(clf.train_error_ for clf in fits.values())
for search, clf in fits.items():
    print(f"{search:>12}: primal integral {primal_integral(clf.trace_, optimum=best, horizon=3):.2f}")

# %%
# Stopping from a callback
# ------------------------
# ``callback(progress)`` runs on every better tree and about twice a second;
# returning ``False`` stops the search with the best tree so far. Here: stop
# once the tree is within 5 % of the bound, or after two seconds.
def good_enough(progress):
    return not (progress.relative_gap <= 0.05 or progress.elapsed > 2)


clf = OptimalTreeClassifier(max_depth=4, search="top-k*", callback=good_enough).fit(X, y)
print(f"stopped by the callback: {clf.stopped_}; {clf.train_error_} errors, bound {clf.lower_bound_:g}")
