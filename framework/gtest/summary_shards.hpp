// `txprop summary` over the records of a sharded campaign (framework/gtest/shards.hpp): the records of one suite
// (property, target, level) from its K shards become one record, and a shard that left no record is named.
#pragma once

#include <string>
#include <vector>

#include "summary_json.hpp"

namespace txprop::records {

struct ShardMerge {
  std::vector<Json> records;         // unsharded records as they were, one merged record per sharded suite
  std::vector<std::string> missing;  // "shard 2/4 left no record of Wss on sqlite at serializable"
};

// Merges every group of records with the same suite, target and level that carry "shard": cases, seconds, cases
// without a verdict, shrink figures, documented and allowed findings and tags are summed; the status is the worst
// (error, failed, deviation, passed), and a failing record's finding, message and report are kept. The merged record
// names its shards and seeds ("shards": "4", "seeds": "s0 s1 s2 s3").
ShardMerge merge_shards(std::vector<Json> records);

}  // namespace txprop::records
