// attnscope-tests' main: Catch2's, after the same choice of OpenBLAS's kernels the app and
// the CLI make (numerics/blas_kernels.h), so the tests run on what a user's programs run on.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include "numerics/blas_kernels.h"

int main(int argc, char** argv) {
    attn::choose_blas_kernels(argv);
    return Catch::Session().run(argc, argv);
}
