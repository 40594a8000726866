"""What the monkey does: each action acts on the window and checks what it can."""
import os
import subprocess
import time

from window import KEY_FRAMES, Failure

# Characters a class might type: accents, CJK, kana, Hangul, emoji, combining marks,
# right-to-left scripts, zero-width characters, symbols, plain ASCII and spaces.
POOLS = [
    "abcdefghijklmnopqrstuvwxyz ABCXYZ 0123456789 .,;:!?'\"()-",
    "éèêëüöäßçñøåœæÉÜÖ",
    "你好世界中文字注意力机制",
    "ひらがなカタカナアイウエオ",
    "한국어주의집중",
    "😀🎉👍🚀🧠",
    "e\u0301a\u0308o\u0303",
    "مرحبا بالعالم שלום עולם",
    "\u200b\u200c\u200d\u2060",
    "€£¥©®™°±×÷…—–“”‘’",
]
SLIDERS = {  # name: values to try, impossible ones included (the app must explain them)
    "seed": ["0", "1", "123", "99999", "-5"],
    "embed_seed": ["0", "7", "123"],
    "d_in": ["1", "2", "3", "4", "16", "64", "768", "0", "5000"],
    "d_out": ["1", "2", "3", "4", "6", "8", "64", "768", "0"],
    "d_out_v": ["1", "2", "4", "5"],
    "heads": ["1", "2", "3", "4", "5", "12", "16", "0", "99"],
    "dropout": ["0", "0.1", "0.5", "1", "-1", "2"],
    "context_length": ["0", "1", "3", "8", "64"],
    "ui_scale": ["1", "1.5", "2", "3"],
}
CHECKBOXES = ["causal", "pos", "qkv_bias", "training", "d_out_v_follows", "window_header",
              "tokenizer_words", "tokenizer_simple", "tokenizer_gpt2"]
LEFT_PANEL = set(SLIDERS) | {"text"} | (set(CHECKBOXES) - {"window_header"})
KEYS = ["h", "shift+h", "d", "shift+d", "r", "F5", "shift+question", "Left", "Right", "Up", "Down",
        "Tab", "Home", "End", "Delete", "BackSpace", "Return", "space", "ctrl+z", "ctrl+a"]
START_FLAGS = {  # by --mode
    "chapter3": [[], ["--lesson", "3.6.1"], ["--lesson", "3.5.2", "--lesson-step", "3"],
                 ["--variant", "mha", "--heads", "4", "--d-in", "8", "--d-out", "8"],
                 ["--tokenizer", "gpt2", "--d-in", "16", "--d-out", "4"], ["--presenter"],
                 # issue 58's: a run longer than a frame
                 ["--variant", "mha-wrapper", "--heads", "13", "--d-in", "768", "--d-out", "1024", "--dropout", "1",
                  "--tokenizer", "gpt2"]],
    "model": [["--model", "sotu-small"], ["--model", "sotu-small", "--generate", "2"],
              ["--model", "sotu-small", "--presenter"], ["--model", "gpt-ch4", "--text", "Hello, I am"]],
}
START_SIZES = [[], [], ["--size", "400x800"], ["--size", "1600x1000"], ["--size", "700x450"]]
# Typed fast, without waiting (issue 58): shifted and plain keys, as the tokenizers' specials.
BURST_POOL = "<|endoftext|> <|unk|> Your journey starts with one step, ABC xyz 0123;:!?"


def shown(text):
    """What the text box holds after typing `text`: Debian's Dear ImGui has 16-bit
    characters, so each beyond U+FFFF (emoji) becomes U+FFFD."""
    return "".join(c if ord(c) <= 0xFFFF else "\ufffd" for c in text)


