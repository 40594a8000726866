#!/usr/bin/env bash
# Sets up, builds and runs the tests. Three depths:
#   scripts/test.sh          on the release build: the unit, golden and CLI tests, the golden
#                            suites under every OpenBLAS kernel and vector width this CPU
#                            runs, the window tests but the long walks (label deep), the web
#                            build compiling beside them; then the web build's tests: the
#                            golden tests under node, the page in headless chromium (the
#                            README's test command; CI runs it)
#   scripts/test.sh --quick  the unit, golden and CLI tests that take seconds, on an
#                            incremental release build: the loop before each commit
#   scripts/test.sh --deep   the presenter walk over every lesson step on the release build,
#                            then every test again, the long window walks too, with the app
#                            and engine under AddressSanitizer + UBSan (assertions on), the
#                            monkey's four walks (the ThreadSanitizer and libFuzzer trees
#                            compiling beside them), two window tests under ThreadSanitizer,
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

# The window tests run one at a time and mostly wait for the app: while they run, a core
# is half idle. A build the next stage needs runs then, at the lowest priority, so that it
# takes only what the tests leave (nice works within this session's scheduling group).
# in_background LOG CMD...: starts CMD (a program or a function) in a process group of its
# own, its output in LOG.
background=()
in_background() {
    local log="$1"; shift
    set -m
    (renice -n 19 -p "$BASHPID" >/dev/null && "$@") >"$log" 2>&1 &
    set +m
    background+=("$!:$log")
}
# finish_background: waits for every command in_background started; a failed one's log is
# shown and the script stops.
finish_background() {
    local entry status=0
    for entry in "${background[@]}"; do
        wait "${entry%%:*}" || { status=$?; cat "${entry#*:}"; echo "test.sh: failed in the background: see above" >&2; }
    done
    background=()
    return $status
}
# A failed test stops the script: nothing is left building behind it.
trap 'for entry in "${background[@]}"; do kill -- "-${entry%%:*}" 2>/dev/null; done' EXIT

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
    stage "unit, golden and CLI tests, the golden suites on every kernel, the window tests one at a time;" \
        "beside them the web build (emscripten, chromium, the sources; build/web-build.log)"
    in_background "$ROOT/build/web-build.log" "$ROOT/scripts/web.sh" --build
    (cd "$ROOT/build" && ctest --output-on-failure -j"$(nproc)" -LE deep)
    stage "the web build (finishing): the golden tests under node, the page in headless chromium"
    finish_background
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
stage "AddressSanitizer + UBSan: every test, the window's too; beside them the ThreadSanitizer" \
    "and libFuzzer builds (build-asan/deep-builds.log)"
deep_builds() {
    build "$ROOT/build-tsan" --target attnscope --target attnscope-cli -DCMAKE_BUILD_TYPE=RelWithDebInfo \
        -DATTNSCOPE_TSAN=ON -DATTNSCOPE_BENCH=OFF &&
    "$ROOT/scripts/fuzz.sh" --build
}
in_background "$ROOT/build-asan/deep-builds.log" deep_builds
# The presenter walk at the other size, 1920x1080, over four lessons (a chapter 3 one, the
# RoPE lesson whose steps change the stages a run has, cross-attention's second text, the
# trained model's): the release build walks every step at 1280x720. The monkey walks next.
(cd "$ROOT/build-asan" && env "${ASAN_ENV[@]}" PRESENTER_SIZES=1920x1080 PRESENTER_LESSONS="3.5.1 4.2 cross 5.5" \
    ctest --output-on-failure -j"$(nproc)" -E '^app_monkey$')
# The monkey's longer walk (issue 58): four seeds, two in chapter 3's module and two in model
# mode, each started at a size of its own and resized on the way, 45 s each; a burst or F5
# not in the state a few frames after its last key, or a run started with no input, fails.
stage "AddressSanitizer + UBSan: the monkey, four walks in chapter 3 and model mode"
(cd "$ROOT/build-asan" && env "${ASAN_ENV[@]}" MONKEY_SECONDS=45 MONKEY_WALKS="2:chapter3 3:model 4:chapter3 5:model" \
    ctest --output-on-failure -R '^app_monkey$')

stage "ThreadSanitizer: the window's smoke tests (the builds finishing first)"
finish_background
(cd "$ROOT/build-tsan" &&
    TSAN_OPTIONS="halt_on_error=1:exitcode=66:suppressions=$SUPP/tsan.supp" \
    ctest --output-on-failure -R '^app_(e2e|bad_input)$')

stage "libFuzzer: every parser for a few seconds"
"$ROOT/scripts/fuzz.sh" 5
stage "all passed"
