#!/usr/bin/env bash
# Sets up, builds and runs the tests. Three depths:
#   scripts/test.sh          on the release build: the unit, golden and CLI tests, the golden
#                            suites under every OpenBLAS kernel and vector width this CPU
#                            runs, the window tests but the long walks (label deep); then the
#                            web build's: the golden tests under node, the page in headless
#                            chromium (the README's test command; CI runs it)
#   scripts/test.sh --quick  the unit, golden and CLI tests that take seconds, on an
#                            incremental release build: the loop before each commit
#   scripts/test.sh --deep   the presenter walk over every lesson step on the release build,
#                            then every test again, the long window walks too, with the app
#                            and engine under AddressSanitizer + UBSan (assertions on), the
#                            monkey's four walks, two window tests under ThreadSanitizer,
#                            every libFuzzer target (CI runs it after the first)
# Each prints the time taken after each stage.
source "$(dirname "$0")/setup.sh"
mode=${1:-all}
case $mode in
    all | --quick | --deep) ;;
    *) echo "usage: scripts/test.sh [--quick | --deep]" >&2; exit 2 ;;
esac
install_missing "${BUILD_PACKAGES[@]}" "${TEST_PACKAGES[@]}"
install_commands node npm  # the tokenizer test's oracle (tests/cli_hf_tokenizer.test.sh)
SUPP="$ROOT/tests/sanitizers"  # suppressions for libraries not built with the sanitizers
started=0  # the script's start: the packages' installation counts, as on a bare machine
stage() { echo "== $* ($((SECONDS - started)) s so far)"; }

if [ "$mode" = --quick ]; then
    stage "release build (incremental)"
    build "$ROOT/build"
    stage "unit, golden and CLI tests (not the slow ones)"
    (cd "$ROOT/build" && ctest --output-on-failure -j"$(nproc)" -L 'unit|golden|cli' -LE 'slow|machines')
    stage "all passed"
    exit 0
fi

if [ "$mode" = all ]; then
    stage "release build"
    build "$ROOT/build"
    stage "unit, golden and CLI tests, the golden suites on every kernel, the window tests one at a time"
    (cd "$ROOT/build" && ctest --output-on-failure -j"$(nproc)" -LE deep)
    stage "the web build: the golden tests under node, the page in headless chromium"
    "$ROOT/scripts/web.sh" --test
    stage "all passed"
    exit 0
fi

# The presenter walk over every step of every lesson at a classroom projector's 1280x720
# (the sanitizer run below walks four lessons at 1920x1080). The other long walks (label
# deep) run once, under the sanitizers below: a window test there checks all it checks on
# the release build, and CI's time is one serial window at a time.
stage "the presenter walk over every lesson step on the release build"
build "$ROOT/build"
(cd "$ROOT/build" && PRESENTER_SIZES=1280x720 ctest --output-on-failure -R '^app_presenter$')

stage "AddressSanitizer + UBSan build"
build_asan
# The presenter walk at the other size, 1920x1080, over four lessons (a chapter 3 one, the
# RoPE lesson whose steps change the stages a run has, cross-attention's second text, the
# trained model's): the release build walks every step at 1280x720. The monkey walks next.
stage "AddressSanitizer + UBSan: every test, the window's too"
(cd "$ROOT/build-asan" && env "${ASAN_ENV[@]}" PRESENTER_SIZES=1920x1080 PRESENTER_LESSONS="3.5.1 4.2 cross 5.5" \
    ctest --output-on-failure -j"$(nproc)" -E '^app_monkey$')
# The monkey's longer walk (issue 58): four seeds, two in chapter 3's module and two in model
# mode, each started at a size of its own and resized on the way, 45 s each; a burst or F5
# not in the state a few frames after its last key, or a run started with no input, fails.
stage "AddressSanitizer + UBSan: the monkey, four walks in chapter 3 and model mode"
(cd "$ROOT/build-asan" && env "${ASAN_ENV[@]}" MONKEY_SECONDS=45 MONKEY_WALKS="2:chapter3 3:model 4:chapter3 5:model" \
    ctest --output-on-failure -R '^app_monkey$')

stage "ThreadSanitizer: the window's smoke tests"
build "$ROOT/build-tsan" --target attnscope --target attnscope-cli -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DATTNSCOPE_TSAN=ON -DATTNSCOPE_BENCH=OFF
(cd "$ROOT/build-tsan" &&
    TSAN_OPTIONS="halt_on_error=1:exitcode=66:suppressions=$SUPP/tsan.supp" \
    ctest --output-on-failure -R '^app_(e2e|bad_input)$')

stage "libFuzzer: every parser for a few seconds"
"$ROOT/scripts/fuzz.sh" 5
stage "all passed"
