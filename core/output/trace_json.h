#pragma once
// The CLI's JSON form of a run: one object, every stage a nested list of numbers.
// -inf (masked scores) is written as null, since JSON has no infinities.
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "run/pipeline.h"
#include "attention/stage_catalogue.h"  // stage_names(): every stage name --stages accepts

namespace attn {

struct Timing {
    double median_us;
    int runs;
};

// Writes the run; `keep` lists the stage names to print (empty: all of them).
void write_run_json(std::ostream& out, const Run& run, const std::vector<std::string>& keep,
                    const std::optional<Timing>& timing);

}  // namespace attn
