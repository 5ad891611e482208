// The input of the Adya checker: what an instrumented run observed, independent of any server.
//
// IsoRel's instrumentation (notes/seed-isorel.md §1-3) gives every row a global rowId and a writer list (wList): the
// ids of the transactions that wrote the row, oldest first, with T0 the pseudo transaction that wrote the initial
// state. Every read returns (rowId, wList) for each row it saw; a DELETE is preceded by (or returns) the same for each
// row it removes; and every write is recorded so that a write is known even when no later read saw it.
//
// Scale: the checker must hold 10^6 transactions. A wList grows with the number of writes to its row, so storing every
// observed wList would be quadratic. Instead each row keeps its longest observed wList (its "branch"); an observation
// stores only (row, prefix length, branch). Observations are compared element-wise with the branch when they are
// added (never as strings: "T0,T1" is a string prefix of "T0,T12"). A wList that is neither a prefix of a branch nor
// extends one opens a new branch of that row, kept in full: either a rollback (a version with uncommitted writers that
// was then undone) or an engine finding (impossible history); the graph builder decides which.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace txprop::adya {

using TxnId = std::uint32_t;      // 0 is T0, the initial state; real transactions are 1..n
using RowId = std::uint64_t;      // IsoRel's rowId: unique across all tables for the row's whole life
using Position = std::uint64_t;   // index in the actual (real-time) order of statements
using StmtIndex = std::uint32_t;  // index of a statement in ObservedHistory::statements()
using RowIndex = std::uint32_t;   // dense index of a row in ObservedHistory (not the RowId)
using ObsIndex = std::uint32_t;   // index of an observation in ObservedHistory::observations()

inline constexpr TxnId kInitialTxn = 0;
inline constexpr Position kUnknownPosition = std::numeric_limits<Position>::max();
inline constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();

// How a transaction ended. Unknown (never finished, e.g. the connection was lost) keeps it out of the dependency graph
// like an abort, but reading its write is not reported as G1a, since it may have committed.
enum class Fate : std::uint8_t { Committed, Aborted, Unknown };

enum class OpKind : std::uint8_t {
  Read,        // a row returned by a SELECT (plain or locking): rowId + wList of the version read
  DeleteRead,  // a row about to be deleted (IsoRel's helper SELECT ... FOR UPDATE, or DELETE ... RETURNING)
  Write,       // the transaction inserted, updated or deleted the row
};

enum class WriteKind : std::uint8_t { Insert, Update, Delete };

// Whether a row version matches a predicate: Adya's "matches" (the WHERE clause is TRUE for it). Unknown where the
// producer could not evaluate the predicate exactly on that version (its values were not observed, or SQL semantics
// the producer does not model, e.g. a collation); a version change next to an Unknown gives no edge (under-
// approximation: no edge is invented, so no false cycle).
enum class Match : std::uint8_t { No = 0, Yes = 1, Unknown = 2 };

using PredIndex = std::uint32_t;     // index of a predicate read
using PredRowIndex = std::uint32_t;  // index of a (predicate read, row) record

// One row of a predicate read's version set (Adya's Vset(P)): the row's versions as the producer knows them (writer
// list, oldest first), which of them the read was evaluated against (`seen` = number of versions: 0 the row was not
// yet inserted, order.size() the last, order.size() + 1 the row was deleted by `deleter`), and per version whether it
// matched. Every later (or earlier) committed version whose match differs from the previous committed version's gives
// a predicate anti-dependency (read-dependency), as in Adya's definitions 4 and 5 (thesis §3.1.3 and §3.1.4).
struct PredicateRow {
  PredIndex pred = 0;
  RowId row = 0;
  std::uint32_t order_begin = 0;  // the writer list, in the history's predicate arena
  std::uint32_t order_length = 0;
  std::uint32_t match_begin = 0;  // into predicate_matches(): order_length + 2 entries (unborn, versions, deleted)
  std::uint32_t seen = 0;
  TxnId deleter = kNone;
};

// 24 bytes per transaction, 8 per statement and 16 per observation: at 10^6 transactions the memory the checker
// touches is what its time goes to (every fresh page is a fault), so these stay small.
struct TxnInfo {
  Position start = kUnknownPosition;  // position of its start in the actual order (see set_start_rule)
  Position end = kUnknownPosition;    // position of its COMMIT / ROLLBACK (or of the error that ended it)
  Fate fate = Fate::Unknown;
  bool registered = false;  // add_transaction (or add_statement) named this id
};

