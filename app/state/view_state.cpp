#include "state/view_state.h"

namespace app {

const std::vector<std::string>& view_tab_names() {
    static const std::vector<std::string> names = {"pipeline", "compare", "head-view", "kv-cache", "tiled-softmax", "check"};
    return names;
}

std::optional<ViewTab> view_tab_from_name(const std::string& name) {
    for (size_t i = 0; i < view_tab_names().size(); ++i)
        if (view_tab_names()[i] == name) return static_cast<ViewTab>(i);
    return std::nullopt;
}

std::string view_tab_name(ViewTab tab) { return view_tab_names().at(static_cast<size_t>(tab)); }

}  // namespace app
