// sidecore instrument — the overlap bounds of seed 000 (Section 2.2), the a-priori transfer-time table and the
// message-size bins. Pure functions and small value types: no global state, no clock, so the arithmetic can be
// tested on synthetic event sequences.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace sidecore::instrument {

/// The state of a transfer's owner thread (the application thread that initiated it) at the instant an
/// XFER_BEGIN or XFER_END was recorded, whichever thread recorded it (see docs/instrument.md, "threading rule").
struct owner_point {
  std::uint64_t t_ns = 0;        ///< when the event happened (now_ns)
  std::uint64_t in_call_ns = 0;  ///< owner's cumulative time inside outermost sidecore calls up to t_ns
  std::uint32_t call_seq = 0;    ///< number of outermost calls the owner had entered up to t_ns
  bool in_call = false;          ///< whether the owner was inside an outermost call at t_ns
};

/// Which case of seed 000, Section 2.2, decided a transfer's bounds.
enum class bound_case : std::uint8_t {
  same_call = 1,   ///< case 1: begin and end inside one call of the owner: no overlap possible
  split = 2,       ///< case 2: begin and end in different calls, computation possibly in between
  one_known = 3,   ///< case 3: only one of XFER_BEGIN / XFER_END could be time-stamped
};

/// Bounds for one transfer, in nanoseconds.
struct overlap_bound {
  std::uint64_t min_ns = 0;   ///< minimum overlapped transfer time
  std::uint64_t max_ns = 0;   ///< maximum overlapped transfer time
  std::uint64_t xfer_ns = 0;  ///< the transfer time the bounds were computed against
  bound_case which = bound_case::one_known;  ///< the case that decided them
};

/// Seed 000, Section 2.2, cases 1 and 2, for a transfer whose XFER_BEGIN and XFER_END are both known.
/// `xfer_ns` is xfer_time(bytes) from the a-priori table, or a negative value when no table is available.
/// Case 1 (begin and end inside the same outermost call of the owner): min = max = 0.
/// Case 2: window = end - begin, noncomputation = owner's in-call time inside the window, computation = the rest;
///   x = min(xfer_time, window) (the physical transfer happened inside the window, so it cannot have taken longer);
///   max = min(computation, x); min = max(0, x - noncomputation).
///   Without a table (xfer_ns < 0) the observed window is the transfer time's only bound: xfer = window,
///   max = computation, min = 0 (the profile says xfer_time_source "measured").
/// Inline: the fold computes one per transfer (docs/instrument.md, "Cost").
[[nodiscard]] inline overlap_bound bound_paired(const owner_point& begin, const owner_point& end,
                                                std::int64_t xfer_ns) noexcept {
  overlap_bound b;
  const std::uint64_t window = end.t_ns > begin.t_ns ? end.t_ns - begin.t_ns : 0;
  // The physical transfer happened between the two events, so it cannot have lasted longer than the window.
  const bool known = xfer_ns >= 0;
  const std::uint64_t x = known ? std::min<std::uint64_t>(static_cast<std::uint64_t>(xfer_ns), window) : 0;
  b.xfer_ns = x;
  if (begin.in_call && end.in_call && begin.call_seq == end.call_seq) {
    // Case 1: both inside one call of the owner: the application could not compute meanwhile.
    b.which = bound_case::same_call;
    return b;
  }
  // Case 2: computation and library time interleaved between the two events.
  b.which = bound_case::split;
  std::uint64_t noncomp = end.in_call_ns > begin.in_call_ns ? end.in_call_ns - begin.in_call_ns : 0;
  noncomp = std::min(noncomp, window);
  const std::uint64_t comp = window - noncomp;
  if (!known) {
    // No a-priori time: the transfer took at most the observed window ("measured"); it may have taken almost
    // nothing, so no overlap is certain, and no more than the computation can have been overlapped.
    b.xfer_ns = window;
    b.max_ns = comp;
    b.min_ns = 0;
    return b;
  }
  b.max_ns = std::min(comp, x);               // computation >= xfer_time ? xfer_time : computation
  b.min_ns = x > noncomp ? x - noncomp : 0;   // noncomputation >= xfer_time ? 0 : xfer_time - noncomputation
  return b;
}

