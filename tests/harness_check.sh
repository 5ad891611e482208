#!/usr/bin/env bash
# Checks of the test harness itself, run by ctest: ctest in the build tree of tests/selftest (a tiny property
# program whose cases run nothing on the target) under different environments.
#   harness_check.sh <ctest> <build dir of tests/selftest> retarget|concurrent|unreachable_ci|zero_cases|failures
set -uo pipefail
ctest=$1
dir=$2
check=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$dir" || exit 1
unset TXPROP_SELFTEST_ZERO_CASES TXPROP_CASES CI RC_PARAMS TXPROP_SUMMARY_FILE TXPROP_PROGRESS TXPROP_SELFTEST_FAIL TXPROP_SHRINK_ATTEMPTS TXPROP_SEED
export TXPROP_REPORT_DIR=$work/reports

fail() { echo "harness_check $check: FAILED: $*"; exit 1; }

# run <log> <env assignments>... : ctest here, output in <log>, exit status returned.
run() {
  local log=$1
  shift
  env "$@" "$ctest" --output-on-failure --timeout 120 >"$log" 2>&1
}

# expect_pass <log> <test count> <name pattern of every test>
expect_pass() {
  local log=$1 n=$2 pattern=$3
  grep -q "100% tests passed, 0 tests failed out of $n\$" "$log" || { cat "$log"; fail "expected $n tests passing in $log"; }
  local names
  names=$(grep -oE 'Test +#[0-9]+: [^ ]+' "$log" | awk '{print $3}' | sort)
  [ "$(echo "$names" | wc -l)" = "$n" ] || { cat "$log"; fail "expected $n test names"; }
  echo "$names" | grep -vqE "$pattern" && { cat "$log"; fail "a test name does not match $pattern"; }
  grep -q "Running 0 tests" "$log" && { cat "$log"; fail "a test ran no GoogleTest case"; }
  return 0
}

# The number of isolation levels of the embedded SQLite target, from the listing.
levels=$(TXPROP_TARGETS=sqlite: "$ctest" -N | grep -c 'SelfTest\.check/sqlite_')
[ "$levels" -ge 1 ] || fail "no SelfTest case listed for sqlite:"
two_targets="sqlite:?name=second sqlite:?name=third&journal_mode=delete"

