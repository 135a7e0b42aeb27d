"""``softirr model`` says what the data let the model say (few items, unanimous ratings, a rater with few items),
names the columns of a ``--gold`` table that it does not read (printed and recorded: tests/cli/test_model_options.py,
``test_emission_histogram_with_gold_is_the_python_apis``), and records ``profile_interval`` in ``--json`` only where
the profile-likelihood check runs."""

import json

import pandas as pd

from softirr_stats.cli.model import read_gold


def test_few_items_unanimous_ratings_and_a_one_item_rater_are_said(tmp_path, run_cli):
    lines = ["item,rater,label"] + [f"i{i},{r},{'ab'[i % 2]}" for i in range(10) for r in ("r1", "r2", "r3")]
    path = tmp_path / "unanimous.csv"
    path.write_text("\n".join([*lines, "i0,r4,a"]) + "\n")
    code, out, err = run_cli("model", path, "--method", "svi", "--steps", "20", "-f", "json")
    assert code == 0, err
    meta = json.loads(out)["meta"]
    said = meta["warnings"]
    assert any(w.startswith("FewUnitsWarning: 10 items behind the posterior interval (fewer than 20)") for w in said)
    assert any(w.startswith("PriorDominatedWarning: every item rated twice or more got one label") for w in said)
    assert any(w.startswith("FewUnitsWarning: rater 'r4' rated 1 item (fewer than 5)") for w in said)
    assert meta["profile_interval"] is None  # no profile-likelihood check runs for a categorical model


def test_gold_columns_that_are_not_read_are_named(tmp_path):
    path = tmp_path / "gold.csv"
    pd.DataFrame({"label_a": ["a", "a"], "label_b": ["a", "b"], "judgment": [1, 0], "Draws": [2, 1],
                  "comment": ["x", "y"]}).to_csv(path, index=False)
    notes = read_gold(path).attrs["read_notes"]
    assert notes == ("gold.csv: 2 column(s) not read as gold pairs: 'Draws', 'comment' (the gold pairs are "
                     "read from label_a, label_b, judgment (or equivalent) and draws; each row counts as one "
                     "draw where draws is not given)",)
    pd.DataFrame({"label_a": ["a"], "label_b": ["b"], "judgment": [0], "draws": [3]}).to_csv(path, index=False)
    assert read_gold(path).attrs.get("read_notes", ()) == ()
