#include "store/report_store.h"

#include <limits>
#include <string>
#include <vector>

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

// A row's counts, which must be whole and non-negative: a database edited to hold
// -1 would otherwise read back as 2^64-1.
std::uint64_t count_column(const Statement& s, int column, const std::string& path) {
  const std::int64_t v = s.integer(column);
  if (v < 0) throw StoreError(path + ": corrupt database: a negative count (" + std::to_string(v) + ") in buckets");
  return static_cast<std::uint64_t>(v);
}

Bucket read_bucket(const Statement& s, const std::string& path) {
  Bucket b;
  b.signature = s.text(0);
  b.title = s.text(1);
  b.kind = s.text(2);
  b.guilty_function = s.optional_text(3);
  b.count = count_column(s, 4, path);
  b.first_input = s.text(5);
  b.last_input = s.text(6);
  b.example_input = s.text(7);
  b.example_line = static_cast<std::uint32_t>(count_column(s, 8, path));
  b.unreliable_frames = count_column(s, 9, path);
  b.stale_frames = count_column(s, 10, path);
  return b;
}

// SQLite integers are signed: a count past 2^63-1 cannot be stored as it is.
std::int64_t to_i64(std::uint64_t v, const std::string& path) {
  if (v > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
    throw StoreError(path + ": a count of " + std::to_string(v) + " is too large for the database");
  return static_cast<std::int64_t>(v);
}

std::int64_t single_integer(Database& db, const char* sql) {
  Statement s = db.prepare(sql);
  return s.step() ? s.integer(0) : 0;
}

// A table's columns as "name TYPE", in order.
std::vector<std::string> columns_of(Database& db, const std::string& table) {
  Statement info = db.prepare("SELECT name, type FROM pragma_table_info(?1) ORDER BY cid");
  info.bind(1, table);
  std::vector<std::string> out;
  while (info.step()) out.push_back(info.text(0) + " " + info.text(1));
  return out;
}

std::string joined(const std::vector<std::string>& v) {
  std::string out;
  for (const std::string& s : v) out += (out.empty() ? "" : ", ") + s;
  return out;
}

// Whether an existing database is ours, whole and of our schema, before anything is
// written to it: a table dropped or altered by hand would otherwise be recreated
// empty (bucket counts that disagree with the reports) or fail mid-run.
void check_schema(Database& db, const std::string& path) {
  if (single_integer(db, "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = 'meta'") == 0)
    throw StoreError(path + ": an SQLite database of another program (no btaudit schema)");
  const std::int64_t user_version = single_integer(db, "PRAGMA user_version");
  if (user_version != 0 && user_version != kStoreSchemaVersion)  // 0: written before user_version was set
    throw StoreError(path + ": database user_version " + std::to_string(user_version) +
                     ", this btaudit reads version " + std::to_string(kStoreSchemaVersion));
  {
    Statement version = db.prepare("SELECT value FROM meta WHERE key = 'schema_version'");
    const std::string v = version.step() ? version.text(0) : std::string("(none)");
    if (v != std::to_string(kStoreSchemaVersion))
      throw StoreError(path + ": database schema version " + v + ", this btaudit reads version " +
                       std::to_string(kStoreSchemaVersion));
  }
  // The expected tables, made from kSchema itself in memory: one definition of the schema.
  Database expected(":memory:", Database::Mode::ReadWriteCreate);
  expected.exec(kSchema);
  Statement tables = expected.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name");
  while (tables.step()) {
    const std::string table = tables.text(0);
    const std::vector<std::string> want = columns_of(expected, table);
    const std::vector<std::string> have = columns_of(db, table);
    std::string problem = path + ": altered database: table ";
    problem += table;
    if (have.empty()) throw StoreError(problem + " is missing");
    if (have != want) {
      problem.append(" has columns (").append(joined(have)).append("), expected (").append(joined(want)).append(")");
      throw StoreError(problem);
    }
  }
  // Counts are never negative (batch writes them from 64-bit unsigned ones): a row that
  // says otherwise was edited, and merging into it would give nonsense.
  const std::int64_t bad =
      single_integer(db,
                     "SELECT COUNT(*) FROM buckets WHERE count <= 0 OR unreliable_frames < 0 OR stale_frames < 0 OR "
                     "stale_frames > unreliable_frames OR example_line < 0");
  if (bad > 0)
    throw StoreError(path + ": corrupt database: " + std::to_string(bad) + " buckets with impossible counts");
}

// PRAGMA quick_check: a damaged b-tree is refused when the run starts, not met halfway through it.
void check_integrity(Database& db, const std::string& path) {
  std::string verdict;
  try {
    Statement check = db.prepare("PRAGMA quick_check(1)");
    verdict = check.step() ? check.text(0) : std::string("no answer");
  } catch (const StoreError&) {
    throw StoreError(path + ": corrupt database (PRAGMA quick_check failed: " + sqlite3_errmsg(db.handle()) + ")");
  }
  for (char& c : verdict)
    if (c == '\n') c = ' ';  // one line
  if (verdict != "ok") throw StoreError(path + ": corrupt database (PRAGMA quick_check: " + verdict + ")");
}

}  // namespace

ReportStore::ReportStore(const std::string& path) : db_(path, Database::Mode::ReadWriteCreate) {
  if (sqlite3_db_readonly(db_.handle(), "main") == 1)
    throw StoreError(path + ": the database file is read-only (permissions or an immutable attribute)");
  const bool fresh = single_integer(db_, "SELECT COUNT(*) FROM sqlite_master") == 0;
  if (!fresh) {
    check_integrity(db_, path);
    check_schema(db_, path);
  }
  // WAL: the walker's lookups read while this connection writes, and a kill -9
  // loses only the transaction that was open.
  db_.exec("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;");
  db_.exec("BEGIN IMMEDIATE");
  db_.exec(kSchema);  // a new database's tables; an existing one's indexes, if one was dropped
  if (fresh) {
    db_.prepare("INSERT INTO meta(key, value) VALUES ('schema_version', ?1)")
        .bind(1, std::to_string(kStoreSchemaVersion))
        .run();
    db_.prepare("INSERT INTO meta(key, value) VALUES ('created_by', ?1)")
        .bind(1, std::string("btaudit ") + kBtauditVersion)
        .run();
  }
  db_.exec(("PRAGMA user_version = " + std::to_string(kStoreSchemaVersion)).c_str());
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
      .bind(2, to_i64(unit.bytes, db_.path()))
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
  while (rows.step()) total.merge(read_bucket(rows, db_.path()));
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
        .bind(5, to_i64(b.count, db_.path()))
        .bind(6, b.first_input)
        .bind(7, b.last_input)
        .bind(8, b.example_input)
        .bind(9, std::int64_t{b.example_line})
        .bind(10, to_i64(b.unreliable_frames, db_.path()))
        .bind(11, to_i64(b.stale_frames, db_.path()))
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
    if (select.step()) b = read_bucket(select, db_.path());
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
  while (s.step()) out.push_back(read_bucket(s, path));
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
