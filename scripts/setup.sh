# Sourced by run.sh and test.sh: installs what is missing from Debian's packages,
# then configures and builds. Idempotent; when nothing changed it takes a second.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_PACKAGES=(cmake g++ make pkg-config libeigen3-dev nlohmann-json3-dev catch2 libbenchmark-dev
                libimgui-dev libglfw3-dev libgl-dev libstb-dev)
TEST_PACKAGES=(xvfb xdotool imagemagick python3 xauth python3-torch python3-numpy xclip)

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

# build DIR [cmake options...]: configure once, then build incrementally.
build() {
    local dir="$1"; shift
    if [ ! -f "$dir/CMakeCache.txt" ]; then
        cmake -S "$ROOT" -B "$dir" "$@" >/dev/null
    fi
    cmake --build "$dir" -j"$(nproc)"
}
