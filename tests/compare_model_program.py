"""Compares what a GPT model's emitted PyTorch program printed with attnscope-cli's JSON
(tests/emit_pytorch_model.test.sh): python3 compare_model_program.py CLI.json PROGRAM.out

PROGRAM.out's last line is the program's JSON: token_ids, layer, head, weights,
next_token [{id, prob}], next_token_position, generated (with --generate), and with an
intervention baseline_next_token (compared as next_token is). Each stage
agrees within kModelRelative (core/numerics/tolerance.h) of its scale (its largest absolute value
in the CLI's JSON): the head's
weights against layers[layer]["heads"][head]["weights"], the next tokens' probabilities
rank by rank (the ids too, unless two probabilities are that close: a tie may come in
either order). The token ids, the next tokens' position and the generated ids agree
exactly. Prints one line: what was compared, or what differs (exit 1).
"""
import json
import sys

from compare_json import tolerance_constant

TOLERANCE = tolerance_constant("kModelRelative")


def main(cli_path, program_path):
    cli = json.load(open(cli_path))
    lines = open(program_path).read().splitlines()
    if not lines:
        return "the program printed nothing"
    program = json.loads(lines[-1])
    if program["token_ids"] != cli["token_ids"]:
        return f"token ids {program['token_ids']} != the CLI's {cli['token_ids']}"
    layer, head = program["layer"], program["head"]
    want = cli["layers"][layer]["heads"][head]["weights"]
    got = program["weights"]
    if len(got) != len(want) or any(len(g) != len(w) for g, w in zip(got, want)):
        return f"weights of head {layer}.{head}: shape differs from the CLI's"
    scale = max(abs(v) for row in want for v in row)
    diff = max(abs(g - w) for gr, wr in zip(got, want) for g, w in zip(gr, wr))
    if diff > TOLERANCE * scale:
        return f"weights of head {layer}.{head}: max |difference| {diff:.3g} > {TOLERANCE} x {scale:.3g}"

    if program.get("next_token_position") != cli["next_token_position"]:
        return f"next tokens after position {program.get('next_token_position')}, the CLI's {cli['next_token_position']}"
    if ("baseline_next_token" in program) != ("baseline_next_token" in cli):
        return "one of the two has baseline_next_token (an intervention's), the other not"
    for key in ("next_token", "baseline_next_token"):
        if key in cli:
            problem, p_diff, p_scale = compare_next(key, cli[key], program[key])
            if problem:
                return problem
    want_next = cli["next_token"]
    p_diff, p_scale = compare_next("next_token", want_next, program["next_token"])[1:]

    if program.get("generated") != cli.get("generated"):
        return f"generated {program.get('generated')} != the CLI's {cli.get('generated')}"
    generated = f", generated {cli['generated']}" if "generated" in cli else ""
    print(f"head {layer}.{head}: weights within {diff:.2g} (scale {scale:.2g}), "
          f"{len(want_next)} next tokens (after position {cli['next_token_position']}) within {p_diff:.2g} "
          f"(scale {p_scale:.2g}){generated}")
    return None


def compare_next(key, want_next, got_next):
    """The next tokens' probabilities rank by rank, and their ids unless two are that close:
    (what differs or None, the largest difference, the scale)."""
    if len(got_next) != len(want_next):
        return f"{len(got_next)} {key}, the CLI {len(want_next)}", 0, 0
    p_scale = max(t["prob"] for t in want_next)
    p_tol = TOLERANCE * p_scale
    p_diff = max(abs(g["prob"] - w["prob"]) for g, w in zip(got_next, want_next))
    if p_diff > p_tol:
        return f"{key} probabilities: max |difference| {p_diff:.3g} > {TOLERANCE} x {p_scale:.3g}", p_diff, p_scale
    probs = [t["prob"] for t in want_next]
    for rank, (g, w) in enumerate(zip(got_next, want_next)):
        tied = any(abs(probs[rank] - probs[other]) <= p_tol for other in (rank - 1, rank + 1) if 0 <= other < len(probs))
        if g["id"] != w["id"] and not tied:
            return f"{key} {rank}: id {g['id']}, the CLI's {w['id']}", p_diff, p_scale
    return None, p_diff, p_scale


if __name__ == "__main__":
    problem = main(sys.argv[1], sys.argv[2])
    if problem:
        print(problem)
        sys.exit(1)
