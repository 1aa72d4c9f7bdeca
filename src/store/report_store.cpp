#include "store/report_store.h"

#include "btaudit_version.h"

namespace btaudit {

namespace {

constexpr const char* kSchema = R"sql(
CREATE TABLE IF NOT EXISTS meta(
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS inputs(
  path TEXT PRIMARY KEY,
  bytes INTEGER NOT NULL,
  mtime_ns INTEGER NOT NULL,
  status TEXT NOT NULL CHECK(status IN ('analyzed', 'skipped')),
  skip_kind TEXT,
  skip_reason TEXT,
  reports INTEGER NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS reports(
  id INTEGER PRIMARY KEY,
  path TEXT NOT NULL,
  seq INTEGER NOT NULL,
  signature TEXT NOT NULL,
  title TEXT NOT NULL,
  kind TEXT NOT NULL,
  guilty_function TEXT,
  first_line INTEGER NOT NULL,
  last_line INTEGER NOT NULL,
  frames INTEGER NOT NULL,
  unreliable_frames INTEGER NOT NULL,
  stale_frames INTEGER NOT NULL,
  corrupted INTEGER NOT NULL,
  json TEXT NOT NULL,
  UNIQUE(path, seq));
CREATE INDEX IF NOT EXISTS reports_by_signature ON reports(signature);
CREATE TABLE IF NOT EXISTS buckets(
  signature TEXT PRIMARY KEY,
  title TEXT NOT NULL,
  kind TEXT NOT NULL,
  guilty_function TEXT,
  count INTEGER NOT NULL,
  first_input TEXT NOT NULL,
  last_input TEXT NOT NULL,
  example_input TEXT NOT NULL,
  example_line INTEGER NOT NULL,
  unreliable_frames INTEGER NOT NULL,
  stale_frames INTEGER NOT NULL) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS buckets_by_count ON buckets(count DESC);
)sql";

constexpr const char* kBucketColumns =
    "signature, title, kind, guilty_function, count, first_input, last_input, example_input, example_line, "
    "unreliable_frames, stale_frames";

Bucket read_bucket(const Statement& s) {
  Bucket b;
  b.signature = s.text(0);
  b.title = s.text(1);
  b.kind = s.text(2);
  b.guilty_function = s.optional_text(3);
  b.count = static_cast<std::uint64_t>(s.integer(4));
  b.first_input = s.text(5);
  b.last_input = s.text(6);
  b.example_input = s.text(7);
  b.example_line = static_cast<std::uint32_t>(s.integer(8));
  b.unreliable_frames = static_cast<std::uint64_t>(s.integer(9));
  b.stale_frames = static_cast<std::uint64_t>(s.integer(10));
  return b;
}

std::int64_t to_i64(std::uint64_t v) { return static_cast<std::int64_t>(v); }

}  // namespace

ReportStore::ReportStore(const std::string& path) : db_(path, Database::Mode::ReadWriteCreate) {
  // WAL: the walker's lookups read while this connection writes, and a kill -9
  // loses only the transaction that was open.
  db_.exec("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;");
  db_.exec("BEGIN IMMEDIATE");
  // Tables of some other program's database must not be mixed with ours.
  {
    Statement tables = db_.prepare("SELECT COUNT(*) FROM sqlite_master WHERE name = 'meta'");
    Statement any = db_.prepare("SELECT COUNT(*) FROM sqlite_master");
    if (tables.step() && any.step() && tables.integer(0) == 0 && any.integer(0) > 0) {
      tables.reset();
      any.reset();
      db_.exec("ROLLBACK");
      throw StoreError(path + ": an SQLite database of another program (no btaudit schema)");
    }
  }
  db_.exec(kSchema);
  Statement version = db_.prepare("SELECT value FROM meta WHERE key = 'schema_version'");
  if (version.step()) {
    const std::string v = version.text(0);
    if (v != std::to_string(kStoreSchemaVersion)) {
      db_.exec("ROLLBACK");
      throw StoreError(path + ": database schema version " + v + ", this btaudit writes version " +
                       std::to_string(kStoreSchemaVersion));
    }
  } else {
    db_.prepare("INSERT INTO meta(key, value) VALUES ('schema_version', ?1)")
        .bind(1, std::to_string(kStoreSchemaVersion))
        .run();
    db_.prepare("INSERT INTO meta(key, value) VALUES ('created_by', ?1)")
        .bind(1, std::string("btaudit ") + kBtauditVersion)
        .run();
  }
  version.reset();
  db_.exec("COMMIT");
}

void ReportStore::begin() {
  if (in_transaction_) return;
  db_.exec("BEGIN IMMEDIATE");
  in_transaction_ = true;
}

void ReportStore::add(const InputOutcome& result) {
  begin();
  const InputIdentity& unit = result.input;
  // A path stored before with other contents: its old reports leave their buckets.
  {
    Statement old = db_.prepare("SELECT DISTINCT signature FROM reports WHERE path = ?1");
    old.bind(1, unit.path);
    while (old.step()) invalidated_.insert(old.text(0));
  }
  db_.prepare("DELETE FROM reports WHERE path = ?1").bind(1, unit.path).run();
  Statement input = db_.prepare(
      "INSERT OR REPLACE INTO inputs(path, bytes, mtime_ns, status, skip_kind, skip_reason, reports) "
      "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)");
  const bool skipped = result.skip_kind.has_value();
  input.bind(1, unit.path)
      .bind(2, to_i64(unit.bytes))
      .bind(3, unit.mtime_ns)
      .bind(4, std::string_view(skipped ? "skipped" : "analyzed"))
      .bind(5, result.skip_kind)
      .bind(6, skipped ? std::optional<std::string>(result.skip_reason) : std::nullopt)
      .bind(7, static_cast<std::int64_t>(result.reports.size()))
      .run();
  Statement report = db_.prepare(
      "INSERT INTO reports(path, seq, signature, title, kind, guilty_function, first_line, last_line, frames, "
      "unreliable_frames, stale_frames, corrupted, json) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, "
      "?13)");
  for (const ReportRecord& r : result.reports) {
    report.bind(1, unit.path)
        .bind(2, std::int64_t{r.seq})
        .bind(3, r.signature)
        .bind(4, r.title)
        .bind(5, r.kind)
        .bind(6, r.guilty_function)
        .bind(7, std::int64_t{r.first_line})
        .bind(8, std::int64_t{r.last_line})
        .bind(9, std::int64_t{r.frames})
        .bind(10, std::int64_t{r.unreliable_frames})
        .bind(11, std::int64_t{r.stale_frames})
        .bind(12, std::int64_t{r.corrupted ? 1 : 0})
        .bind(13, r.json)
        .run();
    Bucket b = r.as_bucket();
    b.first_input = b.last_input = b.example_input = unit.path;  // the database's key, whatever the report named
    pending_.add(b);
  }
}

Bucket ReportStore::recompute(const std::string& signature) {
  // Each report as a bucket of one, in the buckets table's column order, folded.
  Statement rows = db_.prepare(
      "SELECT signature, title, kind, guilty_function, 1, path, path, path, first_line, unreliable_frames, "
      "stale_frames FROM reports WHERE signature = ?1");
  rows.bind(1, signature);
  Bucket total;
  while (rows.step()) total.merge(read_bucket(rows));
  return total;
}

void ReportStore::update_buckets() {
  Statement select = db_.prepare(std::string("SELECT ") + kBucketColumns + " FROM buckets WHERE signature = ?1");
  Statement upsert = db_.prepare(std::string("INSERT OR REPLACE INTO buckets(") + kBucketColumns +
                                 ") VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)");
  Statement remove = db_.prepare("DELETE FROM buckets WHERE signature = ?1");
  const auto write = [&](const Bucket& b) {
    if (b.count == 0) {
      remove.bind(1, b.signature).run();
      return;
    }
    upsert.bind(1, b.signature)
        .bind(2, b.title)
        .bind(3, b.kind)
        .bind(4, b.guilty_function)
        .bind(5, to_i64(b.count))
        .bind(6, b.first_input)
        .bind(7, b.last_input)
        .bind(8, b.example_input)
        .bind(9, std::int64_t{b.example_line})
        .bind(10, to_i64(b.unreliable_frames))
        .bind(11, to_i64(b.stale_frames))
        .run();
  };
  // Buckets that lost reports cannot be updated by subtraction (first/last
  // input and the example are extremes): they are recomputed from the reports.
  for (const std::string& sig : invalidated_) {
    Bucket b = recompute(sig);
    b.signature = sig;
    write(b);
  }
  for (const Bucket& delta : pending_.sorted()) {
    if (invalidated_.contains(delta.signature)) continue;  // the recompute saw these reports
    Bucket b;
    select.bind(1, delta.signature);
    if (select.step()) b = read_bucket(select);
    select.reset();
    b.merge(delta);
    write(b);
  }
  pending_ = BucketTable();
  invalidated_.clear();
}

void ReportStore::commit() {
  if (!in_transaction_) return;
  update_buckets();
  db_.exec("COMMIT");
  in_transaction_ = false;
}

namespace {

void check_schema(Database& db, const std::string& path) {
  Statement version = db.prepare("SELECT value FROM meta WHERE key = 'schema_version'");
  if (!version.step() || version.text(0) != std::to_string(kStoreSchemaVersion))
    throw StoreError(path + ": not a btaudit database of schema version " + std::to_string(kStoreSchemaVersion));
  version.reset();
}

}  // namespace

std::map<std::string, StoredBucketHistory> stored_bucket_history(const std::string& path) {
  Database db(path, Database::Mode::ReadOnly);
  check_schema(db, path);
  std::map<std::string, StoredBucketHistory> out;
  // Integer division floors toward zero; mtimes before 1970 are not a case worth a CASE.
  Statement days = db.prepare(
      "SELECT r.signature, i.mtime_ns / 86400000000000 AS day, COUNT(*) FROM reports r JOIN inputs i ON i.path = "
      "r.path GROUP BY r.signature, day ORDER BY r.signature, day");
  while (days.step()) out[days.text(0)].days.emplace_back(days.integer(1), static_cast<std::uint64_t>(days.integer(2)));
  Statement examples = db.prepare(
      "SELECT b.signature, r.json FROM buckets b JOIN reports r ON r.path = b.example_input AND r.first_line = "
      "b.example_line AND r.signature = b.signature");
  while (examples.step()) out[examples.text(0)].example_json = examples.text(1);
  return out;
}

std::vector<Bucket> stored_buckets(const std::string& path) {
  Database db(path, Database::Mode::ReadOnly);
  check_schema(db, path);
  Statement s = db.prepare(std::string("SELECT ") + kBucketColumns + " FROM buckets ORDER BY count DESC, signature");
  std::vector<Bucket> out;
  while (s.step()) out.push_back(read_bucket(s));
  return out;
}

StoredInputs::StoredInputs(const std::string& path)
    : db_(path, Database::Mode::ReadOnly), lookup_(db_, "SELECT bytes, mtime_ns FROM inputs WHERE path = ?1") {}

bool StoredInputs::contains(const InputIdentity& unit) {
  if (unit.path == "-") return false;  // standard input has no identity to compare
  lookup_.bind(1, unit.path);
  const bool found = lookup_.step() && static_cast<std::uint64_t>(lookup_.integer(0)) == unit.bytes &&
                     lookup_.integer(1) == unit.mtime_ns;
  lookup_.reset();
  return found;
}

}  // namespace btaudit
