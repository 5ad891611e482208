// Writes an ObservedHistory as an Elle list-append history in EDN, so a user can cross-check a verdict with Elle:
//   lein run -m elle.cli --model list-append history.edn     (or elle.list-append/check from a REPL)
//
// Mapping (a wList is exactly a list-append list: every writer appends itself to the row):
//   row id                      -> key (the integer RowId)
//   read of a row, wList [..]   -> [:r row [elements]]        (a DELETE's before-delete read is a read too)
//   insert / update of a row    -> [:append row element]
//   delete of a row             -> nothing: Elle has no delete, so the deleter's ww/rw edges are not visible to Elle
//   element of writer Tt        -> t for the transaction's first write of that row; the k-th further write of the
//                                  same row by the same transaction is t + k * 2^32, so elements stay unique per key
//                                  as list-append requires (the same encoding is applied to the wLists read)
//   T0 (initial state)          -> a first transaction, :process 0, appending 0 to every initial row
//   transaction Tt              -> an :invoke op (reads with nil values) at its start position and a completion op at
//                                  its end position: :ok (committed, reads filled in), :fail (aborted: it did not
//                                  happen, so an observed write of it is G1a for Elle too), :info (unknown fate)
//   :process                    -> the transaction id (txprop runs every transaction on its own connection)
//   :index                      -> 0, 1, 2, ... in real-time order (start and end positions; unknown ones last)
// Operations inside a transaction keep program order (statement order, then observation order).
#pragma once

#include <iosfwd>
#include <string>

#include "txprop/adya_history.hpp"

namespace txprop::adya {

void write_elle_history(std::ostream& os, const ObservedHistory& history);
std::string to_elle_edn(const ObservedHistory& history);

}  // namespace txprop::adya
