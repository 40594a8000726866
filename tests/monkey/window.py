"""The app's window as the monkey drives it: the process, its state file, xdotool.

Every wait here is bounded only against a hang (HANG_SECONDS): a sanitizer build on a
loaded machine may take many seconds for its first state file or a frame, and that is
"not yet", never a failure. How long the app took is reported, not asserted: a time limit
belongs in a benchmark (app/state/frame_bench.h), not in a test."""
import json
import os
import subprocess
import sys
import time

KEYMAP_FOR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "keymap_for.py")


HANG_SECONDS = 120  # no wait in a working app comes near this, however loaded the machine
# Frames drawn after the last key was sent by which the state must show it. Counted in
# frames, never seconds: a frame under a sanitizer on a loaded machine takes what it takes,
# but a key that waits behind earlier input, or is dropped, waits for many frames or for
# ever (issue 58: for a minute). Frames that only let held-back keys through, frames held
# back for a run, and those of a changing layout are not drawn, so not counted.
KEY_FRAMES = 5
# With no input, runs that may still end after an action: the one running and the one
# waiting, then the head on screen of a long run, or a model's full run after its cached one.
UNPROMPTED_RUNS = 6
IDLE_FRAMES = 4  # frames drawn, with no input, during which no run may start


class Failure(Exception):
    pass


