#!/usr/bin/env python3
"""scripts/golden/fis/corpus_compare.py [--haze PATH] [--write] - runs every
.fis file of tests/data/fis/corpus/ (real files from public projects, see
the README there) through haze and its peers on a grid of inputs and prints
the largest differences:

  octave     Octave's fuzzy-logic-toolkit evalfis(X, fis, 101) against
             `haze fis eval --mode octave`
  fuzzylite  the fuzzylite 6 binary importing the .fis (resolution 100)
             against `haze fis eval --mode fuzzylite --points 100 --nan`
  fll        `haze fis convert F.fis -o F.fll --points 100`: haze on the .fll
             against haze on the .fis in fuzzylite mode (the round trip)
  fll-fl     the fuzzylite binary on that .fll against haze on the .fis in
             fuzzylite mode (fuzzylite reads haze's .fll with haze's meaning)

Differences are absolute, divided by the width of the output's range
(1 if that is 0); a NaN on one side only counts as a mismatch ("nan").
With --write the peers' outputs become the reference files
tests/data/fis/corpus/golden/NAME.{octave,fuzzylite,fuzzylite-fll}.csv
(only where haze agrees within 1e-6 of the range) and the list
golden/MANIFEST that tests/test_fis.c (test_fis_corpus) compares haze with,
so that CTest needs neither peer. Needs octave with
octave-fuzzy-logic-toolkit and fuzzylite (Debian packages); a missing peer
is skipped. Python 3 standard library only.
"""
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", ".."))
CORPUS = os.path.join(ROOT, "tests", "data", "fis", "corpus")
GOLDEN = os.path.join(CORPUS, "golden")


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def model_info(haze, path):
    """(inputs, outputs) as lists of (name, lo, hi), or an error string."""
    r = run([haze, "fis", "info", path])
    if r.returncode:
        return r.stderr.strip().replace("\n", " ")
    ins, outs, cur = [], [], None
    for line in r.stdout.splitlines():
        if line.startswith("inputs"):
            cur = ins
        elif line.startswith("outputs"):
            cur = outs
        elif line.startswith("rules"):
            cur = None
        else:
            m = re.match(r"^  (\d+)  (.*?)\s+\[(\S+), (\S+)\]", line)
            if m and cur is not None:
                cur.append((m.group(2), float(m.group(3)), float(m.group(4))))
    return ins, outs


def grid(ins):
    ni = len(ins)
    g = 41 if ni == 1 else 7 if ni == 2 else 3 if ni == 3 else 2
    axes = [[lo + (hi - lo) * k / (g - 1) if k < g - 1 else hi for k in range(g)]
            for _, lo, hi in ins]
    rows = [[]]
    for ax in axes:
        rows = [r + [v] for r in rows for v in ax]
    return rows[:4096]


def read_rows(path, skip=0, sep=None):
    out = []
    with open(path) as f:
        for i, line in enumerate(f):
            if i < skip or not line.strip() or line.startswith("#"):
                continue
            out.append([float(v) for v in (line.split(sep) if sep else line.split())])
    return out


def haze_eval(haze, model, xs_csv, *opts):
    r = run([haze, "fis", "eval", model, xs_csv, "-o", "-"] + list(opts))
    if r.returncode:
        return None, r.stderr.strip()
    rows = []
    for line in r.stdout.splitlines()[1:]:
        rows.append([float(v) for v in line.split(",")])
    return rows, ""


def octave_eval(path, xs):
    if not shutil.which("octave"):
        return None, "no octave"
    with tempfile.TemporaryDirectory() as d:
        xin = os.path.join(d, "x.txt")
        yout = os.path.join(d, "y.txt")
        with open(xin, "w") as f:
            for r in xs:
                f.write(" ".join("%.17g" % v for v in r) + "\n")
        code = ("pkg load fuzzy-logic-toolkit; fis = readfis('%s'); X = load('%s');"
                " Y = evalfis(X, fis, 101); fid = fopen('%s', 'w');"
                " fprintf(fid, [repmat('%%.17g ', 1, columns(Y)) '\\n'], Y'); fclose(fid);"
                % (path, xin, yout))
        r = run(["octave", "--no-gui", "--quiet", "--eval", code], timeout=300)
        if r.returncode or not os.path.exists(yout):
            errs = [l for l in r.stderr.splitlines() if l.startswith("error:")] or ["failed"]
            return None, "octave: " + errs[0]
        return read_rows(yout), ""


def fuzzylite_eval(model, ins, xs, nout):
    if not shutil.which("fuzzylite"):
        return None, "no fuzzylite"
    with tempfile.TemporaryDirectory() as d:
        din = os.path.join(d, "x.fld")
        dout = os.path.join(d, "y.fld")
        with open(din, "w") as f:
            f.write(" ".join("x%d" % (j + 1) for j in range(len(ins))) + "\n")
            for r in xs:
                f.write(" ".join("%.17g" % v for v in r) + "\n")
        r = run(["fuzzylite", "-i", model, "-of", "fld", "-d", din, "-o", dout,
                 "-decimals", "12"], timeout=300)
        if r.returncode or not os.path.exists(dout):
            return None, "fuzzylite: " + (r.stderr.strip().splitlines() or ["failed"])[-1]
        rows = read_rows(dout, skip=1)
        return [row[len(ins):len(ins) + nout] for row in rows], ""


