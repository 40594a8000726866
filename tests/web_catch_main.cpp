// The golden tests' main in the web build (node runs attnscope-golden-tests.js): Debian's
// Catch2WithMain is built for the host, so the web build compiles Catch2's own main here.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
