// Machine-readable records of what each property suite and scenario case checked, for scripts/main.sh's summary
// and JUnit report: one JSON object per line, appended to the file named by TXPROP_SUMMARY_FILE (nothing is
// written when it is unset). Several test processes append to one file; each record is one write(2) on a file
// opened with O_APPEND, so lines never interleave.
//
// Progress lines of long runs also go to the file named by TXPROP_PROGRESS (e.g. /dev/tty), since ctest shows a
// test's own output only when it ends.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace txprop::run_summary {

// A JSON object built field by field, in order.
class Record {
 public:
  Record& add(const std::string& key, const std::string& value);
  Record& add(const std::string& key, const char* value) { return add(key, std::string(value)); }
  Record& add(const std::string& key, long long value);
  Record& add(const std::string& key, int value) { return add(key, static_cast<long long>(value)); }
  Record& add(const std::string& key, double value);
  Record& add_raw(const std::string& key, const std::string& json);  // an already encoded value
  std::string json() const { return "{" + body_ + "}"; }

 private:
  std::string body_;
};

std::string quote(const std::string& s);  // a JSON string literal

// Appends the record as one line to TXPROP_SUMMARY_FILE; returns false (and says why on stderr) if it could not.
bool write(const Record& r);

// The record of one scenario file replayed on one target (status: passed, failed, error, skipped).
void write_scenario(const std::string& path, const std::string& target, const std::string& uri,
                    const std::string& status, double seconds, const std::string& levels, const std::string& message);

// Appends one line to TXPROP_PROGRESS, if set.
void progress(const std::string& line);

}  // namespace txprop::run_summary
