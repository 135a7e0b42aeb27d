"""Specs are data, never code: allow-listed classes and functions, checked before any import;
no key and no remote model code travels in a spec (issue 20, items 1 and 5)."""

import json
import sys
import textwrap

import numpy as np
import pytest
from typer.testing import CliRunner

from softirr_stats.cli import app
from softirr_stats.cli.score import estimator_for_measure
from softirr_stats.equivalence import (
    BaseEstimator,
    EstimatorSpec,
    Levenshtein,
    OpenAICompatibleJudge,
    SetMatch,
    _spec,
    from_spec,
    to_spec,
)
from softirr_stats.equivalence._ray import _ScoringActor
from softirr_stats.equivalence._spec import register_callable, register_estimator

LEV = "softirr_stats.equivalence._string:Levenshtein"


@pytest.fixture
def registry():
    """Restore the process's registrations after a test."""
    est, fns = dict(_spec._user_estimators), dict(_spec._user_callables)
    yield
    _spec._user_estimators.clear()
    _spec._user_estimators.update(est)
    _spec._user_callables.clear()
    _spec._user_callables.update(fns)


def os_system_spec():
    return json.dumps({"cls": LEV, "params": {"processor": {"__callable__": "os:system"}}})


def test_os_system_processor_is_refused_and_nothing_runs(tmp_path, monkeypatch):
    marker = tmp_path / "ran"
    calls = []
    monkeypatch.setattr("os.system", lambda cmd: calls.append(cmd) or 0)
    spec = os_system_spec()
    for text in (spec, "@" + str(_write(tmp_path / "spec.json", spec))):
        with pytest.raises(ValueError, match=r"function 'os:system' is not on the allow-list.*register_callable"):
            estimator_for_measure(text)
    with pytest.raises(ValueError, match="not on the allow-list"):
        from_spec(spec)
    with pytest.raises(ValueError, match="not on the allow-list"):
        _ScoringActor(spec)  # the Ray actor's constructor
    # through the real command: the labels would be shell commands
    csv = _write(tmp_path / "a.csv", f"item,rater,label\n1,a,touch {marker}\n1,b,touch {marker}x\n")
    res = CliRunner().invoke(app, ["score", str(csv), "-m", spec, "--cache", str(tmp_path / "s.sqlite"),
                                   "--no-progress"])
    assert res.exit_code != 0 and "allow-list" in res.output, res.output
    assert calls == [] and not marker.exists() and not (tmp_path / "ranx").exists()


def _write(path, text):
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def side_effect_module(tmp_path, monkeypatch):
    """A module whose import writes a file (and defines an estimator and a function)."""
    marker = tmp_path / "imported"
    (tmp_path / "sirr_evil_mod.py").write_text(textwrap.dedent(f"""
        import pathlib
        pathlib.Path({str(marker)!r}).write_text("ran")
        from softirr_stats.equivalence import BaseEstimator

        class Thing(BaseEstimator):
            def _score(self, a, b):
                return [0.5] * len(a)

        def shout(s):
            return s.upper()
    """))
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "sirr_evil_mod", raising=False)
    return marker


@pytest.mark.parametrize("spec", [
    {"cls": "sirr_evil_mod:Thing"},
    {"cls": "softirr_stats.equivalence._setmatch:SetMatch",
     "params": {"base": {"__estimator__": {"cls": "sirr_evil_mod:Thing", "params": {}}}}},
    {"cls": LEV, "params": {"processor": {"__callable__": "sirr_evil_mod:shout"}}},
    {"cls": LEV, "params": {"processor": [{"x": {"__callable__": "sirr_evil_mod:shout"}}]}},
], ids=["class", "nested-estimator", "callable", "deep-callable"])
def test_module_with_import_side_effect_is_never_imported(side_effect_module, spec):
    with pytest.raises(ValueError, match="sirr_evil_mod:.*is not on the allow-list, so it was not imported"):
        from_spec(spec)
    with pytest.raises(ValueError, match="not on the allow-list"):
        estimator_for_measure(json.dumps(spec))
    assert not side_effect_module.exists() and "sirr_evil_mod" not in sys.modules


