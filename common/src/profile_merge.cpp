// sidecore profile: merging rank profiles into a job profile, and the duration statistics' arithmetic.
#include "sidecore/common/profile.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <map>
#include <optional>
#include <string>

#include "sidecore/common/input_error.hpp"
#include "sidecore/common/schedule.hpp"

namespace sidecore {
namespace {

// Operation kinds in the order the instrumentation writes them ("p2p", then the collective kinds in coll::kind's
// order: instrument/op_kind.hpp); others (written by a later version) after them.
std::size_t op_order(const std::string& op) {
  if (op == "p2p") return 0;
  for (std::size_t i = 0; i < coll::kind_names.size(); ++i)
    if (coll::kind_names[i] == op) return i + 1;
  return coll::kind_names.size() + 1;
}

void merge_collectives(std::optional<collectives_section>& into, const collectives_section& from) {
  if (!into) {
    into = from;
    return;
  }
  if (from.clock.bound_s > into->clock.bound_s) into->clock = from.clock;
  into->sample_capacity = std::max(into->sample_capacity, from.sample_capacity);
  into->unmatched += from.unmatched;
  for (const auto& k : from.by_kind) {
    auto it = std::find_if(into->by_kind.begin(), into->by_kind.end(),
                           [&](const collective_kind_stats& x) { return x.kind == k.kind; });
    if (it == into->by_kind.end()) {
      into->by_kind.push_back(k);
      continue;
    }
    it->count += k.count;
    it->bytes += k.bytes;
    it->sampled += k.sampled;
    merge_duration_stats(it->latency, k.latency);
    merge_duration_stats(it->arrival_wait, k.arrival_wait);
    merge_duration_stats(it->departure_wait, k.departure_wait);
    it->ranks.insert(it->ranks.end(), k.ranks.begin(), k.ranks.end());
  }
}

// Whether `sources` ("a; b; c", as the merge joins them) already names `one`.
bool contains_source(const std::string& sources, const std::string& one) {
  for (std::size_t pos = 0;;) {
    const std::size_t end = sources.find("; ", pos);
    if (sources.compare(pos, end == std::string::npos ? std::string::npos : end - pos, one) == 0) return true;
    if (end == std::string::npos) return false;
    pos = end + 2;
  }
}

void add_bounds(overlap_bounds& into, const overlap_bounds& b) {
  into.min_s += b.min_s;
  into.max_s += b.max_s;
  into.xfer_time_s += b.xfer_time_s;
  into.count += b.count;
}

std::string plural(std::uint64_t n, std::string_view one, std::string_view many) {
  return std::to_string(n) + " " + std::string(n == 1 ? one : many);
}

}  // namespace

std::string make_limit_detail(std::string_view limit, std::uint64_t capacity, std::uint64_t count) {
  const std::string cap = std::to_string(capacity);
  if (limit == "thread_table")
    return plural(count, "thread", "threads") + " found the " + cap +
           "-slot thread table full: their calls and regions are counted, their transfers (the overlap bounds) and "
           "trace events are not recorded";
  if (limit == "region_paths")
    return plural(count, "region entry", "region entries") + " found the table of " + cap +
           " region paths full: their time, calls and transfers count for the enclosing region";
  if (limit == "region_depth")
    return plural(count, "region entry", "region entries") + " went deeper than " + cap +
           " nested regions: their time, calls and transfers count for the enclosing region";
  if (limit == "trace_events")
    return "the trace reached its bound of " + cap + " events (SIDECORE_TRACE_MAX_EVENTS) and stopped; " +
           plural(count, "event was", "events were") + " refused (more after it stopped); the profile's figures are "
           "complete";
  return {};
}

limit_hit make_limit_hit(std::string limit, std::uint64_t capacity, std::uint64_t count) {
  limit_hit h{std::move(limit), capacity, count, {}, {}};
  h.detail = make_limit_detail(h.limit, capacity, count);
  return h;
}

void merge_limits(std::vector<limit_hit>& into, const std::vector<limit_hit>& from, int rank) {
  for (const limit_hit& l : from) {
    auto it = std::find_if(into.begin(), into.end(),
                           [&](const limit_hit& x) { return x.limit == l.limit && x.capacity == l.capacity; });
    if (it == into.end()) {
      into.push_back(l);
      into.back().ranks = {rank};
      continue;
    }
    it->count += l.count;
    if (std::find(it->ranks.begin(), it->ranks.end(), rank) == it->ranks.end()) {
      it->ranks.insert(std::upper_bound(it->ranks.begin(), it->ranks.end(), rank), rank);
    }
    // A kind this build does not know keeps the first rank's sentence: it cannot be made again for the sum.
    if (std::string d = make_limit_detail(it->limit, it->capacity, it->count); !d.empty()) it->detail = std::move(d);
  }
}

double duration_bin_lower_ns(int b) noexcept {
  if (b <= 0) return 0.0;
  return std::ldexp(1.0 + static_cast<double>((b - 1) % 8) / 8.0, (b - 1) / 8);
}

double histogram_median_s(const duration_stats& s) noexcept {
  if (s.count == 0) return 0.0;
  const std::uint64_t target = (s.count - 1) / 2;  // the lower median's index
  std::uint64_t seen = 0;
  for (const auto& [bin, n] : s.histogram) {
    if (seen + n > target) {
      const double lo = duration_bin_lower_ns(bin), hi = bin == 0 ? 1.0 : duration_bin_lower_ns(bin + 1);
      return std::clamp((lo + hi) * 0.5e-9, s.min_s, s.max_s);
    }
    seen += n;
  }
  return s.max_s;
}

void merge_duration_stats(duration_stats& into, const duration_stats& from) {
  if (from.count == 0) return;
  if (into.count == 0) {
    into = from;
    return;
  }
  // Chan et al.'s pairwise update of the mean and the sum of squared deviations.
  const double na = static_cast<double>(into.count), nb = static_cast<double>(from.count), n = na + nb;
  const double delta = from.mean_s - into.mean_s;
  const double m2 =
      into.stddev_s * into.stddev_s * na + from.stddev_s * from.stddev_s * nb + delta * delta * na * nb / n;
  into.mean_s += delta * nb / n;
  into.stddev_s = std::sqrt(std::max(0.0, m2 / n));
  into.count += from.count;
  into.min_s = std::min(into.min_s, from.min_s);
  into.max_s = std::max(into.max_s, from.max_s);
  std::vector<std::pair<int, std::uint64_t>> h;
  h.reserve(into.histogram.size() + from.histogram.size());
  auto a = into.histogram.cbegin();
  auto b = from.histogram.cbegin();
  const auto a_end = into.histogram.cend(), b_end = from.histogram.cend();
  while (a != a_end || b != b_end) {
    if (b == b_end || (a != a_end && a->first < b->first)) {
      h.push_back(*a++);
    } else if (a == a_end || b->first < a->first) {
      h.push_back(*b++);
    } else {
      h.emplace_back(a->first, a->second + b->second);
      ++a;
      ++b;
    }
  }
  into.histogram = std::move(h);
  into.median_s = histogram_median_s(into);
}

profile make_job_profile(std::vector<profile> ranks) {
  if (ranks.empty()) throw input_error("make_job_profile", "ranks", "no rank profiles given");
  // Checked in the caller's order, so that an error names the input by its position.
  std::map<int, std::size_t> seen;  // rank -> input position
  std::optional<std::size_t> run_at;  // the first input that recorded a run id
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    const profile& r = ranks[i];
    const std::string where = "ranks[" + std::to_string(i) + "]";
    if (r.kind != profile_kind::rank) throw input_error("make_job_profile", where + ".kind", "expected a rank profile");
    if (r.mode != ranks.front().mode)
      throw input_error("make_job_profile", where + ".mode",
                        "mode \"" + std::string(progress_mode_name(r.mode)) + "\" differs from ranks[0]'s \"" +
                            std::string(progress_mode_name(ranks.front().mode)) +
                            "\": a job profile does not mix modes");
    if (r.nranks != ranks.front().nranks)
      throw input_error("make_job_profile", where + ".nranks",
                        std::to_string(r.nranks) + " differs from ranks[0]'s nranks " +
                            std::to_string(ranks.front().nranks) + ": the profiles come from different runs");
    if (!r.run.empty() && run_at && ranks[*run_at].run != r.run)
      throw input_error("make_job_profile", where + ".run",
                        "run id \"" + r.run + "\" differs from ranks[" + std::to_string(*run_at) + "]'s \"" +
                            ranks[*run_at].run + "\": the profiles come from different runs");
    if (!r.run.empty() && !run_at) run_at = i;
    if (auto [it, fresh] = seen.emplace(r.rank, i); !fresh)
      throw input_error(
          "make_job_profile", where + ".rank",
          "rank " + std::to_string(r.rank) + " appears twice (also ranks[" + std::to_string(it->second) + "])");
  }
  std::string run = run_at ? ranks[*run_at].run : std::string();  // every recorded id is this one
  std::sort(ranks.begin(), ranks.end(), [](const profile& a, const profile& b) { return a.rank < b.rank; });
  profile job;
  job.run = std::move(run);
  job.kind = profile_kind::job;
  job.rank = 0;
  job.mode = ranks.front().mode;
  job.provider = ranks.front().provider;
  job.command = ranks.front().command;
  job.nranks = ranks.front().nranks;
  job.n_core = ranks.front().n_core;
  job.host = ranks.front().host;  // kept when every rank ran on it
  for (const profile& r : ranks)
    if (r.host != job.host) job.host.reset();
  job.auto_mode = ranks.front().auto_mode;  // the verdicts are collective: every rank has the same ones
  bool first_min[category_count];
  std::fill(std::begin(first_min), std::end(first_min), true);
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    const profile& r = ranks[i];
    job.nranks = std::max(job.nranks, r.nranks);
    job.n_core = std::max(job.n_core, r.n_core);
    job.t_total_s = std::max(job.t_total_s, r.t_total_s);
    job.t_comp_s = std::max(job.t_comp_s, r.t_comp_s);
    for (int c = 0; c < category_count; ++c) {
      auto& into = job.categories[static_cast<std::size_t>(c)];
      const auto& from = r.categories[static_cast<std::size_t>(c)];
      into.time_s += from.time_s;
      into.count += from.count;
      if (from.count > 0) {
        into.min_s = first_min[c] ? from.min_s : std::min(into.min_s, from.min_s);
        first_min[c] = false;
      }
    }
    job.calling_threads = std::max(job.calling_threads, r.calling_threads);
    // The communicating threads' totals are summed as the categories are, and kept only when every rank has them.
    if (i == 0) job.thread_categories = r.thread_categories;
    else if (!r.thread_categories) job.thread_categories.reset();
    else if (job.thread_categories)
      for (std::size_t c = 0; c < category_count; ++c) {
        auto& into = (*job.thread_categories)[c];
        const auto& from = (*r.thread_categories)[c];
        into.min_s = into.count == 0 ? from.min_s : from.count == 0 ? into.min_s : std::min(into.min_s, from.min_s);
        into.time_s += from.time_s;
        into.count += from.count;
      }
    if (r.overlap) {
      if (!job.overlap) {
        job.overlap = overlap_section{};
        job.overlap->xfer_time_source = r.overlap->xfer_time_source;
      } else if (!contains_source(job.overlap->xfer_time_source, r.overlap->xfer_time_source)) {
        job.overlap->xfer_time_source += "; " + r.overlap->xfer_time_source;
      }
      add_bounds(job.overlap->total, r.overlap->total);
      for (const auto& b : r.overlap->by_size) {
        auto it = std::find_if(
            job.overlap->by_size.begin(), job.overlap->by_size.end(),
            [&](const overlap_size_bin& x) { return x.lo_bytes == b.lo_bytes && x.hi_bytes == b.hi_bytes; });
        if (it == job.overlap->by_size.end()) job.overlap->by_size.push_back(b);
        else add_bounds(it->bounds, b.bounds);
      }
      for (const auto& x : r.overlap->by_op) {
        auto it = std::find_if(job.overlap->by_op.begin(), job.overlap->by_op.end(),
                               [&](const overlap_op& y) { return y.op == x.op; });
        if (it == job.overlap->by_op.end()) job.overlap->by_op.push_back(x);
        else add_bounds(it->bounds, x.bounds);
      }
      for (const auto& g : r.overlap->by_region) {
        auto it = std::find_if(job.overlap->by_region.begin(), job.overlap->by_region.end(),
                               [&](const overlap_region& x) { return x.name == g.name; });
        if (it == job.overlap->by_region.end()) job.overlap->by_region.push_back(g);
        else add_bounds(it->bounds, g.bounds);
      }
    }
    for (const auto& g : r.regions) {
      auto it = std::find_if(job.regions.begin(), job.regions.end(),
                             [&](const region_profile& x) { return x.name == g.name; });
      if (it == job.regions.end()) {
        job.regions.push_back(g);
        continue;
      }
      it->entries += g.entries;
      it->time_s += g.time_s;
      for (std::size_t c = 0; c < category_count; ++c) {
        it->categories[c].time_s += g.categories[c].time_s;
        it->categories[c].count += g.categories[c].count;
      }
    }
    if (r.collectives) merge_collectives(job.collectives, *r.collectives);
    merge_limits(job.limits, r.limits, r.rank);
    if (r.progress_thread) {
      if (!job.progress_thread) job.progress_thread = progress_thread_stats{};
      job.progress_thread->busy_s += r.progress_thread->busy_s;
      job.progress_thread->idle_s += r.progress_thread->idle_s;
      job.progress_thread->polls += r.progress_thread->polls;
      job.progress_thread->completions += r.progress_thread->completions;
    }
  }
  if (job.overlap) {
    std::sort(job.overlap->by_size.begin(), job.overlap->by_size.end(),
              [](const overlap_size_bin& a, const overlap_size_bin& b) { return a.lo_bytes < b.lo_bytes; });
    std::sort(job.overlap->by_region.begin(), job.overlap->by_region.end(),
              [](const overlap_region& a, const overlap_region& b) { return a.name < b.name; });
    std::stable_sort(job.overlap->by_op.begin(), job.overlap->by_op.end(),
                     [](const overlap_op& a, const overlap_op& b) { return op_order(a.op) < op_order(b.op); });
  }
  if (job.collectives) {
    auto& kinds = job.collectives->by_kind;
    std::stable_sort(kinds.begin(), kinds.end(), [](const collective_kind_stats& a, const collective_kind_stats& b) {
      return op_order(a.kind) < op_order(b.kind);
    });
    for (auto& k : kinds)
      std::sort(k.ranks.begin(), k.ranks.end(),
                [](const collective_rank_order& a, const collective_rank_order& b) { return a.rank < b.rank; });
  }
  std::sort(job.regions.begin(), job.regions.end(),
            [](const region_profile& a, const region_profile& b) { return a.name < b.name; });
  for (auto& r : ranks) r.nranks = job.nranks;
  job.ranks = std::move(ranks);
  return job;
}

}  // namespace sidecore
