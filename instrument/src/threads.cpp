// sidecore instrument — the thread registry: a thread's first event of a collection registers it (its ring, its
// slot in the table that threads recording transfers on its behalf read).
#include <pthread.h>

#include <algorithm>
#include <cstdio>
#include <vector>

#include "regions.hpp"
#include "threads.hpp"

namespace sidecore::instrument {

namespace internal {

std::mutex g_registry_mu;
std::array<std::atomic<thread_state*>, max_threads + 1> g_threads{};
std::atomic<std::uint32_t> g_nthreads{0};
std::vector<std::unique_ptr<thread_state>> g_states;
constinit thread_local thread_slot t_slot __attribute__((tls_model("initial-exec")));
overflow_counters g_overflow;
std::uint64_t g_threads_past_table = 0;

namespace {
// A thread's outermost call while it has no state (the table was full), for the collection `gen`.
struct overflow_slot {
  std::uint64_t gen = 0;
  std::uint64_t enter_t = 0;
  std::uint32_t depth = 0;
  category outer = category::other;
  std::uint16_t region = 0;  // the region path current at the outermost call's entry
  bool called = false;  // counted in g_overflow.callers
};
constinit thread_local overflow_slot t_over;

std::uint64_t g_ring_cap = 4096;  // records per ring of the current collection (g_registry_mu)
bool g_warned_threads = false;
// States of the current collection whose threads have exited (g_registry_mu): a thread that registers once the
// table is full takes one over (counters, ring and id), so a program that makes its calls from many short-lived
// threads (one per task) keeps every call counted. Never the communicating (first calling) thread's state, whose
// calls the window's t_comp is measured against, nor a progress thread's.
std::vector<thread_state*> g_exited;
// The open-region stacks of threads without a state (g_registry_mu): owned here for the collection, and those of
// exited threads handed to the next such thread.
std::vector<std::unique_ptr<overflow_regions>> g_region_stacks;
std::vector<overflow_regions*> g_free_region_stacks;

// A region stack for a thread without a state, or null when memory is short (its regions are then not counted).
overflow_regions* take_region_stack() noexcept {
  try {
    if (!g_free_region_stacks.empty()) {
      overflow_regions* r = g_free_region_stacks.back();
      g_free_region_stacks.pop_back();
      *r = overflow_regions{};  // a thread that exited inside regions left them open: they stay open in the counts
      return r;
    }
    g_region_stacks.push_back(std::make_unique<overflow_regions>());
    return g_region_stacks.back().get();
  } catch (...) {
    return nullptr;
  }
}

// The calling thread is exiting (a pthread key's destructor: it runs once the thread's function has returned, with
// its thread-local storage still in place). Its state goes to g_exited unless it is still inside a call or region
// (pthread_exit from within one): its fold state then has an entry with no exit to come.
void on_thread_exit(void*) {
  std::lock_guard lk(g_registry_mu);
  thread_state* st = t_slot.st;
  overflow_regions* regions = t_slot.regions;
  t_slot.st = nullptr;  // a later event of this thread (another key's destructor) is not recorded
  t_slot.regions = nullptr;
  if (t_slot.gen != detail::g_hot.generation.load(relaxed)) return;
  if (regions != nullptr) {
    try {
      g_free_region_stacks.push_back(regions);
    } catch (...) {  // out of memory: the stack is not reused
    }
  }
  if (st == nullptr) return;
  if (st->depth != 0 || st->region_depth != 0 || st->progress || st->id == detail::g_hot.main_thread.load(relaxed))
    return;
  const std::uint64_t calls = calls_counted(*st);
  if (calls > st->calls_at_takeover) ++st->earlier_callers;
  st->calls_at_takeover = calls;
  try {
    g_exited.push_back(st);
  } catch (...) {  // out of memory: the state is not reused
  }
}

// The key whose destructor tells a registered thread's exit; null when it could not be made (states are then never
// reused: the table fills as before).
const pthread_key_t* exit_key() noexcept {
  static pthread_key_t key{};
  static const bool made = pthread_key_create(&key, on_thread_exit) == 0;
  return made ? &key : nullptr;
}
}  // namespace

void reset_registry(std::uint64_t ring_cap) {
  for (auto& slot : g_threads) slot.store(nullptr, relaxed);
  g_exited.clear();
  g_states.clear();
  g_free_region_stacks.clear();
  g_region_stacks.clear();
  g_nthreads.store(0, relaxed);
  g_ring_cap = ring_cap;
  g_warned_threads = false;
  g_threads_past_table = 0;
  for (std::size_t c = 0; c < category_count; ++c) {
    g_overflow.time[c].store(0, relaxed);
    g_overflow.count[c].store(0, relaxed);
    g_overflow.min[c].store(UINT64_MAX, relaxed);
  }
  g_overflow.callers.store(0, relaxed);
}

void overflow_call_enter(category c, std::uint64_t t) noexcept {
  const std::uint64_t gen = detail::g_hot.generation.load(relaxed);
  if (t_over.gen != gen) t_over = overflow_slot{gen};
  if (t_over.depth++ != 0) return;  // nested: only the outermost call counts
  t_over.outer = c;
  t_over.region = overflow_region();
  t_over.enter_t = t != 0 ? t : detail::ticks();
}

void overflow_call_exit(std::uint64_t t) noexcept {
  if (t_over.gen != detail::g_hot.generation.load(relaxed) || t_over.depth == 0) return;
  if (--t_over.depth != 0) return;
  if (t == 0) t = detail::ticks();
  const std::uint64_t d = t > t_over.enter_t ? t - t_over.enter_t : 0;
  const auto ci = static_cast<std::size_t>(t_over.outer);
  g_overflow.time[ci].fetch_add(d, relaxed);
  g_overflow.count[ci].fetch_add(1, relaxed);
  std::uint64_t m = g_overflow.min[ci].load(relaxed);
  while (d < m && !g_overflow.min[ci].compare_exchange_weak(m, d, relaxed)) {
  }
  if (t_over.region != 0) {
    if (shared_region_counts* sc = shared_counts_of(t_over.region)) {
      sc->call_time[ci].fetch_add(d, relaxed);
      sc->call_count[ci].fetch_add(1, relaxed);
    }
  }
  if (!t_over.called) {
    t_over.called = true;
    g_overflow.callers.fetch_add(1, relaxed);
  }
}

thread_state* register_slow() noexcept {
  std::lock_guard lk(g_registry_mu);
  const std::uint64_t gen = detail::g_hot.generation.load(relaxed);
  if (!detail::g_hot.enabled.load(relaxed)) return nullptr;
  thread_state* st = nullptr;
  const std::uint32_t id = g_nthreads.load(relaxed) + 1;
  if (id <= max_threads) {
    try {
      auto owned = std::make_unique<thread_state>();
      owned->storage = std::make_unique<record[]>(g_ring_cap);
      owned->ring = owned->storage.get();
      owned->cap = g_ring_cap;
      owned->mask = g_ring_cap - 1;
      owned->high_water = std::min<std::uint64_t>(g_ring_cap - g_ring_cap / 4, fold_batch);
      owned->fold_at = owned->high_water;
      owned->id = id;
      st = owned.get();
      g_states.push_back(std::move(owned));
      g_threads[id].store(st, std::memory_order_release);
      g_nthreads.store(id, std::memory_order_release);
    } catch (...) {
      st = nullptr;
    }
  } else if (!g_exited.empty()) {
    st = g_exited.back();
    g_exited.pop_back();
    std::lock_guard lf(st->fold_mu);
    st->name[0] = '\0';  // the trace names the track after the thread that held it first otherwise
  }
  if (st == nullptr && id > max_threads) ++g_threads_past_table;  // not when memory was short: no limit was reached
  if (st == nullptr && !g_warned_threads) {
    g_warned_threads = true;
    std::fprintf(stderr, "sidecore: instrument: more than %u threads recorded events at once (or out of memory): "
                 "the further threads' calls and regions are counted (entries, time and the calls inside them), but "
                 "not their transfers or trace events\n", max_threads);
  }
  const pthread_key_t* key = exit_key();
  // Without the exit key a region stack could not be handed back: the thread's regions are not counted.
  overflow_regions* regions = st == nullptr && key != nullptr ? take_region_stack() : nullptr;
  if (key != nullptr && (st != nullptr || regions != nullptr)) {
    pthread_setspecific(*key, st != nullptr ? static_cast<void*>(st) : static_cast<void*>(regions));
  }
  t_slot.gen = gen;
  t_slot.st = st;
  t_slot.regions = regions;
  t_slot.table_full = st == nullptr;
  return st;
}

}  // namespace internal
}  // namespace sidecore::instrument
