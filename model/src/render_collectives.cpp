// The report's collectives section (HTML and text): per collective kind the latency and the waits, and the load
// imbalance the arrival order shows — which rank arrives last, how much time the others lose waiting for it
// (seed 002, EventSpace; docs/instrument.md, "Collective monitoring"). The waits are measured at the sampled
// instances only: the time lost is scaled to every instance, kind by kind.
#include "render_collectives.hpp"

#include <algorithm>
#include <optional>

#include <fmt/format.h>

#include "sidecore/model/render.hpp"

namespace sidecore::model {

namespace {

std::string num(double v) { return fmt::format("{:.6g}", v); }

// One rank's collectives, all kinds together.
struct rank_imbalance {
  int rank = 0;
  std::uint64_t count = 0;          // instances the rank completed
  std::uint64_t sampled = 0;        // of those, the ones matched across their members
  std::uint64_t last_arrivals = 0;  // of the sampled, the ones it arrived at last
  double arrival_wait_s = 0;        // the time it lost waiting for the last to arrive, at the sampled instances
  double arrival_wait_run_s = 0;    // the same over the run: each kind's sampled waits x its instances / sampled
  double t_total_s = 0;
};

// The imbalance per rank, from the rank profiles (each holds its own place in the orders).
std::vector<rank_imbalance> imbalance(const std::vector<profile>& ps) {
  std::vector<rank_imbalance> out;
  for (const profile& p : ps) {
    if (!p.collectives) continue;
    rank_imbalance r;
    r.rank = p.rank;
    r.t_total_s = p.t_total_s;
    for (const collective_kind_stats& k : p.collectives->by_kind) {
      r.count += k.count;
      r.sampled += k.sampled;
      double wait = 0;
      for (const collective_rank_order& o : k.ranks) {
        r.last_arrivals += o.last_arrivals;
        wait += o.arrival_wait_s;
      }
      r.arrival_wait_s += wait;
      // The sample spreads over the run, so its waits stand for every instance of the kind.
      if (k.sampled > 0) r.arrival_wait_run_s += wait * static_cast<double>(k.count) / static_cast<double>(k.sampled);
    }
    out.push_back(r);
  }
  std::sort(out.begin(), out.end(), [](const rank_imbalance& a, const rank_imbalance& b) { return a.rank < b.rank; });
  return out;
}

double share(std::uint64_t part, std::uint64_t whole) {
  return whole > 0 ? 100.0 * static_cast<double>(part) / static_cast<double>(whole) : 0.0;
}

// The rank arriving last most often, and the time the other ranks lost waiting: the sentence the reader is after.
std::optional<std::string> headline(const std::vector<rank_imbalance>& ranks) {
  const auto last = std::max_element(ranks.begin(), ranks.end(), [](const rank_imbalance& a, const rank_imbalance& b) {
    return share(a.last_arrivals, a.sampled) < share(b.last_arrivals, b.sampled);
  });
  if (last == ranks.end() || last->sampled == 0) return std::nullopt;
  double others_sampled = 0, others_wait = 0, others_time = 0;
  std::uint64_t others_count = 0, others_sampled_n = 0;
  for (const rank_imbalance& r : ranks) {
    if (r.rank == last->rank) continue;
    others_sampled += r.arrival_wait_s;
    others_wait += r.arrival_wait_run_s;
    others_time += r.t_total_s;
    others_count += r.count;
    others_sampled_n += r.sampled;
  }
  const double pct = others_time > 0 ? 100.0 * others_wait / others_time : 0.0;
  std::string lost = fmt::format("the other ranks lost {} s waiting for the last to arrive ({:.1f} % of their run "
                                 "time)",
                                 num(others_wait), pct);
  if (others_sampled_n < others_count)
    lost = fmt::format("the other ranks lost about {} s waiting for the last to arrive ({:.1f} % of their run time; "
                       "{} s at the {} sampled of their {} instances, scaled to all per kind)",
                       num(others_wait), pct, num(others_sampled), others_sampled_n, others_count);
  return fmt::format("rank {} arrived last at {:.1f} % of the sampled collective instances it took part in ({} of {}); "
                     "{}",
                     last->rank, share(last->last_arrivals, last->sampled), last->last_arrivals, last->sampled, lost);
}

std::string stat_cells(const duration_stats& s) {
  return s.count == 0 ? std::string("<td>-</td><td>-</td><td>-</td>")
                      : fmt::format("<td>{}</td><td>{}</td><td>{}</td>", num(s.median_s), num(s.mean_s), num(s.max_s));
}

}  // namespace

std::string collectives_html(const std::vector<profile>& ps, const char* which) {
  if (ps.empty()) return "";
  const std::optional<collectives_section> c = make_job_profile(ps).collectives;
  if (!c) return "";
  std::string h = fmt::format(
      "<p>From the {} run, all ranks: each rank's arrival at a collective instance (the call, or the nonblocking "
      "initiation) and its departure (its part complete). Latency covers every instance; the waits and the arrival "
      "order cover the instances sampled on every member (up to {} per communicator, the same ones on every rank), "
      "with the clocks brought to rank 0's within &plusmn;{} s ({}).</p>\n",
      which, c->sample_capacity, num(c->clock.bound_s), xml_escape(c->clock.method));
  const std::vector<rank_imbalance> ranks = imbalance(ps);
  if (const auto line = headline(ranks)) h += "<p id=\"imbalance\"><b>Imbalance:</b> " + xml_escape(*line) + ".</p>\n";
  h += "<table><tr><th class=\"l\">kind</th><th>instances (all ranks)</th><th>bytes</th><th>sampled</th>"
       "<th>latency median [s]</th><th>mean</th><th>max</th><th>arrival wait median [s]</th><th>mean</th><th>max</th>"
       "<th>departure wait median [s]</th><th>mean</th><th>max</th></tr>\n";
  for (const collective_kind_stats& k : c->by_kind) {
    h += fmt::format("<tr><td class=\"l\">{}</td><td>{}</td><td>{}</td><td>{}</td>{}{}{}</tr>\n", xml_escape(k.kind),
                     k.count, k.bytes, k.sampled, stat_cells(k.latency), stat_cells(k.arrival_wait),
                     stat_cells(k.departure_wait));
  }
  h += "</table>\n";
  h += "<h3>Arrival order by rank</h3>\n<table><tr><th>rank</th><th>sampled instances</th><th>last to arrive</th>"
       "<th>last %</th><th>time lost waiting for the last [s]</th><th>of its run time</th></tr>\n";
  for (const rank_imbalance& r : ranks) {
    h += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td>{:.1f} %</td><td>{}</td><td>{:.1f} %</td></tr>\n",
                     r.rank, r.sampled, r.last_arrivals, share(r.last_arrivals, r.sampled), num(r.arrival_wait_s),
                     r.t_total_s > 0 ? 100.0 * r.arrival_wait_s / r.t_total_s : 0.0);
  }
  h += "</table>\n";
  if (c->unmatched > 0) {
    h += fmt::format("<p>{} sampled instance records had no match on some member and are left out (a communicator "
                     "made in a way the monitoring cannot key alike on every rank, or a run cut short).</p>\n",
                     c->unmatched);
  }
  return h;
}