struct Statement {
  TxnId txn = 0;
  std::uint32_t text_end = 0;  // end of its text in the text arena; it starts where the previous statement's ends
};

// For Read/DeleteRead, the observed wList is the first `length` entries of branch `branch()` of `row`. The
// transaction is the statement's (ObservedHistory::txn_of).
struct Observation {
  RowIndex row = 0;
  StmtIndex stmt = kNone;
  std::uint32_t length = 0;  // wList length (reads); 0 for writes
  std::uint32_t packed = 0;  // kind (2 bits) | write kind (2 bits) | branch (28 bits)

  OpKind kind() const { return static_cast<OpKind>(packed & 3u); }
  WriteKind write_kind() const { return static_cast<WriteKind>((packed >> 2) & 3u); }
  std::uint32_t branch() const { return packed >> 4; }
  bool is_read() const { return kind() != OpKind::Write; }
};

class ObservedHistory {
 public:
  ObservedHistory();  // T0 is registered, committed, labelled "T0"

  // The rows of the initial database state; T0 wrote their first version. A wList starting with T0 for a row that is
  // not registered here is an impossible history.
  void add_initial_row(RowId row);

  // Registers transaction `id` (>= 1). Its fate is Unknown until finish_transaction.
  void add_transaction(TxnId id, std::string_view label = {}, Position start = kUnknownPosition);
  void set_start(TxnId id, Position start);
  // What the start is, for explanations (e.g. "its first consistent read, which takes the snapshot"); "" if not said.
  void set_start_rule(TxnId id, std::string_view rule);
  std::string start_rule(TxnId id) const;
  // How explanations name a transaction, the initial state included (default "T<id>"; a producer whose own
  // transaction numbers start at 0 calls the initial state something else, e.g. "init").
  void set_label(TxnId id, std::string_view label);
  void finish_transaction(TxnId id, Fate fate, Position end);

  // Statements in program order per transaction. Registers the transaction if needed. The text is what explanations
  // quote, e.g. "T2.3 UPDATE t SET v = 5 WHERE k = 1".
  StmtIndex add_statement(TxnId txn, std::string_view text);
  // One row returned by the statement: its rowId and its full wList, oldest writer first. The span is only read
  // during the call (short lists are copied while their row's state is fetched; see settle()).
  void add_read(StmtIndex stmt, RowId row, std::span<const TxnId> wlist);
  // One row the statement is about to delete (or deleted, with RETURNING): the wList of the version deleted.
  void add_delete_read(StmtIndex stmt, RowId row, std::span<const TxnId> wlist);
  // The statement wrote the row. Reads reveal the version order; writes say who may appear in it.
  void add_write(StmtIndex stmt, RowId row, WriteKind kind);

  // A predicate read (a SELECT's WHERE, the read part of an UPDATE or DELETE): `predicate` is how explanations
  // quote it, e.g. "v > 5". Its version set follows with add_predicate_row, one call per row of the tables it ranges
  // over, rows it did not return (or that did not exist yet) included: that is what makes empty reads and writes that
  // match nothing count.
  PredIndex add_predicate_read(StmtIndex stmt, std::string_view predicate);
  // order: the row's writer list as known (oldest first); matches: order.size() + 2 entries, matches[0] the row
  // before its insert (No), matches[k] the version written by order[k-1], matches[order.size() + 1] after its delete
  // (No). seen: see PredicateRow. deleter: the transaction that deleted the row, or kNone.
  void add_predicate_row(PredIndex pred, RowId row, std::span<const TxnId> order, std::uint32_t seen,
                         std::span<const Match> matches, TxnId deleter = kNone);
  // Capacity for `reads` predicate reads with `rows` version-set rows holding `versions` writer-list entries in all.
  void reserve_predicates(std::size_t reads, std::size_t rows, std::size_t versions);
  std::size_t predicate_read_count() const { return pred_stmt_.size(); }
  StmtIndex predicate_statement(PredIndex p) const { return pred_stmt_[p]; }
  std::string_view predicate_text(PredIndex p) const;
  const std::vector<PredicateRow>& predicate_rows() const { return pred_rows_; }
  std::span<const TxnId> predicate_order(const PredicateRow& r) const {
    return std::span<const TxnId>(pred_txns_).subspan(r.order_begin, r.order_length);
  }
  std::span<const Match> predicate_matches(const PredicateRow& r) const {
    return std::span<const Match>(pred_match_).subspan(r.match_begin, r.order_length + 2);
  }

