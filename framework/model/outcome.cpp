#include "txprop/outcome.hpp"

#include <ostream>

#include <fmt/format.h>

namespace txprop {

std::string to_string(Fault f) {
  switch (f) {
    case Fault::None: return "none";
    case Fault::Unreachable: return "unreachable";
    case Fault::Stalled: return "stalled";
    case Fault::Lost: return "lost";
    case Fault::Rejected: return "rejected";
  }
  return "?";
}

std::string to_string(ErrorClass c) {
  switch (c) {
    case ErrorClass::None: return "none";
    case ErrorClass::SerializationFailure: return "serialization-failure";
    case ErrorClass::Deadlock: return "deadlock";
    case ErrorClass::LockTimeout: return "lock-timeout";
    case ErrorClass::SnapshotConflict: return "snapshot-conflict";
    case ErrorClass::ConstraintViolation: return "constraint-violation";
    case ErrorClass::InvalidStatement: return "invalid-statement";
    case ErrorClass::DataError: return "data-error";
    case ErrorClass::LostConnection: return "lost-connection";
    case ErrorClass::Busy: return "busy";
    case ErrorClass::TransactionAborted: return "transaction-aborted";
    case ErrorClass::Canceled: return "canceled";
    case ErrorClass::CertificationFailure: return "certification-failure";
    case ErrorClass::CommitOutcomeUnknown: return "commit-outcome-unknown";
    case ErrorClass::Other: return "other";
  }
  return "?";
}

Outcome Outcome::failure(ErrorClass cls, std::string code, std::string message) {
  Outcome o;
  o.status = Status::Error;
  o.error = Error{cls, std::move(code), std::move(message)};
  return o;
}

std::string summary(const Outcome& o) {
  switch (o.status) {
    case Outcome::Status::Ok: {
      if (!o.columns.empty()) {
        std::string rows;
        for (const Row& r : o.rows) rows += (rows.empty() ? "" : " ") + to_string(r);
        return fmt::format("{} row(s){}{}", o.rows.size(), rows.empty() ? "" : ": ", rows);
      }
      if (o.affected >= 0) return fmt::format("{} row(s) affected", o.affected);
      return "ok";
    }
    case Outcome::Status::Error: {
      std::string msg = o.error.message;
      if (auto nl = msg.find('\n'); nl != std::string::npos) msg.resize(nl);
      return fmt::format("error {} ({}): {}", to_string(o.error.cls), o.error.code, msg);
    }
    case Outcome::Status::Skipped: return "not sent";
    case Outcome::Status::Hang: return "hang: " + o.error.message;
  }
  return "?";
}

std::ostream& operator<<(std::ostream& os, const Outcome& o) { return os << summary(o); }

}  // namespace txprop
