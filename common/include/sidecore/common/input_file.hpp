// sidecore — reading an input file of the `sidecore` command or of a SIDECORE_* setting: regular files only, and
// never more than a stated size. A FIFO would block the reader, /dev/zero would feed it forever and a directory has
// no content: each is refused at once with a message naming the path, what it is and what is accepted.
#pragma once

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstring>
#include <string>
#include <string_view>

#include "sidecore/common/input_error.hpp"
#include "sidecore/common/input_limits.hpp"

namespace sidecore {

namespace detail {

inline std::string file_kind(mode_t m) {
  if (S_ISDIR(m)) return "a directory";
  if (S_ISFIFO(m)) return "a FIFO (named pipe)";
  if (S_ISCHR(m)) return "a character device";
  if (S_ISBLK(m)) return "a block device";
  if (S_ISSOCK(m)) return "a socket";
  return "not a regular file";
}

inline std::string size_text(std::size_t bytes) {
  if (bytes >= (std::size_t{1} << 20) && bytes % (std::size_t{1} << 20) == 0)
    return std::to_string(bytes >> 20) + " MiB";
  return std::to_string(bytes) + " bytes";
}

// Closes the descriptor on every path out of read_input_file.
class fd_guard {
 public:
  explicit fd_guard(int fd) noexcept : fd_(fd) {}
  fd_guard(const fd_guard&) = delete;
  fd_guard& operator=(const fd_guard&) = delete;
  ~fd_guard() { ::close(fd_); }

 private:
  int fd_;
};

}  // namespace detail

/// Reads the whole of the regular file `path` (`what` names it in messages: "profile", "mpiP report", ...); the
/// readers pass their limit from input_limits.hpp.
/// Throws input_error naming the path when it cannot be opened, is not a regular file (directory, FIFO, device,
/// socket: refused without reading, so a FIFO never blocks and /dev/zero is never read), is larger than
/// `max_bytes` (also when it grows past the limit while being read), or a read fails.
[[nodiscard]] inline std::string read_input_file(const std::string& path, std::size_t max_bytes,
                                                 std::string_view what) {
  const std::string accepted = "; accepted: a regular file of at most " + detail::size_text(max_bytes);
  // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer. It does not affect regular files.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) throw input_error(path, "", "cannot open " + std::string(what) + ": " + std::strerror(errno));
  detail::fd_guard guard(fd);
  struct stat st {};
  if (::fstat(fd, &st) != 0)
    throw input_error(path, "", "cannot stat " + std::string(what) + ": " + std::strerror(errno));
  if (!S_ISREG(st.st_mode))
    throw input_error(path, "",
                      "cannot read " + std::string(what) + ": it is " + detail::file_kind(st.st_mode) + accepted);
  const auto too_large = [&](const std::string& size) {
    return input_error(path, "", std::string(what) + " too large (" + size + " bytes)" + accepted);
  };
  if (st.st_size < 0 || static_cast<unsigned long long>(st.st_size) > max_bytes)
    throw too_large(std::to_string(st.st_size));
  // The file may grow while it is read: read at most one byte beyond the limit.
  std::string out;
  out.resize(static_cast<std::size_t>(st.st_size) + 1);
  std::size_t have = 0;
  for (;;) {
    if (have == out.size()) {
      if (have > max_bytes) throw too_large("more than " + std::to_string(max_bytes));
      out.resize(std::min(max_bytes + 1, 2 * out.size() + 4096));
    }
    const ssize_t n = ::read(fd, out.data() + have, out.size() - have);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw input_error(path, "", "read error in " + std::string(what) + ": " + std::strerror(errno));
    }
    if (n == 0) break;
    have += static_cast<std::size_t>(n);
  }
  if (have > max_bytes) throw too_large("more than " + std::to_string(max_bytes));
  out.resize(have);
  return out;
}

}  // namespace sidecore
