#pragma once
// One registry mechanism for every pluggable part (engine profiles, oracles): an entry answers to several names (a
// name and its aliases or URI schemes) and no two entries share one; built-in entries are added on first use, so that
// a project's own (registered by static initialisers in its translation units) can come before or after them.
#include <algorithm>
#include <functional>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace txprop {

template <class T>
class Registry {
 public:
  using Names = std::function<std::vector<std::string>(const T&)>;

  // `what` names the kind of entry in errors ("engine", "oracle"); `names` lists every name an entry answers to, its
  // own name first.
  Registry(std::string what, Names names) : what_(std::move(what)), names_(std::move(names)) {}

  // Throws std::logic_error when a name of `entry` is taken by an entry already registered.
  void add(std::unique_ptr<T> entry) {
    std::lock_guard lock(mutex_);
    const std::vector<std::string> mine = names_(*entry);
    for (const std::string& n : mine)
      if (const T* taken = find_locked(n))
        throw std::logic_error("txprop: " + what_ + " name '" + n + "' of '" + mine.front() + "' is taken by '" +
                               names_(*taken).front() + "'");
    entries_.push_back(std::move(entry));
  }

  // The entry that answers to `name`, or nullptr.
  const T* find(std::string_view name) const {
    std::lock_guard lock(mutex_);
    return find_locked(name);
  }

  // The first entry, in registration order, for which `pred` holds, or nullptr.
  const T* find_if(const std::function<bool(const T&)>& pred) const {
    std::lock_guard lock(mutex_);
    for (const auto& e : entries_)
      if (pred(*e)) return e.get();
    return nullptr;
  }

  std::vector<const T*> entries() const {
    std::lock_guard lock(mutex_);
    std::vector<const T*> out;
    for (const auto& e : entries_) out.push_back(e.get());
    return out;
  }

 private:
  const T* find_locked(std::string_view name) const {
    for (const auto& e : entries_) {
      const std::vector<std::string> names = names_(*e);
      if (std::find(names.begin(), names.end(), name) != names.end()) return e.get();
    }
    return nullptr;
  }

  std::string what_;
  Names names_;
  mutable std::mutex mutex_;
  std::vector<std::unique_ptr<T>> entries_;
};

}  // namespace txprop
