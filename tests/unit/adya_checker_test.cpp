// Unit tests of the Adya checker (properties/adya): planted minimal histories per anomaly kind, serializable
// histories that must stay clean, impossible histories, the level tables and the Elle export. No server.
#include <gtest/gtest.h>

#include <algorithm>
#include <initializer_list>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

// tests/ have framework/ on their include path, not the project root; the adya headers include each other relatively.
#include "txprop/adya.hpp"
#include "txprop/adya_checker.hpp"
#include "../../properties/adya/predicate_eval.hpp"
#include "txprop/internal/test_hooks.hpp"
#include "txprop/oracle.hpp"
#include "txprop/target.hpp"
#include "txprop/target_config.hpp"

namespace txprop::adya {
namespace {

// Builds histories the way the instrumentation will: statements in actual order, each taking the next position;
// a transaction starts at its first statement and ends at its COMMIT/ROLLBACK.
class Builder {
 public:
  explicit Builder(std::initializer_list<RowId> initial_rows = {1, 2, 3}) {
    for (RowId r : initial_rows) h.add_initial_row(r);
  }

  StmtIndex stmt(TxnId t, const std::string& sql) {
    if (t >= started_.size()) started_.resize(t + 1, false);
    if (!started_[t]) {
      h.add_transaction(t, {}, pos_);
      started_[t] = true;
    }
    ++pos_;
    return h.add_statement(t, "T" + std::to_string(t) + "." + std::to_string(++count_[t]) + " " + sql);
  }
  Builder& read(TxnId t, RowId row, std::vector<TxnId> wlist) {
    h.add_read(stmt(t, "SELECT * FROM t WHERE id = " + std::to_string(row)), row, wlist);
    return *this;
  }
  // One SELECT returning several rows.
  Builder& read_rows(TxnId t, std::vector<std::pair<RowId, std::vector<TxnId>>> rows) {
    const StmtIndex s = stmt(t, "SELECT * FROM t");
    for (auto& [row, wl] : rows) h.add_read(s, row, wl);
    return *this;
  }
  Builder& update(TxnId t, RowId row) {
    h.add_write(stmt(t, "UPDATE t SET v = v + 1 WHERE id = " + std::to_string(row)), row, WriteKind::Update);
    return *this;
  }
  Builder& insert(TxnId t, RowId row) {
    h.add_write(stmt(t, "INSERT INTO t VALUES (" + std::to_string(row) + ")"), row, WriteKind::Insert);
    return *this;
  }
  Builder& remove(TxnId t, RowId row, std::vector<TxnId> wlist) {  // DELETE ... RETURNING rowId, wList
    const StmtIndex s = stmt(t, "DELETE FROM t WHERE id = " + std::to_string(row));
    h.add_delete_read(s, row, wlist);
    h.add_write(s, row, WriteKind::Delete);
    return *this;
  }
  // A predicate read: its statement, the rows it returned (item reads) and its version set, one row per record.
  struct PRow {
    RowId row;
    std::vector<TxnId> order;    // the row's writer list as known
    std::uint32_t seen;          // versions of it the read saw (0: not yet inserted)
    std::vector<Match> matches;  // order.size() + 2 entries
    TxnId deleter = kNone;
  };
  Builder& predicate_read(TxnId t, const std::string& sql, const std::string& predicate, std::vector<PRow> vset,
                          std::vector<std::pair<RowId, std::vector<TxnId>>> returned = {}) {
    const StmtIndex s = stmt(t, sql);
    for (auto& [row, wl] : returned) h.add_read(s, row, wl);
    const PredIndex p = h.add_predicate_read(s, predicate);
    for (const PRow& r : vset) h.add_predicate_row(p, r.row, r.order, r.seen, r.matches, r.deleter);
    return *this;
  }
  Builder& commit(TxnId t) {
    stmt(t, "COMMIT");
    h.finish_transaction(t, Fate::Committed, pos_ - 1);
    return *this;
  }
  Builder& abort(TxnId t) {
    stmt(t, "ROLLBACK");
    h.finish_transaction(t, Fate::Aborted, pos_ - 1);
    return *this;
  }

  ObservedHistory h;

