#include "scheduler.hpp"

#include <algorithm>
#include <chrono>
#include <deque>
#include <optional>

#include <fmt/format.h>

namespace txprop::runner {

namespace {

using Clock = std::chrono::steady_clock;

// Longest pause between two wait probes of a statement that is still running.
constexpr auto kMaxProbeInterval = std::chrono::milliseconds(20);
// How long two waiters without known blockers must stay waiting before we believe neither is about to be
// released (MariaDB picks a deadlock victim synchronously but the victim's rollback takes a moment).
constexpr auto kSettleGrace = std::chrono::milliseconds(3);
// How long a statement is held for the error of a deadlock victim the engine chose (InnoDB) to arrive, once the server
// said that victim no longer waits.
constexpr auto kVictimGrace = std::chrono::milliseconds(2000);

struct TxnState {
  SessionWorker* worker = nullptr;
  std::deque<int> pending;    // steps queued behind the current one
  int current = -1;           // step sent (running, waiting, or SQLite-busy awaiting a retry); -1 if none
  bool running = false;       // the worker executes `current` now
  bool waiting = false;       // the server said `current` waits on a lock
  bool busy_retry = false;    // SQLite: `current` returned SQLITE_BUSY and is resent when a transaction ends
  std::optional<std::vector<int>> blockers;  // transactions `current` waits for, where the server tells
  Clock::time_point sent_at;
  Clock::time_point next_probe;
  std::chrono::microseconds probe_interval{0};
  std::optional<Clock::time_point> held_since;  // its result is held until a deadlock victim's error is in
  std::uint64_t blocked_seq = 0;  // when it was found blocked (the drivers' deadlock rules)
  bool begun = false;         // BEGIN was sent
  bool ended = false;
  bool in_cycle = false;      // waits in a deadlock cycle the server's blockers show
  bool left_wait = false;     // the server said it waited, then that it no longer does: its result is on its way
  // It waited when a transaction ended and released locks (so it is asked again): until the server says it waits
  // again or its reply is in, its reply is ordered like a waiter's, after whatever else is in flight (harvest).
  bool woken = false;
};

class Scheduler {
 public:
  Scheduler(const TestCase& c, drivers::Driver& driver, const std::vector<SessionWorker*>& workers,
            CompletionSignal& signal, const RunOptions& options, RunMetrics& metrics)
      : c_(c), driver_(driver), signal_(signal), options_(options), metrics_(metrics), txns_(c.transactions.size()) {
    const std::vector<int> connection = c.connection_of();
    for (std::size_t i = 0; i < txns_.size(); ++i) txns_[i].worker = workers[static_cast<std::size_t>(connection[i])];
    previous_on_connection_.assign(txns_.size(), -1);
    for (const auto& session : c.sessions())
      for (std::size_t j = 1; j < session.size(); ++j)
        previous_on_connection_[static_cast<std::size_t>(session[j])] = session[j - 1];
    position_.resize(c.transactions.size());
    for (std::size_t i = 0; i < c.transactions.size(); ++i) position_[i].resize(c.transactions[i].step_count());
    int n = 0;
    for (const StepRef& ref : c.submitted_steps())
      position_[static_cast<std::size_t>(ref.txn)][static_cast<std::size_t>(ref.index)] = n++;
    h_.test_case = c;
    h_.transactions.resize(c.transactions.size());
    for (const auto& t : c.transactions) {
      h_.outcomes.emplace_back(t.step_count());
      h_.was_blocked.emplace_back(t.step_count(), false);
      h_.submitted_at.emplace_back(t.step_count(), -1);
    }
  }

  History run() {
    for (const StepRef& ref : c_.submitted_steps()) {
      if (h_.finding) break;
      TxnState& t = txns_[static_cast<std::size_t>(ref.txn)];
      h_.submitted_at[static_cast<std::size_t>(ref.txn)][static_cast<std::size_t>(ref.index)] =
          static_cast<int>(h_.events.size());
      if (t.ended) {
        skip(ref);
        continue;
      }
      if (t.current >= 0 || !t.pending.empty() || !connection_free(ref.txn)) {
        t.pending.push_back(ref.index);
        continue;
      }
      send(ref.txn, ref.index);
      settle(false);
    }
    // Everything is submitted; what is still waiting waits on a cycle the engine must break.
    while (!h_.finding && any_active()) settle(true);
    cleanup();
    return std::move(h_);
  }

