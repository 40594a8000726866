#!/bin/bash
# Frame times of the real window under Xvfb (Mesa llvmpipe), and the time from a
# control change to the frame that shows its result. Not a timed test: prints figures.
#   bench/app_frame_bench.sh [BUILD_DIR]     (default: build)
set -euo pipefail
BUILD=$(cd "${1:-$(dirname "$0")/../build}" && pwd)
APP="$BUILD/attnscope"
words() { python3 -c "import sys; print(' '.join(f'w{i}' for i in range(int(sys.argv[1]))))" "$1"; }
run() {  # run TITLE FLAGS...
    local title=$1; shift
    echo "== $title"
    xvfb-run -a -s "-screen 0 1280x800x24" "$APP" "$@"
}
run "T=64, d=768, 12 heads (mha): pipeline + per-head view, target < 16 ms" \
    --variant mha --d-in 768 --d-out 768 --heads 12 --text "$(words 64)" --bench-frames 200
run "T=1024, simplified: 1024x1024 scores and weights in view, target < 33 ms" \
    --variant simplified --d-in 768 --text "$(words 1024)" --show-stage scores --bench-frames 100
run "T=1024, d=768, 12 heads (mha): a head's 1024x1024 weights, dropout mask and dropped weights in view" \
    --variant mha --d-in 768 --d-out 768 --heads 12 --text "$(words 1024)" --show-stage weights --bench-frames 100
run "T=256, d=768, 12 heads (mha): seed change to redrawn view (12 heads' weights in view), target within one frame" \
    --variant mha --d-in 768 --d-out 768 --heads 12 --text "$(words 256)" --bench-changes 30
run "T=256, d=768, 12 heads (mha): dropout change (only the stages after the weights)" \
    --variant mha --d-in 768 --d-out 768 --heads 12 --text "$(words 256)" --dropout 0.1 --bench-changes 30 \
    --bench-change dropout
