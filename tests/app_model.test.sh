#!/bin/bash
# A GPT model in the window (issue 11): chapter 4's seeded GPTModel loads in the worker,
# every layer x head is a tile, a click on one shows that head's pipeline, the buttons
# append the most likely token (the book's first generated id) and Generate 10 continue
# with the ids the book prints (from the KV cache, a run a token), File > Open model (Ctrl+M) explains a file that is not a checkpoint in the
# dialog and opens one that is, and the model list goes back to the chapter 3 module.
# A click on a token chip shows the next tokens after that token (the CLI's --next-at), a
# click on it again or Follow the last token the last token's; a picked position keeps
# its next tokens while Append and Generate add tokens after the last one.
# Then the shipped model samples as chapter 5's generate does, a token a run.
# Save PyTorch as .py writes the model's program (the book's GPTModel): run with Debian's
# PyTorch once the window has closed, it prints the CLI's numbers, and saved from the File
# menu after generating, the window's tokens, head and next tokens.
source "$(dirname "$0")/app_lib.sh"
need xvfb-run xdotool python3
in_own_display
checkpoints="$TESTS/golden/checkpoints"
PY=/usr/bin/python3  # Debian's, with python3-torch
chip_centre() {  # chip_centre I: "x y" of token chip I's centre
    json "$STATE" "'%d %d' % ((s['chips'][$1]['rect'][0] + s['chips'][$1]['rect'][2]) / 2, (s['chips'][$1]['rect'][1] + s['chips'][$1]['rect'][3]) / 2)"
}
# What the CLI predicts after "Hello," (position 1), before the window takes the cores.
"$CLI" --model gpt-ch4 --text "Hello, I am" --next-at 1 --stages weights >"$WORK/next_at_1.json"
at_1=$(json "$WORK/next_at_1.json" "[[t['id'], t['prob']] for t in s['next_token']]")
next_is_cli_at_1="s['model_run']['next_token_position'] == 1 and [t['id'] for t in s['model_run']['next_token']] == [w[0] for w in $at_1]
    and max(abs(t['prob'] - w[1]) for t, w in zip(s['model_run']['next_token'], $at_1)) <= 1e-4 * $at_1[0][1]"

start_app --model gpt-ch4 --text "Hello, I am" --save-py "$WORK/model.py"
check "window appears" test -n "$WID"
check "the model's run arrives" \
    wait_state "$(settled 1) and s['model_run'] is not None and s['model_run']['n_layer'] == 12 and s['error'] is None"
check "--save-py (Save PyTorch as .py's action) writes the model's program" \
    wait_state "s['last_export'] is not None and s['last_export']['path'].endswith('model.py') and s['last_export']['error'] is None"
check "12 x 12 tiles" wait_state "sum(k.startswith('model/') for k in s['heatmaps']) == 144"
check "the pipeline shows head 0.0 with every stage" \
    wait_state "s['model_run']['layer'] == 0 and s['model_run']['head'] == 0 and 'W_query' in s['heatmaps']"
window_shot "$WORK/model.png"
check "the next tokens follow the last token, its chip marked" \
    wait_state "s['next_at'] is None and s['model_run']['next_token_position'] == 3 and [c['marked'] for c in s['chips']] == [False, False, False, True]"
last_next=$(json "$STATE" "[t['id'] for t in s['model_run']['next_token']]")

read -r x y <<<"$(chip_centre 1)"
click "$x" "$y"
check "a click on the ',' chip shows the next tokens after it: the CLI's --next-at 1" \
    wait_state "$(settled) and s['next_at'] == 1 and s['chips'][1]['marked'] and $next_is_cli_at_1"
click "$x" "$y"
check "a click on it again: the last token's again" \
    wait_state "$(settled) and s['next_at'] is None and s['model_run']['next_token_position'] == 3
                and [t['id'] for t in s['model_run']['next_token']] == $last_next"
click "$x" "$y"
check "picked again" wait_state "$(settled) and s['next_at'] == 1 and $next_is_cli_at_1 and 'next_at_last' in s['widgets']"

