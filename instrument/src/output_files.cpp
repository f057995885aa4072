// sidecore instrument — the output files: their paths per rank (%r), their check before a collection starts, and
// writing one (common/'s output_file: a temporary file renamed over the path, never through a link).
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <mutex>
#include <string>
#include <system_error>
#include <vector>

#include "collection.hpp"
#include "sidecore/common/output_file.hpp"
#include "sidecore/instrument/instrument.hpp"
#include "threads.hpp"

namespace sidecore::instrument {

namespace {
std::string substitute_rank(const std::string& pattern, const std::string& what) {
  std::string out;
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] == '%' && i + 1 < pattern.size() && pattern[i + 1] == 'r') {
      out += what;
      ++i;
    } else {
      out += pattern[i];
    }
  }
  return out;
}
}  // namespace

std::string path_for_rank(const std::string& pattern, int rank) {
  if (pattern.find("%r") != std::string::npos) return substitute_rank(pattern, std::to_string(rank));
  const std::string suffix = ".json";
  if (pattern.size() > suffix.size() && pattern.compare(pattern.size() - suffix.size(), suffix.size(), suffix) == 0) {
    return pattern.substr(0, pattern.size() - suffix.size()) + "." + std::to_string(rank) + suffix;
  }
  return pattern + "." + std::to_string(rank);
}

std::string job_path(const std::string& pattern) { return substitute_rank(pattern, "job"); }

namespace internal {

std::string saved_copy_of(const std::string& path) {
  std::string run;
  {
    std::lock_guard lk(g_registry_mu);
    run = g_col.run;
  }
  if (run.empty()) run = "pid" + std::to_string(::getpid());
  return saved_copy_path(path, run);
}

}  // namespace internal

bool write_text_file(const std::string& setting, const std::string& path, const std::string& text) {
  try {
    if (write_output_file(path, text) == output_outcome::replaced) {
      std::fprintf(stderr, "sidecore: replaced the existing file '%s'\n", path.c_str());
    }
    return true;
  } catch (const output_error& e) {
    const std::string saved = internal::saved_copy_of(path);
    try {
      write_output_file(saved, text);
      std::fprintf(stderr, "sidecore: %s: %s; the text is saved in '%s' instead\n", setting.c_str(), e.what(),
                   saved.c_str());
    } catch (const output_error& e2) {
      std::fprintf(stderr, "sidecore: %s: %s; it is lost: the temporary directory did not take it either (%s)\n",
                   setting.c_str(), e.what(), e2.what());
    }
    return false;
  }
}

namespace {

// A path made absolute and normalised without asking the file system about it (for comparing many paths at once).
std::string lexical(const std::string& path) {
  std::error_code ec;
  const std::filesystem::path abs = std::filesystem::absolute(path, ec);
  return (ec ? std::filesystem::path(path) : abs).lexically_normal().string();
}

}  // namespace

std::string check_outputs(const config& cfg, int rank, int nranks) {
  struct output {
    const char* setting;
    const std::string* pattern;
    std::string path;
    const char* what;
  };
  std::vector<output> mine;
  if (cfg.profile) {
    mine.push_back({"SIDECORE_PROFILE", &cfg.profile_path, path_for_rank(cfg.profile_path, rank), "profile"});
    if (rank == 0) mine.push_back({"SIDECORE_PROFILE", &cfg.profile_path, job_path(cfg.profile_path), "job profile"});
  }
  if (cfg.trace) mine.push_back({"SIDECORE_TRACE", &cfg.trace_path, path_for_rank(cfg.trace_path, rank), "trace"});
  for (const output& o : mine) {
    if (const std::string why = output_path_problem(o.path); !why.empty()) {
      return std::string(o.setting) + "='" + *o.pattern + "': rank " + std::to_string(rank) + "'s " + o.what +
             " cannot be written to '" + o.path + "': " + why;
    }
  }
  // Two outputs in one file: one would silently replace the other. This rank's own outputs, and its trace against
  // every rank's profile and the job profile.
  const auto clash = [&](const output& a, const std::string& other) {
    return "SIDECORE_PROFILE='" + cfg.profile_path + "' and SIDECORE_TRACE='" + cfg.trace_path +
           "' name the same file '" + a.path + "' (rank " + std::to_string(rank) + "'s " + a.what + " and " + other +
           "); give the profile and the trace different paths";
  };
  for (std::size_t i = 0; i < mine.size(); ++i) {
    for (std::size_t j = i + 1; j < mine.size(); ++j) {
      if (same_output_file(mine[i].path, mine[j].path)) return clash(mine[j], "its " + std::string(mine[i].what));
    }
  }
  if (cfg.profile && cfg.trace) {
    const output& trace = mine.back();
    const std::string t = lexical(trace.path);
    if (t == lexical(job_path(cfg.profile_path))) return clash(trace, "the job profile");
    for (int r = 0; r < nranks; ++r) {
      if (r != rank && t == lexical(path_for_rank(cfg.profile_path, r))) {
        return clash(trace, "rank " + std::to_string(r) + "'s profile");
      }
    }
  }
  return {};
}

}  // namespace sidecore::instrument
