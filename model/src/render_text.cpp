// Text rendering: the verdict first, then every term explained.
#include <algorithm>
#include <string>

#include <fmt/format.h>

#include "render_collectives.hpp"
#include "sidecore/model/render.hpp"

namespace sidecore::model {
namespace {

std::string upper(std::string_view s) {
  std::string o(s);
  std::transform(o.begin(), o.end(), o.begin(), [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return o;
}

// Word-wraps `text` at `width` columns, every line indented by `indent` spaces.
std::string wrap(const std::string& text, std::size_t indent, std::size_t width = 100) {
  std::string out;
  std::string line(indent, ' ');
  std::size_t pos = 0;
  while (pos < text.size()) {
    auto sp = text.find(' ', pos);
    if (sp == std::string::npos) sp = text.size();
    const std::string word = text.substr(pos, sp - pos);
    if (line.size() > indent && line.size() + 1 + word.size() > width) {
      out += line + "\n";
      line.assign(indent, ' ');
    }
    if (line.size() > indent) line += ' ';
    line += word;
    pos = sp + 1;
  }
  if (line.size() > indent) out += line + "\n";
  return out;
}

}  // namespace

std::string render_text(const analysis& a, const render_options& ro) {
  const job_prediction& j = a.job;
  const prediction& slow = j.ranks[j.slowest];
  std::string o;
  if (a.cannot_judge.empty()) {
    o += fmt::format("VERDICT: {} - predicted speedup {:.3f} with one core per node dedicated to progress "
                     "(t_noprogress {:.6g} s -> t_dedicated {:.6g} s, {} {:.6g} s; noise band +/-{:g} %)\n",
                     upper(verdict_name(j.result)), j.speedup, j.t_noprogress_s, j.t_dedicated_s,
                     j.t_noprogress_s >= j.t_dedicated_s ? "gain" : "loss",
                     std::abs(j.t_noprogress_s - j.t_dedicated_s), a.noise * 100);
  } else {
    o += fmt::format("VERDICT: CANNOT JUDGE - the model's hypotheses do not hold for this run, so its formula "
                     "({}) says nothing about it:\n",
                     formula_outcome(j));
    for (const auto& b : a.cannot_judge) o += "  -" + wrap(fmt::format("{} [{}]", b.reason, b.id), 4).substr(3);
  }
  o += fmt::format("\n{}: dedicated-core model of Denis et al. (CCGRID 2022), Sections III-B..III-D\n", ro.title);
  o += fmt::format("  input    : {} ({} rank{} modelled{}, provider {})\n", a.source, j.ranks.size(),
                   j.ranks.size() == 1 ? "" : "s",
                   a.nranks > static_cast<int>(j.ranks.size()) ? fmt::format(" of {}", a.nranks) : std::string(),
                   a.provider.empty() ? "?" : a.provider);
  o += fmt::format("  alpha    : {:g} (fraction of blocking calls converted to nonblocking)\n", j.alpha);
  o += fmt::format("  N_core   : {} cores per node (rank {}), one of them for progress\n", slow.n_core, slow.rank);
  if (!a.cores_note.empty()) o += fmt::format("             {}\n", a.cores_note);
  o += fmt::format("  scaling  : {}{}\n", a.scaling, a.scaling_reason.empty() ? "" : " (" + a.scaling_reason + ")");
  for (const auto& n : a.notes) o += fmt::format("  note     : {}\n", n);
  for (const auto& n : a.incomplete) o += fmt::format("  incomplete: {}\n", n);
  if (j.ranks.size() > 1)
    o += fmt::format("  job      : the slowest rank decides: rank {} with a dedicated core ({:.6g} s), rank {} "
                     "without progress ({:.6g} s)\n",
                     slow.rank, j.t_dedicated_s, j.ranks[j.slowest_noprogress].rank, j.t_noprogress_s);

  o += fmt::format("\nTerm by term (rank {}{}):\n", slow.rank,
                   j.ranks.size() > 1 ? ", the slowest with a dedicated core" : "");
  std::size_t w = 0;
  for (const auto& t : slow.terms) w = std::max(w, t.symbol.size());
  for (const auto& t : slow.terms) {
    o += fmt::format("  {:<{}}  {:>12.6g} s  = {}\n", t.symbol, w, t.value_s, t.formula);
    o += wrap(t.explanation, 6);
  }
  o += fmt::format("  {:<{}}  {:>12.6g}    = {:.6g} / {:.6g}  (t_noprogress / t_dedicated)\n", "speedup", w,
                   slow.speedup, slow.t_noprogress_s, slow.t_dedicated_s);

  if (j.ranks.size() > 1) {
    o += "\nPer rank:\n";
    o += fmt::format("  {:>6} {:>13} {:>12} {:>12} {:>13} {:>9}  {}\n", "rank", "t_noprogress", "t_comp", "t_MPI",
                     "t_dedicated", "speedup", "verdict");
    for (const auto& p : j.ranks)
      o += fmt::format("  {:>6} {:>13.6g} {:>12.6g} {:>12.6g} {:>13.6g} {:>9.4f}  {}\n", p.rank, p.t_noprogress_s,
                       p.t_comp_s, p.t_mpi_noprogress_s, p.t_dedicated_s, p.speedup, shown_verdict(a, p.result));
  }

  o += "\nConverting blocking calls to nonblocking (alpha, Sections III-C2 and VI-C):\n";
  o += fmt::format("  break-even : {}\n", a.break_even.describe());
  o += fmt::format("  slope      : speedup {:+.4g} per unit alpha (from alpha 0 to 1); d speedup/d alpha = {:+.4g} at "
                   "alpha {:g}\n",
                   a.slope.speedup_per_alpha, a.slope.speedup_slope_at_alpha, j.alpha);
  o += fmt::format("  efficiency : d t_dedicated/d alpha = {:+.4g} s on rank {}; {}\n", a.slope.time_slope_s,
                   a.slope.rank, conversion_sentence(a.slope));
  if (ro.show_sweep) {
    o += fmt::format("  {:>7} {:>14} {:>9} {:>6}  {}\n", "alpha", "t_dedicated", "speedup", "rank", "verdict");
    for (const auto& s : a.sweep)
      o += fmt::format("  {:>7.4f} {:>14.6g} {:>9.4f} {:>6}  {}\n", s.alpha, s.t_dedicated_s, s.speedup, s.slowest_rank,
                       shown_verdict(a, s.result));
  }

  o += fmt::format("\nCores per node (what-if at alpha {:g}, computation rescaled with the scaling model):\n  {}\n",
                   j.alpha, whatif_sentence(a));

  if (a.validation) {
    const auto& v = *a.validation;
    o += "\nMeasured core-mode run (alpha = 0):\n";
    o += fmt::format("  measured t_dedicated {:.6g} s (rank {}), speedup {:.3f}; predicted {:.6g} s, speedup {:.3f}; "
                     "{} {:+.1f} %{}\n",
                     v.measured_t_dedicated_s, v.measured_slowest_rank, v.measured_speedup, v.predicted_t_dedicated_s,
                     v.predicted_speedup, v.not_judged.empty() ? "error" : "difference", 100.0 * v.relative_error,
                     v.not_judged.empty() ? "" : " (not the model's error: " + v.not_judged + ")");
  }

  o += collectives_text(a.calibration.empty() ? a.core_run : a.calibration);

  o += "\nDiagnostics (Section V of Denis et al.: when the model is wrong):\n";
  for (const auto& d : a.diagnostics) {
    o += fmt::format("  [{}] {} ({})\n", d.severity == diagnostic::level::warning ? "warning" : "info", d.title, d.id);
    o += wrap(d.message, 6);
  }
  if (!a.warnings.empty()) {
    o += "\nInput warnings:\n";
    for (const auto& w2 : a.warnings) o += wrap(w2, 2);
  }
  return o;
}

}  // namespace sidecore::model
