#!/usr/bin/python3
"""A seeded monkey for attnscope's real window (issue 9).

    monkey.py --app BUILD/attnscope --seconds 60 --seed 42 [--mode chapter3|model] [--work DIR] [--log FILE]

Run inside an X display (xvfb-run). Starts the app with --state-out, then does
random actions drawn from random.Random(seed): types random Unicode, pastes (long
texts, invalid UTF-8), selects and deletes, sets sliders to random values
(impossible combinations included), clicks anywhere (combos, tabs, menus, heads),
presses every shortcut, opens and saves session files, resizes the window. After
every action it checks that the app is alive, that it draws a frame when poked (any
delay short of a hang; the slowest is reported), and, after typing, that the text in
the state file is what was typed. Issue 58's checks: a burst typed fast is in the state a
few frames after its last key, F5 turns presenter mode on and off a few frames after the
key (runs computing or not), and with no input the app settles and starts no run.
--mode picks how the app starts: the chapter 3 module (lessons, variants) or a GPT model.
A failure prints the seed and the action number: the same seed replays the same run.
"""
import argparse
import os
import random
import subprocess
import sys
import time

from actions import Actions
from window import Window, Failure


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--app", required=True)
    ap.add_argument("--seconds", type=float, default=60)
    ap.add_argument("--seed", type=int, default=int(time.time()) % 100000)
    ap.add_argument("--mode", choices=["chapter3", "model"], default="chapter3")
    ap.add_argument("--work", default=None)
    ap.add_argument("--log", default=None)
    args = ap.parse_args()

    work = args.work or subprocess.check_output(["mktemp", "-d"], text=True).strip()
    os.makedirs(work, exist_ok=True)
    log = open(args.log or os.path.join(work, "monkey.log"), "w")
    rng = random.Random(args.seed)
    window = Window(args.app, work, log)
    actions = Actions(window, rng, work, args.mode)
    history = []
    done = 0
    started = time.monotonic()
    try:
        actions.prepare_files()
        window.start(*actions.start_flags)
        rss = [(0.0, window.rss_mb())]  # (seconds, MB), every minute: is memory flat?
        while time.monotonic() - started < args.seconds:
            name, run = actions.pick()
            history.append(name)
            log.write("%d %s\n" % (done + 1, name))
            log.flush()
            run()
            window.check_alive_and_answering()
            s = window.state()
            lesson = s.get("lesson") or {}
            log.write("  -> text %d chars, lesson step %s, tab %s, run %d%s, presenter %s, error %s\n"
                      % (len(s["text"]), lesson.get("step") if lesson.get("active") else None, s.get("tab"),
                         s["run_version"], " (computing)" if s["computing"] else "", s.get("presenter"),
                         (s.get("error") or "")[:60]))
            done += 1
            if time.monotonic() - started >= rss[-1][0] + 60:
                rss.append((time.monotonic() - started, window.rss_mb()))
                log.write("  RSS %.0f MB after %.0f s\n" % (rss[-1][1], rss[-1][0]))
        rss.append((time.monotonic() - started, window.rss_mb()))
        window.quit()
    except Failure as f:
        print("monkey: FAILED at action %d (seed %d): %s" % (done + 1, args.seed, f))
        print("monkey: the window and its state at the failure: " + window.keep_evidence())
        print("monkey: the last actions: " + ", ".join(history[-20:]))
        log.flush()
        with open(log.name, errors="replace") as f:
            print("monkey: the log's last lines (each action, then what the state said after it):")
            for line in f.read().splitlines()[-40:]:
                print("monkey:   " + line[:200])
        print("monkey: replay with --seed %d --mode %s (log: %s)" % (args.seed, args.mode, log.name))
        window.kill()
        return 1
    print("monkey: %d actions in %.0f s, seed %d, %s mode, no failure; RSS start %.0f MB, peak %.0f MB, end %.0f MB; "
          "slowest frame after a poke %.2f s"
          % (done, time.monotonic() - started, args.seed, args.mode, rss[0][1], max(mb for _, mb in rss), rss[-1][1],
             window.slowest_answer))
    print("monkey: RSS by minute (MB): " + " ".join("%.0f" % mb for _, mb in rss))
    return 0


if __name__ == "__main__":
    sys.exit(main())
