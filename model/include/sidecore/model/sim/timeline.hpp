// sidecore simulator — a simulation's timeline as Chrome trace-event JSON (open it in
// https://ui.perfetto.dev): one process per rank, one track per CPU with its calcs and the o of its sends
// and receptions, and every message as an async span from when it left (after the sender's o) to when
// its destination took it in.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sidecore/model/sim/loggops.hpp"

namespace sidecore::model::sim {

/// The most operations a timeline is made for: each takes about 100 bytes while simulating and 300 of JSON
/// (a 2^20-operation timeline is a file of about 300 MB, more than Perfetto's UI opens comfortably), and a
/// collective of 2^24 ranks (2^25 operations) would need some 10 GB.
inline constexpr std::uint64_t max_timeline_ops = std::uint64_t{1} << 20;

class chrome_timeline final : public sim_observer {
 public:
  explicit chrome_timeline(const schedule& s) : s_(s) {}
  void cpu_busy(std::uint32_t rank, unsigned cpu, cpu_work what, op_id id, double begin, double end) override;
  void message(op_id id, std::uint32_t to, double sent, double received) override;
  /// The trace: {"traceEvents": [...], "displayTimeUnit": "ns"}; times in µs with ns precision.
  [[nodiscard]] std::string json() const;

 private:
  struct busy {
    std::uint32_t rank;
    unsigned cpu;
    op_id id;
    double begin, end;
    cpu_work what;
  };
  struct msg {
    op_id id;
    std::uint32_t to;
    double sent, received;
  };
  const schedule& s_;
  std::vector<busy> busy_;
  std::vector<msg> msgs_;
};

}  // namespace sidecore::model::sim
