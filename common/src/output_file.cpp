// Writing output files safely (output_file.hpp): check first, write to a temporary file beside the target, rename.
#include "sidecore/common/output_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <system_error>

namespace sidecore {

namespace {

std::string error_text(int err) { return std::strerror(err); }

// The directory a path's file goes in ("." for a bare name).
std::string directory_of(const std::string& path) {
  const std::filesystem::path p(path);
  const std::filesystem::path dir = p.parent_path();
  return dir.empty() ? std::string(".") : dir.string();
}

// Creates a fresh file beside `path` (exclusively: never an existing file, never through a link), mode 0666 less the
// umask as any new file. Returns the descriptor, or -1 with errno set; `name` receives its path.
int create_temp_beside(const std::string& path, std::string& name) {
  static std::atomic<unsigned> counter{0};
  const std::string dir = directory_of(path);
  // A long name is shortened in the temporary file's name: the name, its prefix and suffix must fit NAME_MAX.
  const std::string base = std::filesystem::path(path).filename().string().substr(0, 160);
  for (int attempt = 0; attempt < 100; ++attempt) {
    name = dir + "/." + base + "." + std::to_string(::getpid()) + "." + std::to_string(counter.fetch_add(1)) + ".tmp";
    const int fd = ::open(name.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd >= 0 || errno != EEXIST) return fd;
  }
  errno = EEXIST;
  return -1;
}

}  // namespace

output_error::output_error(std::string path, std::string reason, std::string saved_to)
    : std::runtime_error("cannot write '" + path + "': " + reason +
                         (saved_to.empty() ? std::string() : "; the content is saved in '" + saved_to + "' instead")),
      path_(std::move(path)),
      reason_(std::move(reason)),
      saved_to_(std::move(saved_to)) {}

std::string output_path_problem(const std::string& path) {
  if (path.empty()) return "the path is empty";
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0) {
    if (S_ISLNK(st.st_mode))
      return "it is a symbolic link; sidecore does not write through links (give the path of the link's target)";
    if (S_ISDIR(st.st_mode)) return "it is a directory";
    if (!S_ISREG(st.st_mode)) return "it is not a regular file (a FIFO, a device or a socket)";
    if (::access(path.c_str(), W_OK) != 0)
      return "the existing file is not writable (" + error_text(errno) +
             "); sidecore does not replace a protected file";
    // access() says yes to root whatever the mode: a file nobody may write was protected on purpose.
    if ((st.st_mode & (S_IWUSR | S_IWGRP | S_IWOTH)) == 0)
      return "the existing file is read-only (no write permission for anybody); sidecore does not replace a "
             "protected file";
  } else if (errno != ENOENT) {
    return error_text(errno);  // "Not a directory" (a component is a file), "Permission denied", ...
  }
  const std::string dir = directory_of(path);
  struct stat ds {};
  if (::stat(dir.c_str(), &ds) != 0) {
    return errno == ENOENT ? "directory '" + dir + "' does not exist" : "directory '" + dir + "': " + error_text(errno);
  }
  if (!S_ISDIR(ds.st_mode)) return "'" + dir + "' is not a directory";
  std::string probe;
  const int fd = create_temp_beside(path, probe);
  if (fd < 0) return "cannot create a file in directory '" + dir + "': " + error_text(errno);
  ::close(fd);
  ::unlink(probe.c_str());
  return {};
}

bool same_output_file(const std::string& a, const std::string& b) {
  const auto norm = [](const std::string& p) {
    std::error_code ec;
    std::filesystem::path x = std::filesystem::absolute(p, ec);
    if (ec) x = p;
    std::filesystem::path c = std::filesystem::weakly_canonical(x, ec);
    return (ec ? x : c).lexically_normal();
  };
  return norm(a) == norm(b);
}

output_file::output_file(std::string path) : path_(std::move(path)) {
  if (std::string why = output_path_problem(path_); !why.empty()) throw output_error(path_, why);
  const int fd = create_temp_beside(path_, temp_);
  if (fd < 0)
    throw output_error(path_, "cannot create a file in directory '" + directory_of(path_) + "': " + error_text(errno));
  file_ = ::fdopen(fd, "wb");
  if (file_ == nullptr) {
    const int err = errno;
    ::close(fd);
    ::unlink(temp_.c_str());
    throw output_error(path_, error_text(err));
  }
}

output_file::~output_file() { discard(); }

void output_file::discard() noexcept {
  if (file_ != nullptr) {
    std::fclose(file_);
    file_ = nullptr;
    ::unlink(temp_.c_str());
  }
}

namespace {

// Copies what the descriptor holds, from its start, to a new output file at `to` (read back through the descriptor:
// the file may have no name left). Returns false, the copy discarded, on any failure.
bool copy_out(int fd, const std::string& to) {
  try {
    output_file copy(to);
    char buf[1 << 16];
    for (off_t at = 0;;) {
      const ssize_t n = ::pread(fd, buf, sizeof buf, at);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return false;
      if (n == 0) break;
      if (std::fwrite(buf, 1, static_cast<std::size_t>(n), copy.stream()) != static_cast<std::size_t>(n)) return false;
      at += n;
    }
    (void)copy.commit();
    return true;
  } catch (const output_error&) {
    return false;
  }
}

}  // namespace

output_outcome output_file::commit(const std::string& fallback) {
  if (file_ == nullptr) throw output_error(path_, "already written");
  int err = 0;
  if (std::fflush(file_) != 0 || std::ferror(file_) != 0) err = errno != 0 ? errno : EIO;
  if (err == 0 && ::fsync(::fileno(file_)) != 0) err = errno;
  // An existing file keeps its permission bits (the temporary file has the umask's).
  struct stat st {};
  const bool existed = ::lstat(path_.c_str(), &st) == 0;
  if (err == 0 && existed && S_ISREG(st.st_mode)) (void)::fchmod(::fileno(file_), st.st_mode & 07777);
  // Renamed while still open: when the rename fails, the content can still be read back for the fallback.
  const bool written = err == 0;
  if (err == 0 && ::rename(temp_.c_str(), path_.c_str()) != 0) err = errno;
  std::string saved;
  if (err != 0 && written && !fallback.empty() && copy_out(::fileno(file_), fallback)) saved = fallback;
  // A close after a rename that followed a good fsync loses nothing: the content is on disk under its name.
  (void)std::fclose(file_);
  file_ = nullptr;
  if (err != 0) {
    ::unlink(temp_.c_str());
    throw output_error(path_, error_text(err), saved);
  }
  return existed ? output_outcome::replaced : output_outcome::created;
}

std::string saved_copy_path(const std::string& path, const std::string& run) {
  const char* tmp = std::getenv("TMPDIR");
  const std::filesystem::path dir = tmp != nullptr && *tmp != '\0' ? tmp : "/tmp";
  return (dir / ("sidecore-saved." + run + "." + std::filesystem::path(path).filename().string())).string();
}

output_outcome write_output_file(const std::string& path, std::string_view content) {
  output_file out(path);
  if (!content.empty() && std::fwrite(content.data(), 1, content.size(), out.stream()) != content.size()) {
    throw output_error(path, error_text(errno != 0 ? errno : EIO));
  }
  return out.commit();
}

}  // namespace sidecore
