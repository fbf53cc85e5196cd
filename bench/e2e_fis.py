#!/usr/bin/env python3
"""bench/e2e_fis.py - batch fuzzy inference as a whole job: `haze fis eval` against PyTorch.

Jobs (each command its own process, as a user runs it; best of --reps runs;
files in the page cache):

  CSV -> CSV   haze fis eval MODEL in.csv -o out.csv    against
               bench/fis_torch.py MODEL in.csv -o out.csv (numpy.loadtxt,
               the batched Mamdani evaluation on the GPU, numpy.savetxt)
  .npy -> .npy the same with NumPy files

Models: MATLAB's tipper (data/tipper.fis: 2 inputs, 3 rules) on --rows rows,
and an 8-input, 50-rule, 5-set system (made here, seeded) on --rows / 5
rows; 101 points (MATLAB's rule), float64. Before timing, the outputs of
haze and of the PyTorch script must agree (1e-9 of the output range: the
same arithmetic, summed in another order). "M rows/s" is rows over the
job's wall time; the floors are reading the input file at page-cache speed
(one read(2)) and the PCIe copy of the job's bytes (inputs up, outputs
down, float64) at the pinned rate PyTorch measures. haze's split is its
`--json` "timings" (start, read, eval, write); "haze cpu" is the same job
on the CPU backend (all cores).

--big N adds the tipper's CSV -> CSV job on N rows for haze alone (the
PyTorch script's numpy.savetxt would take minutes there): the file is one
block of 2^20 rows written N / 2^20 times, so making it takes seconds; the
rate it gives is the one of a long job, where starting the process and the
GPU no longer count; its rows end with haze's peak resident memory. It
runs into a new output file with the default split of the CPU threads
between reading and writing ("haze") and with both taking every thread
("haze N,N", HAZE_PIPELINE_THREADS), on the CPU backend, and with the
default split replacing the previous run's output ("haze replacing": the
file system frees the old file when the new one takes its name); it prints
one thread's write(2) of the output's size as the writing's floor, and the
time the file system takes to remove the old output.

    python3 bench/e2e_fis.py [--haze build/haze] [--rows 10000000] [--reps 3] [--dir /tmp]
                             [--big 100000000]
"""
import argparse
import io
import json
import os
import random
import sys
import time

import numpy as np

from e2e_util import best_of, peak_mb, pinned_rate, read_floor, run, write_floor

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def big_model(path):
    rnd = random.Random(8)
    L = ["[System]", "Name='big'", "Type='mamdani'", "NumInputs=8", "NumOutputs=1",
         "NumRules=50", "AndMethod='min'", "OrMethod='max'", "ImpMethod='min'", "AggMethod='max'",
         "DefuzzMethod='centroid'"]
    for i in range(8):
        L += ["[Input%d]" % (i + 1), "Name='x%d'" % (i + 1), "Range=[0 1]", "NumMFs=3",
              "MF1='low':'trimf',[-0.5 0 0.5]", "MF2='mid':'trimf',[0 0.5 1]",
              "MF3='high':'trimf',[0.5 1 1.5]"]
    L += ["[Output1]", "Name='y'", "Range=[0 1]", "NumMFs=5"]
    for k in range(5):
        L.append("MF%d='s%d':'trimf',[%g %g %g]" % (k + 1, k + 1, k * .25 - .25, k * .25,
                                                     k * .25 + .25))
    L.append("[Rules]")
    for _ in range(50):
        ante, used = [], 0
        for _ in range(8):
            c = 0
            if used < 5 and rnd.random() < 0.5:
                c = rnd.randint(1, 3)
            used += c != 0
            ante.append(c)
        if not used:
            ante[0] = 2
        L.append("%s, %d (1) : 1" % (" ".join(map(str, ante)), rnd.randint(1, 5)))
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(L) + "\n")


