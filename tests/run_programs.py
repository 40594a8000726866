"""Runs Python programs as `python3 PROGRAM ARGS...` runs each, one after another, with torch
imported once: every program runs in a process of its own, forked from this one after it has
imported torch and numpy and nothing else. Importing torch takes about two seconds, most of a
small program's time.
Usage: run_programs.py [--timeout SECONDS] < LIST, where each line of LIST is tab-separated:
OUT PROGRAM ARGS...; the program's stdout goes to OUT.out, its stderr to OUT.err, its exit
status to OUT.rc (a program still running after SECONDS is ended by SIGALRM: -14)."""
import os
import runpy
import signal
import sys
import traceback

import numpy  # noqa: F401  (imported for the programs)
import torch  # noqa: F401


def run_here(program, args):
    """The child: `python3 PROGRAM ARGS...`'s argv, path and __main__; its exit status."""
    sys.argv = [program] + args
    sys.path[0] = os.path.dirname(os.path.abspath(program))
    try:
        runpy.run_path(program, run_name="__main__")
        return 0
    except SystemExit as e:  # sys.exit(code), as the interpreter maps it
        if e.code is None or isinstance(e.code, int):
            return e.code or 0
        print(e.code, file=sys.stderr)
        return 1
    except BaseException:
        traceback.print_exc()
        return 1


def main():
    timeout = int(sys.argv[2]) if sys.argv[1:2] == ["--timeout"] else 0
    for line in sys.stdin.read().splitlines():
        out, program, *args = line.split("\t")
        pid = os.fork()
        if pid == 0:
            for fd, suffix in ((1, ".out"), (2, ".err")):
                os.dup2(os.open(out + suffix, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644), fd)
            signal.alarm(timeout)
            code = run_here(program, args)
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(code)
        _, status = os.waitpid(pid, 0)
        with open(out + ".rc", "w") as f:
            f.write(f"{os.waitstatus_to_exitcode(status)}\n")


if __name__ == "__main__":
    main()
