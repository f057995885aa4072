// sidecore model — rendering an analysis as text, JSON, CSV, an SVG plot or an HTML report.
#pragma once

#include <string>

#include "sidecore/model/analysis.hpp"

namespace sidecore::model {

/// What to include beyond the defaults.
struct render_options {
  bool show_sweep = false;  ///< text: print the alpha sweep table; CSV: one row per rank per sweep alpha
  std::string title = "sidecore predict";
};

/// Human-readable report: the verdict on the first line, then every term with its formula and
/// meaning, the alpha analysis (break-even, slope), the N_core what-if, the comparison with a
/// core-mode run and the diagnostics.
[[nodiscard]] std::string render_text(const analysis& a, const render_options& ro = {});
/// The same content as one JSON document (schema "sidecore-prediction", version 1).
[[nodiscard]] std::string render_json(const analysis& a, const render_options& ro = {});
/// CSV with a header row: one row per rank and a "job" row, at the chosen alpha (or at every sweep
/// alpha with ro.show_sweep).
[[nodiscard]] std::string render_csv(const analysis& a, const render_options& ro = {});
/// Standalone SVG: predicted job speedup against alpha, the noise band, speedup 1 and the
/// break-even alpha marked, labelled axes.
[[nodiscard]] std::string render_alpha_svg(const analysis& a);
/// One self-contained HTML page (inline CSS and SVG, no script, no external reference): verdict,
/// term-by-term breakdown, alpha sweep plot, N_core what-if, per-rank table, overlap bounds by
/// message size and by region, progress thread busy/idle split, diagnostics.
[[nodiscard]] std::string render_html(const analysis& a);

/// What converting the blocking calls removes, as a sentence for the text and HTML outputs: the share of the
/// rank's blocking time, or why it is unknown (no measured initiation or wait: slope.cost_known false).
[[nodiscard]] std::string conversion_sentence(const slope_result& s);

/// What the formula says at the job level, for a headline: "speedup 1.188, \"pays off\"", or, when its t_dedicated
/// is 0 s (no computation and no calls), "t_dedicated 0 s, no speedup".
[[nodiscard]] std::string formula_outcome(const job_prediction& j);

/// The verdict printed beside a per-rank or sweep figure of the text, HTML and CSV outputs: `v`, or "cannot judge"
/// when the analysis cannot judge (its figures are the formula's, and its own verdict words would contradict the
/// headline).
[[nodiscard]] std::string_view shown_verdict(const analysis& a, verdict v) noexcept;

/// The N_core what-if as a sentence: whatif.describe(), or, when the analysis cannot judge, that sentence marked as
/// the formula's alone.
[[nodiscard]] std::string whatif_sentence(const analysis& a);

/// Escapes &, <, >, " and ' for HTML/XML text and attributes.
[[nodiscard]] std::string xml_escape(std::string_view s);

}  // namespace sidecore::model
