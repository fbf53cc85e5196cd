#!/usr/bin/env python3
"""Compares haze with every example engine of upstream fuzzylite that has
reference data (.fll + .fld; 39 engines at tag v6.0).

    python3 scripts/golden/fis/fuzzylite_upstream.py HAZE [FUZZYLITE_CHECKOUT]

Without a checkout it clones https://github.com/fuzzylite/fuzzylite at v6.0
into a temporary folder (network needed). Debian's fuzzylite package ships 18
of these engines (the MATLAB-derived ones are left out of its source); those
18 are kept in tests/data/fis/fuzzylite/ and checked by test_fis. This script
covers all 39: every row of each .fld is evaluated in one batch with
`haze fis eval --mode fuzzylite` and each output compared with fuzzylite's
value; the difference is reported relative to the output's range. Exit 1 when
an engine fails to load or differs by more than 1e-6 of its range.
"""
import os
import subprocess
import sys
import tempfile


def is_number(text):
    try:
        float(text)
        return True
    except ValueError:
        return False


def output_ranges(fll):
    ranges, cur = [], None
    for line in open(fll):
        s = line.strip()
        if s.startswith("OutputVariable:"):
            cur = len(ranges)
            ranges.append(1.0)
        elif s.startswith(("InputVariable:", "RuleBlock:")):
            cur = None
        elif cur is not None and s.startswith("range:"):
            lo, hi = map(float, s.split()[1:3])
            ranges[cur] = max(hi - lo, 1e-300)
    return ranges


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    haze = sys.argv[1]
    tmp = None
    if len(sys.argv) > 2:
        root = sys.argv[2]
    else:
        tmp = tempfile.TemporaryDirectory()
        root = os.path.join(tmp.name, "fuzzylite")
        subprocess.run(["git", "clone", "-q", "--depth", "1", "--branch", "v6.0",
                        "https://github.com/fuzzylite/fuzzylite", root], check=True)
    examples = os.path.join(root, "examples")
    flds = sorted(os.path.join(d, f) for d, _, fs in os.walk(examples) for f in fs
                  if f.endswith(".fld") and "/original" not in d)
    failed = 0
    for fld in flds:
        fll = fld[:-4] + ".fll"
        name = os.path.relpath(fll, examples)
        nin = sum(1 for l in open(fll) if l.strip().startswith("InputVariable:"))
        rows = [l.split() for l in open(fld) if l.strip()][1:]
        data = "".join(",".join(r[:nin]) + "\n" for r in rows)
        p = subprocess.run([haze, "fis", "eval", fll, "-", "--mode", "fuzzylite"],
                           input=data, capture_output=True, text=True)
        if p.returncode != 0:
            print("%-48s FAILED: %s" % (name, p.stderr.strip().splitlines()[-1:]))
            failed += 1
            continue
        got = [l.split(",") for l in p.stdout.strip().splitlines()]
        if got and not is_number(got[0][0]):
            got = got[1:]  # a header line
        span = output_ranges(fll)
        worst = 0.0
        for want, have in zip(rows, got):
            for k, (w, h) in enumerate(zip(want[nin:], have)):
                w, h = float(w), float(h)
                if w != w and h != h:
                    continue
                worst = max(worst, abs(w - h) / span[k] if k < len(span) else abs(w - h))
        ok = len(got) == len(rows) and worst <= 1e-6
        failed += not ok
        print("%-48s rows %5d  max |haze - fuzzylite| / range %.2e %s" %
              (name, len(rows), worst, "" if ok else "  <- differs"))
    print("%d engines, %d failed" % (len(flds), failed))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
