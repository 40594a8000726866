#!/bin/bash
# The engine's folders depend one way, bottom to top (docs/architecture.md):
#   base -> numerics, text -> attention -> model -> hub -> interventions -> check -> settings -> run -> output -> classroom
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
include = re.compile(r'^\s*#\s*include\s*[<"]([^">]+)[">]')
bad, checked = [], 0


def check_tree(tree, rank, top=None, forbidden=()):
    """Every include in tree/ of a folder ranked above the including file's folder. A file
    directly in tree/ (or in a folder not in `rank`, when `top` is given) ranks `top`."""
    global checked
    folders = sorted(f for f in os.listdir(os.path.join(root, tree)) if os.path.isdir(os.path.join(root, tree, f)))
    unknown = [f for f in folders if f not in rank and top is None]
    if unknown:
        print(f"{tree}/ folders with no layer (rank them):", ", ".join(unknown))
        sys.exit(1)
    for path in sorted(glob.glob(os.path.join(root, tree, "**", "*.*"), recursive=True)):
        if not path.endswith((".h", ".cpp")):
            continue
        rel = os.path.relpath(path, root)
        parts = rel.split("/")
        own = parts[1] if len(parts) > 2 else tree
        own_rank = rank.get(own, top)
        with open(path, encoding="utf-8") as f:
            for number, line in enumerate(f, 1):
                m = include.match(line)
                if not m:
                    continue
                checked += 1
                target = m.group(1)
                if target.startswith(forbidden):
                    bad.append(f"{rel}:{number}: includes {target}: the engine has no window or program code")
                    continue
                folder = target.split("/")[0]
                if "/" in target and folder in rank and rank[folder] > own_rank:
                    bad.append(f"{rel}:{number}: includes {target}: {tree}/{own} (layer {own_rank}) "
                               f"reaches up to {tree}/{folder} (layer {rank[folder]})")


check_tree("core", {"base": 0, "numerics": 1, "text": 1, "attention": 2, "model": 3, "hub": 3.2, "interventions": 3.5, "check": 3.7, "settings": 4, "run": 5,
                    "output": 6, "classroom": 7},
           forbidden=("imgui", "GLFW/", "GL/", "app/", "cli/", "state/", "views/", "panels/", "graphics/"))
# The app's folders (app/CMakeLists.txt): its ImGui-free state, then the OpenGL drawing,
# what the desktop and the browser do differently, the views of a run, the panels the
# user works with (which draw views), and at the top the frame (app/*.cpp, app/web/).
check_tree("app", {"state": 0, "graphics": 1, "platform": 2, "views": 3, "panels": 4}, top=5)
for line in bad:
    print(line)
print(f"{checked} includes checked, {len(bad)} climb")
sys.exit(1 if bad else 0)
EOF