 private:
  Position pos_ = 1;
  std::vector<bool> started_;
  std::map<TxnId, int> count_;
};

std::vector<Finding> findings(const ObservedHistory& h, AdyaLevel level) { return check(h, level).findings; }

std::vector<std::string> kinds(const std::vector<Finding>& fs) {
  std::vector<std::string> out;
  for (const Finding& f : fs) out.push_back(f.kind);
  std::sort(out.begin(), out.end());
  return out;
}

const Finding* find(const std::vector<Finding>& fs, const std::string& kind) {
  for (const Finding& f : fs)
    if (f.kind == kind) return &f;
  return nullptr;
}

using Kinds = std::vector<std::string>;

// -------------------------------------------------------------------------------------------- clean histories

TEST(AdyaChecker, SerialHistoryIsClean) {
  Builder b;
  b.read(1, 1, {0}).update(1, 1).commit(1);
  b.read(2, 1, {0, 1}).update(2, 2).insert(2, 10).commit(2);
  b.read(3, 2, {0, 2}).remove(3, 1, {0, 1}).commit(3);
  b.read_rows(4, {{2, {0, 2}}, {3, {0}}, {10, {2}}}).commit(4);
  for (AdyaLevel l : {AdyaLevel::PL1, AdyaLevel::PL2, AdyaLevel::PL2_99, AdyaLevel::SI, AdyaLevel::PL3}) {
    const Verdict v = check(b.h, l);
    EXPECT_TRUE(v.ok()) << to_string(l) << "\n" << v.explain();
  }
}

TEST(AdyaChecker, ConcurrentButSerializableHistoryIsClean) {
  // Interleaved transactions on disjoint rows, plus a reader that sees only committed data.
  Builder b;
  b.read(1, 1, {0});
  b.read(2, 2, {0});
  b.update(1, 1);
  b.update(2, 2);
  b.commit(1).commit(2);
  b.read_rows(3, {{1, {0, 1}}, {2, {0, 2}}}).commit(3);
  EXPECT_TRUE(check(b.h, AdyaLevel::PL3).ok()) << check(b.h, AdyaLevel::PL3).explain();
  EXPECT_TRUE(check(b.h, AdyaLevel::SI).ok()) << check(b.h, AdyaLevel::SI).explain();
}

TEST(AdyaChecker, RandomSerialHistoriesAreClean) {
  // Serial executions with reads, updates, inserts, deletes and aborts: no finding at any level.
  for (unsigned seed = 1; seed <= 20; ++seed) {
    std::mt19937 rng(seed);
    Builder b({});
    std::vector<std::vector<TxnId>> chain;  // per row id; empty: deleted or never existed
    for (RowId r = 0; r < 6; ++r) {
      b.h.add_initial_row(r);
      chain.push_back({0});
    }
    for (TxnId t = 1; t <= 40; ++t) {
      const bool aborts = rng() % 7 == 0;
      std::vector<std::vector<TxnId>> mine = chain;  // an aborted transaction's writes vanish
      for (int op = 0; op < 4; ++op) {
        const RowId r = rng() % mine.size();
        const unsigned kind = rng() % 10;
        if (kind < 5) {
          if (!mine[r].empty()) b.read(t, r, mine[r]);
        } else if (kind < 8) {
          if (!mine[r].empty()) {
            b.update(t, r);
            mine[r].push_back(t);
          }
        } else if (kind < 9) {
          const RowId nr = mine.size();
          b.insert(t, nr);
          mine.push_back({t});
          chain.push_back({});
        } else if (!mine[r].empty()) {
          b.remove(t, r, mine[r]);
          mine[r].clear();
        }
      }
      if (aborts) {
        b.abort(t);
      } else {
        b.commit(t);
        chain = mine;
      }
    }
    const Verdict v = check(b.h, AdyaLevel::PL3);
    EXPECT_TRUE(v.ok()) << "seed " << seed << "\n" << v.explain();
    EXPECT_TRUE(check(b.h, AdyaLevel::SI).ok()) << "seed " << seed << "\n" << check(b.h, AdyaLevel::SI).explain();
  }
}

// -------------------------------------------------------------------------------------------- graph edges

TEST(AdyaGraph, EdgesWithEvidence) {
  // IsoRel Fig. 4: T1 updates r1, reads it back; T2 deletes r1 (after T1 committed).
  Builder b;
  b.update(1, 1).read(1, 1, {0, 1}).commit(1);
  b.remove(2, 1, {0, 1}).commit(2);
  const DependencyGraph g = DependencyGraph::build(b.h);
  auto has = [&](TxnId from, TxnId to, EdgeType type) {
    for (const Edge& e : g.out_edges(from))
      if (e.to == to && e.type() == type) return true;
    return false;
  };
  EXPECT_TRUE(has(0, 1, EdgeType::WW));   // T0 -> T1 consecutive writers
  EXPECT_TRUE(has(1, 2, EdgeType::WW));   // last writer -> deleter
  EXPECT_TRUE(has(1, 2, EdgeType::RW));   // reader of the final version -> deleter
  EXPECT_FALSE(has(1, 1, EdgeType::WR));  // own write: no self edge
  EXPECT_EQ(g.deleter(*b.h.find_row(1)), 2u);
  EXPECT_TRUE(g.ended_before(1, 2));
  EXPECT_FALSE(g.ended_before(2, 1));
  EXPECT_TRUE(g.ended_before(0, 1));
}

TEST(AdyaGraph, AntiDependencySkipsAbortedAndRepeatedWriters) {
  Builder b;
  b.read(1, 1, {0});
  b.update(2, 1).abort(2);
  b.update(3, 1).update(3, 1).commit(3);
  b.commit(1);
  b.read(4, 1, {0, 2, 3, 3}).commit(4);  // the aborted T2 is in the list (a G1a, reported separately)
  const DependencyGraph g = DependencyGraph::build(b.h);
  std::vector<std::pair<TxnId, EdgeType>> from1;
  for (const Edge& e : g.out_edges(1)) from1.emplace_back(e.to, e.type());
  EXPECT_EQ(from1, (std::vector<std::pair<TxnId, EdgeType>>{{3, EdgeType::RW}}));  // not to aborted T2
  bool t0_to_t3 = false;
  for (const Edge& e : g.out_edges(0)) t0_to_t3 |= e.to == 3 && e.type() == EdgeType::WW;
  EXPECT_TRUE(t0_to_t3);  // T2's aborted version is not in Adya's version order
  EXPECT_EQ(g.out_edges(2).size(), 0u);
}

// -------------------------------------------------------------------------------------------- anomalies

TEST(AdyaChecker, G0DirtyWrite) {
  Builder b;
  b.update(1, 1);
  b.update(2, 1);
  b.update(2, 2);
  b.update(1, 2);
  b.commit(1).commit(2);
  b.read_rows(3, {{1, {0, 1, 2}}, {2, {0, 2, 1}}}).commit(3);
  const auto fs = findings(b.h, AdyaLevel::PL1);
  ASSERT_EQ(kinds(fs), Kinds{"G0"});
  EXPECT_NE(fs[0].explanation.find("T1 -ww-> T2"), std::string::npos) << fs[0].explanation;
  EXPECT_NE(fs[0].explanation.find("T2 -ww-> T1"), std::string::npos) << fs[0].explanation;
  EXPECT_NE(fs[0].explanation.find("G0 (dirty write)"), std::string::npos) << fs[0].explanation;
  EXPECT_NE(fs[0].graph_dot.find("t1 -> t2"), std::string::npos) << fs[0].graph_dot;
}

TEST(AdyaChecker, G0ThroughADelete) {
  // T1 -ww(row 1)-> T2, and T1 deleted the version of row 2 that T2 wrote: T2 -ww(row 2)-> T1.
  Builder b;
  b.update(1, 1);
  b.update(2, 1);
  b.update(2, 2);
  b.remove(1, 2, {0, 2});
  b.commit(1).commit(2);
  b.read(3, 1, {0, 1, 2}).commit(3);
  const auto fs = findings(b.h, AdyaLevel::PL1);
  ASSERT_EQ(kinds(fs), Kinds{"G0"});
  EXPECT_NE(fs[0].explanation.find("T2 wrote row 2 at version [T0,T2] (T2.2 UPDATE t SET v = v + 1 WHERE id = 2), and "
                                   "T1 deleted that version (T1.2 DELETE FROM t WHERE id = 2): T2 -ww-> T1"),
            std::string::npos)
      << fs[0].explanation;
}

TEST(AdyaChecker, G1aAbortedRead) {
  Builder b;
  b.update(1, 1);
  b.read(2, 1, {0, 1}).commit(2);
  b.abort(1);
  EXPECT_TRUE(check(b.h, AdyaLevel::PL1).ok());
  const auto fs = findings(b.h, AdyaLevel::PL2);
  ASSERT_EQ(kinds(fs), Kinds{"G1a"});
  EXPECT_NE(fs[0].explanation.find("T2 read row 1 at version [T0,T1]"), std::string::npos) << fs[0].explanation;
  EXPECT_NE(fs[0].explanation.find("T1 aborted"), std::string::npos) << fs[0].explanation;
}

TEST(AdyaChecker, G1aAbortedWriteSurvivesInLaterVersion) {
  Builder b;
  b.update(1, 1).abort(1);
  b.update(2, 1).commit(2);
  b.read(3, 1, {0, 1, 2}).commit(3);  // the engine kept T1's write
  const auto fs = findings(b.h, AdyaLevel::PL2);
  ASSERT_EQ(kinds(fs), Kinds{"G1a"});
  EXPECT_NE(fs[0].explanation.find("survived"), std::string::npos) << fs[0].explanation;
}

TEST(AdyaChecker, G1bIntermediateRead) {
  Builder b;
  b.update(1, 1);
  b.read(2, 1, {0, 1}).commit(2);
  b.update(1, 1).commit(1);
  b.read(3, 1, {0, 1, 1}).commit(3);
  const auto fs = findings(b.h, AdyaLevel::PL3);
  // Only G1b: the intermediate read is not also counted as a T1 -wr-> T2 -rw-> T1 G-single cycle.
  ASSERT_EQ(kinds(fs), Kinds{"G1b"});
  EXPECT_NE(fs[0].explanation.find("T2 read row 1 at version [T0,T1]"), std::string::npos) << fs[0].explanation;
  EXPECT_NE(fs[0].explanation.find("[T0,T1,T1]"), std::string::npos) << fs[0].explanation;
  EXPECT_NE(fs[0].explanation.find("G1b (intermediate read)"), std::string::npos) << fs[0].explanation;
  EXPECT_TRUE(check(b.h, AdyaLevel::PL1).ok());
}

TEST(AdyaChecker, G1bReadOfVersionItsWriterDeleted) {
  Builder b;
  b.update(1, 1);
  b.read(2, 1, {0, 1}).commit(2);
  b.remove(1, 1, {0, 1}).commit(1);
  EXPECT_EQ(kinds(findings(b.h, AdyaLevel::PL3)), Kinds{"G1b"});
}

TEST(AdyaChecker, G1cCircularInformationFlow) {
  Builder b;
  b.update(1, 1);
  b.update(2, 2);
  b.read(2, 1, {0, 1});
  b.read(1, 2, {0, 2});
  b.commit(1).commit(2);
  const auto fs = findings(b.h, AdyaLevel::PL2);
  ASSERT_EQ(kinds(fs), Kinds{"G1c"});
  EXPECT_NE(fs[0].explanation.find("T1 -wr-> T2"), std::string::npos) << fs[0].explanation;
  EXPECT_NE(fs[0].explanation.find("T2 -wr-> T1"), std::string::npos) << fs[0].explanation;
  EXPECT_NE(fs[0].explanation.find("G1c"), std::string::npos);
  EXPECT_TRUE(check(b.h, AdyaLevel::PL1).ok());
}

// LU-1 from notes/seed-isorel.md §9.3.
ObservedHistory lost_update() {
  Builder b({1});
  b.read(1, 1, {0});
  b.update(2, 1).commit(2);
  b.update(1, 1).commit(1);
  b.read(3, 1, {0, 2, 1}).commit(3);
  return std::move(b.h);
}

TEST(AdyaChecker, LostUpdate) {
  const ObservedHistory h = lost_update();
  const auto fs = findings(h, AdyaLevel::PL2_99);
  ASSERT_EQ(kinds(fs), Kinds{"lost-update"});
  const std::string& e = fs[0].explanation;
  EXPECT_NE(e.find("T1 read row 1 at version [T0] (T1.1 SELECT * FROM t WHERE id = 1), and T2 wrote the next version "
                   "[T0,T2] (T2.1 UPDATE t SET v = v + 1 WHERE id = 1): T1 -rw-> T2"),
            std::string::npos)
      << e;
  EXPECT_NE(e.find("T2 wrote row 1 at version [T0,T2] (T2.1 UPDATE t SET v = v + 1 WHERE id = 1), and T1 wrote the "
                   "next version [T0,T2,T1] (T1.2 UPDATE t SET v = v + 1 WHERE id = 1): T2 -ww-> T1"),
            std::string::npos)
      << e;
  EXPECT_NE(e.find("This cycle has exactly one anti-dependency: G-single (lost update: both wrote row 1)"),
            std::string::npos)
      << e;
  EXPECT_NE(fs[0].graph_dot.find("label=\"rw row 1\""), std::string::npos) << fs[0].graph_dot;
  EXPECT_TRUE(check(h, AdyaLevel::PL2).ok());
  // At SI the same cycle is proscribed (it is a G-SIb), and the concurrent overwrite is interference (G-SIa).
  EXPECT_EQ(kinds(findings(h, AdyaLevel::SI)), (Kinds{"G-SIa", "lost-update"}));
}

TEST(AdyaChecker, ReadWriteSkewIsoRelShape) {
  // RWS-1 (IsoRel Fig. 1): T1 reads r1; T2 updates r1 and inserts r5; T1 updates r5.
  Builder b({1, 2, 3, 4});
  b.read(1, 1, {0});
  b.update(2, 1).insert(2, 5).commit(2);
  b.update(1, 5).commit(1);
  b.read_rows(3, {{1, {0, 2}}, {5, {2, 1}}}).commit(3);
  const auto fs = findings(b.h, AdyaLevel::PL2_99);
  ASSERT_EQ(kinds(fs), Kinds{"read-skew"});
  EXPECT_NE(fs[0].explanation.find("T1 -rw-> T2"), std::string::npos) << fs[0].explanation;
  EXPECT_NE(fs[0].explanation.find("T2 -ww-> T1"), std::string::npos) << fs[0].explanation;
  EXPECT_NE(fs[0].explanation.find("G-single (read skew: the anti-dependency is on row 1, the write-write dependency "
                                   "on row 5)"),
            std::string::npos)
      << fs[0].explanation;
}

TEST(AdyaChecker, ReadSkewClassic) {
  Builder b;
  b.read(1, 1, {0});
  b.update(2, 1).update(2, 2).commit(2);
  b.read(1, 2, {0, 2}).commit(1);
  b.read(3, 1, {0, 2}).commit(3);  // without a later read nobody knows T2 overwrote what T1 read
  const auto fs = findings(b.h, AdyaLevel::PL3);
  ASSERT_EQ(kinds(fs), Kinds{"read-skew"});
  EXPECT_NE(fs[0].explanation.find("T2 -wr-> T1"), std::string::npos) << fs[0].explanation;
  EXPECT_NE(fs[0].explanation.find("write-read dependency on row 2"), std::string::npos) << fs[0].explanation;
}

// WS-1 from notes/seed-isorel.md §9.3.
ObservedHistory write_skew() {
  Builder b({1, 2});
  b.read_rows(1, {{1, {0}}, {2, {0}}});
  b.read_rows(2, {{1, {0}}, {2, {0}}});
  b.update(1, 1);
  b.update(2, 2);
  b.commit(1).commit(2);
  b.read_rows(3, {{1, {0, 1}}, {2, {0, 2}}}).commit(3);
  return std::move(b.h);
}

TEST(AdyaChecker, WriteSkew) {
  const ObservedHistory h = write_skew();
  const auto fs = findings(h, AdyaLevel::PL3);
  ASSERT_EQ(kinds(fs), Kinds{"write-skew"});
  EXPECT_NE(fs[0].explanation.find("T1 read row 2 at version [T0]"), std::string::npos) << fs[0].explanation;
  EXPECT_NE(fs[0].explanation.find("T1 -rw-> T2"), std::string::npos) << fs[0].explanation;
  EXPECT_NE(fs[0].explanation.find("T2 -rw-> T1"), std::string::npos) << fs[0].explanation;
  EXPECT_NE(fs[0].explanation.find("This cycle has 2 anti-dependencies: G2-item (write skew"), std::string::npos)
      << fs[0].explanation;
  EXPECT_EQ(kinds(findings(h, AdyaLevel::PL2_99)), Kinds{"write-skew"});
  EXPECT_TRUE(check(h, AdyaLevel::SI).ok()) << check(h, AdyaLevel::SI).explain();  // SI allows write skew
}

TEST(AdyaChecker, WriteSkewThroughDeletes) {
  Builder b({1, 2});
  b.read(1, 1, {0});
  b.read(2, 2, {0});
  b.remove(1, 2, {0});
  b.remove(2, 1, {0});
  b.commit(1).commit(2);
  EXPECT_EQ(kinds(findings(b.h, AdyaLevel::PL3)), Kinds{"write-skew"});
}

TEST(AdyaChecker, LostUpdateWriteSkewReadSkewAreDistinguished) {
  EXPECT_EQ(kinds(findings(lost_update(), AdyaLevel::PL3)), Kinds{"lost-update"});
  EXPECT_EQ(kinds(findings(write_skew(), AdyaLevel::PL3)), Kinds{"write-skew"});
  // Same two transactions, both a same-row and a different-row shape: the lost update is the one reported.
  Builder b({1, 2});
  b.read_rows(1, {{1, {0}}, {2, {0}}});
  b.update(2, 1).update(2, 2).commit(2);
  b.update(1, 1).commit(1);
  b.read_rows(3, {{1, {0, 2, 1}}, {2, {0, 2}}}).commit(3);
  EXPECT_EQ(kinds(findings(b.h, AdyaLevel::PL3)), Kinds{"lost-update"});
}

TEST(AdyaChecker, GSingleAcrossThreeTransactions) {
  Builder b;
  b.read(1, 1, {0});
  b.update(2, 1).commit(2);
  b.read(3, 1, {0, 2}).update(3, 2).commit(3);
  b.read(1, 2, {0, 3}).commit(1);
  const auto fs = findings(b.h, AdyaLevel::PL2_99);
  ASSERT_EQ(kinds(fs), Kinds{"G-single"});
  EXPECT_NE(fs[0].explanation.find("T1 -rw-> T2"), std::string::npos) << fs[0].explanation;
  EXPECT_NE(fs[0].explanation.find("T2 -wr-> T3"), std::string::npos) << fs[0].explanation;
  EXPECT_NE(fs[0].explanation.find("T3 -wr-> T1"), std::string::npos) << fs[0].explanation;
  EXPECT_NE(fs[0].explanation.find("exactly one anti-dependency: G-single."), std::string::npos) << fs[0].explanation;
}

TEST(AdyaChecker, NonRepeatableReadIsGSingle) {
  Builder b;
  b.read(1, 1, {0});
  b.update(2, 1).commit(2);
  b.read(1, 1, {0, 2}).commit(1);
  const auto fs = findings(b.h, AdyaLevel::PL2_99);
  ASSERT_EQ(kinds(fs), Kinds{"G-single"});
  EXPECT_NE(fs[0].explanation.find("non-repeatable read"), std::string::npos) << fs[0].explanation;
  EXPECT_TRUE(check(b.h, AdyaLevel::PL2).ok());
}

TEST(AdyaChecker, G2ItemAcrossThreeTransactions) {
  Builder b;
  b.read(1, 1, {0});
  b.read(2, 2, {0});
  b.read(3, 3, {0});
  b.update(2, 1);
  b.update(3, 2);
  b.update(1, 3);
  b.commit(1).commit(2).commit(3);
  b.read_rows(4, {{1, {0, 2}}, {2, {0, 3}}, {3, {0, 1}}}).commit(4);
  const auto fs = findings(b.h, AdyaLevel::PL3);
  ASSERT_EQ(kinds(fs), Kinds{"G2-item"});
  EXPECT_NE(fs[0].explanation.find("This cycle has 3 anti-dependencies: G2-item."), std::string::npos)
      << fs[0].explanation;
  EXPECT_TRUE(check(b.h, AdyaLevel::SI).ok());
}

TEST(AdyaChecker, TwoGSinglesSharingATransactionAreNotAG2Item) {
  // T1 loses T2's update of row 1 and T3's update of row 2. The walk T1 -> T2 -> T1 -> T3 -> T1 has two
  // anti-dependencies but passes T1 twice: it is two G-single cycles, not a G2-item cycle.
  Builder b({1, 2});
  b.read_rows(1, {{1, {0}}, {2, {0}}});
  b.update(2, 1).commit(2);
  b.update(3, 2).commit(3);
  b.update(1, 1).update(1, 2).commit(1);
  b.read_rows(4, {{1, {0, 2, 1}}, {2, {0, 3, 1}}}).commit(4);
  EXPECT_EQ(kinds(findings(b.h, AdyaLevel::PL3)), Kinds{"lost-update"});
}

TEST(AdyaChecker, GSIaInterference) {
  // T1 commits a write after T2 started; T2 then reads it (read committed behaviour).
  Builder b;
  b.read(2, 2, {0});
  b.update(1, 1).commit(1);
  b.read(2, 1, {0, 1}).commit(2);
  EXPECT_TRUE(check(b.h, AdyaLevel::PL3).ok());
  const auto fs = findings(b.h, AdyaLevel::SI);
  ASSERT_EQ(kinds(fs), Kinds{"G-SIa"});
  EXPECT_NE(fs[0].explanation.find("T1 -wr-> T2"), std::string::npos) << fs[0].explanation;
  EXPECT_NE(fs[0].explanation.find("not before T2 started"), std::string::npos) << fs[0].explanation;
}

TEST(AdyaChecker, GSIbMissedEffects) {
  // T2 committed its write before T1 started, yet T1 read the older version: a stale snapshot.
  Builder b;
  b.update(2, 1).commit(2);
  b.read(1, 1, {0}).commit(1);
  b.read(3, 1, {0, 2}).commit(3);
  EXPECT_TRUE(check(b.h, AdyaLevel::PL3).ok());  // serializable as T1, T2, T3
  const auto fs = findings(b.h, AdyaLevel::SI);
  ASSERT_EQ(kinds(fs), Kinds{"G-SIb"});
  EXPECT_NE(fs[0].explanation.find("T1 -rw-> T2"), std::string::npos) << fs[0].explanation;
  EXPECT_NE(fs[0].explanation.find("T2 -start-> T1"), std::string::npos) << fs[0].explanation;
  EXPECT_NE(fs[0].explanation.find("missed effects"), std::string::npos) << fs[0].explanation;
}

// Adya's start-dependency needs the commit strictly before the start: a writer ending at the position where the reader
// starts did not end before it, so the reader missing its effect is no G-SIb (tests/mutation: gsib-boundary).
TEST(AdyaChecker, GSIbNeedsTheOtherToEndStrictlyBeforeTheStart) {
  auto history = [](Position reader_start) {
    ObservedHistory h;
    h.add_initial_row(1);
    h.add_transaction(2, {}, 1);
    h.add_write(h.add_statement(2, "T2.1 UPDATE t SET v = v + 1 WHERE id = 1"), 1, WriteKind::Update);
    h.finish_transaction(2, Fate::Committed, 2);
    h.add_transaction(1, {}, reader_start);
    h.add_read(h.add_statement(1, "T1.1 SELECT * FROM t WHERE id = 1"), 1, std::vector<TxnId>{0});
    h.finish_transaction(1, Fate::Committed, reader_start + 1);
    h.add_transaction(3, {}, reader_start + 2);  // orders T2's version after the initial one
    h.add_read(h.add_statement(3, "T3.1 SELECT * FROM t WHERE id = 1"), 1, std::vector<TxnId>{0, 2});
    h.finish_transaction(3, Fate::Committed, reader_start + 3);
    return h;
  };
  EXPECT_TRUE(check(history(2), AdyaLevel::SI).ok()) << check(history(2), AdyaLevel::SI).explain();
  EXPECT_EQ(kinds(findings(history(3), AdyaLevel::SI)), Kinds{"G-SIb"});
}

TEST(AdyaChecker, UnknownPositionsSkipSnapshotChecks) {
  ObservedHistory h;
  h.add_initial_row(1);
  h.add_transaction(1);
  h.add_read(h.add_statement(1, "SELECT"), 1, std::vector<TxnId>{0});
  h.finish_transaction(1, Fate::Committed, kUnknownPosition);
  h.add_transaction(2);
  h.add_write(h.add_statement(2, "UPDATE"), 1, WriteKind::Update);
  h.finish_transaction(2, Fate::Committed, kUnknownPosition);
  EXPECT_TRUE(check(h, AdyaLevel::SI).ok());
}

TEST(AdyaChecker, LongVersionOrdersFollowTheSameRules) {
  // More than 16 writers of one row: the graph builder switches from scanning the row's own entries to
  // per-transaction marks. Same verdicts either way.
  auto history = [](bool intermediate, bool phantom_writer) {
    Builder b({1, 2});
    std::vector<TxnId> chain{0};
    for (TxnId t = 1; t <= 20; ++t) {
      b.update(t, 1);
      chain.push_back(t);
      if (t == 7) {
        if (intermediate) b.read(30, 1, chain);  // T30 sees T7's first write, T7 writes again
        b.update(t, 1);
        chain.push_back(t);
      }
      b.commit(t);
    }
    if (intermediate) b.commit(30);
    b.read(31, 2, {0}).commit(31);  // T31 writes nothing
    if (phantom_writer) chain.push_back(31);
    b.read(32, 1, chain).commit(32);
    return std::move(b.h);
  };
  EXPECT_TRUE(check(history(false, false), AdyaLevel::PL3).ok())
      << check(history(false, false), AdyaLevel::PL3).explain();
  EXPECT_EQ(kinds(findings(history(true, false), AdyaLevel::PL3)), Kinds{"G1b"});
  const auto fs = findings(history(false, true), AdyaLevel::PL3);
  ASSERT_EQ(kinds(fs), Kinds{"impossible-history"});
  EXPECT_NE(fs[0].explanation.find("T31 recorded no write of row 1"), std::string::npos) << fs[0].explanation;
  EXPECT_NE(fs[0].explanation.find(",...("), std::string::npos) << fs[0].explanation;  // long lists are elided
}

TEST(AdyaChecker, RolledBackVersionsAreNotImpossible) {
  // T1 reads its own write and aborts; T2 then writes the row: [T0,T1] and [T0,T2] diverge only by a rollback.
  Builder b;
  b.update(1, 1).read(1, 1, {0, 1}).abort(1);
  b.update(2, 1).commit(2);
  b.read(3, 1, {0, 2}).commit(3);
  EXPECT_TRUE(check(b.h, AdyaLevel::PL3).ok()) << check(b.h, AdyaLevel::PL3).explain();
  // A committed reader of the rolled-back version is a G1a, still not an impossible history.
  Builder d;
  d.update(1, 1);
  d.read(4, 1, {0, 1}).commit(4);
  d.abort(1);
  d.update(2, 1).commit(2);
  d.read(3, 1, {0, 2}).commit(3);
  const auto fs = findings(d.h, AdyaLevel::PL3);
  ASSERT_EQ(kinds(fs), Kinds{"G1a"});
  EXPECT_NE(fs[0].explanation.find("T4 read row 1 at version [T0,T1]"), std::string::npos) << fs[0].explanation;
}

// -------------------------------------------------------------------------------------------- impossible histories

TEST(AdyaChecker, DivergentWriterListsAreImpossible) {
  Builder b;
  b.update(1, 1).commit(1);
  b.update(2, 1).commit(2);
  b.read(3, 1, {0, 1}).commit(3);
  b.read(4, 1, {0, 2}).commit(4);
  const auto fs = findings(b.h, AdyaLevel::PL1);
  ASSERT_EQ(kinds(fs), Kinds{"impossible-history"});
  EXPECT_NE(fs[0].explanation.find("neither a prefix of the other"), std::string::npos) << fs[0].explanation;
  EXPECT_NE(fs[0].explanation.find("[T0,T2]"), std::string::npos) << fs[0].explanation;
  EXPECT_NE(fs[0].explanation.find("[T0,T1]"), std::string::npos) << fs[0].explanation;
}

TEST(AdyaChecker, PrefixIsElementWiseNotTextual) {
  // As strings "T0,T1" is a prefix of "T0,T12"; as writer lists it is not.
  Builder b;
  b.update(1, 1).commit(1);
  for (TxnId t = 2; t <= 11; ++t) b.read(t, 2, {0}).commit(t);
  b.update(12, 1).commit(12);
  b.read(13, 1, {0, 1}).commit(13);
  b.read(14, 1, {0, 12}).commit(14);
  EXPECT_EQ(kinds(findings(b.h, AdyaLevel::PL1)), Kinds{"impossible-history"});
  const auto parsed = parse_wlist("T0,T12");
  ASSERT_TRUE(parsed);
  EXPECT_EQ(*parsed, (std::vector<TxnId>{0, 12}));
}

TEST(AdyaChecker, UnknownWriterNoWriteAndUninsertedRowAreImpossible) {
  {
    Builder b;
    b.read(1, 1, {0, 9}).commit(1);
    const auto fs = findings(b.h, AdyaLevel::PL1);
    ASSERT_EQ(kinds(fs), Kinds{"impossible-history"});
    EXPECT_NE(fs[0].explanation.find("does not exist"), std::string::npos) << fs[0].explanation;
  }
  {
    Builder b;
    b.read(2, 2, {0}).commit(2);
    b.read(1, 1, {0, 2}).commit(1);  // T2 exists but never wrote row 1
    const auto fs = findings(b.h, AdyaLevel::PL1);
    ASSERT_EQ(kinds(fs), Kinds{"impossible-history"});
    EXPECT_NE(fs[0].explanation.find("recorded no write of row 1"), std::string::npos) << fs[0].explanation;
  }
  {
    Builder b;
    b.read(1, 77, {0}).commit(1);  // row 77 is neither initial nor inserted
    const auto fs = findings(b.h, AdyaLevel::PL1);
    ASSERT_EQ(kinds(fs), Kinds{"impossible-history"});
    EXPECT_NE(fs[0].explanation.find("not a row of the initial state"), std::string::npos) << fs[0].explanation;
  }
  {
    Builder b;
    b.update(1, 50).commit(1);  // an update of a row nobody inserted
    b.read(2, 50, {1}).commit(2);
    EXPECT_EQ(kinds(findings(b.h, AdyaLevel::PL1)), Kinds{"impossible-history"});
  }
  {
    Builder b;
    b.read(1, 1, {}).commit(1);
    EXPECT_EQ(kinds(findings(b.h, AdyaLevel::PL1)), Kinds{"impossible-history"});
  }
}

TEST(AdyaChecker, UnrecordedWritesAreNotEvidenceWhenWritesAreIncomplete) {
  // An engine without UPDATE ... RETURNING: the producer cannot say which rows an UPDATE wrote.
  ObservedHistory h;
  h.add_initial_row(1);
  h.add_transaction(1, {}, 1);
  h.add_statement(1, "T1.1 UPDATE t SET v = 1 WHERE v > 0");  // rows unknown: no add_write
  h.finish_transaction(1, Fate::Committed, 2);
  h.add_transaction(2, {}, 3);
  h.add_read(h.add_statement(2, "T2.1 SELECT * FROM t"), 1, std::vector<TxnId>{0, 1});
  h.finish_transaction(2, Fate::Committed, 4);
  EXPECT_EQ(kinds(check(h, AdyaLevel::PL3).findings), Kinds{"impossible-history"});
  CheckOptions incomplete;
  incomplete.writes_complete = false;
  EXPECT_TRUE(check(h, AdyaLevel::PL3, incomplete).ok()) << check(h, AdyaLevel::PL3, incomplete).explain();
}

TEST(AdyaChecker, DeletedRowsWrittenAgainOrTwiceAreImpossible) {
  {
    Builder b;
    b.remove(1, 1, {0}).commit(1);
    b.update(2, 1).commit(2);
    b.read(3, 1, {0, 2}).commit(3);
    const auto fs = findings(b.h, AdyaLevel::PL1);
    ASSERT_EQ(kinds(fs), Kinds{"impossible-history"});
    EXPECT_NE(fs[0].explanation.find("a deleted row was written again"), std::string::npos) << fs[0].explanation;
  }
  {
    Builder b;
    b.remove(1, 1, {0}).commit(1);
    b.remove(2, 1, {0}).commit(2);
    const auto fs = findings(b.h, AdyaLevel::PL1);
    ASSERT_EQ(kinds(fs), Kinds{"impossible-history"});
    EXPECT_NE(fs[0].explanation.find("both deleted row 1"), std::string::npos) << fs[0].explanation;
  }
}

// -------------------------------------------------------------------------------------------- levels and output

TEST(AdyaLevels, ProscribedTables) {
  EXPECT_EQ(proscribed(AdyaLevel::PL1), (std::set<std::string>{"G0"}));
  EXPECT_EQ(proscribed(AdyaLevel::PL2), (std::set<std::string>{"G0", "G1a", "G1b", "G1c"}));
  EXPECT_EQ(proscribed(AdyaLevel::PL2_99), (std::set<std::string>{"G0", "G1a", "G1b", "G1c", "G2-item"}));
  EXPECT_EQ(proscribed(AdyaLevel::SI), (std::set<std::string>{"G0", "G1a", "G1b", "G1c", "G-SIa", "G-SIb"}));
  EXPECT_EQ(proscribed(AdyaLevel::PL3),
            (std::set<std::string>{"G0", "G1a", "G1b", "G1c", "G-single", "G2-item", "G2"}));

  EXPECT_FALSE(is_proscribed(AdyaLevel::SI, "write-skew"));
  EXPECT_TRUE(is_proscribed(AdyaLevel::PL3, "write-skew"));
  EXPECT_TRUE(is_proscribed(AdyaLevel::PL2_99, "write-skew"));
  EXPECT_TRUE(is_proscribed(AdyaLevel::SI, "lost-update"));
  EXPECT_TRUE(is_proscribed(AdyaLevel::SI, "read-skew"));
  EXPECT_FALSE(is_proscribed(AdyaLevel::PL2, "lost-update"));
  EXPECT_TRUE(is_proscribed(AdyaLevel::PL2_99, "lost-update"));
  EXPECT_FALSE(is_proscribed(AdyaLevel::PL3, "G-SIa"));
  EXPECT_TRUE(is_proscribed(AdyaLevel::SI, "G-SIb"));
  EXPECT_FALSE(is_proscribed(AdyaLevel::PL1, "G1c"));
  EXPECT_TRUE(is_proscribed(AdyaLevel::PL1, "impossible-history"));
  for (const std::string& k : adya_kinds()) EXPECT_TRUE(is_known_finding_kind(k)) << k;
}

TEST(AdyaChecker, NamedPatternProscribedAlone) {
  // Proscribing only the refinement reports it; a plain G-single is then not reported.
  EXPECT_EQ(kinds(classify(DependencyGraph::build(lost_update()), {"lost-update"})), Kinds{"lost-update"});
  EXPECT_TRUE(classify(DependencyGraph::build(write_skew()), {"lost-update", "read-skew"}).empty());
}

TEST(AdyaChecker, FindingsPerKindAreCapped) {
  Builder b({});
  for (TxnId i = 0; i < 5; ++i) {  // five independent lost updates on rows 100..104
    const RowId r = 100 + i;
    b.h.add_initial_row(r);
    const TxnId t1 = 1 + 2 * i, t2 = 2 + 2 * i;
    b.read(t1, r, {0});
    b.update(t2, r).commit(t2);
    b.update(t1, r).commit(t1);
    b.read(100 + i, r, {0, t2, t1}).commit(100 + i);
  }
  CheckOptions opt;
  opt.max_findings_per_kind = 2;
  const auto fs = classify(DependencyGraph::build(b.h), proscribed(AdyaLevel::PL3), opt);
  ASSERT_EQ(kinds(fs), (Kinds{"lost-update", "lost-update"}));
  EXPECT_NE(fs[0].explanation.find("3 more lost-update findings"), std::string::npos) << fs[0].explanation;
}

TEST(AdyaChecker, VerdictSummaryAndDot) {
  const Verdict v = check(lost_update(), AdyaLevel::PL3);
  EXPECT_EQ(v.property, "adya");
  EXPECT_TRUE(v.fails());
  EXPECT_EQ(v.summary(), "lost-update");
  const Finding* f = find(v.findings, "lost-update");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->graph_dot.rfind("digraph", 0), 0u);
  EXPECT_NE(f->graph_dot.find("t2 -> t1 [label=\"ww row 1\"]"), std::string::npos) << f->graph_dot;
}

TEST(AdyaElle, ExportsListAppendHistory) {
  Builder b({1});
  b.read(1, 1, {0});
  b.update(2, 1).commit(2);
  b.update(1, 1).commit(1);
  b.update(3, 1).abort(3);
  const std::string edn = to_elle_edn(b.h);
  const std::string expected =
      "{:type :invoke, :f :txn, :value [[:append 1 0]], :process 0, :index 0}\n"
      "{:type :ok, :f :txn, :value [[:append 1 0]], :process 0, :index 1}\n"
      "{:type :invoke, :f :txn, :value [[:r 1 nil] [:append 1 1]], :process 1, :index 2}\n"
      "{:type :invoke, :f :txn, :value [[:append 1 2]], :process 2, :index 3}\n"
      "{:type :ok, :f :txn, :value [[:append 1 2]], :process 2, :index 4}\n"
      "{:type :ok, :f :txn, :value [[:r 1 [0]] [:append 1 1]], :process 1, :index 5}\n"
      "{:type :invoke, :f :txn, :value [[:append 1 3]], :process 3, :index 6}\n"
      "{:type :fail, :f :txn, :value [[:append 1 3]], :process 3, :index 7}\n";
  EXPECT_EQ(edn, expected);
}

TEST(AdyaElle, RepeatedWritesGetDistinctElements) {
  Builder b({1});
  b.update(1, 1).update(1, 1).read(1, 1, {0, 1, 1}).commit(1);
  const std::string edn = to_elle_edn(b.h);
  EXPECT_NE(edn.find("[[:append 1 1] [:append 1 4294967297] [:r 1 [0 1 4294967297]]]"), std::string::npos) << edn;
}

TEST(AdyaHistory, ParseWList) {
  EXPECT_EQ(*parse_wlist("T0,T1,T12"), (std::vector<TxnId>{0, 1, 12}));
  EXPECT_EQ(*parse_wlist(" T0, T3 "), (std::vector<TxnId>{0, 3}));
  EXPECT_EQ(*parse_wlist("0,3"), (std::vector<TxnId>{0, 3}));
  EXPECT_TRUE(parse_wlist("")->empty());
  EXPECT_FALSE(parse_wlist("T0,,T1"));
  EXPECT_FALSE(parse_wlist("T0;T1"));
  EXPECT_FALSE(parse_wlist("Tx"));
}

TEST(AdyaHistory, KeepsOneChainPerRow) {
  ObservedHistory h;
  h.add_initial_row(5);
  h.add_transaction(1);
  const StmtIndex s = h.add_statement(1, "SELECT");
  h.add_read(s, 5, std::vector<TxnId>{0});
  h.add_read(s, 5, std::vector<TxnId>{0, 1, 2});
  h.add_read(s, 5, std::vector<TxnId>{0, 1});
  const RowIndex r = *h.find_row(5);
  EXPECT_EQ(h.branch_count(r), 1u);
  EXPECT_EQ(std::vector<TxnId>(h.branch(r, 0).begin(), h.branch(r, 0).end()), (std::vector<TxnId>{0, 1, 2}));
  EXPECT_EQ(std::vector<TxnId>(h.wlist(h.observations()[2]).begin(), h.wlist(h.observations()[2]).end()),
            (std::vector<TxnId>{0, 1}));
  h.add_read(s, 5, std::vector<TxnId>{0, 3});
  EXPECT_EQ(h.branch_count(r), 2u);

  // Long chains leave the row's inline storage; copies keep their own.
  std::vector<TxnId> longer{0, 1, 2};
  for (TxnId t = 10; t < 30; ++t) longer.push_back(t);
  h.add_read(s, 5, longer);
  const ObservedHistory copy = h;
  h.add_read(s, 5, std::vector<TxnId>{0, 1, 2, 10, 11, 99});
  EXPECT_EQ(copy.branch(r, 0).size(), longer.size());
  EXPECT_TRUE(std::equal(longer.begin(), longer.end(), copy.branch(r, 0).begin()));
  EXPECT_EQ(copy.branch_count(r), 2u);
  EXPECT_EQ(h.branch_count(r), 3u);
}

// -------------------------------------------------------------------------------------------- predicate dependencies

constexpr Match N = Match::No, Y = Match::Yes, U = Match::Unknown;

// T1 reads v > 5 and gets nothing; T2 inserts row 100 with v = 7 and updates row 1; T1 then reads row 1 with T2's
// write. T1 -rw-> T2 through the predicate (the insert changed its matches), T2 -wr-> T1 on row 1: a G-single whose
// anti-dependency is a predicate one (no item anti-dependency: not a G2-item).
ObservedHistory phantom_insert_read_skew() {
  Builder b;
  b.predicate_read(1, "SELECT * FROM t WHERE v > 5", "v > 5",
                   {{1, {0, 2}, 1, {N, N, N, N}}, {2, {0}, 1, {N, N, N}}, {3, {0}, 1, {N, N, N}},
                    {100, {2}, 0, {N, Y, N}}});
  b.insert(2, 100).update(2, 1).commit(2);
  b.read(1, 1, {0, 2}).commit(1);
  return std::move(b.h);
}

TEST(AdyaPredicate, InsertIntoARangeReadEmpty) {
  const ObservedHistory h = phantom_insert_read_skew();
  const DependencyGraph g = DependencyGraph::build(h);
  EXPECT_EQ(g.predicate_edge_count(), 1u);
  const auto fs = findings(h, AdyaLevel::PL3);
  ASSERT_EQ(kinds(fs), Kinds{"G-single-predicate"});
  EXPECT_NE(fs[0].explanation.find("v > 5"), std::string::npos) << fs[0].explanation;
  EXPECT_NE(fs[0].explanation.find("not yet inserted"), std::string::npos) << fs[0].explanation;
  EXPECT_NE(fs[0].explanation.find("(predicate)"), std::string::npos) << fs[0].explanation;
  // Not a G2-item: allowed at PL-2.99; a G-SIb: proscribed at SI.
  EXPECT_TRUE(findings(h, AdyaLevel::PL2_99).empty());
  EXPECT_NE(find(findings(h, AdyaLevel::SI), "G-single-predicate"), nullptr);
}

// Predicate-many-preceders: T1 evaluates v > 5 twice and sees T2's insert only the second time.
TEST(AdyaPredicate, PredicateManyPreceders) {
  Builder b;
  b.predicate_read(1, "SELECT * FROM t WHERE v > 5", "v > 5",
                   {{1, {0}, 1, {N, N, N}}, {100, {2}, 0, {N, Y, N}}});
  b.insert(2, 100).commit(2);
  b.predicate_read(1, "SELECT * FROM t WHERE v > 5", "v > 5",
                   {{1, {0}, 1, {N, N, N}}, {100, {2}, 1, {N, Y, N}}}, {{100, {2}}});
  b.commit(1);
  const auto fs = findings(b.h, AdyaLevel::PL3);
  ASSERT_EQ(kinds(fs), Kinds{"G-single-predicate"});
  // The second read returned row 100: T2 -wr-> T1 both as an item and as a predicate read-dependency.
  EXPECT_NE(fs[0].explanation.find("T1 -rw-> T2 (predicate)"), std::string::npos) << fs[0].explanation;
  EXPECT_NE(fs[0].explanation.find("T2 -wr-> T1"), std::string::npos) << fs[0].explanation;
}

// Write skew through a predicate: both read v = 1 (nothing matches), each then sets a different row to 1.
TEST(AdyaPredicate, WriteSkewThroughAPredicate) {
  Builder b;
  auto vset = [](TxnId first, TxnId second) {
    return std::vector<Builder::PRow>{{1, {0, first}, 1, {N, N, Y, N}}, {2, {0, second}, 1, {N, N, Y, N}}};
  };
  b.predicate_read(1, "SELECT * FROM t WHERE v = 1", "v = 1", vset(1, 2));
  b.predicate_read(2, "SELECT * FROM t WHERE v = 1", "v = 1", vset(1, 2));
  b.update(1, 1).update(2, 2).commit(1).commit(2);
  const auto fs = findings(b.h, AdyaLevel::PL3);
  ASSERT_EQ(kinds(fs), Kinds{"G2"});
  EXPECT_NE(fs[0].explanation.find("v = 1"), std::string::npos) << fs[0].explanation;
  EXPECT_NE(fs[0].explanation.find("phantom"), std::string::npos) << fs[0].explanation;
  // G2 but no G2-item: PL-2.99 and SI allow it.
  EXPECT_TRUE(findings(b.h, AdyaLevel::PL2_99).empty());
  EXPECT_TRUE(findings(b.h, AdyaLevel::SI).empty());
}

// A DELETE matching nothing, then each transaction inserts a row the other's DELETE would have removed.
TEST(AdyaPredicate, DeleteMatchingNothingThenConflictingInsert) {
  Builder b({1});
  auto vset = [] {
    return std::vector<Builder::PRow>{
        {1, {0}, 1, {N, N, N}}, {100, {1}, 0, {N, Y, N}}, {101, {2}, 0, {N, Y, N}}};
  };
  b.predicate_read(1, "DELETE FROM t WHERE v = 9", "v = 9", vset());
  b.predicate_read(2, "DELETE FROM t WHERE v = 9", "v = 9", vset());
  b.insert(1, 100).insert(2, 101).commit(1).commit(2);
  const auto fs = findings(b.h, AdyaLevel::PL3);
  ASSERT_EQ(kinds(fs), Kinds{"G2"});
  EXPECT_NE(fs[0].explanation.find("DELETE FROM t WHERE v = 9"), std::string::npos) << fs[0].explanation;
}

// A row deleted out of a predicate's matches after the read: an anti-dependency to the deleter.
TEST(AdyaPredicate, DeleteChangesMatches) {
  Builder b;
  b.predicate_read(1, "SELECT * FROM t WHERE v > 0", "v > 0", {{3, {0}, 1, {N, Y, N}, 2}}, {{3, {0}}});
  b.remove(2, 3, {0}).update(2, 1).commit(2);
  b.read(1, 1, {0, 2}).commit(1);
  const DependencyGraph g = DependencyGraph::build(b.h);
  EXPECT_GE(g.predicate_edge_count(), 1u);
  // The item read of row 3 gives an item rw to the deleter as well: a read skew.
  EXPECT_FALSE(findings(b.h, AdyaLevel::PL3).empty());
}

// A deletion that rolled back changed no predicate's matches: no anti-dependency to the deleter (tests/mutation:
// predicate-deleter-uncommitted).
TEST(AdyaPredicate, AnAbortedDeleteChangesNoMatches) {
  Builder b;
  b.predicate_read(1, "SELECT * FROM t WHERE v > 0", "v > 0", {{3, {0}, 1, {N, Y, N}, 2}}, {{3, {0}}});
  b.remove(2, 3, {0}).abort(2);
  b.read(1, 1, {0}).commit(1);
  const DependencyGraph g = DependencyGraph::build(b.h);
  for (const Edge& e : g.out_edges(1)) EXPECT_NE(e.to, 2u) << to_string(e.type());
  EXPECT_TRUE(check(b.h, AdyaLevel::PL3).ok()) << check(b.h, AdyaLevel::PL3).explain();
}

TEST(AdyaPredicate, SerializableHistoriesWithPredicatesAreClean) {
  Builder b;
  // T1 reads v > 5 (nothing), commits; T2 inserts into the range; T3 reads it and sees the insert; T4 deletes it
  // and T5 reads the range empty again. Every predicate edge follows the real order.
  b.predicate_read(1, "SELECT * FROM t WHERE v > 5", "v > 5", {{1, {0}, 1, {N, N, N}}, {100, {2}, 0, {N, Y, N}, 4}}).commit(1);
  b.insert(2, 100).commit(2);
  b.predicate_read(3, "SELECT * FROM t WHERE v > 5", "v > 5", {{100, {2}, 1, {N, Y, N}, 4}}, {{100, {2}}}).commit(3);
  b.remove(4, 100, {2}).commit(4);
  b.predicate_read(5, "DELETE FROM t WHERE v > 5", "v > 5", {{100, {2}, 2, {N, Y, N}, 4}}).commit(5);
  const DependencyGraph g = DependencyGraph::build(b.h);
  EXPECT_EQ(g.predicate_edge_count(), 6u);
  EXPECT_TRUE(findings(b.h, AdyaLevel::PL3).empty());
  EXPECT_TRUE(findings(b.h, AdyaLevel::SI).empty());
}

TEST(AdyaPredicate, UnknownMatchesGiveNoEdge) {
  Builder b;
  auto vset = [](TxnId first, TxnId second) {
    return std::vector<Builder::PRow>{{1, {0, first}, 1, {N, N, U, N}}, {2, {0, second}, 1, {N, U, Y, N}}};
  };
  b.predicate_read(1, "SELECT * FROM t WHERE v = 1", "v = 1", vset(1, 2));
  b.predicate_read(2, "SELECT * FROM t WHERE v = 1", "v = 1", vset(1, 2));
  b.update(1, 1).update(2, 2).commit(1).commit(2);
  EXPECT_EQ(DependencyGraph::build(b.h).predicate_edge_count(), 0u);
  EXPECT_TRUE(findings(b.h, AdyaLevel::PL3).empty());
}

TEST(AdyaPredicate, AbortedWritersInstallNoVersion) {
  Builder b;
  // T2 inserted into the range and aborted: no edge for T1's empty read.
  b.predicate_read(1, "SELECT * FROM t WHERE v > 5", "v > 5", {{100, {2}, 0, {N, Y, N}}});
  b.insert(2, 100).abort(2);
  b.commit(1);
  EXPECT_EQ(DependencyGraph::build(b.h).predicate_edge_count(), 0u);
}

TEST(AdyaPredicate, EvaluatesWhereClausesWithSqlNullAndSaysWhereItCannot) {
  Table t;
  t.name = "t";
  t.columns = {{"k", ColumnType::Integer, true}, {"v", ColumnType::Integer, false}, {"s", ColumnType::Text, false}};
  const Row row{1, Value(), "abc"};
  const Expr k = Expr::col("k"), v = Expr::col("v"), s = Expr::col("s");
  auto m = [&](const Expr& e) { return matches(std::optional<Expr>(e), t, row); };
  EXPECT_EQ(m(Expr::binary(BinaryOp::Eq, k, Expr::lit(1))), Match::Yes);
  EXPECT_EQ(m(Expr::binary(BinaryOp::Gt, k, Expr::lit(1))), Match::No);
  EXPECT_EQ(m(Expr::binary(BinaryOp::Eq, v, Expr::lit(1))), Match::No);                      // NULL = 1 is NULL
  EXPECT_EQ(m(Expr::not_(Expr::binary(BinaryOp::Eq, v, Expr::lit(1)))), Match::No);          // NOT NULL is NULL
  EXPECT_EQ(m(Expr::binary(BinaryOp::Eq, v, Expr::lit(1)) || Expr::binary(BinaryOp::Eq, k, Expr::lit(1))),
            Match::Yes);                                                                      // NULL OR TRUE
  EXPECT_EQ(m(Expr::is_null(v)), Match::Yes);
  EXPECT_EQ(m(Expr::in_list(k, {Expr::lit(2), Expr::lit(Value())}, true)), Match::No);       // 1 NOT IN (2, NULL)
  EXPECT_EQ(m(Expr::between(Expr::binary(BinaryOp::Add, k, Expr::lit(4)), Expr::lit(5), Expr::lit(6))), Match::Yes);
  EXPECT_EQ(m(Expr::binary(BinaryOp::Eq, s, Expr::lit("abc"))), Match::Yes);
  EXPECT_EQ(m(Expr::binary(BinaryOp::Eq, s, Expr::lit("xyz"))), Match::No);
  EXPECT_EQ(m(Expr::binary(BinaryOp::Eq, s, Expr::lit("ABC"))), Match::Unknown);  // collation-dependent
  EXPECT_EQ(m(Expr::binary(BinaryOp::Lt, s, Expr::lit("Abd"))), Match::Unknown);
  EXPECT_EQ(m(Expr::binary(BinaryOp::Lt, s, Expr::lit("abd"))), Match::Yes);
  EXPECT_EQ(m(Expr::binary(BinaryOp::Eq, s, Expr::lit(1))), Match::Unknown);      // text vs number
  EXPECT_EQ(m(Expr::in_subquery(k, "t", "k", std::nullopt)), Match::Unknown);
  // FALSE AND <unknown> is FALSE: exact despite the subquery.
  EXPECT_EQ(m(Expr::binary(BinaryOp::Eq, k, Expr::lit(2)) && Expr::in_subquery(k, "t", "k", std::nullopt)), Match::No);
  EXPECT_EQ(matches(std::nullopt, t, row), Match::Yes);
  // CASE takes the branch its condition picks (NULL picks ELSE) and evaluates only that one; EXISTS and HAVING
  // aggregates read other versions than this one: unknown.
  EXPECT_EQ(m(Expr::binary(BinaryOp::Eq, Expr::case_(Expr::binary(BinaryOp::Eq, k, Expr::lit(1)), Expr::lit(7), v),
                           Expr::lit(7))),
            Match::Yes);
  EXPECT_EQ(m(Expr::binary(BinaryOp::Eq, Expr::case_(Expr::binary(BinaryOp::Eq, v, Expr::lit(1)), Expr::lit(7), k),
                           Expr::lit(1))),
            Match::Yes);  // NULL = 1 is NULL: ELSE k
  EXPECT_EQ(m(Expr::binary(BinaryOp::Eq, Expr::case_(Expr::binary(BinaryOp::Eq, k, Expr::lit(2)),
                                                     Expr::in_subquery(k, "t", "k", std::nullopt), Expr::lit(0)),
                           Expr::lit(0))),
            Match::Yes);  // the branch not taken is not evaluated
  EXPECT_EQ(m(Expr::exists("t", std::nullopt)), Match::Unknown);
  EXPECT_EQ(m(Expr::binary(BinaryOp::Gt, Expr::aggregate_of(Aggregate::Count, "k"), Expr::lit(0))), Match::Unknown);
}

// An item cycle whose read was also a predicate read is one phenomenon: reported once, as the item cycle.
TEST(AdyaPredicate, ItemCycleIsNotReportedAgainThroughThePredicate) {
  Builder b;
  b.predicate_read(1, "SELECT * FROM t", "TRUE", {{1, {0}, 1, {N, Y, N}, 2}, {2, {0, 2}, 1, {N, Y, Y, N}}},
                   {{1, {0}}, {2, {0}}});
  b.remove(2, 1, {0}).update(2, 2).commit(2);
  b.update(1, 2).commit(1);
  b.read(3, 2, {0, 2, 1}).commit(3);  // the observer
  const auto fs = findings(b.h, AdyaLevel::PL3);
  // T1 read row 2 and wrote it over T2's write: a lost update (and the predicate read saw T2's delete of row 1 too).
  EXPECT_EQ(kinds(fs), Kinds{"lost-update"});
}

// -------------------------------------------------------------------------------------------- differential test

// The dependency graph against a reference built straight from the definitions (dependency_graph.hpp and Adya's
// definitions 4 and 5), on random concurrent histories with predicate reads: the same edges with the same evidence.
// The reference is quadratic and obviously so; the graph builder is linear, places edges through per-bucket sorts and
// computes predicate edges in two passes. Sizes above DependencyGraph's bucket of 1024 transactions and rows are
// included, so that several buckets are sorted.
struct RefEdge {
  TxnId from, to;
  int type;
  bool predicate;
  RowIndex row;
  std::uint32_t prow, version;  // predicate edges: the evidence
  auto operator<=>(const RefEdge&) const = default;
};

std::vector<RefEdge> reference_edges(const ObservedHistory& h) {
  auto committed = [&](TxnId t) {
    return t < h.txn_count() && h.txn(t).registered && h.txn(t).fate == Fate::Committed;
  };
  std::vector<RefEdge> out;
  for (RowIndex r = 0; r < h.row_count(); ++r) {
    // The version order: the longest observed writer list (the histories below never diverge).
    std::vector<TxnId> c;
    TxnId del = kNone;
    std::uint32_t del_len = 0;
    for (const Observation& o : h.observations()) {
      if (o.row != r || !o.is_read()) continue;
      const auto wl = h.branch(r, o.branch()).first(o.length);
      if (wl.size() > c.size()) c.assign(wl.begin(), wl.end());
      if (o.kind() == OpKind::DeleteRead && committed(h.txn_of(o))) {
        del = h.txn_of(o);
        del_len = o.length;
      }
    }
    std::vector<std::uint32_t> committed_at;  // positions of committed writers
    for (std::uint32_t p = 0; p < c.size(); ++p)
      if (committed(c[p])) committed_at.push_back(p);
    for (std::size_t i = 1; i < committed_at.size(); ++i)
      if (c[committed_at[i - 1]] != c[committed_at[i]])
        out.push_back({c[committed_at[i - 1]], c[committed_at[i]], 0, false, r, 0, 0});
    if (del != kNone && del_len > 0) {
      TxnId last = kNone;
      for (std::uint32_t p : committed_at)
        if (p < del_len) last = c[p];
      if (last != kNone && last != del) out.push_back({last, del, 0, false, r, 0, 0});
    }
    for (const Observation& o : h.observations()) {
      if (o.row != r || o.kind() != OpKind::Read || !committed(h.txn_of(o)) || o.length == 0) continue;
      const TxnId reader = h.txn_of(o), w = c[o.length - 1];
      if (w != reader && committed(w)) out.push_back({w, reader, 1, false, r, 0, 0});
      TxnId to = kNone;
      for (std::uint32_t p : committed_at)
        if (p >= o.length && c[p] != w) {
          to = c[p];
          break;
        }
      if (to == kNone && del != kNone && del != w) to = del;
      if (to != kNone && to != reader) out.push_back({reader, to, 2, false, r, 0, 0});
    }
  }
  // Predicate edges: a committed version whose match differs from the previous committed version's (or, for the
  // first, from "not yet inserted", which matches nothing), installed by another transaction than the reader.
  const auto& prows = h.predicate_rows();
  for (PredRowIndex i = 0; i < prows.size(); ++i) {
    const PredicateRow& pr = prows[i];
    const TxnId reader = h.statements()[h.predicate_statement(pr.pred)].txn;
    const auto row = h.find_row(pr.row);
    if (!committed(reader) || !row) continue;
    const auto order = h.predicate_order(pr);
    const auto matches = h.predicate_matches(pr);
    std::vector<std::pair<std::uint32_t, TxnId>> versions;  // (version, writer), committed only
    for (std::uint32_t k = 1; k <= order.size(); ++k)
      if (committed(order[k - 1])) versions.emplace_back(k, order[k - 1]);
    if (pr.deleter != kNone && committed(pr.deleter)) versions.emplace_back(pr.order_length + 1, pr.deleter);
    for (std::size_t v = 0; v < versions.size(); ++v) {
      const auto [k, w] = versions[v];
      const Match now = k == pr.order_length + 1 ? Match::No : matches[k];
      const Match before = v == 0 ? Match::No : matches[versions[v - 1].first];
      if (w == reader || now == Match::Unknown || before == Match::Unknown || now == before) continue;
      if (k <= pr.seen)
        out.push_back({w, reader, 1, true, *row, i, k});
      else
        out.push_back({reader, w, 2, true, *row, i, k});
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<RefEdge> graph_edges(const DependencyGraph& g) {
  std::vector<RefEdge> out;
  for (TxnId t = 0; t < g.node_count(); ++t)
    for (const Edge& e : g.out_edges(t)) {
      RefEdge x{t, e.to, static_cast<int>(e.type()), e.predicate(), e.row, 0, 0};
      if (e.predicate()) {
        x.prow = g.predicate_evidence(e).prow;
        x.version = g.predicate_evidence(e).version;
      }
      out.push_back(x);
    }
  std::sort(out.begin(), out.end());
  return out;
}

// A random concurrent execution: up to `concurrent` transactions open at once, each reading (a prefix of the row's
// writer list: its committed part or all of it), updating, inserting, deleting and reading predicates over a few
// rows; 1 in 6 aborts. A final observer reads every live row. Predicate rows get the final version orders, random
// matches (some unknown) and the row's committed deleter, as the property gives them after the run.
ObservedHistory random_concurrent_history(unsigned seed, int transactions, int rows, int concurrent) {
  std::mt19937 rng(seed);
  Builder b({});
  std::vector<std::vector<TxnId>> chain;  // per row id: every writer so far, aborted ones included
  std::vector<bool> deleted;
  std::vector<TxnId> deleter;
  for (RowId r = 0; r < static_cast<RowId>(rows); ++r) {
    b.h.add_initial_row(r);
    chain.push_back({0});
    deleted.push_back(false);
    deleter.push_back(kNone);
  }
  struct PendingPred {
    PredIndex pred;
    std::vector<std::pair<RowId, std::uint32_t>> rows;  // row, versions seen
  };
  std::vector<PendingPred> preds;
  std::vector<TxnId> open;
  std::vector<bool> aborts(static_cast<std::size_t>(transactions) + 2, false);
  TxnId next = 1;
  std::set<TxnId> finished;
  auto committed_prefix = [&](RowId r) {
    std::size_t n = chain[r].size();
    while (n > 1 && (!finished.count(chain[r][n - 1]) || aborts[chain[r][n - 1]])) --n;
    return n;
  };
  while (next <= static_cast<TxnId>(transactions) || !open.empty()) {
    if (next <= static_cast<TxnId>(transactions) && (open.empty() || (open.size() < static_cast<std::size_t>(concurrent) && rng() % 3 == 0))) {
      aborts[next] = rng() % 6 == 0;
      open.push_back(next++);
      continue;
    }
    const std::size_t i = rng() % open.size();
    const TxnId t = open[i];
    const unsigned op = rng() % 12;
    const RowId r = rng() % chain.size();
    if (op < 3) {
      if (!deleted[r]) b.read(t, r, std::vector<TxnId>(chain[r].begin(), chain[r].begin() + (rng() % 2 ? chain[r].size() : committed_prefix(r))));
    } else if (op < 6) {
      if (!deleted[r]) {
        b.update(t, r);
        chain[r].push_back(t);
      }
    } else if (op < 7) {
      const RowId nr = chain.size();
      b.insert(t, nr);
      chain.push_back({t});
      deleted.push_back(false);
      deleter.push_back(kNone);
    } else if (op < 8) {
      if (!deleted[r] && !aborts[t]) {
        b.remove(t, r, chain[r]);
        deleted[r] = true;
        deleter[r] = t;
      }
    } else if (op < 10) {
      const StmtIndex s = b.stmt(t, "SELECT * FROM t WHERE v > " + std::to_string(rng() % 5));
      PendingPred p{b.h.add_predicate_read(s, "v > ?"), {}};
      for (int k = 1 + static_cast<int>(rng() % 4); k > 0; --k) {
        const RowId pr = rng() % (chain.size() + 2);  // sometimes a row inserted later, or never
        p.rows.emplace_back(pr, pr < chain.size() ? static_cast<std::uint32_t>(deleted[pr] ? chain[pr].size() + 1 : chain[pr].size()) : 0);
      }
      preds.push_back(std::move(p));
    } else {
      if (aborts[t]) b.abort(t); else b.commit(t);
      finished.insert(t);
      open.erase(open.begin() + static_cast<std::ptrdiff_t>(i));
    }
  }
  const TxnId observer = next;
  for (RowId r = 0; r < chain.size(); ++r)
    if (!deleted[r]) b.read(observer, r, chain[r]);
  b.commit(observer);
  for (const PendingPred& p : preds)
    for (const auto& [row, seen] : p.rows) {
      const std::vector<TxnId> order = row < chain.size() ? chain[row] : std::vector<TxnId>{};
      std::vector<Match> matches(order.size() + 2, Match::No);
      for (std::size_t k = 1; k <= order.size(); ++k) {
        const unsigned m = rng() % 7;
        matches[k] = m < 3 ? Match::Yes : m < 6 ? Match::No : Match::Unknown;
      }
      b.h.add_predicate_row(p.pred, row, order, std::min<std::uint32_t>(seen, static_cast<std::uint32_t>(order.size() + 1)),
                            matches, row < deleter.size() ? deleter[row] : kNone);
    }
  return std::move(b.h);
}

TEST(AdyaGraph, EdgesMatchAReferenceBuiltFromTheDefinitions) {
  std::size_t predicate_edges = 0, edges = 0;
  auto compare = [&](const ObservedHistory& h, const std::string& what) {
    const DependencyGraph g = DependencyGraph::build(h);
    const auto expected = reference_edges(h), actual = graph_edges(g);
    edges += actual.size();
    predicate_edges += g.predicate_edge_count();
    ASSERT_EQ(actual.size(), expected.size()) << what;
    for (std::size_t i = 0; i < actual.size(); ++i) {
      const RefEdge &a = actual[i], &e = expected[i];
      ASSERT_TRUE(a == e) << what << ": edge " << i << ": graph T" << a.from << " -" << a.type << (a.predicate ? "p" : "")
                          << "-> T" << a.to << " row " << a.row << " (" << a.prow << "," << a.version << "), reference T"
                          << e.from << " -" << e.type << (e.predicate ? "p" : "") << "-> T" << e.to << " row " << e.row
                          << " (" << e.prow << "," << e.version << ")";
    }
  };
  for (unsigned seed = 1; seed <= 60; ++seed)
    compare(random_concurrent_history(seed, 30, 5, 1 + static_cast<int>(seed % 4)), "seed " + std::to_string(seed));
  // Several buckets of transactions and of rows.
  compare(random_concurrent_history(7, 3000, 2200, 3), "large history");
  EXPECT_GT(predicate_edges, 500u);
  EXPECT_GT(edges, 5000u);
}

}  // namespace
}  // namespace txprop::adya

// Joined writes and reads through a join, a derived table or a SELECT-list subquery are judged (on SQLite in memory,
// a real engine: its SELECT * over a join lays the tables' columns out as add_join_reads expects, and its UPDATE ...
// FROM is preceded by the join read that gives the partner row's version).
TEST(AdyaOracle, JoinedWritesAndJoinedReadsAreJudged) {
  using namespace txprop;
  TestCase c;
  Table t0, t1;
  t0.name = "t0";
  t0.columns = {Column{"k", ColumnType::Integer, true}};
  t0.rows = {{1}};
  t1.name = "t1";
  t1.columns = {Column{"k", ColumnType::Integer, true}};
  t1.rows = {{1}};
  c.schema.tables = {t0, t1};
  Statement write = Statement::update("t0", {{"k", Expr::qcol("t0", "k")}});
  write.joins.push_back(Join{false, "t1", Expr::binary(BinaryOp::Eq, Expr::qcol("t0", "k"), Expr::qcol("t1", "k"))});
  c.transactions = {Transaction{IsolationLevel::Serializable, {write}, TxnEnd::Commit}};
  c.order = TestCase::serial_order(c.transactions);
  ASSERT_EQ(c.validate(), "");
  const Oracle& adya = *find_oracle("adya");
  auto target = Target::open(parse_target_uri("sqlite:"));
  const History h = target->run(adya.prepare(c, target->engine()));
  const Verdict v = adya.judge(*target, h);
  EXPECT_FALSE(v.inconclusive) << v.note;
  EXPECT_TRUE(v.ok()) << v.explain();
  // T0 wrote t0's row and read t1's, its partner (the join read before the write found the row the write returned).
  const adya::ObservedHistory written = adya::observe(h);
  std::size_t t0_partner_reads = 0, t0_writes = 0;
  for (const adya::Observation& ob : written.observations())
    if (written.txn_of(ob) == 1) (ob.is_read() ? t0_partner_reads : t0_writes) += 1;
  EXPECT_EQ(t0_partner_reads, 1u);
  EXPECT_EQ(t0_writes, 1u);
  // Reads over both tables instead: judged, and the join's read of t1 is recorded (t1's row read by T0 and the
  // observer: its version order is known, no impossible history).
  Statement sub = Statement::select("t0");
  sub.select_exprs.push_back(Expr::subquery(Aggregate::Max, "t1", "k", std::nullopt));
  Statement join = Statement::select("t0");
  join.joins.push_back(Join{true, "t1", Expr::binary(BinaryOp::Eq, Expr::qcol("t0", "k"), Expr::qcol("t1", "k"))});
  Statement derived = Statement::select("t0");
  derived.derived.push_back(Statement::select("t0"));
  derived.alias = "d";
  c.transactions[0].statements = {sub, join, derived};
  c.order = TestCase::serial_order(c.transactions);
  ASSERT_EQ(c.validate(), "");
  const History reads = target->run(adya.prepare(c, target->engine()));
  const Verdict judged = adya.judge(*target, reads);
  EXPECT_FALSE(judged.inconclusive) << judged.note;
  EXPECT_TRUE(judged.ok()) << judged.explain();
  const adya::ObservedHistory o = adya::observe(reads);
  std::size_t t0_reads = 0;
  for (const adya::Observation& ob : o.observations()) t0_reads += ob.is_read() && o.txn_of(ob) == 1 ? 1 : 0;
  EXPECT_EQ(t0_reads, 4u);  // the subquery SELECT: t0's row; the join: t0's and t1's; the derived table: t0's
}
