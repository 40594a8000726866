#include "base/version.h"

#include "base/data_dir.h"

#ifndef ATTNSCOPE_VERSION
#define ATTNSCOPE_VERSION "unknown"  // a build not configured by the top CMakeLists.txt (fuzzing)
#endif

namespace attn {

std::string version_text(const std::string& program) {
    return program + " " + ATTNSCOPE_VERSION + "\ndata: " + data_dir() + "\n";
}

}  // namespace attn
