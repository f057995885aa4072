// sidecore instrument — region paths ("solve/halo") interned to 16-bit ids (regions.cpp). Private to instrument/src.
#pragma once

#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

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

/// Empties the path table for a new collection.
void reset_regions();
/// The leaf name of path `id` ("?" for an unknown id); takes g_region_mu.
[[nodiscard]] std::string region_leaf(std::uint16_t id);

}  // namespace sidecore::instrument::internal
