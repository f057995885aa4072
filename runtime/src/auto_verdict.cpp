// The verdict of one SIDECORE_PROGRESS=auto decision (auto_verdict.hpp).
#include "auto_verdict.hpp"

#include <cstdint>
#include <cstdio>

namespace sidecore::detail {

namespace {

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

// pack_veto's layout: the veto's code above bit 50, its figures below (oversubscribed: the node's ranks in bits
// 0-15, the cores of their cpusets in 16-33, the node's cores in 34-49).
constexpr int code_shift = 50;
constexpr std::uint64_t field16 = (1ULL << 16) - 1, field18 = (1ULL << 18) - 1;
constexpr std::uint64_t ppm = 1000000;

std::uint64_t clamp_field(double v, std::uint64_t max) noexcept {
  return v <= 0 ? 0 : v >= static_cast<double>(max) ? max : static_cast<std::uint64_t>(v);
}

// A count as packed: "or more" where it reached its field's largest value.
std::string count(int n, std::uint64_t max, const char* one, const char* many) {
  return std::to_string(n) + (static_cast<std::uint64_t>(n) >= max ? " or more " : " ") + (n == 1 ? one : many);
}

}  // namespace

double pack_veto(const rank_veto& v) noexcept {
  std::uint64_t figures = 0;
  switch (v.why) {
    case auto_veto::none:
    case auto_veto::one_core: break;
    case auto_veto::no_computation: figures = clamp_field(v.comp_share * ppm + 0.5, ppm); break;
    case auto_veto::oversubscribed:
      figures = clamp_field(v.node_ranks, field16) | clamp_field(v.node_cores, field18) << 16 |
                clamp_field(v.machine_cores, field16) << 34;
      break;
    case auto_veto::no_core: figures = clamp_field(v.cores, field16); break;
  }
  return static_cast<double>(static_cast<std::uint64_t>(v.why) << code_shift | figures);
}

rank_veto unpack_veto(double packed) noexcept {
  rank_veto v;
  if (!(packed >= 1) || packed >= static_cast<double>(5ULL << code_shift)) return v;
  const auto p = static_cast<std::uint64_t>(packed);
  const std::uint64_t figures = p & ((1ULL << code_shift) - 1);
  v.why = static_cast<auto_veto>(p >> code_shift);
  switch (v.why) {
    case auto_veto::none:
    case auto_veto::one_core: break;
    case auto_veto::no_computation: v.comp_share = static_cast<double>(figures) / ppm; break;
    case auto_veto::oversubscribed:
      v.node_ranks = static_cast<int>(figures & field16);
      v.node_cores = static_cast<int>(figures >> 16 & field18);
      v.machine_cores = static_cast<int>(figures >> 34 & field16);
      break;
    case auto_veto::no_core: v.cores = static_cast<int>(figures & field16); break;
  }
  return v;
}

job_verdict judge(const job_vote& v, double noise) {
  job_verdict out;
  out.speedup = v.t_dedicated_s > 0 ? v.t_noprogress_s / v.t_dedicated_s : 0.0;
  out.outcome = dedicated::classify(out.speedup, noise);
  const std::string numbers = "the slowest rank's window " + fmt("%.4g", v.t_noprogress_s) + " s (rank " +
                              std::to_string(v.slowest_rank_off) + "), predicted with a dedicated core " +
                              fmt("%.4g", v.t_dedicated_s) + " s (rank " + std::to_string(v.slowest_rank_core) +
                              "), speedup " + fmt("%.3f", out.speedup);
  const std::string who = "rank " + std::to_string(v.veto_rank);
  const rank_veto& veto = v.veto;
  if (veto.why == auto_veto::no_core) {
    out.reason = who + " cannot reserve a core: its cpuset holds " + count(veto.cores, field16, "core", "cores") +
                 ", and mode auto needs at least 2 per rank to consider a dedicated one (e.g. mpiexec -bind-to core:2)";
  } else if (v.force != auto_forced_vote::none) {
    out.core = v.force == auto_forced_vote::core;
    out.forced = true;
    out.reason = std::string("forced by SIDECORE_AUTO_FORCE=") + (out.core ? "core" : "off") + " (the model: " +
                 numbers + ")";
  } else if (veto.why == auto_veto::oversubscribed) {
    out.reason = who + " is oversubscribed: its node runs " + count(veto.node_ranks, field16, "rank", "ranks") +
                 " whose cpusets hold " + count(veto.node_cores, field18, "core", "cores") + " in all, on " +
                 count(veto.machine_cores, field16, "core", "cores") + ", so the window measured ranks sharing cores "
                 "and a progress thread would take a core another rank computes on (give each rank cores of its own, "
                 "e.g. mpiexec -bind-to core:N)";
  } else if (veto.why == auto_veto::one_core) {
    out.reason = who + "'s model has one core (SIDECORE_NCORE=1): with one core there is none to dedicate, and the "
                 "model cannot predict the computation on N_core - 1 = 0 cores";
  } else if (veto.why == auto_veto::no_computation) {
    out.reason = who + " computed " + fmt("%.2g", veto.comp_share * 100) + " % of its window, less than 1 %: a "
                 "dedicated core gains by hiding communication behind computation, and there is none to hide it "
                 "behind (" + numbers + ")";
  } else {
    out.core = out.outcome == dedicated::outcome::pays_off;
    out.reason = numbers + (out.outcome == dedicated::outcome::pays_off          ? ": pays off"
                            : out.outcome == dedicated::outcome::does_not_pay_off ? ": does not pay off"
                                                                                  : ": within the noise band of " +
                                                                                        fmt("%g", noise * 100) + " %");
  }
  return out;
}

}  // namespace sidecore::detail
