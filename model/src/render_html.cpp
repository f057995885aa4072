// The self-contained HTML report: inline CSS and SVG, no script, nothing fetched.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

#include <fmt/format.h>

#include "render_collectives.hpp"
#include "sidecore/model/render.hpp"

namespace sidecore::model {
namespace {

std::string esc(std::string_view s) { return xml_escape(s); }

std::string num(double v) { return fmt::format("{:.6g}", v); }

std::string pct(double part, double whole) { return whole > 0 ? fmt::format("{:.1f} %", 100.0 * part / whole) : "-"; }

const char* verdict_class(verdict v) {
  switch (v) {
    case verdict::pays_off: return "good";
    case verdict::does_not_pay_off: return "bad";
    case verdict::within_noise:
    case verdict::cannot_judge: return "neutral";
  }
  return "neutral";
}

// The inline SVG of the alpha plot, without the xmlns attribute (not needed inside HTML).
std::string inline_svg(std::string svg) {
  const std::string ns = " xmlns=\"http://www.w3.org/2000/svg\"";
  if (auto p = svg.find(ns); p != std::string::npos) svg.erase(p, ns.size());
  return svg;
}

// Two stacked horizontal bars: where the time goes without progress and with a dedicated core.
std::string composition_svg(const prediction& p) {
  struct seg {
    const char* label;
    double v;
    const char* color;
  };
  const std::vector<seg> before = {{"computation", p.t_comp_s, "#4c78a8"},
                                   {"communication (t_MPI)", p.t_mpi_noprogress_s, "#e45756"},
                                   {"unaccounted", std::max(0.0, p.t_noprogress_s - p.t_comp_s - p.t_mpi_noprogress_s),
                                    "#bbbbbb"}};
  // Computation on N-1 cores (t_newcomp) is t_comp plus the overhead of one core fewer; where losing the core saves
  // time (t_overhead < 0) the bar shows t_newcomp alone, shorter than t_comp above it.
  const bool costs = p.t_overhead_s >= 0;
  const std::vector<seg> after = {{costs ? "computation" : "computation on N-1 cores (t_overhead < 0)",
                                   costs ? p.t_comp_s : p.t_newcomp_s, "#4c78a8"},
                                  {"overhead (t_overhead)", costs ? p.t_overhead_s : 0.0, "#9ecae9"},
                                  {"nonblocking at minimum", p.t_nonblock_dedicated_s, "#f58518"},
                                  {"blocking kept / converted", p.t_oldblocking_s, "#e45756"},
                                  {"other", p.t_other_s, "#b279a2"}};
  // The scale: the longest bar as drawn (its segments' sum: an inconsistent profile's t_comp + t_MPI may exceed
  // t_noprogress) or the longest time named.
  const auto drawn = [](const std::vector<seg>& segs) {
    double sum = 0;
    for (const auto& g : segs) sum += std::max(0.0, g.v);
    return sum;
  };
  double total = std::max({p.t_noprogress_s, p.t_dedicated_s, drawn(before), drawn(after)});
  if (!(total > 0)) total = 1;
  constexpr double W = 720, L = 150, R = 20, BH = 28;
  const double scale = (W - L - R) / total;
  std::string s = fmt::format("<svg width=\"{0}\" height=\"150\" viewBox=\"0 0 {0} 150\" font-family=\"sans-serif\" "
                              "font-size=\"12\" role=\"img\" aria-label=\"time composition\">\n",
                              W);
  auto bar = [&](const std::vector<seg>& segs, double y, const char* name, double t) {
    s += fmt::format("<text x=\"{}\" y=\"{:.1f}\" text-anchor=\"end\">{}</text>\n", L - 8, y + BH / 2 + 4, name);
    double x = L;
    for (const auto& g : segs) {
      const double w = std::max(0.0, g.v) * scale;
      if (w <= 0) continue;
      s += fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{}\" fill=\"{}\"><title>{}: {} "
                       "s</title></rect>\n",
                       x, y, w, BH, g.color, esc(g.label), num(g.v));
      x += w;
    }
    s += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"11\">{} s</text>\n",
                     std::min(x + 4, W - R - 60), y + BH / 2 + 4, num(t));
  };
  bar(before, 10, "t_noprogress", p.t_noprogress_s);
  bar(after, 50, "t_dedicated", p.t_dedicated_s);
  double lx = 10;
  double ly = 104;
  std::vector<seg> legend = after;
  legend.insert(legend.begin() + 1, before[1]);
  for (const auto& g : legend) {
    const double w = 16 + 7.0 * static_cast<double>(std::string_view(g.label).size());
    if (lx + w > W) {
      lx = 10;
      ly += 20;
    }
    s += fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"10\" height=\"10\" fill=\"{}\"/>", lx, ly, g.color);
    s += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\">{}</text>\n", lx + 14, ly + 9, esc(g.label));
    lx += w + 12;
  }
  s += "</svg>\n";
  return s;
}

