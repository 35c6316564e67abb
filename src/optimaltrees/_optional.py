"""Optional dependencies: import one, or say which extra installs it.

The estimators need only the core dependencies; pictures (matplotlib) and
the benchmark suites (Dask, the peer libraries) come with extras
(``pip install 'optimaltrees[plot]'``, ``'optimaltrees[bench]'``)."""
from __future__ import annotations

import importlib
from types import ModuleType


def require(module: str, extra: str, feature: str) -> ModuleType:
    """The module ``module`` (dotted names work), or an ImportError that names
    the ``feature`` needing it and the ``extra`` that installs it."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        if exc.name is not None and module != exc.name and not module.startswith(exc.name + "."):
            raise          # the module is there but one of its own imports failed: keep that error
        raise ImportError(f"{feature} needs {module}; install it with: pip install 'optimaltrees[{extra}]'",
                          name=exc.name) from exc