read -r x y <<<"$(widget_centre append_token)"
click "$x" "$y"
check "the button appends the book's first generated token (by id; the text stays)" \
    wait_state "$(settled) and s['token_ids'] == [15496, 11, 314, 716, 27018] and s['generate'] == 1 and s['text'] == 'Hello, I am'"
check "that token came from the KV cache" wait_state "s['model_run']['extended'] or s['model_run']['head'] == 0"
check "after it the next tokens after ',' stay the CLI's" wait_state "$(settled) and len(s['token_ids']) == 5 and $next_is_cli_at_1"
read -r x y <<<"$(widget_centre generate)"
click "$x" "$y"
book="[15496, 11, 314, 716, 27018, 24086, 47843, 30961, 42348, 7267]"
check "Generate 10 continues with the ids the book prints, one run a token" \
    wait_state "$(settled) and s['generating'] == 0 and s['generate'] == 11 and s['token_ids'][:10] == $book and len(s['token_ids']) == 15"
check "then the shown head's every stage comes back with a full run" \
    wait_state "$(settled) and not s['model_run']['extended'] and s['model_run']['head'] == 0 and 'W_query' in s['heatmaps']"
check "15 tokens on, the next tokens after ',' are still the CLI's" wait_state "$(settled) and $next_is_cli_at_1"
read -r x y <<<"$(widget_centre next_at_last)"
click "$x" "$y"
check "Follow the last token: the 15th token's" \
    wait_state "$(settled) and s['next_at'] is None and s['model_run']['next_token_position'] == 14 and s['chips'][14]['marked']"
read -r x y <<<"$(chip_centre 1)"
click "$x" "$y"
check "',' picked once more, for the program saved below" wait_state "$(settled) and s['next_at'] == 1 and $next_is_cli_at_1"

