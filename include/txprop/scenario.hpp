// Scenario files: known bugs, documented behaviours and found counterexamples kept as small text files under
// tests/scenarios/, each replayed as a regression test on every configured target it applies to. The format is
// txprop's own (close to Moroianu's meta-language and PostgreSQL's isolation specs):
//
//   # lines starting with # are comments
//   name: lost-update
//   source: IsoRel LU-1 (shared/notes/seed-isorel.md section 9.3)
//   link: https://jepsen.io/analyses/mysql-8.0.34
//   applies: mariadb, mariadb_si, postgresql, sqlite      target kinds (see below); default: all
//   levels: repeatable read, serializable                 levels to run at; default: every level of the target
//   versions: 12.0-15.17, 16.0-16.8                       server versions it applies to (MAJOR.MINOR, as
//                                                         PostgreSQL numbers them); default: every version
//   level T1: read committed                              optional: T1 always runs at this level (a session: all
//                                                         its transactions; s1[2]: the second transaction of s1)
//   node T1: 2                                            optional: on a cluster (galera), session T1 runs on node 2
//                                                         (1-based); a session without one runs on node k mod n
//
//   setup:
//   CREATE TABLE t (k INTEGER NOT NULL, v INTEGER, PRIMARY KEY (k));
//   INSERT INTO t (k, v) VALUES (1, 10);
//
//   steps:                                                one line per step '<session>: <statement>;' (below)
//   T0: BEGIN;
//   T0: SELECT * FROM t WHERE k = 1;
//   T1: BEGIN;
//   T1: UPDATE t SET v = 11 WHERE k = 1;
//   T1: COMMIT;
//   T0: UPDATE t SET v = 11 WHERE k = 1;
//   T0: COMMIT;
//
//   expect:
//   adya  mariadb     repeatable read  lost-update
//   adya  mariadb_si  repeatable read  ok
//   wss   *           serializable     ok
//
// Versions: a comma-separated list of ranges, each 'A-B' (both included), 'A-' (A and later), '-B' (B and earlier),
// 'MAJOR.MINOR' (that release) or 'MAJOR' (every minor release of it). A target whose server version
// (TargetConfig::server_version_num) is outside every range, or unknown (0: engines whose driver does not report it),
// is skipped with a line saying so. A range whose start is after its end is a file:line error.
//
// A step may fail on purpose: 'error <target kind or *> <level or *> <code or class> at <session>:<n>' in expect:
// (StepErrorExpectation below).
//
// Target kinds: sqlite, sqlite_journal, postgresql, mariadb, mariadb_si (MariaDB with innodb_snapshot_isolation=ON),
// mysql, galera, galera_si (a Galera cluster, snapshot isolation off or on). Expectation lines: property, target kind or *, level or *, then the expected verdict: ok (no finding at all,
// not even one the level allows or the engine documents), a finding kind or class (the verdict must contain a finding
// in it: for adya, G-single is met by lost-update and read-skew, G2 by G2-item and write-skew, G2-item by write-skew),
// or "not <kind or class>" (no finding in it, e.g. 'adya postgresql serializable not G2'). An oracle that cannot judge
// a scenario's shape (sdg: autocommit statements; troc: an autocommit SELECT where the level's plain reads lock) fails
// each of its expectations with a line saying so; a verdict without a verdict meets no expectation, "not X" included,
// except "no-verdict" (the oracle judged the run unjudgeable and found nothing: SDG where Assumption A3 broke).
// The property "run" judges the run itself, for engine bugs whose run ends in a run finding rather than an
// isolation finding: its verdicts are ok (the run finished cleanly) or a run finding kind (crash: a lost connection or
// a server gone; hang; divergence: cluster nodes whose final states differ; invalid-statement), e.g.
// 'run galera serializable divergence'.
// A target kind may carry versions, '<kind>@<versions>' in the form of the versions: header (no spaces), so that one
// file states where a bug exists and where it was fixed:
//   wss  postgresql@12.0-13.2  read committed  final-state-mismatch
//   wss  postgresql@13.3-      read committed  ok
// Such an expectation applies only to servers of those versions (not to a server that does not report its version).
// A target kind may also carry target parameters, '<kind>[<name>=<value>,...]' (before any '@<versions>', no spaces),
// for a verdict that depends on the target's configuration rather than on its kind:
//   adya  galera[wsrep_sync_wait=3]  repeatable read  ok
// Such an expectation applies only to a target whose URI gives every one of those parameters that value (compared
// without case: flags are on/off); a target whose URI does not give it runs with the server's own setting, which
// txprop does not know, so it does not apply there. The names are the registered engines' URI parameters
// (target_config.hpp); a name twice, an empty name or value, or a missing ']' is a file:line error.
// An expectation of a finding that the run does not show fails as "no longer reproduces", naming the server's
// version, so that an engine that fixed the bug is reported rather than passing silently.
// SQL is txprop's portable dialect (what counterexamples print): identifiers unquoted or "quoted", || or CONCAT(a, b)
// for concatenation; arithmetic + - * / %.
//
// Steps are in submitted order, one per line '<session>: <statement>;', a statement may continue on the next lines.
// The name before the colon is a session: a connection, as in PostgreSQL's isolation specs and Hermitage. On its
// connection, as a database engineer writes it:
//   - BEGIN (or START TRANSACTION) starts a transaction, COMMIT or ROLLBACK ends it; statements in between are its;
//   - a statement outside BEGIN ... COMMIT is an autocommit statement: a transaction of its own with that one
//     statement, committed when it succeeds and aborted when it fails (the engine rolls it back); nothing else is sent;
//   - after COMMIT or ROLLBACK the session goes on: more autocommit statements, or another BEGIN ... COMMIT.
//   s1: BEGIN;
//   s1: UPDATE t SET v = 11 WHERE k = 1;
//   s2: UPDATE t SET v = v + 1 WHERE k = 1;      s2 in autocommit mode: waits for s1's row lock
//   s1: COMMIT;
//   s1: SELECT * FROM t;                        s1 after its COMMIT (autocommit): sees 12
// A session's transactions run one after the other on one connection: a step submitted while the session's previous
// transaction still runs (e.g. waits on a lock) queues until it ended. Transactions are numbered in the order they
// start (T0, T1, ... in findings); a session's only transaction is named like the session, the k-th of several
// "<session>[k]" (1-based), so every file with one transaction per session (each starting with BEGIN and ending with
// COMMIT or ROLLBACK) reads exactly as before. Errors: COMMIT or ROLLBACK with no transaction open ("s1 has no
// transaction to COMMIT: it is in autocommit mode ..."), BEGIN inside a transaction, a transaction left open at the
// end ("s1 has no COMMIT or ROLLBACK (BEGIN on line 12)"), each with file:line. write_scenario writes this form back
// (autocommit statements alone on their session's line), so a counterexample's scenario.txn replays unchanged.
//
// Oracles and these forms: an autocommit statement is a transaction like any other in every oracle's history (Adya:
// its reads and writes give the item edges of a one-statement transaction; it gets no version-set read, so a
// predicate it evaluates gives no predicate edges: that can miss an anomaly, never invent one). A transaction queued
// behind the previous one on its connection starts, for Adya's snapshot checks, when that one ended.
#pragma once

