"""JAX helpers: float64 point estimates without touching the user's global configuration."""

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import wraps
from typing import Any, TypeVar

import jax

__all__ = ["x64", "with_x64"]

F = TypeVar("F", bound=Callable[..., Any])


@contextmanager
def x64() -> Iterator[None]:
    """Enable 64-bit JAX types inside the block only (restores the previous setting).

    Examples
    --------
    >>> import jax.numpy as jnp
    >>> with x64():
    ...     print(jnp.ones(1).dtype)
    float64
    """
    with jax.enable_x64(True):
        yield


def with_x64(fn: F) -> F:
    """Decorator form of :func:`x64`."""

    @wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        with x64():
            return fn(*args, **kwargs)

    return wrapper  # type: ignore[return-value]
