"""softirr model --steps (and --warmup / --samples, report --model-steps) beyond what JAX's 32-bit loop counter
counts are refused naming the flag, before the file is read: --steps 10000000000 printed a 109.7 h estimate, then
failed with "a number is too large to compute with" (a JAX overflow)."""

import pytest


@pytest.fixture
def ratings(tmp_path, write_ratings, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return write_ratings(tmp_path / "r.csv")


@pytest.mark.parametrize(("args", "said"), [
    (["--method", "svi", "--steps", "10000000000"],
     "--steps 10000000000 is more than JAX's 32-bit step counter counts: at most 2147483647 SVI steps"),
    (["--method", "svi", "--steps", str(2**31)],
     f"--steps {2**31} is more than JAX's 32-bit step counter counts: at most 2147483647 SVI steps"),
    (["--warmup", "2000000000", "--samples", "2000000000"],
     "--warmup + --samples (4000000000) is more than JAX's 32-bit step counter counts: at most 2147483647 NUTS "
     "iterations per chain"),
])
def test_a_run_longer_than_the_counter_is_refused_naming_the_flag(run_cli, ratings, args, said):
    code, out, err = run_cli("model", ratings, *args)
    assert code == 2 and out == ""
    assert err == f"error: {said}\n"  # no estimate of hours before it, no JAX message


def test_report_model_steps_has_the_same_bound(run_cli, ratings):
    code, _, err = run_cli("report", ratings, "--model", "dawid_skene", "--model-method", "svi",
                           "--model-steps", "10000000000", "-o", "r.html")
    assert code == 2
    assert "--model-steps 10000000000 is more than JAX's 32-bit step counter counts: at most 2147483647" in err
