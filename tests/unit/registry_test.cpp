// The one registry mechanism engines and oracles share (txprop/internal/registry.hpp): names, aliases and schemes are
// one namespace, a taken name is refused with both owners named, lookups find by any name or by a predicate.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "txprop/internal/registry.hpp"

namespace {

struct Entry {
  std::string name;
  std::vector<std::string> aliases;
};

txprop::Registry<Entry> make_registry() {
  return txprop::Registry<Entry>("widget", [](const Entry& e) {
    std::vector<std::string> names = e.aliases;
    names.insert(names.begin(), e.name);
    return names;
  });
}

TEST(Registry, FindsByNameAliasAndPredicateInRegistrationOrder) {
  auto r = make_registry();
  r.add(std::make_unique<Entry>(Entry{"postgresql", {"postgres"}}));
  r.add(std::make_unique<Entry>(Entry{"mariadb", {}}));
  ASSERT_NE(r.find("postgres"), nullptr);
  EXPECT_EQ(r.find("postgres")->name, "postgresql");
  EXPECT_EQ(r.find("mariadb")->name, "mariadb");
  EXPECT_EQ(r.find("sqlite"), nullptr);
  EXPECT_EQ(r.find_if([](const Entry& e) { return e.aliases.empty(); })->name, "mariadb");
  ASSERT_EQ(r.entries().size(), 2u);
  EXPECT_EQ(r.entries().front()->name, "postgresql");
}

TEST(Registry, ATakenNameIsRefusedNamingBothOwners) {
  auto r = make_registry();
  r.add(std::make_unique<Entry>(Entry{"postgresql", {"postgres"}}));
  try {
    r.add(std::make_unique<Entry>(Entry{"mypg", {"postgres"}}));
    FAIL() << "a taken alias was accepted";
  } catch (const std::logic_error& e) {
    EXPECT_STREQ(e.what(), "txprop: widget name 'postgres' of 'mypg' is taken by 'postgresql'");
  }
  EXPECT_THROW(r.add(std::make_unique<Entry>(Entry{"postgres", {}})), std::logic_error);
  EXPECT_EQ(r.entries().size(), 1u);  // nothing of a refused entry is kept
}

}  // namespace
