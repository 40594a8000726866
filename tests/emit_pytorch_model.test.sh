#!/usr/bin/env bash
# attnscope-cli --model M --emit-pytorch: the program it prints, run with Debian's PyTorch
# (/usr/bin/python3 with python3-torch only: no safetensors or transformers package),
# prints the head's attention weights and the next tokens of attnscope-cli's JSON within
# 1e-4 of each one's scale, and the same generated ids (tests/compare_model_program.py):
# the shipped sotu-small (two texts, two heads and the default 0.0, --generate greedy and
# sampled as chapter 5's generate samples, the next tokens after a position picked with
# --next-at while generation goes on after the last), chapter 4's seeded gpt-ch4 (the
# book's "Hello, I am"), and small checkpoints with transformer. names, F16 and buffers,
# BF16 with heads of 64 and an untied lm_head; and the four golden Llama-family folders (Llama, Llama 3
# with scaled RoPE and a tied head in BF16, Qwen2.5 with biases in two F16 shards, Qwen3 with q/k norms
# and one key/value head) with a one-character tokenizer.json, on scripts/llama_family.py: grouped
# query heads, greedy and sampled generation, --next-at. A program with a fault put in (c_attn's query
# weights not transposed; a Llama's queries rotated the wrong way) must fail the comparison. Bad input:
# exit 2, one line.
# Usage: tests/emit_pytorch_model.test.sh BUILD_DIR   (ctest passes the build directory)
set -u

here=$(cd "$(dirname "$0")" && pwd)
source "$here/cli_lib.sh" "${1:-}" torch
source "$here/tiny_llama_hub.sh"  # one_char_tokenizer
golden="$here/golden/checkpoints"

# The programs run together at the end, each in a process of its own (tests/run_programs.py
# imports torch once); each check below is queued meanwhile: "agree NAME" or "must_fail NAME
# BROKEN WHAT".
programs=()
checks=()

# agree NAME ARGS...: the CLI's JSON as NAME.json, its program as NAME.py; the program's
# prints then its JSON line (NAME.py.out) must agree with the JSON. $head_args (--layer L
# --head H) go to the program only: a Llama-family model's JSON lists every head and takes neither.
head_args=()
agree() {
    local name=$1
    shift
    if ! "$cli" "$@" >"$tmp/$name.json" 2>"$tmp/err" ||
        ! "$cli" "$@" "${head_args[@]}" --emit-pytorch >"$tmp/$name.py" 2>"$tmp/err"; then
        fail "$name" "attnscope-cli failed"
        rm -f "$tmp/$name.py"
        return
    fi
    programs+=("$tmp/$name.py")
    checks+=("agree $name")
}

# must_fail NAME WHAT SED_EXPR: program NAME.py with SED_EXPR applied must run and fail the
# comparison with NAME.json (the comparison has teeth); WHAT says what the change breaks.
must_fail() {
    local name=$1 what=$2 broken="$tmp/broken-${#programs[@]}.py"
    [[ -s $tmp/$name.py ]] || return 0  # its agree already failed
    sed "$3" "$tmp/$name.py" >"$broken"
    if cmp -s "$broken" "$tmp/$name.py"; then
        fail "a program $what" "the line to break is not in the program"
        return
    fi
    programs+=("$broken")
    checks+=("must_fail $name $broken $what")
}

# The queued checks, once every program has run.
check_agreed() {
    local name=$1 out="$tmp/$1.py.out"
    if [[ $(cat "$tmp/$name.py.rc") -ne 0 ]]; then
        fail "$name" "the program failed: $(tail -n 1 "$tmp/$name.py.err")"
    elif [[ $(wc -l <"$out") -lt 4 ]]; then
        fail "$name" "expected the prints before the JSON line"
    elif ! "$python" "$here/compare_model_program.py" "$tmp/$name.json" "$out" >"$tmp/compared" 2>&1; then
        fail "$name" "$(tail -n 1 "$tmp/compared")"
    else
        echo "ok:   $name: $(cat "$tmp/compared")"
        passed=$((passed + 1))
    fi
}
check_broken() {
    local name=$1 broken=$2
    shift 2
    if [[ $(cat "$broken.rc") -eq 0 ]] &&
        ! "$python" "$here/compare_model_program.py" "$tmp/$name.json" "$broken.out" >"$tmp/compared"; then
        echo "ok:   a program $* fails: $(cat "$tmp/compared")"
        passed=$((passed + 1))
    else
        fail "a program $*" "not caught"
    fi
}
run_programs() {
    local program
    for program in "${programs[@]}"; do printf '%s\t%s\n' "$program" "$program"; done |
        "$python" "$here/run_programs.py"
    local check
    for check in "${checks[@]}"; do
        read -r -a words <<<"$check"
        case ${words[0]} in
            agree) check_agreed "${words[1]}" ;;
            must_fail) check_broken "${words[@]:1}" ;;
        esac
    done
}

