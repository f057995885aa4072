// sidecore instrument — the host a rank runs on (profile "host"): which ranks shared one machine's CPUs, and how
// many cores it has, so that the model can tell a run that measured oversubscription (docs/model.md).
#include <unistd.h>

#include <array>
#include <cstdio>
#include <string>

#include <fmt/format.h>

#include "host.hpp"
#include "sidecore/common/fingerprint.hpp"

namespace sidecore::instrument::internal {

host_info this_host() {
  // The boot id names the running kernel: processes in containers of one machine share it (and its CPUs), two
  // machines of the same host name do not.
  std::string key;
  if (std::FILE* f = std::fopen("/proc/sys/kernel/random/boot_id", "re")) {
    std::array<char, 64> b{};
    if (std::fgets(b.data(), static_cast<int>(b.size()), f) != nullptr) key = std::string("boot:") + b.data();
    std::fclose(f);
  }
  if (key.size() <= 6) {
    std::array<char, 256> name{};
    (void)gethostname(name.data(), name.size() - 1);
    key = std::string("host:") + name.data();
  }
  host_info h;
  h.id = fmt::format("{:016x}", fingerprint64(key));
  const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  h.cores = cpus >= 1 && cpus <= (1L << 30) ? static_cast<int>(cpus) : 1;
  return h;
}

}  // namespace sidecore::instrument::internal
