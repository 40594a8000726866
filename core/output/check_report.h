#pragma once
// What `attnscope-cli --check FILE` prints (check/attention_check.h): a few lines a reader
// follows from their module to the first stage that leaves PyTorch's attention, or, with
// --json, the same as one JSON object.
#include <ostream>

#include "check/attention_check.h"

namespace attn {

void write_check_text(std::ostream& out, const AttentionCheck& check);
void write_check_json(std::ostream& out, const AttentionCheck& check);

}  // namespace attn