def make_inputs(base, names, rows, lo, hi, seed):
    """base.csv (header, 4 decimals, as a logger writes) and base.npy of the same values."""
    csv, npy = base + ".csv", base + ".npy"
    if os.path.exists(csv) and os.path.exists(npy):
        a = np.load(npy, mmap_mode="r")
        if a.shape == (rows, len(names)):
            return csv, npy
    rng = np.random.default_rng(seed)
    x = np.round(rng.uniform(lo, hi, (rows, len(names))), 4)
    np.save(npy, x)
    with open(csv + ".part", "w", encoding="utf-8") as f:
        f.write(",".join(names) + "\n")
        for s in range(0, rows, 1 << 20):
            np.savetxt(f, x[s:s + (1 << 20)], fmt="%.4f", delimiter=",")
    os.replace(csv + ".part", csv)
    return csv, npy


def make_big(path, rows, seed):
    """A tipper CSV of rows rows (a multiple of 2^20): one block repeated."""
    block = 1 << 20
    rows = max(block, rows // block * block)
    if os.path.exists(path) and os.path.getsize(path) > 0:
        with open(path, "rb") as f:
            n = sum(buf.count(b"\n") for buf in iter(lambda: f.read(1 << 24), b"")) - 1
        if n == rows:
            return path, rows
    rng = np.random.default_rng(seed)
    x = np.round(rng.uniform(0.0, 10.0, (block, 2)), 4)
    b = io.StringIO()
    np.savetxt(b, x, fmt="%.4f", delimiter=",")
    text = b.getvalue().encode()
    with open(path + ".part", "wb") as f:
        f.write(b"service,food\n")
        for _ in range(rows // block):
            f.write(text)
    os.replace(path + ".part", path)
    return path, rows


def haze_split(out):
    """haze's --json "timings" as 'start 0.012 read ...', then its workers'
    "busy" times (evaluating and writing, overlapped with reading or not)."""
    try:
        j = json.loads(out)
        t = j["timings"]
    except (ValueError, KeyError):
        return ""
    s = " ".join("%s %.3f" % (k, v) for k, v in t.items())
    if "busy" in j:
        s += " (busy: " + " ".join("%s %.3f" % (k, v) for k, v in j["busy"].items()) + ")"
    return s


def read_out(path):
    if path.endswith(".npy"):
        return np.load(path).reshape(-1)
    return np.loadtxt(path, delimiter=",", skiprows=1, ndmin=2).reshape(-1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--haze", default="build/haze")
    ap.add_argument("--rows", type=int, default=10_000_000)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--dir", default="/tmp")
    ap.add_argument("--big", type=int, default=0)
    a = ap.parse_args()
    bw, gpu = pinned_rate()
    big = os.path.join(a.dir, "haze_e2e_fis_big.fis")
    big_model(big)
    models = [("tipper", os.path.join(ROOT, "data", "tipper.fis"), ["service", "food"], a.rows,
               0.0, 10.0, 30.0),
              ("8in-50r", big, ["x%d" % (i + 1) for i in range(8)], a.rows // 5, 0.0, 1.0, 1.0)]
    print("fuzzy inference job: Mamdani, MATLAB's rules (101 points), float64; GPU: %s; pinned "
          "host-to-device %s; best of %d runs per row, files in the page cache"
          % (gpu or "none", "%.1f GB/s" % (bw / 1e9) if bw else "-", a.reps))
    print("\n%-8s %-12s %9s %-14s %9s %10s %9s  %s"
          % ("model", "job", "rows", "tool", "wall s", "M rows/s", "vs haze", "split (s)"))
    for name, model, names, rows, lo, hi, span in models:
        csv, npy = make_inputs(os.path.join(a.dir, "haze_e2e_fis_%s_%d" % (name, rows)), names,
                               rows, lo, hi, 11)
        for kind, inp in (("CSV -> CSV", csv), (".npy -> .npy", npy)):
            ext = ".npy" if inp.endswith(".npy") else ".csv"
            out_h = os.path.join(a.dir, "haze_e2e_fis_out_haze" + ext)
            out_t = os.path.join(a.dir, "haze_e2e_fis_out_torch" + ext)
            hcmd = [a.haze, "--quiet", "fis", "eval", model, inp, "-o", out_h, "--json"]
            ccmd = [a.haze, "--quiet", "--backend", "cpu", "fis", "eval", model, inp, "-o", out_h,
                    "--json"]
            tcmd = [sys.executable, os.path.join(HERE, "fis_torch.py"), model, inp, "-o", out_t]
            floor = read_floor(inp)
            run(hcmd)
            run(tcmd)
            yh, yt = read_out(out_h), read_out(out_t)
            err = float(np.abs(yh - yt).max()) / span
            if yh.shape != yt.shape or err > 1e-9:
                print("%-8s %-12s outputs DISAGREE: max difference %.3g of the range"
                      % (name, kind, err))
                return 1
            wh, oh = best_of(hcmd, a.reps)
            wc, oc = best_of(ccmd, a.reps)
            if float(np.abs(read_out(out_h) - yh).max()) / span > 1e-9:
                print("%-8s %-12s haze's CPU and GPU outputs DIFFER" % (name, kind))
                return 1
            wt, ot = best_of(tcmd, a.reps)
            tt = json.loads(ot.strip().splitlines()[-1])["times"]
            split = " ".join("%s %.3f" % (k, v) for k, v in tt.items() if k != "total")
            print("%-8s %-12s %9d %-14s %9.3f %10.1f %8.2fx  %s"
                  % (name, kind, rows, "haze", wh, rows / wh / 1e6, 1.0, haze_split(oh)))
            print("%-8s %-12s %9d %-14s %9.3f %10.1f %8.2fx  %s"
                  % (name, kind, rows, "haze cpu", wc, rows / wc / 1e6, wc / wh, haze_split(oc)))
            print("%-8s %-12s %9d %-14s %9.3f %10.1f %8.2fx  %s"
                  % (name, kind, rows, "torch", wt, rows / wt / 1e6, wt / wh, split))
            bus = rows * (len(names) + 1) * 8 / bw if bw else float("nan")
            print("%-8s %-12s %9s floors: read %.3f s (page cache, one thread), PCIe %.3f s "
                  "(agree: %.1e of the range)" % ("", "", "", floor, bus, err))
    if a.big > 0:
        inp, rows = make_big(os.path.join(a.dir, "haze_e2e_fis_tipper_big.csv"), a.big, 12)
        out_h = os.path.join(a.dir, "haze_e2e_fis_out_big.csv")
        floor = read_floor(inp)
        model = models[0][1]
        # the default split of the CPU threads between reading and writing
        # beside both taking every thread (HAZE_PIPELINE_THREADS), into a new
        # file; then the default again replacing the previous run's output
        # (the file system frees the old file at the rename)
        nt = os.cpu_count() or 1
        both = "HAZE_PIPELINE_THREADS=%d,%d" % (nt, nt)

        def fresh():
            if os.path.exists(out_h):
                os.remove(out_h)

        for tool, pre, back, before in (("haze", [], [], fresh),
                                        ("haze %d,%d" % (nt, nt), ["env", both], [], fresh),
                                        ("haze cpu", [], ["--backend", "cpu"], fresh),
                                        ("haze replacing", [], [], None)):
            cmd = pre + [a.haze, "--quiet"] + back + ["fis", "eval", model, inp, "-o", out_h,
                                                      "--json"]
            run(cmd)
            w, o = best_of(cmd, a.reps, before)
            print("%-8s %-12s %9d %-14s %9.3f %10.1f %9s  %s; peak %.0f MB"
                  % ("tipper", "CSV -> CSV", rows, tool, w, rows / w / 1e6, "-", haze_split(o),
                     peak_mb(cmd)))
        out_size = os.path.getsize(out_h)
        t = time.perf_counter()
        os.remove(out_h)
        unlink = time.perf_counter() - t
        wfloor = write_floor(a.dir, out_size)
        print("%-8s %-12s %9s floors: read %.3f s (page cache, one thread), write %.3f s (one "
              "thread); removing the previous output %.3f s; %.0f MB in, %.0f MB out, one block "
              "of 2^20 rows repeated"
              % ("", "", "", floor, wfloor, unlink, os.path.getsize(inp) / 1e6, out_size / 1e6))
    return 0


if __name__ == "__main__":
    sys.exit(main())