 private:
  const Transaction& txn(int t) const { return c_.transactions[static_cast<std::size_t>(t)]; }
  TxnState& state(int t) { return txns_[static_cast<std::size_t>(t)]; }

  // Whether the transaction before `t` on its connection (if any) has ended, so `t` may send its steps; for an
  // observer (Transaction::after_all), whether every other transaction has.
  bool connection_free(int t) const {
    if (txn(t).after_all)
      for (std::size_t u = 0; u < txns_.size(); ++u)
        if (static_cast<int>(u) != t && !txns_[u].ended) return false;
    const int previous = previous_on_connection_[static_cast<std::size_t>(t)];
    return previous < 0 || txns_[static_cast<std::size_t>(previous)].ended;
  }

  bool any_active() const {
    return std::any_of(txns_.begin(), txns_.end(), [](const TxnState& t) { return t.current >= 0 || !t.pending.empty(); });
  }

  void skip(StepRef ref) {
    h_.outcomes[static_cast<std::size_t>(ref.txn)][static_cast<std::size_t>(ref.index)].status =
        Outcome::Status::Skipped;
    h_.events.push_back(Event{Event::Kind::Skipped, ref});
  }

  // The writer id an instrumentation gave the transaction, set on its connection before its BEGIN (a session variable:
  // no lock, no snapshot). False when that failed (the run ends with the finding).
  bool set_writer(int t) {
    TxnState& s = state(t);
    const int writer = txn(t).writer;
    const std::string set = render_set_writer(writer, driver_.dialect());
    if (set.empty()) return true;
    Outcome o = s.worker->run(set);
    if (!o.ok()) {
      fail_run(RunFinding::Kind::Crash, StepRef{t, 0}, fmt::format("setting the writer failed: {}", summary(o)),
               drivers::fault_of(o.error));
      return false;
    }
    s.worker->writer = writer;
    return true;
  }

  void send(int t, int index) {
    TxnState& s = state(t);
    const Transaction& tx = txn(t);
    if (index == 0 && s.worker->isolation != tx.isolation) {
      // The level is a session setting, sent before BEGIN only when it changes.
      const std::string set = render_set_isolation(tx.isolation, driver_.dialect());
      if (!set.empty()) {
        Outcome o = s.worker->run(set);
        if (!o.ok()) {
          fail_run(RunFinding::Kind::Crash, StepRef{t, index},
                   fmt::format("setting {} failed: {}", sql_name(tx.isolation), summary(o)), drivers::fault_of(o.error));
          return;
        }
      }
      s.worker->isolation = tx.isolation;
    }
    if (index == 0 && tx.writer != 0 && s.worker->writer != tx.writer && !set_writer(t)) return;
    s.current = index;
    s.begun = true;
    s.running = true;
    s.waiting = false;
    s.busy_retry = false;
    s.blockers.reset();
    s.sent_at = Clock::now();
    Statement step = tx.step(static_cast<std::size_t>(index));
    step.chain = step.chain && next_on_connection(t) >= 0;
    // A statement that cannot wait on a lock is only asked about late, in case it hangs.
    s.probe_interval =
        driver_.may_wait(step, tx.isolation) && lock_holders_may_exist(t) ? options_.first_probe_after : kMaxProbeInterval;
    s.next_probe = s.sent_at + s.probe_interval;
    if ((tx.autocommit && step.is_transaction_control()) || (index == 0 && opened_by_chain(t))) {
      // Nothing is sent for BEGIN and the end of an autocommit transaction, nor for a BEGIN that AND CHAIN did.
      s.worker->start("");
      return;
    }
    ++metrics_.statements;
    s.worker->start(render(step, driver_.dialect()));
  }

  // Whether a lock `t`'s next statement asks for may be held by another: some other transaction of the case is open
  // (a transaction not yet begun holds nothing, one that ended released what it held: its COMMIT or ROLLBACK
  // completed, end_transaction), or a cluster's nodes may still be applying writes that committed elsewhere. Nothing
  // else is sent while the statement is undecided (settle), so no holder appears meanwhile. Where none may exist the
  // statement is probed as one that cannot wait: in a serial replay a wait probe after first_probe_after was a
  // quarter of the queries a PostgreSQL WSS case sent (442 of 1,523 in 30 cases), none of which could find a wait
  // (tests/unit/scheduler_probe_test.cpp). A hang is still found: check_hang does not depend on the probe interval.
  bool lock_holders_may_exist(int t) const {
    if (driver_.nodes() > 1) return true;
    for (std::size_t u = 0; u < txns_.size(); ++u)
      if (static_cast<int>(u) != t && txns_[u].begun && !txns_[u].ended) return true;
    return false;
  }

