"""wait_state.py STATE EXPR SECONDS [PID]: waits until the app's state file, read as `s`,
satisfies the Python expression EXPR. Exit 0 when it does; 1 after SECONDS (a hang: the
state's summary is printed); 2 when the process PID has exited first.

One process for the whole wait (app_lib.sh's wait_state): the file is parsed again only
when the app has replaced it (it writes a new file and renames it into place), so a wait
costs the app under test, which shares the machine's cores, next to nothing. A state the
expression cannot be evaluated on (a key not there yet) is "not yet", as a false one is.
"""
import json
import os
import sys
import time

POLL_SECONDS = 0.05


def exited(pid):
    """True once PID is gone or a zombie (ended, not yet waited for by the shell)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return True


def main():
    path, expr, seconds = sys.argv[1], sys.argv[2], float(sys.argv[3])
    pid = int(sys.argv[4]) if len(sys.argv) > 4 and sys.argv[4] else None
    test = compile(f"bool({expr}\n)", "<wait_state>", "eval")  # in brackets: it may span lines
    deadline = time.monotonic() + seconds
    seen, s = None, None
    while True:
        try:
            st = os.stat(path)
            version = (st.st_ino, st.st_mtime_ns, st.st_size)
        except OSError:
            version = None
        if version is not None and version != seen and st.st_size > 0:
            try:
                with open(path) as f:
                    s = json.load(f)
                seen = version
                if eval(test, {"s": s, "json": json}):
                    return 0
            except ValueError:
                pass  # not a whole JSON document: read it again
            except Exception:
                pass  # the expression needs what this state lacks: "not yet", until the next one
        if pid is not None and exited(pid):
            return 2
        if time.monotonic() > deadline:
            print(f"timed out waiting for: {expr}")
            if s is not None:
                keys = ("frame", "computing", "run_version", "error", "dialog", "popup", "active_widget", "pointer")
                print(f"  the state then: {json.dumps({k: s.get(k) for k in keys})}")
            return 1
        time.sleep(POLL_SECONDS)


if __name__ == "__main__":
    sys.exit(main())
