#include "summary_shards.hpp"

#include <map>
#include <set>
#include <tuple>

#include <fmt/format.h>

namespace txprop::records {

namespace {

using Object = std::vector<std::pair<std::string, Json>>;

void set(Json& record, const std::string& key, Json value) {
  auto& o = std::get<Object>(record.v);
  for (auto& [k, v] : o)
    if (k == key) {
      v = std::move(value);
      return;
    }
  o.emplace_back(key, std::move(value));
}

int rank(const std::string& status) {
  static const std::map<std::string, int> r = {{"error", 4}, {"failed", 3}, {"deviation", 2}, {"passed", 1}};
  const auto it = r.find(status);
  return it == r.end() ? 0 : it->second;
}

// Sums the "cases" of the entries of list `key` per value of `name` ("kind" or "tag"), keeping each one's source.
Json merged_list(const std::vector<const Json*>& shards, const std::string& key, const std::string& name) {
  std::map<std::string, Json> by_name;
  for (const Json* r : shards)
    for (const Json& entry : r->list(key)) {
      auto [it, fresh] = by_name.try_emplace(entry.str(name), entry);
      if (!fresh) set(it->second, "cases", Json{it->second.num("cases") + entry.num("cases")});
    }
  std::vector<Json> out;
  for (auto& [n, entry] : by_name) out.push_back(std::move(entry));
  return Json{out};
}

Json merge(const std::vector<const Json*>& shards) {
  const Json* worst = shards.front();
  for (const Json* r : shards)
    if (rank(r->str("status")) > rank(worst->str("status"))) worst = r;
  Json out = *worst;  // status, finding, message and report of the worst shard
  for (const char* key : {"cases", "seconds", "reset_seconds", "inconclusive", "shrink_steps", "shrink_attempts"}) {
    double sum = 0;
    for (const Json* r : shards) sum += r->num(key);
    set(out, key, Json{sum});
  }
  set(out, "documented", merged_list(shards, "documented", "kind"));
  set(out, "allowed", merged_list(shards, "allowed", "kind"));
  set(out, "tags", merged_list(shards, "tags", "tag"));
  std::string seeds;
  for (const Json* r : shards) seeds += (seeds.empty() ? "" : " ") + r->str("seed");
  set(out, "seeds", Json{seeds});
  set(out, "shard", Json{std::string()});
  return out;
}

// "2/4" -> {2, 4}; {-1, 0} when the field is not of that form.
std::pair<int, int> shard_of(const Json& r) {
  const std::string s = r.str("shard");
  const auto slash = s.find('/');
  try {
    if (slash != std::string::npos) return {std::stoi(s.substr(0, slash)), std::stoi(s.substr(slash + 1))};
  } catch (const std::exception&) {
  }
  return {-1, 0};
}

}  // namespace

ShardMerge merge_shards(std::vector<Json> records) {
  ShardMerge out;
  using Key = std::tuple<std::string, std::string, std::string, int>;  // suite, target, level, shard count
  std::map<Key, std::vector<const Json*>> groups;
  std::vector<Key> order;
  for (const Json& r : records) {
    const auto [index, total] = shard_of(r);
    if (r.str("type") != "property" || total <= 0) {
      out.records.push_back(r);
      continue;
    }
    const Key key{r.str("suite"), r.str("target"), r.str("level"), total};
    if (!groups.count(key)) order.push_back(key);
    groups[key].push_back(&r);
  }
  for (const Key& key : order) {
    const auto& shards = groups[key];
    const auto& [suite, target, level, total] = key;
    std::map<int, int> seen;  // shard index -> records
    for (const Json* r : shards) ++seen[shard_of(*r).first];
    for (int i = 0; i < total; ++i)
      if (!seen.count(i))
        out.missing.push_back(fmt::format("shard {}/{} left no record of {} on {} at {}", i, total, suite, target, level));
      else if (seen[i] > 1)  // the same shard run twice into one file: its cases would count twice
        out.missing.push_back(fmt::format("shard {}/{} left {} records of {} on {} at {}", i, total, seen[i], suite,
                                          target, level));
    Json merged = merge(shards);
    set(merged, "shards", Json{fmt::format("{} of {}", seen.size(), total)});
    out.records.push_back(std::move(merged));
  }
  return out;
}

}  // namespace txprop::records
