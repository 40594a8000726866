#include "state/startup.h"

#include "model/model_source.h"

namespace app {

Startup parse_startup(const std::vector<std::string>& args) {
    attn::ParsedArgs parsed = attn::parse_settings(args);
    Startup startup{parsed.settings, AppOptions{}, parsed.help};
    if (parsed.help) return startup;
    startup.options = parse_app_options(parsed.rest);
    attn::Settings& s = startup.settings;
    attn::check_revision_flag(s.model, startup.options.revision);
    // --head is the settings table's for a model (0-based, as L.H); for the chapter 3
    // module it is the app's own head to show, 1-based as the head strip numbers them.
    if (s.head && !s.model) {
        if (*s.head < 1 || *s.head > 64) throw OptionsError("--head must be between 1 and 64, got " + std::to_string(*s.head));
        startup.options.selected_head = *s.head - 1;
        s.head.reset();
    } else if (s.head) {
        startup.options.selected_head = *s.head;
    }
    return startup;
}

}  // namespace app
