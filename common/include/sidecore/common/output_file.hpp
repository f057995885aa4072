// sidecore — writing output files safely: the profiles and traces of the instrumentation, and the files the `sidecore`
// command writes (report -o, predict --plot, profiles). One rule for all of them:
//  * a path is checked before the work that produces its content (at init for a run), so that an unusable path is
//    reported with its reason at once, never discovered when the content is lost;
//  * the content goes to a temporary file in the same directory, which is renamed over the path once complete: a
//    reader never sees half a file, and a failure leaves an earlier file as it was;
//  * never through a symbolic link (rename replaces a link that appears later rather than following it);
//  * an existing file is replaced only when the caller says so to the user (write_output_file returns whether it did).
// POSIX only (open, fsync, rename); no dependency but the C++ standard library.
#pragma once

#include <cstdio>
#include <stdexcept>
#include <string>
#include <string_view>

namespace sidecore {

/// An output file that cannot be written. what() reads "cannot write '<path>': <reason>", followed by "; the content
/// is saved in '<saved_to>' instead" when a commit's fallback took the content.
class output_error : public std::runtime_error {
 public:
  output_error(std::string path, std::string reason, std::string saved_to = {});
  /// The path as given.
  [[nodiscard]] const std::string& path() const noexcept { return path_; }
  /// Why, in words ("directory '/x' does not exist", "it is a symbolic link; ...").
  [[nodiscard]] const std::string& reason() const noexcept { return reason_; }
  /// Where the content went instead (output_file::commit's fallback), or empty: nowhere.
  [[nodiscard]] const std::string& saved_to() const noexcept { return saved_to_; }

 private:
  std::string path_;
  std::string reason_;
  std::string saved_to_;
};

/// Why `path` cannot receive an output file, or an empty string when it can. Checks, without touching `path`
/// itself: it is not empty; it is not a symbolic link, a directory or another non-regular file; an existing file is
/// writable by us (a protected file is not replaced); its directory exists, is a directory, and a file can be created
/// in it (a temporary file is created and removed: permissions, read-only file systems and the like are all seen).
[[nodiscard]] std::string output_path_problem(const std::string& path);

/// Whether two output paths name the same file: equal once made absolute and normalised, with the symbolic links of
/// their existing directories resolved ("./a/p.json" and "a/../a/p.json" are the same file).
[[nodiscard]] bool same_output_file(const std::string& a, const std::string& b);

/// What writing an output file did to `path`.
enum class output_outcome : unsigned char {
  created,   ///< no file was there
  replaced,  ///< an existing regular file was replaced (tell the user)
};

/// A file being written under a temporary name in the directory of its final path (".<name>.<pid>.<n>.tmp"), renamed
/// to that path by commit(). Destroyed without a commit (an error, an exception), the temporary file is removed and
/// the final path is left as it was.
class output_file {
 public:
  /// Checks `path` (output_path_problem) and creates the temporary file. Throws output_error with the reason.
  explicit output_file(std::string path);
  output_file(const output_file&) = delete;
  output_file& operator=(const output_file&) = delete;
  ~output_file();

  /// The stream to write the content to (fully buffered by the caller if it wishes: setvbuf before writing).
  [[nodiscard]] std::FILE* stream() const noexcept { return file_; }
  /// The final path.
  [[nodiscard]] const std::string& path() const noexcept { return path_; }
  /// Flushes the content to disk (fsync), closes, and renames the temporary file over the final path; an existing
  /// file keeps its permission bits. Throws output_error when a write failed (disk full, I/O error) or the rename does
  /// (the temporary file is then removed). When the content was written whole but the rename failed (the directory
  /// was removed meanwhile, the temporary file with it) and `fallback` is not empty, the content is first copied to
  /// `fallback` (as write_output_file would); the error's saved_to() then names it. Once only.
  output_outcome commit(const std::string& fallback = {});

 private:
  void discard() noexcept;
  std::string path_;
  std::string temp_;
  std::FILE* file_ = nullptr;
};

/// Where an output that could not be written to `path` is saved instead: "<dir>/sidecore-saved.<run>.<file name of
/// path>", <dir> being $TMPDIR when set and not empty, else /tmp. `run` tells one run's saved files from another's.
[[nodiscard]] std::string saved_copy_path(const std::string& path, const std::string& run);

/// Writes `content` to `path` through an output_file. Throws output_error naming the path and the reason.
output_outcome write_output_file(const std::string& path, std::string_view content);

}  // namespace sidecore
