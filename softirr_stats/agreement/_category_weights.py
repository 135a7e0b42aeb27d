"""Named weights over the categories they were built on, and whether two data sets' weights weigh alike.

A named weight (``linear``, ``quadratic``, ``ordinal``, ...) is built on the category list: on the numeric
labels' values (divided by their range), else on the positions in the declared categories (or in the
vocabulary). Two data sets with other category lists then get other weight matrices, and a difference of
their coefficients would mix the change of weights with the change of agreement. What a coefficient reads
of its weights decides when two matrices are the same for it:

- kappa, pi and alpha (a chance term over the observed labels) are ``1 - D_o / D_e`` in the distances
  ``1 - w``: a common scale of the distances cancels, so the distances between the labels both data sets
  have must be in the same proportions (linear weights on 0-2 and on 0-5 agree; positions shifted by a
  missing category do not);
- percent agreement reads the weights themselves: the labels both have must get the same weights;
- AC1 / AC2 and Brennan-Prediger sum every weight of the q categories in their chance term: the matrices
  must be the same.
"""

from dataclasses import dataclass

import numpy as np

__all__ = ["CategoryWeights", "WEIGHTS_READ", "weights_clash"]

#: What a chance family's value reads of its weights (``ChanceFamily.chance`` -> the rule of :func:`weights_clash`).
WEIGHTS_READ = {"support": "distances up to scale", "none": "weights", "categories": "every weight"}


@dataclass(frozen=True, eq=False)
class CategoryWeights:
    """Named weights over the categories they were built on (``Statistic.category_weights``).

    Attributes
    ----------
    name : str
        The weights' name (``linear``, ...).
    categories : tuple
        The categories the matrix is indexed by (the declared categories, else the observed labels).
    matrix : ndarray of shape (q, q)
        The weights.
    reads : str
        What the coefficient's value reads of them (a value of :data:`WEIGHTS_READ`).
    """

    name: str
    categories: tuple
    matrix: np.ndarray
    reads: str


def weights_clash(a: CategoryWeights, b: CategoryWeights, names: tuple[str, str] = ("a", "b")) -> str:
    """How two data sets' weights differ where their coefficients read them ("" where they weigh alike);
    ``names`` name the two data sets in the text.

    Examples
    --------
    >>> from softirr_stats.agreement import weight_matrix
    >>> def w(cats, values, reads):
    ...     return CategoryWeights("linear", tuple(cats), weight_matrix("linear", values), reads)
    >>> weights_clash(w([0, 1, 2], [0, 1, 2], "distances up to scale"), w(range(6), range(6), "distances up to scale"))
    ''
    >>> weights_clash(w("lmht", [1, 2, 3, 4], "distances up to scale"), w("lht", [1, 2, 3], "distances up to scale"))
    "they set the labels both have at other relative distances: 'h' to 't' is 0.333 of 'l' to 't' in a and 0.5 in b"
    >>> weights_clash(w([0, 1, 2], [0, 1, 2], "every weight"), w([0, 1, 5], [0, 1, 5], "every weight"))
    'they weigh 0 and 1 0.5 in a and 0.8 in b'
    >>> weights_clash(w("lmh", [1, 2, 3], "every weight"), w("lmt", [1, 2, 3], "every weight"))  # the same matrix
    ''
    """
    if a.categories == b.categories and a.matrix.shape == b.matrix.shape and np.allclose(a.matrix, b.matrix):
        return ""
    where_b = {c: k for k, c in enumerate(b.categories)}
    ia = [k for k, c in enumerate(a.categories) if c in where_b]
    ib = [where_b[a.categories[k]] for k in ia]
    shared = [a.categories[k] for k in ia]
    wa, wb = a.matrix[np.ix_(ia, ia)], b.matrix[np.ix_(ib, ib)]
    if a.reads == "distances up to scale":
        da, db = 1.0 - wa, 1.0 - wb
        top_a, top_b = float(da.max(initial=0.0)), float(db.max(initial=0.0))
        na = da / top_a if top_a > 0 else da
        nb = db / top_b if top_b > 0 else db
        if np.allclose(na, nb, rtol=1e-9, atol=1e-12):
            return ""
        i, j = np.unravel_index(np.argmax(np.abs(na - nb)), na.shape)
        r, s = np.unravel_index(np.argmax(da), da.shape)
        return (f"they set the labels both have at other relative distances: {shared[i]!r} to {shared[j]!r} is "
                f"{na[i, j]:.3g} of {shared[r]!r} to {shared[s]!r} in {names[0]} and {nb[i, j]:.3g} in {names[1]}")
    same_matrix = a.matrix.shape == b.matrix.shape and np.allclose(a.matrix, b.matrix, rtol=1e-9, atol=1e-12)
    if np.allclose(wa, wb, rtol=1e-9, atol=1e-12):  # the shared labels weigh alike
        return "" if a.reads != "every weight" or same_matrix else \
            "they give the categories other weights, which the chance term sums"
    i, j = np.unravel_index(np.argmax(np.abs(wa - wb)), wa.shape)
    return (f"they weigh {shared[i]!r} and {shared[j]!r} {wa[i, j]:.3g} in {names[0]} and {wb[i, j]:.3g} in "
            f"{names[1]}")
