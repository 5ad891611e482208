// A configured target that cannot be used fails at once with one line naming it, password masked.
#include <gtest/gtest.h>

#include <chrono>

#include "support/engine_targets.hpp"
#include "txprop/target.hpp"

using namespace txprop;

namespace {

struct Attempt {
  std::string error;
  double seconds = 0;
};

Attempt open(const std::string& uri) {
  const auto start = std::chrono::steady_clock::now();
  Attempt a;
  try {
    Target::open(parse_target_uri(uri));
  } catch (const TargetError& e) {
    a.error = e.what();
  }
  a.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return a;
}

void expect_one_line(const Attempt& a, const std::string& starts_with, const std::string& mentions) {
  EXPECT_EQ(a.error.rfind(starts_with, 0), 0u) << a.error;
  EXPECT_NE(a.error.find(mentions), std::string::npos) << a.error;
  EXPECT_EQ(a.error.find('\n'), std::string::npos) << a.error;
  EXPECT_LT(a.seconds, 6.0);  // the connect timeout is 5 s; a refused port fails at once
}

}  // namespace

TEST(BadTarget, UnreachablePostgresql) {
  const Attempt a = open("postgresql://postgres:secret@127.0.0.1:1/txtest");
  expect_one_line(a, "txprop: target postgresql://postgres:***@127.0.0.1:1/txtest: cannot connect:", "127.0.0.1");
  EXPECT_EQ(a.error.find("secret"), std::string::npos);
}

TEST(BadTarget, UnreachableMariadb) {
  const Attempt a = open("mariadb://txtest:secret@127.0.0.1:1/txtest");
  expect_one_line(a, "txprop: target mariadb://txtest:***@127.0.0.1:1/txtest: cannot connect:", "127.0.0.1");
  EXPECT_EQ(a.error.find("secret"), std::string::npos);
}

TEST(BadTarget, WrongPasswordOnMariadb) {
  TXPROP_USE_ENGINE(target, "mariadb", false);
  const TargetConfig& good = target->config();
  const std::string uri = "mariadb://" + good.user + ":wrong@" + good.host + ":" + std::to_string(good.port) + "/" +
                          good.database;
  const Attempt a = open(uri);
  expect_one_line(a, "txprop: target mariadb://" + good.user + ":***@", "Access denied");
}

TEST(BadTarget, UnknownRoleOnPostgresql) {
  TXPROP_USE_ENGINE(target, "postgresql", false);
  const TargetConfig& good = target->config();
  const Attempt a = open("postgresql://nobody@" + good.host + ":" + std::to_string(good.port) + "/" + good.database);
  expect_one_line(a, "txprop: target postgresql://nobody@", "nobody");
}
