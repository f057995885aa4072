// `sidecore study`: the comparison as text (the terminal), as an SVG across cases (the paper's Figures 2-5) and as
// an HTML report (the model's report of the median run, with the comparison first).
#pragma once

#include <string>
#include <vector>

#include "compare.hpp"

namespace sidecore::tools::study {

/// The comparison for the terminal: per case, predicted against measured t_dedicated with the error (or why it is
/// not judged), the terms side by side (calibration, predicted, measured), the alpha points and the findings.
[[nodiscard]] std::string render_text(const std::vector<case_result>& cases, const study_record& rec);
/// Standalone SVG: per case (and alpha point), bars of t_noprogress, predicted and measured t_dedicated; cases
/// that cannot be judged are labelled so.
[[nodiscard]] std::string render_svg(const std::vector<case_result>& cases);
/// One self-contained HTML page: the comparison of every case with the SVG, then the model's full report of the
/// first case that has an analysis.
[[nodiscard]] std::string render_html(const std::vector<case_result>& cases, const study_record& rec);

}  // namespace sidecore::tools::study
