// sidecore instrument — the event clock's calibration: points of the TSC against CLOCK_MONOTONIC and the collection's
// ticks -> nanoseconds fit (docs/instrument.md, "Event clock"). Private to instrument/src; clock.cpp implements it.
#pragma once

#include <cstdint>

namespace sidecore::instrument::internal {

/// One calibration point of the TSC against CLOCK_MONOTONIC: the best (narrowest) of a few rdtsc / now_ns() / rdtsc
/// brackets; `ticks` is the middle of the bracket, `spread` its width in ticks.
struct clock_point {
  std::uint64_t ticks = 0;
  std::uint64_t ns = 0;
  std::uint64_t spread = 0;
};
[[nodiscard]] clock_point sample_clock_point() noexcept;

/// The ticks -> nanoseconds line of a collection: through the start point and the end (or latest) point; the
/// identity for the monotonic clock.
struct clock_fit {
  bool tsc = false;
  bool final_fit = false;
  double ns_per_tick = 1.0;
  clock_point p0, p1;

  /// An event-clock reading in the now_ns() time base.
  [[nodiscard]] std::uint64_t to_ns(std::uint64_t t) const noexcept {
    if (!tsc) return t;
    const double d = static_cast<double>(static_cast<std::int64_t>(t - p0.ticks)) * ns_per_tick;
    const double ns = static_cast<double>(p0.ns) + d;
    return ns <= 0 ? 0 : static_cast<std::uint64_t>(ns + 0.5);
  }
  /// A duration (or a sum of durations) in ticks, in nanoseconds.
  [[nodiscard]] std::uint64_t dur_ns(std::uint64_t d) const noexcept {
    return tsc ? static_cast<std::uint64_t>(static_cast<double>(d) * ns_per_tick + 0.5) : d;
  }
  /// A duration in nanoseconds, in ticks; negative values (no table) pass through.
  [[nodiscard]] std::int64_t ns_to_ticks(std::int64_t ns) const noexcept {
    if (!tsc || ns < 0) return ns;
    return static_cast<std::int64_t>(static_cast<double>(ns) / ns_per_tick + 0.5);
  }
  /// Moves the second point to `p` and refits the slope (when the points are apart in both clocks).
  void refit(const clock_point& p) noexcept {
    p1 = p;
    if (p1.ticks > p0.ticks && p1.ns > p0.ns) {
      ns_per_tick = static_cast<double>(p1.ns - p0.ns) / static_cast<double>(p1.ticks - p0.ticks);
    }
  }
};

/// The collection's fit (one per collection, under a leaf lock taken briefly by folds, the profile and ticks_to_ns).
/// A fit for the clock chosen at start(): for the TSC, the first point and a provisional second one 0.1 ms later.
[[nodiscard]] clock_fit make_fit(bool tsc) noexcept;
/// Installs `f` as the collection's fit (start()).
void install_fit(const clock_fit& f) noexcept;
/// The current fit.
[[nodiscard]] clock_fit current_fit() noexcept;
/// The current fit for a fold: refreshed (a new second point) when the latest point is older than a millisecond and
/// the window is still open, so trace times and table conversions interpolate between measured points.
[[nodiscard]] clock_fit fit_for_fold() noexcept;
/// Takes the final point (the window's end; once) and marks the fit final.
void finish_fit() noexcept;

}  // namespace sidecore::instrument::internal
