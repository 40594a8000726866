#pragma once
// One control for one row of the settings table (setting_table.h): its kind, range,
// label, tooltip and whether the variant takes it all come from the row, so a new
// setting needs no code here.
#include "settings/settings.h"
#include "state/widget_rects.h"

namespace app {

// Draws the row's control over `c` (hidden or greyed out when the variant does not
// take it, greyed out when what it needs is off) and records its rectangle under the
// row's key. True when the user changed the value.
bool draw_setting(const attn::SettingRow& row, attn::Settings& c, WidgetRects& rects);

}  // namespace app
