#!/bin/bash
# The engine's folders depend one way, bottom to top (docs/architecture.md):
#   base -> numerics, text -> attention -> model -> settings -> run -> output -> classroom
# A file may include its own folder's headers and those of folders below it, never one
# above: attention (the math) knows nothing of settings, the model nothing of runs.
# core/ includes no app/ or cli/ header and no GUI library. The app's folders have their
# own order: state -> graphics -> platform -> views -> panels -> the frame (app/*.cpp).
# Prints every include that climbs (file:line, what it includes, both layers) and fails.
# Usage: tests/include_layers.test.sh [BUILD_DIR]   (ctest passes the build directory; unused)
ROOT=$(cd "$(dirname "$0")/.." && pwd)
exec python3 - "$ROOT" <<'EOF'
import glob
import os
import re
import sys

root = sys.argv[1]
LAYERS = ["base", "numerics", "text", "attention", "model", "settings", "run", "output", "classroom"]
RANK = {"base": 0, "numerics": 1, "text": 1, "attention": 2, "model": 3, "settings": 4, "run": 5,
        "output": 6, "classroom": 7}
FORBIDDEN = ("imgui", "GLFW/", "GL/", "app/", "cli/", "state/", "views/", "panels/", "graphics/")
include = re.compile(r'^\s*#\s*include\s*[<"]([^">]+)[">]')

bad, checked = [], 0
folders = sorted(os.listdir(os.path.join(root, "core")))
unknown = [f for f in folders if os.path.isdir(os.path.join(root, "core", f)) and f not in RANK]
if unknown:
    print("core/ folders with no layer (add them to LAYERS):", ", ".join(unknown))
    sys.exit(1)
for path in sorted(glob.glob(os.path.join(root, "core", "**", "*.*"), recursive=True)):
    if not path.endswith((".h", ".cpp")):
        continue
    rel = os.path.relpath(path, root)
    own = rel.split("/")[1]
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            m = include.match(line)
            if not m:
                continue
            checked += 1
            target = m.group(1)
            if target.startswith(FORBIDDEN):
                bad.append(f"{rel}:{number}: includes {target}: the engine has no window or program code")
                continue
            folder = target.split("/")[0]
            if "/" in target and folder in RANK and RANK[folder] > RANK[own]:
                bad.append(f"{rel}:{number}: includes {target}: {own} (layer {RANK[own]}) "
                           f"reaches up to {folder} (layer {RANK[folder]})")

# The app's folders, the same way (app/CMakeLists.txt): its ImGui-free state, then the
# OpenGL drawing, what the desktop and the browser do differently, the views of a run,
# the panels the user works with (which draw views), and the frame at the top.
APP_RANK = {"state": 0, "graphics": 1, "platform": 2, "views": 3, "panels": 4}
TOP = 5  # app/*.cpp and the browser's app/web/
app_folders = sorted(f for f in os.listdir(os.path.join(root, "app")) if os.path.isdir(os.path.join(root, "app", f)))
unknown = [f for f in app_folders if f not in APP_RANK and f != "web"]
if unknown:
    print("app/ folders with no layer (add them to APP_RANK):", ", ".join(unknown))
    sys.exit(1)
for path in sorted(glob.glob(os.path.join(root, "app", "**", "*.*"), recursive=True)):
    if not path.endswith((".h", ".cpp")):
        continue
    rel = os.path.relpath(path, root)
    parts = rel.split("/")
    own = parts[1] if len(parts) > 2 else "app"
    own_rank = APP_RANK.get(own, TOP)
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            m = include.match(line)
            if not m:
                continue
            checked += 1
            folder = m.group(1).split("/")[0]
            if "/" in m.group(1) and folder in APP_RANK and APP_RANK[folder] > own_rank:
                bad.append(f"{rel}:{number}: includes {m.group(1)}: app/{own} (layer {own_rank}) "
                           f"reaches up to app/{folder} (layer {APP_RANK[folder]})")
for line in bad:
    print(line)
print(f"{checked} includes checked, {len(bad)} climb")
sys.exit(1 if bad else 0)
EOF
