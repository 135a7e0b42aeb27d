"""The public functions: coefficients (``_coefficients``), the other statistics (``_statistics``) and the
permutation test (``_permutation_test``).

Their face is the root namespace: ``import softirr_stats as sis; sis.fleiss_kappa(...)``. The modules are
imported by name from there and from the analysis layer; this package re-exports nothing.
"""
