#include "model/bucket.h"

#include <algorithm>
#include <tuple>

#include "model/saturating.h"

namespace btaudit {

bool Bucket::merge(const Bucket& other) {
  if (count == 0) {
    *this = other;
    return true;
  }
  if (other.count == 0) return true;
  bool exact = add_saturating(count, other.count);
  exact = add_saturating(unreliable_frames, other.unreliable_frames) && exact;
  exact = add_saturating(stale_frames, other.stale_frames) && exact;
  first_input = std::min(first_input, other.first_input);
  last_input = std::max(last_input, other.last_input);
  // The example and the fields taken from it follow the earliest report, so the
  // result is the same whichever run or job saw which report first.
  if (std::tie(other.example_input, other.example_line) < std::tie(example_input, example_line)) {
    example_input = other.example_input;
    example_line = other.example_line;
    title = other.title;
    kind = other.kind;
    guilty_function = other.guilty_function;
  }
  return exact;
}

std::optional<double> Bucket::stale_share() const {
  if (unreliable_frames == 0) return std::nullopt;
  return static_cast<double>(stale_frames) / static_cast<double>(unreliable_frames);
}

bool BucketTable::add(const Bucket& b) {
  bool exact = add_saturating(reports_, b.count);
  auto [it, fresh] = buckets_.try_emplace(b.signature, b);
  if (!fresh) exact = it->second.merge(b) && exact;
  saturated_ = saturated_ || !exact;
  return exact;
}

std::vector<Bucket> BucketTable::sorted() const {
  std::vector<Bucket> out;
  out.reserve(buckets_.size());
  for (const auto& [sig, b] : buckets_) out.push_back(b);
  std::stable_sort(out.begin(), out.end(), [](const Bucket& a, const Bucket& b) { return a.count > b.count; });
  return out;
}

std::vector<BucketGroup> group_buckets(const std::vector<Bucket>& sorted_buckets, BucketGrouping by) {
  std::map<std::string, BucketGroup> groups;
  for (const Bucket& b : sorted_buckets) {
    const std::string key = by == BucketGrouping::Kind ? b.kind : b.guilty_function.value_or("(none)");
    BucketGroup& g = groups[key];
    if (g.buckets == 0) {
      g.key = key;
      g.example_title = b.title;  // buckets arrive largest first
    }
    ++g.buckets;
    g.reports = saturating_add(g.reports, b.count);
  }
  std::vector<BucketGroup> out;
  out.reserve(groups.size());
  for (auto& [key, g] : groups) out.push_back(std::move(g));
  std::stable_sort(out.begin(), out.end(),
                   [](const BucketGroup& a, const BucketGroup& b) { return a.reports > b.reports; });
  return out;
}

}  // namespace btaudit
