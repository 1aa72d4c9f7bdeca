// The batch database (`btaudit batch --db FILE`): inputs, reports and buckets
// in SQLite. The schema is documented in man/btaudit.1 (DATABASE).
//
// Each input goes in with its reports and its bucket updates in one
// transaction, and transactions commit in walk order, so a run killed at any
// point leaves a database that holds a prefix of the run, and the rerun, which
// skips inputs already stored with the same size and mtime, completes it into
// the database an uninterrupted run would have written.
#pragma once
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "model/bucket.h"
#include "model/report_record.h"
#include "store/sqlite.h"

namespace btaudit {

inline constexpr int kStoreSchemaVersion = 1;

class ReportStore {
 public:
  // Creates the schema when the file is new; refuses a database of another schema version.
  explicit ReportStore(const std::string& path);

  // Adds one input's outcome (replacing what an earlier, different version of
  // the same path left). Opens a transaction when none is open.
  void add(const InputOutcome& result);
  // Updates the touched buckets and commits; a no-op without an open transaction.
  void commit();

 private:
  void begin();
  void update_buckets();
  Bucket recompute(const std::string& signature);

  Database db_;
  bool in_transaction_ = false;
  BucketTable pending_;                // buckets of reports added in the open transaction
  std::set<std::string> invalidated_;  // signatures that lost reports: recomputed from the table
};

// The buckets of an existing database, largest first, read-only. Throws StoreError.
std::vector<Bucket> stored_buckets(const std::string& path);

// What the triage page needs beyond a bucket: the days its reports were seen
// (each report on the day its input's mtime falls on, UTC) and the example
// report's JSON line.
struct StoredBucketHistory {
  std::vector<std::pair<std::int64_t, std::uint64_t>> days;  // (days since 1970-01-01, reports), ascending
  std::string example_json;
};
// Per signature, read-only. Throws StoreError.
std::map<std::string, StoredBucketHistory> stored_bucket_history(const std::string& path);

// A read-only view for the walker thread: whether an input is already stored
// as it is on disk now (same size and mtime).
class StoredInputs {
 public:
  explicit StoredInputs(const std::string& path);
  bool contains(const InputIdentity& unit);

 private:
  Database db_;
  Statement lookup_;
};

}  // namespace btaudit
