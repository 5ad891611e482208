// Fuzzing the two readers of untrusted text (issue 10): the scenario reader and TXPROP_TARGETS parsing. A RapidCheck
// property mutates known-good inputs (bytes flipped, inserted, deleted, pieces duplicated, deep nesting spliced in)
// and asserts that each input either parses or fails with the reader's own one-line error: no other exception, no
// crash (a crash ends the test program, which ctest reports), and no password in any message. Bounded in time by
// TXPROP_FUZZ_SECONDS (default 5 per reader). The inputs that crashed before are regression files in
// tests/fuzz_regressions/.
#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include <fmt/format.h>

#include "txprop/scenario.hpp"
#include "txprop/target_config.hpp"

using namespace txprop;

namespace {

using Clock = std::chrono::steady_clock;

std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

double fuzz_seconds() {
  const char* v = std::getenv("TXPROP_FUZZ_SECONDS");
  return v && *v ? std::atof(v) : 5.0;
}

// One mutation of `text`, driven by RapidCheck-generated numbers.
struct Mutation {
  int kind;
  std::size_t at, length;
  int byte, repeat;
};

rc::Gen<Mutation> mutation() {
  return rc::gen::build<Mutation>(rc::gen::set(&Mutation::kind, rc::gen::inRange(0, 7)),
                                  rc::gen::set(&Mutation::at, rc::gen::arbitrary<std::size_t>()),
                                  rc::gen::set(&Mutation::length, rc::gen::inRange<std::size_t>(0, 64)),
                                  rc::gen::set(&Mutation::byte, rc::gen::inRange(0, 256)),
                                  rc::gen::set(&Mutation::repeat, rc::gen::inRange(1, 3000)));
}

std::string apply(std::string text, const Mutation& m) {
  const std::size_t at = text.empty() ? 0 : m.at % (text.size() + 1);
  static const char* const tokens[] = {"(", ")", "NOT ", "-", " OR ", "'", "\"", ";", "\n", ":", "@", "/", "?", "&",
                                       "=", ",", "%", " ", "SELECT", "T9: ", "%00", "\xff", "levels=", "BEGIN;"};
  switch (m.kind) {
    case 0: if (at < text.size()) text[at] = static_cast<char>(m.byte); break;
    case 1: text.insert(at, 1, static_cast<char>(m.byte)); break;
    case 2: text.erase(at, m.length); break;
    case 3: text.insert(at, text.substr(at, m.length)); break;
    case 4: text.insert(at, tokens[static_cast<std::size_t>(m.byte) % std::size(tokens)]); break;
    case 5: {  // deep nesting or a long chain
      const std::string piece = tokens[static_cast<std::size_t>(m.byte) % 5];
      std::string many;
      for (int i = 0; i < m.repeat; ++i) many += piece;
      text.insert(at, many);
      break;
    }
    default: {  // swap two regions
      const std::size_t other = (m.at / 7) % (text.size() + 1);
      const std::string a = text.substr(at, m.length);
      text.erase(at, a.size());
      text.insert(std::min(other, text.size()), a);
    }
  }
  return text;
}

// Runs `property` as a RapidCheck property until `deadline`: then every case is discarded, and with a discard
// ratio of 0 RapidCheck gives up at once, which here means "time budget spent", not a failure.
template <typename Deadline, typename F>
bool fuzz_check(const std::string& description, Deadline deadline, F&& property) {
  rc::detail::TestParams params = rc::detail::configuration().testParams;
  params.maxSuccess = 100'000'000;
  params.maxDiscardRatio = 0;
  rc::detail::TestMetadata metadata;
  metadata.id = description;
  metadata.description = description;
  const auto result = rc::detail::checkTestable(
      [&] {
        if (Clock::now() > deadline) RC_DISCARD("time budget spent");
        property();
      },
      metadata, params);
  if (result.template is<rc::detail::FailureResult>()) {
    rc::detail::printResultMessage(result, std::cerr);
    return false;
  }
  return true;
}

struct Tally {
  long tried = 0, parsed = 0, rejected = 0, wrong = 0;
};

}  // namespace

TEST(Fuzz, RegressionScenariosFailWithFileAndLine) {
  const std::filesystem::path dir = std::filesystem::path(TXPROP_SOURCE_DIR) / "tests/fuzz_regressions";
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".txn") continue;
    ++files;
    try {
      load_scenario(entry.path().string());
      ADD_FAILURE() << entry.path() << " was accepted";
    } catch (const ScenarioError& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find(entry.path().filename().string() + ":"), std::string::npos) << what;
      std::cout << "[fuzz] " << entry.path().filename().string() << ": " << what.substr(what.rfind('/') + 1) << "\n";
    }
  }
  EXPECT_GE(files, 4);
}

