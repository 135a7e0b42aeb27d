"""No abort at exit (issue 35 row 9): after an error with CSV input the process exits with its status.

The streaming CSV reader used to read through a Python file object; when one of Arrow's I/O
threads dropped the last reference to it during interpreter shutdown the process aborted
("terminate called without an active exception", exit 134) in about 5 % of runs. The reader now
reads an Arrow file and is closed on every way out of ``_columnar._csv_columns``. The failure was
intermittent, so each input is run many times, a few processes at a time.
"""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

# (case, CSV text, expected exit status, words of the error line)
ERRORS = [
    ("duplicate rows (Arrow reads to the end)", "item,rater,label\n" + "".join(f"{i},a,x\n{i},b,y\n" for i in range(200))
     + "7,a,z\n", 2, "duplicate (item, rater) rows"),
    ("extra fields (Arrow fails mid-file)", "item,rater,label\n" + "".join(f"{i},a,x\n{i},b,y\n" for i in range(200))
     + "7,a,z,extra\n", 2, "cannot be parsed as CSV"),
]
RUNS = 20  # per case: 40 runs in all
AT_ONCE = 8


@pytest.mark.slow
@pytest.mark.parametrize("case, text, status, words", ERRORS, ids=[e[0] for e in ERRORS])
def test_erroring_csv_exits_with_its_status_every_time(tmp_path, case, text, status, words):
    exe = shutil.which("softirr", path=str(Path(sys.executable).parent))
    assert exe is not None
    path = tmp_path / "bad.csv"
    path.write_text(text)
    codes, errs = [], []
    for start in range(0, RUNS, AT_ONCE):
        procs = [subprocess.Popen([exe, "agree", str(path), "--bootstrap", "0"], stdout=subprocess.DEVNULL,
                                  stderr=subprocess.PIPE, text=True) for _ in range(min(AT_ONCE, RUNS - start))]
        for p in procs:
            _, err = p.communicate(timeout=300)
            codes.append(p.returncode)
            errs.append(err)
    assert codes == [status] * RUNS, [(c, e[-300:]) for c, e in zip(codes, errs, strict=True) if c != status][:3]
    assert all(words in e and "terminate called" not in e for e in errs), errs[0]
