// sidecore model — how computation time scales with the number of OpenMP threads.
// The paper (seed 004, Section III-B) assumes linear scaling, t ∝ 1/N; its Figure 1 shows
// applications that do not scale so, and its conclusion names an application-specific model as
// future work. Three models are offered; docs/model.md compares them.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace sidecore::model {

/// One measured point of a scaling table: computation time with `threads` OpenMP threads.
struct scaling_point {
  int threads = 0;
  double t_comp_s = 0.0;
  bool operator==(const scaling_point&) const = default;
};

/// A computation-scaling model: answers "if computation took t with n threads, how long with m?".
class scaling_model {
 public:
  enum class kind { linear, power_law, table };

  /// The paper's model: t(N) ∝ 1/N (seed 004, Section III-B2).
  [[nodiscard]] static scaling_model linear();
  /// Power law t(N) ∝ N^-delta. delta = 1 is the paper's linear model, delta = 0 computation that
  /// does not speed up with threads (stealing a core costs nothing), 0 < delta < 1 sublinear
  /// scaling, delta < 0 computation that gets slower with more threads (Figure 1, bottom row).
  /// Throws input_error (source "--delta") when delta is not finite or outside [-1, 2].
  [[nodiscard]] static scaling_model power_law(double delta);
  /// Measured table of t_comp against thread count, interpolated piecewise as a power law
  /// (a straight line in log-log between neighbouring points, exact at the points). Throws
  /// input_error naming `source` when fewer than 2 points, a thread count < 1 or repeated, or a
  /// time <= 0 or not finite.
  [[nodiscard]] static scaling_model from_table(std::vector<scaling_point> points, std::string source);
  /// Reads a table file (a regular file of at most max_table_bytes) and parses it with parse_table. Throws
  /// input_error naming the file, and the line for a bad one.
  [[nodiscard]] static scaling_model read_table_file(const std::string& path);
  /// Parses a table: one "threads t_comp_s" pair per line, separated by blanks or a comma; '#' starts a comment;
  /// one header line of words is allowed. Throws input_error naming `source` and the line.
  [[nodiscard]] static scaling_model parse_table(std::string_view text, const std::string& source);

  /// t(to_threads) / t(from_threads). Throws input_error when a thread count is < 1, or (table)
  /// outside the measured range: a table answers only between its smallest and largest thread count.
  [[nodiscard]] double time_ratio(int from_threads, int to_threads) const;
  /// Whether time_ratio() is defined for this thread count.
  [[nodiscard]] bool covers(int threads) const noexcept;
  /// t_newcomp for computation t_comp_s measured on n_core threads and moved to n_core - 1.
  [[nodiscard]] double new_comp(double t_comp_s, int n_core) const { return t_comp_s * time_ratio(n_core, n_core - 1); }

  [[nodiscard]] kind model_kind() const noexcept { return kind_; }
  [[nodiscard]] double delta() const noexcept { return delta_; }
  [[nodiscard]] const std::vector<scaling_point>& table() const noexcept { return table_; }
  /// "linear (t ∝ 1/N, seed 004 III-B2)", "power law (t ∝ N^-0.8)", "table FILE (1..16 threads)".
  [[nodiscard]] std::string describe() const;
  /// The formula of t_newcomp in words, for the term-by-term explanation.
  [[nodiscard]] std::string newcomp_formula() const;

 private:
  [[nodiscard]] double table_time(int threads) const;
  kind kind_ = kind::linear;
  double delta_ = 1.0;
  std::vector<scaling_point> table_;
  std::string source_;
};

}  // namespace sidecore::model
