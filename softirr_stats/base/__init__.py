"""Base utilities under every layer: lazy attributes, input checks, number formatting, JAX helpers, chunking.

Nothing here knows about annotations or coefficients, and importing it costs nothing: each module is
imported by name where it is used (``from softirr_stats.base._validation import check_choice``), so this
package has no face of its own.
"""
