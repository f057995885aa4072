// The study's outputs (report.hpp).
#include "report.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "sidecore/model/render.hpp"

namespace sidecore::tools::study {
namespace {

using model::xml_escape;

std::string secs(const std::optional<double>& v) { return v ? fmt::format("{:.4g} s", *v) : "-"; }
std::string pct(const std::optional<double>& v) { return v ? fmt::format("{:+.1f} %", 100 * *v) : "-"; }
std::string label(const case_result& c) { return c.input.empty() ? fmt::format("case {}", c.case_index) : c.input; }

std::string status(const case_result& c) {
  if (c.judged) return "judged";
  return "NOT JUDGED";
}

// The bars of the SVG: one group per case and alpha point.
struct bar_group {
  std::string label;
  std::optional<double> noprogress, predicted, measured;
  bool judged = false;
};

std::vector<bar_group> groups(const std::vector<case_result>& cases) {
  std::vector<bar_group> g;
  for (const auto& c : cases) {
    g.push_back({label(c), c.t_noprogress_s, c.predicted_s, c.measured_s, c.judged});
    for (const auto& a : c.alphas)
      g.push_back({fmt::format("{} alpha {}", label(c), a.app_alpha), c.t_noprogress_s, a.predicted_s, a.measured_s,
                   c.judged});
  }
  return g;
}

}  // namespace

std::string render_text(const std::vector<case_result>& cases, const study_record& rec) {
  const config& s = rec.settings;
  std::string t = fmt::format("sidecore study: {} rank{}, {} repetition{} (medians), {}\n", s.ranks,
                              s.ranks == 1 ? "" : "s", s.reps, s.reps == 1 ? "" : "s", fmt::join(s.app, " "));
  t += fmt::format("\n{:<32} {:>12} {:>12} {:>12} {:>9}  {}\n", "case", "t_noprogress", "predicted", "measured",
                   "error", "");
  for (const auto& c : cases)
    t += fmt::format("{:<32} {:>12} {:>12} {:>12} {:>9}  {}\n", label(c), secs(c.t_noprogress_s), secs(c.predicted_s),
                     secs(c.measured_s), c.judged ? pct(c.error) : "-", status(c));
  for (const auto& c : cases) {
    t += fmt::format("\n== {} ==\n", label(c));
    t += fmt::format("runs done: calibration {}, scaling {}, dedicated {} (of {} each)\n", c.reps_calibration,
                     c.reps_scaling, c.reps_dedicated, s.reps);
    if (c.cores_per_rank > 0) t += fmt::format("cores per rank: {} ({})\n", c.cores_per_rank, c.cores_source);
    if (!c.scaling.empty()) t += fmt::format("scaling: {}\n", c.scaling);
    if (c.predicted_s) {
      t += fmt::format("predicted t_dedicated {} (speedup {:.3f}, \"{}\"), measured {}", secs(c.predicted_s),
                       *c.predicted_speedup, c.predicted_verdict, secs(c.measured_s));
      if (c.measured_speedup) t += fmt::format(" (speedup {:.3f})", *c.measured_speedup);
      t += c.judged ? fmt::format(": error {}\n", pct(c.error))
                    : fmt::format(": error not judged (it would read {})\n", pct(c.error));
    }
    for (const auto& why : c.not_judged) t += fmt::format("NOT JUDGED: {}\n", why);
    if (!c.terms.empty()) {
      t += fmt::format("\nterms of rank {} (the paper's Tables I/II: calibration, then with a dedicated core)\n",
                       c.terms_rank);
      t += fmt::format("  {:<38} {:>12} {:>12} {:>12}\n", "term", "calibration", "predicted", "measured");
      for (const auto& r : c.terms)
        t += fmt::format("  {:<38} {:>12} {:>12} {:>12}\n", r.name, fmt::format("{:.4g} s", r.calibration_s),
                         fmt::format("{:.4g} s", r.predicted_s), secs(r.measured_s));
    }
    if (!c.alphas.empty()) {
      t += fmt::format("\nalpha points ({} A: the app's own conversion; the model's alpha from the blocking-call "
                       "counts)\n",
                       s.alpha_option);
      t += fmt::format("  {:>9} {:>11} {:>12} {:>12} {:>9} {:>5}\n", "app alpha", "model alpha", "predicted",
                       "measured", "error", "runs");
      for (const auto& a : c.alphas)
        t += fmt::format("  {:>9g} {:>11} {:>12} {:>12} {:>9} {:>5}\n", a.app_alpha,
                         a.model_alpha ? fmt::format("{:.4f}", *a.model_alpha) : "-", secs(a.predicted_s),
                         secs(a.measured_s), c.judged ? pct(a.error) : "-", a.reps);
    }
    if (c.analysis) {
      if (c.findings.empty()) t += "\nfindings: none of the paper's failure cases\n";
      else t += "\nfindings:\n";
      for (const auto& f : c.findings)
        t += fmt::format("  {}{}: {}\n", f.id, f.paper_case.empty() ? "" : " [" + f.paper_case + "]", f.text);
    }
  }
  return t;
}

std::string render_svg(const std::vector<case_result>& cases) {
  const auto g = groups(cases);
  double top = 0;
  for (const auto& b : g)
    for (const auto& v : {b.noprogress, b.predicted, b.measured})
      if (v) top = std::max(top, *v);
  if (top <= 0) top = 1;
  const double group_w = 150, bar_w = 36, left = 70, plot_h = 260, base = 300;
  const double width = left + group_w * static_cast<double>(std::max<std::size_t>(g.size(), 1)) + 20;
  std::string s = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0:.0f}\" height=\"400\" viewBox=\"0 0 {0:.0f} 400\" "
      "font-family=\"sans-serif\" font-size=\"11\">\n"
      "<text x=\"{1:.0f}\" y=\"18\" font-size=\"13\">t_noprogress (measured), t_dedicated predicted and measured, per "
      "case (medians)</text>\n"
      "<line x1=\"{1:.0f}\" y1=\"{2:.0f}\" x2=\"{3:.0f}\" y2=\"{2:.0f}\" stroke=\"#000\"/>\n"
      "<line x1=\"{1:.0f}\" y1=\"{4:.0f}\" x2=\"{1:.0f}\" y2=\"{2:.0f}\" stroke=\"#000\"/>\n"
      "<text x=\"12\" y=\"{5:.0f}\" transform=\"rotate(-90 12 {5:.0f})\">seconds</text>\n",
      width, left, base, width - 10, base - plot_h, base - plot_h / 2);
  for (int k = 0; k <= 4; ++k) {
    const double v = top * k / 4, y = base - plot_h * k / 4;
    s += fmt::format("<text x=\"{:.0f}\" y=\"{:.1f}\" text-anchor=\"end\">{:.3g}</text>\n", left - 4, y + 4, v);
  }
  const char* colours[3] = {"#999999", "#4477aa", "#ee7733"};
  for (std::size_t i = 0; i < g.size(); ++i) {
    const double x0 = left + group_w * static_cast<double>(i) + 15;
    const std::optional<double> vals[3] = {g[i].noprogress, g[i].predicted, g[i].measured};
    for (int k = 0; k < 3; ++k) {
      if (!vals[k]) continue;
      const double h = plot_h * *vals[k] / top;
      s += fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.0f}\" height=\"{:.1f}\" fill=\"{}\"{}/>\n",
                       x0 + bar_w * k, base - h, bar_w - 4, h, colours[k],
                       g[i].judged ? "" : " fill-opacity=\"0.35\"");
    }
    s += fmt::format("<text x=\"{:.1f}\" y=\"{:.0f}\" text-anchor=\"middle\">{}</text>\n", x0 + 1.5 * bar_w, base + 16,
                     xml_escape(g[i].label.size() > 24 ? g[i].label.substr(0, 23) + "…" : g[i].label));
    if (!g[i].judged)
      s += fmt::format("<text x=\"{:.1f}\" y=\"{:.0f}\" text-anchor=\"middle\" fill=\"#aa3377\">not judged</text>\n",
                       x0 + 1.5 * bar_w, base + 30);
  }
  const char* names[3] = {"t_noprogress", "predicted t_dedicated", "measured t_dedicated"};
  for (int k = 0; k < 3; ++k)
    s += fmt::format("<rect x=\"{:.0f}\" y=\"372\" width=\"12\" height=\"12\" fill=\"{}\"/><text x=\"{:.0f}\" "
                     "y=\"382\">{}</text>\n",
                     left + 170.0 * k, colours[k], left + 170.0 * k + 16, names[k]);
  return s + "</svg>\n";
}

