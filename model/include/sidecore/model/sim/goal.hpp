// sidecore simulator — GOAL, the schedule language of LogGOPSim (spcl/LogGOPSim, txt2bin.re):
//
//   num_ranks 2
//   rank 0 {
//   l1: send 1024b to 1 tag 5        // also: cpu C, nic N after the tag
//   l2: calc 300                     // nanoseconds; optional cpu C
//   l2 requires l1                   // l2 starts after l1 is done
//   l3: recv 8b from -1 tag -1       // -1: any source, any tag
//   l3 irequires l1                  // l3 starts once l1 has started
//   }
//
// docs/simulate.md has the grammar. The reader accepts exactly what LogGOPSim's txt2bin accepts,
// and rejects with file, line and what was expected what it would misread (an operation outside
// a rank block, a rank or peer out of range, a label defined twice, a dependency cycle).
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <string_view>

#include "sidecore/model/sim/schedule.hpp"

namespace sidecore::model::sim {

/// Most ranks a GOAL schedule may declare (num_ranks): the reader and the simulator keep state for every rank before
/// any operation (2^24 ranks: about 1 GiB to simulate), so a larger count is refused rather than allocated.
inline constexpr std::uint64_t max_goal_ranks = std::uint64_t{1} << 24;

/// Parses GOAL text. `source` names it in errors. Throws sidecore::input_error whose source is
/// `source`, whose field is "line N, column C", and whose message says what was expected and
/// what was found.
[[nodiscard]] schedule parse_goal(std::string_view text, const std::string& source);

/// Reads and parses a GOAL file: a regular file of at most max_goal_bytes (a FIFO, a device or a directory is
/// refused without reading). An unreadable, special or oversized file is an input_error naming it.
[[nodiscard]] schedule read_goal_file(const std::string& path);

/// Largest GOAL file read (4 GiB, as for traces: about 10^8 operations of 40 bytes of text).
inline constexpr std::uint64_t max_goal_bytes = 4ULL << 30;

/// Writes `s` as GOAL text that parse_goal (and LogGOPSim's txt2bin) read back to the same
/// schedule. Operations keep their labels; unlabelled ones are named "o<index in the rank>".
void write_goal(const schedule& s, std::ostream& out);

}  // namespace sidecore::model::sim
