// sidecore instrument — region paths ("solve/halo") interned to 16-bit ids (regions.cpp). Private to instrument/src.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

#include "threads.hpp"

namespace sidecore::instrument::internal {

/// An interned region path. Elements never move (a deque), so threads keep pointers to them in their name caches.
struct region_path {
  std::string path;  // "solve/halo"
  std::string leaf;  // "halo"
  std::uint16_t parent = 0;
};

// The path table (g_region_mu). Index = path id; 0 = no region.
extern std::mutex g_region_mu;
extern std::deque<region_path> g_region_info;

/// The regions of threads without a state (the thread table was full: threads.hpp), per path, in ticks: shared, with
/// atomic read-modify-writes that only such threads pay for (no ring, no fold). Blocks of region_chunk paths,
/// allocated on first use and kept (zeroed) for later collections.
struct shared_region_counts {
  std::atomic<std::uint64_t> entries{0};
  std::atomic<std::uint64_t> time{0};    // of the entries left
  std::atomic<std::uint64_t> open{0};    // entries not left yet
  std::atomic<std::uint64_t> open_t{0};  // their entry times, summed: up to t they lasted open * t - open_t
  std::array<std::atomic<std::uint64_t>, category_count> call_time{};  // outermost calls made while it was innermost
  std::array<std::atomic<std::uint64_t>, category_count> call_count{};
};
extern std::array<std::atomic<shared_region_counts*>, max_region_paths / region_chunk> g_shared_regions;
/// Path `id`'s shared counts; null when memory is short.
[[nodiscard]] shared_region_counts* shared_counts_of(std::uint16_t id) noexcept;

/// The open regions of a thread without a state, as thread_state keeps them: the path each entry made current (its
/// parent's for an entry without a path of its own: bit d of `untracked`) and its entry time; and a small cache of
/// the paths it entered, by the caller's name pointer (a lock per entry otherwise). Given to the thread by the
/// registry (threads.cpp), on the heap: 850 bytes of thread-local storage would count against the static TLS
/// surplus of every thread when the library is dlopened.
struct overflow_regions {
  std::uint32_t depth = 0;  // may exceed max_region_depth: deeper regions are not tracked
  std::uint64_t untracked = 0;
  std::array<std::uint16_t, max_region_depth> path{};
  std::array<std::uint64_t, max_region_depth> t{};
  std::array<thread_state::cached_ptr, 8> cache{};
};

/// REGION_ENTER / EXIT of a thread without a state: counted when the table was full (t_slot.table_full), nothing
/// otherwise.
void overflow_region_enter(std::string_view name, std::uint64_t t) noexcept;
void overflow_region_exit(std::uint64_t t) noexcept;
/// The innermost tracked region path of the calling thread without a state (0: none).
[[nodiscard]] std::uint16_t overflow_region() noexcept;

/// How often the current collection's region entries went past a limit (the profile's "limits"): entries that found
/// the path table full (`unpathed`), and entries nested deeper than max_region_depth (`too_deep`).
struct region_limit_counts {
  std::uint64_t unpathed = 0;
  std::uint64_t too_deep = 0;
};
[[nodiscard]] region_limit_counts region_limits_reached() noexcept;

/// Empties the path table for a new collection.
void reset_regions();
/// The leaf name of path `id` ("?" for an unknown id); takes g_region_mu.
[[nodiscard]] std::string region_leaf(std::uint16_t id);

}  // namespace sidecore::instrument::internal
