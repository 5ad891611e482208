// InnodbProfile::statement_reads_tables on a real MariaDB server: whether a SELECT asked InnoDB for a row (where a
// consistent read opens the transaction's read view), which the Troc judge asks for a first read that returned no
// table row. A materialised derived table is read through an internal temporary table, which the handler counters
// count too: with only full-scan reads and such a table in the plan the answer is "unknown", never a guess.
#include <gtest/gtest.h>

#include "support/engine_targets.hpp"
#include "txprop/driver.hpp"
#include "txprop/target.hpp"

using namespace txprop;

TEST(InnodbReadsTables, HandlerCountersWithoutTemporaryTables) {
  TXPROP_USE_ENGINE(target, "mariadb", false);
  auto session = target->driver().open_session();
  ASSERT_TRUE(session->execute("DROP TABLE IF EXISTS txp_reads_probe").ok());
  ASSERT_TRUE(session->execute("CREATE TABLE txp_reads_probe (k BIGINT NOT NULL PRIMARY KEY, c BIGINT NOT NULL) "
                               "ENGINE=InnoDB").ok());
  ASSERT_TRUE(session->execute("INSERT INTO txp_reads_probe VALUES (1, 0)").ok());
  const EngineProfile& p = target->engine();
  auto reads = [&](const std::string& sql) { return p.statement_reads_tables(*session, sql); };
  EXPECT_EQ(reads("SELECT * FROM txp_reads_probe"), std::optional<bool>(true));
  EXPECT_EQ(reads("SELECT * FROM txp_reads_probe WHERE k = 7"), std::optional<bool>(true));  // a lookup that finds nothing
  EXPECT_EQ(reads("SELECT * FROM txp_reads_probe WHERE c IS NULL"), std::optional<bool>(false));  // Impossible WHERE
  EXPECT_EQ(reads("SELECT COUNT(c) FROM (SELECT * FROM txp_reads_probe WHERE c = 6) AS d WHERE k IS NULL"),
            std::optional<bool>(false));  // merged into one Impossible WHERE: no temporary table
  // Materialised (LIMIT): the temporary table's scan counts as a read whether or not InnoDB was asked.
  EXPECT_EQ(reads("SELECT * FROM (SELECT * FROM txp_reads_probe WHERE c IS NULL ORDER BY k LIMIT 1) AS d"),
            std::nullopt);
  EXPECT_EQ(reads("SELECT * FROM (SELECT * FROM txp_reads_probe WHERE k = 1 ORDER BY k LIMIT 1) AS d"),
            std::optional<bool>(true));  // an index lookup: not a temporary table's
  EXPECT_TRUE(session->execute("DROP TABLE txp_reads_probe").ok());
}
