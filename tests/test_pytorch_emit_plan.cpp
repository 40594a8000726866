// Every variant's row names a class the emitted program can build (VariantInfo::py_class,
// core/output/pytorch_emit_plan.cpp): the variant table lives below the emitter, so the two
// meet by name, and a name with no class is caught here rather than by a user's export.
#include <catch2/catch.hpp>

#include <string>

#include "output/pytorch_emit_parts.h"
#include "settings/settings.h"

TEST_CASE("every variant's row names an emitted class", "[unit][pytorch]") {
    for (const attn::VariantInfo& row : attn::variants()) {
        attn::Settings s;
        s.attention.variant = row.id;
        INFO(row.name);
        attn::pytorch_emit_parts::Plan plan;
        REQUIRE_NOTHROW(plan = attn::pytorch_emit_parts::plan_for(s));
        CHECK((plan.cls != nullptr) == (*row.py_class != '\0'));
        if (plan.cls) CHECK_FALSE(plan.title.empty());
    }
}
