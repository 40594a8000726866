#include "state/open_check.h"

#include <sstream>

#include "output/check_report.h"

namespace app {

OpenCheck open_check(const std::string& path) {
    OpenCheck c;
    c.path = path;
    c.result = attn::check_attention(attn::read_recorded_attention(path));
    std::ostringstream text;
    attn::write_check_text(text, c.result);
    c.report = text.str();
    if (!c.result.compared.empty()) c.stage = c.result.compared.size() - 1;
    if (c.result.first && c.result.first->head >= 0) c.head = c.result.first->head;
    return c;
}

}  // namespace app
