// sidecore — the largest values the readers of the `sidecore` command accept (docs/model.md, "Input limits").
// Beyond them a value cannot come from a real run, and the model's double arithmetic would lose its meaning
// (a count above 2^53 is not exact as a double; a time of 1e308 s overflows t_comp·N/(N−1)).
#pragma once

#include <cstddef>
#include <cstdint>

namespace sidecore {

/// Largest time in seconds a reader accepts: 1e9 s, about 31.7 years.
inline constexpr double max_input_seconds = 1e9;
/// Largest call or transfer count a reader accepts: 2^53, the largest range of integers a double holds exactly.
inline constexpr std::uint64_t max_input_count = std::uint64_t{1} << 53;
/// Largest sidecore profile (JSON) a reader accepts: a job of tens of thousands of ranks stays far below it.
inline constexpr std::size_t max_profile_bytes = std::size_t{256} << 20;
/// Largest mpiP report a reader accepts.
inline constexpr std::size_t max_mpip_report_bytes = std::size_t{256} << 20;
/// Largest scaling or transfer-time table a reader accepts (they hold a few lines).
inline constexpr std::size_t max_table_bytes = std::size_t{1} << 20;
/// Relative slack of the readers' consistency checks (sums of measured times rounded on the way).
inline constexpr double input_rounding = 1e-6;

}  // namespace sidecore
