// The shm provider's directory and its room (shm_space.hpp).
#include "shm_space.hpp"

#include <sys/statvfs.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace sidecore::progress {

namespace {
std::string mib(double bytes) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1f MiB", bytes / (1024.0 * 1024.0));
  return b;
}
}  // namespace

std::string shm_space_note(const std::string& dir) noexcept {
  try {
    const std::string where = "the shm provider maps its regions in " + dir;
    struct statvfs vs {};
    if (::statvfs(dir.c_str(), &vs) != 0)
      return where + ", and " + dir + " cannot be used (" + std::strerror(errno) + ")";
    const auto unit = static_cast<double>(vs.f_frsize);
    return where + ", which has " + mib(static_cast<double>(vs.f_bavail) * unit) + " free of " +
           mib(static_cast<double>(vs.f_blocks) * unit) + " (each rank of the host needs tens of MiB there: give the "
           "host or container a larger " + dir + ", e.g. docker run --shm-size=1g, or use "
           "SIDECORE_PROVIDER='tcp;ofi_rxm')";
  } catch (...) {
    return {};
  }
}

}  // namespace sidecore::progress
