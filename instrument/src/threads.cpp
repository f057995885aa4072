// sidecore instrument — the thread registry: a thread's first event of a collection registers it (its ring, its
// slot in the table that threads recording transfers on its behalf read).
#include <algorithm>
#include <cstdio>

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
}  // namespace

void reset_registry(std::uint64_t ring_cap) {
  for (auto& slot : g_threads) slot.store(nullptr, relaxed);
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
  }
  if (st == nullptr && !g_warned_threads) {
    g_warned_threads = true;
    std::fprintf(stderr, "sidecore: instrument: more than %u threads recorded events (or out of memory); events of "
                 "the further threads are not recorded\n", max_threads);
  }
  t_slot.gen = gen;
  t_slot.st = st;
  return st;
}

}  // namespace internal
}  // namespace sidecore::instrument
