#!/usr/bin/env bash
# attnscope in the browser: the app as a static site (WebAssembly + WebGL2) and the engine
# and command-line tool as WebAssembly run by node. Installs what is missing (emscripten
# and chromium from Debian, Dear ImGui's and Oniguruma's sources from Debian's source packages, npm's
# puppeteer-core for the browser test), configures build-web/ once, builds incrementally.
#   scripts/web.sh          build, then serve build-web/site/ on 127.0.0.1 and print its URL
#   scripts/web.sh --build  build only (build-web/site/ is the whole site: host it anywhere)
#   scripts/web.sh --test   build, then the web tests: the golden tests under node and the
#                           page driven in headless chromium
#   scripts/web.sh --bench  build (and the native release build), then bench/web_bench.mjs:
#                           the site's size, first frame, frame times, wasm against native
# Also: node build-web/attnscope-cli.js ARGS (the same flags and JSON as attnscope-cli).
source "$(dirname "$0")/setup.sh"
mode=${1:-serve}
case $mode in
    serve | --build | --test | --bench) ;;
    *) echo "usage: scripts/web.sh [--build | --test | --bench]" >&2; exit 2 ;;
esac
install_missing "${BUILD_PACKAGES[@]}" "${WEB_PACKAGES[@]}"
# emscripten's JavaScript tools need Debian's node modules (acorn, ...), which a node
# that is not Debian's does not look in.
export NODE_PATH=/usr/share/nodejs${NODE_PATH:+:$NODE_PATH}
WEB="$ROOT/build-web"
fetch_imgui_sources "$WEB/imgui"
fetch_oniguruma_sources "$WEB/oniguruma"
emcmake cmake -S "$ROOT" -B "$WEB" -DATTNSCOPE_APP=ON -DIMGUI_SOURCE_DIR="$WEB/imgui" \
    -DONIGURUMA_SOURCE_DIR="$WEB/oniguruma" >/dev/null
cmake --build "$WEB" -j"$(nproc)"
case $mode in
    --build) exit 0 ;;
    --test)
        install_browser_driver "$WEB/node-tools"
        cd "$WEB" && exec ctest --output-on-failure -j"$(nproc)" -L web ;;
    --bench)
        install_browser_driver "$WEB/node-tools"
        build "$ROOT/build" --target attnscope-cli
        exec node "$ROOT/bench/web_bench.mjs" "$WEB/site" "$WEB/node-tools/node_modules/puppeteer-core" \
            "$ROOT/build/attnscope-cli" "$WEB/attnscope-cli.js" ;;
esac
port=${PORT:-8000}
echo "attnscope: open http://127.0.0.1:$port/ (Ctrl+C stops the server)"
exec python3 -m http.server "$port" --bind 127.0.0.1 --directory "$WEB/site"