def maxdiff(a, b, outs):
    """largest |a - b| / width of the output's range; 'nan' for a NaN on one
    side; None when the shapes differ"""
    if a is None or b is None or len(a) != len(b):
        return None
    worst = 0.0
    for ra, rb in zip(a, b):
        if len(ra) != len(rb):
            return None
        for o, (x, y) in enumerate(zip(ra, rb)):
            if math.isnan(x) or math.isnan(y):
                if math.isnan(x) != math.isnan(y):
                    return "nan"
                continue
            w = outs[o][2] - outs[o][1]
            worst = max(worst, abs(x - y) / (w if w > 0 else 1.0))
    return worst


def fmt(d):
    return "-" if d is None else d if isinstance(d, str) else "%.1e" % d


def write_golden(name, peer, xs, ys, source):
    path = os.path.join(GOLDEN, "%s.%s.csv" % (name, peer))
    with open(path, "w") as f:
        f.write("# %s on a grid of inputs (inputs, then outputs); %s\n" % (source, name))
        for x, y in zip(xs, ys):
            f.write(",".join("%.17g" % v for v in x + y) + "\n")


def main():
    haze = os.path.join(ROOT, "build", "haze")
    write = "--write" in sys.argv
    if "--haze" in sys.argv:
        haze = sys.argv[sys.argv.index("--haze") + 1]
    files = sorted(f for f in os.listdir(CORPUS) if f.endswith(".fis"))
    manifest = []
    print("%-34s %3s %3s %5s  %-9s %-9s %-9s %-9s %s" % ("file", "ni", "no", "rows", "octave",
                                                       "fuzzylite", "fll", "fll-fl", "notes"))
    if write:
        os.makedirs(GOLDEN, exist_ok=True)
    with tempfile.TemporaryDirectory() as d:
        for name in files:
            path = os.path.join(CORPUS, name)
            info = model_info(haze, path)
            if isinstance(info, str):
                print("%-34s refused: %s" % (name, info))
                continue
            ins, outs = info
            xs = grid(ins)
            xcsv = os.path.join(d, "x.csv")
            with open(xcsv, "w") as f:
                for r in xs:
                    f.write(",".join("%.17g" % v for v in r) + "\n")
            notes = []
            y_oct, _ = haze_eval(haze, path, xcsv, "--mode", "octave")
            y_fl, _ = haze_eval(haze, path, xcsv, "--mode", "fuzzylite", "--points", "100", "--nan")
            p_oct, why = octave_eval(path, xs)
            if why:
                notes.append(why)
            p_fl, why = fuzzylite_eval(path, ins, xs, len(outs))
            if why:
                notes.append(why)
            fll = os.path.join(d, os.path.splitext(name)[0] + ".fll")
            r = run([haze, "fis", "convert", path, "-o", fll, "--points", "100"])
            y_rt = p_rt = None
            if r.returncode:
                notes.append("convert: " + r.stderr.strip())
            else:
                y_rt, _ = haze_eval(haze, fll, xcsv)
                p_rt, why = fuzzylite_eval(fll, ins, xs, len(outs))
                if why:
                    notes.append(why)
            d_oct = maxdiff(y_oct, p_oct, outs)
            d_fl = maxdiff(y_fl, p_fl, outs)
            d_rt = maxdiff(y_rt, y_fl, outs)
            d_rtfl = maxdiff(p_rt, y_fl, outs)
            print("%-34s %3d %3d %5d  %-9s %-9s %-9s %-9s %s" % (
                name, len(ins), len(outs), len(xs), fmt(d_oct), fmt(d_fl), fmt(d_rt), fmt(d_rtfl),
                "; ".join(notes)))
            base = os.path.splitext(name)[0]
            for peer, ys, dd, mode, src in (
                    ("octave", p_oct, d_oct, "octave", "Octave fuzzy-logic-toolkit evalfis(X, fis, 101)"),
                    ("fuzzylite", p_fl, d_fl, "fuzzylite", "fuzzylite 6 importing the .fis"),
                    ("fuzzylite-fll", p_rt, d_rtfl, "fuzzylite",
                     "fuzzylite 6 on the .fll that haze fis convert writes")):
                # a reference only where haze agrees: a NaN on one side or a
                # difference above 1e-6 of the range is a finding to report
                if write and ys is not None and isinstance(dd, float) and dd <= 1e-6:
                    write_golden(base, peer, xs, ys, src)
                    manifest.append("%s %s %s %d %d" % (name, peer, mode, len(ins), len(outs)))
    if write:
        with open(os.path.join(GOLDEN, "MANIFEST"), "w") as f:
            f.write("# file peer mode inputs outputs: golden/FILE-without-.fis.PEER.csv holds the\n"
                    "# peer's outputs; haze in that mode must agree within 1e-6 of each output's\n"
                    "# range (scripts/golden/fis/corpus_compare.py --write)\n")
            f.write("\n".join(manifest) + "\n")


if __name__ == "__main__":
    main()
