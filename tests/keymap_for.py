#!/usr/bin/python3
"""keymap_for.py TEXT: prints an xmodmap file that gives every non-ASCII character of
TEXT a key of its own (among keycodes 200-255, XF86 media keys the app never reads,
leaving out the modifier keys there: Xvfb has Meta_L on 205, in mod1, and a character
typed on it arrives as Alt+character, which is no text).

Why: xdotool types a character missing from the keymap by remapping a spare key for
that one keystroke and back; the app's Xlib re-reads the keymap asynchronously, and if
xdotool has mapped the key back by then the keystroke reads as nothing (app_bad_input
lost the "€" of its text about one run in five). With the character on a key that stays
put while it is typed, nothing is lost. xdotool looks a character up by its legacy
keysym where X has one (odiaeresis for ö, Arabic_ra for ر), else by its Unicode keysym,
so each key carries both.
"""
import re
import subprocess
import sys


def free_keys():
    """Keycodes 200-255 that are not in the X server's modifier map."""
    modifiers = subprocess.run(["xmodmap", "-pm"], capture_output=True, text=True).stdout
    taken = {int(k, 16) for k in re.findall(r"\((0x[0-9a-fA-F]+)\)", modifiers)}
    return [k for k in range(200, 256) if k not in taken]


def legacy_keysyms(path="/usr/include/X11/keysymdef.h"):
    """Unicode code point -> the first legacy keysym defined for it."""
    table = {}
    try:
        with open(path) as f:
            for line in f:
                m = re.match(r"#define XK_\w+\s+(0x[0-9a-fA-F]+)\s*/\*\s*U\+([0-9A-Fa-f]{4,6})", line)
                if m:
                    table.setdefault(int(m.group(2), 16), int(m.group(1), 16))
    except OSError:
        pass  # without x11proto-dev only Unicode keysyms: still right for most scripts
    return table


def main(text):
    chars = sorted({c for c in text if ord(c) > 127})
    if not chars:
        return
    keys = free_keys()
    if len(chars) > len(keys):
        sys.exit("keymap_for.py: more than %d distinct non-ASCII characters" % len(keys))
    legacy = legacy_keysyms()
    for key, c in zip(keys, chars):
        unicode_keysym = 0x1000000 + ord(c)
        first = legacy.get(ord(c), unicode_keysym)
        print("keycode %d = 0x%x 0x%x" % (key, first, unicode_keysym))


if __name__ == "__main__":
    main(sys.argv[1])
