"""How each coefficient treats incomplete items, next to the common peers (statsmodels, R irr, krippendorff).

The coefficients here use every rating when some are missing (Gwet 2014's generalisation:
observed agreement over the items with two or more ratings, chance terms from every rating).
Several common peers use only the items rated by every rater instead: R ``irr``'s kappa
functions begin with ``na.omit`` (``kappa2``, ``kappam.fleiss``, ``kappam.light``),
statsmodels' ``fleiss_kappa`` accepts only a table whose rows all sum to the same number of
raters and ``cohens_kappa`` a contingency table of complete pairs. On data with missing ratings
the numbers then differ, and a user comparing would call it a bug. :data:`MISSING_RATINGS`
classifies every registered coefficient (a test fails on an unclassified one): either its
peers handle incomplete items as it does (the reason is recorded), or they use the complete
items only, and :func:`missing_ratings_note` writes the note the result carries: the peers, the
number of complete items, the coefficient on them (the peers' number) and the call that
reproduces it (``Annotations.complete_items``).

Examples
--------
>>> MISSING_RATINGS["fleiss_kappa"].peers[0]
"statsmodels' fleiss_kappa"
>>> MISSING_RATINGS["krippendorff_alpha"].peers
()
"""

from dataclasses import dataclass

import numpy as np

from softirr_stats.data import Annotations

__all__ = ["MissingRatingsHandling", "MISSING_RATINGS", "incomplete_items", "missing_ratings_note"]


@dataclass(frozen=True)
class MissingRatingsHandling:
    """How a coefficient's common peers treat items some raters did not rate.

    Attributes
    ----------
    peers : tuple of str
        Peers that use only the items rated by every rater (empty: the peers agree with us).
    how : str
        What those peers do, in a few words, or why the peers agree with us (``peers`` empty); for the
        docs and the record, not repeated in the note.
    weights : tuple of str
        Named ``weights=`` the peers also compute (besides exact matching).

    Examples
    --------
    >>> MISSING_RATINGS["cohen_kappa"].weights
    ('linear', 'quadratic')
    """

    peers: tuple[str, ...] = ()
    how: str = ""
    weights: tuple[str, ...] = ()


_NA_OMIT = "R irr drops incomplete rows with na.omit"

#: Every registered coefficient, classified (``tests/agreement/test_missing_ratings_notes.py`` fails on one left out).
MISSING_RATINGS: dict[str, MissingRatingsHandling] = {
    "fleiss_kappa": MissingRatingsHandling(
        ("statsmodels' fleiss_kappa", "R irr's kappam.fleiss"),
        f"statsmodels' table must have complete rows, all summing to the same number of raters; {_NA_OMIT}"),
    "conger_kappa": MissingRatingsHandling(("R irr's kappam.fleiss(exact=TRUE)",), _NA_OMIT),
    "light_kappa": MissingRatingsHandling(("R irr's kappam.light",), _NA_OMIT),
    "brennan_prediger": MissingRatingsHandling(
        ("statsmodels' fleiss_kappa(method='randolph')",),
        "statsmodels' table must have complete rows, all summing to the same number of raters"),
    "cohen_kappa": MissingRatingsHandling(
        ("statsmodels' cohens_kappa", "R irr's kappa2", "scikit-learn's cohen_kappa_score"),
        f"statsmodels and scikit-learn take complete pairs only; {_NA_OMIT}", weights=("linear", "quadratic")),
    "scott_pi": MissingRatingsHandling(
        ("statsmodels' fleiss_kappa on the two raters",),
        "statsmodels' table must have complete rows, all summing to the same number of raters"),
    "krippendorff_alpha": MissingRatingsHandling(
        how="krippendorff's alpha and R irr's kripp.alpha use every pairable value, as here"),
    "gwet_ac1": MissingRatingsHandling(how="R irrCAC's gwet.ac1.raw uses every rating, as here"),
    "percent_agreement": MissingRatingsHandling(
        how="items with two or more ratings, as irrCAC's pa.coeff.raw; with two raters that is R irr's agree on "
            "the complete rows (for three or more raters agree counts only items where all raters agree, a "
            "different statistic)"),
}


def incomplete_items(ann: Annotations) -> int:
    """Items with at least one rating but fewer than ``ann.n_raters`` ratings.

    Examples
    --------
    >>> incomplete_items(Annotations.from_wide([["a", "a"], ["a", None], [None, None]]))
    1
    """
    r = np.asarray(ann.ratings_per_item)
    return int(((r >= 1) & (r < ann.n_raters)).sum())


def missing_ratings_note(coefficient: str, ann: Annotations, *, similarity: str, chance: str,
                         complete_value: float | None, call: str) -> str | None:
    """The note a result carries when its peers would use fewer items than it does, or None.

    Parameters
    ----------
    coefficient : str
        The registered coefficient (a key of :data:`MISSING_RATINGS`).
    ann : Annotations
        The data the coefficient was computed on.
    similarity : str
        The resolved similarity's name (``"identity"``, ``"linear"``, ...): peers compute exact
        matching and, where :attr:`MissingRatingsHandling.weights` says, those named weights only.
    chance : str
        The chance setting's label: only exact chance has a peer.
    complete_value : float or None
        The coefficient on ``ann.complete_items()`` (the peers' number).
    call : str
        The call that reproduces it, e.g. ``"fleiss_kappa(ann.complete_items())"``; named only where at least two
        items are complete (the peers' number is not computed on fewer, and on none the call raises).

    Returns
    -------
    str or None
        None when the data have no incomplete item or no peer computes the same statistic.

    Examples
    --------
    >>> ann = Annotations.from_wide([["a", "a", "b"], ["a", None, "a"], ["b", "b", "b"]])
    >>> print(missing_ratings_note("light_kappa", ann, similarity="identity", chance="exact",
    ...                            complete_value=0.25, call="light_kappa(ann.complete_items())"))
    missing ratings: light_kappa uses all 3 rated items; R irr's kappam.light uses only the 2 rated by all 3 raters (0.2500 there: sis.light_kappa(ann.complete_items()))
    """
    rec = MISSING_RATINGS.get(coefficient)
    if rec is None or not rec.peers or chance not in ("exact", "none", ""):
        return None
    if similarity != "identity" and similarity not in rec.weights:
        return None
    n_incomplete = incomplete_items(ann)
    if n_incomplete == 0:
        return None
    n_rated = int((np.asarray(ann.ratings_per_item) >= 1).sum())
    n_complete = n_rated - n_incomplete
    peers = rec.peers[0] if len(rec.peers) == 1 else ", ".join(rec.peers[:-1]) + " and " + rec.peers[-1]
    verb = "uses" if len(rec.peers) == 1 else "use"
    weighted = "" if similarity == "identity" else f" with {similarity} weights"
    there = ("undefined there" if complete_value is None or not np.isfinite(complete_value)
             else f"{round(float(complete_value), 4) + 0.0:.4f} there")  # + 0.0: a rounded -0.0 reads 0.0000
    if n_complete >= 2:  # the call that reproduces it; on no complete item it would raise (no item left)
        there += f": sis.{call}"
    every = "both raters" if ann.n_raters == 2 else f"all {ann.n_raters} raters"
    return (f"missing ratings: {coefficient}{weighted} uses all {n_rated} rated items; {peers} {verb} only the "
            f"{n_complete} rated by {every} ({there})")