class Window:
    def __init__(self, app, work, log):
        self.app, self.work, self.log = app, work, log
        self.slowest_answer = 0.0  # seconds from a poke to the next frame, the longest seen
        self.state_path = os.path.join(work, "state.json")
        self.proc = None
        self.wid = None

    # --- the process ---
    def start(self, *flags):
        if os.path.exists(self.state_path):
            os.remove(self.state_path)
        self.proc = subprocess.Popen([self.app, "--state-out", self.state_path, *flags],
                                     stdout=open(os.path.join(self.work, "app.log"), "w"),
                                     stderr=subprocess.STDOUT)
        out = subprocess.run(["timeout", str(HANG_SECONDS), "xdotool", "search", "--sync", "--onlyvisible",
                              "--name", "^attnscope"], capture_output=True, text=True).stdout.split()
        if not out:
            raise Failure("no window appeared: " + self.app_said())
        self.wid = out[0]
        self.xdo("windowfocus", "--sync", self.wid)
        self.wait(lambda s: s["run_version"] >= 1 and not s["computing"], "the first run")

    def app_said(self):
        try:
            with open(os.path.join(self.work, "app.log"), errors="replace") as f:
                return " | ".join(f.read().splitlines()[-8:])
        except OSError:
            return ""

    def rss_mb(self):
        with open("/proc/%d/status" % self.proc.pid) as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024.0
        return 0.0

    def quit(self):
        self.hold("ctrl+q")
        try:
            code = self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            raise Failure("Ctrl+Q did not end the app within 20 s")
        if code != 0:
            raise Failure("the app exited %d on Ctrl+Q: %s" % (code, self.app_said()))

    def keep_evidence(self):
        """Saves a screenshot and the last state next to the log; returns where."""
        shot = os.path.join(self.work, "failure.png")
        subprocess.run(["import", "-window", "root", shot], check=False, capture_output=True)
        state = os.path.join(self.work, "failure-state.json")
        try:
            with open(self.state_path, "rb") as src, open(state, "wb") as dst:
                dst.write(src.read())
        except OSError:
            pass
        return "%s, %s" % (shot, state)

    def kill(self):
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()

    # --- the state file ---
    def state(self):
        """The app's last state. The file is written by rename, so a read sees a whole file
        or none; none yet (the app still starting) is waited for, until a hang."""
        deadline = time.monotonic() + HANG_SECONDS
        while True:
            try:
                with open(self.state_path) as f:
                    return json.load(f)
            except (OSError, ValueError):
                pass
            self.alive()
            if time.monotonic() > deadline:
                raise Failure("no state file could be read for %d s" % HANG_SECONDS)
            time.sleep(0.02)

    def wait(self, predicate, what, seconds=HANG_SECONDS):
        deadline = time.monotonic() + seconds
        while True:
            self.alive()
            s = self.state()
            try:
                if predicate(s):
                    return s
            except (KeyError, TypeError, IndexError):
                pass
            if time.monotonic() > deadline:
                raise Failure("timed out after %d s waiting for %s" % (seconds, what))
            time.sleep(0.05)

    def alive(self):
        code = self.proc.poll()
        if code is not None:
            raise Failure("the app died (exit %d): %s" % (code, self.app_said()))

    def check_alive_and_answering(self):
        """Pokes the window (a pointer move) and expects a new frame: any delay short of a
        hang passes; the slowest is kept for the report."""
        frame = self.state()["frame"]
        self.xdo("mousemove", "--window", self.wid, "5", "5")
        self.xdo("mousemove", "--window", self.wid, "6", "6")
        started = time.monotonic()
        while self.state()["frame"] == frame:
            self.alive()
            if time.monotonic() - started > HANG_SECONDS:
                raise Failure("no frame drawn within %d s of a pointer move" % HANG_SECONDS)
            time.sleep(0.02)
        self.slowest_answer = max(self.slowest_answer, time.monotonic() - started)

    def after_frames(self, frames, frame=None):
        """The first state drawn `frames` frames after `frame` (default: the one now)."""
        if frame is None:
            frame = self.state()["frame"]
        return self.wait(lambda s: s["frame"] >= frame + frames, "%d frames after frame %d" % (frames, frame))

    def keys_arrived(self, target=None):
        """The frame by which the app had received every key sent (the state's pointer.keys
        counts presses as they reach it, before any is held back): `target` presses, or, not
        given, once the count stays the same over two frames. Frames are counted from there,
        since the X server may take a while to deliver keys while the window changes."""
        s = self.state()
        if target is not None:
            return self.wait(lambda s: s["pointer"]["keys"] >= target, "key press %d to reach the app" % target)["frame"]
        while True:
            t = self.after_frames(2, s["frame"])
            if t["pointer"]["keys"] == s["pointer"]["keys"]:
                return s["frame"]
            s = t

    def check_keys_taken(self, keys, predicate, what):
        """Sends the keys, quickly, as a user types them; `predicate` must hold of the state
        KEY_FRAMES frames after they reached the app, whatever computes meanwhile."""
        target = self.state()["pointer"]["keys"] + len(keys)
        self.xdo("key", *keys)
        frame = self.keys_arrived(target)
        s = self.after_frames(KEY_FRAMES, frame)
        if not predicate(s):
            raise Failure("%s not taken within %d frames of reaching the app (%s): frame %d to %d; %s"
                          % (" ".join(keys), KEY_FRAMES, what, frame, s["frame"], self.brief(s)))
        return s

    def settle_without_input(self):
        """With no input the app settles, then starts no run for IDLE_FRAMES frames. A model
        generating its tokens (a run a token) is waited for."""
        s = self.state()
        first, deadline = s["run_version"], time.monotonic() + HANG_SECONDS
        while s["computing"] or s.get("generating"):
            if s.get("generating"):
                first = s["run_version"]
            elif s["run_version"] - first > UNPROMPTED_RUNS:
                raise Failure("runs keep starting with no input: %d runs since the last action; %s"
                              % (s["run_version"] - first, self.brief(s)))
            if time.monotonic() > deadline:
                raise Failure("the app did not settle within %d s of the last action: %s"
                              % (HANG_SECONDS, self.brief(s)))
            time.sleep(0.05)
            self.alive()
            s = self.state()
        version, frame, deadline = s["run_version"], s["frame"], time.monotonic() + HANG_SECONDS
        while s["frame"] < frame + IDLE_FRAMES:
            if s["computing"] or s["run_version"] != version:
                raise Failure("a run started with no input, %d frames after the app settled (run %d, then %d): %s"
                              % (s["frame"] - frame, version, s["run_version"], self.brief(s)))
            if time.monotonic() > deadline:
                raise Failure("no frame drawn for %d s while idle: %s" % (HANG_SECONDS, self.brief(s)))
            time.sleep(0.05)
            self.alive()
            s = self.state()
        return s

    @staticmethod
    def brief(s):
        """What a failure prints of the state: where the window was."""
        return ("frame %s, run %s, computing %s, error %r, text %d chars, active %s, presenter %s, popup %s, dialog %s"
                % (s.get("frame"), s.get("run_version"), s.get("computing"), s.get("error"), len(s.get("text", "")),
                   s.get("active_widget"), s.get("presenter"), s.get("popup"), s.get("dialog")))

    # --- xdotool ---
    def xdo(self, *args):
        subprocess.run(["xdotool", *args], check=False, capture_output=True)

    def hold(self, keys, seconds=0.3):
        """Dear ImGui 1.86 samples keys once a frame: a key is held across a frame."""
        self.xdo("keydown", keys)
        time.sleep(seconds)
        self.xdo("keyup", keys)

    def paste_once(self):
        """Ctrl+V pressed and released at once (the app passes the release to the next frame:
        app/keyboard.h). Held for a time, a loaded machine can make the hold outlast Dear
        ImGui's 0.275 s key repeat delay, and the text is pasted again and again."""
        self.xdo("key", "ctrl+v")

    def click(self, x, y, modifier=None):
        self.xdo("mousemove", "--window", self.wid, str(int(x)), str(int(y)))
        time.sleep(0.05)
        if modifier:
            self.xdo("keydown", modifier)
        self.xdo("click", "1")
        if modifier:
            self.xdo("keyup", modifier)
        time.sleep(0.05)

    def type(self, text):
        """Types any Unicode: non-ASCII characters get keys of their own first
        (tests/keymap_for.py says why)."""
        keymap = subprocess.run([sys.executable, KEYMAP_FOR, text], capture_output=True, text=True,
                                check=True).stdout
        if keymap:
            path = os.path.join(self.work, "keymap")
            with open(path, "w") as f:
                f.write(keymap)
            subprocess.run(["xmodmap", path], check=False, capture_output=True)
        self.xdo("type", "--delay", "40", "--", text)

    def widget(self, s, name):
        r = s["widgets"].get(name)
        return None if r is None else ((r[0] + r[2]) / 2, (r[1] + r[3]) / 2)
