#!/bin/bash
# The installed tree, as a user gets it from `cmake --install` (or the Debian package):
# programs in bin/, data in share/attnscope/, a menu entry, icons, AppStream metadata.
# The tree is moved after installing: the programs must find their data relative to
# themselves, and the ATTNSCOPE_DATA_DIR override and a missing data folder each give
# one clear line.
source "$(dirname "$0")/app_lib.sh"
need xvfb-run python3 desktop-file-validate appstreamcli

if ! cmake --install "$BUILD" --prefix "$WORK/installed" >"$WORK/install.log" 2>&1; then
    fail "cmake --install: $(tail -2 "$WORK/install.log")"
    finish
    exit 1
fi
mv "$WORK/installed" "$WORK/moved"
TREE="$WORK/moved"
for f in bin/attnscope bin/attnscope-cli share/attnscope/gpt2/encoder.json share/attnscope/gpt2/vocab.bpe \
    share/attnscope/lessons/3.5.1-causal-mask.json share/attnscope/shaders/heatmap.frag \
    share/attnscope/models/sotu-small/model.safetensors share/attnscope/models/sotu-small/config.json \
    share/attnscope/models/sotu-attn-only/model.safetensors share/attnscope/models/sotu-attn-only/config.json \
    share/attnscope/shaders/colormaps.txt share/attnscope/shaders/heatmap_stripes.frag share/applications/attnscope.desktop \
    share/metainfo/io.github.attnscope.attnscope.metainfo.xml share/icons/hicolor/scalable/apps/attnscope.svg \
    share/icons/hicolor/48x48/apps/attnscope.png share/icons/hicolor/256x256/apps/attnscope.png; do
    check "installed: $f" test -s "$TREE/$f"
done
check "installed: no link into the sources" test -z "$(find "$TREE" -type l)"
check "the menu entry starts attnscope" grep -qx 'Exec=attnscope' "$TREE/share/applications/attnscope.desktop"
check "the menu entry is valid" desktop-file-validate "$TREE/share/applications/attnscope.desktop"
check "the AppStream metadata is valid" \
    appstreamcli validate --no-net "$TREE/share/metainfo/io.github.attnscope.attnscope.metainfo.xml"

# The moved tree's programs read the moved tree's data, not the build tree's.
check "--version names the moved tree's data" \
    test "$("$TREE/bin/attnscope-cli" --version | sed -n 's/^data: //p')" = "$TREE/share/attnscope"
check "the app's --version too" test "$("$TREE/bin/attnscope" --version | sed -n 's/^data: //p')" = "$TREE/share/attnscope"
ids=$("$TREE/bin/attnscope-cli" --tokenizer gpt2 --text "Hello, world" 2>"$WORK/cli.err" |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["token_ids"])' 2>>"$WORK/cli.err")
check "the moved CLI tokenizes with GPT-2's vocabulary (tiktoken: 15496, 11, 995)" test "$ids" = "[15496, 11, 995]"
png="$WORK/lesson.png"
headless "$TREE/bin/attnscope" --lesson 3.5.1 --screenshot "$png" --frames 3 >"$WORK/app.log" 2>&1
check "the moved app opens a lesson and draws it (fonts, shaders)" $PNG nonblank "$png"

# ATTNSCOPE_DATA_DIR: taken when it holds the data, refused in one line when not.
cp -r "$TREE/share/attnscope" "$WORK/elsewhere"
check "ATTNSCOPE_DATA_DIR is used" \
    test "$(ATTNSCOPE_DATA_DIR="$WORK/elsewhere" "$TREE/bin/attnscope-cli" --version | sed -n 's/^data: //p')" = \
    "$WORK/elsewhere"
one_line_exit_2() {  # one_line_exit_2 PATTERN COMMAND...: exit 2, stderr one line matching PATTERN
    local pattern=$1; shift
    "$@" >/dev/null 2>"$WORK/err"
    local code=$?
    [ $code -eq 2 ] && [ "$(wc -l <"$WORK/err")" -eq 1 ] && grep -q "$pattern" "$WORK/err" ||
        { echo "exit $code, stderr: $(cat "$WORK/err")"; return 1; }
}
check "a wrong ATTNSCOPE_DATA_DIR: the CLI says so in one line, exit 2" \
    one_line_exit_2 "ATTNSCOPE_DATA_DIR=$WORK/nowhere holds no attnscope data" \
    env ATTNSCOPE_DATA_DIR="$WORK/nowhere" "$TREE/bin/attnscope-cli" --tokenizer gpt2 --text hi
check "a wrong ATTNSCOPE_DATA_DIR: the app says so in one line, exit 2, before opening a window" \
    one_line_exit_2 "ATTNSCOPE_DATA_DIR=$WORK/nowhere holds no attnscope data" \
    env ATTNSCOPE_DATA_DIR="$WORK/nowhere" DISPLAY= "$TREE/bin/attnscope"
rm -rf "$TREE/share/attnscope"
check "no data folder: the CLI names where it looked, exit 2" \
    one_line_exit_2 "data folder is missing: looked in $TREE/share/attnscope" \
    "$TREE/bin/attnscope-cli" --tokenizer gpt2 --text hi
check "no data folder: the app too" \
    one_line_exit_2 "data folder is missing: looked in $TREE/share/attnscope" "$TREE/bin/attnscope" --lesson 3.5.1
finish
