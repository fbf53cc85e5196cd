"""bench/e2e_util.py - what the whole-job benchmarks (bench/e2e_*.py) share:
running a command as its own process and timing it, its memory peak, and
the floors (reading a file at page-cache speed, the host-to-device rate)."""
import os
import subprocess
import sys
import time


def run(cmd):
    """Wall time and stdout of one process (exits on failure)."""
    t = time.perf_counter()
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wall = time.perf_counter() - t
    if p.returncode != 0:
        sys.exit("failed (%d): %s\n%s" % (p.returncode, " ".join(cmd), p.stderr[-2000:]))
    return wall, p.stdout


def best_of(cmd, reps, before=None):
    """The fastest of reps runs: its wall time and stdout (before(), if
    given, is called ahead of each run, outside the timing)."""
    best, out = float("inf"), None
    for _ in range(reps):
        if before:
            before()
        w, o = run(cmd)
        if w < best:
            best, out = w, o
    return best, out


# The peak resident set of a command, from a small process that starts it:
# a child forked from the caller (which may hold the data) would report the
# caller's size as its own peak.
WRAP = ("import os, sys\npid = os.fork()\nif pid == 0:\n    os.execvp(sys.argv[1], sys.argv[1:])\n"
        "_, st, ru = os.wait4(pid, 0)\nprint(ru.ru_maxrss)\n"
        "sys.exit(os.waitstatus_to_exitcode(st))\n")


def peak_mb(cmd):
    p = subprocess.run([sys.executable, "-c", WRAP] + cmd, stdout=subprocess.PIPE,
                       stderr=subprocess.DEVNULL, text=True)
    return int(p.stdout.strip().splitlines()[-1]) / 1024.0


def read_floor(path):
    """One read(2) of the whole file into a buffer already touched, best of 3
    (this also puts the file in the page cache)."""
    size = os.path.getsize(path)
    buf = bytearray(size)
    mv, best = memoryview(buf), float("inf")
    for _ in range(3):
        fd = os.open(path, os.O_RDONLY)
        t, got = time.perf_counter(), 0
        while got < size:
            r = os.readv(fd, [mv[got:]])
            if r <= 0:
                break
            got += r
        best = min(best, time.perf_counter() - t)
        os.close(fd)
    return best


def write_floor(folder, size):
    """write(2) of size bytes, 1 MiB at a time from one buffer, into a new
    file in folder, and its close: one thread's rate into the page cache, the
    least a writer of one file takes. Best of 2; the file is removed."""
    buf = memoryview(bytes(1 << 20))
    path = os.path.join(folder, ".haze_write_floor.tmp")
    best = float("inf")
    for _ in range(2):
        t = time.perf_counter()
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        left = size
        while left > 0:
            left -= os.write(fd, buf[:min(left, len(buf))])
        os.close(fd)
        best = min(best, time.perf_counter() - t)
        os.remove(path)
    return best


def pinned_rate(nbytes=256 << 20):
    """Host-to-device bytes a second from page-locked memory (PyTorch) and the
    GPU's name, or (None, None) without PyTorch or a GPU."""
    try:
        import torch
    except ImportError:
        return None, None
    if not torch.cuda.is_available():
        return None, None
    h = torch.empty(nbytes, dtype=torch.uint8).pin_memory()
    h.fill_(1)
    d = torch.empty(nbytes, dtype=torch.uint8, device="cuda")
    best = float("inf")
    for _ in range(3):
        torch.cuda.synchronize()
        t = time.perf_counter()
        d.copy_(h, non_blocking=True)
        torch.cuda.synchronize()
        best = min(best, time.perf_counter() - t)
    name = torch.cuda.get_device_name(0)
    del h, d
    return nbytes / best, name
