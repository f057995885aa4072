// sctest::omp_parallel: an OpenMP parallel region whose fork and join ThreadSanitizer can see.
#pragma once

#include <atomic>
#include <type_traits>

namespace sctest {

/// Runs body() on each thread of `#pragma omp parallel num_threads(threads)`, like writing the body inside the
/// region, but with its fork and join visible to ThreadSanitizer. libgomp is not instrumented: it starts its pooled
/// threads on a region and joins them through futexes, which TSan does not see, so without this a region's thread
/// touching memory the main thread touched before the region (vectors it built, the region's shared-variable block
/// on its stack) or touches after it is reported as a race, inside sidecore's request code too. Here the region
/// captures nothing (its body names only the two atomics below, which have static storage, so GCC passes no
/// shared-variable block): the main thread publishes the body with a release store, each thread takes it with an
/// acquire load before running it and leaves with an acq_rel increment, which the main thread acquires after the
/// region. That is the ordering OpenMP guarantees, nothing more: races with the progress thread, or between the
/// region's threads, are still reported. body must not throw (as inside any region); one call at a time per call
/// site (the atomics are per lambda type).
template <class F>
void omp_parallel(int threads, F&& body) {
  using body_type = std::remove_reference_t<F>;
  static std::atomic<body_type*> published{nullptr};
  static std::atomic<int> left{0};
  left.store(0, std::memory_order_relaxed);
  published.store(&body, std::memory_order_release);
#pragma omp parallel num_threads(threads)
  {
    (*published.load(std::memory_order_acquire))();
    left.fetch_add(1, std::memory_order_acq_rel);
  }
  (void)left.load(std::memory_order_acquire);
  published.store(nullptr, std::memory_order_relaxed);
}

}  // namespace sctest
