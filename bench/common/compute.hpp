// A calibrated computation for the overlap benchmarks.
//
// The work is a fixed number of dependent integer multiply-adds, not a loop that polls the clock until a
// deadline: if something steals the core while rank 0 "computes" (a progress thread on the wrong core, an
// oversubscribed machine), a fixed amount of work takes longer and the loss shows up in t_total, as it would in
// an application. Calibration converts a wanted duration into a number of steps on the calling thread's core.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>

namespace scb {

class spinner {
 public:
  /// Measures the cost of one step on the calling thread (best of several trials, to skip interruptions).
  spinner() {
    constexpr std::uint64_t steps = 1u << 22;
    double best = 1e30;
    for (int trial = 0; trial < 7; ++trial) {
      auto t0 = std::chrono::steady_clock::now();
      run(steps);
      auto t1 = std::chrono::steady_clock::now();
      best = std::min(best, std::chrono::duration<double>(t1 - t0).count());
    }
    seconds_per_step_ = best / static_cast<double>(steps);
  }

  /// Steps that take about `seconds` on this core.
  [[nodiscard]] std::uint64_t steps_for(double seconds) const {
    return static_cast<std::uint64_t>(std::max(0.0, seconds) / seconds_per_step_);
  }
  [[nodiscard]] double ns_per_step() const { return seconds_per_step_ * 1e9; }

  /// Executes `steps` steps of the dependent chain.
  static void run(std::uint64_t steps) {
    std::uint64_t x = 1;
    for (std::uint64_t i = 0; i < steps; ++i) {
      x = x * 6364136223846793005ULL + 1442695040888963407ULL;  // Knuth's MMIX LCG: one multiply-add per step
      asm volatile("" : "+r"(x));                                // keeps the chain: no folding, no vectorizing
    }
    sink_ = x;
  }

 private:
  double seconds_per_step_ = 1e-9;
  static inline volatile std::uint64_t sink_ = 0;
};

}  // namespace scb