  void reserve(std::size_t transactions, std::size_t statements, std::size_t observations, std::size_t text_bytes = 0);

  // --- read access (for the graph builder, explanations and export) ---
  std::size_t txn_count() const { return txns_.size(); }  // ids 0..txn_count()-1; unregistered ids have !registered
  const TxnInfo& txn(TxnId id) const { return txns_[id]; }
  bool committed(TxnId id) const { return id < txns_.size() && txns_[id].fate == Fate::Committed; }
  std::string label(TxnId id) const;
  TxnId txn_of(const Observation& o) const { return stmts_[o.stmt].txn; }

  const std::vector<Statement>& statements() const { return stmts_; }
  std::string_view statement_text(StmtIndex s) const;
  const std::vector<Observation>& observations() const {
    settle();
    return obs_;
  }

  std::size_t row_count() const { return rows_.size(); }       // row indices 0..row_count()-1, some maybe unused
  std::size_t distinct_rows() const { return present_rows_; }  // rows observed, written or initial
  RowId row_id(RowIndex r) const { return rows_[r].id; }
  std::optional<RowIndex> find_row(RowId id) const;
  bool is_initial_row(RowIndex r) const { return rows_[r].initial; }
  bool is_row(RowIndex r) const { return rows_[r].present; }
  // Branches of a row's version history. Normally one; more when reads diverged (rolled-back versions, or a bug).
  std::uint32_t branch_count(RowIndex r) const;
  bool any_divergent_row() const {  // some row has more than one branch
    settle();
    return !extra_.empty();
  }
  std::span<const TxnId> branch(RowIndex r, std::uint32_t b) const;
  // The observation that established the branch's current (longest) content.
  ObsIndex branch_witness(RowIndex r, std::uint32_t b) const;
  // The observed wList of a read observation.
  std::span<const TxnId> wlist(const Observation& o) const { return branch(o.row, o.branch()).first(o.length); }

  // Completes deferred work (see add_observation). The reading accessors call it; a history shared between threads
  // should be settled once before it is read concurrently (DependencyGraph::build reads it first).
  void settle() const;

  std::size_t memory_bytes() const;  // approximate heap use, for the benchmark

 private:
  // A row's main version chain. Most chains are short: keeping up to kInline writers inside the row's own cache line
  // saves the second cache miss per observation that a heap-allocated vector costs (and a malloc per row).
  class SmallChain {
   public:
    static constexpr std::uint32_t kInline = 8;
    SmallChain() = default;
    SmallChain(const SmallChain& o) { append(o.data(), o.size_); }
    SmallChain& operator=(const SmallChain& o) {
      if (this != &o) {
        size_ = 0;
        append(o.data(), o.size_);
      }
      return *this;
    }
    SmallChain(SmallChain&& o) noexcept : size_(o.size_), cap_(o.cap_) {
      if (o.cap_ == kInline) {
        std::copy(o.inline_, o.inline_ + o.size_, inline_);
      } else {
        heap_ = o.heap_;
        o.cap_ = kInline;
      }
      o.size_ = 0;
    }
    SmallChain& operator=(SmallChain&& o) noexcept {
      if (this != &o) {
        this->~SmallChain();
        new (this) SmallChain(std::move(o));
      }
      return *this;
    }
    ~SmallChain() {
      if (cap_ != kInline) delete[] heap_;
    }
    const TxnId* data() const { return cap_ == kInline ? inline_ : heap_; }
    std::uint32_t size() const { return size_; }
    std::span<const TxnId> view() const { return {data(), size_}; }
    void append(const TxnId* p, std::size_t n);
    std::size_t heap_bytes() const { return cap_ == kInline ? 0 : cap_ * sizeof(TxnId); }

   private:
    std::uint32_t size_ = 0;
    std::uint32_t cap_ = kInline;
    union {
      TxnId inline_[kInline];
      TxnId* heap_;
    };
  };
  struct Branch {
    std::vector<TxnId> chain;
    ObsIndex witness = kNone;
    std::uint32_t next = kNone;  // next extra branch of the same row
  };
  struct alignas(64) RowState {  // one cache line
    RowId id = 0;
    SmallChain chain;             // branch 0
    ObsIndex witness = kNone;     // of branch 0
    std::uint32_t extra = kNone;  // first extra branch (index into extra_)
    std::uint32_t extra_count = 0;
    bool initial = false;
    bool present = false;  // false: an unused slot of the dense id range
  };

