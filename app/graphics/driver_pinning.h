#pragma once

namespace app {

// In sanitizer builds: keeps the OpenGL driver Mesa loaded (swrast_dri.so, ...)
// mapped until the process ends. Mesa unloads it when the context goes, before
// LeakSanitizer looks; its allocations are then reported from "<unknown module>",
// which no suppression can name. Pinned, they name the driver and
// tests/sanitizers/lsan.supp suppresses them. Does nothing in other builds.
void pin_gl_driver();

}  // namespace app
