#include "txprop/target_config.hpp"

#include <stdexcept>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <iostream>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "txprop/engine.hpp"

namespace txprop {

std::vector<std::string> known_target_kinds() {
  std::vector<std::string> out;
  for (const EngineProfile* e : registered_engines())
    for (const std::string& k : e->kinds()) out.push_back(k);
  return out;
}

std::vector<std::string> known_target_parameters() {
  std::vector<std::string> out;
  for (const EngineProfile* e : registered_engines())
    for (const EngineParameter& p : e->parameters())
      if (std::find(out.begin(), out.end(), p.name) == out.end()) out.push_back(p.name);
  return out;
}

namespace {
// The query parameters whose values are configuration, shown in messages: name, levels and every registered engine's
// own. Any other value (password=, passwd=, a misspelt key that may hold a secret) is masked.
bool shown_parameter(const std::string& key) {
  if (key == "name" || key == "levels") return true;
  for (const EngineProfile* e : registered_engines())
    for (const EngineParameter& p : e->parameters())
      if (p.name == key) return true;
  return false;
}

// ?k=v&... with every value that is not plainly configuration masked, and a piece without '=' (which may be part of a
// password that held a '?') masked whole.
std::string mask_query(const std::string& query) {
  std::string out;
  std::size_t start = 0;
  while (start <= query.size()) {
    const auto amp = query.find('&', start);
    const std::string kv = query.substr(start, amp == std::string::npos ? std::string::npos : amp - start);
    const auto eq = kv.find('=');
    std::string key = kv.substr(0, eq);
    for (char& ch : key) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    if (!out.empty()) out += '&';
    if (kv.empty()) {
    } else if (eq == std::string::npos) {
      out += shown_parameter(key) ? kv : "***";
    } else {
      out += kv.substr(0, eq + 1) + (shown_parameter(key) ? kv.substr(eq + 1) : "***");
    }
    start = amp == std::string::npos ? query.size() + 1 : amp + 1;
  }
  return out;
}

// scheme://user:password@host... -> scheme://user:***@host..., from the text alone, so that a URI that fails to
// parse is masked too, whatever it looks like: a missing "//" or ":", a mistyped scheme, a password holding '/',
// '?', '@' or a space. Everything between the first ':' of the user information and the last '@' is masked.
std::string mask_password(const std::string& uri) {
  const auto at = uri.rfind('@');
  if (at == std::string::npos) {
    std::string out = uri;
    for (char& ch : out)
      if (std::iscntrl(static_cast<unsigned char>(ch))) ch = '?';
    // No '@': "//host:port". A "port" that is not a number may be a password whose '@' went missing.
    if (const auto slashes = out.find("//"); slashes != std::string::npos) {
      const auto end = std::min(out.find_first_of("/?", slashes + 2), out.size());
      const auto colon = out.find(':', slashes + 2);
      if (colon < end && !std::all_of(out.begin() + static_cast<long>(colon) + 1, out.begin() + static_cast<long>(end),
                                      [](char ch) { return std::isdigit(static_cast<unsigned char>(ch)); }))
        out = out.substr(0, colon + 1) + "***" + out.substr(end);
    }
    return out;
  }
  std::size_t start = 0;
  // Skip a scheme ("postgresql:", or "postgresql//" with its colon missing) and the slashes after it.
  std::size_t i = 0;
  while (i < at && (std::isalnum(static_cast<unsigned char>(uri[i])) || uri[i] == '+' || uri[i] == '.' || uri[i] == '-'))
    ++i;
  if (i > 0 && i < at && uri[i] == ':') start = i + 1;
  else if (i > 0 && i < at && uri[i] == '/') start = i;
  // Without "//" after the scheme it cannot be told whether "a:b@" is scheme and user or user and password.
  const bool authority_marked = uri.compare(start, 2, "//") == 0;
  while (start < at && uri[start] == '/') ++start;
  // Control characters are never printed as they are.
  auto printable = [](std::string text) {
    for (char& ch : text)
      if (std::iscntrl(static_cast<unsigned char>(ch))) ch = '?';
    return text;
  };
  const std::string userinfo = uri.substr(start, at - start);
  // User information that is not plainly "user:password" (stray '/', '?', '#', spaces, control characters, a second
  // scheme) is masked whole: which part would be the password cannot be told.
  const bool plain = std::all_of(userinfo.begin(), userinfo.end(), [](char ch) {
    return std::isalnum(static_cast<unsigned char>(ch)) || std::string_view("-._~!$&'()*+,;=:%@").find(ch) != std::string_view::npos;
  });
  // An '@' before the user's ':' makes the split ambiguous too.
  const auto user_colon = userinfo.find(':');
  const bool ambiguous = userinfo.substr(0, user_colon).find('@') != std::string::npos;
  if (!plain || !authority_marked || ambiguous) return printable(uri.substr(0, start)) + "***" + printable(uri.substr(at));
  const auto colon = uri.find(':', start);
  if (colon == std::string::npos || colon >= at) return printable(uri);
  return printable(uri.substr(0, colon + 1)) + "***" + printable(uri.substr(at));
}
}  // namespace

std::string masked_uri(std::string_view uri) {
  // The query starts at the first '?' after the last '@' (a password may hold '?').
  const std::string text(uri);
  const auto at = text.rfind('@');
  const auto q = text.find('?', at == std::string::npos ? 0 : at);
  if (q == std::string::npos) return mask_password(text);
  std::string query = mask_query(text.substr(q + 1));
  for (char& ch : query)
    if (std::iscntrl(static_cast<unsigned char>(ch))) ch = '?';
  return mask_password(text.substr(0, q)) + "?" + query;
}

std::string TargetConfig::masked_uri() const { return txprop::masked_uri(uri); }

std::string TargetConfig::param(const std::string& key, const std::string& fallback) const {
  auto it = params.find(key);
  return it == params.end() ? fallback : it->second;
}

std::optional<bool> TargetConfig::flag(const std::string& key) const {
  auto it = params.find(key);
  if (it == params.end()) return std::nullopt;
  return it->second == "on";
}

namespace {

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string percent_decode(std::string_view s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size() && std::isxdigit(static_cast<unsigned char>(s[i + 1])) &&
        std::isxdigit(static_cast<unsigned char>(s[i + 2]))) {
      out += static_cast<char>(std::stoi(std::string(s.substr(i + 1, 2)), nullptr, 16));
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

// Validates `value` for `p` and returns it in canonical form; throws the message on a bad value.
std::string canonical_value(const EngineParameter& p, const std::string& value) {
  const std::string v = lower(value);
  switch (p.type) {
    case EngineParameter::Type::Flag:
      if (v == "on" || v == "1" || v == "true") return "on";
      if (v == "off" || v == "0" || v == "false") return "off";
      throw std::invalid_argument(fmt::format("{} must be ON or OFF ({})", p.name, p.help));
    case EngineParameter::Type::Choice:
      if (std::find(p.choices.begin(), p.choices.end(), v) != p.choices.end()) return v;
      throw std::invalid_argument(fmt::format("{} must be one of {} ({})", p.name, fmt::join(p.choices, ", "), p.help));
    case EngineParameter::Type::Milliseconds: {
      // Digits with an optional unit, ms (the default) or s; stored as milliseconds.
      std::string digits = v;
      long scale = 1;
      if (digits.ends_with("ms")) digits.resize(digits.size() - 2);
      else if (digits.ends_with("s")) digits.resize(digits.size() - 1), scale = 1000;
      long n = -1;
      if (!digits.empty() && digits.size() <= 9 && std::all_of(digits.begin(), digits.end(), ::isdigit))
        n = std::stol(digits) * scale;
      if (n < p.min || n > p.max)
        throw std::invalid_argument(fmt::format("{} must be a number of milliseconds from {} to {}, e.g. {}=200ms ({})",
                                                p.name, p.min, p.max, p.name, p.help));
      return std::to_string(n);
    }
  }
  return v;
}

// parse_target_uri in phases: the scheme and engine, the query apart, the authority (user, password, hosts, database)
// of a server engine, the parameters, the levels, and the name. Every failure is one line naming the URI, masked.
class UriParser {
 public:
  explicit UriParser(std::string_view text) : text_(text) { c_.uri = std::string(text); }

  TargetConfig parse() {
    for (char ch : text_)
      if (std::isspace(static_cast<unsigned char>(ch)) || std::iscntrl(static_cast<unsigned char>(ch)))
        throw fail("a space or control character inside the URI (percent-encode it, e.g. %20)");
    scheme_and_engine();
    split_query();
    if (c_.engine->embedded()) {
      if (!rest_.empty())
        throw fail(fmt::format("{} takes no path: each test process makes its own database file", scheme_));
    } else {
      server();
    }
    parameters();
    levels();
    name();
    return c_;
  }

 private:
  TargetError fail(const std::string& why) const {
    return TargetError(fmt::format("txprop: target {}: {}", c_.masked_uri(), why));
  }

  void scheme_and_engine() {
    const auto colon = text_.find(':');
    if (colon == std::string_view::npos) throw fail("not a URI (expected scheme:..., e.g. postgresql://user@host/db)");
    scheme_ = lower(std::string(text_.substr(0, colon)));
    rest_ = text_.substr(colon + 1);
    c_.engine = engine_for_scheme(scheme_);
    if (c_.engine) return;
    std::vector<std::string> known;
    for (const EngineProfile* e : registered_engines())
      for (const std::string& s : e->schemes()) known.push_back(s);
    if (scheme_.size() <= 16 && std::all_of(scheme_.begin(), scheme_.end(), [](char ch) {
          return std::isalnum(static_cast<unsigned char>(ch)) || ch == '+' || ch == '.' || ch == '-';
        }))
      throw fail(fmt::format("unknown scheme '{}' (known: {})", scheme_, fmt::join(known, ", ")));
    throw fail(fmt::format("no scheme (expected one of: {})", fmt::join(known, ", ")));
  }

  void split_query() {
    const auto userinfo_end = rest_.rfind('@');  // a password may hold '/', '?' or '@': the host follows the last '@'
    if (auto q = rest_.find('?', userinfo_end == std::string_view::npos ? 0 : userinfo_end);
        q != std::string_view::npos) {
      query_ = rest_.substr(q + 1);
      rest_ = rest_.substr(0, q);
    }
  }

  // //user[:password]@host[:port][,host[:port]...]/database
  void server() {
    const EngineProfile& engine = *c_.engine;
    std::string_view rest = rest_;
    if (!rest.starts_with("//")) throw fail("expected //user@host[:port]/database after the scheme");
    rest.remove_prefix(2);
    const auto at_sign = rest.rfind('@');
    const auto slash = rest.find('/', at_sign == std::string_view::npos ? 0 : at_sign);
    if (slash == std::string_view::npos || slash + 1 == rest.size()) throw fail("no database name (…/database)");
    c_.database = percent_decode(rest.substr(slash + 1));
    std::string_view authority = rest.substr(0, slash);
    if (auto at = authority.rfind('@'); at != std::string_view::npos) {
      user_info(authority.substr(0, at));
      authority = authority.substr(at + 1);
    }
    if (authority.find(',') != std::string_view::npos && !engine.multi_host())
      throw fail(fmt::format("{} takes one host, not a list", engine.name()));
    hosts(authority);
    c_.host = c_.hosts.front().first;
    c_.port = c_.hosts.front().second;
    if (c_.user.empty()) throw fail("no user (user@host)");
  }

  void user_info(std::string_view userinfo) {
    if (userinfo.find('/') != std::string_view::npos || userinfo.find('?') != std::string_view::npos)
      throw fail("'/' or '?' in the user or password: percent-encode it (%2F, %3F)");
    if (auto pc = userinfo.find(':'); pc != std::string_view::npos) {
      c_.password = percent_decode(userinfo.substr(pc + 1));
      userinfo = userinfo.substr(0, pc);
    }
    c_.user = percent_decode(userinfo);
  }

  // host[:port], or a comma-separated list of them for an engine of several nodes (galera://h1:p1,h2:p2/db).
  void hosts(std::string_view authority) {
    while (true) {
      const auto comma = authority.find(',');
      std::string_view one = authority.substr(0, comma);
      int port_number = 0;
      if (auto pc = one.rfind(':'); pc != std::string_view::npos) {
        port_number = port(std::string(one.substr(pc + 1)));
        one = one.substr(0, pc);
      }
      if (one.empty()) throw fail("no host");
      c_.hosts.emplace_back(std::string(one), port_number == 0 ? c_.engine->default_port() : port_number);
      if (comma == std::string_view::npos) break;
      authority = authority.substr(comma + 1);
    }
  }

  int port(const std::string& port) const {
    if (port.empty() || !std::all_of(port.begin(), port.end(), ::isdigit) || port.size() > 5 ||
        std::stoi(port) < 1 || std::stoi(port) > 65535)
      throw fail(port.size() <= 12 && std::all_of(port.begin(), port.end(), [](char ch) { return ch == '-' || std::isdigit(static_cast<unsigned char>(ch)); })
                     ? fmt::format("bad port '{}'", port)
                     : std::string("bad port (not a number from 1 to 65535)"));
    return std::stoi(port);
  }

  void parameters() {
    std::string_view query = query_;
    while (!query.empty()) {
      const auto amp = query.find('&');
      const std::string_view kv = query.substr(0, amp);
      query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
      if (kv.empty()) continue;
      const auto eq = kv.find('=');
      if (eq == std::string_view::npos)  // the piece is shown only where it is a known key (it may be a secret)
        throw fail(shown_parameter(lower(std::string(kv))) ? fmt::format("parameter '{}' has no value", kv)
                                                           : std::string("a parameter without '=' (expected key=value)"));
      const std::string key = lower(std::string(kv.substr(0, eq)));
      if (eq + 1 == kv.size()) throw fail(fmt::format("parameter '{}' has an empty value", key));
      if (c_.params.count(key)) throw fail(fmt::format("parameter '{}' is given twice", key));
      parameter(key, percent_decode(kv.substr(eq + 1)));
    }
  }

  void parameter(const std::string& key, const std::string& value) {
    const EngineProfile& engine = *c_.engine;
    const auto parameters = engine.parameters();
    const auto spec = std::find_if(parameters.begin(), parameters.end(), [&](const auto& p) { return p.name == key; });
    if (key == "password" || key == "passwd") {
      // Where libpq and JDBC users put it. Never kept in params, and masked in every message (masked_uri).
      if (engine.embedded()) throw fail(fmt::format("{} takes no password ({}=***)", scheme_, key));
      if (!c_.password.empty())
        throw fail(fmt::format("the password is given twice (in user:password@ and as {}=)", key));
      c_.password = value;
    } else if (key == "name" || key == "levels") {
      c_.params[key] = value;
    } else if (spec != parameters.end()) {
      try {
        c_.params[key] = canonical_value(*spec, value);
      } catch (const std::invalid_argument& e) {
        throw fail(e.what());
      }
    } else {
      std::set<std::string> known{"name", "levels"};
      for (const auto& p : parameters) known.insert(p.name);
      throw fail(fmt::format("unknown parameter '{}' for {} (known: {})", key, engine.name(), fmt::join(known, ", ")));
    }
  }

  void levels() {
    const EngineProfile& engine = *c_.engine;
    const auto supported = engine.levels();
    const std::string levels = c_.param("levels");
    if (levels.empty()) {
      c_.levels = supported;
      return;
    }
    std::size_t start = 0;
    while (start <= levels.size()) {
      const auto comma = levels.find(',', start);
      const std::string item = levels.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
      start = comma == std::string::npos ? levels.size() + 1 : comma + 1;
      if (item.empty()) throw fail(fmt::format("empty item in levels='{}'", levels));
      auto level = parse_isolation_level(item);
      if (!level) throw fail(fmt::format("unknown isolation level '{}' (use ru, rc, rr, ser)", item));
      if (std::find(supported.begin(), supported.end(), *level) == supported.end()) {
        std::string names;
        for (auto l : supported) names += (names.empty() ? "" : ", ") + sql_name(l);
        throw fail(fmt::format("isolation level {} is not supported by {} (supported: {})", sql_name(*level),
                               engine.name(), names));
      }
      if (std::find(c_.levels.begin(), c_.levels.end(), *level) != c_.levels.end())
        throw fail(fmt::format("isolation level {} is listed twice in levels='{}'", sql_name(*level), levels));
      c_.levels.push_back(*level);
    }
  }

  void name() {
    c_.kind = c_.engine->kind(c_);
    c_.name = c_.param("name");
    if (c_.name.empty()) c_.name = c_.kind;
    for (char ch : c_.name)
      if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '_')
        throw fail(fmt::format("name '{}' may only contain letters, digits and _", c_.name));
  }

  std::string_view text_;
  TargetConfig c_;
  std::string scheme_;
  std::string_view rest_, query_;
};

}  // namespace

TargetConfig parse_target_uri(std::string_view text) { return UriParser(text).parse(); }

std::vector<TargetConfig> parse_target_list(std::string_view text) {
  std::vector<TargetConfig> out;
  std::size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
    std::size_t j = i;
    while (j < text.size() && !std::isspace(static_cast<unsigned char>(text[j]))) ++j;
    // A piece that does not start with "scheme:" continues the previous URI (a space inside a password): it is
    // parsed with it, so the error names the whole URI with its password masked.
    while (j < text.size()) {
      std::size_t k = j;
      while (k < text.size() && std::isspace(static_cast<unsigned char>(text[k]))) ++k;
      std::size_t w = k;
      while (w < text.size() && (std::isalnum(static_cast<unsigned char>(text[w])) || text[w] == '+' || text[w] == '.' ||
                                 text[w] == '-'))
        ++w;
      if (k == text.size() || (w > k && w < text.size() && text[w] == ':')) break;
      j = k;
      while (j < text.size() && !std::isspace(static_cast<unsigned char>(text[j]))) ++j;
    }
    if (j > i) out.push_back(parse_target_uri(text.substr(i, j - i)));
    i = j;
  }
  // Two targets of the same kind get distinct names: test names must be unique.
  std::map<std::string, int> seen;
  for (auto& c : out)
    if (int n = seen[c.name]++; n > 0) c.name += fmt::format("_{}", n + 1);
  std::set<std::string> names;
  for (const auto& c : out)
    if (!names.insert(c.name).second)
      throw TargetError(fmt::format("txprop: target {}: name '{}' is used by another target", c.masked_uri(), c.name));
  return out;
}

std::vector<TargetConfig> configured_targets() {
  const char* env = std::getenv("TXPROP_TARGETS");
  auto out = parse_target_list(env ? env : "");
  if (out.empty()) out.push_back(parse_target_uri("sqlite:"));
  // A profile nobody could check against a real server is said so, once per engine and process.
  static std::set<std::string> told;
  for (const TargetConfig& c : out)
    if (const std::string why = c.profile().untested(); !why.empty() && told.insert(c.profile().name()).second)
      std::cerr << fmt::format("txprop: note: {}: {}\n", c.masked_uri(), why);
  return out;
}

}  // namespace txprop
