"""
Taking a tree elsewhere: scikit-learn, ONNX and plain code
==========================================================

An optimal tree is a small model; it should run wherever the data is.
``to_sklearn()`` gives scikit-learn's own tree (so ``plot_tree``, SHAP and
skl2onnx read it), ``to_onnx()`` an ONNX model for onnxruntime, and
``export_code`` a Python function, a SQL expression or a C function with no
dependency at all.  Each predicts what the model predicts.
"""

# %%
import matplotlib.pyplot as plt
import numpy as np
import onnxruntime
from sklearn.tree import plot_tree

from optimaltrees import OptimalTreeClassifier
from optimaltrees.data import load_bank

X, y = load_bank()
names = ["variance", "skewness", "curtosis", "entropy"]
clf = OptimalTreeClassifier(max_depth=2).fit(X, y)

# %%
# scikit-learn's tree: its own plot, with the node statistics scikit-learn shows.
sk = clf.to_sklearn()
print("scikit-learn agrees on every row:", bool((sk.predict(X) == clf.predict(X)).all()))
fig, ax = plt.subplots(figsize=(7, 4))
plot_tree(sk, feature_names=names, class_names=["genuine", "forged"], filled=True, ax=ax)

# %%
# ONNX: the same tree in onnxruntime, probabilities to the last bit.
session = onnxruntime.InferenceSession(clf.to_onnx().SerializeToString(), providers=["CPUExecutionProvider"])
label, proba = session.run(None, {"X": X})
print("onnxruntime agrees on every row:", bool((label == clf.predict(X)).all()),
      bool(np.array_equal(proba, clf.predict_proba(X))))

# %%
# Plain code: a SQL expression to run inside a database, and a Python
# function to paste anywhere.
print(clf.export_code("sql", feature_names=names))
source = clf.export_code("python")
print(source)
namespace = {}
exec(source, namespace)
print("the pasted function agrees:", all(namespace["predict"](list(row)) == label for row, label
                                          in zip(X, clf.predict(X))))