  int next_on_connection(int t) const {
    const auto it = std::find(previous_on_connection_.begin(), previous_on_connection_.end(), t);
    return it == previous_on_connection_.end() ? -1 : static_cast<int>(it - previous_on_connection_.begin());
  }
  // Whether the transaction before `t` on its connection ended by its own COMMIT / ROLLBACK AND CHAIN, which opened
  // `t` (after an abort the runner's plain ROLLBACK closed everything, and `t` sends its BEGIN).
  bool opened_by_chain(int t) const {
    const int before = previous_on_connection_[static_cast<std::size_t>(t)];
    if (before < 0 || !txn(before).chain || txn(before).autocommit) return false;
    const TxnFate fate = h_.transactions[static_cast<std::size_t>(before)].fate;
    return fate == TxnFate::Committed || fate == TxnFate::RolledBack;
  }

  void mark_blocked(int t) {
    TxnState& s = state(t);
    const StepRef ref{t, s.current};
    auto&& flag = h_.was_blocked[static_cast<std::size_t>(t)][static_cast<std::size_t>(s.current)];
    if (!flag) {
      flag = true;
      h_.events.push_back(Event{Event::Kind::Blocked, ref});
      ++metrics_.blocked;
      metrics_.detection_latency_us.push_back(
          std::chrono::duration<double, std::micro>(Clock::now() - s.sent_at).count());
    }
    s.blocked_seq = ++blocked_counter_;
  }

  // Records a finished statement and applies what it did to its transaction.
  void complete(int t, Outcome o) {
    TxnState& s = state(t);
    const int index = s.current;
    const StepRef ref{t, index};
    s.running = false;
    s.waiting = false;
    s.in_cycle = false;
    s.left_wait = false;
    s.woken = false;
    s.held_since.reset();
    if (t == victim_) {
      victim_ = -1;
      // The engine's own error for the cancel (PostgreSQL 57014), classed as what it ended: a deadlock.
      if (o.failed() && o.error.fault == Fault::None) {
        o.error.cls = ErrorClass::Deadlock;
        o.error.message = victim_reason_ + " (" + o.error.message + ")";
      }
    }
    if (o.failed()) {
      const ErrorEffect effect = driver_.effect(o.error);
      if (effect == ErrorEffect::Blocked) {
        s.busy_retry = true;
        mark_blocked(t);
        return;
      }
      // A COMMIT whose outcome is unknown ends the run whatever the driver says it does to the transaction: neither
      // committed nor aborted may be recorded for it.
      if (effect == ErrorEffect::Fatal || o.error.cls == ErrorClass::LostConnection ||
          o.error.cls == ErrorClass::CommitOutcomeUnknown) {
        h_.outcomes[static_cast<std::size_t>(t)][static_cast<std::size_t>(index)] = o;
        h_.events.push_back(Event{Event::Kind::Completed, ref});
        s.worker->broken = true;
        // A COMMIT whose outcome cannot be known ends the run too: no oracle may guess whether it committed.
        fail_run(RunFinding::Kind::Crash, ref,
                 (o.error.cls == ErrorClass::CommitOutcomeUnknown ? "commit outcome unknown: " : "lost connection: ") +
                     o.error.message,
                 o.error.fault != Fault::None ? o.error.fault : Fault::Lost);
        return;
      }
    }
    const bool is_end = txn(t).is_end_step(static_cast<std::size_t>(index));
    // An autocommit statement that fails is rolled back by the engine: its one-statement transaction aborted.
    const bool aborts = o.failed() && (is_end || txn(t).is_autocommit_statement() ||
                                       driver_.effect(o.error) == ErrorEffect::TransactionAborted);
    h_.events.push_back(Event{Event::Kind::Completed, ref});
    TxnResult& r = h_.transactions[static_cast<std::size_t>(t)];
    if (aborts) {
      r.fate = TxnFate::Aborted;
      r.failed_step = ref;
      r.abort_reason = o.error;
    } else if (is_end) {
      r.fate = txn(t).end == TxnEnd::Commit ? TxnFate::Committed : TxnFate::RolledBack;
    }
    h_.outcomes[static_cast<std::size_t>(t)][static_cast<std::size_t>(index)] = std::move(o);
    s.current = -1;
    if (aborts || is_end) {
      r.end_event = static_cast<int>(h_.events.size()) - 1;
      end_transaction(t, aborts);
      return;
    }
    // Its queued steps are sent by settle(), one at a time, once nothing else is undecided.
  }

