#!/usr/bin/env python3
"""The mutation check (issue 24): applies each mutant of tests/mutation/mutants.txt to a private copy of the tree,
builds it, runs the server-free tier (ctest -L unit, and every test on embedded SQLite), then, for a
mutant that survived it and where TXPROP_TARGETS names servers, the server tier; prints each mutant's fate, the
score per tier and the survivors. Run by hand (it rebuilds once per mutant), not in CI:

    scripts/mutation_test.py [--only id,id] [--server] [--jobs N] [--keep]

The copy is `git archive HEAD` of this checkout (commit first what you want measured) in a temporary directory, so
the working tree is never changed, whatever happens to the run.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MUTANTS = os.path.join(ROOT, "tests", "mutation", "mutants.txt")
# The server-free tier: unit tests, and the property suites and scenarios on embedded SQLite.
UNIT_TIER = [["ctest", "-L", "unit", "--stop-on-failure"], ["ctest", "-R", "[Ss]qlite", "--stop-on-failure"]]
# What the tiers run: the test programs only (the benchmarks and the installed-consumer check are left out of a
# mutant's build, which is most of its time).
TEST_PROGRAMS = ["txprop_unit_tests", "txprop_integration_tests", "txprop_property_suites", "txprop_scenarios",
                 "txprop_target_tests", "txprop_guide_examples", "txprop_selftest_props", "txprop_cli",
                 "txprop_bad_scenarios"]
# The server tier: everything else, on the targets TXPROP_TARGETS names.
SERVER_TIER = [["ctest", "-LE", "unit", "--stop-on-failure"]]


def read_mutants(path):
    mutants = []
    for block in re.split(r"\n\s*\n", open(path, encoding="utf-8").read()):
        fields = {}
        for line in block.splitlines():
            if not line.strip() or line.startswith("#"):
                continue
            key, sep, value = line.partition(": ")
            if not sep or key not in ("id", "file", "find", "replace", "why"):
                sys.exit(f"mutation_test: {path}: malformed line: {line}")
            fields[key] = value
        if not fields:
            continue
        missing = [k for k in ("id", "file", "find", "replace") if k not in fields]
        if missing:
            sys.exit(f"mutation_test: {path}: mutant {fields.get('id', '?')} lacks {', '.join(missing)}")
        mutants.append(fields)
    return mutants


def run(cmd, cwd, env, log):
    """Runs cmd, appending its output to log; True when it exited 0."""
    with open(log, "a", encoding="utf-8") as out:
        out.write(f"$ {' '.join(cmd)}\n")
        out.flush()
        return subprocess.run(cmd, cwd=cwd, env=env, stdout=out, stderr=subprocess.STDOUT).returncode == 0


def tier_kills(tier, build, env, log):
    return any(not run(cmd, build, env, log) for cmd in tier)


def main():
    ap = argparse.ArgumentParser(description="txprop's mutation check")
    ap.add_argument("--only", help="comma-separated mutant ids")
    ap.add_argument("--server", action="store_true", help="run the server tier for survivors of the unit tier")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--keep", action="store_true", help="keep the copy and its logs")
    args = ap.parse_args()

    mutants = read_mutants(MUTANTS)
    if args.only:
        wanted = set(args.only.split(","))
        unknown = wanted - {m["id"] for m in mutants}
        if unknown:
            sys.exit(f"mutation_test: unknown mutant id(s): {', '.join(sorted(unknown))}")
        mutants = [m for m in mutants if m["id"] in wanted]
    if args.server and not os.environ.get("TXPROP_TARGETS"):
        sys.exit("mutation_test: --server needs TXPROP_TARGETS (eval \"$(scripts/servers.sh start)\")")

    work = tempfile.mkdtemp(prefix="txprop-mutation-")
    tree, logs = os.path.join(work, "tree"), os.path.join(work, "logs")
    build = os.path.join(tree, "build")  # laid out as a checkout's own build/, so ccache finds what it compiled
    os.makedirs(tree)
    os.makedirs(logs)
    subprocess.run(f"git -C '{ROOT}' archive HEAD | tar -x -C '{tree}'", shell=True, check=True)
    # CCACHE_BASEDIR: paths relative to the copy, so the unchanged files hit what a checkout's build put in the cache.
    env = dict(os.environ, CTEST_PARALLEL_LEVEL=str(args.jobs), TXPROP_SUMMARY_FILE="", CCACHE_BASEDIR=tree,
               CCACHE_NOHASHDIR="1")
    unit_env = dict(env, TXPROP_TARGETS="sqlite: sqlite:?journal_mode=delete")
    unit_env.pop("CI", None)  # the server-free tier names no server, so none can be missing
    configure = ["cmake", "-S", tree, "-B", build, "-DCMAKE_BUILD_TYPE=RelWithDebInfo"]
    if shutil.which("ccache"):
        configure.append("-DCMAKE_CXX_COMPILER_LAUNCHER=ccache")
    started = time.time()
    if not run(configure, work, env, os.path.join(logs, "baseline.log")) or \
       not run(["cmake", "--build", build, "-j", str(args.jobs)], work, env, os.path.join(logs, "baseline.log")):
        sys.exit(f"mutation_test: the unmutated tree does not build; see {logs}/baseline.log")

    results = []
    for m in mutants:
        path = os.path.join(tree, m["file"])
        original = open(path, encoding="utf-8").read()
        if original.count(m["find"]) != 1:
            results.append((m, "invalid", f"'find' occurs {original.count(m['find'])} times in {m['file']}"))
            continue
        log = os.path.join(logs, m["id"] + ".log")
        t0 = time.time()
        try:
            open(path, "w", encoding="utf-8").write(original.replace(m["find"], m["replace"]))
            if not run(["cmake", "--build", build, "-j", str(args.jobs), "--target", *TEST_PROGRAMS], work, env, log):
                fate = "stillborn"  # does not compile: a mistake nobody could make unnoticed
            elif tier_kills(UNIT_TIER, build, unit_env, log):
                fate = "killed-unit"
            elif args.server and tier_kills(SERVER_TIER, build, env, log):
                fate = "killed-server"
            else:
                fate = "survived"
        finally:
            open(path, "w", encoding="utf-8").write(original)
        results.append((m, fate, f"{time.time() - t0:.0f} s"))
        print(f"{m['id']:<36} {fate:<14} {results[-1][2]}", flush=True)

    # Rebuild the unmutated tree last, so that a kept copy is left as it was.
    run(["cmake", "--build", build, "-j", str(args.jobs)], work, env, os.path.join(logs, "baseline.log"))
    valid = [r for r in results if r[1] not in ("invalid", "stillborn")]
    unit = sum(1 for r in valid if r[1] == "killed-unit")
    server = sum(1 for r in valid if r[1] == "killed-server")
    print(f"\nmutants: {len(results)}, valid: {len(valid)}; killed by the server-free tier: {unit}"
          f" ({100 * unit / max(1, len(valid)):.0f}%)" +
          (f", by the server tier: {server}; total killed: {unit + server} ({100 * (unit + server) / max(1, len(valid)):.0f}%)"
           if args.server else " (server tier not run)") +
          f"; wall time {time.time() - started:.0f} s")
    for m, fate, detail in results:
        if fate in ("survived", "invalid", "stillborn"):
            print(f"  {fate}: {m['id']} ({m['file']}): {m.get('why', '')} {detail if fate == 'invalid' else ''}")
    if args.keep:
        print(f"copy and logs kept in {work}")
    else:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if any(r[1] in ("survived", "invalid") for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
