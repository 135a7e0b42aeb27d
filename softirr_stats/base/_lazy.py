"""Lazy package attributes (PEP 562): a public name is imported from its module on first access.

Package ``__init__`` files declare ``{module: (name, ...)}`` and get a module ``__getattr__``
and ``__dir__``; ``import softirr_stats`` then costs what the data model needs, and JAX,
SciPy's statistics, matplotlib, pandas I/O, torch and NumPyro load when a name that needs
them is first used. Static tools see the names through an ``if TYPE_CHECKING:`` block of
ordinary imports next to the declaration.
"""

import importlib
import sys
import types
from collections.abc import Callable, Mapping, Sequence
from typing import Any

__all__ = ["attach"]


def attach(package: str, exports: Mapping[str, Sequence[str]], submodules: Sequence[str] = (),
           internal: Mapping[str, Sequence[str]] | None = None) -> tuple[
        Callable[[str], Any], Callable[[], list[str]], list[str]]:
    """Return ``(__getattr__, __dir__, __all__)`` for ``package``.

    Parameters
    ----------
    package : str
        The package's ``__name__``.
    exports : mapping
        Module path -> the names it provides.
    submodules : sequence of str
        Module paths exported as modules, under their last path component
        (``"softirr_stats.agreement"`` gives ``agreement``).
    internal : mapping, optional
        Module path -> names the package's face offers to the library's other packages but not to
        users: loaded the same way, listed by ``dir()``, left out of ``__all__`` (so out of the
        public API and its documentation checks).

    Examples
    --------
    >>> getattr_, dir_, all_ = attach("pkg", {"json": ("dumps",)}, submodules=["textwrap"])
    >>> all_
    ['dumps', 'textwrap']
    >>> getattr_("dumps")([1])
    '[1]'
    >>> getattr_, dir_, all_ = attach("pkg", {"json": ("dumps",)}, internal={"json": ("loads",)})
    >>> all_, getattr_("loads")("[2]")
    (['dumps'], [2])
    """
    where: dict[str, tuple[str, str | None]] = {}
    for module in submodules:
        where[module.rsplit(".", 1)[-1]] = (module, None)
    public = set(where)
    for table in (exports, internal or {}):
        for module, names in table.items():
            for name in names:
                if name in where:
                    raise ValueError(f"{package}: {name!r} is exported twice")
                where[name] = (module, name)
        if table is exports:
            public = set(where)

    def __getattr__(name: str) -> Any:
        try:
            module, attr = where[name]
        except KeyError:
            raise AttributeError(f"module {package!r} has no attribute {name!r}") from None
        mod = importlib.import_module(module)
        value = mod if attr is None else getattr(mod, attr)
        pkg = sys.modules.get(package)
        if pkg is not None:
            setattr(pkg, name, value)  # later lookups are ordinary attribute reads
        return value

    def __dir__() -> list[str]:
        pkg = sys.modules.get(package)
        return sorted({n for n, v in (vars(pkg).items() if pkg is not None else ()) if _shown(n, v, package)}
                      | set(where))

    return __getattr__, __dir__, sorted(public)


def _shown(name: str, value: Any, package: str) -> bool:
    """Whether ``dir()`` (tab completion) lists a package global: dunders and the package's own constants, not the
    helpers its ``__init__`` imports (``attach``, ``TYPE_CHECKING``) nor submodules loaded for internal use."""
    if name.startswith("__"):
        return True
    if name.startswith("_") or name == "TYPE_CHECKING" or isinstance(value, types.ModuleType):
        return False
    return getattr(value, "__module__", package) == package or not callable(value)
