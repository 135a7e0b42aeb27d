"""Shared test configuration: offline, deterministic, quiet plotting."""

import atexit
import os
import shutil
import tempfile

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("MPLBACKEND", "Agg")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
# the suite never depends on (or fills) the user's compile cache: every session starts empty
_COMPILE_CACHE = tempfile.mkdtemp(prefix="softirr-compile-cache-")
os.environ["SOFTIRR_COMPILE_CACHE"] = _COMPILE_CACHE
atexit.register(shutil.rmtree, _COMPILE_CACHE, ignore_errors=True)

from hypothesis import HealthCheck, settings  # noqa: E402

settings.register_profile("ci", deadline=None, max_examples=40,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("ci")
