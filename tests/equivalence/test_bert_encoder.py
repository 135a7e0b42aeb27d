"""The bundled MiniLM read straight from safetensors: the same token ids and hidden states as
transformers' tokenizer and BertModel, without importing transformers."""

import json
import shutil
import subprocess
import sys

import numpy as np
import pytest
import torch

from softirr_stats.equivalence._bert import load_bert, readable
from softirr_stats.equivalence._embedding import default_embedding_path

TEXTS = ["fever", "pyrexia", "Myocardial INFARCTION", "naïve café", "中文 text", "  spaced\tout  ", "",
         "a much longer description of a finding that spans many word pieces " * 3]


def test_readable_only_where_the_forward_pass_is_exact(tmp_path):
    path = default_embedding_path()
    assert readable(path)
    copy = tmp_path / "m"
    shutil.copytree(path, copy)
    assert readable(copy)
    cfg = json.loads((copy / "config.json").read_text())
    for change in ({"position_embedding_type": "relative_key"}, {"hidden_act": "gelu_new"},
                   {"model_type": "roberta"}, {"auto_map": {"AutoModel": "x.Y"}}):
        (copy / "config.json").write_text(json.dumps({**cfg, **change}))
        assert not readable(copy), change
    (copy / "config.json").write_text(json.dumps(cfg))
    (copy / "tokenizer.json").unlink()
    assert not readable(copy)
    with pytest.raises(ValueError, match="not a BERT directory"):
        load_bert(copy)


def test_same_ids_and_hidden_states_as_transformers():
    from transformers import AutoModel, AutoTokenizer

    path = default_embedding_path()
    tok, enc = load_bert(path)
    ref_tok = AutoTokenizer.from_pretrained(path)
    ref = AutoModel.from_pretrained(path, use_safetensors=True).eval()
    ids = tok(TEXTS)["input_ids"]
    assert ids == ref_tok(TEXTS, truncation=False, padding=False, add_special_tokens=True)["input_ids"]
    batch = tok.pad({"input_ids": ids})
    ref_batch = ref_tok.pad({"input_ids": ids}, return_tensors="pt")
    assert all(torch.equal(batch[k], ref_batch[k]) for k in ("input_ids", "attention_mask"))
    mine = enc(**batch).last_hidden_state
    with torch.no_grad():
        theirs = ref(**ref_batch).last_hidden_state
    real = batch["attention_mask"].bool()  # padded positions are never pooled
    assert mine.shape == theirs.shape == (len(TEXTS), batch["input_ids"].shape[1], 384)
    assert torch.allclose(mine[real], theirs[real], atol=1e-5, rtol=0)
    assert enc.config.hidden_size == 384 and enc.config.max_position_embeddings == 512
    half = load_bert(path, torch.bfloat16)[1](**batch).last_hidden_state
    assert half.dtype == torch.bfloat16 and torch.isfinite(half.float()).all()


def test_the_embedding_estimator_does_not_import_transformers():
    code = ("import json, sys\nfrom softirr_stats.equivalence import Embedding\n"
            "s = Embedding(progress=False)(['heart attack', 'fever'], ['myocardial infarction', 'fever'])\n"
            "print(json.dumps(s.tolist()))\nprint('transformers' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    scores, imported = out.stdout.strip().splitlines()
    values = np.array(json.loads(scores))
    assert imported == "False"
    assert 0.3 < values[0] < 1.0 and values[1] == pytest.approx(1.0)
    assert "Loading weights" not in out.stderr
