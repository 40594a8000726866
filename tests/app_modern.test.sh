#!/bin/bash
# Today's variants in the window (issue 12): grouped-query attention with RoPE shows its
# rotated queries and each head's key/value group; an impossible grouping is explained
# and the last good view stays; the KV cache tab walks the text token by token (a
# sliding window's cache stops growing at W) with the output equal to the full
# forward's; the tiled softmax tab ends at the ordinary softmax.
source "$(dirname "$0")/app_lib.sh"
need xvfb-run xdotool python3
in_own_display

start_app --variant gqa --heads 4 --kv-groups 2 --d-out 8 --rope
check "window appears" test -n "$WID"
check "the gqa run arrives with its rotated queries and RoPE angles" \
    wait_state "$(settled 1) and s['shown_variant'] == 'gqa' and 'queries_rotated' in s['heatmaps'] and 'rope_angles' in s['heatmaps']"
check "the controls show kv groups and RoPE, not the chapter 3 rows" \
    wait_state "'kv_groups' in s['widgets'] and 'rope_base' in s['widgets'] and 'causal' not in s['widgets'] and 'window' not in s['widgets']"
window_shot "$WORK/gqa.png"
version=$(json "$STATE" "s['run_version']")
slider_to kv_groups 3
check "kv groups 3 for 4 heads is explained; the last good view stays" \
    wait_state "'must be divisible by kv-groups' in (s['error'] or '') and s['run_version'] == $version and s['shown_heads'] == 4"
slider_to kv_groups 1
check "one group (multi-query attention) runs" wait_state "$(settled $((version + 1))) and s['error'] is None and s['kv_groups'] == 1"

read -r x y <<<"$(widget_centre tab_kv_cache)"
click "$x" "$y"
check "the KV cache tab starts at the first token" \
    wait_state "s['kv_cache_view']['shown'] and s['kv_cache_view']['step'] == 1 and s['kv_cache_view']['cached'] == 1 and s['kv_cache_view']['error'] is None"
read -r x y <<<"$(widget_centre kv_step_next)"
for _ in 1 2 3; do click "$x" "$y"; frames_pass; done
check "three steps later the cache holds 4 tokens: one group's key and value, 4 floats each, per token" \
    wait_state "s['kv_cache_view']['step'] == 4 and s['kv_cache_view']['cached'] == 4 and s['kv_cache_view']['cache_bytes'] == 4 * 2 * 2 * 4"
check "the output row from the cache is the full forward's (float rounding)" \
    wait_state "0 <= s['kv_cache_view']['max_difference'] < 1e-5"
window_shot "$WORK/kv_cache.png"
quit_app
check "ctrl+q exits 0" test "$APP_EXIT" -eq 0

start_app --variant swa --window 2 --heads 2 --d-out 4 --tab kv-cache
check "swa opens on the KV cache tab" wait_state "$(settled 1) and s['kv_cache_view']['shown'] and s['kv_cache_view']['steps'] == 6"
read -r x y <<<"$(widget_centre kv_step_next)"
for _ in 1 2 3 4 5; do click "$x" "$y"; frames_pass; done
check "at the last token a window of 2 holds 2 tokens, the oldest dropped" \
    wait_state "s['kv_cache_view']['step'] == 6 and s['kv_cache_view']['cached'] == 2 and s['kv_cache_view']['max_difference'] < 1e-5"
read -r x y <<<"$(widget_centre tab_tiled_softmax)"
click "$x" "$y"
check "the tiled softmax tab opens one tile in" \
    wait_state "s['tiled_view']['shown'] and s['tiled_view']['step'] == 1 and s['tiled_view']['error'] is None"
read -r x y <<<"$(widget_centre tile_step_next)"
for _ in 1 2 3; do click "$x" "$y"; frames_pass; done
check "after the last tile the weights are the ordinary softmax's" \
    wait_state "s['tiled_view']['step'] == s['tiled_view']['steps'] and 0 <= s['tiled_view']['max_difference'] <= 1e-6"
window_shot "$WORK/tiled.png"
check "still running" kill -0 "$APP_PID"
quit_app
check "ctrl+q exits 0" test "$APP_EXIT" -eq 0
finish
