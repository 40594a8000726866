#pragma once
// What `--version` prints: the program, its version and the data folder it uses
// (core/base/data_dir.h), so that a user can tell which installed tree a program reads.
#include <string>

namespace attn {

// "attnscope-cli 0.1.0\ndata: /usr/share/attnscope\n". Throws UserError when the data
// folder is missing.
std::string version_text(const std::string& program);

}  // namespace attn