  void end_transaction(int t, bool aborted) {
    TxnState& s = state(t);
    s.ended = true;
    if (aborted && !txn(t).is_autocommit_statement()) {  // an autocommit statement leaves nothing open
      // Engines differ in what is left of an aborted transaction (PostgreSQL keeps it open in a failed state);
      // ROLLBACK makes the session usable again everywhere and cannot wait on a lock.
      Outcome o = s.worker->run("ROLLBACK");
      if (o.failed() && o.error.cls == ErrorClass::LostConnection) {
        s.worker->broken = true;
        fail_run(RunFinding::Kind::Crash, StepRef{t, -1}, "lost connection during ROLLBACK: " + o.error.message,
                 drivers::fault_of(o.error));
        return;
      }
    }
    for (int index : s.pending) skip(StepRef{t, index});
    s.pending.clear();
    // Locks were released: whatever waited may go on now, so every waiter is asked again, and SQLite statements
    // that got SQLITE_BUSY are sent again, in the order they were blocked.
    std::vector<int> retry;
    for (std::size_t i = 0; i < txns_.size(); ++i) {
      TxnState& o = txns_[i];
      if (o.waiting) {
        o.waiting = false;
        o.woken = true;
        o.in_cycle = false;
        o.blockers.reset();
        o.probe_interval = options_.first_probe_after;
        o.next_probe = Clock::now() + o.probe_interval;
      }
      if (o.busy_retry) retry.push_back(static_cast<int>(i));
    }
    std::sort(retry.begin(), retry.end(), [&](int a, int b) { return state(a).blocked_seq < state(b).blocked_seq; });
    for (int r : retry) resend(r);
  }

  void resend(int t) {
    TxnState& s = state(t);
    s.busy_retry = false;
    s.running = true;
    s.waiting = false;
    s.next_probe = Clock::now() + options_.first_probe_after;
    ++metrics_.statements;
    s.worker->start(render(txn(t).step(static_cast<std::size_t>(s.current)), driver_.dialect()));
  }

  // Takes `t`'s result if it is in; returns whether it was.
  bool take(int t) {
    TxnState& s = state(t);
    if (!s.running) return false;
    std::optional<Outcome> o = s.worker->take();
    if (!o) return false;
    complete(t, std::move(*o));
    return true;
  }

  // Collects finished statements; returns whether any finished. Replies arrive in any order; they are recorded so
  // that the actual order shows every cause before its effect:
  // 1. while the runner ends a deadlock victim (end_cycle), nothing but the victim's error: its abort releases the
  //    others of its cycle;
  // 2. errors before results (a deadlock victim the engine chose releases the statement it blocked);
  // 3. statements that were not waiting, each held while a victim the engine chose may still be on its way
  //    (released_by_unseen_victim);
  // 4. a statement that was waiting, only once nothing else in flight is undecided (whatever released it, a COMMIT
  //    or ROLLBACK in flight or a victim the engine aborted before the runner saw it wait, is then recorded), and held
  //    like those of 3. (InnoDB may abort a victim the runner saw wait, after its request closed the cycle).
  bool harvest() {
    if (victim_ >= 0) return take(victim_);
    bool any = false;
    for (std::size_t i = 0; i < txns_.size() && !h_.finding; ++i)
      if (txns_[i].running && txns_[i].worker->peek_failed() == std::optional<bool>(true))
        any = take(static_cast<int>(i)) || any;
    // A statement the server said waited and no longer does (left_wait), or that waited when another transaction
    // ended (woken), still counts as waiting here: what released it may be a COMMIT whose reply is not in yet (Troc
    // met a FOR UPDATE, and a DELETE, recorded before the COMMIT whose lock they had waited for, 2026-11-27).
    const auto waited = [](const TxnState& s) { return s.waiting || s.left_wait || s.woken; };
    for (std::size_t i = 0; i < txns_.size() && !h_.finding; ++i) {
      const TxnState& s = txns_[i];
      if (!s.running || waited(s) || !s.worker->peek_failed().has_value()) continue;
      if (released_by_unseen_victim(static_cast<int>(i))) continue;
      any = take(static_cast<int>(i)) || any;
    }
    const bool undecided =
        std::any_of(txns_.begin(), txns_.end(), [&](const TxnState& s) { return s.running && !waited(s); });
    if (undecided) return any;
    for (std::size_t i = 0; i < txns_.size() && !h_.finding; ++i) {
      const TxnState& s = txns_[i];
      if (!s.running || !waited(s) || !s.worker->peek_failed().has_value()) continue;
      if (released_by_unseen_victim(static_cast<int>(i))) continue;
      any = take(static_cast<int>(i)) || any;
    }
    return any;
  }

