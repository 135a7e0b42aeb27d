"""Line-oriented inputs break lines at \\n, \\r\\n and \\r only, never inside a JSON string or a text field."""

import json
import warnings

import pytest

import softirr_stats as sis
from softirr_stats.data._readers._common import text_lines

SEPARATORS = ["\u2028", "\u2029", "\u0085", "\x0c"]


@pytest.mark.parametrize("sep", SEPARATORS)
def test_jsonl_label_with_a_unicode_line_separator_reads(tmp_path, sep):
    rows = [{"item": 1, "rater": "a", "label": f"x{sep}y"}, {"item": 1, "rater": "b", "label": f"x{sep}y"},
            {"item": 2, "rater": "a", "label": "z"}, {"item": 2, "rater": "b", "label": "z"}]
    f = tmp_path / "ratings.jsonl"
    f.write_text("\r\n".join(json.dumps(r, ensure_ascii=False) for r in rows) + "\r\n", encoding="utf-8")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ann = sis.read_annotations(f)
    assert ann.vocabulary == (f"x{sep}y", "z") and ann.n_items == 2
    assert sis.percent_agreement(ann).value == 1.0


def test_a_malformed_jsonl_line_is_named_by_its_real_number(tmp_path):
    f = tmp_path / "bad.jsonl"
    f.write_text('{"item": 1, "rater": "a", "label": "x\u2028y"}\n{"item": 1, "rater": "b"\n', encoding="utf-8")
    with pytest.raises(ValueError, match="line 2"):
        sis.read_annotations(f)


def test_brat_mention_text_with_a_unicode_line_separator(tmp_path):
    text = "Fever\u2028and cough."
    for who in ("ann", "bob"):
        (tmp_path / who).mkdir()
        (tmp_path / who / "n1.txt").write_text(text, encoding="utf-8")
        (tmp_path / who / "n1.ann").write_text("T1\tfinding 0 11\tFever\u2028and\n", encoding="utf-8")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = sis.span_agreement(tmp_path, match="exact")
    assert res.value == 1.0


def test_text_lines_matches_splitlines_on_ordinary_line_breaks():
    for text in ["a\nb\n", "a\r\nb", "a\rb\r", "", "\n", "a\n\nb"]:
        assert text_lines(text) == text.splitlines()
