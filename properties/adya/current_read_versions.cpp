#include "current_read_versions.hpp"

#include <algorithm>

namespace txprop::adya {

namespace {

using Kind = ReadVersion::Kind;

// The states of one row as one statement's read may have found them (see the header).
class States {
 public:
  States(const RowStates& row, const CurrentRead& read, const CommittedAt& committed_at)
      : row_(row), read_(read), committed_at_(committed_at), last_(static_cast<std::uint32_t>(row.order.size()) + 1) {}

  TxnId installer(std::uint32_t k) const { return k < last_ ? row_.order[k - 1] : row_.deleter; }
  bool exists(std::uint32_t k) const { return k >= 1 && (k < last_ || (k == last_ && row_.deleter != kNone)); }

  // Whether state k was installed and committed before `pos` by another transaction than the reader (the initial
  // state always). The reader's own versions are never "latest committed" for this purpose: where the statement
  // could have read one, the caller knows it from the version-set read or its RETURNING.
  bool visible(std::uint32_t k, Position pos) const {
    const TxnId w = installer(k);
    if (w == kInitialTxn) return true;
    if (w == read_.reader) return false;
    const std::optional<Position> at = committed_at_(w);
    return at && *at < pos;
  }

  // Whether state k was installed by a transaction other than the reader that did not commit: rolled back, it was
  // never the latest committed version, nor does the graph draw an edge from it (dependency_graph.cpp); such versions
  // end a row's order (a later write would have overwritten the committed one, another branch), so they are passed
  // over.
  bool aborted(std::uint32_t k) const {
    if (k == 0) return false;
    const TxnId w = installer(k);
    return w != kInitialTxn && w != read_.reader && !committed_at_(w);
  }

  // The latest state at `pos`, starting from state k.
  std::uint32_t advance(std::uint32_t k, Position pos) const {
    for (std::uint32_t j = k + 1; exists(j); ++j) {
      if (aborted(j)) continue;
      if (!visible(j, pos)) break;
      k = j;
    }
    return k;
  }
  // The latest state at or before k committed at `pos` (a READ UNCOMMITTED version-set read may have seen a version
  // not yet committed; the reader's own are its own).
  std::uint32_t committed_part(std::uint32_t k, Position pos) const {
    while (k >= 1 && installer(k) != read_.reader && !visible(k, pos)) --k;  // (the initial state is visible)
    return k;
  }

  // Whether the reader or a transaction that did not commit wrote the row (order or deleter).
  bool written_by_reader() const {
    return row_.deleter == read_.reader ||
           std::find(row_.order.begin(), row_.order.end(), read_.reader) != row_.order.end();
  }
  // Whether a version the graph may draw an edge from has a match txprop cannot evaluate.
  bool unknown_match() const {
    for (std::uint32_t k = 1; k < row_.matches.size(); ++k)
      if (exists(k) && !aborted(k) && match(k) == Match::Unknown) return true;
    return false;
  }

  Match match(std::uint32_t k) const { return k < row_.matches.size() ? row_.matches[k] : Match::Unknown; }

  // Determined if every state from `from` to `to` has the same known match.
  ReadVersion settle(std::uint32_t from, std::uint32_t to) const {
    for (std::uint32_t k = from; k <= to; ++k)
      if (!aborted(k) && (match(k) == Match::Unknown || match(k) != match(from))) return {};
    return ReadVersion{Kind::Determined, from, match(from)};
  }

  // The states in [from, to] that match `m`: with No, those a statement that did not return the row may have read;
  // with Yes, those an UPDATE known to have matched it (CurrentRead::matched) may have read.
  ReadVersion matching(std::uint32_t from, std::uint32_t to, Match m) const {
    std::optional<std::uint32_t> first, last;
    for (std::uint32_t k = from; k <= to; ++k) {
      if (aborted(k)) continue;
      if (match(k) == Match::Unknown) return {};
      if (match(k) != m) continue;
      if (!first) first = k;
      last = k;
    }
    if (!first) return ReadVersion{Kind::Contradicts, 0, Match::Unknown};
    return settle(*first, *last);
  }

