// sidecore instrument — the cross-rank side of collective monitoring: clock offsets to rank 0 and the analysis at the
// end of the run (coll_analysis.cpp), whose results the profile assembly writes. Private to instrument/src.
#pragma once

#include <array>
#include <cstdint>
#include <optional>

#include "sidecore/common/profile.hpp"
#include "sidecore/instrument/collectives.hpp"
#include "sidecore/instrument/op_kind.hpp"

namespace sidecore::instrument::internal {

/// What analyze_collectives() found for this rank, per kind.
struct coll_kind_result {
  std::uint64_t sampled = 0;  ///< instances matched across every member
  duration_stats arrival_wait;
  duration_stats departure_wait;
  collective_rank_order order;
};

/// The cross-rank results of the collection: the clock offsets taken, and the analysis.
struct coll_results {
  std::optional<clock_offset> start;  ///< synchronize_clock()'s estimate
  std::uint64_t start_ns = 0;         ///< when it was taken (this rank's now_ns)
  std::optional<clock_offset> end;    ///< analyze_collectives()'s estimate
  std::uint64_t end_ns = 0;
  bool analyzed = false;
  std::uint64_t unmatched = 0;
  std::array<coll_kind_result, op_kind_count> kinds{};
};

/// Forgets the results of an earlier collection (start()).
void reset_collective_results();
/// A copy of the results (the profile assembly).
[[nodiscard]] coll_results collective_results();

}  // namespace sidecore::instrument::internal
