"""Data layer: validation-free encodings the search kernels consume, and bundled data sets."""
from optimaltrees.data.encoding import EncodedFeatures, encode_features
from optimaltrees.data.datasets import load_bank, load_dataset, load_mouse

__all__ = ["EncodedFeatures", "encode_features", "load_dataset", "load_bank", "load_mouse"]
