#!/bin/bash
# A long run in the window (issue 13): when every stage of every head would take more
# than Worker::kKeepEverythingBytes, the run keeps every head's weights and values (the
# head strip, and what a dropout change reruns from) and every stage of the head on
# screen; clicking another head brings its stages. mha, 12 heads of 64, 1536 tokens:
# every stage of every head is ~0.8 GB, what is kept ~0.2 GB.
source "$(dirname "$0")/app_lib.sh"
need xvfb-run xdotool python3
in_own_display
words=$(numbered_words 1536)
has_stages="all(n in s['heatmaps'] for n in ('scores', 'masked_scores', 'weights', 'context'))"

start_app --variant mha --heads 12 --d-in 768 --d-out 768 --text "$words"
check "window appears" test -n "$WID"
check "the run keeps every stage of head 1 only" \
    wait_state "$(settled 1) and s['error'] is None and s['shown_heads'] == 12 and s['detail_head'] == 0 and $has_stages"
check "the head strip draws all 12 heads" wait_state "all('heads/%d' % h in s['heatmaps'] for h in range(12))"
if ! under_asan; then
    rss_mb=$(resident_mb)
    check "resident memory ${rss_mb} MB, under the 0.8 GB of every stage" test "$rss_mb" -lt 600
fi

# Click head 5 in the strip: its stages come with a run that keeps them.
version=$(json "$STATE" "s['run_version']")
read -r x y <<<"$(heatmap_point heads/4 0.5 0.5)"
click "$x" "$y"
check "clicking head 5 shows it" wait_state "s['selected_head'] == 4"
check "and a run keeping every stage of head 5 arrives" \
    wait_state "$(settled $((version + 1))) and s['detail_head'] == 4 and s['selected_head'] == 4 and $has_stages"

# A dropout change reruns from the kept weights and values, head 5 still in detail.
version=$(json "$STATE" "s['run_version']")
slider_to dropout 0.5
check "dropout 0.5 reruns, head 5's stages kept" \
    wait_state "$(settled $((version + 1))) and s['dropout'] == 0.5 and s['error'] is None and s['detail_head'] == 4 \
and 'dropped_weights' in s['heatmaps']"
window_shot "$WORK/long-run.png"
check "still running" kill -0 "$APP_PID"
quit_app
check "ctrl+q exits 0" test "$APP_EXIT" -eq 0
finish