// Bars of overlap bounds: the lower bound, the upper bound, against the transfer time.
std::string bounds_bar(const overlap_bounds& b) {
  if (!(b.xfer_time_s > 0)) return "";
  constexpr double W = 220;
  const double lo = W * b.min_s / b.xfer_time_s;
  const double hi = W * b.max_s / b.xfer_time_s;
  return fmt::format(
      "<svg width=\"{0}\" height=\"14\" viewBox=\"0 0 {0} 14\" role=\"img\" aria-label=\"overlap "
      "bounds\"><rect x=\"0\" y=\"1\" width=\"{0}\" height=\"12\" fill=\"#f2d7d5\"/><rect x=\"0\" "
      "y=\"1\" width=\"{1:.1f}\" height=\"12\" fill=\"#a9cce3\"/><rect x=\"0\" y=\"1\" width=\"{2:.1f}\" "
      "height=\"12\" fill=\"#2e86c1\"/></svg>",
      W, hi, lo);
}

std::string bounds_cells(const overlap_bounds& b) {
  return fmt::format("<td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>", b.count,
                     num(b.xfer_time_s), num(b.min_s), num(b.max_s), pct(b.min_s, b.xfer_time_s),
                     pct(b.max_s, b.xfer_time_s), bounds_bar(b));
}

const char* bounds_header =
    "<th>transfers</th><th>transfer time [s]</th><th>min overlapped [s]</th><th>max overlapped [s]</th>"
    "<th>min %</th><th>max %</th><th>bounds (dark: certain, light: possible, red: not overlapped)</th>";

std::string overlap_html(const std::vector<profile>& ps, const char* which) {
  if (ps.empty()) return "";
  // The job merge of the profile schema: bounds summed, bins by size range, regions by name.
  const auto o = make_job_profile(ps).overlap;
  if (!o || o->total.count == 0) return "";  // no transfer recorded: nothing to show
  std::string h = fmt::format("<p>From the {} run, all ranks summed; transfer time source: <code>{}</code>. The lower "
                              "bound is overlap that certainly happened, the upper bound overlap that computation "
                              "between initiation and completion could at most provide (Shet et al., Section 2.2)."
                              "</p>\n",
                              which, esc(o->xfer_time_source.empty() ? "unspecified" : o->xfer_time_source));
  h += fmt::format("<table><tr><th>set</th>{}</tr>\n<tr><td>all transfers</td>{}</tr></table>\n", bounds_header,
                   bounds_cells(o->total));
  h += "<h3>By message size</h3>\n";
  if (o->by_size.empty()) {
    h += "<p>No breakdown by size in the profile.</p>\n";
  } else {
    h += fmt::format("<table><tr><th>message size</th>{}</tr>\n", bounds_header);
    for (const auto& b : o->by_size)
      h += fmt::format("<tr><td>{}</td>{}</tr>\n",
                       b.hi_bytes == std::numeric_limits<std::uint64_t>::max()
                           ? fmt::format("&ge; {} B", b.lo_bytes)
                           : fmt::format("{} - {} B", b.lo_bytes, b.hi_bytes),
                       bounds_cells(b.bounds));
    h += "</table>\n";
  }
  if (!o->by_op.empty()) {
    h += fmt::format("<h3>By operation kind</h3>\n<table><tr><th>operation</th>{}</tr>\n", bounds_header);
    for (const auto& x : o->by_op) h += fmt::format("<tr><td>{}</td>{}</tr>\n", esc(x.op), bounds_cells(x.bounds));
    h += "</table>\n";
  }
  h += "<h3>By region</h3>\n";
  if (o->by_region.empty()) {
    h += "<p>No monitored regions in the profile.</p>\n";
  } else {
    h += fmt::format("<table><tr><th>region</th>{}</tr>\n", bounds_header);
    for (const auto& r : o->by_region)
      h += fmt::format("<tr><td>{}</td>{}</tr>\n", esc(r.name), bounds_cells(r.bounds));
    h += "</table>\n";
  }
  return h;
}

