// The verdict of one SIDECORE_PROGRESS=auto decision (auto_verdict.hpp).
#include "auto_verdict.hpp"

#include <cstdio>

namespace sidecore::detail {

namespace {

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

}  // namespace

job_verdict judge(const job_vote& v, double noise) {
  job_verdict out;
  out.speedup = v.t_dedicated_s > 0 ? v.t_noprogress_s / v.t_dedicated_s : 0.0;
  out.outcome = dedicated::classify(out.speedup, noise);
  const std::string numbers = "the slowest rank's window " + fmt("%.4g", v.t_noprogress_s) + " s (rank " +
                              std::to_string(v.slowest_rank_off) + "), predicted with a dedicated core " +
                              fmt("%.4g", v.t_dedicated_s) + " s (rank " + std::to_string(v.slowest_rank_core) +
                              "), speedup " + fmt("%.3f", out.speedup);
  const std::string who = "rank " + std::to_string(v.veto_rank);
  if (v.veto == auto_veto::no_core) {
    out.reason = who + " cannot reserve a core (fewer than 2 cores in its cpuset)";
  } else if (v.force != auto_forced_vote::none) {
    out.core = v.force == auto_forced_vote::core;
    out.forced = true;
    out.reason = std::string("forced by SIDECORE_AUTO_FORCE=") + (out.core ? "core" : "off") + " (the model: " +
                 numbers + ")";
  } else if (v.veto == auto_veto::oversubscribed) {
    out.reason = who + " is oversubscribed: its node's ranks have more cores in their cpusets than the node has, so "
                 "the window measured ranks sharing cores and a progress thread would take a core another rank "
                 "computes on (give each rank cores of its own, e.g. mpiexec -bind-to core:N)";
  } else if (v.veto == auto_veto::one_core) {
    out.reason = who + "'s model has one core (N_core = 1): with one core there is none to dedicate, and the model "
                 "cannot predict the computation on N_core - 1 = 0 cores";
  } else if (v.veto == auto_veto::no_computation) {
    out.reason = who + " computed less than 1 % of its window: a dedicated core gains by hiding communication behind "
                 "computation, and there is none to hide it behind (" + numbers + ")";
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
