"""The symbols of the coefficients, as papers print them, for the report's labels.

Each label is the symbol with the function's name beside it (``κ_F  fleiss_kappa``), so a
reader can find both the formula and the call. ``CHANCE_FREE`` are the coefficients without a
chance correction (percent agreement): the report plots them on their own axis.
"""

__all__ = ["CHANCE_FREE", "SYMBOLS", "labelled", "symbol"]

#: Symbol of each coefficient function (Unicode, no TeX: the page needs no math renderer).
SYMBOLS = {
    "fleiss_kappa": "κ (Fleiss)",
    "cohen_kappa": "κ (Cohen)",
    "conger_kappa": "κ (Conger)",
    "light_kappa": "κ (Light)",
    "soft_kappa": "κ (soft)",
    "krippendorff_alpha": "α (Krippendorff)",
    "soft_alpha": "α (soft)",
    "gwet_ac1": "AC1 (Gwet)",
    "gwet_ac2": "AC2 (Gwet)",
    "brennan_prediger": "κ_n (Brennan-Prediger)",
    "scott_pi": "π (Scott)",
    "percent_agreement": "p_o (percent agreement)",
}
#: Coefficients with no chance correction (a proportion in [0, 1], not "at most 1 with 0 = chance").
CHANCE_FREE = frozenset({"percent_agreement"})


def symbol(name: str) -> str:
    """The symbol of coefficient ``name`` (the name itself when it has none).

    Examples
    --------
    >>> symbol("krippendorff_alpha"), symbol("krippendorff_alpha:ordinal"), symbol("my_stat")
    ('α (Krippendorff)', 'α (Krippendorff, ordinal)', 'my_stat')
    """
    base, sep, form = str(name).partition(":")  # a level of measurement: krippendorff_alpha:ordinal
    if sep and form and base in SYMBOLS and SYMBOLS[base].endswith(")"):
        return f"{SYMBOLS[base][:-1]}, {form})"
    return SYMBOLS.get(str(name), str(name))


def labelled(name: str) -> str:
    """The symbol with the function name beside it.

    Examples
    --------
    >>> labelled("fleiss_kappa"), labelled("my_stat")
    ('κ (Fleiss)  fleiss_kappa', 'my_stat')
    """
    s = symbol(name)
    return s if s == str(name) else f"{s}  {name}"
