#!/usr/bin/env python3
"""Lists the longest functions of C++ sources (issue 20 item 5: none over about 120 lines in properties/, checkers/,
framework/). Uses Universal Ctags' end: field (ctags --fields=+ne), so a function's length is end - line + 1, its
signature line to its closing brace; lambdas are part of the function they sit in.

    scripts/function_lengths.py [--over N] [--top N] [--per-folder] [--root TREE] [DIR ...]\n\n(default DIRs: properties checkers framework)
"""
import argparse
import json
import re
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def functions(dirs, root=ROOT):
    out = subprocess.run(["ctags", "-R", "--languages=C++", "--kinds-C++=f", "--fields=+neK", "--output-format=json",
                          "-f", "-", *dirs], cwd=root, check=True, capture_output=True, text=True).stdout
    for line in out.splitlines():
        tag = json.loads(line)
        if tag.get("_type") != "tag" or "end" not in tag:
            continue
        name = tag["name"]
        scope = tag.get("scope")
        if scope:
            name = f"{scope}::{name}"
        name = re.sub(r"__anon[0-9a-f]+", "(anonymous)", name)
        yield tag["end"] - tag["line"] + 1, tag["path"], tag["line"], name


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--over", type=int, default=0, help="only functions longer than this")
    parser.add_argument("--top", type=int, default=0, help="only the N longest")
    parser.add_argument("--per-folder", action="store_true", help="the longest function of each top-level folder")
    parser.add_argument("--root", default=ROOT, help="the source tree (default: this checkout)")
    parser.add_argument("dirs", nargs="*", default=["properties", "checkers", "framework"])
    args = parser.parse_args()
    found = sorted(functions(args.dirs, args.root), reverse=True)
    if args.per_folder:
        best = {}
        for length, path, line, name in found:
            folder = path.split("/")[0]
            best.setdefault(folder, (length, path, line, name))
        for folder, (length, path, line, name) in sorted(best.items()):
            print(f"{folder:12} {length:5}  {path}:{line} {name}")
        return
    found = [f for f in found if f[0] > args.over]
    if args.top:
        found = found[:args.top]
    for length, path, line, name in found:
        print(f"{length:5}  {path}:{line} {name}")


if __name__ == "__main__":
    sys.exit(main())
