#!/usr/bin/env bash
# Trains several sotu-small recipes side by side on one GPU (scripts/train_small_model.py --device cuda),
# each for at most MINUTES of training, and ranks them by the model card's own figures: the validation
# loss against the shipped model's 4.40, the best previous-token head against 0.6 and the best
# induction head on repeated random tokens against 0.3. How the shipped model's recipe was chosen.
# Side by side the runs share the GPU in turns: on an H200 six ran at ~82,000 tokens/s each, one
# alone (train_small_model.py --device cuda) at ~495,000, so a sweep buys breadth, not tokens.
# Usage: scripts/train_sweep.sh OUT MINUTES [DEVICE]   (DEVICE cpu: a smoke test of this script)
# Writes OUT/<recipe>/ (model.safetensors, config.json, train.log, MODEL_CARD.md) and OUT/ranking.txt.
set -u
out=${1:?usage: scripts/train_sweep.sh OUT MINUTES [DEVICE]} minutes=${2:?minutes} device=${3:-cuda}
here=$(cd "$(dirname "$0")" && pwd)
python=${PYTHON:-python3}
mkdir -p "$out"
# name: options. All: a 256-token context, 64 windows a step, the full softmax every step (on a GPU
# the restricted softmax saves little), the book's dropout; the token budgets are upper limits.
# The ninth session's six (sinusoid or learned positions, dropout 0.1/0.2, 60M-400M tokens, 10% repeated
# text) all left induction at 0.00; small CPU pilots then showed why: with the sinusoid table at RMS 0.1
# a 2-layer model learned no copy of a repeated half in 1,000 steps where learned positions did in 250,
# and a copy always half a context back can be learned as a fixed offset. So these learn positions
# and repeat random spans at random distances (--repeat-kind span), which only an induction head predicts.
# Tenth session, H200, 5.6 min (~98,000 tokens/s each, ~32M tokens): validation 4.36-5.62, previous-token
# 0.07-0.30, induction 0.003 in all five; then learned-span at 50% alone, 135M tokens: 4.399, 0.39, 0.003.
# None learned any copy (on repeated halves the second half's loss stays at the first's, ~9.13, the
# entropy of the random ids), while a 2-layer pilot of this script on repeated windows alone (learned
# positions, 64-token context) began to copy by step 300 (its loss 9.13 -> 8.15 by step 400): mixed
# with text, the copy did not form at these budgets; why is still open.
recipes=(
  "learned-half20: --tokens 400000000 --positions learned --repeat-fraction 0.2"
  "learned-span20: --tokens 400000000 --positions learned --repeat-fraction 0.2 --repeat-kind span"
  "learned-span40: --tokens 400000000 --positions learned --repeat-fraction 0.4 --repeat-kind span"
  "learned-span40-d0: --tokens 400000000 --positions learned --repeat-fraction 0.4 --repeat-kind span --drop-rate 0"
  "sin1-span40: --tokens 400000000 --position-rms 1 --repeat-fraction 0.4 --repeat-kind span"
)
[[ $device == cpu ]] && recipes=("${recipes[@]:0:2}")
common=(--device "$device" --minutes "$minutes" --context 256 --batch 64 --peak-lr 2e-3 --restricted-softmax 0
        --drop-rate 0.1 --eval-every 1000)
[[ $device == cpu ]] && common+=(--context 32 --batch 4 --eval-every 20)
limit=$(awk -v m="$minutes" 'BEGIN { print int(m * 60) + 150 }')  # a hung run cannot hold the GPU
[[ $device == cpu ]] && limit=$(( limit + 900 ))  # evaluation on a CPU takes minutes
pids=()
for r in "${recipes[@]}"; do
  name=${r%%:*}
  # shellcheck disable=SC2086  # the recipe's options are words
  ATTNSCOPE_TRAIN_THREADS=2 timeout "$limit" \
    "$python" "$here/train_small_model.py" --out "$out/$name" "${common[@]}" ${r#*:} >"$out/$name.out" 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait "$p"; done
"$python" - "$out" <<'PY'
import os, re, sys
out, rows = sys.argv[1], []
for name in sorted(os.listdir(out)):
    log = os.path.join(out, name, "train.log")
    if not os.path.exists(log):
        continue
    text = open(log).read()
    val = re.search(r"validation loss: F16-rounded ([0-9.]+)", text)
    heads = re.search(r"best previous-token head \d\.\d: ([0-9.]+); best induction head \(repeated tokens\) \d\.\d: ([0-9.]+)", text)
    if not (val and heads):
        rows.append((9, 0.0, 99.0, name, "did not finish"))
        continue
    v, p, i = float(val.group(1)), float(heads.group(1)), float(heads.group(2))
    # Below the shipped model's loss first; then the weaker of the two heads against its target.
    rows.append((0 if v < 4.40 else 1, -min(p / 0.6, i / 0.3), v, name, f"val {v:.3f} prev {p:.3f} induction {i:.3f}"))
with open(os.path.join(out, "ranking.txt"), "w") as f:
    for r in sorted(rows):
        f.write(f"{r[3]} {r[4]}\n")
print(open(os.path.join(out, "ranking.txt")).read(), end="")
PY