 private:
  const RowStates& row_;
  const CurrentRead& read_;
  const CommittedAt& committed_at_;
  std::uint32_t last_;  // the state after its delete
};

// A row the statement returned in state r: read there, if r is a state it may have read and matches.
ReadVersion returned_at(const States& s, std::uint32_t r, std::uint32_t lo, std::uint32_t hi) {
  if (r < lo || r > hi || s.match(r) == Match::No) return ReadVersion{Kind::Contradicts, 0, Match::Unknown};
  return ReadVersion{Kind::Determined, r, s.match(r)};
}

// The states the statement may have read the row in, [lo, hi] (see current_read_version).
std::pair<std::uint32_t, std::uint32_t> window(const States& s, const CurrentRead& read) {
  const std::uint32_t seen = read.snapshot.value_or(0);
  // A statement that holds what it read (CurrentRead::holds_what_it_read) read every row once nothing committed could
  // change it before its completion: a change committed between its submission and its completion was made before it
  // reached the row (it would have waited for the writer's lock, or the writer for its own).
  const Position from = read.holds_what_it_read && !read.snapshot ? read.completed : read.submitted;
  const std::uint32_t lo = read.snapshot ? s.advance(s.committed_part(seen, read.submitted), read.submitted)
                                         : s.advance(0, from);
  return {lo, s.advance(lo, read.completed)};
}

// Where the one state the statement can have read has a match txprop cannot evaluate, and every other state's is
// known: the statement's result says whether that state matched (CurrentRead::result), and the row is judged with it.
ReadVersion resolved_by_result(const RowStates& row, const CurrentRead& read, const CommittedAt& committed_at) {
  const States s(row, read, committed_at);
  if (!read.result || read.snapshot_first || (!read.snapshot && s.written_by_reader())) return {};
  const auto [lo, hi] = window(s, read);
  if (lo != hi || s.match(lo) != Match::Unknown) return {};
  RowStates known = row;
  known.matches[lo] = *read.result;
  if (States(known, read, committed_at).unknown_match()) return {};
  return current_read_version(known, read, committed_at);
}

}  // namespace

ReadVersion current_read_version(const RowStates& row, const CurrentRead& read, const CommittedAt& committed_at) {
  const States s(row, read, committed_at);
  // The graph draws no edge from a change of the matches it cannot evaluate (dependency_graph.cpp): a version whose
  // match is unknown may hide a dependency whichever version was read, so such a row stays unrecorded, unless the
  // statement's result gives the match of the one state it can have read (resolved_by_result).
  if (s.unknown_match()) return resolved_by_result(row, read, committed_at);
  if (!read.snapshot) {
    // Without a version-set read, the reader's own writes of the row may come before or after the statement: only
    // what it returned tells which version it read.
    if (s.written_by_reader()) {
      if (!read.returned) return {};
      const Match m = s.match(*read.returned);
      return m == Match::No ? ReadVersion{Kind::Contradicts, 0, Match::Unknown}
                            : ReadVersion{Kind::Determined, *read.returned, m};
    }
    if (read.snapshot_first) return {};
  }
  const std::uint32_t seen = read.snapshot.value_or(0);
  const auto [lo, hi] = window(s, read);
  if (!read.snapshot_first) {
    if (read.returned) return returned_at(s, *read.returned, lo, hi);
    if (read.matched) return s.matching(lo, hi, Match::Yes);
    return read.returns_nothing ? s.settle(lo, hi) : s.matching(lo, hi, Match::No);
  }
  // PostgreSQL READ COMMITTED: its snapshot, taken at its submission, is the version-set read's only if nothing
  // committed in between.
  if (lo != seen) return {};
  if (read.returned) {
    if (s.match(seen) != Match::Yes) return ReadVersion{Kind::Contradicts, 0, Match::Unknown};
    return returned_at(s, *read.returned, seen, hi);
  }
  if (s.match(seen) == Match::Unknown) return {};
  // Not matching in its snapshot: never looked at again. Matching there but not returned: re-checked on a later
  // version that no longer matched (or deleted).
  if (s.match(seen) == Match::No) return ReadVersion{Kind::Determined, seen, Match::No};
  return seen == hi ? ReadVersion{Kind::Contradicts, 0, Match::Unknown} : s.matching(seen + 1, hi, Match::No);
}

}  // namespace txprop::adya
