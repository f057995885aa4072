// Overlap bounds (seed 000, Section 2.2), transfer-time table and size bins.
#include "sidecore/instrument/bounds.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "sidecore/common/input_file.hpp"
#include "sidecore/common/input_limits.hpp"

namespace sidecore::instrument {

xfer_time_table::xfer_time_table(std::vector<std::pair<std::size_t, double>> points, std::string source)
    : points_(std::move(points)), source_(std::move(source)) {
  for (const auto& [bytes, s] : points_) {
    if (!std::isfinite(s) || s < 0.0) {
      throw std::invalid_argument(
          fmt::format("xfer-time table ({}): point [{}, {}]: seconds must be finite and >= 0", source_, bytes, s));
    }
  }
  std::sort(points_.begin(), points_.end());
  for (std::size_t i = 1; i < points_.size(); ++i) {
    if (points_[i].first == points_[i - 1].first) {
      throw std::invalid_argument(fmt::format("xfer-time table ({}): size {} appears twice; sizes must be distinct",
                                              source_, points_[i].first));
    }
  }
  if (points_.empty()) source_ = "none";
}

double xfer_time_table::seconds(std::size_t bytes) const noexcept {
  if (points_.empty()) return 0.0;
  if (points_.size() == 1 || bytes <= points_.front().first) return points_.front().second;
  auto it = std::lower_bound(points_.begin(), points_.end(), bytes,
                             [](const auto& p, std::size_t b) { return p.first < b; });
  if (it == points_.end()) it = points_.end() - 1;  // extrapolate with the last segment
  const auto& hi = *it;
  const auto& lo = *(it - 1);
  const double span = static_cast<double>(hi.first - lo.first);
  const double f = (static_cast<double>(bytes) - static_cast<double>(lo.first)) / span;
  return std::max(0.0, lo.second + f * (hi.second - lo.second));
}

std::int64_t xfer_time_table::nanoseconds(std::size_t bytes) const noexcept {
  if (points_.empty()) return -1;
  return static_cast<std::int64_t>(std::llround(seconds(bytes) * 1e9));
}

xfer_time_table read_xfer_time_table(const std::string& path) {
  // A regular file of bounded size only: a FIFO or /dev/zero named by SIDECORE_XFER_TABLE must not hang init.
  const std::string text = read_input_file(path, max_table_bytes, "transfer-time table");
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(fmt::format("xfer-time table '{}': not valid JSON: {}", path, e.what()));
  }
  // value() would throw on a "schema" of another type: compare only a string.
  const auto schema = j.is_object() ? j.find("schema") : j.end();
  if (!j.is_object() || schema == j.end() || !schema->is_string() || *schema != "sidecore-xfer-table") {
    throw std::runtime_error(fmt::format("xfer-time table '{}': \"schema\" must be \"sidecore-xfer-table\"", path));
  }
  if (!j.contains("version") || !j["version"].is_number_integer() || j["version"].get<int>() != 1) {
    throw std::runtime_error(fmt::format("xfer-time table '{}': \"version\" must be 1", path));
  }
  if (!j.contains("points") || !j["points"].is_array() || j["points"].empty()) {
    throw std::runtime_error(fmt::format("xfer-time table '{}': \"points\" must be a non-empty array", path));
  }
  std::vector<std::pair<std::size_t, double>> pts;
  for (std::size_t i = 0; i < j["points"].size(); ++i) {
    const auto& p = j["points"][i];
    if (!p.is_array() || p.size() != 2 || !p[0].is_number_unsigned() || !p[1].is_number()) {
      // dump() recurses: a deeply nested point would overflow the stack, so only flat values are quoted.
      const bool flat = std::all_of(p.begin(), p.end(), [](const nlohmann::json& e) { return e.is_primitive(); });
      throw std::runtime_error(fmt::format("xfer-time table '{}': points[{}] = {} must be [bytes (unsigned integer), "
                                           "seconds]",
                                           path, i, flat ? p.dump() : std::string("a nested ") + p.type_name()));
    }
    pts.emplace_back(p[0].get<std::size_t>(), p[1].get<double>());
  }
  try {
    return xfer_time_table(std::move(pts), path);
  } catch (const std::invalid_argument& e) {
    throw std::runtime_error(e.what());
  }
}

std::vector<std::size_t> default_size_bin_edges() {
  std::vector<std::size_t> e{0};
  for (std::size_t v = 4; v <= (std::size_t{1} << 30); v *= 4) e.push_back(v);
  return e;
}

size_bins::size_bins(std::vector<std::size_t> edges) {
  edges_.reserve(edges.size() + 1);
  if (edges.empty() || edges.front() != 0) edges_.push_back(0);
  edges_.insert(edges_.end(), edges.begin(), edges.end());
  for (std::size_t i = 1; i < edges_.size(); ++i) {
    if (edges_[i] <= edges_[i - 1]) {
      throw std::invalid_argument(fmt::format(
          "size bin edges: edge {} ({}) is not greater than the one before ({}); edges must increase strictly", i,
          edges_[i], edges_[i - 1]));
    }
  }
}

std::size_t size_bins::index(std::size_t bytes) const noexcept {
  auto it = std::upper_bound(edges_.begin(), edges_.end(), bytes);
  return static_cast<std::size_t>(it - edges_.begin()) - 1;  // edges_[0] == 0 <= bytes
}

}  // namespace sidecore::instrument
