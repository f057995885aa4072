// sidecore instrument — what a rank profile holds, assembled from the collection (profile_assembly.cpp) and rendered
// as JSON (profile.cpp). Private to instrument/src.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "accumulators.hpp"
#include "sidecore/common/common.hpp"

namespace sidecore::instrument::internal {

/// Everything a rank profile holds, in nanoseconds (converted from event-clock ticks); turned into JSON by profile.cpp.
struct profile_data {
  int rank = 0;
  int nranks = 1;
  std::string mode = "off";
  std::string provider = "unknown";
  int n_core = 0;
  double t_total_s = 0;
  double t_comp_s = 0;
  std::string command;  ///< optional command line
  std::array<category_acc, category_count> categories{};
  std::string xfer_time_source = "none";
  overlap_acc total;
  struct bin {
    std::uint64_t lo = 0;
    std::uint64_t hi = 0;
    bool bounded = true;
    overlap_acc acc;
  };
  std::vector<bin> by_size;  ///< non-empty bins only, ascending
  struct region {
    std::string name;
    overlap_acc acc;
  };
  std::vector<region> by_region;  ///< regions with transfers, by name
  struct region_time {
    std::string name;
    std::uint64_t entries = 0;
    std::uint64_t time_ns = 0;  ///< wall time per entry, summed (sub-regions included)
    std::array<call_sum, category_count> cats{};  ///< outermost calls made inside the region (ns), sub-regions included
  };
  std::vector<region_time> regions;  ///< every region path entered, by name
  std::string clock_source = "monotonic";  ///< the event clock: "tsc" or "monotonic"
  double tsc_hz = 0;                       ///< the fitted TSC rate (tsc only)
  std::string clock_note;                  ///< why not the TSC, when it was wanted and could not serve
  bool has_progress = false;  ///< a progress thread ran (set_progress_stats was called)
  double progress_busy_s = 0;
  double progress_idle_s = 0;
  std::uint64_t progress_polls = 0;
  std::uint64_t progress_completions = 0;
};

/// Renders a rank profile (profile.cpp).
[[nodiscard]] std::string rank_profile_to_json(const profile_data& p);

}  // namespace sidecore::instrument::internal
