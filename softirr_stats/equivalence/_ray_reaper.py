"""A local Ray instance started by this process ends with it, even after SIGKILL.

``ray.init()`` in a driver starts the instance's processes (GCS, raylet, agents, workers); when
the driver is killed outright (SIGKILL, an out-of-memory kill) some of them outlive it. After a
driver starts a local instance, the instance's processes carry a token in their environment
(:func:`mark_children`, before ``ray.init``: every process Ray starts inherits it, whatever
name it gives itself later), and :func:`reap_with_driver` starts a small watcher in its own
session: it waits for the driver to end (a pidfd on Linux, so a reused process id cannot fool
it) and then kills every process whose environment holds the token. Linux only (it reads
``/proc``); elsewhere it does nothing.
"""

from __future__ import annotations

import os
import secrets
import subprocess
import sys

__all__ = ["ENV_TOKEN", "mark_children", "reap_with_driver", "REAPER"]

#: The environment variable that marks the processes of a local instance this driver started.
ENV_TOKEN = "SOFTIRR_RAY_OWNER"

#: The watcher's program: ``python -c REAPER <driver pid> <environment entry NAME=token>``.
REAPER = r"""
import os, select, signal, sys, time
pid, tag = int(sys.argv[1]), sys.argv[2].encode() + b"\0"
try:
    fd = os.pidfd_open(pid)
    select.select([fd], [], [])
except (AttributeError, OSError):
    while os.path.exists(f"/proc/{pid}"):
        time.sleep(0.5)
me = os.getpid()
for _ in range(3):  # a worker starting while we kill: look again
    for p in os.listdir("/proc"):
        if not p.isdigit() or int(p) == me:
            continue
        try:
            with open(f"/proc/{p}/environ", "rb") as f:
                env = b"\0" + f.read()
        except OSError:
            continue
        if b"\0" + tag in env:
            try:
                os.kill(int(p), signal.SIGKILL)
            except OSError:
                pass
    time.sleep(0.5)
"""


def mark_children() -> str:
    """Put a fresh token in this process's environment (inherited by what it starts); return it.

    Examples
    --------
    >>> token = mark_children()
    >>> os.environ[ENV_TOKEN] == token
    True
    >>> del os.environ[ENV_TOKEN]
    """
    token = f"{os.getpid()}-{secrets.token_hex(8)}"
    os.environ[ENV_TOKEN] = token
    return token


def reap_with_driver(token: str) -> subprocess.Popen | None:
    """Start the watcher that kills the processes marked with ``token`` when this process ends.

    Examples
    --------
    >>> reap_with_driver("") is None  # nothing to watch
    True
    """
    if not token or not sys.platform.startswith("linux"):
        return None
    env = {k: v for k, v in os.environ.items() if k != ENV_TOKEN}  # the watcher must not match itself
    return subprocess.Popen([sys.executable, "-c", REAPER, str(os.getpid()), f"{ENV_TOKEN}={token}"],
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True, close_fds=True, env=env)
