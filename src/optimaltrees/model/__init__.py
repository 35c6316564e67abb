"""Model layer: the fitted tree as flat arrays, and its exports."""
from optimaltrees.model.tree import Tree
from optimaltrees.model.export import export_text

__all__ = ["Tree", "export_text"]
