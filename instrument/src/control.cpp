// sidecore instrument — the control API: start and stop a collection, the measured window, the run's description,
// thread names, the progress thread's idle fold, and finishing the trace.
#include <sched.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "coll_analysis.hpp"
#include "coll_monitor.hpp"
#include "collection.hpp"
#include "event_clock.hpp"
#include "fold.hpp"
#include "host.hpp"
#include "regions.hpp"
#include "threads.hpp"
#include "trace_writer.hpp"
#include "sidecore/common/utf8.hpp"

namespace sidecore::instrument {

namespace internal {

collection g_col;

void close_window() noexcept {
  if (!g_col.closed) {
    if (g_col.t_end == 0) g_col.t_end = detail::ticks();
    g_col.closed = true;
    if (const std::uint32_t main = detail::g_hot.main_thread.load(relaxed); main != no_thread) {
      g_col.main_in_call = snapshot_owner(nullptr, main, g_col.t_end).p.in_call_ns;
      if (const thread_state* st = g_threads[main].load(std::memory_order_acquire)) {
        for (std::size_t c = 0; c < category_count; ++c) {
          g_col.main_cats[c] = {st->cats[c].time.load(relaxed), st->cats[c].count.load(relaxed),
                                st->cats[c].min.load(relaxed)};
        }
      }
    }
  }
  finish_fit();
}

namespace {
// The size of the process's CPU affinity mask (at least 1).
int affinity_cores() noexcept {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) != 0) return 1;
  return std::max(1, CPU_COUNT(&set));
}

std::uint64_t round_pow2(std::uint64_t v) {
  std::uint64_t c = 16;
  while (c < v) c <<= 1;
  return c;
}
}  // namespace

}  // namespace internal

using namespace internal;
using detail::g_hot;

namespace detail {
void set_window_end(std::uint64_t t) noexcept { g_col.t_end = t; }
void set_window_start(std::uint64_t t) noexcept { g_col.t_start = t; }
}  // namespace detail

void start(const config& cfg, int rank, int nranks) {
  size_bins bins(cfg.size_bin_edges);  // validates before anything changes
  std::lock_guard lk(g_registry_mu);
  g_hot.enabled.store(false, relaxed);
  g_hot.trace.store(false, relaxed);
  reset_analysis(std::move(bins));
  {
    std::lock_guard la(g_analysis_mu);
    reset_collectives(round_pow2(std::clamp<std::uint64_t>(cfg.coll_samples, 16, 65536)));
  }
  reset_collective_results();
  reset_regions();
  g_col = collection{};
  g_col.cfg = cfg;
  g_col.rank = rank;
  g_col.nranks = nranks;
  g_col.ring_cap = round_pow2(std::clamp<std::uint64_t>(cfg.ring_events, 16, max_ring_events));
  if (cfg.ring_events > max_ring_events && rank == 0) {
    std::fprintf(
        stderr,
        "sidecore: instrument: SIDECORE_RING_EVENTS=%zu would take %.1f MiB per recording thread; a ring never "
        "holds more than %llu records between folds, so rings are capped at %llu records (%llu KiB per "
        "thread; docs/instrument.md, \"Memory bounds\")\n",
        cfg.ring_events, static_cast<double>(cfg.ring_events) * sizeof(record) / (1024.0 * 1024.0),
        static_cast<unsigned long long>(fold_batch), static_cast<unsigned long long>(max_ring_events),
        static_cast<unsigned long long>(max_ring_events * sizeof(record) / 1024));
  }
  g_col.n_core = affinity_cores();  // until set_run_info() says otherwise: the profile is valid without it
  g_col.host = this_host();
  reset_registry(g_col.ring_cap);
  g_hot.main_thread.store(no_thread, relaxed);
  // The event clock: the TSC where it is usable (and not declined), calibrated from now.
  std::string why;
  const bool tsc = cfg.clock != event_clock::monotonic && tsc_usable(&why);
  if (!tsc && cfg.clock != event_clock::monotonic) g_col.clock_note = why;
  const clock_fit fit = make_fit(tsc);
  install_fit(fit);
  g_hot.tsc.store(tsc, relaxed);
  g_col.t_start = detail::ticks();
  if (cfg.trace)
    g_trace.open(path_for_rank(cfg.trace_path, rank), cfg.trace_max_events, rank, fit.to_ns(g_col.t_start));
  g_hot.trace.store(g_trace.active(), relaxed);
  g_hot.generation.fetch_add(1, relaxed);
  g_hot.enabled.store(cfg.profile || g_trace.active(), std::memory_order_release);
}

