// The process's room for file descriptors (fd_room.hpp).
#include "fd_room.hpp"

#include <dirent.h>
#include <sys/resource.h>

#include <cerrno>
#include <cstdlib>

namespace sidecore::progress {

fd_room fd_room_now() noexcept {
  fd_room r;
  struct rlimit lim {};
  if (::getrlimit(RLIMIT_NOFILE, &lim) != 0 || lim.rlim_cur == RLIM_INFINITY) return r;
  DIR* d = ::opendir("/proc/self/fd");
  if (d == nullptr) {
    if (errno == EMFILE) {  // the directory needs a descriptor itself: none is free
      r.limit = static_cast<long>(lim.rlim_cur);
      r.used = r.limit;
    }
    return r;
  }
  const int own = ::dirfd(d);
  long used = 0;
  // A descriptor numbered at or above the limit (opened before the limit was lowered) takes no room below it.
  while (const dirent* e = ::readdir(d)) {
    char* end = nullptr;
    const long fd = std::strtol(e->d_name, &end, 10);
    if (end == e->d_name || *end != '\0' || fd == own) continue;
    if (static_cast<rlim_t>(fd) < lim.rlim_cur) ++used;
  }
  ::closedir(d);
  r.limit = static_cast<long>(lim.rlim_cur);
  r.used = used;
  return r;
}

std::string fd_room_note(long margin) noexcept {
  try {
    const fd_room r = fd_room_now();
    if (!r.known() || r.free() > margin) return {};
    return "this process has " + std::to_string(r.used) + " of its " + std::to_string(r.limit) +
           " file descriptors (RLIMIT_NOFILE) open; the provider needs some for its endpoint and, on tcp, one for "
           "each rank it connects to: raise the limit (ulimit -n) or keep fewer files open";
  } catch (...) {
    return {};
  }
}

std::string fd_limit_note() noexcept {
  try {
    struct rlimit lim {};
    if (::getrlimit(RLIMIT_NOFILE, &lim) != 0 || lim.rlim_cur == RLIM_INFINITY) return {};
    return "this process may open " + std::to_string(lim.rlim_cur) +
           " file descriptors (RLIMIT_NOFILE) and had none left: raise the limit (ulimit -n) or open fewer files";
  } catch (...) {
    return {};
  }
}

}  // namespace sidecore::progress
