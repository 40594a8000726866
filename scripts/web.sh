#!/usr/bin/env bash
# The web build: attnscope's engine and command-line tool as WebAssembly, run by node, with
# the golden tests compiled the same way. Installs what is missing (emscripten, from
# Debian), configures build-web/ once and builds incrementally.
#   scripts/web.sh          build, then run the golden tests under node
#   scripts/web.sh --build  build only
# Then: node build-web/attnscope-cli.js ARGS (the same flags and JSON as attnscope-cli).
# The browser app (the same engine behind the desktop app's views, in WebGL2) is next.
source "$(dirname "$0")/setup.sh"
mode=${1:-test}
case $mode in
    test | --build) ;;
    *) echo "usage: scripts/web.sh [--build]" >&2; exit 2 ;;
esac
install_missing "${BUILD_PACKAGES[@]}" "${WEB_PACKAGES[@]}"
# emscripten's JavaScript tools need Debian's node modules (acorn, ...), which a node
# that is not Debian's does not look in.
export NODE_PATH=/usr/share/nodejs${NODE_PATH:+:$NODE_PATH}
emcmake cmake -S "$ROOT" -B "$ROOT/build-web" >/dev/null
cmake --build "$ROOT/build-web" -j"$(nproc)"
[ "$mode" = --build ] && exit 0
cd "$ROOT/build-web" && ctest --output-on-failure -L web
