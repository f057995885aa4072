// sidecore instrument — assembling a rank profile (sidecore::profile, common/) from the collection: every thread's call
// counters, the communicating thread's own ones, the analysis' overlap sums (transfers still in flight as case 3),
// region entries, times and calls (sub-regions included) and the run's description, converted from event-clock ticks
// with the window's final fit. The JSON is written by the profile library, the one definition of the schema.
#include <algorithm>
#include <optional>
#include <unordered_map>

#include "coll_analysis.hpp"
#include "coll_monitor.hpp"
#include "collection.hpp"
#include "fold.hpp"
#include "regions.hpp"
#include "sidecore/common/profile.hpp"
#include "threads.hpp"
#include "trace_writer.hpp"
#include "sidecore/common/utf8.hpp"

namespace sidecore::instrument {

using namespace internal;

namespace {

// A duration (or a sum of durations) in ticks, in seconds, as the profile writes it: rounded to the nanosecond first.
double seconds(std::uint64_t ticks, const clock_fit& f) { return static_cast<double>(f.dur_ns(ticks)) * 1e-9; }

overlap_bounds bounds_of(const overlap_acc& a, const clock_fit& f) {
  return {seconds(a.min_ns, f), seconds(a.max_ns, f), seconds(a.xfer_ns, f), a.count};
}

category_totals totals_of(const category_acc& a, const clock_fit& f) {
  return {seconds(a.time_ns, f), a.count, a.count == 0 ? 0.0 : seconds(a.min_ns, f)};
}

// The clock offset of the cross-rank figures: the estimate at the start, followed to the one at the end.
clock_offset_info clock_of(const coll_results& r) {
  if (!r.start && !r.end) return {0.0, 0.0, 0.0, "not estimated: no cross-rank analysis ran"};
  const clock_offset& first = r.start ? *r.start : *r.end;
  clock_offset_info c{first.offset_ns * 1e-9, first.bound_ns * 1e-9, first.rtt_ns * 1e-9, first.method};
  if (r.start && r.end) {
    c.bound_s = std::max(r.start->bound_ns, r.end->bound_ns) * 1e-9;
    if (r.end->rtt_ns > 0 && (c.rtt_s == 0 || r.end->rtt_ns * 1e-9 < c.rtt_s)) c.rtt_s = r.end->rtt_ns * 1e-9;
    if (r.end->offset_ns != r.start->offset_ns) {
      c.method += "; " + std::to_string(r.end->offset_ns * 1e-9) + " s at the end, interpolated in between";
    }
  }
  return c;
}

// The "collectives" section: every completed instance's latency per kind, and the cross-rank figures
// analyze_collectives() sent back. Absent when the rank completed no collective.
std::optional<collectives_section> collectives_of(int rank) {
  collectives_section c;
  {
    std::lock_guard la(g_analysis_mu);
    const auto& kinds = collective_kinds_locked();
    for (std::size_t k = 0; k < op_kind_count; ++k) {
      if (kinds[k].count == 0) continue;
      collective_kind_stats s;
      s.kind = std::string(op_kind_name(static_cast<op_kind>(k)));
      s.count = kinds[k].count;
      s.bytes = kinds[k].bytes;
      s.latency = kinds[k].latency.stats();
      c.by_kind.push_back(std::move(s));
    }
    c.sample_capacity = collective_sample_capacity_locked();
  }
  if (c.by_kind.empty()) return std::nullopt;
  const coll_results r = collective_results();
  c.clock = clock_of(r);
  c.unmatched = r.unmatched;
  for (collective_kind_stats& s : c.by_kind) {
    const auto k = static_cast<std::size_t>(*op_kind_from_name(s.kind));
    if (!r.analyzed) continue;
    const coll_kind_result& x = r.kinds[k];
    s.sampled = std::min(x.sampled, s.count);
    s.arrival_wait = x.arrival_wait;
    s.departure_wait = x.departure_wait;
    collective_rank_order o = x.order;
    o.rank = rank;
    s.ranks.push_back(o);
  }
  return c;
}

// The regions of threads past the thread table (regions.hpp): entries and time (open entries up to t_end) added to
// `stats`, their calls to `calls_excl`. Read while such threads may still add: the open entries' sums are clamped.
void add_shared_regions(std::vector<region_stat>& stats,
                        std::vector<std::array<call_sum, category_count>>& calls_excl, std::size_t npaths,
                        std::uint64_t t_end) {
  for (std::size_t k = 0; k < g_shared_regions.size() && k * region_chunk < npaths; ++k) {
    const shared_region_counts* chunk = g_shared_regions[k].load(std::memory_order_acquire);
    if (chunk == nullptr) continue;
    for (std::size_t id = k * region_chunk; id < std::min(npaths, (k + 1) * region_chunk); ++id) {
      const shared_region_counts& c = chunk[id % region_chunk];
      const std::uint64_t entries = c.entries.load(relaxed);
      if (entries == 0) continue;
      const std::uint64_t open_until_end = c.open.load(relaxed) * t_end;
      const std::uint64_t open_t = c.open_t.load(relaxed);
      stats[id].entries += entries;
      stats[id].time += c.time.load(relaxed) + (open_until_end > open_t ? open_until_end - open_t : 0);
      for (std::size_t ci = 0; ci < category_count; ++ci) {
        const std::uint64_t n = c.call_count[ci].load(relaxed);
        if (n == 0) continue;
        if (calls_excl.size() <= id) calls_excl.resize(id + 1);
        calls_excl[id][ci].count += n;
        calls_excl[id][ci].time += c.call_time[ci].load(relaxed);
      }
    }
  }
}

// The limits this collection reached, in the schema's kind order; none (nothing written) in a run within them.
std::vector<limit_hit> limits_reached() {
  std::vector<limit_hit> out;
  std::uint64_t threads = 0;
  bool traced = false;
  {
    std::lock_guard lk(g_registry_mu);
    threads = g_threads_past_table;
    traced = g_col.cfg.trace;  // g_trace keeps an earlier collection's figures when this one opened none
  }
  if (threads != 0) out.push_back(make_limit_hit("thread_table", max_threads, threads));
  const region_limit_counts r = region_limits_reached();
  if (r.unpathed != 0) out.push_back(make_limit_hit("region_paths", max_region_paths - 1, r.unpathed));
  if (r.too_deep != 0) out.push_back(make_limit_hit("region_depth", max_region_depth, r.too_deep));
  if (const auto [bound, refused] = g_trace.bound_and_refused(); traced && refused != 0)
    out.push_back(make_limit_hit("trace_events", bound, refused));
  return out;
}

}  // namespace

profile rank_profile() {
  fold_all();
  profile p;
  std::uint64_t t_end = 0;
  // Per category, the outermost calls of every thread (ticks).
  std::array<category_acc, category_count> cats{};
  // Per region path, calls made while it was the innermost path (ticks), summed over threads.
  std::vector<std::array<call_sum, category_count>> region_calls_excl;
  // Open regions (still entered at the window's end): path id and entry time.
  std::vector<std::pair<std::uint16_t, std::uint64_t>> open_regions;
  clock_fit f;
  {
    std::lock_guard lk(g_registry_mu);
    close_window();
    f = current_fit();
    t_end = g_col.t_end;
    p.kind = profile_kind::rank;
    p.rank = g_col.rank;
    p.nranks = g_col.nranks;
    p.mode = g_col.mode;
    p.provider = g_col.provider;
    p.n_core = g_col.n_core;
    if (!g_col.host.id.empty()) p.host = g_col.host;
    const std::uint64_t window = t_end > g_col.t_start ? t_end - g_col.t_start : 0;
    p.t_total_s = g_col.t_total_override >= 0 ? g_col.t_total_override : seconds(window, f);
    // t_comp: time outside sidecore calls on the thread that communicates (the first thread that made a call),
    // over the same window as t_total.
    const std::uint64_t in_calls = std::min(g_col.main_in_call, window);
    p.t_comp_s = seconds(window - in_calls, f);
    p.command = g_col.command;
    p.run = g_col.run;
    p.event_clock = event_clock_info{f.tsc ? "tsc" : "monotonic", f.tsc ? 1e9 / f.ns_per_tick : 0.0, g_col.clock_note};
    if (g_col.has_progress) p.progress_thread = g_col.progress;
    // The communicating thread's calls inside the window (close_window() took them): t_comp_s is measured on that
    // thread, so these never sum above t_total_s.
    if (detail::g_hot.main_thread.load(relaxed) != no_thread) {
      std::array<category_totals, category_count> own{};
      for (std::size_t c = 0; c < category_count; ++c) own[c] = totals_of(g_col.main_cats[c], f);
      p.thread_categories = own;
    }
    int calling = 0;
    for (const auto& st : g_states) {
      for (std::size_t c = 0; c < category_count; ++c) {
        const cat_counter& a = st->cats[c];
        category_acc acc;
        acc.time_ns = a.time.load(relaxed);
        acc.count = a.count.load(relaxed);
        acc.min_ns = a.min.load(relaxed);
        cats[c].merge(acc);
      }
      calling += static_cast<int>(callers_of(*st));
      for (std::size_t k = 0; k < st->region_chunks.size(); ++k) {
        const region_calls* chunk = st->region_chunks[k].load(std::memory_order_acquire);
        if (chunk == nullptr) continue;
        for (std::size_t i = 0; i < region_chunk; ++i) {
          const std::size_t id = k * region_chunk + i;
          for (std::size_t c = 0; c < category_count; ++c) {
            const std::uint64_t n = chunk[i].count[c].load(relaxed);
            if (n == 0) continue;
            if (region_calls_excl.size() <= id) region_calls_excl.resize(id + 1);
            region_calls_excl[id][c].count += n;
            region_calls_excl[id][c].time += chunk[i].time[c].load(relaxed);
          }
        }
      }
      std::lock_guard lf(st->fold_mu);
      for (std::uint32_t d = 0; d < std::min(st->f_region_depth, max_region_depth); ++d) {
        open_regions.emplace_back(st->f_region_id[d], st->f_region_t[d]);
      }
    }
    for (std::size_t c = 0; c < category_count; ++c) {
      category_acc acc;  // threads past the thread table (threads.hpp)
      acc.time_ns = g_overflow.time[c].load(relaxed);
      acc.count = g_overflow.count[c].load(relaxed);
      acc.min_ns = g_overflow.min[c].load(relaxed);
      cats[c].merge(acc);
    }
    calling += static_cast<int>(g_overflow.callers.load(relaxed));
    p.calling_threads = calling;
  }
  for (std::size_t c = 0; c < category_count; ++c) p.categories[c] = totals_of(cats[c], f);
  {
    std::lock_guard la(g_analysis_mu);
    overlap_acc total = total_locked();
    std::vector<overlap_acc> by_size = g_by_size;
    std::vector<overlap_acc> by_region = g_by_region;
    auto by_op = g_by_op;
    // Transfers with only one event so far count as case 3 (not consumed: a later profile may pair them).
    g_pending.for_each([&](const pending_xfer& px) {
      if (!px.is_begin) return;  // an end whose begin never came carries no size: see g_orphan_ends
      const overlap_bound b = bound_one_known(table_ticks(px.bytes, f));
      const overlap_acc one{b.min_ns, b.max_ns, b.xfer_ns, 1};
      total += one;
      if (g_bins) by_size[g_bins->index(static_cast<std::size_t>(px.bytes))] += one;
      by_op[px.op & low_bits] += one;
      if (px.s.region != 0) {
        if (px.s.region >= by_region.size()) by_region.resize(px.s.region + 1u);
        by_region[px.s.region] += one;
      }
    });
    overlap_section& o = p.overlap.emplace();
    o.total = bounds_of(total, f);
    o.xfer_time_source = !g_table.empty() ? g_table.source() : total.count != 0 ? "measured" : "none";
    if (g_bins) {
      for (std::size_t i = 0; i < by_size.size(); ++i) {
        if (by_size[i].count == 0) continue;
        // The schema's bins are inclusive on both ends; the last bin is unbounded.
        o.by_size.push_back({g_bins->lo(i), g_bins->bounded(i) ? g_bins->hi(i) - 1 : UINT64_MAX,
                             bounds_of(by_size[i], f)});
      }
    }
    for (std::size_t k = 0; k < op_kind_count; ++k) {  // kinds past op_kind_count cannot be recorded
      if (by_op[k].count != 0)
        o.by_op.push_back({std::string(op_kind_name(static_cast<op_kind>(k))), bounds_of(by_op[k], f)});
    }
    // Regions: entries and wall time per path (open entries run to the window's end), and calls with sub-regions
    // included (each path's own calls added to every ancestor).
    std::vector<region_stat> stats = g_region_stats;
    std::lock_guard lr(g_region_mu);
    // Overlap by region: each transfer was counted in its innermost path; add it to every ancestor too, so that a
    // region's bounds include its sub-regions' as its time and calls do.
    std::unordered_map<std::uint16_t, overlap_acc> incl_overlap;
    for (std::size_t rid = 1; rid < by_region.size(); ++rid) {
      if (by_region[rid].count == 0) continue;
      for (std::size_t a = rid; a != 0 && a < g_region_info.size(); a = g_region_info[a].parent) {
        incl_overlap[static_cast<std::uint16_t>(a)] += by_region[rid];
      }
    }
    for (const auto& [rid, acc] : incl_overlap) {
      o.by_region.push_back({valid_utf8(g_region_info[rid].path), bounds_of(acc, f)});
    }
    std::sort(o.by_region.begin(), o.by_region.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
    const std::size_t npaths = g_region_info.size();
    stats.resize(std::max(stats.size(), npaths));
    for (const auto& [id, t0] : open_regions) {
      if (id < stats.size()) stats[id].time += t_end > t0 ? t_end - t0 : 0;
    }
    add_shared_regions(stats, region_calls_excl, npaths, t_end);
    std::vector<std::array<call_sum, category_count>> incl(npaths);
    for (std::size_t id = 1; id < std::min(npaths, region_calls_excl.size()); ++id) {
      for (std::size_t a = id; a != 0; a = g_region_info[a].parent) {
        for (std::size_t c = 0; c < category_count; ++c) {
          incl[a][c].time += region_calls_excl[id][c].time;
          incl[a][c].count += region_calls_excl[id][c].count;
        }
      }
    }
    for (std::size_t id = 1; id < npaths; ++id) {
      if (stats[id].entries == 0) continue;
      region_profile r;
      r.name = valid_utf8(g_region_info[id].path);
      r.entries = stats[id].entries;
      r.time_s = seconds(stats[id].time, f);
      for (std::size_t c = 0; c < category_count; ++c)
        r.categories[c] = {seconds(incl[id][c].time, f), incl[id][c].count};
      p.regions.push_back(std::move(r));
    }
    std::sort(p.regions.begin(), p.regions.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  }
  p.collectives = collectives_of(p.rank);
  p.limits = limits_reached();
  return p;
}

std::string rank_profile_json() { return format_profile(rank_profile()); }

}  // namespace sidecore::instrument