std::string progress_html(const std::vector<profile>& ps) {
  std::string rows;
  progress_thread_stats sum;
  int n = 0;
  for (const auto& p : ps) {
    if (!p.progress_thread) continue;
    const auto& t = *p.progress_thread;
    ++n;
    sum.busy_s += t.busy_s;
    sum.idle_s += t.idle_s;
    sum.polls += t.polls;
    sum.completions += t.completions;
    rows += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n", p.rank,
                        num(t.busy_s), num(t.idle_s), pct(t.busy_s, t.busy_s + t.idle_s), t.polls, t.completions);
  }
  if (n == 0) return "";
  const double total = sum.busy_s + sum.idle_s;
  constexpr double W = 600;
  const double bw = total > 0 ? W * sum.busy_s / total : 0;
  std::string h = fmt::format(
      "<p>The progress thread on the dedicated core, all ranks summed: busy {} s, idle {} s ({} busy). A mostly idle "
      "thread means the core is cheap to lend back; a mostly busy one that progress needs it.</p>\n"
      "<svg width=\"{}\" height=\"46\" viewBox=\"0 0 {} 46\" font-family=\"sans-serif\" font-size=\"12\" role=\"img\" "
      "aria-label=\"progress thread busy and idle\"><rect x=\"0\" y=\"0\" width=\"{:.1f}\" height=\"24\" "
      "fill=\"#e45756\"/><rect x=\"{:.1f}\" y=\"0\" width=\"{:.1f}\" height=\"24\" fill=\"#9ecae9\"/><text x=\"0\" "
      "y=\"40\">busy {}</text><text x=\"{}\" y=\"40\" text-anchor=\"end\">idle {}</text></svg>\n",
      num(sum.busy_s), num(sum.idle_s), pct(sum.busy_s, total), W + 20, W + 20, bw, bw, W - bw, pct(sum.busy_s, total),
      W, pct(sum.idle_s, total));
  h += "<table><tr><th>rank</th><th>busy [s]</th><th>idle [s]</th><th>busy "
       "%</th><th>polls</th><th>completions</th></tr>\n" +
       rows + "</table>\n";
  return h;
}

