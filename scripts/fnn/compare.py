#!/usr/bin/env python3
"""scripts/fnn/compare.py [--haze BUILD/haze] [--dir out/compare] [--sets a,b,...]
[--seed S] [--epochs N] - SONFIN with haze's default options against
scikit-learn's 5-nearest-neighbour classifier (classification) and the mean
predictor (regression) on the same split; prints the Markdown table of
docs/fnn.md ("Defaults against 5-NN and the mean").

Data sets: wine, breast_cancer, digits, diabetes (scikit-learn's bundled
copies, Debian python3-sklearn; 75/25 split by train_test_split with
random_state=0, stratified for classification) and letter (the repository's
data/letter-recognition.csv, UCI split: first 16000 rows train, last 4000
test). The splits are written as CSV into --dir (default out/compare, ignored
by git); haze is run as
    haze fnn train TRAIN.csv --target label [--classes] -o MODEL
    haze fnn predict MODEL TEST.csv -o PRED.csv
with nothing else on the line (the backend HAZE_BACKEND picks). 5-NN works on
inputs standardised with the training set's mean and deviation per input
(what haze does by default).
"""
import argparse
import csv
import os
import subprocess
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CLASSIFICATION = {"wine", "breast_cancer", "digits", "letter"}


def load(name):
    """x, y (labels as strings for classification), train rows, test rows."""
    if name == "letter":
        with open(os.path.join(ROOT, "data", "letter-recognition.csv")) as f:
            rows = list(csv.reader(f))[1:]
        y = np.array([r[0] for r in rows])
        x = np.array([[float(v) for v in r[1:]] for r in rows])
        return x, y, np.arange(16000), np.arange(16000, 20000)
    from sklearn import datasets
    from sklearn.model_selection import train_test_split
    d = getattr(datasets, "load_" + name)()
    idx = np.arange(len(d.target))
    cls = name in CLASSIFICATION
    tr, te = train_test_split(idx, test_size=0.25, random_state=0,
                              stratify=d.target if cls else None)
    y = d.target.astype(int).astype(str) if cls else d.target.astype(float)
    return d.data.astype(float), y, np.sort(tr), np.sort(te)


def write_csv(path, x, y):
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow([f"x{j}" for j in range(x.shape[1])] + ["label"])
        for row, t in zip(x, y):
            w.writerow([repr(float(v)) for v in row] + [t if isinstance(t, str) else repr(float(t))])


def knn5(xtr, ytr, xte, cls):
    from sklearn.neighbors import KNeighborsClassifier, KNeighborsRegressor
    mu, sd = xtr.mean(0), xtr.std(0)
    sd[sd == 0] = 1
    m = (KNeighborsClassifier if cls else KNeighborsRegressor)(n_neighbors=5)
    m.fit((xtr - mu) / sd, ytr)
    return m.predict((xte - mu) / sd)


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"{' '.join(cmd)}: exit {p.returncode}\n{p.stderr}")
    return p.stderr


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--haze", default=os.path.join(ROOT, "build", "haze"))
    ap.add_argument("--dir", default=os.path.join(ROOT, "out", "compare"))
    ap.add_argument("--sets", default="wine,breast_cancer,digits,diabetes,letter")
    ap.add_argument("--train-args", default="",
                    help="extra options for haze fnn train (default: none, the defaults)")
    a = ap.parse_args()
    os.makedirs(a.dir, exist_ok=True)
    print("| data | train / test | SONFIN (haze defaults) | rules | best epoch | 5-NN | mean predictor"
          " | training time |")
    print("|---|---|---|---|---|---|---|---|")
    for name in a.sets.split(","):
        x, y, tr, te = load(name)
        cls = name in CLASSIFICATION
        base = os.path.join(a.dir, name)
        write_csv(base + "-train.csv", x[tr], y[tr])
        write_csv(base + "-test.csv", x[te], y[te])
        t0 = time.time()
        log = run([a.haze, "fnn", "train", base + "-train.csv", "--target", "label"] +
                  (["--classes"] if cls else []) + a.train_args.split() + ["-o", base + ".fnn"])
        secs = time.time() - t0
        run([a.haze, "fnn", "predict", base + ".fnn", base + "-test.csv", "-o", base + "-pred.csv"])
        with open(base + "-pred.csv") as f:
            pred = [r[0] for r in list(csv.reader(f))[1:]]
        rules = best = "?"
        for line in log.splitlines():
            if "rules, model written" in line:
                rules = line.split()[1]
            if line.startswith("fnn: best epoch"):
                best = line.split()[3].rstrip(",")
        knn = knn5(x[tr], y[tr], x[te], cls)
        if cls:
            acc = 100.0 * np.mean(np.array(pred) == y[te])
            kacc = 100.0 * np.mean(knn == y[te])
            cells = [f"{acc:.2f}% accuracy", rules, best, f"{kacc:.2f}%", "-"]
        else:
            p = np.array([float(v) for v in pred])
            rmse = np.sqrt(np.mean((p - y[te]) ** 2))
            krmse = np.sqrt(np.mean((knn - y[te]) ** 2))
            mrmse = np.sqrt(np.mean((y[tr].mean() - y[te]) ** 2))
            cells = [f"RMSE {rmse:.2f}", rules, best, f"RMSE {krmse:.2f}", f"RMSE {mrmse:.2f}"]
        print(f"| {name} | {len(tr)} / {len(te)} | " + " | ".join(cells) + f" | {secs:.1f} s |",
              flush=True)


if __name__ == "__main__":
    main()
