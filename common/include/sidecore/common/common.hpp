// sidecore — the small header shared by every part (runtime, progress, instrument, model).
// It holds only what the parts must agree on: the export macro, the clock and the
// call categories of the dedicated-core model (seed 004, Section III-C).
#pragma once

#include <cstdint>
#include <ctime>
#include <string_view>

#if defined(SIDECORE_BUILDING_LIBRARY)
#define SIDECORE_API __attribute__((visibility("default")))
#else
#define SIDECORE_API
#endif

namespace sidecore {

/// Monotonic time in nanoseconds, one clock for every thread of the process
/// (CLOCK_MONOTONIC: comparable across threads and cores, unlike raw TSC on some VMs).
inline std::uint64_t now_ns() noexcept {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::uint64_t>(ts.tv_sec) * 1000000000ULL + static_cast<std::uint64_t>(ts.tv_nsec);
}

/// The model's call categories (seed 004, Section III-C): every sidecore or MPI call is one of these.
enum class category : std::uint8_t {
  blocking = 0,  ///< blocking communication: send, recv, blocking collectives
  init = 1,      ///< nonblocking initiation: isend, irecv, iallreduce, ...
  test = 2,      ///< test, testall, testany
  wait = 3,      ///< wait, waitall, waitany
  other = 4,     ///< everything else (init/finalize, comm management, cancel, ...)
};
inline constexpr int category_count = 5;

/// Stable lower-case name of a category, as written in profiles ("blocking", "init", "test", "wait", "other").
constexpr std::string_view category_name(category c) noexcept {
  switch (c) {
    case category::blocking: return "blocking";
    case category::init: return "init";
    case category::test: return "test";
    case category::wait: return "wait";
    case category::other: return "other";
  }
  return "unknown";
}

}  // namespace sidecore
