// One naming scheme in every output (issue 21 item 7): a scenario's transaction names, and "observer" for the
// transaction an oracle adds past them, never one of the scenario's names.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "txprop/history.hpp"

using namespace txprop;

TEST(TransactionLabels, TheObserverNeverTakesAScenariosName) {
  EXPECT_EQ(transaction_labels({"alice", "bob"}, 3), (std::vector<std::string>{"alice", "bob", "observer"}));
  // Scenario names that look positional: the observer (position 3) is not "T3".
  EXPECT_EQ(transaction_labels({"T1", "T2", "T3"}, 4), (std::vector<std::string>{"T1", "T2", "T3", "observer"}));
  EXPECT_EQ(transaction_labels({"observer", "b"}, 4), (std::vector<std::string>{"observer", "b", "observer2", "observer3"}));
  EXPECT_EQ(transaction_labels({}, 2), (std::vector<std::string>{"T0", "T1"}));  // generated cases stay positional
}

TEST(TransactionLabels, RelabelRenamesEveryPositionalNameOnce) {
  const std::vector<std::string> names = {"T1", "T2", "T3"};
  EXPECT_EQ(relabel("T0 -ww-> T1 (T1.2 UPDATE t); T3 read T2's write", names, 4),
            "T1 -ww-> T2 (T2.2 UPDATE t); observer read T3's write");
  EXPECT_EQ(relabel("T0 and T12 and xT1 and T1x", {"a", "b"}, 2), "a and T12 and xT1 and T1x");
  EXPECT_EQ(relabel("T0 T1", {}, 2), "T0 T1");
}
