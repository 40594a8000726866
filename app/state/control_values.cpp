#include "state/control_values.h"

namespace app {

attn::Settings settings_from(const ControlValues& c, const attn::Settings& fixed) {
    attn::Settings s = c;
    s.memory_budget = fixed.memory_budget;
    attn::reset_inapplicable(s);
    return s;
}

}  // namespace app
