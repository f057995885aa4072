// sidecore instrument — the host a rank runs on (profile "host"): which ranks shared one machine's CPUs, and how
// many cores it has, so that the model can tell a run that measured oversubscription (docs/model.md).
#include <unistd.h>

#include <array>
#include <fstream>
#include <string>

#include <fmt/format.h>

#include "host.hpp"
#include "sidecore/common/fingerprint.hpp"

namespace sidecore::instrument::internal {

std::string boot_id() {
  std::ifstream in("/proc/sys/kernel/random/boot_id");
  std::string id;
  std::getline(in, id);
  return id;
}

host_info this_host() {
  // The boot id names the running kernel: processes in containers of one machine share it (and its CPUs), two
  // machines of the same host name do not.
  std::string key = boot_id();
  if (!key.empty()) {
    key = "boot:" + key;
  } else {
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
