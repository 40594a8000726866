#!/usr/bin/env bash
# Sets up, builds and runs every test: the release build (unit, golden, CLI and
# window tests), then the unit tests again under AddressSanitizer and UBSan.
source "$(dirname "$0")/setup.sh"
install_missing "${BUILD_PACKAGES[@]}" "${TEST_PACKAGES[@]}"
build "$ROOT/build"
(cd "$ROOT/build" && ctest --output-on-failure -j2)

build "$ROOT/build-asan" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DATTNSCOPE_SANITIZE=ON -DATTNSCOPE_APP=OFF -DATTNSCOPE_BENCH=OFF
echo "== the same unit tests under AddressSanitizer + UBSan"
(cd "$ROOT/build-asan" && ASAN_OPTIONS=detect_leaks=1 ctest --output-on-failure -j2)