std::string render_html(const std::vector<case_result>& cases, const study_record& rec) {
  std::string sec = "<h1>sidecore study: the model against measured runs</h1>\n";
  sec += fmt::format("<p class=\"sub\">{} &middot; {} rank(s) &middot; {} repetition(s), medians</p>\n",
                     xml_escape(fmt::format("{}", fmt::join(rec.settings.app, " "))), rec.settings.ranks,
                     rec.settings.reps);
  sec += "<table><tr><th class=\"l\">case</th><th>t_noprogress [s]</th><th>predicted t_dedicated [s]</th>"
         "<th>measured t_dedicated [s]</th><th>error</th><th class=\"l\">status</th></tr>\n";
  auto num = [](const std::optional<double>& v) { return v ? fmt::format("{:.6g}", *v) : std::string("-"); };
  for (const auto& c : cases) {
    sec += fmt::format("<tr><td class=\"l\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td class=\"l\">{}",
                       xml_escape(label(c)), num(c.t_noprogress_s), num(c.predicted_s), num(c.measured_s),
                       c.judged ? pct(c.error) : "-", status(c));
    for (const auto& why : c.not_judged) sec += "<br><small>" + xml_escape(why) + "</small>";
    sec += "</td></tr>\n";
  }
  sec += "</table>\n" + render_svg(cases);
  for (const auto& c : cases) {
    if (c.terms.empty()) continue;
    sec += fmt::format("<h2>Terms, {} (rank {})</h2>\n<table><tr><th class=\"l\">term</th><th>calibration [s]</th>"
                       "<th>predicted [s]</th><th>measured [s]</th></tr>\n",
                       xml_escape(label(c)), c.terms_rank);
    for (const auto& t : c.terms)
      sec += fmt::format("<tr><td class=\"l\">{}</td><td>{:.6g}</td><td>{:.6g}</td><td>{}</td></tr>\n",
                         xml_escape(t.name), t.calibration_s, t.predicted_s, num(t.measured_s));
    sec += "</table>\n";
    if (!c.alphas.empty()) {
      sec += "<table><tr><th>app alpha</th><th>model alpha</th><th>predicted [s]</th><th>measured [s]</th>"
             "<th>error</th></tr>\n";
      for (const auto& a : c.alphas)
        sec += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n", a.app_alpha,
                           num(a.model_alpha), num(a.predicted_s), num(a.measured_s), c.judged ? pct(a.error) : "-");
      sec += "</table>\n";
    }
    if (!c.findings.empty()) {
      sec += "<ul>\n";
      for (const auto& f : c.findings)
        sec += fmt::format("<li><b>{}</b>{}: {}</li>\n", xml_escape(f.id),
                           f.paper_case.empty() ? "" : " (" + xml_escape(f.paper_case) + ")", xml_escape(f.text));
      sec += "</ul>\n";
    }
  }
  sec += "<hr>\n";
  const auto with =
      std::find_if(cases.begin(), cases.end(), [](const case_result& c) { return c.analysis.has_value(); });
  std::string page = with != cases.end()
                         ? model::render_html(*with->analysis)
                         : "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>sidecore "
                           "study</title>\n</head>\n<body>\n</body>\n</html>\n";
  // The model's report is a whole page: the study's section goes first inside its body.
  const std::string body = "<body>\n";
  const auto at = page.find(body);
  page.insert(at == std::string::npos ? 0 : at + body.size(), sec);
  return page;
}

}  // namespace sidecore::tools::study