  // Where the engine breaks cycles itself and the probe names no blockers (InnoDB aborts a victim the moment a lock
  // request closes the cycle, so the runner may never see the victim's last wait end): a statement that completed
  // without an error while another was seen waiting may have been released by that one's abort. The server is asked
  // once whether the waiters still wait; one that no longer does has its reply on the way, and `t` is held until it
  // is recorded (bounded by kVictimGrace). A COMMIT or ROLLBACK is never held: its own end may be what released them.
  bool released_by_unseen_victim(int t) {
    TxnState& s = state(t);
    if (txn(t).is_end_step(static_cast<std::size_t>(s.current))) return false;
    auto unseen = [&](const TxnState& o) { return &o != &s && o.running && !o.worker->peek_failed().has_value(); };
    std::vector<int> waiters;
    bool pending = false;
    for (std::size_t i = 0; i < txns_.size(); ++i) {
      const TxnState& o = txns_[i];
      if (!unseen(o)) continue;
      if (o.left_wait) pending = true;
      else if (o.waiting && !o.blockers) waiters.push_back(static_cast<int>(i));
    }
    if (!waiters.empty() && !pending) pending = left_their_wait(waiters);
    if (!pending) return false;
    const auto now = Clock::now();
    if (!s.held_since) s.held_since = now;
    return now - *s.held_since <= kVictimGrace;
  }

  // Asks the server whether `waiters` still wait; marks those that do not (left_wait). Returns whether any did not.
  bool left_their_wait(const std::vector<int>& waiters) {
    std::vector<const drivers::Session*> sessions;
    for (int t : waiters) sessions.push_back(&state(t).worker->session());
    std::vector<drivers::WaitState> states;
    ++metrics_.probes;
    try {
      states = driver_.probe(sessions);
    } catch (const drivers::DriverError&) {
      return false;  // the regular probe meets the same failure and ends the run with it
    }
    bool any = false;
    for (std::size_t k = 0; k < waiters.size(); ++k) {
      if (states[k].waiting) continue;
      TxnState& w = state(waiters[k]);
      w.waiting = false;
      w.left_wait = true;
      any = true;
    }
    return any;
  }

  // A cycle of waits the server's blockers show, on an engine whose rule has the runner end it (PostgreSQL looks for
  // deadlocks only after deadlock_timeout and aborts whichever waiter's timer fires first, which depends on timing):
  // the victim the driver's rule names is cancelled now, and nothing else is recorded or sent until its error is in.
  // Nothing else can end a wait in the cycle meanwhile (the engine's own check comes only after deadlock_timeout), so
  // the cancel meets the waiting statement, on every run.
  void end_cycle() {
    if (victim_ >= 0) return;
    std::vector<drivers::CycleMember> cycle;
    std::string names;
    for (std::size_t i = 0; i < txns_.size(); ++i)
      if (txns_[i].in_cycle && txns_[i].running && txns_[i].waiting) {
        cycle.push_back(member(static_cast<int>(i)));
        names += fmt::format("{}T{}", names.empty() ? "" : ", ", i);
      }
    if (cycle.empty()) return;
    const int chosen = driver_.deadlock_victim(cycle);
    if (chosen < 0) return;
    victim_ = cycle[static_cast<std::size_t>(chosen)].txn;
    victim_since_ = Clock::now();
    victim_reason_ = fmt::format("deadlock among {}: txprop ended T{}, the victim the engine's rule names "
                                 "(Driver::deadlock_victim)", names, victim_);
    driver_.cancel(state(victim_).worker->session());
  }