void claim_communicating_thread() noexcept {
  if (!enabled()) return;
  if (const thread_state* st = self()) g_hot.main_thread.store(st->id, relaxed);
}

void open_window() noexcept {
  if (enabled()) g_col.t_start = detail::ticks();
}

void name_current_thread(std::string_view name) noexcept {
  if (!enabled()) return;
  thread_state* st = self();
  if (st == nullptr) return;
  std::lock_guard lk(st->fold_mu);
  const std::size_t n = std::min(name.size(), sizeof(st->name) - 1);
  std::memcpy(st->name, name.data(), n);
  st->name[n] = '\0';
}

void mark_progress_thread() noexcept {
  if (!enabled()) return;
  name_current_thread("progress");
  if (thread_state* st = self()) {
    std::lock_guard lk(st->fold_mu);
    st->progress = true;
  }
}

void fold_current_thread(std::size_t min_records) noexcept {
  if (!enabled()) return;
  thread_state* st = self();
  if (st == nullptr) return;
  // Records since the owner's last own fold (an upper bound on what the ring holds): private fields only.
  const std::uint64_t held = st->head.load(relaxed) + st->high_water - st->fold_at;
  if (held == 0 || held < std::min<std::uint64_t>(min_records, st->high_water / 4)) return;
  fold_own(st);
}

void set_xfer_time_table(std::vector<std::pair<std::size_t, double>> bytes_to_seconds, std::string source) {
  set_xfer_time_table(xfer_time_table(std::move(bytes_to_seconds), std::move(source)));
}

void set_xfer_time_table(xfer_time_table table) {
  std::lock_guard la(g_analysis_mu);
  g_table = std::move(table);
}

void set_progress_stats(double busy_s, double idle_s, std::uint64_t polls, std::uint64_t completions) noexcept {
  std::lock_guard lk(g_registry_mu);
  g_col.has_progress = true;
  g_col.progress = {busy_s, idle_s, polls, completions};
}

void end_window() noexcept {
  if (!enabled()) return;
  std::lock_guard lk(g_registry_mu);
  if (g_hot.enabled.load(relaxed)) close_window();
}

void set_host_cores(int cores) {
  if (cores < 1)
    throw std::invalid_argument("instrument::set_host_cores: " + std::to_string(cores) + "; accepted: >= 1");
  std::lock_guard lk(g_registry_mu);
  g_col.host.cores = cores;
}

void set_run_info(std::string mode, std::string provider, int n_core, double t_total_s) {
  if (mode != "off" && mode != "core") {
    throw std::invalid_argument("instrument::set_run_info: mode \"" + mode + "\"; accepted: \"off\", \"core\"");
  }
  if (n_core < 1) {
    throw std::invalid_argument("instrument::set_run_info: n_core " + std::to_string(n_core) + "; accepted: >= 1");
  }
  std::lock_guard lk(g_registry_mu);
  g_col.mode = mode == "core" ? progress_mode::core : progress_mode::off;
  g_col.provider = std::move(provider);
  g_col.n_core = n_core;
  g_col.t_total_override = t_total_s;
}


void set_command_line(std::string command) {
  std::string text = valid_utf8(command);
  std::lock_guard lk(g_registry_mu);
  g_col.command = std::move(text);
}

