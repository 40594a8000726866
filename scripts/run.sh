#!/usr/bin/env bash
# Sets up, builds and launches attnscope. Arguments go to the app (see --help).
source "$(dirname "$0")/setup.sh"
install_missing "${BUILD_PACKAGES[@]}"
build "$ROOT/build"
if [ -x "$ROOT/build/attnscope" ]; then
    exec "$ROOT/build/attnscope" "$@"
fi
exec "$ROOT/build/attnscope-cli" "$@"
