#include "run_summary.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <iostream>

#include <fmt/format.h>

namespace txprop::run_summary {

namespace {

bool append_line(const char* path, const std::string& line) {
  const int fd = ::open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return false;
  const std::string text = line + "\n";
  const ssize_t n = ::write(fd, text.data(), text.size());
  ::close(fd);
  return n == static_cast<ssize_t>(text.size());
}

}  // namespace

std::string quote(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (c < 0x20) out += fmt::format("\\u{:04x}", c);
        else out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

Record& Record::add_raw(const std::string& key, const std::string& json) {
  if (!body_.empty()) body_ += ",";
  body_ += quote(key) + ":" + json;
  return *this;
}
Record& Record::add(const std::string& key, const std::string& value) { return add_raw(key, quote(value)); }
Record& Record::add(const std::string& key, long long value) { return add_raw(key, std::to_string(value)); }
Record& Record::add(const std::string& key, double value) { return add_raw(key, fmt::format("{:.3f}", value)); }

bool write(const Record& r) {
  const char* path = std::getenv("TXPROP_SUMMARY_FILE");
  if (!path || !*path) return true;
  if (append_line(path, r.json())) return true;
  std::cerr << "txprop: cannot append to TXPROP_SUMMARY_FILE=" << path << ": " << std::strerror(errno) << "\n";
  return false;
}

void write_scenario(const std::string& path, const std::string& target, const std::string& uri,
                    const std::string& status, double seconds, const std::string& levels, const std::string& message) {
  std::string name = path.substr(path.find_last_of('/') + 1);
  if (name.size() > 4 && name.ends_with(".txn")) name.resize(name.size() - 4);
  Record r;
  r.add("type", "scenario").add("suite", "Scenario").add("scenario", name).add("file", path);
  r.add("target", target.empty() ? "?" : target).add("uri", uri).add("level", levels.empty() ? "-" : levels);
  r.add("status", status).add("seconds", seconds);
  if (!message.empty()) r.add("message", message.substr(0, message.find('\n')));
  write(r);
}

void progress(const std::string& line) {
  const char* path = std::getenv("TXPROP_PROGRESS");
  if (path && *path) append_line(path, line);
}

}  // namespace txprop::run_summary