  // Marks the transactions on a cycle of waits among the blockers the server reported.
  void mark_cycles() {
    for (std::size_t start = 0; start < txns_.size(); ++start) {
      TxnState& first = txns_[start];
      if (!first.waiting || !first.blockers) continue;
      std::vector<int> stack{static_cast<int>(start)};
      std::vector<bool> seen(txns_.size(), false);
      while (!stack.empty() && !first.in_cycle) {
        const int v = stack.back();
        stack.pop_back();
        const TxnState& s = txns_[static_cast<std::size_t>(v)];
        if (!s.waiting || !s.blockers) continue;
        for (int w : *s.blockers) {
          if (w == static_cast<int>(start)) first.in_cycle = true;
          if (!seen[static_cast<std::size_t>(w)]) {
            seen[static_cast<std::size_t>(w)] = true;
            stack.push_back(w);
          }
        }
      }
    }
  }

  // Asks the server about the running statements whose probe is due (and, for blockers, about all running ones).
  void probe_running() {
    const auto now = Clock::now();
    const bool due = std::any_of(txns_.begin(), txns_.end(), [&](const TxnState& s) {
      return s.running && !s.waiting && now >= s.next_probe;
    });
    if (!due) return;
    // Ask about every running statement at once: blockers are only meaningful among them.
    std::vector<int> all;
    std::vector<const drivers::Session*> sessions;
    for (std::size_t i = 0; i < txns_.size(); ++i)
      if (txns_[i].running) {
        all.push_back(static_cast<int>(i));
        sessions.push_back(&txns_[i].worker->session());
      }
    ++metrics_.probes;
    std::vector<drivers::WaitState> states;
    try {
      states = driver_.probe(sessions);
    } catch (const drivers::DriverError& e) {
      // The control connection did not answer in time (a stalled server) or was lost (a server gone).
      const bool slow = e.fault() == Fault::Stalled;
      control_lost_ = true;
      fail_run(slow ? RunFinding::Kind::Hang : RunFinding::Kind::Crash, StepRef{all[0], state(all[0]).current},
               fmt::format("the wait probe failed{}: {}", slow ? " (the server did not answer in time)" : "", e.what()),
               e.fault());
      return;
    }
    const auto after = Clock::now();
    for (std::size_t k = 0; k < all.size(); ++k) {
      TxnState& s = state(all[k]);
      if (!s.running) continue;
      if (states[k].waiting) {
        s.left_wait = false;  // waits again (on another lock): nothing is on its way
        if (!s.waiting) {
          s.waiting = true;
          mark_blocked(all[k]);
        }
        if (states[k].blockers) {
          std::vector<int> b;
          for (int j : *states[k].blockers) b.push_back(all[static_cast<std::size_t>(j)]);
          s.blockers = std::move(b);
        }
      } else if (!s.waiting) {
        s.probe_interval = std::min<std::chrono::microseconds>(s.probe_interval * 2, kMaxProbeInterval);
        s.next_probe = after + s.probe_interval;
      }
    }
    mark_cycles();
    end_cycle();
  }

  // A cycle among waiting transactions whose blockers the server reported: the engine will abort one of them
  // (PostgreSQL after deadlock_timeout), so nothing may be submitted until it has.
  bool known_deadlock() const {
    for (std::size_t start = 0; start < txns_.size(); ++start) {
      std::vector<int> stack{static_cast<int>(start)};
      std::vector<bool> seen(txns_.size(), false);
      while (!stack.empty()) {
        const int v = stack.back();
        stack.pop_back();
        const TxnState& s = txns_[static_cast<std::size_t>(v)];
        if (!s.waiting || !s.blockers) continue;
        for (int w : *s.blockers) {
          if (w == static_cast<int>(start)) return true;
          if (!seen[static_cast<std::size_t>(w)]) {
            seen[static_cast<std::size_t>(w)] = true;
            stack.push_back(w);
          }
        }
      }
    }
    return false;
  }

  // The cycle as the driver's deadlock rule sees it.
  drivers::CycleMember member(int t) const {
    const TxnState& s = txns_[static_cast<std::size_t>(t)];
    drivers::CycleMember m;
    m.txn = t;
    m.began_at = position_[static_cast<std::size_t>(t)][0];
    m.committing = s.current >= 0 && txn(t).is_end_step(static_cast<std::size_t>(s.current));
    m.blocked_seq = s.blocked_seq;
    return m;
  }

