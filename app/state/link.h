#pragma once
// A link is a view. The browser app reads the desktop app's flags from its URL's query,
// each named as its flag without the dashes (?text=Hi+there&variant=mha&heads=2&
// lesson=3.5.1&lesson-step=3&presenter=1), and writes its controls back into the URL
// as they change, so that a teacher's link opens one exact view and a desktop command
// line with the same flags opens the same one.
#include <string>
#include <vector>

#include "settings/settings.h"
#include "state/view_state.h"

namespace app {

// The command line a query spells: "variant=mha&heads=2&presenter" gives
// {"--variant", "mha", "--heads", "2", "--presenter"}. A switch is `name` or `name=1`
// (`name=0` leaves it off); '+' is a space and %XX a byte. Throws OptionsError with one
// line for what a link cannot say: a flag that writes files or drives tests
// (screenshot, state-out, ...), a malformed escape, a name given twice.
std::vector<std::string> link_args(const std::string& query);

// What a view adds to its settings in a link.
struct LinkView {
    int head = 0;  // the head shown, 0-based (a link says it 1-based, as --head does)
    const ViewState* classroom = nullptr;
};

// The query (without '?') that opens `s` as `view` shows it: in a lesson, the lesson and
// its step (the step sets the controls); otherwise the settings that differ from the
// defaults, then the head, tab and comparison; presenter mode and the colour theme in both.
// A model or corpus opened from a file is not in the link: the visitor has no such file.
std::string link_query(const attn::Settings& s, const LinkView& view);

// "%XX" for every byte but letters, digits and "-_.~"; a space is '+'.
std::string link_escape(const std::string& text);

}  // namespace app
