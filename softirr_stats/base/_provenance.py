"""Where a result came from: the package's version, each input file with its sha256, the command.

One record for every output that is kept with a result: the HTML report's provenance section
(:func:`softirr_stats.reporting.build_report`) and the ``meta`` of the command line's JSON
(``softirr agree -f json`` / ``--json``) read it from here, so the two never disagree on what
was recorded or how a file was hashed.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from os import PathLike
from pathlib import Path
from typing import Any

__all__ = ["file_sha256", "input_records", "package_version", "path_sha256", "provenance", "sources_text"]


def file_sha256(path: str | PathLike[str]) -> str:
    """The sha256 of the file at ``path``, as 64 hex digits (read in blocks of 1 MiB).

    Examples
    --------
    >>> import tempfile, os
    >>> with tempfile.TemporaryDirectory() as d:
    ...     p = os.path.join(d, "x.csv")
    ...     _ = open(p, "wb").write(b"abc")
    ...     file_sha256(p)[:16]
    'ba7816bf8f01cfea'
    """
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def path_sha256(path: str | PathLike[str]) -> str:
    """The sha256 of an input: a file's own (:func:`file_sha256`), or a folder's (an export project: brat,
    INCEpTION/WebAnno) as the sha256 of one line per file under it, ``relative/posix/path NUL file-sha256``, in
    sorted order (links are not followed; a file that cannot be read counts as ``unreadable (ErrorName)``).
    Renaming, adding, removing or changing any file changes it; where the folder sits does not.

    Examples
    --------
    >>> import tempfile, os
    >>> with tempfile.TemporaryDirectory() as d:
    ...     os.mkdir(os.path.join(d, "docs"))
    ...     _ = open(os.path.join(d, "docs", "a.ann"), "wb").write(b"T1\\tX 0 1\\ta")
    ...     digest = path_sha256(d)
    ...     _ = open(os.path.join(d, "docs", "b.ann"), "wb").write(b"")
    ...     (len(digest), digest == path_sha256(d))
    (64, False)
    """
    if not os.path.isdir(path):
        return file_sha256(path)
    lines = []
    for root, dirs, files in os.walk(path, followlinks=False):
        dirs.sort()
        for name in files:
            full = os.path.join(root, name)
            if os.path.isfile(full) and not os.path.islink(full):
                rel = Path(os.path.relpath(full, path)).as_posix()
                try:
                    digest = file_sha256(full)
                except OSError as err:  # a file the reader need not read: recorded, not a failure after the work
                    digest = f"unreadable ({type(err).__name__})"
                lines.append(f"{rel}\0{digest}\n")
    h = hashlib.sha256()
    for line in sorted(lines):
        h.update(line.encode("utf-8", "surrogateescape"))
    return h.hexdigest()


def input_records(paths: Sequence[str | PathLike[str]]) -> list[dict[str, str]]:
    """``[{"path", "sha256"}]``: each input as given (in order, each once) with its sha256 (a folder's by
    :func:`path_sha256`).

    Raises
    ------
    TypeError
        When ``paths`` is one path rather than a sequence of them.
    """
    if isinstance(paths, str | bytes | PathLike):
        raise TypeError(f"paths must be a sequence of paths; got one path, {str(paths)!r} (pass [path])")
    seen = list(dict.fromkeys(str(p) for p in paths))
    return [{"path": p, "sha256": path_sha256(p)} for p in seen]


def sources_text(paths: Sequence[str | PathLike[str]]) -> str:
    """The input files in a title: ``"a.csv"``, or ``"a.csv and 2 more"`` (file names, not folders).

    Examples
    --------
    >>> sources_text(["data/a.csv"]), sources_text(["data/a.csv", "b.csv", "c.csv"])
    ('a.csv', 'a.csv and 2 more')
    """
    names = [Path(p).name for p in paths]
    if not names:
        return ""
    return names[0] if len(names) == 1 else f"{names[0]} and {len(names) - 1} more"


def package_version() -> str:
    """The installed version of softirr_stats (``"unknown"`` when it is not installed, e.g. run from a
    source tree without an install)."""
    from importlib import metadata

    for name in ("softirr-stats", "softirr_stats"):
        try:
            return metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    return "unknown"


def provenance(paths: Sequence[str | PathLike[str]] = (), command: str | None = None) -> dict[str, Any]:
    """``{"softirr_stats_version": version, "inputs": [{"path", "sha256"}], "command": command}``: what a kept result
    needs to be traced to its inputs and rerun (``command`` None: built from Python)."""
    return {"softirr_stats_version": package_version(), "inputs": input_records(paths), "command": command}
