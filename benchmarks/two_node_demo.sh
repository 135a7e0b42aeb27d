#!/usr/bin/env bash
# Two Ray nodes on this machine over loopback; `softirr score` across both; the second node is
# SIGKILLed mid-run; the job still completes with every pair stored exactly once.
#
# Not part of the test suite (it starts machine-wide Ray processes). Needs the [distributed]
# and [transformers] extras. Usage:  bash benchmarks/two_node_demo.sh [N_LABELS]
# Only processes this script started are stopped (by pid), never `ray stop`.
set -euo pipefail

N_LABELS=${1:-160}
PORT=${RAY_DEMO_PORT:-6390}
NODE2_PORT=${RAY_DEMO_NODE2_PORT:-6391}
WORK=$(mktemp -d /tmp/softirr_two_node.XXXXXX)
export OMP_NUM_THREADS=1 TOKENIZERS_PARALLELISM=false HF_HUB_OFFLINE=1
export RAY_AUTH_MODE=${RAY_AUTH_MODE:-token}  # the head enables token auth; every node and driver uses it
echo "work dir: $WORK"

pids_now() { ls /proc | grep -E '^[0-9]+$' | sort -n; }
new_pids() { comm -13 <(echo "$1") <(pids_now) | while read -r p; do
  if [ -r "/proc/$p/cmdline" ] && tr '\0' ' ' < "/proc/$p/cmdline" | grep -q -e ray -e gcs -e raylet; then echo "$p"; fi
done; }
kill_list() { for p in $1; do kill -9 "$p" 2>/dev/null || true; done; }

# --- a tiny random BERT-style NLI cross-encoder and an annotation file -------------------
python - "$WORK" "$N_LABELS" <<'EOF'
import sys, os, numpy as np, torch
from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors
from transformers import BertConfig, BertForSequenceClassification, PreTrainedTokenizerFast
from softirr_stats.equivalence import Nli, to_spec
work, n = sys.argv[1], int(sys.argv[2])
words = sorted(["acute", "pain", "chest", "heart", "attack", "fever", "high", "mild", "cough", "dry", "rash",
                "skin", "head", "ache", "leg", "broken", "seizure", "renal", "failure", "liver"])
vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"] + words
wp = Tokenizer(models.WordPiece({t: i for i, t in enumerate(vocab)}, unk_token="[UNK]"))
wp.normalizer = normalizers.BertNormalizer(lowercase=True)
wp.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
wp.post_processor = processors.TemplateProcessing(single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1",
    special_tokens=[("[CLS]", 2), ("[SEP]", 3)])
tok = PreTrainedTokenizerFast(tokenizer_object=wp, unk_token="[UNK]", pad_token="[PAD]", cls_token="[CLS]",
                              sep_token="[SEP]", mask_token="[MASK]", model_max_length=64)
torch.manual_seed(0)
cfg = BertConfig(vocab_size=len(tok), hidden_size=128, num_hidden_layers=4, num_attention_heads=4,
                 intermediate_size=512, max_position_embeddings=64, num_labels=3,
                 id2label={0: "contradiction", 1: "entailment", 2: "neutral"})
path = os.path.join(work, "tiny-nli")
BertForSequenceClassification(cfg).save_pretrained(path); tok.save_pretrained(path)
rng = np.random.default_rng(0)
labels = set()
while len(labels) < n:
    labels.add(" ".join(rng.choice(words, rng.integers(1, 4))))
labels = sorted(labels)
with open(os.path.join(work, "ann.csv"), "w") as f:
    f.write("item,rater,label\n")
    for k, lab in enumerate(labels):  # every label rated twice: the chance support is all labels
        f.write(f"d{k},r1,{lab}\nd{k},r2,{labels[(k * 7 + 3) % n]}\n")
with open(os.path.join(work, "nli.json"), "w") as f:
    f.write(to_spec(Nli(path, device="cpu", dtype="fp32", batch_size=32, progress=False)).to_json())
print(f"{n} labels -> {n * (n - 1) // 2} label pairs in the plan")
EOF

# --- two nodes: a head and a second node, each with 1 CPU ---------------------------------
HEAD_PIDS=""; NODE2_PIDS=""
trap 'kill_list "$NODE2_PIDS"; kill_list "$HEAD_PIDS"' EXIT
before=$(pids_now)
ray start --head --node-ip-address=127.0.0.1 --port="$PORT" --num-cpus=1 --include-dashboard=false \
  --disable-usage-stats >/dev/null || { HEAD_PIDS=$(new_pids "$before"); exit 1; }
HEAD_PIDS=$(new_pids "$before")
before=$(pids_now)
ray start --address="127.0.0.1:$PORT" --node-ip-address=127.0.0.1 --num-cpus=1 \
  --node-manager-port="$NODE2_PORT" --disable-usage-stats >/dev/null || { NODE2_PIDS=$(new_pids "$before"); exit 1; }
NODE2_PIDS=$(new_pids "$before")
echo "head pids: $(echo $HEAD_PIDS); node 2 pids: $(echo $NODE2_PIDS)"
python -c "import ray; ray.init(address='127.0.0.1:$PORT', log_to_driver=False); \
print('cluster:', len([n for n in ray.nodes() if n['Alive']]), 'nodes,', ray.cluster_resources().get('CPU'), 'CPUs')"

# --- score across both; kill node 2 once some batches are committed ------------------------
CACHE="$WORK/scores.sqlite"
t0=$(date +%s)
softirr score "$WORK/ann.csv" -m "@$WORK/nli.json" -c fleiss_kappa --cache "$CACHE" --batch-size 32 \
  --ray-address "127.0.0.1:$PORT" --workers 2 --no-progress --json "$WORK/run.json" > "$WORK/score.log" 2>&1 &
SCORE=$!
n=0
while kill -0 "$SCORE" 2>/dev/null; do
  if [ -f "$CACHE" ]; then
    n=$(python -c "import sqlite3; print(sqlite3.connect('$CACHE', timeout=5).execute('SELECT COUNT(*) FROM scores').fetchone()[0])" 2>/dev/null || echo 0)
  fi
  if [ "$n" -ge 320 ]; then break; fi
  sleep 0.5
done
echo "pairs committed when node 2 is killed: $n (after $(( $(date +%s) - t0 )) s)"
kill_list "$NODE2_PIDS"
NODE2_PIDS=""
wait "$SCORE" && rc=0 || rc=$?
cat "$WORK/score.log"
echo "softirr score exit status: $rc, wall $(( $(date +%s) - t0 )) s"

# --- every pair scored once -----------------------------------------------------------------
python - "$WORK" <<'EOF'
import json, sqlite3, sys
work = sys.argv[1]
run = json.load(open(f"{work}/run.json"))["runs"][0]
con = sqlite3.connect(f"{work}/scores.sqlite")
rows, distinct = con.execute("SELECT COUNT(*), COUNT(DISTINCT a || '|' || b) FROM scores").fetchone()
print(f"plan: {run['n_pairs']} pairs; stored rows: {rows} (distinct {distinct}); written this run: {run['n_written']}; "
      f"batches redone after the node loss: {run['n_redone']}; integrity: {con.execute('PRAGMA integrity_check').fetchone()[0]}")
assert rows == distinct == run["n_pairs"] == run["n_written"], "some pair is missing or stored twice"
print("OK: the job completed with every pair scored once")
EOF