def test_registered_class_and_callable_are_allowed(side_effect_module, registry):
    import sirr_evil_mod  # the user trusts it: imported by their own code

    with pytest.raises(ValueError, match="not on the allow-list"):
        from_spec({"cls": "sirr_evil_mod:Thing"})
    assert register_estimator(sirr_evil_mod.Thing) is sirr_evil_mod.Thing
    assert from_spec({"cls": "sirr_evil_mod:Thing"})(["a"], ["b"]).tolist() == [0.5]
    spec = {"cls": LEV, "params": {"processor": {"__callable__": "sirr_evil_mod:shout"}}}
    with pytest.raises(ValueError, match="register_callable"):
        from_spec(spec)
    register_callable(sirr_evil_mod.shout)
    assert from_spec(spec).processor is sirr_evil_mod.shout
    with pytest.raises(TypeError, match="subclass of softirr_stats.equivalence.BaseEstimator"):
        register_estimator(dict)
    with pytest.raises(TypeError, match="module level"):
        register_callable(lambda s: s)


def test_public_alias_and_package_functions_are_allowed():
    assert type(from_spec({"cls": "softirr_stats.equivalence:Levenshtein"})) is Levenshtein
    tok = from_spec({"cls": "softirr_stats.equivalence._string:Jaccard",
                     "params": {"tokenizer": {"__callable__": "softirr_stats.equivalence._string:whitespace_tokens"}}})
    assert tok(["a b"], ["b a"]).tolist() == [1.0]


def test_entry_point_group_allows_an_installed_package(tmp_path, monkeypatch):
    (tmp_path / "sirr_plugin.py").write_text(textwrap.dedent("""
        from softirr_stats.equivalence import BaseEstimator

        class Half(BaseEstimator):
            def _score(self, a, b):
                return [0.5] * len(a)

        def lower(s):
            return s.lower()
    """))
    dist = tmp_path / "sirr_plugin-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: sirr-plugin\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text("[softirr_stats.estimators]\nhalf = sirr_plugin:Half\n\n"
                                           "[softirr_stats.callables]\nlower = sirr_plugin:lower\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert from_spec({"cls": "sirr_plugin:Half"})(["a"], ["b"]).tolist() == [0.5]
    lev = from_spec({"cls": LEV, "params": {"processor": {"__callable__": "sirr_plugin:lower"}}})
    assert lev(["ABC"], ["abc"]).tolist() == [1.0]
    with pytest.raises(ValueError, match="not on the allow-list"):
        from_spec({"cls": "sirr_plugin:Other"})


def test_trust_remote_code_is_refused_in_a_spec():
    spec = {"cls": "softirr_stats.equivalence._nli:Nli", "params": {"model": "x/y", "trust_remote_code": True}}
    with pytest.raises(ValueError, match="trust_remote_code=true would run model code"):
        from_spec(spec)
    assert from_spec(spec, trust_remote_code=True).trust_remote_code is True


def test_ray_actor_gets_the_driver_objects_paths(side_effect_module):
    import sirr_evil_mod

    spec = to_spec(sirr_evil_mod.Thing())  # the driver holds the object: trusted for the round trip
    with pytest.raises(ValueError, match="not on the allow-list"):
        _ScoringActor(spec.to_json())  # a worker does not trust it on its own
    actor = _ScoringActor(spec.to_json(), tuple(_spec.spec_paths(spec)))
    assert actor.score(["a"], ["b"]).tolist() == [0.5]


def test_deep_or_malformed_specs_are_refused():
    deep = {"cls": LEV, "params": {"processor": None}}
    for _ in range(40):
        deep = {"cls": "softirr_stats.equivalence._setmatch:SetMatch", "params": {"base": {"__estimator__": deep}}}
    with pytest.raises(ValueError, match="nested more than 32 levels"):
        from_spec(deep)
    with pytest.raises(ValueError, match="nested too deeply"):
        EstimatorSpec.from_json("[" * 100_000 + "]" * 100_000)
    with pytest.raises(TypeError, match="one string"):
        from_spec({"cls": LEV}, allow="x:y")