bool write_trace() {
  if (!g_trace.active()) return true;
  fold_all();
  std::vector<std::pair<std::uint32_t, std::string>> names;
  {
    std::lock_guard lk(g_registry_mu);
    for (const auto& st : g_states) {
      std::lock_guard lf(st->fold_mu);
      std::string n = st->name[0] != '\0' ? std::string(st->name) : "thread " + std::to_string(st->id);
      if (st->f_had_region) names.emplace_back(st->id + region_track_offset, n + " regions");
      names.emplace_back(st->id, std::move(n));
    }
  }
  // "ops" only where the operation records are there to replay: the PMPI profiler writes none, and a replay of its
  // traces would find no message and no computation.
  const std::string meta = fmt::format(
      R"("rank":{},"nranks":{},{}{}"mode":{},"provider":{},"eager_max":{},"inject_size":{},"omp_threads":{}{})",
      g_col.rank, g_col.nranks,
      g_col.run.empty() ? std::string() : fmt::format(R"("run":{},)", nlohmann::json(g_col.run).dump()),
      g_col.host.id.empty() ? std::string() : fmt::format(R"("host":{},)", nlohmann::json(g_col.host.id).dump()),
      nlohmann::json(std::string(progress_mode_name(g_col.mode))).dump(), nlohmann::json(g_col.provider).dump(),
      g_col.eager_max, g_col.inject_size, g_col.omp_threads,
      g_col.trace_ops ? R"(,"ops":"sidecore-trace-ops/1")" : "");
  return g_trace.close(names, "rank " + std::to_string(g_col.rank), meta, saved_copy_of(g_trace.path()));
}

void set_trace_info(std::size_t eager_max, std::size_t inject_size, int omp_threads) noexcept {
  g_col.eager_max = eager_max;
  g_col.inject_size = inject_size;
  g_col.omp_threads = omp_threads;
  g_col.trace_ops = true;
}

void detail::trace_post_at(bool send, std::uint64_t req, int peer, int world_peer, int tag, int comm,
                           std::size_t bytes, const char* proto, std::uint64_t t_ns) noexcept {
  try {
    g_trace.op(detail::register_current_thread(), send ? "post_send" : "post_recv", t_ns,
               fmt::format(R"("req":"0x{:x}","peer":{},"world_peer":{},"tag":{},"comm":{},"bytes":{},"proto":"{}")",
                           req, peer, world_peer, tag, comm, bytes, proto));
  } catch (...) {  // formatting failed (out of memory): the trace misses this event, the run goes on
  }
}

void detail::trace_done_at(std::uint64_t req, int source, int world_source, int tag, std::size_t bytes,
                           std::uint64_t t_ns) noexcept {
  try {
    g_trace.op(detail::register_current_thread(), "done", t_ns,
               fmt::format(R"("req":"0x{:x}","source":{},"world_source":{},"tag":{},"bytes":{})", req, source,
                           world_source, tag, bytes));
  } catch (...) {  // as above
  }
}

std::uint64_t trace_events_written() noexcept { return g_trace.written(); }

void stop() {
  {
    std::lock_guard lk(g_registry_mu);
    if (g_hot.enabled.load(relaxed)) close_window();
  }
  write_trace();
  g_hot.enabled.store(false, relaxed);
  g_hot.trace.store(false, relaxed);
  std::lock_guard la(g_analysis_mu);
  if (g_orphan_ends != 0) {
    std::fprintf(stderr, "sidecore: instrument: %llu xfer_end without a matching xfer_begin were ignored\n",
                 static_cast<unsigned long long>(g_orphan_ends));
    g_orphan_ends = 0;
  }
  if (const std::uint64_t d = take_collective_duplicates_locked(); d != 0) {
    std::fprintf(stderr, "sidecore: instrument: %llu collective arrivals or departures were recorded twice for one "
                 "instance; those instances are left out\n", static_cast<unsigned long long>(d));
  }
}

}  // namespace sidecore::instrument
