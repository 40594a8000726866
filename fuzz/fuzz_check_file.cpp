// A recorded attention module (attnscope_record's safetensors, `attnscope-cli --check FILE`,
// chapter 3's classes and chapter 4's variants; the corpus holds both): the input is the
// file. A record that reads must check: its report's first difference, when there is one,
// names a stage that was recorded and a cell inside it, and every stage compared (what the
// app draws) is a match or that difference.
#include <unistd.h>

#include <cstdlib>

#include "check/attention_check.h"
#include "fuzz_common.h"

using namespace attn;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static const std::string path = [] {
        const std::string p = "/tmp/attnscope-fuzz-check." + std::to_string(::getpid()) + ".safetensors";
        std::atexit([] { ::unlink(("/tmp/attnscope-fuzz-check." + std::to_string(::getpid()) + ".safetensors").c_str()); });
        return p;
    }();
    FILE* f = std::fopen(path.c_str(), "wb");
    if (!f || (size && std::fwrite(data, 1, size, f) != size)) fuzz::fuzz_fail("cannot write " + path);
    std::fclose(f);

    std::optional<RecordedAttention> record;
    if (!fuzz::refusals_are_fine([&] { record.emplace(read_recorded_attention(path)); })) return 0;
    std::optional<AttentionCheck> check;
    if (!fuzz::refusals_are_fine([&] { check.emplace(check_attention(*record)); })) return 0;
    if (check->first) {
        const auto stage = record->stages.find(check->first->stage);
        fuzz::check(stage != record->stages.end(), "the first difference is a recorded stage");
        const size_t head = check->first->head < 0 ? 0 : static_cast<size_t>(check->first->head);
        fuzz::check(head < stage->second.size() && check->first->row < stage->second[head].rows() &&
                        check->first->col < stage->second[head].cols(),
                    "the first difference is a cell of that stage");
    }
    fuzz::check(check->compared.size() == check->matched.size() + (check->first ? 1 : 0),
                "every compared stage is a match or the first difference");
    return 0;
}