# --- keys -------------------------------------------------------------------------------------
def test_spec_never_carries_an_api_key(monkeypatch):
    judge = OpenAICompatibleJudge("https://api.example.org/v1", "m", api_key="sk-LITERAL-123")
    with pytest.raises(ValueError, match=r"literal key.*api_key_env='OPENAI_API_KEY'") as info:
        to_spec(judge)
    assert "sk-LITERAL-123" not in str(info.value)
    by_name = OpenAICompatibleJudge("https://api.example.org/v1", "m", api_key_env="OPENAI_API_KEY")
    text = to_spec(by_name).to_json()
    assert "OPENAI_API_KEY" in text and json.loads(text)["params"]["api_key"] is None
    rebuilt = from_spec(text)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-from-env")
    assert rebuilt._key() == "sk-from-env"
    monkeypatch.delenv("OPENAI_API_KEY")
    with pytest.raises(ValueError, match="api_key_env='OPENAI_API_KEY', but that environment variable is not set"):
        rebuilt._key()
    literal = {"cls": "softirr_stats.equivalence._judge:OpenAICompatibleJudge",
               "params": {"base_url": "https://api.example.org/v1", "model": "m", "api_key": "sk-IN-FILE"}}
    with pytest.raises(ValueError, match="literal credential") as info:
        from_spec(literal)
    assert "sk-IN-FILE" not in str(info.value)
    # neither the key nor the variable's name is part of the fingerprint (stored in cache files)
    assert "sk-" not in judge.fingerprint and "OPENAI_API_KEY" not in by_name.fingerprint
    assert judge.fingerprint == by_name.fingerprint


def test_api_key_env_must_be_a_variable_name():
    with pytest.raises(ValueError, match="not the key itself") as info:
        OpenAICompatibleJudge("https://h/v1", "m", api_key_env="sk-abc/def")
    assert "sk-abc" not in str(info.value)
    with pytest.raises(ValueError, match="not both"):
        OpenAICompatibleJudge("https://h/v1", "m", api_key="k", api_key_env="K")
    with pytest.raises(ValueError, match="user name or password"):
        OpenAICompatibleJudge("https://user:pw@h/v1", "m")


@pytest.mark.parametrize("url, warns", [
    ("http://api.example.org/v1", True), ("http://10.0.0.5:8000/v1", True), ("https://api.example.org/v1", False),
    ("http://127.0.0.1:8000/v1", False), ("http://localhost:8000/v1", False), ("http://[::1]:8000/v1", False),
])
def test_key_in_clear_to_another_host_warns(url, warns, recwarn):
    OpenAICompatibleJudge(url, "m", api_key="k")
    OpenAICompatibleJudge(url, "m")  # no key: nothing to leak
    msgs = [str(w.message) for w in recwarn if issubclass(w.category, UserWarning)]
    assert any("sent in clear over plain http://" in m for m in msgs) == warns, msgs
    assert len(msgs) == int(warns)


class Thr(Levenshtein):
    """A user subclass with a constructor parameter."""

    def __init__(self, t: float = 0.5) -> None:
        super().__init__()
        self.t = t


def test_user_subclass_round_trip_keeps_its_argument():
    spec = to_spec(Thr(0.9))
    assert spec.params == {"t": 0.9}
    with pytest.raises(ValueError, match="not on the allow-list"):
        from_spec(spec.to_json())
    assert _ScoringActor(spec.to_json(), tuple(_spec.spec_paths(spec))).est.t == 0.9
    assert isinstance(SetMatch(Thr(0.1)), BaseEstimator) and np.isfinite(Thr(0.1)(["a"], ["b"])).all()


# --- a non-symmetric similarity= matrix says so (issue 20, item 3) ---------------------------
def test_non_symmetric_similarity_matrix_warns_naming_the_asymmetry():
    import warnings

    import softirr_stats as sis
    from softirr_stats.base._validation import SoftIRRWarning

    table = [["a", "b"], ["b", "b"], ["a", "a"], ["a", "b"]]
    asym = np.array([[1.0, 0.2], [0.6, 1.0]])
    with pytest.warns(SoftIRRWarning, match=r"not symmetric: max \|S - S.T\| = 0.4 .*symmetrised as \(S \+ S.T\) / 2"):
        got = sis.cohen_kappa(table, similarity=asym).value
    sym = np.array([[1.0, 0.4], [0.4, 1.0]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # symmetric, or asymmetric only by round-off: silent
        assert got == pytest.approx(sis.cohen_kappa(table, similarity=sym).value, abs=1e-12)
        sis.cohen_kappa(table, similarity=sym + np.array([[0, 1e-14], [0, 0]]))