class Actions:
    def __init__(self, window, rng, work, mode="chapter3"):
        self.w, self.rng, self.work, self.mode = window, rng, work, mode
        self.clipboard = None
        self.table = [
            (6, "type", self.type_text), (2, "clear", self.clear), (2, "paste", self.paste),
            (5, "slider", self.slider), (3, "checkbox", self.checkbox), (4, "key", self.key),
            (4, "click", self.click_anywhere), (1, "combo", self.combo), (1, "open session", self.open_session),
            (1, "save session", self.save_session), (2, "resize", self.resize),
            (2, "tab", self.tab), (2, "menu", self.menu),
            (2, "burst", self.burst), (2, "pause", self.pause), (2, "presenter key", self.presenter_key),
        ]

    def prepare_files(self):
        """Session files to open: good ones saved by the app, and broken ones."""
        app = self.w.app
        for name, flags in [("good1", ["--variant", "mha", "--heads", "6", "--d-in", "12", "--d-out", "12",
                                       "--head", "5"]),
                            ("good2", ["--lesson", "3.6.1", "--lesson-step", "2"])]:
            if os.path.exists(os.path.join(self.work, name + ".json")):
                continue  # an earlier walk in the same folder saved it
            subprocess.run([app, *flags, "--save-session", os.path.join(self.work, name + ".json"),
                            "--screenshot", os.path.join(self.work, name + ".png")],
                           capture_output=True, timeout=120)
        with open(os.path.join(self.work, "cut.json"), "w") as f:
            f.write('{"format": "attnscope-session", "version": 1, "settings": {"te')
        with open(os.path.join(self.work, "garbage.json"), "wb") as f:
            f.write(bytes(self.rng.randrange(256) for _ in range(4096)))
        with open(os.path.join(self.work, "huge.json"), "w") as f:
            f.write('{"format": "attnscope-session", "version": 1, "settings": {"variant": "mha", '
                    '"heads": 64, "d_in": 4096, "d_out": 4096, "text": "%s"}}' % " ".join(["w"] * 4000))
        self.session_files = ["good1.json", "good2.json", "cut.json", "garbage.json", "huge.json",
                              "missing.json", "."]
        flags = self.rng.choice(START_FLAGS[self.mode]) + self.rng.choice(START_SIZES)
        self.w.log.write("start %s\n" % flags)
        self.start_flags = flags

    def pick(self):
        total = sum(weight for weight, _, _ in self.table)
        r = self.rng.uniform(0, total)
        for weight, name, run in self.table:
            r -= weight
            if r <= 0:
                return name, run
        return self.table[-1][1], self.table[-1][2]

    # --- helpers ---
    def ready_for_text(self):
        """Closes a dialog, list or help left open and shows the controls; the text box's
        centre or None."""
        s = self.w.state()
        if s.get("dialog") is not None:
            self.w.hold("Escape")
            s = self.w.wait(lambda s: s.get("dialog") is None, "the dialog to close")
        self.uncover()
        s = self.w.state()
        if s.get("presenter"):
            self.w.hold("F5")
            s = self.w.wait(lambda s: not s.get("presenter"), "presenter mode to end")
        return self.bring_into_view("text")

    def bring_into_view(self, name):
        """Scrolls the panel holding widget `name` (a user scrolls it too) until the widget
        is inside the window; its centre, or None when it is not drawn or stays out of view."""
        self.uncover()
        for _ in range(60):
            s = self.w.state()
            r = s["widgets"].get(name)
            if r is None:
                return None
            height = s["framebuffer"][1]
            # Inside the window and below the menu bar, with room for the panel's border.
            top = s["widgets"].get("menu_file", [0, 0, 0, 0])[3] + 8
            if r[1] >= top and r[3] <= height - 8:
                return self.w.widget(s, name)
            wheel = "4" if r[1] < top else "5"  # X buttons 4 and 5: the wheel up and down
            # Over the panel: controls of the left panel scroll with the text box, whose
            # left edge is inside it (at UI scale 3 the tokenizer buttons run past its
            # right side); any other widget with its own left edge.
            column = s["widgets"].get("text", r) if name in LEFT_PANEL else r
            self.w.xdo("mousemove", "--window", self.w.wid, str(int(column[0]) + 5), str(height // 2))
            self.w.xdo("click", wheel)  # one notch: at UI scale 3 three notches jump past a small panel
            self.w.wait(lambda t: t["frame"] != s["frame"], "a frame after scrolling")
        # Not the app's failure: the wheel scrolls whatever panel is under the pointer,
        # and a panel of the right side may hold it. The action is skipped.
        self.w.log.write("  %s stays out of view after 60 scrolls: %s\n" % (name, self.w.state()["widgets"].get(name)))
        return None

    def uncover(self):
        """Closes what lies over the panels: an open menu or list, the shortcut overlay."""
        if self.w.state().get("popup"):
            self.close_popup()
        if not self.w.state().get("help"):
            return
        self.w.hold("Escape")  # a first Escape may only leave a text box that holds the keys
        try:
            self.w.wait(lambda s: not s.get("help"), "the shortcut overlay to close", 2)
            return
        except Failure:
            pass
        self.w.hold("Escape")
        self.w.wait(lambda s: not s.get("help"), "a second Escape to close the shortcut overlay")

    def close_popup(self):
        """Closes an open menu or list as a user would: with Escape."""
        self.w.hold("Escape")
        self.w.wait(lambda s: not s.get("popup"), "Escape to close the open menu or list")

    def focus_text_end(self):
        """Clicks the text box and waits, as a user looks for the cursor, until it takes
        the keys; then moves to the end. The text before typing, or None."""
        for attempt in range(2):
            at = self.ready_for_text()
            if at is None:
                return None
            self.w.click(*at)
            try:
                self.w.wait(lambda s: s.get("active_widget") == "text", "the text box to take the keys", 10)
                break
            except Failure:
                # A click that only closed a list opened just before the state was read
                # leaves the box inactive; a user clicks again. Twice is a failure.
                s = self.w.state()
                self.w.log.write("  a click at %d %d left the text box inactive: active %s, popup %s, rect %s\n"
                                 % (at[0], at[1], s.get("active_widget"), s.get("popup"),
                                    s["widgets"].get("text")))
                if attempt == 1:
                    raise Failure("two clicks on the text box at %d %d did not make it take the keys"
                                  % (at[0], at[1]))
        self.w.hold("End")
        return self.w.state()["text"]

    def expect_text(self, want, what):
        try:
            self.w.wait(lambda s: s["text"] == want, what)
        except Failure:
            s = self.w.state()
            got = s["text"]
            raise Failure("%s: the state has %r (%d chars), expected %r (%d chars); active %s, popup %s"
                          % (what, got[-80:], len(got), want[-80:], len(want), s.get("active_widget"),
                             s.get("popup")))

    # --- actions ---
    def type_text(self):
        before = self.focus_text_end()
        if before is None:
            return
        pool = self.rng.choice(POOLS)
        text = "".join(self.rng.choice(pool) for _ in range(self.rng.randint(1, 12)))
        self.w.log.write("  typed %r\n" % text)
        self.w.type(text)
        self.expect_text(before + shown(text), "typed text %r" % text)

    def clear(self):
        if self.focus_text_end() is None:
            return
        self.w.hold("ctrl+a")
        self.w.hold("BackSpace")
        self.expect_text("", "select all + delete")

    def burst(self):
        """Types fast and does not wait, as the walk of issue 58 did, sometimes after
        Ctrl+A, BackSpace, while the runs it asks for compute: the whole text must be in
        the state a few frames after the last key (it drained for a minute, starting run
        after run, and keys pressed after it waited behind it)."""
        before = self.focus_text_end()
        if before is None:
            return
        text = "".join(self.rng.choice(BURST_POOL) for _ in range(self.rng.choice([20, 80, 200, 400])))
        delay = self.rng.choice([0, 2, 5])
        if self.rng.random() < 0.4:
            self.w.hold("ctrl+a")
            self.w.hold("BackSpace")
            before = ""
            self.expect_text(before, "select all + delete before a burst")
        self.w.log.write("  burst of %d characters, %d ms apart: %r\n" % (len(text), delay, text[:60]))
        self.w.xdo("type", "--delay", str(delay), "--", text)
        s = self.w.after_frames(KEY_FRAMES, self.w.keys_arrived())
        if s["text"] != before + text:
            raise Failure("a burst of %d characters was not in the state %d frames after it reached the app: it has %d "
                          "of %d characters, ending %r; %s" % (len(text), KEY_FRAMES, len(s["text"]),
                                                              len(before + text), s["text"][-40:], self.w.brief(s)))
        self.w.settle_without_input()

    def pause(self):
        """A user who stops to look: with no input the app settles and starts no run."""
        self.w.log.write("  pause\n")
        self.w.settle_without_input()

    def presenter_key(self):
        """F5 turns presenter mode on and off within a few frames of the key, while runs
        compute too; Escape first when a field holds the keys (F5 would go to it)."""
        s = self.w.state()
        if s.get("dialog") is not None:
            self.w.hold("Escape")
            s = self.w.wait(lambda s: s.get("dialog") is None, "the dialog to close")
        keys = ["F5"] if s.get("active_widget") is None and not s.get("popup") else ["Escape", "F5"]
        was = s["presenter"]
        self.w.log.write("  %s: presenter %s\n" % (" ".join(keys), not was))
        self.w.check_keys_taken(keys, lambda s: s["presenter"] != was, "presenter mode %s" % ("off" if was else "on"))
        self.w.check_keys_taken(["F5"], lambda s: s["presenter"] == was, "presenter mode back %s" % ("on" if was else "off"))

    def paste(self):
        kind = self.rng.choice(["long", "unicode", "invalid"])
        if kind == "long":
            data = (" ".join(self.rng.choice(["the", "cat", "sat", "on", "a", "mat"])
                             for _ in range(self.rng.choice([10, 1000, 20000])))).encode()
        elif kind == "unicode":
            data = "".join(self.rng.choice(self.rng.choice(POOLS)) for _ in range(200)).encode()
        else:
            data = bytes(self.rng.choice([0xff, 0xfe, 0xc3, 0x80, 0xe4, 0x41, 0x20]) for _ in range(50))
        path = os.path.join(self.work, "clip")
        with open(path, "wb") as f:
            f.write(data)
        if self.clipboard:
            self.clipboard.kill()
            self.clipboard.wait()
        self.clipboard = subprocess.Popen(["xclip", "-quiet", "-selection", "clipboard", "-i", path],
                                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(0.2)
        before = self.focus_text_end()
        if before is None:
            return
        self.w.log.write("  pasted %s, %d bytes\n" % (kind, len(data)))
        self.w.paste_once()
        if kind != "invalid":  # invalid UTF-8: whatever the app makes of it, it must live
            self.expect_text(before + shown(data.decode()), "pasted %s text" % kind)

    def slider(self):
        s = self.w.state()
        names = [n for n in SLIDERS if n in s["widgets"]]
        if not names or s.get("dialog") is not None:
            return
        name = self.rng.choice(names)
        value = self.rng.choice(SLIDERS[name])
        self.w.log.write("  %s = %s\n" % (name, value))
        at = self.bring_into_view(name)
        if at is None:
            return
        self.w.click(*at, modifier="ctrl")  # ctrl+click: type a value
        self.w.hold("ctrl+a")
        self.w.type(value)
        self.w.hold("Return")

    def checkbox(self):
        s = self.w.state()
        names = [n for n in CHECKBOXES if n in s["widgets"]]
        if names:
            at = self.bring_into_view(self.rng.choice(names))
            if at is not None:
                self.w.click(*at)

    def key(self):
        key = self.rng.choice(KEYS)
        self.w.log.write("  key %s\n" % key)
        self.w.hold(key)

    def click_anywhere(self):
        fb = self.w.state()["framebuffer"]
        x, y = self.rng.randrange(max(1, fb[0])), self.rng.randrange(max(1, fb[1]))
        self.w.log.write("  click %d %d\n" % (x, y))
        self.w.click(x, y)

    def combo(self):
        s = self.w.state()
        at = self.w.widget(s, "variant")
        if at is None:
            return
        self.w.click(*at)
        # As a user does: the list is seen open before an entry is picked, and seen closed.
        try:
            s = self.w.wait(lambda s: "variant_open" in s["widgets"], "the variant list", 5)
        except Failure:
            return  # a popup of the app's own may have taken the click; not a failure
        # An entry of the list, which opens above the combo when there is no room below
        # (seed 37196: a click below it, outside a short window, never reached the app).
        x0, y0, x1, y1 = s["widgets"]["variant_open"]
        self.w.click((x0 + x1) / 2, self.rng.uniform(y0 + 4, y1 - 4))
        try:
            self.w.wait(lambda s: not s["popup"], "the variant list to close", 2)
        except Failure:  # the list's margin, between entries: a user leaves with Escape
            self.close_popup()

    def tab(self):
        s = self.w.state()
        names = [n for n in ("tab_pipeline", "tab_compare", "tab_head_view") if n in s["widgets"]]
        if names and s.get("dialog") is None:
            name = self.rng.choice(names)
            self.w.log.write("  %s\n" % name)
            self.w.click(*self.w.widget(s, name))

    def menu(self):
        """Opens the Lessons or View menu and clicks one of its items (a lesson, presenter
        mode, a colour map, a comparison, help). File is left alone: it holds Quit."""
        s = self.w.state()
        name = self.rng.choice(["menu_lessons", "menu_view"])
        if name not in s["widgets"] or s.get("dialog") is not None:
            return
        self.w.click(*self.w.widget(s, name))
        try:
            s = self.w.wait(lambda s: name + "_open" in s["widgets"], "the %s list" % name, 5)
        except Failure:
            return  # a popup of the app's own may have taken the click; not a failure
        x0, y0, x1, y1 = s["widgets"][name + "_open"]
        x, y = (x0 + x1) / 2, self.rng.uniform(y0 + 4, y1 - 4)
        self.w.log.write("  %s item at %d %d\n" % (name, x, y))
        self.w.click(x, y)
        if name + "_open" in self.w.state()["widgets"]:  # a submenu or a line that is no item
            self.w.hold("Escape")

    def open_session(self):
        name = self.rng.choice(self.session_files)
        self.file_dialog("ctrl+o", os.path.join(self.work, name))

    def save_session(self):
        self.file_dialog("ctrl+s", os.path.join(self.work, "saved-%d.json" % self.rng.randrange(3)))

    def file_dialog(self, keys, path):
        self.ready_for_text()  # what it closes (a dialog, a list, presenter mode) would take the keys
        self.w.hold(keys)
        try:
            self.w.wait(lambda s: s.get("dialog") is not None, "the file dialog", 3)
        except Failure:
            return  # a popup of the app's own may hold the keys; not a failure
        # The path field takes the keys a frame or two after the dialog appears; a field
        # that never does is a failure (the path could not be typed).
        self.w.wait(lambda s: s.get("dialog") is not None and s["dialog"]["typing"], "the path field to take the keys")
        self.w.log.write("  %s %s\n" % (keys, path))
        self.w.hold("ctrl+a")
        self.w.type(path)
        self.w.hold("Return")
        s = self.w.wait(lambda s: s.get("dialog") is None or s["dialog"].get("error"), "the dialog's outcome")
        if s.get("dialog") is not None:  # refused with a message in place: cancel it
            self.w.hold("Escape")
            self.w.wait(lambda s: s.get("dialog") is None, "the dialog to close")

    def resize(self):
        width, height = self.rng.randint(640, 1600), self.rng.randint(400, 1000)
        self.w.log.write("  resize %dx%d\n" % (width, height))
        self.w.xdo("windowsize", self.w.wid, str(width), str(height))