started=$SECONDS
agree sotu_head_1.2_generate_3 --model sotu-small --text "The state of the Union is" --layer 1 --head 2 --generate 3
# The shipped model's last head (its sizes from its config.json: a retrained model may have others).
read -r n_layer n_head < <(python3 -c 'import json, sys; c = json.load(open(sys.argv[1])); print(c["n_layer"], c["n_head"])' \
    "$here/../assets/models/sotu-small/config.json")
agree "sotu_last_head_$((n_layer - 1)).$((n_head - 1))" --model sotu-small \
    --text "We the people of the United States, in order to form a more perfect union," \
    --layer $((n_layer - 1)) --head $((n_head - 1))
agree sotu_default_head_0.0 --model sotu-small --text "Congress shall make no law"
agree sotu_sampled_top_k --model sotu-small --text "Every effort moves you" --generate 5 --temperature 1.4 --top-k 25 \
    --sample-seed 7 --layer 2 --head 1
agree sotu_next_at_2_generate_2 --model sotu-small --text "The state of the Union is" --next-at 2 --generate 2
agree gpt_ch4_seed_123 --model gpt-ch4 --seed 123 --text "Hello, I am" --generate 2
agree f16_transformer_prefix --model "$golden/f16-prefixed" --text "A!B!C" --layer 2 --head 1
agree bf16_64wide_untied_head --model "$golden/bf16-64wide/model.safetensors" --text "A!B" --generate 2

# Llama-family folders: the golden models, each beside a tokenizer.json of single characters.
for name in llama-plain-f32 llama3-scaled-tied-bf16 qwen2-bias-f16-shards qwen3-qknorm-mqa-f32; do
    cp -r "$here/golden/llama/$name" "$tmp/$name" && one_char_tokenizer "$tmp/$name/tokenizer.json"
done
agree llama_default_head_0.0 --model "$tmp/llama-plain-f32" --text "Hello, world"
head_args=(--layer 1 --head 1)
agree llama3_bf16_head_1.1_sampled --model "$tmp/llama3-scaled-tied-bf16" --text "Every effort moves you" \
    --generate 4 --temperature 1.3 --top-k 20 --sample-seed 11
head_args=(--layer 1 --head 3)
agree qwen2_shards_head_1.3_generate_3 --model "$tmp/qwen2-bias-f16-shards" --text "The state of the Union" --generate 3
head_args=(--layer 0 --head 2)
agree qwen3_mqa_head_0.2_next_at_3 --model "$tmp/qwen3-qknorm-mqa-f32" --text "a b c d e f" --next-at 3
head_args=(--layer 2 --head 0)
agree qwen2_given_ids_head_2.0 --model "$tmp/qwen2-bias-f16-shards" --ids 5,17,94,3,3 --generate 2
# Interventions (issue 55): the program hooks the same modules (out_proj, o_proj) and prints
# the changed run's head weights and next tokens, and the baseline's next tokens.
head_args=(--layer 3 --head 0)
agree sotu_ablate_mean_at_positions --model sotu-small --text "The state of the Union is strong. The state of the Union is" \
    --ablate 1.1,2.3 --ablate-mode mean --ablate-at 3,13
head_args=(--layer 2 --head 5)
agree sotu_patch --model sotu-small --text "The state of the Union is strong. The state of the Union is" \
    --patch 0.2,1.7 --patch-from "The state of the Union is weak. The state of the Union is"
head_args=(--layer 2 --head 1)
agree qwen2_ablate_zero --model "$tmp/qwen2-bias-f16-shards" --ids 5,17,94,3,3,8 --ablate 0.1,1.3
head_args=(--layer 1 --head 2)
agree qwen3_patch_at --model "$tmp/qwen3-qknorm-mqa-f32" --ids 5,17,94,3,3,8 --patch 0.1,0.3 --patch-from-ids 5,9,94,3,7,8 \
    --patch-at 1,4 --next-at 4
