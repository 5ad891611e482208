#!/usr/bin/env python3
"""Checks that tests/mutation/mutants.txt still applies to the tree: each mutant's `find:` occurs exactly once in its
`file:` (what scripts/mutation_test.py needs to apply it). Run after a refactor that moves code a mutant names; prints
each broken mutant with the count found and exits 1 if any.

    scripts/check_mutants.py
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mutation_test import MUTANTS, ROOT, read_mutants  # noqa: E402


def main():
    broken = 0
    mutants = read_mutants(MUTANTS)
    for m in mutants:
        path = os.path.join(ROOT, m["file"])
        if not os.path.exists(path):
            print(f"{m['id']}: {m['file']} does not exist")
            broken += 1
            continue
        count = open(path, encoding="utf-8").read().count(m["find"])
        if count != 1:
            print(f"{m['id']}: find occurs {count} times in {m['file']}")
            broken += 1
    print(f"{len(mutants)} mutants, {broken} broken")
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
