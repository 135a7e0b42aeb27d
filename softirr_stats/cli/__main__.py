"""``python -m softirr_stats.cli``: the ``softirr`` command."""

from softirr_stats.cli import main

if __name__ == "__main__":  # pragma: no cover
    main()
