// sidecore instrument — the run's id: made by rank 0 at the start of a run and given to every rank, so that the
// profiles of one run can be told from another's (readers refuse to combine rank profiles whose ids differ).
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <exception>
#include <mutex>
#include <random>
#include <string>

#include <fmt/format.h>

#include "collection.hpp"
#include "host.hpp"
#include "sidecore/common/fingerprint.hpp"
#include "sidecore/instrument/collectives.hpp"
#include "sidecore/instrument/instrument.hpp"
#include "threads.hpp"

namespace sidecore::instrument {
namespace {

// 64 bits from the wall clock, the process id, the host and the random device: two runs started in the same
// nanosecond on the same host by the same process id still differ by the random device's bits.
std::string new_run_id() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  const std::uint64_t h = fingerprint64(internal::host_name());
  std::uint64_t r = 0;
  try {
    std::random_device dev;
    r = (static_cast<std::uint64_t>(dev()) << 32) ^ dev();
  } catch (const std::exception&) {
    r = 0;  // no random device: the clock, pid and host still make the id
  }
  const std::uint64_t id =
      (static_cast<std::uint64_t>(ts.tv_sec) * 1000000000ULL + static_cast<std::uint64_t>(ts.tv_nsec)) ^
      (static_cast<std::uint64_t>(getpid()) << 40) ^ h ^ r;
  return fmt::format("{:016x}", id);
}

}  // namespace

void agree_run_id(const exchange& ex) {
  if (!enabled()) return;
  std::array<char, 16> id{};
  if (ex.rank == 0) {
    const std::string mine = new_run_id();
    std::copy(mine.begin(), mine.end(), id.begin());
  }
  broadcast_from_rank0(ex, id.data(), id.size());
  std::lock_guard lk(internal::g_registry_mu);
  internal::g_col.run.assign(id.data(), id.size());
}

}  // namespace sidecore::instrument
