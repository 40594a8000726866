#!/usr/bin/env bash
# Sets up, builds and runs every test:
#   1. the release build: unit, golden and CLI tests, and the window tests about the
#      release app (presenter walk, monkey, long runs, the installed tree);
#   2. every test, every window test included, with the app and engine under
#      AddressSanitizer + UBSan;
#   3. a smoke set of window tests with the app under ThreadSanitizer (its worker
#      thread and the UI share runs);
#   4. every libFuzzer target for a few seconds, over its committed corpus.
source "$(dirname "$0")/setup.sh"
install_missing "${BUILD_PACKAGES[@]}" "${TEST_PACKAGES[@]}"
SUPP="$ROOT/tests/sanitizers"  # suppressions for libraries not built with the sanitizers
started=$SECONDS
stage() { echo "== $* ($((SECONDS - started)) s so far)"; }

stage "release build: unit, golden and CLI tests, and the window tests about the release app"
build "$ROOT/build"
# The window tests that check what the app does, not how the release build behaves, run
# once, in the sanitizer stage below (the same -O2 code, with every access checked):
# each window test has the machine to itself, so running all of them twice took about a
# third of CI. Here: the quick start end to end, the installed tree, the presenter walk
# over every step of every lesson at a classroom projector's 1280x720, the monkey's
# minute, input during a slow frame, and the long runs' memory, whose figures only the
# release build has.
(cd "$ROOT/build" && PRESENTER_SIZES=1280x720 ctest --output-on-failure -j2 \
    -E '^app_(bad_input|classroom|lessons|model|modern|screenshot|selection|tokenizers|zoom)$')

stage "AddressSanitizer + UBSan: every test, the window's too"
build_asan
# The presenter walk at the other size, 1920x1080, over four lessons (a chapter 3 one, the
# RoPE lesson whose steps change the stages a run has, cross-attention's second text, the
# trained model's): the release build walks every step at 1280x720, and app_lessons walks
# every step here too. The monkey's random walk for 20 s rather than 60: the release
# build walks the full minute. Together they save about four minutes of a 2-core CI machine.
(cd "$ROOT/build-asan" && env "${ASAN_ENV[@]}" PRESENTER_SIZES=1920x1080 PRESENTER_LESSONS="3.5.1 4.2 cross 5.5" \
    MONKEY_SECONDS=20 ctest --output-on-failure -j2)

stage "ThreadSanitizer: the window's smoke tests"
build "$ROOT/build-tsan" --target attnscope --target attnscope-cli -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DATTNSCOPE_TSAN=ON -DATTNSCOPE_BENCH=OFF
(cd "$ROOT/build-tsan" &&
    TSAN_OPTIONS="halt_on_error=1:exitcode=66:suppressions=$SUPP/tsan.supp" \
    ctest --output-on-failure -R '^app_(e2e|bad_input)$')

stage "libFuzzer: every parser for a few seconds"
"$ROOT/scripts/fuzz.sh" 5
stage "all passed"
