"""Every input format of the formats table (``data.INPUT_FORMATS``) reads its example and refuses garbage.

``EXAMPLES`` holds one example per format (a fixture export, or a long table written from one);
``test_every_format_has_an_example`` fails when a format of the table has none, so a new reader
is held to the same checks: its example reads into annotations with ratings from at least two
raters, the format is guessed from the file, the command line offers it, and a file of garbage
(bytes that are not text, text that is not the format) is refused with a ValueError that names
the file (or, for a long table, the column it lacks).
"""

import pathlib

import pandas as pd
import pytest

from softirr_stats.cli import _options
from softirr_stats.data import EXPORT_FORMATS, INPUT_FORMATS, TABLE_FORMATS
from softirr_stats.data._io import read_annotations
from softirr_stats.data._readers import guess_format, reader_options

pytestmark = pytest.mark.filterwarnings("ignore::softirr_stats.data.ExportWarning")

EXPORTS = pathlib.Path(__file__).resolve().parents[1] / "fixtures" / "exports"
TABLE = EXPORTS / "label_studio" / "expected_sentiment.csv"  # item, rater, label


def _table_as(fmt: str, tmp: pathlib.Path) -> pathlib.Path:
    frame = pd.read_csv(TABLE, dtype=str)
    path = tmp / f"ratings.{fmt}"
    if fmt == "tsv":
        frame.to_csv(path, sep="\t", index=False)
    elif fmt == "parquet":
        frame.to_parquet(path)
    elif fmt == "xlsx":
        frame.to_excel(path, index=False)  # openpyxl (the excel extra)
    return path


#: format -> (tmp folder -> example path, reader options)
EXAMPLES = {
    "csv": (lambda tmp: TABLE, {}),
    "tsv": (lambda tmp: _table_as("tsv", tmp), {}),
    "jsonl": (lambda tmp: EXPORTS / "label_studio" / "expected_topic.jsonl", {}),
    "parquet": (lambda tmp: _table_as("parquet", tmp), {}),
    "xlsx": (lambda tmp: _table_as("xlsx", tmp), {}),
    "label-studio": (lambda tmp: EXPORTS / "label_studio" / "project-7-export.json", {"field": "sentiment"}),
    "doccano": (lambda tmp: EXPORTS / "doccano" / "classification", {}),
    "prodigy": (lambda tmp: EXPORTS / "prodigy" / "choice.jsonl", {}),
    "webanno-tsv": (lambda tmp: EXPORTS / "webanno" / "annotation", {"layer": "NamedEntity"}),
    "brat": (lambda tmp: EXPORTS / "brat" / "by_annotator", {}),
}
#: the file name each format's reader is usually given (a folder format: a folder holding one)
SUFFIX = {"csv": ".csv", "tsv": ".tsv", "jsonl": ".jsonl", "parquet": ".parquet", "xlsx": ".xlsx", "label-studio": ".json",
          "doccano": ".jsonl", "prodigy": ".jsonl", "webanno-tsv": ".tsv", "brat": "alice/doc1.ann"}
GARBAGE = {"bytes": b"\x00\x01 not text \xff\xfe{[\n", "text": b"hello world\nthis is no annotation export\n"}


def test_every_format_has_an_example():
    assert set(EXAMPLES) == set(SUFFIX) == set(INPUT_FORMATS)
    assert INPUT_FORMATS == (*TABLE_FORMATS, *EXPORT_FORMATS)
    assert _options.INPUT_FORMATS == INPUT_FORMATS  # --input-format reads the table


@pytest.mark.parametrize("fmt", INPUT_FORMATS)
def test_the_example_reads_and_its_format_is_guessed(fmt, tmp_path):
    make, options = EXAMPLES[fmt]
    path = make(tmp_path)
    ann = read_annotations(path, format=fmt, **options)
    assert ann.n_items >= 2 and ann.n_raters >= 2 and ann.n_ratings > 0
    assert guess_format(path) == fmt
    if fmt in EXPORT_FORMATS:
        assert set(options) <= set(reader_options(fmt))  # the options are the reader's own parameters
        assert read_annotations(path, **options).n_ratings == ann.n_ratings  # format= guessed
    else:
        assert read_annotations(path).n_ratings == ann.n_ratings


@pytest.mark.parametrize("kind", list(GARBAGE))
@pytest.mark.parametrize("fmt", INPUT_FORMATS)
def test_garbage_is_refused_naming_the_file(fmt, kind, tmp_path):
    path = tmp_path / SUFFIX[fmt]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(GARBAGE[kind])
    given = tmp_path if "/" in SUFFIX[fmt] else path  # a folder format is given its folder
    with pytest.raises(ValueError) as err:
        read_annotations(given, format=fmt)
    message = str(err.value)
    assert message.strip() and "Traceback" not in message
    assert path.name in message or given.name in message or "column 'item'" in message, message
