#!/bin/sh
# tests/cli/edge_json.sh HAZE DATA - `haze edge --json`: the summary (frames,
# pixels, backend, timings of the phases and of the steps) on stdout, on
# stderr when the image itself goes to stdout, and nothing on stdout
# without --json.
set -u
haze=$1
data=$2
. "$(dirname "$0")/lib.sh"
scratch
cam=$data/edge/camera.png # 120 x 96
coins=$data/edge/coins.ppm # 120 x 80
check 0 "edge --json on a batch" "$haze" --quiet edge "$cam" "$coins" -o "$tmp/o/" --json
grep_out '"frames": 2,' "edge --json"
grep_out '"pixels": 21120,' "edge --json"
grep_out '"backend": "c' "edge --json"
for k in setup read detect_write commit decode detect encode; do
    grep_out "\"$k\": [0-9]" "edge --json timings"
done
[ -s "$tmp/o/camera.png" ] && [ -s "$tmp/o/coins.png" ] || fail "edge --json: outputs missing"
if command -v python3 >/dev/null 2>&1; then
    python3 -c 'import json, sys; j = json.load(open(sys.argv[1])); assert j["timings"]["decode"] >= 0' \
        "$out" || fail "edge --json: not JSON"
fi
check 0 "edge --json, image to stdout" "$haze" --quiet edge "$cam" -o - --json
[ "$(head -c 4 "$out" | tail -c 3)" = PNG ] || fail "edge -o - --json: stdout is not the PNG"
grep_err '"timings"' "edge -o - --json"
check 0 "edge without --json" "$haze" --quiet edge "$cam" -o "$tmp/p.png"
[ -s "$out" ] && fail "edge without --json: stdout not empty"
[ "$fails" = 0 ] && echo "all edge --json checks passed" && exit 0
echo "$fails edge --json checks failed"
exit 1