  // Where waits are errors (SQLite), the engine never breaks a cycle of them: when every unfinished transaction is
  // busy, the driver's rule (Driver::deadlock_victim) names the one that rolls back.
  bool break_busy_cycle() {
    std::vector<drivers::CycleMember> cycle;
    for (std::size_t i = 0; i < txns_.size(); ++i) {
      const TxnState& s = txns_[i];
      if (s.current < 0) continue;
      if (!s.busy_retry) return false;
      cycle.push_back(member(static_cast<int>(i)));
    }
    const int chosen = cycle.empty() ? -1 : driver_.deadlock_victim(cycle);
    if (chosen < 0) return false;
    const int victim = cycle[static_cast<std::size_t>(chosen)].txn;
    TxnState& s = state(victim);
    s.busy_retry = false;
    s.running = false;
    complete(victim, Outcome::failure(ErrorClass::Deadlock, "SQLITE_BUSY",
                                      "every unfinished transaction waits on SQLITE_BUSY; txprop rolls back the one "
                                      "the engine's rule names (Driver::deadlock_victim)"));
    return true;
  }

  // Returns once every sent statement has completed or is known to wait (and, with `drain`, once nothing is left
  // in flight). Waiting never decides blocking; only the hang limit ends a wait without the server's answer.
  void settle(bool drain) {
    // Since when everything in flight has been waiting (max: not all waiting).
    Clock::time_point all_waiting_since = Clock::time_point::max();
    for (;;) {
      if (h_.finding) return;
      const std::uint64_t gen = signal_.generation();
      if (harvest()) {
        all_waiting_since = Clock::time_point::max();
        continue;
      }
      const auto now = Clock::now();
      bool undecided = false;  // something runs and the server has not said it waits
      int waiters = 0;
      bool waiters_unexplained = false;
      for (const TxnState& s : txns_) {
        if (s.running && !s.waiting) undecided = true;
        if (s.running && s.waiting) {
          ++waiters;
          if (!s.blockers) waiters_unexplained = true;
        }
      }
      if (victim_ >= 0) {  // the runner ended a deadlock victim: wait for its error, dispatch nothing
        if (now - victim_since_ > options_.hang_limit) {
          hang_all_waiting();
          return;
        }
        signal_.wait_for(gen, std::chrono::milliseconds(5));
        continue;
      }
      if (!undecided && dispatch_queued()) {
        all_waiting_since = Clock::time_point::max();
        continue;
      }
      if (!undecided) {
        if (driver_.waits_are_errors() && std::none_of(txns_.begin(), txns_.end(), [](const TxnState& s) {
              return s.running;
            })) {
          if (drain && any_active()) {
            if (!break_busy_cycle()) return;
            continue;
          }
          return;
        }
        const bool must_wait = drain ? any_active() : known_deadlock();
        if (!must_wait) {
          if (waiters >= 2 && waiters_unexplained) {
            all_waiting_since = std::min(all_waiting_since, now);
            if (now - all_waiting_since < kSettleGrace) {
              signal_.wait_for(gen, kSettleGrace - (now - all_waiting_since));
              continue;
            }
          }
          return;
        }
        // Waiting for the engine to break a deadlock; bounded by the hang limit.
        all_waiting_since = std::min(all_waiting_since, now);
        if (now - all_waiting_since > options_.hang_limit) {
          hang_all_waiting();
          return;
        }
        signal_.wait_for(gen, std::chrono::milliseconds(5));
        continue;
      }
      // Something runs: wait for a completion until the earliest probe is due, then probe.
      Clock::time_point due = Clock::time_point::max();
      for (const TxnState& s : txns_)
        if (s.running && !s.waiting) due = std::min(due, s.next_probe);
      if (due > now && signal_.wait_for(gen, due - now)) continue;
      if (harvest()) continue;
      probe_running();
      check_hang();
    }
  }

  // With nothing undecided, sends the queued step that was submitted earliest among idle transactions, so that
  // queued steps run one at a time in submitted order (two resumed transactions' next statements never race).
  bool dispatch_queued() {
    int best = -1;
    for (std::size_t i = 0; i < txns_.size(); ++i) {
      const TxnState& s = txns_[i];
      if (s.ended || s.current >= 0 || s.pending.empty() || !connection_free(static_cast<int>(i))) continue;
      if (best < 0 || position_[i][static_cast<std::size_t>(s.pending.front())] <
                          position_[static_cast<std::size_t>(best)][static_cast<std::size_t>(state(best).pending.front())])
        best = static_cast<int>(i);
    }
    if (best < 0) return false;
    TxnState& s = state(best);
    const int next = s.pending.front();
    s.pending.pop_front();
    send(best, next);
    return true;
  }

