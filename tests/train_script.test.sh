#!/usr/bin/env bash
# scripts/train_small_model.py's pieces, checked with Debian's PyTorch and no training run
# (tests/train_script_check.py): the book's windows, repeated windows (text and random),
# the fixed sinusoid positions, appendix D's schedule and the model card's notes on them.
# Usage: tests/train_script.test.sh BUILD_DIR   (ctest passes the build directory)
set -u
here=$(cd "$(dirname "$0")" && pwd)
source "$here/cli_lib.sh" "${1:-}" torch
# The scripts import regex (gpt2_bpe) and numpy; the check writes nothing but its report.
PYTHONDONTWRITEBYTECODE=1 "$python" "$here/train_script_check.py"
