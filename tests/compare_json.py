#!/usr/bin/python3
"""Compares two attnscope trace JSON objects: the same keys both ways at every level, the
same strings and integers, null only where the other has null (a masked -inf score), and
every other number within kStageRelative (core/numerics/tolerance.h, read from there; why it is
relative to the stage is said there) of its stage's scale: the largest |number| the
expected object holds under the same key (one head's `weights`, the whole `output`).

    compare_json.py EXPECTED.json ACTUAL.json      prints the differences; exit 1 if any

or, to run many generated programs in one Python process (PyTorch's import takes a second;
each program still runs as a fresh __main__ module, as `python3 PROGRAM --json` would):

    compare_json.py --programs DIR                 for every DIR/NAME.py, runs it with the
                                                   argument --json and compares its output
                                                   with DIR/NAME.json; prints one line per
                                                   program and "N passed, M failed"
"""
import contextlib
import io
import json
import os
import re
import runpy
import sys
import traceback


def tolerance_constant(name):
    """A constant of core/numerics/tolerance.h, the one definition of the golden tolerances."""
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "..", "core", "numerics", "tolerance.h"), encoding="utf-8") as f:
        return float(re.search(rf"constexpr double {name} = ([0-9.e+-]+);", f.read()).group(1))


STAGE_RELATIVE = tolerance_constant("kStageRelative")


def scale_of(value):
    """The largest |number| anywhere in value (0 for none)."""
    if is_number(value):
        return abs(value)
    items = value.values() if isinstance(value, dict) else value if isinstance(value, list) else []
    return max((scale_of(v) for v in items), default=0.0)


def differences(expected, actual, path="$", out=None, worst=None, scale=0.0):
    """Lists where the two differ (at most 10 entries); worst[0] is the largest
    |a - e| / scale of its stage."""
    out = [] if out is None else out
    worst = [0.0] if worst is None else worst
    if len(out) >= 10:
        return out, worst[0]
    if isinstance(expected, dict) and isinstance(actual, dict):
        for key in sorted(set(expected) | set(actual)):
            if key not in actual:
                out.append(f"{path}.{key}: missing from the actual output")
            elif key not in expected:
                out.append(f"{path}.{key}: not in the expected output")
            else:
                differences(expected[key], actual[key], f"{path}.{key}", out, worst, scale_of(expected[key]))
    elif isinstance(expected, list) and isinstance(actual, list):
        if len(expected) != len(actual):
            out.append(f"{path}: {len(actual)} elements, expected {len(expected)}")
        else:
            for i, (e, a) in enumerate(zip(expected, actual)):
                differences(e, a, f"{path}[{i}]", out, worst, scale)
    elif is_number(expected) and is_number(actual) and (isinstance(expected, float) or isinstance(actual, float)):
        delta = abs(actual - expected)
        worst[0] = max(worst[0], delta / scale if scale > 0 else (float("inf") if delta > 0 else 0.0))
        if not delta <= STAGE_RELATIVE * scale:
            out.append(f"{path}: {actual!r}, expected {expected!r} (stage scale {scale:.6g})")
    elif expected != actual:  # strings, integers, null, or a number against something else
        out.append(f"{path}: {actual!r}, expected {expected!r}")
    return out, worst[0]


def is_number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def run_program(path):
    """Runs a program as `python3 path --json` would, in this process; returns its stdout."""
    saved_argv = sys.argv
    sys.argv = [path, "--json"]
    stdout = io.StringIO()
    try:
        with contextlib.redirect_stdout(stdout):
            runpy.run_path(path, run_name="__main__")
    finally:
        sys.argv = saved_argv
    return stdout.getvalue()


def compare_programs(directory):
    names = sorted(f[:-3] for f in os.listdir(directory) if f.endswith(".py"))
    passed = failed = 0
    overall = 0.0
    for name in names:
        with open(os.path.join(directory, name + ".json"), encoding="utf-8") as f:
            expected = json.load(f)
        try:
            actual = json.loads(run_program(os.path.join(directory, name + ".py")))
            problems, worst = differences(expected, actual)
        except Exception:
            problems, worst = ["the program failed:\n" + traceback.format_exc()], 0.0
        overall = max(overall, worst)
        if problems:
            failed += 1
            print(f"FAIL: {name}")
            for p in problems:
                print(f"      {p}")
        else:
            passed += 1
            print(f"ok:   {name} (max deviation {worst:.2e} of its stage's scale)")
    print(f"max deviation {overall:.2e} of a stage's scale over every number")
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 and passed > 0 else 1


def main(argv):
    if len(argv) == 2 and argv[0] == "--programs":
        return compare_programs(argv[1])
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    loaded = []
    for path in argv:
        with open(path, encoding="utf-8") as f:
            loaded.append(json.load(f))
    problems, worst = differences(*loaded)
    for p in problems:
        print(p)
    print(f"{'differ' if problems else 'same'} (max deviation {worst:.2e} of a stage's scale)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
