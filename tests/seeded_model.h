#pragma once
// Chapter 4's seeded GPT_CONFIG_124M model ("gpt-ch4"): drawing its 124M weights from torch's
// generator takes seconds, and the golden suites run once on the release tree and again
// under every kernel and vector width, so the cases that read it share one per test process.
#include <cstdint>
#include <map>

#include "model/model_source.h"

namespace attn::test {

inline const LoadedModel& seeded_gpt_ch4(uint64_t seed) {
    static std::map<uint64_t, LoadedModel> built;
    auto it = built.find(seed);
    if (it == built.end()) it = built.emplace(seed, load_model(kSeededModel, seed)).first;
    return it->second;
}

}  // namespace attn::test
