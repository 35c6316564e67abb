"""
Model files, text and pictures
==============================

A fitted estimator saves to a JSON file that loads back into the same model
(it predicts exactly as before). Loading is safe on files from anywhere: it
builds only the library's own classes and checks every entry.
"""

# %%
# Save and load
# -------------
import tempfile
from pathlib import Path

import numpy as np

from optimaltrees import OptimalTreeClassifier
from optimaltrees.data import load_bank
from optimaltrees.io import load_model, save_model

X, y = load_bank()
clf = OptimalTreeClassifier(max_depth=2).fit(X, y)

folder = Path(tempfile.mkdtemp())
save_model(clf, folder / "model.json", metadata={"data": "banknote", "rows": len(y)})
again, metadata = load_model(folder / "model.json", with_metadata=True)
print(metadata)
print("same predictions:", np.array_equal(again.predict(X), clf.predict(X)))
print("file size:", (folder / "model.json").stat().st_size, "bytes")

# %%
# The fitted tree itself is a :class:`~optimaltrees.Tree` of flat arrays
# (as scikit-learn's), with its own JSON form.
from optimaltrees import Tree

tree = clf.tree_
print(tree.feature, tree.threshold, tree.children_left, tree.children_right)
print(Tree.from_json(tree.to_json()) == tree)

# %%
# Text and Graphviz
# -----------------
print(clf.export_text(feature_names=["variance", "skewness", "curtosis", "entropy"]))
print(clf.export_dot()[:200], "...")

# %%
# Pictures
# --------
# :mod:`optimaltrees.plot` draws with matplotlib alone; ``save`` writes PNG,
# SVG or PDF by the file's extension.
from optimaltrees.plot import plot_model, save

fig = plot_model(clf, title="depth-2 tree")
save(fig, folder / "model.svg")
print(sorted(p.name for p in folder.iterdir()))