TEST(Fuzz, RegressionTargetsFailWithOneMaskedLine) {
  std::istringstream lines(read_file(std::filesystem::path(TXPROP_SOURCE_DIR) / "tests/fuzz_regressions/targets.txt"));
  int n = 0;
  for (std::string line; std::getline(lines, line);) {
    if (line.empty() || line[0] == '#') continue;
    ++n;
    try {
      parse_target_list(line);
      ADD_FAILURE() << line << " was accepted";
    } catch (const TargetError& e) {
      const std::string what = e.what();
      EXPECT_EQ(what.find("s3cret"), std::string::npos) << what;
      EXPECT_EQ(what.find('\n'), std::string::npos) << what;
      std::cout << "[fuzz] " << what << "\n";
    }
  }
  EXPECT_GE(n, 8);
}

// One of the seeds with a generated list of mutations applied (inside a RapidCheck property).
std::string mutated_seed(const std::vector<std::string>& seeds) {
  const std::size_t seed = *rc::gen::inRange<std::size_t>(0, seeds.size());
  const auto mutations = *rc::gen::container<std::vector<Mutation>>(mutation());
  std::string text = seeds[seed];
  for (const Mutation& m : mutations) text = apply(std::move(text), m);
  return text;
}

TEST(Fuzz, ScenarioReaderRejectsMutatedInputsCleanly) {
  std::vector<std::string> seeds;
  for (const auto& entry :
       std::filesystem::directory_iterator(std::filesystem::path(TXPROP_SOURCE_DIR) / "tests/scenarios"))
    if (entry.path().extension() == ".txn") seeds.push_back(read_file(entry.path()));
  ASSERT_FALSE(seeds.empty());
  Tally tally;
  const auto deadline = Clock::now() + std::chrono::duration<double>(fuzz_seconds());
  const bool ok = fuzz_check("mutated scenarios parse or fail with file:line", deadline, [&] {
    const std::string text = mutated_seed(seeds);
    ++tally.tried;
    try {
      parse_scenario(text, "fuzz.txn");
      ++tally.parsed;
    } catch (const ScenarioError& e) {
      ++tally.rejected;
      RC_ASSERT(std::string(e.what()).starts_with("fuzz.txn:"));
    } catch (const std::exception& e) {
      ++tally.wrong;
      RC_FAIL(std::string("unexpected exception: ") + e.what());
    }
  });
  std::cout << fmt::format("[fuzz] scenario reader: {} inputs tried in {:.0f} s, {} parsed, {} rejected with file:line, "
                           "{} crashes or wrong errors\n",
                           tally.tried, fuzz_seconds(), tally.parsed, tally.rejected, tally.wrong);
  EXPECT_TRUE(ok);
}

TEST(Fuzz, TargetListRejectsMutatedInputsCleanly) {
  const std::vector<std::string> seeds = {
      "sqlite: sqlite:?journal_mode=delete",
      "postgresql://postgres:s3cret@127.0.0.1:54329/txtest?levels=rc,ser&deadlock_timeout=20ms",
      "mariadb://txtest:s3cret@127.0.0.1:33069/txtest?innodb_snapshot_isolation=ON&name=m1",
      "mysql://u:s3cret@h/db?levels=ru,rc,rr,ser postgres://u:s3cret@h:1/d"};
  Tally tally;
  const auto deadline = Clock::now() + std::chrono::duration<double>(fuzz_seconds());
  const bool ok = fuzz_check("mutated TXPROP_TARGETS parse or fail with one masked line", deadline, [&] {
    const std::string text = mutated_seed(seeds);
    ++tally.tried;
    try {
      for (const TargetConfig& c : parse_target_list(text)) {
        const std::string masked = c.masked_uri();
        if (c.password.find("s3cret") != std::string::npos && masked.substr(0, masked.rfind('@') + 1).find("s3cret") != std::string::npos)
          RC_FAIL("password shown by masked_uri(): " + c.masked_uri());
      }
      ++tally.parsed;
    } catch (const TargetError& e) {
      ++tally.rejected;
      const std::string what = e.what();
      RC_ASSERT(what.starts_with("txprop: "));
      // The password never shows in the place of one: no ":s3cret" followed by an '@' in the same URI. (Where the
      // mutations left no '@' after it, "s3cret" may as well be a host, a port or a parameter.)
      auto shows_password = [](const std::string& t) {
        for (auto p = t.find(":s3cret"); p != std::string::npos; p = t.find(":s3cret", p + 1)) {
          const auto at = t.find('@', p);
          if (at != std::string::npos && std::none_of(t.begin() + static_cast<long>(p), t.begin() + static_cast<long>(at),
                                                      [](char ch) { return std::isspace(static_cast<unsigned char>(ch)) || ch == '?'; }))
            return true;
        }
        return false;
      };
      if (shows_password(what))
        RC_FAIL("password shown: " + what + " (input: " + text + ")");
    } catch (const std::exception& e) {
      ++tally.wrong;
      RC_FAIL(std::string("unexpected exception: ") + e.what() + " (input: " + text + ")");
    }
  });
  std::cout << fmt::format("[fuzz] TXPROP_TARGETS: {} inputs tried in {:.0f} s, {} parsed, {} rejected with one line, {} "
                           "crashes or wrong errors\n",
                           tally.tried, fuzz_seconds(), tally.parsed, tally.rejected, tally.wrong);
  EXPECT_TRUE(ok);
}
