// sidecore instrument — the thread registry: a thread's first event of a collection registers it (its ring, its
// slot in the table that threads recording transfers on its behalf read).
#include <pthread.h>

#include <algorithm>
#include <cstdio>
#include <vector>

#include "threads.hpp"

namespace sidecore::instrument {

namespace internal {

std::mutex g_registry_mu;
std::array<std::atomic<thread_state*>, max_threads + 1> g_threads{};
std::atomic<std::uint32_t> g_nthreads{0};
std::vector<std::unique_ptr<thread_state>> g_states;
constinit thread_local thread_slot t_slot __attribute__((tls_model("initial-exec")));

namespace {
std::uint64_t g_ring_cap = 4096;  // records per ring of the current collection (g_registry_mu)
bool g_warned_threads = false;
// States of the current collection whose threads have exited (g_registry_mu): a thread that registers once the
// table is full takes one over (counters, ring and id), so a program that makes its calls from many short-lived
// threads (one per task) keeps every call counted. Never the communicating (first calling) thread's state, whose
// calls the window's t_comp is measured against, nor a progress thread's.
std::vector<thread_state*> g_exited;

// The calling thread is exiting (a pthread key's destructor: it runs once the thread's function has returned, with
// its thread-local storage still in place). Its state goes to g_exited unless it is still inside a call or region
// (pthread_exit from within one): its fold state then has an entry with no exit to come.
void on_thread_exit(void*) {
  std::lock_guard lk(g_registry_mu);
  thread_state* st = t_slot.st;
  t_slot.st = nullptr;  // a later event of this thread (another key's destructor) is not recorded
  if (st == nullptr || t_slot.gen != detail::g_hot.generation.load(relaxed)) return;
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
  g_nthreads.store(0, relaxed);
  g_ring_cap = ring_cap;
  g_warned_threads = false;
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
  if (st == nullptr && !g_warned_threads) {
    g_warned_threads = true;
    std::fprintf(stderr, "sidecore: instrument: more than %u threads recorded events at once (or out of memory); "
                 "events of the further threads are not recorded\n", max_threads);
  }
  if (const pthread_key_t* key = exit_key(); st != nullptr && key != nullptr) pthread_setspecific(*key, st);
  t_slot.gen = gen;
  t_slot.st = st;
  return st;
}

}  // namespace internal
}  // namespace sidecore::instrument
