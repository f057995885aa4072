// Ranges cut where their one line misses PRTT: docs/loggp.md, "Splitting to the tolerance".
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "sidecore/model/loggp/fit.hpp"

namespace sidecore::model::loggp {

namespace {

struct misfit {
  double max = 0;          // the largest relative PRTT error (what the tolerance bounds)
  double ssr = 0;          // the sum of squared relative PRTT errors (what a split must lower)
  std::size_t values = 0;  // PRTT values compared
};

misfit misfit_of(const prtt_series& s, const std::vector<derived_point>& derived, std::size_t first, std::size_t last,
                 const fit_options& o) {
  std::vector<std::string> trial_warnings;  // only the parts kept are fitted again, with their warnings
  const range_fit r = fit_range(s, derived, first, last, o, trial_warnings);
  const residual& a = r.residuals.prtt1;
  const residual& b = r.residuals.prttn;
  return {std::max(a.max_rel, b.max_rel),
          a.rms_rel * a.rms_rel * static_cast<double>(a.points) + b.rms_rel * b.rms_rel * static_cast<double>(b.points),
          a.points + b.points};
}

// The best place to cut points first..last in two: the least sum of the parts' squared errors. A part may
// be one size (a protocol that narrow: on shm, 8192 B, the largest eager size, costs about 1 us more than
// the eager line gives); the information criterion below keeps a cut only where it pays its parameters.
struct cut {
  std::size_t end = 0;  // last point of the left part
  misfit left, right;
  bool found = false;
};

// Each candidate costs two fits of up to the whole part, so a long part (16 sizes per octave: 300 and more) is
// searched coarsely first, every `step`-th end (about 32 of them), then at every end within a step of the best:
// the squared error changes little from one end to the next, except at a step of PRTT, which the fine pass finds.
constexpr std::size_t exhaustive_up_to = 64;

cut best_cut(const prtt_series& s, const std::vector<derived_point>& derived, std::size_t first, std::size_t last,
             const fit_options& o) {
  cut best;
  double best_ssr = std::numeric_limits<double>::infinity();
  auto consider = [&](std::size_t k) {
    const misfit l = misfit_of(s, derived, first, k, o), r = misfit_of(s, derived, k + 1, last, o);
    if (l.ssr + r.ssr < best_ssr) {
      best_ssr = l.ssr + r.ssr;
      best = {k, l, r, true};
    }
  };
  const std::size_t ends = last - first;  // candidate ends first .. last - 1
  const std::size_t step = ends <= exhaustive_up_to ? 1 : (ends + 31) / 32;
  for (std::size_t k = first; k < last; k += step) consider(k);
  if (step > 1 && best.found) {
    const std::size_t coarse = best.end;
    for (std::size_t k = coarse > first + step ? coarse - step + 1 : first; k < std::min(last, coarse + step); ++k)
      if (k != coarse) consider(k);
  }
  return best;
}

struct part {
  std::size_t first = 0, last = 0;
  misfit fit;
  std::optional<cut> best;  // its best cut, once looked for (a part that holds the tolerance is not)
};

}  // namespace


std::vector<std::size_t> split_to_tolerance(const prtt_series& s, const std::vector<derived_point>& derived,
                                            std::size_t first, std::size_t last, const fit_options& o) {
  if (!(o.tolerance > 0) || first >= last) return {};
  // Binary segmentation: cut, among the parts that miss the tolerance, the one whose best cut lowers the
  // squared error most, until every part holds or none can be cut. Then keep the first k cuts for the k
  // with the least Bayesian information criterion, N ln(SSR_k / N) + 7 (k + 1) ln N over the N PRTT values:
  // a cut must buy more than the 7 parameters it adds would fit of noise alone. A curve or a step does (one
  // cut alone may not lower the error much where the range is noisy too, so every prefix is weighed); noise
  // does not, whatever the cuts.
  std::vector<part> parts{{first, last, misfit_of(s, derived, first, last, o), std::nullopt}};
  const double values = static_cast<double>(parts.front().fit.values);
  std::vector<std::size_t> made;
  std::vector<double> ssr_after{parts.front().fit.ssr};
  for (;;) {
    std::size_t pick = parts.size();
    cut pick_cut;
    double gain = 0;
    for (std::size_t i = 0; i < parts.size(); ++i) {
      if (parts[i].fit.max <= o.tolerance) continue;
      if (!parts[i].best) parts[i].best = best_cut(s, derived, parts[i].first, parts[i].last, o);
      const cut& c = *parts[i].best;
      if (c.found && parts[i].fit.ssr - (c.left.ssr + c.right.ssr) > gain) {
        gain = parts[i].fit.ssr - (c.left.ssr + c.right.ssr);
        pick = i;
        pick_cut = c;
      }
    }
    if (pick == parts.size()) break;
    const part p = parts[pick];
    parts[pick] = {p.first, pick_cut.end, pick_cut.left, std::nullopt};
    parts.insert(parts.begin() + static_cast<std::ptrdiff_t>(pick) + 1,
                 part{pick_cut.end + 1, p.last, pick_cut.right, std::nullopt});
    made.push_back(pick_cut.end);
    double total = 0;
    for (const part& q : parts) total += q.fit.ssr;
    ssr_after.push_back(total);
  }
  auto bic = [&](std::size_t k) {
    const double mean = std::max(ssr_after[k] / values, 1e-30);  // noise-free data: ln of 0
    return values * std::log(mean) + 7.0 * static_cast<double>(k + 1) * std::log(values);
  };
  std::size_t keep = 0;
  for (std::size_t k = 1; k < ssr_after.size(); ++k)
    if (bic(k) < bic(keep)) keep = k;
  std::vector<std::size_t> ends(made.begin(), made.begin() + static_cast<std::ptrdiff_t>(keep));
  std::sort(ends.begin(), ends.end());
  return ends;
}

}  // namespace sidecore::model::loggp