#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "txprop/isolation.hpp"
#include "txprop/sql_parser.hpp"
#include "txprop/test_case.hpp"

namespace txprop {

// A malformed scenario file. what() is "<path>:<line>: <what is wrong>" (the SQL parser's error type).
using ScenarioError = SyntaxError;

// Server versions as PostgreSQL's server_version_num numbers them: MAJOR * 10000 + MINOR (15.17 is 150017).
struct VersionRange {
  int from = 0, to = 0;  // both included
  bool contains(int version) const { return version >= from && version <= to; }
};

struct Expectation {
  std::string property;                // "wss", "adya", "atomicity", ..., or "run" (the run's own findings)
  std::string target;                  // a target kind, or "*"
  std::optional<IsolationLevel> level; // nullopt: every level
  std::string verdict;                 // "ok", "no-verdict" or a finding kind or class (G-single is met by lost-update)
  bool negated = false;                // "not <kind>": no finding of that kind or class
  int line = 0;
  // "<kind>@<versions>": only on servers of these versions (empty: every version); as written, for messages.
  std::vector<VersionRange> versions;
  std::string versions_text;
  // "<kind>[<name>=<value>,...]": only on targets whose URI parameters (TargetConfig::params) have these values.
  std::map<std::string, std::string> params;

  // Whether it applies to a target of this kind, server version (server_version_num; 0 if unknown: then an
  // expectation with versions does not apply) and URI parameters (TargetConfig::params) at this level.
  bool applies(const std::string& target_kind, IsolationLevel level, int server_version_num,
               const std::map<std::string, std::string>& target_params = {}) const;
};

// "error <target kind or *> <level or *> <code or class> at <session>:<n>" in the expect: section: the n-th step line
// of that session in the steps: section (1-based, BEGIN and COMMIT counted) fails on purpose, with this error code
// (a SQLSTATE such as 55P03, a MariaDB error number such as 1205) or class (lock-timeout, serialization-failure, ...:
// the names the run prints), e.g. a NOWAIT on a locked row: 'error postgresql * 55P03 at s2:3'. The replay fails
// when that step does not fail so; an invalid statement expected this way is not a run problem.
struct StepErrorExpectation {
  std::string target;                   // a target kind, or "*"
  std::optional<IsolationLevel> level;  // nullopt: every level
  std::string error;                    // a code or an error class name
  std::string step_name;                // "s2:3" as written
  int txn = 0, step = 0;                // the step in the test case (Transaction::step numbering)
  int line = 0;