# The grid is taller than the window: the wheel over the view scrolls tile 1.5 into sight.
inside="s['heatmaps']['model/1.5']['rect'][1] >= s['viewport'][1] and s['heatmaps']['model/1.5']['rect'][3] <= s['viewport'][3]"
wheel_until "$inside" "s['heatmaps']['model/1.5']['rect'][1]"
check "tile 1.5 is on screen" wait_state "$inside"
# same_place_while_computing RECT: a frame drawn while a run computes has tile 1.5 at RECT,
# where it stood before: the status ("computing…") floats over the view instead of taking a
# line above it, so the tiles never move under the pointer when a run starts or ends.
same_place_while_computing() {
    local r
    for _ in $(seq 1 400); do
        r=$(json "$STATE" "[s['computing'], s['heatmaps']['model/1.5']['rect']]" 2>/dev/null) || { sleep 0.05; continue; }
        if [[ $r == "[true, "* ]]; then
            [[ $r == "[true, $1]" ]] && return 0
            r=${r#\[true, }
            echo "while computing, tile 1.5 at ${r%]} (before: $1)"
            return 1
        fi
        sleep 0.05
    done
    echo "no frame was drawn while the run computed"
    return 1
}
was_at=$(json "$STATE" "s['heatmaps']['model/1.5']['rect']")
read -r x y <<<"$(heatmap_point model/1.5 0.5 0.5)"
click "$x" "$y"
check "while that head's run computes, tile 1.5 stays where it was" same_place_while_computing "$was_at"
check "a click on tile 1.5 shows layer 1's head 5" \
    wait_state "$(settled) and s['model_run']['layer'] == 1 and s['model_run']['head'] == 5 and s['selected_head'] == 5"
save_pytorch_program "$WORK/shown.py" "for a model"
cp "$STATE" "$WORK/shown-state.json"
hold ctrl+m
check "Ctrl+M opens the model dialog" wait_state "s['dialog'] is not None and 'checkpoint' in s['dialog']['title']"
type_path "$TESTS/golden/make_checkpoint_golden.py"
check "a file that is not a checkpoint is explained in the dialog" \
    wait_state "s['dialog'] is not None and 'not a safetensors file' in (s['dialog']['error'] or '')"
type_path "$checkpoints/f16-prefixed"
check "a checkpoint too small for the text and its 11 tokens says so: the last view stays" \
    wait_state "s['dialog'] is None and $(settled) and 'and 11 generated; the model reads at most 12' in (s['error'] or '') and s['model_run']['name'] == 'gpt-ch4'"

read -r x y <<<"$(widget_centre model)"
click "$x" "$y"
check "the model list opens" wait_state "'model_entry_0' in s['widgets']"
pick_entry model_entry_0
check "the first entry is the chapter 3 module again" \
    wait_state "$(settled) and s['model'] is None and s['model_run'] is None and s['error'] is None"
check "still running" kill -0 "$APP_PID"
quit_app
check "ctrl+q exits 0" test "$APP_EXIT" -eq 0

# The saved programs, run with PyTorch now that the window no longer needs the cores.
"$CLI" --model gpt-ch4 --text "Hello, I am" >"$WORK/cli.json"
check "the program saved at start prints the CLI's head 0.0 weights and next tokens" \
    bash -c "$PY '$WORK/model.py' >'$WORK/model.out' && $PY '$TESTS/compare_model_program.py' '$WORK/cli.json' '$WORK/model.out'"
check "the program saved from the menu reads the 15 tokens in view, prints head 1.5 and the window's next tokens (after ',')" \
    $PY -c '
import json, subprocess, sys
s = json.load(open(sys.argv[1]))
p = json.loads(subprocess.run([sys.executable, sys.argv[2], "--json"], check=True, capture_output=True, text=True).stdout)
want = s["model_run"]["next_token"]
assert p["token_ids"] == s["token_ids"] and len(p["token_ids"]) == 15, (p["token_ids"], s["token_ids"])
assert (p["layer"], p["head"]) == (1, 5) and len(p["weights"]) == 15 and "generated" not in p
assert p["next_token_position"] == s["model_run"]["next_token_position"] == 1
assert [t["id"] for t in p["next_token"]] == [t["id"] for t in want]
assert max(abs(a["prob"] - b["prob"]) for a, b in zip(p["next_token"], want)) <= 1e-4 * max(t["prob"] for t in want)
' "$WORK/shown-state.json" "$WORK/shown.py"

# Chapter 5's sampling: the book's call (top_k=25, temperature=1.4, torch.manual_seed(123))
# on the shipped model. Generate 10, a run a token carrying the random stream on, draws the
# first 10 of the 15 ids torch draws in one generate call (tests/golden/checkpoint_golden.json);
# the full run that follows, every token at once, draws them again; Append draws the 11th.
book_sampled=$(json "$TESTS/golden/checkpoint_golden.json" \
    "s['shipped']['sampled'][0]['ids'] + s['shipped']['sampled'][0]['generated']")
greedy=$(json "$TESTS/golden/checkpoint_golden.json" "s['shipped']['sampled'][4]['generated']")
start_app --model sotu-small --text "Every effort moves you" --temperature 1.4 --top-k 25
check "the sampling settings reach the model's run" \
    wait_state "$(settled 1) and s['model_run'] is not None and s['error'] is None and s['temperature'] == 1.4
                and s['top_k'] == 25 and s['sample_seed'] == 123 and 'sampling' in s['widgets']"
read -r x y <<<"$(widget_centre generate)"
click "$x" "$y"
check "Generate 10 draws torch's first 10 sampled ids, a run a token" \
    wait_state "$(settled) and s['generating'] == 0 and s['generate'] == 10 and s['token_ids'] == $book_sampled[:14]"
check "the full run that follows draws the same 10 at once" \
    wait_state "$(settled) and not s['model_run']['extended'] and s['model_run']['head'] == 0 and s['token_ids'] == $book_sampled[:14]"
read -r x y <<<"$(widget_centre append_token)"
click "$x" "$y"
check "Append continues the stream: torch's 11th id" \
    wait_state "$(settled) and s['generate'] == 11 and s['token_ids'] == $book_sampled[:15]"
slider_to temperature 0
check "temperature 0: the generated tokens are the argmax again" \
    wait_state "$(settled) and s['temperature'] == 0 and s['token_ids'][4:9] == $greedy and s['error'] is None"
quit_app
check "ctrl+q exits 0 (sampling)" test "$APP_EXIT" -eq 0
finish
