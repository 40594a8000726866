#pragma once
// What the app starts with, from its command line or (in the browser) its link: the
// settings the controls open on and the app's own options. One reading for both, so a
// desktop command line and a link say the same thing.
#include <string>
#include <vector>

#include "settings/settings.h"
#include "state/app_options.h"

namespace app {

struct Startup {
    attn::Settings settings;
    AppOptions options;
    bool help = false;  // --help: print the usage instead
};

// Throws (attn::ArgsError, OptionsError) with one line for a bad flag or value.
Startup parse_startup(const std::vector<std::string>& args);

}  // namespace app