constexpr const char* css = R"(
body { font-family: -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; margin: 2em auto; max-width: 980px;
       color: #1b1b1b; line-height: 1.45; padding: 0 1em; }
h1 { font-size: 1.6em; margin-bottom: 0.2em; }
h2 { font-size: 1.25em; border-bottom: 1px solid #ccc; padding-bottom: 0.2em; margin-top: 1.8em; }
h3 { font-size: 1.05em; }
.sub { color: #555; margin-top: 0; }
.verdict { border-radius: 6px; padding: 0.9em 1.2em; font-size: 1.2em; margin: 1em 0; }
.verdict b { font-size: 1.25em; text-transform: uppercase; }
.good { background: #e3f4e1; border: 2px solid #3c9a35; }
.bad { background: #fbe3e1; border: 2px solid #c0392b; }
.neutral { background: #efefef; border: 2px solid #888; }
table { border-collapse: collapse; margin: 0.6em 0; font-size: 0.92em; }
th, td { border: 1px solid #d0d0d0; padding: 0.25em 0.6em; text-align: right; vertical-align: top; }
th { background: #f4f4f4; }
td.l, th.l { text-align: left; }
code { background: #f4f4f4; padding: 0 0.2em; }
.diag { border-left: 4px solid #888; padding: 0.3em 0.8em; margin: 0.8em 0; background: #fafafa; }
.diag.warning { border-color: #d68910; }
.diag h3 { margin: 0.2em 0; }
footer { color: #777; font-size: 0.85em; margin-top: 3em; }
)";

}  // namespace

std::string render_html(const analysis& a) {
  const job_prediction& j = a.job;
  const prediction& slow = j.ranks[j.slowest];
  std::string h;
  h += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  h += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  h += "<title>sidecore report: dedicated progress core</title>\n<style>" + std::string(css) +
       "</style>\n</head>\n<body>\n";
  h += "<h1>Does a dedicated progress core pay off?</h1>\n";
  h += fmt::format(
      "<p class=\"sub\">Input: {} &middot; {} rank{} modelled &middot; provider {} &middot; model of seed "
      "004 (Denis, Jaeger, Jeannot, Reynier, CCGRID 2022), Sections III-B to III-D</p>\n",
      esc(a.source), j.ranks.size(), j.ranks.size() == 1 ? "" : "s", esc(a.provider.empty() ? "?" : a.provider));
  if (a.cannot_judge.empty()) {
    h += fmt::format("<div class=\"verdict {}\" id=\"verdict\"><b>{}</b>: predicted speedup <b>{:.3f}</b> &mdash; "
                     "t_noprogress {} s &rarr; t_dedicated {} s at alpha = {:g}, N_core = {} (noise band "
                     "&plusmn;{:g} %).</div>\n",
                     verdict_class(j.result), esc(verdict_name(j.result)), j.speedup, num(j.t_noprogress_s),
                     num(j.t_dedicated_s), j.alpha, slow.n_core, a.noise * 100);
  } else {
    h += fmt::format("<div class=\"verdict neutral\" id=\"verdict\"><b>cannot judge</b>: the model's hypotheses do "
                     "not hold for this run, so its formula ({}) says nothing about it.<ul>\n",
                     esc(formula_outcome(j)));
    for (const auto& b : a.cannot_judge)
      h += fmt::format("<li>{} <small>({})</small></li>\n", esc(b.reason), esc(b.id));
    h += "</ul></div>\n";
  }
  if (!a.cores_note.empty()) h += fmt::format("<p>N_core: {}.</p>\n", esc(a.cores_note));
  for (const auto& n : a.notes) h += fmt::format("<p>Note: {}.</p>\n", esc(n));
  for (const auto& n : a.incomplete) h += fmt::format("<p>Incomplete: {}.</p>\n", esc(n));
  if (j.ranks.size() > 1)
    h += fmt::format(
        "<p>The job ends with its slowest rank: rank {} with a dedicated core, rank {} without progress.</p>\n",
        slow.rank, j.ranks[j.slowest_noprogress].rank);
  h += fmt::format("<p>Computation scaling: {}{}.</p>\n", esc(a.scaling),
                   a.scaling_reason.empty() ? std::string() : " (" + esc(a.scaling_reason) + ")");

  h += fmt::format("<h2>Term by term (rank {})</h2>\n", slow.rank);
  h += composition_svg(slow);
  h += "<table><tr><th class=\"l\">term</th><th>value [s]</th><th class=\"l\">formula</th><th "
       "class=\"l\">meaning</th></tr>\n";
  for (const auto& t : slow.terms)
    h += fmt::format(
        "<tr><td class=\"l\"><code>{}</code></td><td>{}</td><td class=\"l\">{}</td><td class=\"l\">{}</td></tr>\n",
        esc(t.symbol), num(t.value_s), esc(t.formula), esc(t.explanation));
  h += fmt::format("<tr><td class=\"l\"><code>speedup</code></td><td>{:.4f}</td><td class=\"l\">{} / {}</td><td "
                   "class=\"l\">t_noprogress / t_dedicated</td></tr>\n</table>\n",
                   slow.speedup, num(slow.t_noprogress_s), num(slow.t_dedicated_s));

  h += "<h2>Converting blocking calls to nonblocking (alpha)</h2>\n";
  h += inline_svg(render_alpha_svg(a));
  h += fmt::format(
      "<p><b>Break-even:</b> {}.<br><b>Slope</b> (Section VI-C, the efficiency of the conversion): speedup "
      "{:+.4g} per unit alpha; d t_dedicated / d alpha = {:+.4g} s on rank {}: {}.</p>\n",
      esc(a.break_even.describe()), a.slope.speedup_per_alpha, a.slope.time_slope_s, a.slope.rank,
      esc(conversion_sentence(a.slope)));
  h += "<details><summary>Sweep table</summary>\n<table><tr><th>alpha</th><th>t_dedicated [s]</th><th>speedup</th>"
       "<th>slowest rank</th><th class=\"l\">verdict</th></tr>\n";
  for (const auto& s : a.sweep)
    h += fmt::format("<tr><td>{:.4f}</td><td>{}</td><td>{:.4f}</td><td>{}</td><td class=\"l\">{}</td></tr>\n", s.alpha,
                     num(s.t_dedicated_s), s.speedup, s.slowest_rank, esc(shown_verdict(a, s.result)));
  h += "</table></details>\n";

  h += "<h2>Cores per node (what-if)</h2>\n";
  h += fmt::format("<p>At alpha = {:g}, with computation rescaled by the scaling model: {}.</p>\n", j.alpha,
                   esc(whatif_sentence(a)));

  if (a.validation) {
    const auto& v = *a.validation;
    h += "<h2>Measured core-mode run</h2>\n";
    h += fmt::format("<table><tr><th></th><th>t_dedicated [s]</th><th>speedup</th></tr><tr><td class=\"l\">measured "
                     "(rank {})</td><td>{}</td><td>{:.4f}</td></tr><tr><td class=\"l\">predicted (alpha = "
                     "0)</td><td>{}</td><td>{:.4f}</td></tr></table><p>{}: {:+.1f} %{}.</p>\n",
                     v.measured_slowest_rank, num(v.measured_t_dedicated_s), v.measured_speedup,
                     num(v.predicted_t_dedicated_s), v.predicted_speedup,
                     v.not_judged.empty() ? "Model error" : "Difference", 100.0 * v.relative_error,
                     v.not_judged.empty() ? "" : " (not the model's error: " + esc(v.not_judged) + ")");
  }

  h += "<h2>Diagnostics</h2>\n";
  for (const auto& d : a.diagnostics)
    h += fmt::format("<div class=\"diag {}\"><h3>{} <small>({})</small></h3><p>{}</p></div>\n",
                     d.severity == diagnostic::level::warning ? "warning" : "info", esc(d.title), esc(d.id),
                     esc(d.message));
  if (!a.warnings.empty()) {
    h += "<h3>Input warnings</h3>\n<ul>\n";
    for (const auto& w : a.warnings) h += "<li>" + esc(w) + "</li>\n";
    h += "</ul>\n";
  }

  h += "<h2>Overlap bounds</h2>\n";
  std::string ov = overlap_html(a.calibration, "calibration (off)");
  if (ov.empty()) ov = overlap_html(a.core_run, "core-mode");
  const bool pmpi = is_pmpi_provider(a.provider);
  h += !ov.empty() ? ov
       : a.from_mpip ? std::string("<p>Not available: mpiP reports hold no overlap bounds.</p>\n")
       : pmpi ? std::string("<p>Not available. A PMPI profile (libsidecore-pmpi.so around an unmodified MPI "
                            "application) records the time and count of every MPI call, not the transfers inside the "
                            "MPI library, so it holds no overlap bounds: whether computation sits between initiation "
                            "and wait (the NAS BT-MZ case) cannot be checked. An application linked with sidecore "
                            "records them.</p>\n")
              : std::string("<p>Not available: the profiles record no transfer.</p>\n");

  std::string coll = collectives_html(a.calibration, "calibration (off)");
  if (coll.empty()) coll = collectives_html(a.core_run, "core-mode");
  if (!coll.empty()) h += "<h2>Collectives</h2>\n" + coll;

  h += "<h2>Progress thread</h2>\n";
  std::string pt = progress_html(a.core_run);
  if (pt.empty()) pt = progress_html(a.calibration);
  h += !pt.empty() ? pt
       : pmpi ? std::string("<p>Not available: a PMPI profile holds no progress-thread figures.</p>\n")
              : std::string("<p>Not available: give a profile recorded with SIDECORE_PROGRESS=core to see the "
                            "progress thread's busy/idle split.</p>\n");

  h += "<h2>Per rank</h2>\n<table><tr><th>rank</th><th>N_core</th><th>t_noprogress [s]</th><th>t_comp [s]</th>"
       "<th>t_MPI [s]</th><th>t_overhead [s]</th><th>t_MPIdedicated [s]</th><th>t_dedicated [s]</th><th>speedup</th>"
       "<th class=\"l\">verdict</th></tr>\n";
  for (const auto& p : j.ranks)
    h += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>"
                     "<td>{:.4f}</td><td class=\"l\">{}</td></tr>\n",
                     p.rank, p.n_core, num(p.t_noprogress_s), num(p.t_comp_s), num(p.t_mpi_noprogress_s),
                     num(p.t_overhead_s), num(p.t_mpi_dedicated_s), num(p.t_dedicated_s), p.speedup,
                     esc(shown_verdict(a, p.result)));
  h += "</table>\n";

  h += "<h2>Inputs (calibration run, per call category)</h2>\n<table><tr><th>rank</th>";
  for (int c = 0; c < category_count; ++c)
    h += fmt::format("<th>{0} time [s]</th><th>{0} calls</th><th>{0} min [s]</th>",
                     category_name(static_cast<category>(c)));
  h += "</tr>\n";
  for (const auto& r : a.inputs) {
    h += fmt::format("<tr><td>{}</td>", r.rank);
    for (const auto& t : r.categories)
      h += fmt::format("<td>{}</td><td>{}</td><td>{}</td>", num(t.time_s), t.count, num(t.min_s));
    h += "</tr>\n";
  }
  h += "</table>\n";
  h +=
      "<footer>Generated by <code>sidecore report</code>. Formula: t_dedicated = t_comp&middot;N/(N&minus;1) + "
      "N_nonblocking&middot;t_minMPInonblock + N_test&middot;t_minMPItest + N_wait&middot;t_minMPIwait + "
      "&alpha;&middot;N_blocking&middot;(t_minMPInonblock + t_minMPIwait) + (1&minus;&alpha;)&middot;N_blocking&middot;"
      "t_MPIblockingcom + t_MPIother.</footer>\n";
  h += "</body>\n</html>\n";
  return h;
}

}  // namespace sidecore::model
