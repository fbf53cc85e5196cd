#!/usr/bin/env python3
"""scripts/fnn/split.py - a stratified random hold-out split of a CSV table.

  split.py DATA.csv OUT-TRAIN.csv OUT-TEST.csv [--target COL] [--test-size F] [--seed S]

Uses scikit-learn's train_test_split(test_size=F, random_state=S,
stratify=labels) (defaults 0.25 and 0): every class keeps its share in both
parts, and the same arguments give the same rows on every machine with the
same scikit-learn. Both outputs keep the header and the column order of
DATA (target named by --target, default the last column).
"""
import argparse
import csv

from sklearn.model_selection import train_test_split


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("data")
    ap.add_argument("train")
    ap.add_argument("test")
    ap.add_argument("--target")
    ap.add_argument("--test-size", type=float, default=0.25)
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    with open(a.data) as f:
        rows = list(csv.reader(f))
    head, body = rows[0], rows[1:]
    col = head.index(a.target) if a.target else len(head) - 1
    labels = [r[col] for r in body]
    train, test = train_test_split(body, test_size=a.test_size, random_state=a.seed, stratify=labels)
    for out, part in ((a.train, train), (a.test, test)):
        with open(out, "w", newline="") as f:
            w = csv.writer(f, lineterminator="\n")
            w.writerow(head)
            w.writerows(part)
        print(f"{out}: {len(part)} rows")


if __name__ == "__main__":
    main()
