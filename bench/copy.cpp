// bench_copy — the engine's byte copy (progress/src/copy.hpp) against glibc's memcpy, by size and by the distance
// between destination and source modulo a 4 KiB page (1-31 bytes is where `rep movsb` is slow on some AMD CPUs).
// Run: bench_copy [--benchmark_*]; arguments of each case: bytes, distance.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "copy.hpp"

namespace {

struct page_buffers {
  explicit page_buffers(std::size_t bytes) : size(bytes + 8192) {
    src = static_cast<char*>(std::aligned_alloc(4096, size));
    dst = static_cast<char*>(std::aligned_alloc(4096, size));
    if (!src || !dst) std::abort();
    std::memset(src, 1, size);
    std::memset(dst, 0, size);
  }
  ~page_buffers() {
    std::free(src);
    std::free(dst);
  }
  page_buffers(const page_buffers&) = delete;
  page_buffers& operator=(const page_buffers&) = delete;
  std::size_t size;
  char* src = nullptr;
  char* dst = nullptr;
};

template <class Copy>
void run(benchmark::State& state, Copy copy) {
  const auto bytes = static_cast<std::size_t>(state.range(0));
  const auto distance = static_cast<std::size_t>(state.range(1));
  page_buffers b(bytes);
  char* const dst = b.dst + distance;
  for (auto _ : state) {
    copy(dst, b.src, bytes);
    benchmark::DoNotOptimize(dst);
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(bytes));
}

void BM_memcpy(benchmark::State& state) {
  run(state, [](char* d, const char* s, std::size_t n) { std::memcpy(d, s, n); });
}
void BM_copy_bytes(benchmark::State& state) { run(state, sidecore::progress::copy_bytes); }

void cases(benchmark::internal::Benchmark* b) {
  for (std::int64_t bytes : {4096, 8192, 65536, 262144, 1048576})
    for (std::int64_t distance : {0, 16, 64}) b->Args({bytes, distance});
}

}  // namespace

BENCHMARK(BM_memcpy)->Apply(cases);
BENCHMARK(BM_copy_bytes)->Apply(cases);
BENCHMARK_MAIN();
