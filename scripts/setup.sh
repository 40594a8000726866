# Sourced by run.sh and test.sh: installs what is missing from Debian's packages,
# then configures and builds. Idempotent; when nothing changed it takes a second.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_PACKAGES=(cmake g++ make pkg-config libeigen3-dev nlohmann-json3-dev catch2 libbenchmark-dev
                libopenblas-dev libimgui-dev libglfw3-dev libgl-dev libstb-dev fonts-dejavu-core fonts-droid-fallback dpkg-dev)
TEST_PACKAGES=(desktop-file-utils appstream xvfb xdotool x11-xserver-utils x11proto-dev imagemagick python3 xauth python3-torch libopenblas0-pthread python3-numpy python3-regex xclip time
               clang libclang-rt-14-dev)
WEB_PACKAGES=(emscripten nodejs)  # scripts/web.sh: the engine as WebAssembly, run by node

# install_missing PKG...: apt-get only what dpkg does not already have.
install_missing() {
    local missing=()
    for pkg in "$@"; do
        dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    local sudo=()
    [ "$(id -u)" -ne 0 ] && sudo=(sudo)
    echo "setup: installing ${missing[*]}"
    "${sudo[@]}" apt-get update -qq
    DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# build DIR [--target NAME]... [cmake options...]: configures (a second time only
# checks the options, in about a second), then builds incrementally.
build() {
    local dir="$1"; shift
    local options=() targets=()
    while [ $# -gt 0 ]; do
        if [ "$1" = "--target" ]; then targets+=(--target "$2"); shift 2; else options+=("$1"); shift; fi
    done
    cmake -S "$ROOT" -B "$dir" "${options[@]}" >/dev/null
    cmake --build "$dir" -j"$(nproc)" "${targets[@]}"
}

# The app and engine under AddressSanitizer + UBSan, as the test command and the long
# monkey run use them; ASAN_ENV holds the options they run with.
ASAN_ENV=(ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1)
build_asan() {
    build "$ROOT/build-asan" "$@" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DATTNSCOPE_SANITIZE=ON -DATTNSCOPE_BENCH=OFF
}
