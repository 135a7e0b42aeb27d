"""The command line's message lines (``error:`` / ``warning:`` / ``note:``): one line each, never acted on."""

import pytest
import typer

from softirr_stats.cli._errors import fail, note, warn


def test_message_lines_show_control_characters_by_their_escapes(capsys):
    """A label or name quoted raw in a message (``ESC [2J``, an OSC 8 link) could clear or repaint the terminal."""
    warn("label '\x1b[2J\x1b[Hcleared'\nsecond line")
    note("rater \x1b]8;;http://evil.example\x1b\\click\x1b]8;;\x1b\\ \x9b1m")
    with pytest.raises(typer.Exit):
        fail("bad \x07 bell")
    err = capsys.readouterr().err
    assert err.splitlines() == ["warning: label '\\x1b[2J\\x1b[Hcleared' second line",
                                "note: rater \\x1b]8;;http://evil.example\\x1b\\click\\x1b]8;;\\x1b\\ \\x9b1m",
                                "error: bad \\x07 bell"]
