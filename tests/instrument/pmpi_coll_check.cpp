// Checks the collectives section libsidecore-pmpi.so wrote for pmpi_coll_app.c: every kind with every instance, every
// sampled instance matched across the ranks, the late rank reported last to arrive most often, and the
// other ranks' arrival wait about the sleep (generous bounds: the machine may be loaded; nothing about speed).
// Usage: pmpi_coll_check <job profile> <nranks> <late rank> <sleep ms> <iterations>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>

#include "sidecore/common/input_error.hpp"
#include "sidecore/common/profile.hpp"

namespace {
int failures = 0;
void check(bool ok, const std::string& what) {
  std::fprintf(ok ? stdout : stderr, "%s: %s\n", ok ? "ok" : "FAILED", what.c_str());
  if (!ok) ++failures;
}
}  // namespace

int main(int argc, char** argv) {
  if (argc != 6) {
    std::fprintf(stderr, "usage: pmpi_coll_check <job profile> <nranks> <late rank> <sleep ms> <iterations>\n");
    return 2;
  }
  const int nranks = std::atoi(argv[2]), late = std::atoi(argv[3]);
  const double sleep_s = std::atof(argv[4]) * 1e-3;
  const std::uint64_t iters = std::strtoull(argv[5], nullptr, 10);
  sidecore::profile job;
  try {
    job = sidecore::read_profile_file(argv[1]);
  } catch (const sidecore::input_error& e) {
    std::fprintf(stderr, "FAILED: the job profile does not read back: %s\n", e.what());
    return 1;
  }
  // Instances per rank of each kind: one per iteration, two where the nonblocking form runs too.
  const std::map<std::string, std::uint64_t> per_iteration = {
      {"barrier", 1}, {"bcast", 2},   {"reduce", 1},   {"allreduce", 2}, {"gather", 1}, {"scatter", 1},
      {"allgather", 2}, {"alltoall", 1}, {"reduce_scatter_block", 1}, {"allgatherv", 1}, {"alltoallv", 1}};
  check(job.collectives.has_value(), "the job profile has a collectives section");
  if (!job.collectives) return 1;
  check(job.collectives->unmatched == 0, "every sampled instance matched (unmatched " +
                                             std::to_string(job.collectives->unmatched) + ")");
  check(job.collectives->clock.method.find("same host") != std::string::npos ||
            job.collectives->clock.method.find("reference") != std::string::npos,
        "one host: the clocks are rank 0's (" + job.collectives->clock.method + ")");
  for (const auto& [kind, n] : per_iteration) {
    const sidecore::collective_kind_stats* k = nullptr;
    for (const auto& x : job.collectives->by_kind) {
      if (x.kind == kind) k = &x;
    }
    check(k != nullptr, kind + " is monitored");
    if (k == nullptr) continue;
    const std::uint64_t expected = n * iters * static_cast<std::uint64_t>(nranks);
    check(k->count == expected, kind + ": " + std::to_string(k->count) + " instances over the ranks, expected " +
                                    std::to_string(expected));
    check(k->sampled == expected, kind + ": every instance sampled and matched");
    check(k->ranks.size() == static_cast<std::size_t>(nranks), kind + ": every rank's order");
  }
  // Per rank, all kinds together. On a loaded machine (4 ranks on 2 cores) a rank that is not late may still lose
  // its core for longer than the sleep and arrive last now and then: the late rank must be last most often, at the
  // majority of the instances, and the others' mean wait about the sleep.
  std::map<int, std::uint64_t> last_of;
  std::uint64_t late_sampled = 0;
  for (const auto& r : job.ranks) {
    if (!r.collectives) {
      check(false, "rank " + std::to_string(r.rank) + " has a collectives section");
      continue;
    }
    std::uint64_t sampled = 0, last = 0;
    double wait_sum = 0;
    std::uint64_t waits = 0;
    for (const auto& k : r.collectives->by_kind) {
      sampled += k.sampled;
      for (const auto& o : k.ranks) last += o.last_arrivals;
      wait_sum += k.arrival_wait.mean_s * static_cast<double>(k.arrival_wait.count);
      waits += k.arrival_wait.count;
    }
    last_of[r.rank] = last;
    const double mean_wait = waits > 0 ? wait_sum / static_cast<double>(waits) : 0;
    const std::string who = "rank " + std::to_string(r.rank);
    std::printf("%s: last to arrive at %llu of %llu sampled instances, mean arrival wait %.6f s\n", who.c_str(),
                static_cast<unsigned long long>(last), static_cast<unsigned long long>(sampled), mean_wait);
    if (r.rank == late) {
      late_sampled = sampled;
      check(mean_wait < 0.5 * sleep_s, who + " (late) hardly waits for the others");
    } else {
      check(mean_wait >= 0.5 * sleep_s && mean_wait <= 3 * sleep_s + 0.05,
            who + "'s mean arrival wait is about the late rank's sleep");
    }
  }
  const std::uint64_t late_last = last_of[late];
  check(late_sampled > 0 && late_last * 2 > late_sampled,
        "rank " + std::to_string(late) + " (late) is last to arrive at most of the instances");
  for (const auto& [rank, last] : last_of) {
    if (rank != late) {
      check(last < late_last, "rank " + std::to_string(rank) + " is last to arrive less often than the late rank");
    }
  }
  if (failures == 0) std::printf("pmpi_coll_check: %d ranks OK\n", nranks);
  return failures == 0 ? 0 : 1;
}
