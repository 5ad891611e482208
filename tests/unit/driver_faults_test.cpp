// Typed infrastructure faults and error classes, decided by each driver from its native codes (issue 20, item 3):
// SQLSTATEs and libpq's connection status (PostgreSQL), client errno (MariaDB/MySQL), and the drivers' deadlock rules
// (Driver::deadlock_victim). Server-free: the classifications are the drivers' own functions, and the connect faults
// are met for real on loopback (a port nobody listens on; a socket that accepts and never answers).
#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <string>

#include <fmt/format.h>

#include "engines/mariadb/mariadb_driver.hpp"
#include "engines/postgresql/postgresql_driver.hpp"
#include "engines/session_errors.hpp"
#include "engines/sqlite/sqlite_driver.hpp"
#include "txprop/target.hpp"

using namespace txprop;
using namespace txprop::drivers;

namespace {

TEST(DriverFaults, PostgresqlSqlstates) {
  EXPECT_EQ(classify_sqlstate("40001"), ErrorClass::SerializationFailure);
  EXPECT_EQ(classify_sqlstate("40P01"), ErrorClass::Deadlock);
  // libpqxx 6 throws these as classes without sqlstate(): the driver names their codes and classifies them here.
  EXPECT_EQ(classify_sqlstate("40003"), ErrorClass::CommitOutcomeUnknown);
  EXPECT_EQ(classify_sqlstate("40000"), ErrorClass::SerializationFailure);
  EXPECT_EQ(classify_sqlstate("40002"), ErrorClass::ConstraintViolation);
  EXPECT_EQ(classify_sqlstate("08006"), ErrorClass::LostConnection);
  EXPECT_EQ(classify_sqlstate("57P01"), ErrorClass::LostConnection);
  EXPECT_EQ(classify_sqlstate("23505"), ErrorClass::ConstraintViolation);
  EXPECT_EQ(fault_of_sqlstate("08006"), Fault::Lost);
  EXPECT_EQ(fault_of_sqlstate("08001"), Fault::Lost);
  EXPECT_EQ(fault_of_sqlstate("57P01"), Fault::Lost);  // admin_shutdown: pg_terminate_backend
  EXPECT_EQ(fault_of_sqlstate("40003"), Fault::Lost);
  EXPECT_EQ(fault_of_sqlstate("40001"), Fault::None);
  EXPECT_EQ(fault_of_sqlstate("57014"), Fault::None);  // query_canceled: the server answered
  EXPECT_EQ(fault_of_sqlstate("42P01"), Fault::None);
}

TEST(DriverFaults, MariadbErrnos) {
  EXPECT_EQ(classify_errno(1213), ErrorClass::Deadlock);
  EXPECT_EQ(classify_errno(1020), ErrorClass::SnapshotConflict);
  EXPECT_EQ(classify_errno(2006), ErrorClass::LostConnection);
  EXPECT_EQ(classify_errno(2013), ErrorClass::LostConnection);
  EXPECT_EQ(fault_of_errno(2006, false), Fault::Lost);
  EXPECT_EQ(fault_of_errno(2013, false), Fault::Lost);
  EXPECT_EQ(fault_of_errno(1927, false), Fault::Lost);   // ER_CONNECTION_KILLED
  EXPECT_EQ(fault_of_errno(2013, true), Fault::Stalled);  // the read timeout of a control call ran out
  EXPECT_EQ(fault_of_errno(2003, false), Fault::Unreachable);
  EXPECT_EQ(fault_of_errno(1213, false), Fault::None);
  EXPECT_EQ(fault_of_errno(1062, true), Fault::None);
  EXPECT_EQ(connect_fault(2013, false), Fault::Stalled);  // lost at the handshake: accepted, never answered
  EXPECT_EQ(connect_fault(2003, false), Fault::Unreachable);
  EXPECT_EQ(connect_fault(2002, false), Fault::Unreachable);
  EXPECT_EQ(connect_fault(1045, false), Fault::Unreachable);  // access denied
  EXPECT_EQ(connect_fault(2003, true), Fault::Stalled);
}

TEST(DriverFaults, LostCommitIsOutcomeUnknown) {
  Outcome lost = Outcome::failure(ErrorClass::LostConnection, "2013", "lost");
  lost.error.fault = Fault::Lost;
  EXPECT_EQ(commit_outcome("COMMIT", lost).error.cls, ErrorClass::CommitOutcomeUnknown);
  EXPECT_EQ(commit_outcome("  commit;", lost).error.cls, ErrorClass::CommitOutcomeUnknown);
  EXPECT_EQ(commit_outcome("UPDATE t SET v = 1", lost).error.cls, ErrorClass::LostConnection);
  EXPECT_EQ(commit_outcome("COMMITTED_READS", lost).error.cls, ErrorClass::LostConnection);
  const Outcome deadlock = Outcome::failure(ErrorClass::Deadlock, "1213", "deadlock");
  EXPECT_EQ(commit_outcome("COMMIT", deadlock).error.cls, ErrorClass::Deadlock);
  EXPECT_TRUE(commit_outcome("COMMIT", Outcome{}).ok());
}

TEST(DriverFaults, FaultOfAnError) {
  Error e{ErrorClass::LostConnection, "", "no answer", Fault::Stalled};
  EXPECT_EQ(fault_of(e), Fault::Stalled);
  EXPECT_EQ(fault_of(Error{ErrorClass::InvalidStatement, "42601", "syntax", Fault::None}), Fault::Rejected);
}

CycleMember member(int txn, int began_at, bool committing, std::uint64_t blocked_seq) {
  CycleMember m;
  m.txn = txn;
  m.began_at = began_at;
  m.committing = committing;
  m.blocked_seq = blocked_seq;
  return m;
}

TEST(DriverFaults, DeadlockRules) {
  // PostgreSQL: the youngest member (first step submitted last), whatever the order the cycle is listed in.
  EXPECT_EQ(pg_deadlock_victim({member(0, 0, false, 2), member(1, 1, false, 1)}), 1);
  EXPECT_EQ(pg_deadlock_victim({member(2, 5, false, 1), member(0, 0, false, 3), member(1, 1, false, 2)}), 0);
  // SQLite: a writer gives way to a committer; among equals, the one blocked last.
  EXPECT_EQ(sqlite_deadlock_victim({member(0, 0, true, 5), member(1, 1, false, 1)}), 1);
  EXPECT_EQ(sqlite_deadlock_victim({member(0, 0, false, 5), member(1, 1, false, 1)}), 0);
  EXPECT_EQ(sqlite_deadlock_victim({member(0, 0, true, 1), member(1, 1, true, 2)}), 1);
}

// A loopback port that accepts TCP connections (the kernel's backlog) but never answers: a stalled server.
class SilentListener {
 public:
  SilentListener() {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = 0;
    socklen_t len = sizeof a;
    if (::bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || ::listen(fd_, 8) != 0 ||
        ::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len) != 0)
      port_ = -1;
    else
      port_ = ntohs(a.sin_port);
  }
  ~SilentListener() { ::close(fd_); }
  int port() const { return port_; }

