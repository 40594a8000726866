# Sourced by run.sh and test.sh: installs what is missing from Debian's packages,
# then configures and builds. Idempotent; when nothing changed it takes a second.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# The scripts run the Debian programs they install: python3 with python3-torch, node,
# emscripten. One earlier on PATH (pyenv's python3 shim, a virtual environment's) lacks
# those packages, and a shim costs a third of a second at each start: emscripten's
# compiler driver is a Python program started for every file the web build compiles.
export PATH="/usr/bin:$PATH"
BUILD_PACKAGES=(cmake g++ make pkg-config libeigen3-dev nlohmann-json3-dev catch2 libbenchmark-dev libonig-dev
                libopenblas-dev libimgui-dev libglfw3-dev libgl-dev libstb-dev fonts-dejavu-core fonts-droid-fallback dpkg-dev
                libcurl4-openssl-dev libssl-dev)  # the Hub's downloads (core/hub/)
TEST_PACKAGES=(desktop-file-utils appstream xvfb xdotool x11-xserver-utils x11proto-dev imagemagick python3 xauth python3-torch libopenblas0-pthread python3-numpy python3-regex xclip time
               clang libclang-rt-14-dev)
WEB_PACKAGES=(emscripten nodejs chromium dpkg-dev)  # scripts/web.sh: the app and engine as WebAssembly

# install_commands CMD...: Debian's package of each command that is not on PATH (node and npm
# may come from elsewhere, as NodeSource's nodejs carries its own npm: not replaced then).
install_commands() {
    local cmd
    for cmd in "$@"; do
        command -v "$cmd" >/dev/null || install_missing "$(case $cmd in node) echo nodejs ;; *) echo "$cmd" ;; esac)"
    done
}

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
# intercept_tls_get_addr=0: GCC 12's ASan follows dynamic TLS through __tls_get_addr, and
# with Debian 12's glibc it recorded a block of garbage bounds for a library Mesa loads
# ("DTLS 13 at 0x1c81-0x1800002d83"); LeakSanitizer's check at exit then crashed reading
# it ("Tracer caught signal 11", exit 134) in 5 of 6 runs of the cross variant's window.
# Off, the check skips dynamic TLS blocks only (attnscope has no thread_local of its own).
ASAN_ENV=(ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:intercept_tls_get_addr=0
          UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1)
build_asan() {
    build "$ROOT/build-asan" "$@" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DATTNSCOPE_SANITIZE=ON -DATTNSCOPE_BENCH=OFF
}

# fetch_debian_sources PACKAGE DIR FILE: the upstream sources of Debian's source package
# PACKAGE unpacked into DIR, unless DIR/FILE is there already. apt needs a deb-src entry for
# that: one is added beside the machine's own deb entries, for the same mirrors and suites.
# Nothing of them is committed.
fetch_debian_sources() {
    local package="$1" dir="$2" file="$3"
    [ -f "$dir/$file" ] && return 0
    local sudo=()
    [ "$(id -u)" -ne 0 ] && sudo=(sudo)
    local scratch
    scratch=$(mktemp -d)
    if ! (cd "$scratch" && apt-get source --download-only -qq "$package" >/dev/null 2>&1); then
        local list=/etc/apt/sources.list.d/attnscope-deb-src.sources
        echo "setup: adding $list (Debian's source packages, for $package's sources)"
        {   # deb822 files (Debian 12's default), then one-line entries of an older sources.list
            for f in /etc/apt/sources.list.d/*.sources; do  # none on a system with a sources.list only
                [ -f "$f" ] && [ "$f" != "$list" ] || continue
                { sed -n '/^Types:.*\bdeb\b/,/^$/p' "$f" | sed 's/^Types:.*/Types: deb-src/'; echo; }
            done
            for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
                [ -f "$f" ] || continue
                sed -n 's/^deb \[\?\([^]]*\)\]\? *\(http[^ ]*\) \([^ ]*\) \(.*\)$/Types: deb-src\nURIs: \2\nSuites: \3\nComponents: \4\n/p' "$f"
            done
        } | "${sudo[@]}" tee "$list" >/dev/null
        "${sudo[@]}" apt-get update -qq
        (cd "$scratch" && apt-get source --download-only -qq "$package" >/dev/null)
    fi
    mkdir -p "$dir"
    tar -xf "$scratch"/"$package"_*.orig.tar.* -C "$dir" --strip-components=1
    rm -rf "$scratch"
    [ -f "$dir/$file" ] || { echo "setup: $package's source package has no $file" >&2; return 1; }
}

# fetch_imgui_sources DIR: Dear ImGui 1.86's .cpp files and backends into DIR (libimgui-dev
# ships only headers and a host library).
fetch_imgui_sources() {
    [ -f "$1/imgui_widgets.cpp" ] || fetch_debian_sources imgui "$1" imgui_widgets.cpp
    [ -f "$1/backends/imgui_impl_opengl3.cpp" ] || { echo "setup: Dear ImGui's sources have no backends" >&2; return 1; }
}

# fetch_oniguruma_sources DIR: Oniguruma's C sources into DIR, for the web build
# (libonig-dev ships a host library only).
fetch_oniguruma_sources() {
    fetch_debian_sources libonig "$1" src/oniguruma.h
}

# install_browser_driver DIR: npm's puppeteer-core, at the version tests/web/package-lock.json
# pins, for the browser test and benchmark. It drives Debian's chromium: no browser is
# downloaded.
install_browser_driver() {
    local dir="$1"
    install_commands npm
    mkdir -p "$dir"
    if ! cmp -s "$ROOT/tests/web/package-lock.json" "$dir/package-lock.json" || [ ! -d "$dir/node_modules/puppeteer-core" ]; then
        cp "$ROOT/tests/web/package.json" "$ROOT/tests/web/package-lock.json" "$dir/"
        (cd "$dir" && PUPPETEER_SKIP_DOWNLOAD=1 npm ci --no-audit --no-fund --loglevel=error >/dev/null)
    fi
}