  void check_hang() {
    const auto now = Clock::now();
    for (std::size_t i = 0; i < txns_.size(); ++i) {
      TxnState& s = txns_[i];
      if (s.running && !s.waiting && now - s.sent_at > options_.hang_limit) {
        fail_run(RunFinding::Kind::Hang, StepRef{static_cast<int>(i), s.current},
                 fmt::format("statement neither completed nor waited on a lock for {} ms",
                             options_.hang_limit.count()));
        return;
      }
    }
  }

  void hang_all_waiting() {
    for (std::size_t i = 0; i < txns_.size(); ++i)
      if (txns_[i].running) {
        fail_run(RunFinding::Kind::Hang, StepRef{static_cast<int>(i), txns_[i].current},
                 fmt::format("every unfinished transaction waited on a lock for {} ms and the engine broke no "
                             "cycle (undetected deadlock)",
                             options_.hang_limit.count()));
        return;
      }
  }

  void fail_run(RunFinding::Kind kind, StepRef ref, std::string detail, Fault fault = Fault::None) {
    if (h_.finding) return;
    h_.finding = RunFinding{kind, ref, std::move(detail), fault};
    if (kind == RunFinding::Kind::Hang && ref.index >= 0)
      h_.outcomes[static_cast<std::size_t>(ref.txn)][static_cast<std::size_t>(ref.index)] =
          Outcome{Outcome::Status::Hang, {}, {}, -1, Error{ErrorClass::Canceled, "", h_.finding->detail}};
  }

  // Leaves every session idle and outside any transaction, whatever happened.
  void cleanup() {
    for (TxnState& s : txns_) {
      if (s.running) {
        // Without a control connection (it did not answer) nothing can be cancelled: abandon at once.
        if (control_lost_) s.worker->abandon(std::chrono::milliseconds(1000));
        if (!s.worker->broken) driver_.cancel(s.worker->session());
        // The statement returns once cancelled (or once its blocker rolls back below); a session that does not
        // (a stalled server, a stuck client call) is abandoned: its connection is shut down, never waited on forever.
        const auto grace = std::min<Clock::duration>(options_.hang_limit, std::chrono::seconds(2));
        const auto deadline = Clock::now() + grace;
        while (s.worker->busy() && Clock::now() < deadline) {
          const auto gen = signal_.generation();
          if (!s.worker->busy()) break;
          signal_.wait_for(gen, std::chrono::milliseconds(10));
        }
        if (s.worker->busy()) s.worker->abandon(std::chrono::milliseconds(1000));
        s.worker->take();
        s.running = false;
      }
    }
    for (std::size_t i = 0; i < txns_.size(); ++i) {
      TxnState& s = txns_[i];
      for (int index : s.pending) skip(StepRef{static_cast<int>(i), index});
      s.pending.clear();
      if (s.begun && !s.ended) {
        if (control_lost_) {
          s.worker->abandon(std::chrono::milliseconds(100));  // the server does not answer: no ROLLBACK to wait for
        } else if (!s.worker->busy() && !s.worker->broken) {
          Outcome o = s.worker->run("ROLLBACK");
          if (o.failed() && o.error.cls == ErrorClass::LostConnection) s.worker->broken = true;
        } else {
          s.worker->broken = true;  // still stuck: the target replaces this session
        }
      }
    }
  }

  const TestCase& c_;
  drivers::Driver& driver_;
  CompletionSignal& signal_;
  const RunOptions& options_;
  RunMetrics& metrics_;
  std::vector<TxnState> txns_;
  std::uint64_t blocked_counter_ = 0;
  int victim_ = -1;  // the deadlock victim the runner cancelled, until its reply is recorded
  Clock::time_point victim_since_;
  std::string victim_reason_;
  bool control_lost_ = false;  // a wait probe failed: the server does not answer
  std::vector<std::vector<int>> position_;  // [txn][step]: index in the submitted order
  std::vector<int> previous_on_connection_;  // [txn]: the transaction before it on its connection, -1 if none
  History h_;
};

}  // namespace

History schedule(const TestCase& c, drivers::Driver& driver, const std::vector<SessionWorker*>& workers,
                 CompletionSignal& signal, const RunOptions& options, RunMetrics& metrics) {
  return Scheduler(c, driver, workers, signal, options, metrics).run();
}

}  // namespace txprop::runner
