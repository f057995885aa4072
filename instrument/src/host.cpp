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

namespace {

std::string first_line_of(const char* path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

// The CPUs of this process's cpuset cgroup ("N:cpuset:/path" of cgroup v1, else "0::/path" of v2, in
// /proc/self/cgroup), "" where not readable. Containers of one kernel share its boot id but not, with a cpuset of
// their own, its CPUs.
std::string cgroup_cpus() {
  std::ifstream in("/proc/self/cgroup");
  std::string v2;
  for (std::string line; std::getline(in, line);) {
    const auto a = line.find(':'), b = a == std::string::npos ? a : line.find(':', a + 1);
    if (b == std::string::npos) continue;
    const std::string controllers = line.substr(a + 1, b - a - 1), path = line.substr(b + 1);
    const bool cpuset = controllers == "cpuset" || controllers.rfind("cpuset,", 0) == 0 ||
                        controllers.find(",cpuset") != std::string::npos;
    if (cpuset)
      return first_line_of(("/sys/fs/cgroup/cpuset" + path + "/cpuset.effective_cpus").c_str());
    if (controllers.empty()) v2 = path;
  }
  return v2.empty() ? std::string() : first_line_of(("/sys/fs/cgroup" + v2 + "/cpuset.cpus.effective").c_str());
}

}  // namespace

std::string boot_id() { return first_line_of("/proc/sys/kernel/random/boot_id"); }

std::string host_name() {
  std::array<char, 256> name{};
  (void)gethostname(name.data(), name.size() - 1);
  return name.data();
}

host_info this_host() {
  // The boot id names the running kernel: processes of one machine share it, two machines of the same host name do
  // not; the cgroup's CPUs tell apart containers of one machine that were given CPUs of their own.
  const std::string boot = boot_id();
  const std::string key = (boot.empty() ? "host:" + host_name() : "boot:" + boot) + "|cpus:" + cgroup_cpus();
  host_info h;
  h.id = fmt::format("{:016x}", fingerprint64(key));
  const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  h.cores = cpus >= 1 && cpus <= (1L << 30) ? static_cast<int>(cpus) : 1;
  return h;
}

}  // namespace sidecore::instrument::internal
