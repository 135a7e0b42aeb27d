"""The device setting: ``base._device`` and the commands' ``--device`` (no test needs a GPU)."""

import json
import os
import subprocess
import sys

import pytest

from softirr_stats.base._device import (
    DEVICES,
    check_device,
    compute_record,
    current_device,
    use_device,
)


@pytest.mark.parametrize(("given", "want"), [(None, "auto"), ("auto", "auto"), ("CPU", "cpu"), (" cuda ", "cuda")])
def test_check_device_accepts_the_names(given, want):
    assert check_device(given) == want


@pytest.mark.parametrize(("given", "err", "match"), [
    ("gpu", ValueError, r"device must be one of \['auto', 'cpu', 'cuda'\]; got 'gpu'"),
    ("cuda:0", ValueError, "got 'cuda:0'"),
    (0, TypeError, "device must be a str"),
])
def test_check_device_names_what_is_wrong(given, err, match):
    with pytest.raises(err, match=match):
        check_device(given)


def test_use_device_is_scoped_and_nested():
    assert current_device() == "auto"
    with use_device("cpu"):
        assert current_device() == "cpu"
        with use_device("auto"):
            assert current_device() == "auto"
        assert current_device() == "cpu"
    assert current_device() == "auto"
    assert DEVICES == ("auto", "cpu", "cuda")


def test_compute_record_names_the_jax_backend_once_jax_ran():
    import jax.numpy as jnp

    float(jnp.ones(2).sum())
    rec = compute_record()
    assert rec["jax_backend"] in ("cpu", "gpu", "cuda", "tpu") and rec["device"] == "auto"
    assert isinstance(rec["models"], list)


def _softirr(*args, env=None):
    return subprocess.run([sys.executable, "-m", "softirr_stats.cli", *args], capture_output=True, text=True,
                          env={**os.environ, **(env or {})}, timeout=300)


@pytest.fixture(scope="module")
def small_csv(tmp_path_factory):
    path = tmp_path_factory.mktemp("dev") / "a.csv"
    path.write_text("item,rater,label\n" + "".join(f"{i},r{j},{'ab'[(i * j) % 2]}\n" for i in range(8) for j in (1, 2, 3)))
    return path


def test_agree_on_the_cpu_records_the_device_in_json(small_csv, tmp_path):
    out = tmp_path / "r.json"
    p = _softirr("agree", str(small_csv), "--bootstrap", "0", "--device", "cpu", "--json", str(out))
    assert p.returncode == 0, p.stderr
    meta = json.loads(out.read_text())["meta"]
    assert meta["compute"]["device"] == "cpu"


@pytest.mark.parametrize(("device", "match"), [
    ("gpu", "device must be one of"),
    ("cuda", "no CUDA device is visible"),  # CUDA_VISIBLE_DEVICES="" hides any GPU from the command
])
def test_a_bad_or_missing_device_is_one_error_line(small_csv, device, match):
    p = _softirr("agree", str(small_csv), "--bootstrap", "0", "--device", device, env={"CUDA_VISIBLE_DEVICES": ""})
    assert p.returncode != 0
    assert p.stderr.strip().startswith("error:") and match in p.stderr and "Traceback" not in p.stderr


@pytest.mark.parametrize("command", ["agree", "score", "sensitivity", "report", "model", "demo", "judge plan",
                                     "compare", "plan"])
def test_every_scoring_or_fitting_command_takes_device(command):
    p = _softirr(*command.split(), "--help")
    assert p.returncode == 0 and "--device" in p.stdout


def test_inference_fit_takes_device_and_runs_there():
    import numpy as np

    from softirr_stats import inference, models
    from softirr_stats.inference import SviConfig

    codes = np.array([[0, 0, 1], [1, 1, 1], [0, 0, 0], [1, 0, 1]] * 3)
    post = inference.fit(models.dawid_skene, codes, method="svi", config=SviConfig(steps=20, num_draws=10),
                         device="cpu", progress=False)
    assert post.samples["beta"].shape[0] == 10
    with pytest.raises(ValueError, match="device must be one of"):
        inference.fit(models.dawid_skene, codes, method="svi", device="tpu")
