// sidecore instrument — the output files' paths per rank (%r) and writing a file.
#include <cstdio>
#include <string>

#include "sidecore/instrument/instrument.hpp"

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

bool write_text_file(const std::string& path, const std::string& text) {
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (f == nullptr) {
    std::fprintf(stderr, "sidecore: cannot open '%s' for writing\n", path.c_str());
    return false;
  }
  const bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  const bool closed = std::fclose(f) == 0;
  if (!ok || !closed) std::fprintf(stderr, "sidecore: error writing '%s'\n", path.c_str());
  return ok && closed;
}

}  // namespace sidecore::instrument