  // Whether it applies to a target of this kind at this level (the same rule as Expectation::applies, which also
  // knows versions).
  bool applies(const std::string& target_kind, IsolationLevel level) const;
};

struct Scenario {
  std::string path;  // where it was read from (for messages)
  std::string name;
  std::string source;
  std::string link;
  std::vector<std::string> applies;            // target kinds; empty: every target
  std::vector<IsolationLevel> levels;          // empty: every level the target supports
  std::vector<VersionRange> versions;          // empty: every server version
  std::string versions_text;                   // the versions: line as written, for messages and write_scenario
  std::map<int, IsolationLevel> fixed_levels;  // per transaction index
  Schema schema;
  // The sessions (connections) as written (T0, T1, ... or s1, s2, ...), in the order they first appear.
  std::vector<std::string> session_names;
  // Indexed like the transactions: a session's only transaction is named like it (T0), the k-th of several s1[k].
  std::vector<std::string> transaction_names;
  // Transactions and order as in a TestCase; their isolation is filled in by test_case(level). A transaction's
  // session is -1 where it is alone on its connection, else the index of its session in session_names.
  std::vector<Transaction> transactions;
  std::vector<int> order;
  std::vector<Expectation> expectations;
  std::vector<StepErrorExpectation> step_errors;

  // The test case at `level` (transactions with a fixed level keep theirs).
  TestCase test_case(IsolationLevel level) const;
  // The case a replay runs: test_case(level), and where the file has no node line (it was written for one server),
  // every session on the first node of a cluster.
  TestCase replay_case(IsolationLevel level) const;
  bool applies_to(const std::string& target_kind) const;
  // Why the scenario does not apply to a server of this version (server_version_num; 0 if unknown), or "" if it does.
  std::string version_mismatch(int server_version_num) const;
  // The expectations for this property, target kind, level, server version (0: unknown) and URI parameters (see
  // Expectation::applies).
  std::vector<Expectation> expectations_for(const std::string& property, const std::string& target_kind,
                                            IsolationLevel level, int server_version_num = 0,
                                            const std::map<std::string, std::string>& target_params = {}) const;
};

// The names a scenario may use that the format itself does not know: target kinds (from the engine registry), and
// properties with the finding kinds each may report (from the oracle registry). An empty list accepts any name;
// scenario tests and the txprop command pass what is registered (registered_vocabulary() in scenario_runner.hpp).
struct ScenarioVocabulary {
  std::vector<std::string> target_kinds;
  std::map<std::string, std::vector<std::string>> findings;  // property -> the finding kinds it may report
  std::vector<std::string> target_parameters;  // the URI parameters an expectation's '<kind>[name=value]' may name
};

// Throws ScenarioError with the path and line of the first problem.
Scenario parse_scenario(std::string_view text, const std::string& path = "<scenario>",
                        const ScenarioVocabulary& vocabulary = {});
Scenario load_scenario(const std::string& path, const ScenarioVocabulary& vocabulary = {});
// The scenario as text that parse_scenario reads back to an equal scenario.
std::string write_scenario(const Scenario& s);
// A scenario holding one test case (e.g. a shrunk counterexample), for write_scenario.
Scenario scenario_from_test_case(const TestCase& c, std::string name);


}  // namespace txprop
