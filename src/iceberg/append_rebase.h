// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <utility>
#include <vector>

#include "common/result.h"
#include "iceberg/schema.h"

namespace cairn::iceberg {

struct RawRecords;  // a list's records still encoded (append_rebase.cc)

/// The records of a list RebaseAppend wrote, still encoded with its writer schema, as a chain
/// of segments: the records that list put in front (the appended snapshot's own manifests),
/// then those of the list it was written on top of, which are that list's chain, shared. A list
/// on top of a list on top of ... costs memory for its own records only, and a later rebase
/// compares or copies them segment by segment. Each segment keeps its records' manifest paths.
struct RecordChain {
  std::string records;             // this segment's records, encoded, in order
  int64_t count = 0;               // records in this segment
  std::vector<std::string> paths;  // their manifest_path, in order
  std::shared_ptr<const RecordChain> rest;
  int64_t total_count = 0;  // this segment's and the rest's
  size_t total_size = 0;

  RecordChain() = default;
  RecordChain(const RecordChain&) = delete;
  RecordChain& operator=(const RecordChain&) = delete;
  /// Lets go of a long chain one segment at a time: releasing it by recursion would take a
  /// stack frame per segment, and a hot table's chain has one per commit.
  ~RecordChain();

  /// Every record's manifest path, in the list's order.
  std::vector<std::string> AllPaths() const;
  /// Whether `bytes` are this chain's records, byte for byte.
  bool Equals(std::string_view bytes) const;
};

/// The manifest lists RebaseAppend wrote, by location (the newest `capacity`): a writer's next
/// append usually asserts the snapshot its previous one became, whose list is then one of these,
/// and the next rebase in a group commit has the previous one's list as main's. Neither is read
/// back: their writer schema and records (RecordChain) are kept. Rebased lists get a fresh name
/// each and are never rewritten, so an entry stays true while the file exists. One per server
/// (shared by its catalogs); safe to call from many threads.
class WrittenLists {
 public:
  /// Lists remembered when nothing else is configured (cairn.iceberg.rebased-list-cache-entries).
  static constexpr size_t kDefaultCapacity = 64;

  using Paths = std::vector<std::string>;  // in the list's order
  struct List {
    std::shared_ptr<const std::string> schema;  // the writer schema's text
    std::shared_ptr<const RecordChain> records;
  };

  /// Remembers at most `capacity` lists (0: none).
  explicit WrittenLists(size_t capacity = kDefaultCapacity);
  WrittenLists(const WrittenLists&) = delete;
  WrittenLists& operator=(const WrittenLists&) = delete;

  std::optional<List> Find(const std::string& location);
  /// Remembers `list` as the one written at `location`; the oldest goes when full.
  void Add(const std::string& location, List list);

  /// How the appended snapshots' own lists were read: only their own records, ahead of their
  /// parent's remembered ones, or every record.
  struct Reads {
    uint64_t own_records_only = 0;
    uint64_t whole = 0;
  };
  Reads reads() const;
  void CountRead(bool own_records_only);

