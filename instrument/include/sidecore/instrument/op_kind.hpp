// sidecore instrument — the operation a transfer or a monitored collective instance belongs to: point-to-point, or
// one of the collective kinds (issue 14). The transfer hooks take it, so that the overlap bounds break down by kind,
// and the collective monitoring (collectives.hpp) keeps its statistics per kind.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "sidecore/common/schedule.hpp"

namespace sidecore::instrument {

/// Point-to-point or a collective kind: p2p, then coll::kind's values in their order, one higher. The values are
/// stable (they are stored in records).
enum class op_kind : std::uint8_t {
  p2p = 0,
  barrier,
  bcast,
  reduce,
  allreduce,
  gather,
  scatter,
  allgather,
  alltoall,
  reduce_scatter_block,
  allgatherv,
  alltoallv,
};
/// Number of op_kind values.
inline constexpr std::size_t op_kind_count = coll::kind_count + 1;
static_assert(static_cast<std::size_t>(op_kind::alltoallv) + 1 == op_kind_count &&
                  static_cast<int>(op_kind::bcast) == static_cast<int>(coll::kind::bcast) + 1,
              "op_kind numbers the collective kinds as coll::kind does, one higher");

/// The name written in profiles: "p2p", then coll::kind_names ("barrier", "bcast", ..., "alltoallv"); "unknown" for
/// a value out of range.
[[nodiscard]] constexpr std::string_view op_kind_name(op_kind k) noexcept {
  const auto i = static_cast<std::size_t>(k);
  if (i == 0) return "p2p";
  return i < op_kind_count ? coll::kind_names[i - 1] : std::string_view("unknown");
}

/// The kind named `name` (as op_kind_name writes it), or nothing.
[[nodiscard]] constexpr std::optional<op_kind> op_kind_from_name(std::string_view name) noexcept {
  for (std::size_t i = 0; i < op_kind_count; ++i) {
    if (op_kind_name(static_cast<op_kind>(i)) == name) return static_cast<op_kind>(i);
  }
  return std::nullopt;
}

}  // namespace sidecore::instrument
