// sidecore instrument — each rank's clock offset to rank 0's (collectives.hpp, estimate_clock_offset). Ranks of one
// host share one CLOCK_MONOTONIC, so one rank per host measures (its lowest, the host's leader) and hands the result
// to the others: rank 0 serves as many Cristian ping-pong series as there are other hosts, not ranks (a job of 64
// ranks per node spends 1/64 of the time at init and finalize).
#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "clock_sync.hpp"
#include "event_clock.hpp"
#include "host.hpp"

namespace sidecore::instrument {

namespace internal {

namespace {

// Rank 0: each rank's leader, from every rank's host. Ranks of rank 0's host are led by rank 0; a rank that gave
// no host leads itself.
std::vector<std::int32_t> leaders_of(const std::vector<std::string>& hosts) {
  std::vector<std::int32_t> leader(hosts.size());
  std::map<std::string, std::int32_t> first;
  for (std::size_t r = 0; r < hosts.size(); ++r) {
    const auto rank = static_cast<std::int32_t>(r);
    leader[r] = hosts[r].empty() ? rank : first.try_emplace(hosts[r], rank).first->second;
  }
  return leader;
}

// A leader's measurement: `rounds` ping-pongs with rank 0, the one of smallest round trip kept.
clock_offset ping_pong_with_rank0(const exchange& ex, int rounds) {
  clock_offset best;
  best.rtt_ns = -1.0;
  for (int i = 0; i < rounds; ++i) {
    const std::uint64_t ping = static_cast<std::uint64_t>(i);
    const std::uint64_t t1 = now_ns();
    ex.send(0, &ping, sizeof ping);
    std::uint64_t t0 = 0;
    ex.recv(0, &t0, sizeof t0);
    const std::uint64_t t2 = now_ns();
    const double rtt = static_cast<double>(t2 - t1);
    if (best.rtt_ns < 0 || rtt < best.rtt_ns) {
      best.rtt_ns = rtt;
      best.offset_ns = static_cast<double>(t0) - (static_cast<double>(t1) + static_cast<double>(t2)) / 2;
      best.bound_ns = rtt / 2;
    }
  }
  best.method = "ping-pong with rank 0 (Cristian), the smallest round trip of " + std::to_string(rounds);
  return best;
}

}  // namespace

clock_offset estimate_clock_offset_on(const exchange& ex, int rounds, const std::string& host) {
  rounds = std::clamp(rounds, 1, 1000);
  // Every rank's host reaches rank 0 along a tree, each rank's leader goes back to every rank along one (4 bytes a
  // rank), then rank 0 serves the leaders of the other hosts one after another (each ping-pong needs rank 0's clock
  // alone) while each leader passes its result on to its host's other ranks.
  const std::vector<std::string> hosts = gather_to_rank0(ex, host);
  std::vector<std::int32_t> leader(static_cast<std::size_t>(ex.nranks));
  if (ex.rank == 0) leader = leaders_of(hosts);
  broadcast_from_rank0(ex, leader.data(), leader.size() * sizeof(std::int32_t));
  const auto n = static_cast<std::size_t>(ex.nranks);
  const auto me = static_cast<std::size_t>(ex.rank);
  if (ex.rank == 0) {
    for (std::size_t r = 1; r < n; ++r) {
      if (leader[r] != static_cast<std::int32_t>(r)) continue;
      for (int i = 0; i < rounds; ++i) {
        std::uint64_t ping = 0;
        ex.recv(static_cast<int>(r), &ping, sizeof ping);
        const std::uint64_t t = now_ns();
        ex.send(static_cast<int>(r), &t, sizeof t);
      }
    }
    return {0.0, 0.0, 0.0, "rank 0: the reference clock"};
  }
  const int mine = leader[me];
  if (mine == 0) return {0.0, 0.0, 0.0, "same host as rank 0: one CLOCK_MONOTONIC"};
  if (mine == ex.rank) {
    const clock_offset o = ping_pong_with_rank0(ex, rounds);
    const double figures[3] = {o.offset_ns, o.bound_ns, o.rtt_ns};
    for (std::size_t r = me + 1; r < n; ++r)
      if (leader[r] == mine) ex.send(static_cast<int>(r), figures, sizeof figures);
    return o;
  }
  double figures[3] = {};
  ex.recv(mine, figures, sizeof figures);
  return {figures[0], figures[1], figures[2],
          "rank " + std::to_string(mine) + "'s ping-pong with rank 0 (Cristian): the first rank of this host, one "
          "CLOCK_MONOTONIC"};
}

}  // namespace internal

clock_offset estimate_clock_offset(const exchange& ex, int rounds, bool measure_same_host) {
  // Without a boot id a rank cannot know whom it shares a clock with: it measures its own.
  return internal::estimate_clock_offset_on(ex, rounds, measure_same_host ? std::string() : internal::boot_id());
}

}  // namespace sidecore::instrument