 private:
  int fd_ = -1;
  int port_ = -1;
};

// A port nothing listens on: bind one, note it, close it.
int closed_port() {
  SilentListener l;
  return l.port();
}

Fault open_fault(const std::string& uri) {
  try {
    Target::open(parse_target_uri(uri));
  } catch (const TargetError& e) {
    return e.fault();
  }
  return Fault::None;
}

// The connect timeouts follow the hang limit: 1 s for the client library of MariaDB, libpq's minimum 2 s.
class ShortHangLimit {
 public:
  ShortHangLimit() {
    if (const char* v = std::getenv("TXPROP_HANG_LIMIT_MS")) saved_ = v;
    ::setenv("TXPROP_HANG_LIMIT_MS", "1000", 1);
  }
  ~ShortHangLimit() {
    if (saved_.empty()) ::unsetenv("TXPROP_HANG_LIMIT_MS");
    else ::setenv("TXPROP_HANG_LIMIT_MS", saved_.c_str(), 1);
  }

 private:
  std::string saved_;
};

TEST(DriverFaults, RefusedConnectIsUnreachable) {
  const int port = closed_port();
  ASSERT_GT(port, 0);
  EXPECT_EQ(open_fault(fmt::format("postgresql://postgres@127.0.0.1:{}/txtest", port)), Fault::Unreachable);
  EXPECT_EQ(open_fault(fmt::format("mariadb://txtest:pw@127.0.0.1:{}/txtest", port)), Fault::Unreachable);
}

TEST(DriverFaults, UnansweredConnectIsStalled) {
  ShortHangLimit limit;
  SilentListener silent;
  ASSERT_GT(silent.port(), 0);
  EXPECT_EQ(open_fault(fmt::format("postgresql://postgres@127.0.0.1:{}/txtest", silent.port())), Fault::Stalled);
  EXPECT_EQ(open_fault(fmt::format("mariadb://txtest:pw@127.0.0.1:{}/txtest", silent.port())), Fault::Stalled);
}

}  // namespace
