// SIDECORE_PROGRESS_CORE: which of a process's cores is reserved for progress. One rule for libsidecore's
// runtime and for libsidecore-pmpi.so (the preloaded dedicated core of unmodified MPI programs), so that the two
// reserve the same core for the same setting. Header-only, the C++ standard library only.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace sidecore {

/// Which core the progress thread takes: the last or first core of the process's cpuset, or a logical index.
struct core_choice {
  enum class kind { last, first, index } which = kind::last;
  int index = -1;
};

/// What SIDECORE_PROGRESS_CORE accepts, as error messages quote it.
inline constexpr const char* core_choice_accepted = "last, first, or a core index 0..N-1 of the process's cpuset";

/// Parses a SIDECORE_PROGRESS_CORE value ("last", "first", or up to 7 decimal digits; blanks around it ignored).
/// Returns nullopt for anything else (the caller reports the value with core_choice_accepted).
[[nodiscard]] inline std::optional<core_choice> parse_core_choice(std::string_view raw) {
  const auto b = raw.find_first_not_of(" \t");
  const auto e = raw.find_last_not_of(" \t");
  const std::string_view v = b == std::string_view::npos ? std::string_view() : raw.substr(b, e - b + 1);
  if (v == "last") return core_choice{core_choice::kind::last, -1};
  if (v == "first") return core_choice{core_choice::kind::first, -1};
  if (v.empty() || v.size() > 7 || v.find_first_not_of("0123456789") != std::string_view::npos) return std::nullopt;
  return core_choice{core_choice::kind::index, std::stoi(std::string(v))};
}

/// The setting's text as SIDECORE_PROGRESS_CORE would give it ("last", "first", "3").
[[nodiscard]] inline std::string core_choice_text(const core_choice& c) {
  switch (c.which) {
    case core_choice::kind::last: return "last";
    case core_choice::kind::first: return "first";
    case core_choice::kind::index: return std::to_string(c.index);
  }
  return "?";
}

/// Index, among the `ncores` cores a process may run on (hwloc logical order), of the core `c` designates; -1 when
/// an index is out of range. A dedicated core needs ncores >= 2: the caller checks that first.
[[nodiscard]] constexpr int reserved_core_index(const core_choice& c, int ncores) noexcept {
  switch (c.which) {
    case core_choice::kind::last: return ncores - 1;
    case core_choice::kind::first: return 0;
    case core_choice::kind::index: return c.index < ncores ? c.index : -1;
  }
  return ncores - 1;
}

}  // namespace sidecore