case $check in
  retarget)
    # Two runs in one build tree: the second follows the new TXPROP_TARGETS, without a rebuild.
    run "$work/1.log" TXPROP_TARGETS=sqlite: || { cat "$work/1.log"; fail "first run failed"; }
    expect_pass "$work/1.log" "$levels" '^SelfTest\.check/sqlite_'
    TXPROP_TARGETS="$two_targets" "$ctest" -N >"$work/2n.log"
    grep -q 'SelfTest\.check/sqlite_' "$work/2n.log" && fail "the second listing still holds the first targets"
    run "$work/2.log" TXPROP_TARGETS="$two_targets" || { cat "$work/2.log"; fail "second run failed"; }
    expect_pass "$work/2.log" $((2 * levels)) '^SelfTest\.check/(second|third)_'
    grep -q 'SelfTest\.check/second_' "$work/2.log" && grep -q 'SelfTest\.check/third_' "$work/2.log" ||
      fail "the second run did not run both new targets"
    echo "harness_check retarget: first run $levels tests on sqlite:, second run $((2 * levels)) on second, third"
    ;;
  concurrent)
    # Two ctest processes at once in one build tree, each with its own targets, several times over.
    for round in 1 2 3; do
      # A freshly built program is what made cached discovery rewrite its list while the other run read it.
      touch txprop_selftest_props
      run "$work/a$round.log" TXPROP_TARGETS=sqlite: &
      a=$!
      run "$work/b$round.log" TXPROP_TARGETS="$two_targets" &
      b=$!
      wait $a || { cat "$work/a$round.log"; fail "round $round: run A failed"; }
      wait $b || { cat "$work/b$round.log"; fail "round $round: run B failed"; }
      expect_pass "$work/a$round.log" "$levels" '^SelfTest\.check/sqlite_'
      expect_pass "$work/b$round.log" $((2 * levels)) '^SelfTest\.check/(second|third)_'
    done
    echo "harness_check concurrent: 3 rounds of two simultaneous runs, each ran all of its tests"
    ;;
  unreachable_ci)
    # A configured target whose server is down fails the run, naming it with the password masked.
    if run "$work/u.log" CI=1 TXPROP_TARGETS="sqlite: postgresql://postgres:secret@127.0.0.1:1/txtest"; then
      cat "$work/u.log"; fail "the run passed with an unreachable target"
    fi
    grep -q 'postgresql://postgres:\*\*\*@127.0.0.1:1/txtest' "$work/u.log" || { cat "$work/u.log"; fail "no line names the target"; }
    grep -q 'cannot connect' "$work/u.log" || { cat "$work/u.log"; fail "no 'cannot connect' line"; }
    grep -q secret "$work/u.log" && fail "the password is printed"
    grep -q 'SelfTest\.check/sqlite_.*Passed' "$work/u.log" || { cat "$work/u.log"; fail "the reachable target did not run"; }
    echo "harness_check unreachable_ci: the run failed and named the target"
    ;;
  zero_cases)
    # A suite that runs no case fails and says so.
    if run "$work/z.log" TXPROP_TARGETS=sqlite: TXPROP_CASES=0; then cat "$work/z.log"; fail "TXPROP_CASES=0 passed"; fi
    grep -q 'TXPROP_CASES=0 is out of range' "$work/z.log" || { cat "$work/z.log"; fail "no line names TXPROP_CASES=0"; }
    if run "$work/z2.log" TXPROP_TARGETS=sqlite: TXPROP_SELFTEST_ZERO_CASES=1; then cat "$work/z2.log"; fail "a suite of 0 cases passed"; fi
    grep -q 'ran no case' "$work/z2.log" || { cat "$work/z2.log"; fail "no 'ran no case' line"; }
    # A target left with no level to test fails, naming it.
    if run "$work/l.log" TXPROP_TARGETS="sqlite:?levels=,,,"; then cat "$work/l.log"; fail "levels=,,, passed"; fi
    grep -Eq 'target sqlite:\?levels=,,,: (no isolation level to test|empty item in levels)' "$work/l.log" || { cat "$work/l.log"; fail "no line names the target"; }
    # Every discovered case fails if its program runs no GoogleTest case (a filter that matches nothing passes).
    TXPROP_TARGETS=sqlite: "$ctest" --show-only=json-v1 >"$work/j.json"
    grep -q 'FAIL_REGULAR_EXPRESSION' "$work/j.json" && grep -q 'Running 0 tests' "$work/j.json" ||
      { cat "$work/j.json"; fail "cases do not fail when their program runs no test"; }
    echo "harness_check zero_cases: TXPROP_CASES=0 and levels=,,, both failed with their line; cases fail on 'Running 0 tests'"
    ;;
  failures)
    # Every way a property can fail gets the report folder, the shrink budget, correct counts and readable text.
    for how in assert fail throw run; do
      rm -rf "$work/reports"
      if run "$work/f.log" TXPROP_TARGETS=sqlite: TXPROP_CASES=20 TXPROP_SHRINK_ATTEMPTS=3 TXPROP_SELFTEST_FAIL=$how; then
        cat "$work/f.log"; fail "$how: passed"
      fi
      grep -q 'found after 1 case(s)' "$work/f.log" || { cat "$work/f.log"; fail "$how: shrink attempts counted as cases"; }
      grep -q 'shrink budget spent' "$work/f.log" || { cat "$work/f.log"; fail "$how: shrink budget ignored"; }
      grep -qE '^1 cases in [0-9.]+ s' "$work/f.log" || { cat "$work/f.log"; fail "$how: no summary line of its own"; }
      grep -q "^report: $work/reports/SelfTest-sqlite_serializable-" "$work/f.log" || { cat "$work/f.log"; fail "$how: no report line"; }
      report=$(ls -d "$work"/reports/SelfTest-sqlite_serializable-* 2>/dev/null | head -1)
      [ -f "$report/scenario.txn" ] && [ -f "$report/summary.txt" ] || { cat "$work/f.log"; fail "$how: no report folder"; }
      grep -q 'assertion' "$report/summary.txt" || fail "$how: the report does not say what failed"
    done
    # RC_TAG and RC_CLASSIFY counts are in the summary of a passing run.
    env TXPROP_TARGETS=sqlite: TXPROP_CASES=20 "$ctest" -V >"$work/t.log" 2>&1 || { cat "$work/t.log"; fail "tags run failed"; }
    grep -qE '(two transactions|three or more transactions): [0-9]+ case\(s\)' "$work/t.log" || { cat "$work/t.log"; fail "RC_TAG not counted"; }
    echo "harness_check failures: RC_ASSERT, RC_FAIL, an exception and a failure after run() each wrote a report," \
         "kept the shrink budget and counted 1 case; tags counted"
    ;;
  *) fail "unknown check" ;;
esac
