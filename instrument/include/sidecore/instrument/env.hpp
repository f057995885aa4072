// sidecore instrument — strict parsers of the instrumentation's SIDECORE_* settings, for the readers that do not link
// the runtime's settings table (libsidecore-pmpi.so). They accept exactly what the runtime's table accepts
// (runtime/src/settings.cpp; tests/instrument/test_env.cpp checks the same cases) and throw bad_value with the message
// the table gives: the variable, the value quoted, and what is accepted.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace sidecore::instrument::env {

/// A rejected value; what() reads "NAME='value' is not accepted; accepted: ...".
class bad_value : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

/// An integer lo..hi, written in decimal digits only (spaces and tabs around it are ignored). A refusal says
/// "accepted: an integer lo..hi", or `accepted` when given (a setting that takes only some of those integers).
[[nodiscard]] std::uint64_t parse_unsigned(std::string_view name, const std::string& value, std::uint64_t lo,
                                           std::uint64_t hi, std::string_view accepted = {});
/// A power of two lo..hi (lo and hi powers of two), refused as "accepted: a power of two lo..hi" whatever is wrong.
[[nodiscard]] std::uint64_t parse_power_of_two(std::string_view name, const std::string& value, std::uint64_t lo,
                                               std::uint64_t hi);

/// SIDECORE_TRACE_MAX_EVENTS: an integer 1..1000000000.
[[nodiscard]] std::uint64_t parse_trace_max_events(const std::string& value);
/// SIDECORE_RING_EVENTS: a power of two 16..16777216.
[[nodiscard]] std::size_t parse_ring_events(const std::string& value);
/// Most size-bin edges SIDECORE_SIZE_BINS may give: 32 bytes of accumulators each, per rank and per region.
inline constexpr std::size_t max_size_bins = 4096;
/// SIDECORE_SIZE_BINS: strictly increasing byte sizes separated by commas, e.g. 0,1024,65536 (at most max_size_bins).
[[nodiscard]] std::vector<std::size_t> parse_size_bins(const std::string& value);
/// SIDECORE_COLL_SAMPLES: a power of two 16..65536 (collective instances kept per communicator).
[[nodiscard]] std::size_t parse_coll_samples(const std::string& value);
/// SIDECORE_NCORE: an integer 1..1048576 (cores).
[[nodiscard]] int parse_ncore(const std::string& value);

}  // namespace sidecore::instrument::env