# The patch taken from the text itself: the baseline, not the CLI's run.
must_fail sotu_patch "whose hook patches nothing" 's/z\[..., rows, cols\] = source_z\[layer\]\[..., rows, cols\]/pass/'
head_args=()
if grep -qx "MODEL_DIR = \"$tmp/qwen2-bias-f16-shards\"" "$tmp/qwen2_shards_head_1.3_generate_3.py" &&
    grep -qF "its keys are key/value head 1's," "$tmp/qwen2_shards_head_1.3_generate_3.py" &&
    grep -qF "# shared by query heads 2-3)" "$tmp/qwen2_shards_head_1.3_generate_3.py" &&
    grep -qF "token ids are those attnscope was given (--ids)" "$tmp/qwen2_given_ids_head_2.0.py" &&
    grep -qF "token ids are attnscope's encoding by the model's tokenizer.json" "$tmp/qwen2_shards_head_1.3_generate_3.py"; then
    echo "ok:   a Llama-family program names the folder at its top, the head's key/value group, where its ids came from"
    passed=$((passed + 1))
else
    fail "a Llama-family program's source" "no MODEL_DIR line with the folder, no key/value group, or its ids' source unnamed"
fi
must_fail llama3_bf16_head_1.1_sampled "rotating its queries the wrong way" \
    's/q_rot = q \* cos + rotate_half(q) \* sin/q_rot = q * cos - rotate_half(q) * sin/'

# --next-at P: the program takes position P's logits (and the default the last's, -1).
if grep -qF "probas = torch.softmax(logits[0, 2], dim=-1)" "$tmp/sotu_next_at_2_generate_2.py" &&
    grep -qF "probas = torch.softmax(logits[0, -1], dim=-1)" "$tmp/sotu_default_head_0.0.py"; then
    echo "ok:   --next-at 2 reads logits[0, 2]; the default logits[0, -1]"
    passed=$((passed + 1))
else
    fail "--next-at's row of the logits" "no logits[0, 2] in the --next-at 2 program, or no logits[0, -1] by default"
fi

# The program reads the file at the path at its top, as the model loaded it.
if grep -qx "MODEL_FILE = \"$golden/f16-prefixed/model.safetensors\"" "$tmp/f16_transformer_prefix.py" &&
    grep -qx "torch.manual_seed(123)" "$tmp/gpt_ch4_seed_123.py" && ! grep -q "MODEL_FILE" "$tmp/gpt_ch4_seed_123.py"; then
    echo "ok:   the model file's absolute path at the top; gpt-ch4 drawn after torch.manual_seed(123)"
    passed=$((passed + 1))
else
    fail "the model's source" "no MODEL_FILE line with the absolute path, or gpt-ch4 not seeded 123"
fi

# The comparison has teeth: query weights loaded without chapter 5's transpose.
must_fail sotu_head_1.2_generate_3 "loading W_query untransposed" \
    's/assign(b.att.W_query.weight, q_w.T)/assign(b.att.W_query.weight, q_w)/'

run_programs

# Bad input: exit 2, one line, nothing on stdout.
expect_error "a model that is not there" "nothing.safetensors: no such file" \
    --model "$tmp/nothing.safetensors" --text hi --emit-pytorch
expect_error "a layer the model does not have" "the model has $n_layer layers" \
    --model sotu-small --text hi --layer "$n_layer" --head 0 --emit-pytorch
expect_error "a chapter 3 setting with a model" "--d-out describes the chapter 3 module" \
    --model sotu-small --text hi --d-out 4 --emit-pytorch
expect_error "--export with --emit-pytorch" "--emit-pytorch and --export cannot be combined" \
    --model sotu-small --text hi --export "$tmp/out" --emit-pytorch
expect_error "a Llama-family model's query head it does not have" "the model has 4 heads a layer" \
    --model "$tmp/qwen2-bias-f16-shards" --text hi --layer 0 --head 4 --emit-pytorch
expect_error "a Llama-family program on ids outside its vocabulary" "--ids: token id 96 is outside the model's vocabulary" \
    --model "$tmp/qwen2-bias-f16-shards" --ids 1,96 --emit-pytorch

echo "$passed passed, $failed failed ($((SECONDS - started)) s)"
[[ $failed -eq 0 ]]
