"""``--model`` (the model of a model-backed similarity) is one shared option: one flag, one help text."""

import typing

import click
import pytest
import typer

from softirr_stats.cli import app
from softirr_stats.cli._options import ModelOpt

#: the commands whose --model names the model of --similarity nli / llm_judge / embedding
#: (``softirr model`` and ``softirr report`` name their annotator model so: a different option)
SCORING = [("agree",), ("compare",), ("judge", "plan"), ("score",), ("sensitivity",)]


def _command(path: tuple[str, ...]) -> typing.Any:
    cmd = typer.main.get_command(app)
    for name in path:
        cmd = cmd.get_command(click.Context(cmd), name)
        assert cmd is not None, name
    return cmd


@pytest.mark.parametrize("path", SCORING, ids=" ".join)
def test_every_scoring_command_declares_model_with_the_shared_option(path):
    hints = typing.get_type_hints(_command(path).callback, include_extras=True)
    assert hints["model"] is ModelOpt or hints["model"] == ModelOpt


def test_the_flag_and_its_help_are_the_same_in_every_scoring_command():
    params = [next(p for p in _command(path).params if p.name == "model") for path in SCORING]
    assert {tuple(p.opts) for p in params} == {("--model",)}
    assert {p.help for p in params} == {"model directory or hub name for --similarity nli / llm_judge / embedding"}
    assert {p.default for p in params} == {None}