/// Seed 000, case 3 (only one of the two events known; e.g. an eager receive, whose start is invisible to the
/// receiver): min = 0, max = xfer_time, as the seed does in Section 3.2.2. Without a table, both are 0.
[[nodiscard]] inline overlap_bound bound_one_known(std::int64_t xfer_ns) noexcept {
  overlap_bound b;
  b.which = bound_case::one_known;
  if (xfer_ns >= 0) {
    b.xfer_ns = static_cast<std::uint64_t>(xfer_ns);
    b.max_ns = b.xfer_ns;
  }
  return b;
}

/// A-priori transfer time as a function of message size: a piecewise-linear interpolation of measured points.
/// Below the first point the first value is used; above the last, the last segment is extended (bandwidth term).
class xfer_time_table {
 public:
  /// An empty table: no a-priori time (seconds() 0, nanoseconds() -1), source "none".
  xfer_time_table() = default;
  /// Points (bytes, seconds). Throws std::invalid_argument, naming the bad point, when a value is negative or not
  /// finite, or when sizes repeat; the points are sorted by size.
  xfer_time_table(std::vector<std::pair<std::size_t, double>> points, std::string source);

  /// True when the table has no point.
  [[nodiscard]] bool empty() const noexcept { return points_.empty(); }
  /// Where the table came from, as written in the profile ("none" when empty).
  [[nodiscard]] const std::string& source() const noexcept { return source_; }
  /// The points (bytes, seconds), sorted by size.
  [[nodiscard]] const std::vector<std::pair<std::size_t, double>>& points() const noexcept { return points_; }
  /// Interpolated transfer time in seconds (0 when the table is empty).
  [[nodiscard]] double seconds(std::size_t bytes) const noexcept;
  /// Interpolated transfer time in nanoseconds, or -1 when the table is empty.
  [[nodiscard]] std::int64_t nanoseconds(std::size_t bytes) const noexcept;

 private:
  std::vector<std::pair<std::size_t, double>> points_;
  std::string source_ = "none";
};

/// Reads a transfer-time table file: JSON `{"schema": "sidecore-xfer-table", "version": 1,
/// "points": [[bytes, seconds], ...]}`. The source recorded is the path. Throws std::runtime_error naming the file
/// and the problem (unreadable, not JSON, wrong schema or version, bad point).
[[nodiscard]] xfer_time_table read_xfer_time_table(const std::string& path);

/// Default message-size bin edges: 0 and the powers of four from 4 B to 1 GiB.
[[nodiscard]] std::vector<std::size_t> default_size_bin_edges();

/// Message-size bins: bin i is [edges[i], edges[i+1]); the last bin is [edges.back(), unbounded).
class size_bins {
 public:
  /// Edges must be strictly increasing; a missing 0 edge is added so every size has a bin.
  /// Throws std::invalid_argument naming the offending edge otherwise.
  explicit size_bins(std::vector<std::size_t> edges = default_size_bin_edges());
  /// Number of bins (one per edge).
  [[nodiscard]] std::size_t count() const noexcept { return edges_.size(); }
  /// The bin that holds a message of `bytes` bytes.
  [[nodiscard]] std::size_t index(std::size_t bytes) const noexcept;
  /// Inclusive lower edge of bin i (i < count()).
  [[nodiscard]] std::size_t lo(std::size_t i) const noexcept { return edges_[i]; }
  /// Exclusive upper edge, or 0 for the last (unbounded) bin; see `bounded`.
  [[nodiscard]] std::size_t hi(std::size_t i) const noexcept { return i + 1 < edges_.size() ? edges_[i + 1] : 0; }
  /// False for the last bin, which has no upper edge.
  [[nodiscard]] bool bounded(std::size_t i) const noexcept { return i + 1 < edges_.size(); }

 private:
  std::vector<std::size_t> edges_;
};

}  // namespace sidecore::instrument
