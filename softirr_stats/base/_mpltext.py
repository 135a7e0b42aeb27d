"""Text from the data drawn by matplotlib as written, never as mathtext.

Matplotlib reads a string with an even number of unescaped ``$`` as TeX math: a rater named
``$\\frac{1}{$`` aborts the figure with a parse error, and ``$x$`` is drawn as math. Every
name, label and title that comes from the data or the user goes through :func:`literal`,
which escapes each ``$`` (matplotlib then draws it as a plain dollar sign).
"""

from typing import Any

__all__ = ["literal", "literals"]


def literal(text: Any) -> str:
    r"""``text`` as a string matplotlib draws literally (every ``$`` escaped).

    Examples
    --------
    >>> literal("$\\frac{1}{$")
    '\\$\\frac{1}{\\$'
    >>> literal(3)
    '3'
    """
    return str(text).replace("$", r"\$")


def literals(texts: Any) -> list[str]:
    r""":func:`literal` of each element.

    Examples
    --------
    >>> literals(["a$", "b"])
    ['a\\$', 'b']
    """
    return [literal(t) for t in texts]
