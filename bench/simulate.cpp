// bench_simulate: speed of the LogGOPS simulator (docs/simulate.md), no MPI. Google Benchmark.
//
//   BM_BinomialBroadcast/N   generate and simulate a binomial broadcast of 8 B over N ranks (N up to
//                            2^20, the target: under 5 s); counters: events/s, ops
//   BM_SimulateOnly/N        the same, the schedule generated once outside the timed loop
//
// Compare the rates inside one run (events/s should stay flat with N until the per-rank arrays no
// longer fit the caches); the absolute time depends on the machine's load.
#include <benchmark/benchmark.h>

#include "sidecore/model/sim/generators.hpp"
#include "sidecore/model/sim/loggops.hpp"

namespace sim = sidecore::model::sim;

namespace {

void BM_BinomialBroadcast(benchmark::State& state) {
  const auto n = static_cast<std::uint32_t>(state.range(0));
  std::uint64_t events = 0;
  for (auto _ : state) {
    const sim::schedule s = sim::binomial_broadcast(n, 8);
    const sim::sim_result r = sim::simulate(s, sim::loggops_params{});
    events += r.events;
    benchmark::DoNotOptimize(r.finish_ns.data());
  }
  state.counters["events/s"] = benchmark::Counter(static_cast<double>(events), benchmark::Counter::kIsRate);
  state.counters["ranks"] = n;
}

void BM_SimulateOnly(benchmark::State& state) {
  const auto n = static_cast<std::uint32_t>(state.range(0));
  const sim::schedule s = sim::binomial_broadcast(n, 8);
  std::uint64_t events = 0;
  for (auto _ : state) {
    const sim::sim_result r = sim::simulate(s, sim::loggops_params{});
    events += r.events;
    benchmark::DoNotOptimize(r.finish_ns.data());
  }
  state.counters["events/s"] = benchmark::Counter(static_cast<double>(events), benchmark::Counter::kIsRate);
  state.counters["ranks"] = n;
}

}  // namespace

BENCHMARK(BM_BinomialBroadcast)->RangeMultiplier(16)->Range(1 << 8, 1 << 20)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SimulateOnly)->RangeMultiplier(16)->Range(1 << 8, 1 << 20)->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
