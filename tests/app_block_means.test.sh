#!/bin/bash
# The longest runs in the window (issue 13): past Worker::kKeepOverviewBytes the run keeps
# every stage of the head on screen and the other heads' weights as block means of at
# most 512 a side (the head strip). A change of the controls first brings a run without
# any head's every stage, then the head's: the run on screen and the new one never both
# hold them. mha, 48 heads of 16, 3072 tokens: every head's weights would be 1.8 GB.
source "$(dirname "$0")/app_lib.sh"
need xvfb-run xdotool python3
in_own_display
words=$(numbered_words 3072)
has_stages="all(n in s['heatmaps'] for n in ('scores', 'masked_scores', 'weights', 'context'))"
rows() { echo "s['heatmaps']['heads/%d' % $1]['rows']"; }

start_app --variant mha --heads 48 --d-in 768 --d-out 768 --text "$words"
check "window appears" test -n "$WID"
check "head 1's every stage arrives after the overview" \
    wait_state "$(settled 2) and s['error'] is None and s['shown_heads'] == 48 and s['detail_head'] == 0 and $has_stages"
check "the strip draws head 1 whole, the other 47 as 512 x 512 block means" \
    wait_state "$(rows 0) == 3072 and all($(rows h) == 512 for h in range(1, 48))"
if ! under_asan; then
    rss_mb=$(resident_mb)
    check "resident memory ${rss_mb} MB, under the 1.8 GB of every head's weights" test "$rss_mb" -lt 1000
fi

# Click head 5 in the strip: its weights come whole, head 1's as block means.
version=$(json "$STATE" "s['run_version']")
read -r x y <<<"$(heatmap_point heads/4 0.5 0.5)"
click "$x" "$y"
check "clicking head 5 brings its every stage" \
    wait_state "$(settled $((version + 1))) and s['selected_head'] == 4 and s['detail_head'] == 4 and $has_stages \
and $(rows 4) == 3072 and $(rows 0) == 512"

# A dropout change cannot rerun from block means: the forward runs again, overview first.
version=$(json "$STATE" "s['run_version']")
slider_to dropout 0.5
check "dropout 0.5: two runs, head 5's stages with its dropped weights" \
    wait_state "$(settled $((version + 2))) and s['dropout'] == 0.5 and s['error'] is None and s['detail_head'] == 4 \
and 'dropped_weights' in s['heatmaps']"
window_shot "$WORK/block-means.png"
check "still running" kill -0 "$APP_PID"
quit_app
check "ctrl+q exits 0" test "$APP_EXIT" -eq 0
finish
