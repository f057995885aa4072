// sidecore simulator — what the trace-driven what-if shows (docs/simulate.md): the three scenarios' timelines side by
// side, as one Chrome trace-event JSON (a process per scenario and rank) and as an SVG that also plots seed 003's
// figure, the speedup of each scenario against network bandwidth.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "sidecore/model/sim/whatif.hpp"

namespace sidecore::model::sim {

/// Records what every CPU of a simulation did (an observer for run_whatif).
class busy_recorder final : public sim_observer {
 public:
  struct busy {
    std::uint32_t rank;
    unsigned cpu;
    cpu_work what;
    double begin, end;
  };
  void cpu_busy(std::uint32_t rank, unsigned cpu, cpu_work what, op_id id, double begin, double end) override;
  void message(op_id id, std::uint32_t to, double sent, double received) override;
  [[nodiscard]] const std::vector<busy>& spans() const noexcept { return busy_; }

 private:
  std::vector<busy> busy_;
};

/// Chrome trace JSON of the three scenarios side by side: process "<scenario> / rank R" (pid = scenario × ranks +
/// rank), a track per CPU ("cpu 0: application", "cpu 1: progress"), its calcs and the o of sends and receptions.
[[nodiscard]] std::string whatif_chrome_json(const std::array<const busy_recorder*, 3>& timelines, std::uint32_t ranks);

/// A self-contained SVG: the bandwidth sweep (speedup of dedicated core and ideal overlap against progress in
/// calls, log bandwidth axis) above the three timelines, one row per rank and CPU, on one time axis.
[[nodiscard]] std::string whatif_svg(const std::array<const busy_recorder*, 3>& timelines, std::uint32_t ranks,
                                     const std::array<double, 3>& makespans, const std::vector<sweep_point>& sweep);

}  // namespace sidecore::model::sim
