"""``softirr report``: the annotator model's flags only where the model is fitted, and as fitted."""

import pytest

from softirr_stats.cli.report import model_flags


@pytest.mark.parametrize(("args", "says"), [
    (["--model-method", "svi"],
     "--model-method is a setting of --model (the annotator model fitted for the report); no --model was given"),
    (["--model-steps", "200"], "--model-steps is a setting of --model (the annotator model fitted for the report)"),
    (["--model-method", "svi", "--model-steps", "200"], "--model-method and --model-steps are settings of --model"),
    (["--model", "mace", "--model-steps", "200"],
     "--model-steps is a setting of --model-method svi (SVI optimisation steps); --model-method nuts (the default) "
     "takes none"),
    (["--model", "mace", "--model-method", "nuts", "--model-steps", "200"],
     "--model-steps is a setting of --model-method svi (SVI optimisation steps); --model-method nuts takes none"),
    (["--model", "mace", "--model-method", "svi", "--model-steps", "0"], "--model-steps must be a positive integer"),
    (["--model", "mace", "--model-method", "vi"], "unknown --model-method 'vi'"),
])
def test_model_flags_where_no_model_uses_them_are_refused(args, says, tmp_path, write_ratings, run_cli):
    data = write_ratings(tmp_path / "r.csv")
    code, out, err = run_cli("report", str(data), "-o", str(tmp_path / "r.html"), *args)
    assert code == 2 and out == "" and says in err
    assert not (tmp_path / "r.html").exists()


def test_the_flags_a_model_uses_pass():
    assert model_flags("mace", "svi", 200) is None
    assert model_flags("mace", None, None) is None and model_flags(None, None, None) is None