  // Row states in fixed chunks: growing never moves a row (a vector's doubling would copy every row state and leave
  // up to half its slots unused), and a row's address stays valid for the prefetch in add_observation.
  class RowTable {
   public:
    static constexpr std::size_t kChunk = 1024;
    RowTable() = default;
    RowTable(const RowTable& o) : size_(o.size_) {
      for (const auto& c : o.chunks_) chunks_.push_back(std::make_unique<Chunk>(*c));
    }
    RowTable& operator=(const RowTable& o) {
      if (this != &o) *this = RowTable(o);
      return *this;
    }
    RowTable(RowTable&&) noexcept = default;
    RowTable& operator=(RowTable&&) noexcept = default;

    std::size_t size() const { return size_; }
    RowState& operator[](std::size_t i) { return (*chunks_[i / kChunk])[i % kChunk]; }
    const RowState& operator[](std::size_t i) const { return (*chunks_[i / kChunk])[i % kChunk]; }
    void resize(std::size_t n) {  // grows only
      while (chunks_.size() * kChunk < n) chunks_.push_back(std::make_unique<Chunk>());
      size_ = std::max(size_, n);
    }
    std::size_t memory_bytes() const { return chunks_.size() * sizeof(Chunk); }

   private:
    using Chunk = std::array<RowState, kChunk>;
    std::vector<std::unique_ptr<Chunk>> chunks_;
    std::size_t size_ = 0;
  };

  // RowId -> RowIndex for row ids that are not dense (see row_index): open addressing. std::unordered_map would cost
  // a node allocation per row and a cache miss per probe, which dominates at 10^6 transactions.
  class RowMap {
   public:
    std::optional<RowIndex> find(RowId id) const;
    RowIndex insert(RowId id, RowIndex value);  // returns the existing value if present
    std::size_t memory_bytes() const { return slots_.size() * sizeof(Slot); }

   private:
    struct Slot {
      RowId key;
      RowIndex value;  // kNone: empty
    };
    void grow();
    std::vector<Slot> slots_;
    std::size_t size_ = 0;
  };

  RowIndex row_index(RowId id);
  void place(ObsIndex self, RowIndex r, std::span<const TxnId> wlist) const;
  void add_observation(StmtIndex stmt, RowId row, std::span<const TxnId> wlist, OpKind kind);
  TxnInfo& ensure_txn(TxnId id);

  std::vector<TxnInfo> txns_;
  std::vector<Statement> stmts_;
  // Mutable: placing a pending observation (settle) completes the history's content, it does not change it.
  mutable std::vector<Observation> obs_;
  mutable RowTable rows_;
  mutable std::vector<Branch> extra_;

  // Observations whose wList still has to be placed in its row's branches: a FIFO of kPipeline entries whose wLists
  // (at most kPendingLength writers; longer ones are placed at once) are copied into pending_pool_.
  static constexpr std::size_t kPipeline = 16;
  static constexpr std::size_t kPendingLength = 32;
  struct Pending {
    ObsIndex obs = 0;
    RowIndex row = 0;
    std::uint32_t length = 0;
  };
  mutable Pending pending_[kPipeline];
  mutable TxnId pending_pool_[kPipeline * kPendingLength];
  mutable std::size_t pending_head_ = 0;
  mutable std::size_t pending_count_ = 0;
  std::vector<std::uint64_t> dense_present_;  // dense ids: bit set if the row exists
  // Row ids from a client-side counter (what the instrumentation should use) are dense: while they are, a row's
  // index IS its id and no map is consulted (one cache miss per observation instead of two). The first id that would
  // leave more than 3 of 4 slots unused switches to the hash map for good; existing rows keep their indices.
  bool dense_ids_ = true;
  std::size_t present_rows_ = 0;
  RowMap row_map_;
  std::unordered_map<TxnId, std::string> labels_;  // only labels other than the default "T<id>"
  std::unordered_map<TxnId, std::string> start_rules_;
  std::string texts_;
  std::vector<StmtIndex> pred_stmt_;
  std::vector<std::uint32_t> pred_text_end_;
  std::string pred_texts_;
  std::vector<PredicateRow> pred_rows_;
  std::vector<TxnId> pred_txns_;
  std::vector<Match> pred_match_;
};

// Parses an IsoRel wList column ("T0,T1,T12", spaces allowed, the 'T' optional) element-wise. nullopt if malformed.
std::optional<std::vector<TxnId>> parse_wlist(std::string_view text);

}  // namespace txprop::adya
