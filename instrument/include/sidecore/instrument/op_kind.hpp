// sidecore instrument — the operation a transfer or a monitored collective instance belongs to: point-to-point, or
// one of the collective kinds (issue 14). The transfer hooks take it, so that the overlap bounds break down by kind,
// and the collective monitoring (collectives.hpp) keeps its statistics per kind.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace sidecore::instrument {

/// Point-to-point or a collective kind. The values are stable (they are stored in records).
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
inline constexpr std::size_t op_kind_count = 12;

/// The name written in profiles: "p2p", "barrier", "bcast", "reduce", "allreduce", "gather", "scatter",
/// "allgather", "alltoall", "reduce_scatter_block", "allgatherv", "alltoallv"; "unknown" for a value out of range.
[[nodiscard]] constexpr std::string_view op_kind_name(op_kind k) noexcept {
  constexpr std::string_view names[op_kind_count] = {"p2p",      "barrier",  "bcast",    "reduce",
                                                     "allreduce", "gather",  "scatter",  "allgather",
                                                     "alltoall", "reduce_scatter_block", "allgatherv", "alltoallv"};
  const auto i = static_cast<std::size_t>(k);
  return i < op_kind_count ? names[i] : std::string_view("unknown");
}

/// The kind named `name` (as op_kind_name writes it), or nothing.
[[nodiscard]] constexpr std::optional<op_kind> op_kind_from_name(std::string_view name) noexcept {
  for (std::size_t i = 0; i < op_kind_count; ++i) {
    if (op_kind_name(static_cast<op_kind>(i)) == name) return static_cast<op_kind>(i);
  }
  return std::nullopt;
}

}  // namespace sidecore::instrument