std::string collectives_text(const std::vector<profile>& ps) {
  if (ps.empty()) return "";
  const std::optional<collectives_section> c = make_job_profile(ps).collectives;
  if (!c) return "";
  std::string o = "\nCollectives (latency of every instance; waits on the sampled ones, clocks within +/-" +
                  num(c->clock.bound_s) + " s):\n";
  // A figure of no instance (a kind never sampled has no wait measured) is "-", not 0 s.
  const auto cell = [](const duration_stats& d, double v, int width) {
    return d.count == 0 ? fmt::format("{:>{}}", "-", width) : fmt::format("{:>{}.6g} s", v, width - 2);
  };
  o += fmt::format("  {:<20} {:>21} {:>8} {:>14} {:>18} {:>20}\n", "kind", "instances (all ranks)", "sampled",
                   "latency median", "arrival wait mean", "departure wait mean");
  for (const collective_kind_stats& k : c->by_kind) {
    o += fmt::format("  {:<20} {:>21} {:>8} {} {} {}\n", k.kind, k.count, k.sampled,
                     cell(k.latency, k.latency.median_s, 14), cell(k.arrival_wait, k.arrival_wait.mean_s, 18),
                     cell(k.departure_wait, k.departure_wait.mean_s, 20));
  }
  if (const auto line = headline(imbalance(ps))) o += "  imbalance: " + *line + "\n";
  return o;
}

}  // namespace sidecore::model
