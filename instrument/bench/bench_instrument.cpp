// Cost of sidecore's instrumentation: per recorded event (target <= 25 ns; EventSpace paid 1.1 us) and per monitored
// collective instance (target <= 50 ns), including the
// amortized cost of folding the ring into the accumulators, and the cost of a hook with collection off. The event
// clock is the default one (the TSC where usable; docs/instrument.md, "Event clock"); the *_monotonic cases force
// the CLOCK_MONOTONIC fallback.
// Per-event figures are the "per_event" rate counters (Google Benchmark reports items/s; ns/event = 1e9 / rate).
#include <benchmark/benchmark.h>

#include <cstdio>
#include <thread>

#include "sidecore/instrument/collectives.hpp"
#include "sidecore/instrument/instrument.hpp"

namespace si = sidecore::instrument;
using sidecore::category;

namespace {

void start_profile(si::event_clock clock = si::event_clock::automatic) {
  si::config c;
  c.profile = true;
  c.clock = clock;
  si::start(c, 0, 1);
  si::set_xfer_time_table({{0, 1e-6}, {1 << 20, 1e-4}}, "bench");
}

void per_event(benchmark::State& state, double events_per_iteration) {
  state.counters["ns_per_event"] = benchmark::Counter(
      static_cast<double>(state.iterations()) * events_per_iteration,
      benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

// References: the clocks themselves (every recorded event reads the event clock once).
void BM_now_ns(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(sidecore::now_ns());
  per_event(state, 1);
}
BENCHMARK(BM_now_ns);

void BM_rdtsc(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(si::detail::read_tsc());
  per_event(state, 1);
}
BENCHMARK(BM_rdtsc);

// Collection off: the hooks are one predictable branch each.
void BM_off_call_pair(benchmark::State& state) {
  si::stop();
  for (auto _ : state) {
    si::call_enter(category::wait);
    si::call_exit(category::wait);
    benchmark::ClobberMemory();
  }
  per_event(state, 2);
}
BENCHMARK(BM_off_call_pair);

void BM_off_xfer_pair(benchmark::State& state) {
  si::stop();
  std::uint64_t id = 0;
  for (auto _ : state) {
    si::xfer_begin(++id, 1024, 1, 1);
    si::xfer_end(id, 1);
    benchmark::ClobberMemory();
  }
  per_event(state, 2);
}
BENCHMARK(BM_off_xfer_pair);

// Collection on (profile, no trace): CALL_ENTER + CALL_EXIT, folding included.
void BM_on_call_pair(benchmark::State& state) {
  start_profile();
  state.SetLabel(si::active_clock() == si::event_clock::tsc ? "tsc" : "monotonic");
  for (auto _ : state) {
    si::call_enter(category::test);
    si::call_exit(category::test);
  }
  per_event(state, 2);
  si::stop();
}
BENCHMARK(BM_on_call_pair);

void BM_on_call_pair_monotonic(benchmark::State& state) {
  start_profile(si::event_clock::monotonic);
  for (auto _ : state) {
    si::call_enter(category::test);
    si::call_exit(category::test);
  }
  per_event(state, 2);
  si::stop();
}
BENCHMARK(BM_on_call_pair_monotonic);

// A call inside a region: the call is also added to the region path's counters.
void BM_on_call_pair_in_region(benchmark::State& state) {
  start_profile();
  si::region_enter("solve");
  for (auto _ : state) {
    si::call_enter(category::test);
    si::call_exit(category::test);
  }
  si::region_exit();
  per_event(state, 2);
  si::stop();
}
BENCHMARK(BM_on_call_pair_in_region);

// Nested calls (a blocking call built on nonblocking ones): inner pairs only adjust a depth counter.
void BM_on_nested_call_pair(benchmark::State& state) {
  start_profile();
  si::call_enter(category::blocking);
  for (auto _ : state) {
    si::call_enter(category::wait);
    si::call_exit(category::wait);
  }
  si::call_exit(category::blocking);
  per_event(state, 2);
  si::stop();
}
BENCHMARK(BM_on_nested_call_pair);

// XFER_BEGIN + XFER_END pairs recorded for `owner` (collection already started), 2 events per iteration.
void xfer_pairs(benchmark::State& state, std::uint32_t owner) {
  std::uint64_t id = 0;
  for (auto _ : state) {
    ++id;
    si::xfer_begin(id, 4096, 1, owner);
    si::xfer_end(id, owner);
  }
  per_event(state, 2);
}

// Recorded by the owner thread itself (off mode), paired and bounded at fold time.
void BM_on_xfer_pair_owner(benchmark::State& state) {
  start_profile();
  xfer_pairs(state, si::current_thread_id());
  si::stop();
}
BENCHMARK(BM_on_xfer_pair_owner);

void BM_on_xfer_pair_owner_monotonic(benchmark::State& state) {
  start_profile(si::event_clock::monotonic);
  xfer_pairs(state, si::current_thread_id());
  si::stop();
}
BENCHMARK(BM_on_xfer_pair_owner_monotonic);

// The same inside a region: the transfer's bounds are also added to the region's.
void BM_on_xfer_pair_in_region(benchmark::State& state) {
  start_profile();
  si::region_enter("solve");
  xfer_pairs(state, si::current_thread_id());
  si::region_exit();
  si::stop();
}
BENCHMARK(BM_on_xfer_pair_in_region);

// Recorded for another thread (core mode: the progress thread reads the owner's seqlock).
void BM_on_xfer_pair_for_other_owner(benchmark::State& state) {
  start_profile();
  std::uint32_t owner = 0;
  std::thread([&] { owner = si::current_thread_id(); }).join();
  xfer_pairs(state, owner);
  si::stop();
}
BENCHMARK(BM_on_xfer_pair_for_other_owner);

// A realistic mix: isend (init + XFER_BEGIN), wait (wait + XFER_END): 6 events per iteration.
void BM_on_isend_wait_mix(benchmark::State& state) {
  start_profile();
  const auto me = si::current_thread_id();
  std::uint64_t id = 0;
  for (auto _ : state) {
    ++id;
    si::call_enter(category::init);
    si::xfer_begin(id, 4096, 1, me);
    si::call_exit(category::init);
    si::call_enter(category::wait);
    si::xfer_end(id, me);
    si::call_exit(category::wait);
  }
  per_event(state, 6);
  si::stop();
}
BENCHMARK(BM_on_isend_wait_mix);

void BM_on_region_pair(benchmark::State& state) {
  start_profile();
  for (auto _ : state) {
    si::region_enter("solve");
    si::region_exit();
  }
  per_event(state, 2);
  si::stop();
}
BENCHMARK(BM_on_region_pair);

// A monitored collective instance (collectives.hpp): arrival and departure on the calling thread, folding included
// (pairing, the kind's statistics, the communicator's sample). Target: <= 50 ns per instance (issue 14).
void BM_on_coll_instance(benchmark::State& state) {
  start_profile();
  std::uint64_t seq = 0;
  for (auto _ : state) {
    si::coll_arrive(si::op_kind::allreduce, 7, seq, 64, 4);
    si::coll_depart(7, seq);
    ++seq;
  }
  state.counters["ns_per_instance"] = benchmark::Counter(static_cast<double>(state.iterations()),
                                                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  si::stop();
}
BENCHMARK(BM_on_coll_instance);

// The progress thread's idle hook when there is little to fold (the common case: it runs after every burst).
void BM_idle_fold_hook(benchmark::State& state) {
  start_profile();
  const auto me = si::current_thread_id();
  std::uint64_t id = 0;
  for (auto _ : state) {
    ++id;
    si::xfer_begin(id, 4096, 1, me);
    si::xfer_end(id, me);
    si::fold_current_thread();
  }
  per_event(state, 2);
  si::stop();
}
BENCHMARK(BM_idle_fold_hook);

}  // namespace

BENCHMARK_MAIN();
