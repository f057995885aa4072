// Strict parsers of the instrumentation's settings (see env.hpp): the same values and messages as the runtime's
// settings table.
#include "sidecore/instrument/env.hpp"

#include <cerrno>
#include <cstdlib>

namespace sidecore::instrument::env {

namespace {

[[noreturn]] void reject(std::string_view name, const std::string& value, std::string_view accepted) {
  throw bad_value(std::string(name) + "='" + value + "' is not accepted; accepted: " + std::string(accepted));
}

std::string trim(const std::string& v) {
  const auto b = v.find_first_not_of(" \t");
  const auto e = v.find_last_not_of(" \t");
  return b == std::string::npos ? std::string() : v.substr(b, e - b + 1);
}

}  // namespace

std::uint64_t parse_unsigned(std::string_view name, const std::string& value, std::uint64_t lo, std::uint64_t hi,
                             std::string_view accepted_text) {
  const std::string v = trim(value);
  const std::string accepted = accepted_text.empty()
                                   ? "an integer " + std::to_string(lo) + ".." + std::to_string(hi)
                                   : std::string(accepted_text);
  if (v.empty() || v.find_first_not_of("0123456789") != std::string::npos) reject(name, value, accepted);
  errno = 0;
  char* end = nullptr;
  const unsigned long long n = std::strtoull(v.c_str(), &end, 10);
  if (errno == ERANGE || *end != '\0' || n < lo || n > hi) reject(name, value, accepted);
  return n;
}

std::uint64_t parse_power_of_two(std::string_view name, const std::string& value, std::uint64_t lo,
                                 std::uint64_t hi) {
  const std::string accepted = "a power of two " + std::to_string(lo) + ".." + std::to_string(hi);
  const std::uint64_t n = parse_unsigned(name, value, lo, hi, accepted);
  if ((n & (n - 1)) != 0) reject(name, value, accepted);
  return n;
}

std::uint64_t parse_trace_max_events(const std::string& value) {
  return parse_unsigned("SIDECORE_TRACE_MAX_EVENTS", value, 1, 1000000000);
}

std::size_t parse_ring_events(const std::string& value) {
  return static_cast<std::size_t>(parse_power_of_two("SIDECORE_RING_EVENTS", value, 16, 1U << 24));
}

std::vector<std::size_t> parse_size_bins(const std::string& value) {
  constexpr std::string_view name = "SIDECORE_SIZE_BINS";
  constexpr std::string_view accepted =
      "strictly increasing byte sizes separated by commas, e.g. 0,1024,65536 (at most 4096 of them)";
  std::vector<std::size_t> edges;
  for (std::size_t pos = 0;;) {
    const std::size_t comma = value.find(',', pos);
    const std::string item = trim(value.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos));
    if (item.empty() || item.find_first_not_of("0123456789") != std::string::npos) reject(name, value, accepted);
    errno = 0;
    char* end = nullptr;
    const unsigned long long n = std::strtoull(item.c_str(), &end, 10);
    if (errno == ERANGE || *end != '\0' || n > UINT64_MAX / 2) reject(name, value, accepted);
    if (!edges.empty() && n <= edges.back()) reject(name, value, accepted);
    if (edges.size() == max_size_bins) reject(name, value, accepted);
    edges.push_back(static_cast<std::size_t>(n));
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  return edges;
}

std::size_t parse_coll_samples(const std::string& value) {
  return static_cast<std::size_t>(parse_power_of_two("SIDECORE_COLL_SAMPLES", value, 16, 65536));
}

int parse_ncore(const std::string& value) {
  return static_cast<int>(parse_unsigned("SIDECORE_NCORE", value, 1, 1U << 20));
}

}  // namespace sidecore::instrument::env
