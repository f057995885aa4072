// sidecore model — the report's collectives section (render_collectives.cpp), for render_html and render_text.
#pragma once

#include <string>
#include <vector>

#include "sidecore/common/profile.hpp"

namespace sidecore::model {

/// The HTML of the collectives section from rank profiles of one run (`which`: "calibration (off)", ...): per kind,
/// latency and waits; per rank, how often it arrived last and the time it lost waiting; the imbalance in one
/// sentence. Empty when the profiles hold no collectives section.
[[nodiscard]] std::string collectives_html(const std::vector<profile>& ps, const char* which);
/// The same, short, for the text report (a leading blank line; empty when there is nothing to say).
[[nodiscard]] std::string collectives_text(const std::vector<profile>& ps);

}  // namespace sidecore::model
