// Target URIs: what is accepted, and one clear line for everything that is not.
#include <gtest/gtest.h>

#include "txprop/engine.hpp"
#include "txprop/target_config.hpp"

using namespace txprop;

namespace {
std::string error_of(const std::string& uri) {
  try {
    parse_target_uri(uri);
  } catch (const TargetError& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST(TargetConfig, ParsesEachEngine) {
  const TargetConfig pg = parse_target_uri("postgresql://postgres@127.0.0.1:54329/txtest?levels=rr,ser");
  EXPECT_EQ(pg.profile().name(), "postgresql");
  EXPECT_EQ(pg.host, "127.0.0.1");
  EXPECT_EQ(pg.port, 54329);
  EXPECT_EQ(pg.database, "txtest");
  EXPECT_EQ(pg.levels, (std::vector<IsolationLevel>{IsolationLevel::RepeatableRead, IsolationLevel::Serializable}));
  EXPECT_EQ(pg.name, "postgresql");

  const TargetConfig m = parse_target_uri("mariadb://txtest:s%40cret@db.local/txtest?innodb_snapshot_isolation=ON");
  EXPECT_EQ(m.profile().name(), "mariadb");
  EXPECT_EQ(m.password, "s@cret");
  EXPECT_EQ(m.port, 3306);
  EXPECT_EQ(m.name, "mariadb_si");
  EXPECT_EQ(m.levels.size(), 4u);
  EXPECT_EQ(m.masked_uri(), "mariadb://txtest:***@db.local/txtest?innodb_snapshot_isolation=ON");

  const TargetConfig s = parse_target_uri("sqlite:");
  EXPECT_EQ(s.profile().name(), "sqlite");
  EXPECT_EQ(s.levels, (std::vector<IsolationLevel>{IsolationLevel::Serializable}));
}

TEST(TargetConfig, RejectsBadInputWithOneClearLine) {
  EXPECT_EQ(error_of("oracle://scott:tiger@host/db"),
            "txprop: target oracle://scott:***@host/db: unknown scheme 'oracle' (known: sqlite, postgresql, postgres, "
            "mariadb, mysql, galera)");
  EXPECT_EQ(error_of("sqlite:?levels=rc"),
            "txprop: target sqlite:?levels=rc: isolation level READ COMMITTED is not supported by sqlite (supported: "
            "SERIALIZABLE)");
  EXPECT_EQ(error_of("postgresql://u@h/db?levels=snapshot"),
            "txprop: target postgresql://u@h/db?levels=snapshot: unknown isolation level 'snapshot' (use ru, rc, rr, "
            "ser)");
  EXPECT_EQ(error_of("postgresql://u@h/db?levels=ru"),
            "txprop: target postgresql://u@h/db?levels=ru: isolation level READ UNCOMMITTED is not supported by "
            "postgresql (supported: READ COMMITTED, REPEATABLE READ, SERIALIZABLE)");
  EXPECT_EQ(error_of("mariadb://u:pw@h:99999/db"), "txprop: target mariadb://u:***@h:99999/db: bad port '99999'");
  EXPECT_EQ(error_of("mariadb://u@h"), "txprop: target mariadb://u@h: no database name (…/database)");
  EXPECT_EQ(error_of("mariadb://h/db"), "txprop: target mariadb://h/db: no user (user@host)");
  EXPECT_EQ(error_of("mariadb://u@h/db?snapshot=ON"),
            "txprop: target mariadb://u@h/db?snapshot=***: unknown parameter 'snapshot' for mariadb (known: "
            "innodb_snapshot_isolation, levels, name)");
  EXPECT_EQ(error_of("postgres"), "txprop: target postgres: not a URI (expected scheme:..., e.g. postgresql://user@host/db)");
  for (const std::string bad : {"", "x://", "mysql://u@h/db?name=a-b"})
    EXPECT_NE(error_of(bad), "") << bad;
}

// A Galera cluster: one host per node, typed wsrep_sync_wait; other engines take one host.
TEST(TargetConfig, GaleraListsItsNodes) {
  const TargetConfig g = parse_target_uri("galera://txtest:pw@127.0.0.1:3307,127.0.0.1:3308,h3/txtest?wsrep_sync_wait=1");
  EXPECT_EQ(g.profile().name(), "galera");
  EXPECT_EQ(g.hosts, (std::vector<std::pair<std::string, int>>{{"127.0.0.1", 3307}, {"127.0.0.1", 3308}, {"h3", 3306}}));
  EXPECT_EQ(g.host, "127.0.0.1");
  EXPECT_EQ(g.port, 3307);
  EXPECT_EQ(g.param("wsrep_sync_wait"), "1");
  EXPECT_EQ(g.profile().configuration(g), "innodb_snapshot_isolation=OFF wsrep_sync_wait=1");
  EXPECT_EQ(g.masked_uri(), "galera://txtest:***@127.0.0.1:3307,127.0.0.1:3308,h3/txtest?wsrep_sync_wait=1");
  EXPECT_EQ(parse_target_uri("mariadb://u@h:1/db").hosts, (std::vector<std::pair<std::string, int>>{{"h", 1}}));
  EXPECT_EQ(error_of("galera://u:pw@h1:1,h2:2/db?wsrep_sync_wait=16"),
            "txprop: target galera://u:***@h1:1,h2:2/db?wsrep_sync_wait=16: wsrep_sync_wait must be one of 0, 1, 2, 3, "
            "4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15 (per session: a bitmask 0-15 of the statements that wait for the "
            "node to apply what the cluster committed before them (1 = reads and BEGIN))");
  EXPECT_EQ(error_of("galera://u:pw@h1:1,:2/db"), "txprop: target galera://u:***@h1:1,:2/db: no host");
  EXPECT_EQ(error_of("galera://u:pw@h1:1,h2:x/db"), "txprop: target galera://u:***@h1:1,h2:x/db: bad port (not a number from 1 to 65535)");
  EXPECT_EQ(error_of("mariadb://u:pw@h1:1,h2:2/db"),
            "txprop: target mariadb://u:***@h1:1,h2:2/db: mariadb takes one host, not a list");
}

TEST(TargetConfig, ListGivesDistinctNamesAndDefaultsToSqlite) {
  const auto list = parse_target_list("  sqlite:\n  mariadb://u@h/a mariadb://u@h/b  ");
  ASSERT_EQ(list.size(), 3u);
  EXPECT_EQ(list[1].name, "mariadb");
  EXPECT_EQ(list[2].name, "mariadb_2");
  EXPECT_TRUE(parse_target_list(" \n ").empty());
}

TEST(TargetConfig, BehaviourSettingsAreParsedOnce) {
  const TargetConfig off = parse_target_uri("mariadb://u@h/db?innodb_snapshot_isolation=OFF");
  ASSERT_TRUE(off.flag("innodb_snapshot_isolation").has_value());
  EXPECT_FALSE(*off.flag("innodb_snapshot_isolation"));
  EXPECT_EQ(off.name, "mariadb");
  EXPECT_TRUE(*parse_target_uri("mariadb://u@h/db?innodb_snapshot_isolation=On").flag("innodb_snapshot_isolation"));
  EXPECT_TRUE(*parse_target_uri("mariadb://u@h/db?innodb_snapshot_isolation=1").flag("innodb_snapshot_isolation"));
  EXPECT_NE(error_of("mysql://u@h/db?innodb_snapshot_isolation=1"), "") << "MySQL has no such variable";
  EXPECT_FALSE(parse_target_uri("mariadb://u@h/db").flag("innodb_snapshot_isolation").has_value());
  const TargetConfig journal = parse_target_uri("sqlite:?journal_mode=DELETE");
  EXPECT_EQ(journal.param("journal_mode"), "delete");
  EXPECT_EQ(journal.name, "sqlite_journal");
  EXPECT_EQ(journal.profile().configuration(journal), "journal_mode=delete");
  EXPECT_EQ(parse_target_uri("sqlite:").param("journal_mode"), "");
}

// URI parameters are typed: a value that is not of the parameter's type is rejected with one line, and what reaches
// the engine is the canonical value, never the text of the URI.
TEST(TargetConfig, ParametersAreTypedAndValidated) {
  EXPECT_EQ(parse_target_uri("postgresql://u@h/db?deadlock_timeout=50ms").param("deadlock_timeout"), "50");
  EXPECT_EQ(parse_target_uri("postgresql://u@h/db?deadlock_timeout=50").param("deadlock_timeout"), "50");
  EXPECT_TRUE(error_of("postgresql://u@h/db?deadlock_timeout=20ms';CREATE%20TABLE%20x(a%20int)")
                  .starts_with("txprop: target postgresql://u@h/db?deadlock_timeout=20ms';CREATE%20TABLE%20x(a%20int): "
                               "deadlock_timeout must be a number of milliseconds from 1 to 60000"));
  EXPECT_EQ(parse_target_uri("postgresql://u@h/db?deadlock_timeout=2s").param("deadlock_timeout"), "2000");
  EXPECT_NE(error_of("postgresql://u@h/db?deadlock_timeout=0"), "");
  EXPECT_NE(error_of("mariadb://u@h/db?innodb_snapshot_isolation=maybe"), "");
  EXPECT_NE(error_of("sqlite:?journal_mode=memory"), "");
}

// Hostile URIs (issue 10): the password never shows, whatever the URI looks like.
TEST(TargetConfig, MasksThePasswordOfEveryMalformedUri) {
  const std::vector<std::string> uris = {
      "postgresql:postgres:s3cretPW@127.0.0.1/db",      // missing //
      "postgresql//postgres:s3cretPW@127.0.0.1/db",     // missing :
      "postgresq://postgres:s3cretPW@127.0.0.1/db",     // mistyped scheme
      "postgresql:/postgres:s3cretPW@127.0.0.1/db",     // one slash
      "postgresql://postgres:s3cret/PW@127.0.0.1/db",   // '/' in the password
      "postgresql://postgres:s3cret?PW@127.0.0.1/db",   // '?' in the password
      "postgresql://postgres:s3cret@PW@127.0.0.1/db",   // '@' in the password
      "mariadb://txtest:s3cret/PW@127.0.0.1:x/db?levels=rc",
  };
  for (const auto& uri : uris) {
    const std::string e = error_of(uri);
    EXPECT_EQ(e.find("s3cret"), std::string::npos) << e;
    EXPECT_EQ(e.find("PW"), std::string::npos) << e;
  }
  for (const std::string list : {"postgresql://postgres:s3cret PW@127.0.0.1/db", "sqlite: mariadb://u:s3cret PW@h/db"}) {
    std::string e;
    try {
      parse_target_list(list);
    } catch (const TargetError& err) {
      e = err.what();
    }
    EXPECT_NE(e, "");
    EXPECT_EQ(e.find("s3cret"), std::string::npos) << e;
    EXPECT_EQ(e.find("PW"), std::string::npos) << e;
  }
}

// A password given as a parameter (issue 23): accepted by the servers' engines (as libpq and JDBC users write it),
// rejected by SQLite, masked in every message, never kept among the parameters.
TEST(TargetConfig, PasswordParameterIsAcceptedAndMasked) {
  const TargetConfig pg = parse_target_uri("postgresql://u@h/db?password=s3cret%26PW&levels=ser");
  EXPECT_EQ(pg.password, "s3cret&PW");
  EXPECT_EQ(pg.params.count("password"), 0u);
  EXPECT_EQ(pg.masked_uri(), "postgresql://u@h/db?password=***&levels=ser");
  EXPECT_EQ(parse_target_uri("mariadb://u@h/db?passwd=s3cretPW").password, "s3cretPW");
  EXPECT_EQ(error_of("sqlite:?password=s3cretPW"), "txprop: target sqlite:?password=***: sqlite takes no password (password=***)");
  EXPECT_EQ(error_of("mariadb://u:s3cretPW@h/db?passwd=s3cretPW"),
            "txprop: target mariadb://u:***@h/db?passwd=***: the password is given twice (in user:password@ and as passwd=)");
  for (const std::string uri : {"mariadb://u@h/db?pasword=s3cretPW", "mariadb://u@h/db?s3cretPW",
                                "postgresql://u@h:x/db?password=s3cretPW", "mariadb://u@h/db?levels=ser,ser&password=s3cretPW"}) {
    const std::string e = error_of(uri);
    EXPECT_NE(e, "") << uri;
    EXPECT_EQ(e.find("s3cret"), std::string::npos) << e;
  }
  EXPECT_EQ(masked_uri("mariadb://u:a@b@h/db?levels=ser&innodb_snapshot_isolation=on&name=x&token=t"),
            "mariadb://u:***@h/db?levels=ser&innodb_snapshot_isolation=on&name=x&token=***");
}

TEST(TargetConfig, RejectsDuplicateAndEmptyParameters) {
  EXPECT_NE(error_of("sqlite:?levels=ser,ser").find("listed twice"), std::string::npos);
  EXPECT_NE(error_of("postgresql://u@h/db?levels=ser,serializable").find("listed twice"), std::string::npos);
  EXPECT_NE(error_of("postgresql://u@h/db?levels=ser&levels=rc").find("given twice"), std::string::npos);
  EXPECT_NE(error_of("postgresql://u@h/db?levels=").find("empty value"), std::string::npos);
  EXPECT_NE(error_of("postgresql://u@h/db?levels=rc,,ser").find("empty item"), std::string::npos);
  EXPECT_NE(error_of("postgresql://u@h/db?deadlock_timeout=1';DROP").find("deadlock_timeout"), std::string::npos);
  EXPECT_EQ(error_of("postgresql://u@h/db?deadlock_timeout=20ms"), "");
  EXPECT_EQ(error_of("postgresql://u:p%2Fw@h/db"), "");
}

// MySQL runs on the MariaDB driver with a profile nobody could check against a MySQL server here: a user who
// configures it is told so, once per process, however often the targets are read.
TEST(TargetConfig, UntestedMysqlProfileIsSaidOnce) {
  const char* before = std::getenv("TXPROP_TARGETS");
  const std::string saved = before ? before : "";
  setenv("TXPROP_TARGETS", "mysql://u:secret@h/db mysql://u@h/other", 1);
  testing::internal::CaptureStderr();
  configured_targets();
  configured_targets();
  const std::string err = testing::internal::GetCapturedStderr();
  if (before) setenv("TXPROP_TARGETS", saved.c_str(), 1);
  else unsetenv("TXPROP_TARGETS");
  EXPECT_NE(err.find("txprop: note: mysql://u:***@h/db: the MySQL profile"), std::string::npos) << err;
  EXPECT_EQ(err.find("the MySQL profile"), err.rfind("the MySQL profile")) << "said more than once: " << err;
  EXPECT_EQ(err.find("secret"), std::string::npos);
  EXPECT_FALSE(find_engine("mysql")->documented(IsolationLevel::Serializable, parse_target_uri("mysql://u@h/db")).tested);
}
