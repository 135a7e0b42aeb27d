"""A local Ray instance started by a driver ends with it, even when the driver is SIGKILLed
(issue 35: two Ray agents were still alive 26 s after the driver was killed)."""

import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

pytest.importorskip("ray")
pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")

DRIVER = textwrap.dedent("""
    import time
    import ray
    from softirr_stats.equivalence._ray import RayBackend
    RayBackend(num_cpus=1)._init(ray)
    print("started", flush=True)
    time.sleep(600)
""")


def _session_processes(driver_pid):
    """Processes started for the driver's local instance: their environment holds its token
    (agents rename themselves, "ray::DashboardAgent", so the command line cannot tell)."""
    tag = b"\0SOFTIRR_RAY_OWNER=%d-" % driver_pid
    found = []
    for p in os.listdir("/proc"):
        if p.isdigit():
            try:
                with open(f"/proc/{p}/environ", "rb") as f:
                    if tag in b"\0" + f.read():
                        found.append(int(p))
            except OSError:
                pass
    return found


def test_sigkill_of_the_driver_takes_the_local_ray_instance_with_it():
    driver = subprocess.Popen([sys.executable, "-c", DRIVER], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                              text=True)
    try:
        assert driver.stdout.readline().strip() == "started", "the driver did not start Ray"
        tag = driver.pid
        time.sleep(5)  # the raylet starts its agents
        assert _session_processes(tag), "no process of the Ray instance found"
        driver.send_signal(signal.SIGKILL)
        driver.wait(timeout=30)
        deadline = time.monotonic() + 20
        while _session_processes(tag) and time.monotonic() < deadline:
            time.sleep(0.5)
        assert _session_processes(tag) == []
    finally:
        if driver.poll() is None:
            driver.kill()
        for p in _session_processes(driver.pid):
            try:
                os.kill(p, signal.SIGKILL)
            except OSError:
                pass
