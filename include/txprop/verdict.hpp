// What a property concluded about one history. A verdict with no findings is "ok". Each finding names its kind
// with Adya's and Elle's vocabulary (G0, G1a, G1b, G1c, G-single, G2-item, G2, lost-update, read-skew,
// write-skew, ...) or an oracle-specific kind (final-state-mismatch, result-mismatch, ...), explains itself in
// plain words, and has a standing (see Standing): whether it fails, or the engine's documentation or the level
// itself allows it (then it is reported, never hidden, but does not fail the test).
#pragma once

#include <cstddef>
#include <functional>
#include <iosfwd>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace txprop {

struct History;

// Where a finding stands, given the isolation levels of the transactions that decide it. One owner decides it:
// decide_standing() below; every oracle names its finding's transactions and calls it.
enum class Standing {
  Fails,       // proscribed by what the engine promises at the deciding levels: fails the test (and shrinks)
  Deviation,   // proscribed by the claimed level but documented by the engine (Adya's claimed mode): fails the case
               // so that it is shrunk and reported, but does not fail the test (Verdict::only_deviations)
  Documented,  // documented behaviour of the engine at that level and configuration: counted, with its source
  Allowed,     // allowed by the isolation level itself (e.g. a lost update at PL-2): counted, never a failure
};
// "fails", "deviation", "documented", "allowed".
std::string_view to_string(Standing s);

struct Finding {
  std::string kind;         // e.g. "lost-update", "final-state-mismatch"
  std::string explanation;  // multi-line text a database engineer reads: the evidence, in words
  Standing standing = Standing::Fails;
  std::string source;       // where its standing is documented (URL or document and section; for Allowed, which
                            // level allows it); empty when it fails
  std::string graph_dot;    // optional Graphviz DOT of the evidence (dependency cycle)
  // The transactions the finding involves (indexes into the test case), and those whose isolation level decides
  // whether it counts: every transaction is judged at its own level, so a phenomenon is proscribed when each deciding
  // transaction (and at least one involved one) is at a level that proscribes it. Empty where the oracle judges the
  // history as a whole.
  std::vector<int> transactions;
  std::vector<int> deciding;

  // Documented or allowed: reported and counted, never a failure of the case.
  bool documented() const { return standing == Standing::Documented || standing == Standing::Allowed; }
  bool fails() const { return !documented(); }
};

// What the level of one transaction says of a finding's kind.
struct LevelStance {
  bool proscribed = true;  // the engine promises to prevent it at that level (as it documents the level): it fails
  bool claimed = true;     // the level claimed proscribes it (Adya's claimed level; an oracle without one: true)
};
using LevelStanding = std::function<LevelStance(int transaction)>;

struct StandingDecision {
  Standing standing = Standing::Fails;
  // The transaction whose level gives that standing (cite its source): the first of the deciding, then the involved
  // transactions, in range, whose level does not proscribe the kind (for Allowed: whose claimed level does not, if
  // any); -1 when the finding fails or none of them is in range.
  int by = -1;
};

// The one rule for a finding's standing (Adya's mixed-level serialization graph: every transaction is judged at its
// own level). It fails when every `deciding` transaction's level proscribes the kind and some `involved` one's does;
// else it is documented behaviour when the same holds of the claimed levels; else it is allowed by the level. With no
// involved transactions the deciding ones are the involved ones; with neither, nothing documents it: it fails.
// Transactions outside [0, transactions) (e.g. an instrumentation's observer) are bound by no level: they proscribe
// nothing, and never give the source.
StandingDecision decide_standing(const std::vector<int>& deciding, const std::vector<int>& involved,
                                 std::size_t transactions, const LevelStanding& level);
// The same with the finding's own deciding and involved transactions; a finding that names none is about the history
// as a whole, judged at the first transaction's level.
StandingDecision decide_standing(const Finding& f, std::size_t transactions, const LevelStanding& level);

struct Verdict {
  std::string property;           // "wss", "adya", "atomicity", ...
  std::vector<Finding> findings;  // empty: ok
  std::string note;               // context that is not a finding, e.g. "matched serial order T1, T0"
  bool inconclusive = false;      // the property could not judge this history (e.g. the run crashed)
  // Labels counted over a run and printed with its summary, e.g. "non-commit-serial-order".
  std::vector<std::string> tags;
  // Files for the report folder, by name (e.g. "history.edn": the history in Elle's form).
  std::vector<std::pair<std::string, std::string>> attachments;
  // The run this verdict is about, where the oracle judged another run than the one it was handed (SDG re-plans a
  // case whose groups did not run contiguously, and decycles it, and judges that later run): judge_case() hands it on
  // as the judgement's history, so reports, scenario files and replays show the history the verdict is about. Null:
  // the verdict is about the history the oracle was handed.
  std::shared_ptr<const History> judged_run;

  bool ok() const { return findings.empty() && !inconclusive; }
  // True if some finding is not documented behaviour: the property fails (and shrinks).
  bool fails() const;
  // True if it fails only through documented deviations (Standing::Deviation).
  bool only_deviations() const;
  bool has(std::string_view kind) const;
  // "ok", the first failing finding's kind, or "documented <kind>" when every finding is documented.
  std::string summary() const;
  // The whole verdict as text: every finding with its explanation and source.
  std::string explain() const;

  static Verdict pass(std::string property, std::string note = {});
  // Marks the verdict as "no verdict" (the property could not judge this history) with the reason, keeping its tags.
  Verdict& without_verdict(std::string why) {
    inconclusive = true;
    note = std::move(why);
    return *this;
  }
};

std::ostream& operator<<(std::ostream& os, const Verdict& v);

}  // namespace txprop