 private:
  const size_t capacity_;
  std::mutex mu_;
  std::map<std::string, List> lists_;  // guarded by mu_
  std::deque<std::string> order_;      // guarded by mu_; oldest first
  std::atomic<uint64_t> own_records_only_{0};
  std::atomic<uint64_t> whole_{0};
};

/// File access for RebaseAppend, injected so it stays testable. `read` returns a whole object
/// (any error makes the rebase give up); `write_new` writes a new object atomically and never
/// overwrites (storage::FileIO::Read / WriteNew fit). `written_lists`, when set (not owned),
/// remembers the lists written so a later rebase need not read them back.
struct RebaseIo {
  std::function<Result<std::string>(const std::string& location)> read;
  std::function<Status(const std::string& location, const std::string& bytes)> write_new;
  WrittenLists* written_lists = nullptr;
  /// The ids of `current`'s snapshots, when the caller keeps them (not owned): whether the
  /// appended snapshot's id is new is then one lookup, not a walk over the whole history.
  const std::unordered_set<int64_t>* snapshot_ids = nullptr;
};

/// Rebases a fast append that lost a race against other appends, so that it lands on top of the
/// current main branch instead of failing with 409 (what Java's SnapshotProducer retry would do
/// on the client, done once on the server).
///
/// Applies only when all of this holds (otherwise kConflict and nothing is written; the caller
/// then answers the original 409):
///  - `current` is a format-version 2 table with a main branch M;
///  - `updates` is [add-snapshot S, set-snapshot-ref main (branch) -> S] and, anywhere after
///    the add-snapshot, nothing but set-statistics / set-partition-statistics of S and
///    set-properties / remove-properties (what engines send with an insert: Trino writes S's
///    statistics with every one); S has summary.operation "append", schema-id ==
///    current-schema-id, a manifest-list L_S, and an id not yet in the table;
///  - `requirements` holds exactly one assert-ref-snapshot-id for main, with snapshot-id P
///    (null: main did not exist) != M and == S's parent; every other requirement holds against
///    `current` (CheckTableRequirements);
///  - P is reached from M through "append" snapshots only (P null: M's whole history);
///  - L_S reads as [S's own manifests (added_snapshot_id == S, data content, only added
///    files), the manifests of P's list (compared by path)], and M's list reads; the lists may
///    be null- or deflate-coded Avro object container files. When P's list is one this rebase
///    wrote (remembered in `io.written_lists`) and L_S, with the same writer schema, ends with
///    its records byte for byte, only the records before them are decoded.
/// Then it writes a new manifest list next to L_S ("<L_S stem>-rebased-<uuid>.avro", null
/// codec, L_S's writer schema verbatim, L_S's file metadata with snapshot-id, parent-snapshot-id,
/// sequence-number and format-version set for S') holding S's own manifests (sequence_number
/// and min_sequence_number that carried S's sequence number now carry the new one) followed by
/// all of M's manifests (copied field by field by name into L_S's schema), and returns
///  - requirements: `requirements` with the main assertion's snapshot-id set to M;
///  - updates: `updates` with S replaced by S' (the others as given: S' keeps S's id, so its
///    statistics still name it, as a client's own retry would send them), S' = S with
///    parent-snapshot-id M,
///    sequence-number current last-sequence-number + 1, manifest-list the new file,
///    timestamp-ms max(S's, M's) (the snapshot log stays ordered), summary totals
///    (total-data-files, total-records, total-files-size, total-delete-files,
///    total-position-deletes, total-equality-deletes) recomputed as M's total + S's added-* -
///    S's deleted/removed-* (a total M's summary lacks is dropped, as Java does).
/// The caller commits the returned pair as usual (checking the requirements against `current`)
/// and deletes the new manifest list (S'.manifest-list) if that commit does not land.
/// Thread-safe as far as `io` is.
Result<std::pair<Json /*requirements*/, Json /*updates*/>> RebaseAppend(const Json& current,
                                                                        const Json& requirements,
                                                                        const Json& updates,
                                                                        const RebaseIo& io);

// --- Avro object container files (the subset Iceberg manifest lists need) ----------------------

/// An Avro object container file in memory, records as JSON: records are objects keyed by field
/// name, unions are their branch's value (null for the null branch), bytes and fixed are
/// Json::binary, enums their symbol, maps objects, arrays arrays.
struct AvroFile {
  std::string schema;  // "avro.schema", the writer schema JSON text, kept verbatim
  /// File metadata other than avro.schema and avro.codec, in file order.
  std::vector<std::pair<std::string, std::string>> metadata;
  std::vector<Json> records;
};

/// Decodes a container file with the "null" or "deflate" codec using the Avro C library.
/// kInvalidArgument when `bytes` is not such a file (bad magic, unknown codec, bad sync marker,
/// truncated data, a record that does not decode with the writer schema).
Result<AvroFile> ReadAvroFile(std::string_view bytes);

/// Encodes a container file with the "null" codec, one block, a random sync marker; metadata
/// keys first in the given order, then avro.schema and avro.codec. Records are encoded with
/// `file.schema`: a field missing from a record (or null) must be nullable; a non-null field
/// the schema does not have is an error. kInvalidArgument when the schema does not parse or a
/// record does not fit it (named).
Result<std::string> WriteAvroFile(const AvroFile& file);

}  // namespace cairn::iceberg
