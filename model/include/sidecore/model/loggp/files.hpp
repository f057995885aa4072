// sidecore LogGP — the files around the fit (docs/loggp.md):
//   measurement file  {"schema": "sidecore-prtt", "version": 1, ...}    what the probe writes
//   parameter file    {"schema": "sidecore-loggp", "version": 2, ...}   the fitted parameters
//   transfer table    {"schema": "sidecore-xfer-table", "version": 1}   what SIDECORE_XFER_TABLE reads
// plus a readable table and an SVG of measured against fitted PRTT and G_all per range.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sidecore/model/loggp/fit.hpp"
#include "sidecore/model/sim/loggops.hpp"

namespace sidecore::model::loggp {

/// A measurement file: where it was measured and one series per transport.
struct measurement {
  /// Free-form, copied through unread; what the probe writes there: docs/loggp.md, "Files".
  nlohmann::json machine = nlohmann::json::object();
  std::vector<prtt_series> series;
};

/// Reads a measurement file. Throws sidecore::input_error naming the file and the JSON path of a
/// missing or bad field ("series[1].points[3].prttn_ns").
[[nodiscard]] measurement read_measurement(const std::string& path);
[[nodiscard]] measurement parse_measurement(const nlohmann::json& j, const std::string& source);
[[nodiscard]] nlohmann::json measurement_json(const measurement& m);

/// The version of the parameter file params_json() writes. 2: the joint fit of a range, with the
/// residuals of PRTT(n,0,s), o_s, o_r and G_all (max and RMS) and `held_at_zero` per range, and
/// `overhead_weight` under `method` (docs/loggp.md, "Files").
inline constexpr int params_version = 3;

/// The parameter file of the fits (one per series), schema "sidecore-loggp" version params_version.
[[nodiscard]] nlohmann::json params_json(const measurement& m, const std::vector<series_fit>& fits,
                                         const fit_options& o);
/// Fixed-width table of the ranges and their parameters and residuals, one block per series, each ending
/// with the check of issue 16: in how many ranges, and at how many sizes, the fit reproduces PRTT(1,0,s) and
/// PRTT(n,0,s) within o.tolerance (5 % when it is 0), and the largest miss.
[[nodiscard]] std::string params_table(const std::vector<series_fit>& fits, const fit_options& o = {});
/// Self-contained SVG: per series, measured PRTT(1,0,s), PRTT(n,0,s) and G_all against size (log-log),
/// the fitted lines per range, and the detected protocol changes.
[[nodiscard]] std::string params_svg(const std::vector<series_fit>& fits);
/// The a-priori transfer-time table of the overlap bounds (seed 000): half the fitted PRTT(1,0,s) at
/// every measured size (the built-in calibration's definition: half a round trip).
[[nodiscard]] nlohmann::json xfer_table_json(const series_fit& f);

/// LogGOPS parameters for the simulator from a fit, such that a simulated ping-pong takes the fitted
/// PRTT(1,0,s) (docs/loggp.md, "For the simulator"): of the range holding `bytes`, L, g,
/// o = (o_s + o_r)/2, G = O_s + O_r + G (the receiver's CPU takes a message in for (s-1)max(O, G),
/// and nothing else per byte delays it), O = O_s; S = the largest size of the first range (the first
/// protocol change), or the largest size measured. Each is >= 0: a negative L becomes 0; where o or g
/// is negative at s = 1 (a range far from 1 B, whose signs hold at its own sizes) it becomes 0 and G
/// carries the fitted one-way time at `bytes`, g what is left of the fitted gap there.
[[nodiscard]] sidecore::model::sim::loggops_params to_loggops(const series_fit& f, std::uint64_t bytes);

/// LogGOPS parameters from a parameter file (schema "sidecore-loggp", version 1, 2 or 3; what `sidecore loggp -o`
/// writes): of the series of transport `transport` (its first one), the range holding `bytes` (the last range above
/// it), mapped as to_loggops() does (S: the first protocol change, or the largest size measured). Throws
/// sidecore::input_error naming the file and the JSON path of a missing or bad field, or the transports there are.
[[nodiscard]] sidecore::model::sim::loggops_params read_loggops_params(const std::string& path,
                                                                      const std::string& transport,
                                                                      std::uint64_t bytes);

}  // namespace sidecore::model::loggp
