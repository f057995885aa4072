// The dedicated-core formula (seed 004, Sections III-B to III-D and IV): dedicated_core.hpp.
#include "sidecore/common/dedicated_core.hpp"

namespace sidecore::dedicated {

double linear_ratio(int n_core) noexcept {
  return n_core >= 2 ? static_cast<double>(n_core) / static_cast<double>(n_core - 1) : 0.0;
}

terms predict(const inputs& in) noexcept {
  const category_totals& blocking = in[category::blocking];
  const category_totals& init = in[category::init];
  const category_totals& test = in[category::test];
  const category_totals& wait = in[category::wait];
  const category_totals& other = in[category::other];
  const double a = in.alpha;
  const auto nb = static_cast<double>(blocking.count);

  terms t;
  for (const category_totals& c : in.categories) t.t_mpi_s += c.time_s;
  // III-B2: computation on N−1 cores.
  t.t_newcomp_s = in.t_comp_s * in.newcomp_ratio;
  // III-C2a: nonblocking calls shrink to their minimum time (Section IV: the shortest measured call).
  t.t_init_s = static_cast<double>(init.count) * init.min_s;
  t.t_test_s = static_cast<double>(test.count) * test.min_s;
  t.t_wait_s = static_cast<double>(wait.count) * wait.min_s;
  // III-C2b: blocking calls. Section IV takes t_MPIblockprogress = 0, so one blocking communication takes the
  // measured mean, and (1−α)·N_blocking·t_MPIblockingcom = (1−α)·t_MPIblocking.
  t.t_blockingcom_s = blocking.count > 0 ? blocking.time_s / nb : 0.0;
  t.t_converted_s = a * nb * (init.min_s + wait.min_s);
  t.t_remaining_blocking_s = (1.0 - a) * nb * t.t_blockingcom_s;
  // III-C2c: other calls do not change.
  t.t_other_s = other.time_s;
  t.t_mpi_dedicated_s =
      (t.t_init_s + t.t_test_s + t.t_wait_s) + (t.t_converted_s + t.t_remaining_blocking_s) + t.t_other_s;
  // III-D.
  t.t_dedicated_s = t.t_newcomp_s + t.t_mpi_dedicated_s;
  t.gain_s = in.t_noprogress_s - t.t_dedicated_s;
  t.speedup = t.t_dedicated_s > 0 ? in.t_noprogress_s / t.t_dedicated_s : 0.0;
  return t;
}

outcome classify(double speedup, double noise) noexcept {
  if (speedup > 1.0 + noise) return outcome::pays_off;
  if (speedup < 1.0 - noise) return outcome::does_not_pay_off;
  return outcome::within_noise;
}

}  // namespace sidecore::dedicated
