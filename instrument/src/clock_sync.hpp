// sidecore instrument — clock offsets to rank 0, measured once per host (clock_sync.cpp). Private to instrument/src.
#pragma once

#include <string>

#include "sidecore/instrument/collectives.hpp"

namespace sidecore::instrument::internal {

/// estimate_clock_offset() with this rank's host named by the caller: ranks that give the same `host` share one
/// CLOCK_MONOTONIC (an empty `host` is a host of its own). The public function passes the kernel's boot id; tests
/// pass made-up hosts to place in-process ranks on several. Collective over `ex`.
[[nodiscard]] clock_offset estimate_clock_offset_on(const exchange& ex, int rounds, const std::string& host);

}  // namespace sidecore::instrument::internal
