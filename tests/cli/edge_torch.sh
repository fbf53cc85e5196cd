#!/bin/sh
# tests/cli/edge_torch.sh HAZE DATA BENCH - bench/edge_torch.py, the PyTorch
# script that bench/e2e_edge.py times against `haze edge`, run on NumPy:
# its outputs must be the golden images of tests/data/edge (two parameter
# sets) and haze's, pixel for pixel. Skipped (77) without a Python that
# has NumPy and Pillow.
set -u
haze=$1
data=$2
bench=$3
. "$(dirname "$0")/lib.sh"
scratch
py=
for p in python3 /usr/bin/python3; do
    if "$p" -c "import numpy, PIL" >/dev/null 2>&1; then py=$p; break; fi
done
[ -n "$py" ] || { echo "skipped: no python3 with NumPy and Pillow"; exit 77; }
e=$data/edge
check 0 "edge_torch on NumPy" "$py" "$bench/edge_torch.py" --backend numpy --threads 2 \
    "$e/camera.png" "$e/astronaut.png" "$e/coins.ppm" -o "$tmp/t"
grep_out '"frames": 3' "edge_torch's summary"
check 0 "edge_torch, T=32 W=64" "$py" "$bench/edge_torch.py" --backend numpy --spread 32 \
    --black-width 64 "$e/coins.ppm" -o "$tmp/t2"
check 0 "haze edge" "$haze" --quiet edge "$e/camera.png" "$e/astronaut.png" "$e/coins.ppm" -o "$tmp/h/"
check 0 "the same pixels" "$py" -c '
import sys
import numpy as np
from PIL import Image
t, e = sys.argv[1], sys.argv[2]
pairs = [(t + "/t/%s.png" % n, e + "/%s_fire.pgm" % n) for n in ("camera", "astronaut", "coins")]
pairs += [(t + "/h/%s.png" % n, t + "/t/%s.png" % n) for n in ("camera", "astronaut", "coins")]
pairs += [(t + "/t2/coins.png", e + "/coins_fire_t32_w64.pgm")]
bad = 0
for a, b in pairs:
    x, y = np.asarray(Image.open(a)), np.asarray(Image.open(b))
    if x.shape != y.shape or (x != y).any():
        print("differ:", a, b)
        bad += 1
sys.exit(1 if bad else 0)
' "$tmp" "$e"
[ "$fails" = 0 ] && echo "all edge_torch checks passed" && exit 0
echo "$fails edge_torch checks failed"
exit 1
