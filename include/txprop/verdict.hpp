// What a property concluded about one history. A verdict with no findings is "ok". Each finding names its kind
// with Adya's and Elle's vocabulary (G0, G1a, G1b, G1c, G-single, G2-item, G2, lost-update, read-skew,
// write-skew, ...) or an oracle-specific kind (final-state-mismatch, result-mismatch, ...), explains itself in
// plain words, and says whether the engine's own documentation allows it (then it is reported, never hidden,
// but does not fail the test).
#pragma once

#include <iosfwd>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace txprop {

struct Finding {
  std::string kind;         // e.g. "lost-update", "final-state-mismatch"
  std::string explanation;  // multi-line text a database engineer reads: the evidence, in words
  bool documented = false;  // allowed by the engine's documentation for this level and configuration
  std::string source;       // where that is documented (URL or document and section); empty if not documented
  std::string graph_dot;    // optional Graphviz DOT of the evidence (dependency cycle)
  // A departure from the level the property was asked to check that the engine documents (Adya's claimed mode):
  // it fails the case so that it is shrunk and reported, but it does not fail the test.
  bool deviation = false;
  // Allowed by the isolation level itself (not proscribed by the level of the transactions that decide it, e.g. a
  // lost update at PL-2): reported and counted, never a failure. `documented` is set too; `source` says which level
  // allows it (and the engine's documentation where it names the phenomenon).
  bool allowed = false;
  // The transactions the finding involves (indexes into the test case), and those whose isolation level decides
  // whether it counts: every transaction is judged at its own level, so a phenomenon is proscribed when each deciding
  // transaction (and at least one involved one) is at a level that proscribes it. Empty where the oracle judges the
  // history as a whole.
  std::vector<int> transactions;
  std::vector<int> deciding;
};

struct Verdict {
  std::string property;           // "wss", "adya", "atomicity", ...
  std::vector<Finding> findings;  // empty: ok
  std::string note;               // context that is not a finding, e.g. "matched serial order T1, T0"
  bool inconclusive = false;      // the property could not judge this history (e.g. the run crashed)
  // Labels counted over a run and printed with its summary, e.g. "non-commit-serial-order".
  std::vector<std::string> tags;
  // Files for the report folder, by name (e.g. "history.edn": the history in Elle's form).
  std::vector<std::pair<std::string, std::string>> attachments;

  bool ok() const { return findings.empty() && !inconclusive; }
  // True if some finding is not documented behaviour: the property fails (and shrinks).
  bool fails() const;
  // True if it fails only through documented deviations (see Finding::deviation).
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
