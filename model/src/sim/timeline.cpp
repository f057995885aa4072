// Chrome trace-event timeline of a simulation (timeline.hpp).
#include "sidecore/model/sim/timeline.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace sidecore::model::sim {

void chrome_timeline::cpu_busy(std::uint32_t rank, unsigned cpu, cpu_work what, op_id id, double begin, double end) {
  busy_.push_back({rank, cpu, id, begin, end, what});
}

void chrome_timeline::message(op_id id, std::uint32_t to, double sent, double received) {
  msgs_.push_back({id, to, sent, received});
}

// Each event is dumped as it is made, not collected in one JSON document first: a document holds about 5 KB per
// operation, the text about 300 bytes. The text is what dumping {"displayTimeUnit", "traceEvents"} would give.
std::string chrome_timeline::json() const {
  using nlohmann::json;
  std::string out = R"({"displayTimeUnit":"ns","traceEvents":[)";
  bool first = true;
  auto add = [&](const json& event) {
    if (!first) out += ',';
    first = false;
    out += event.dump();
  };
  auto us = [](double ns) { return ns / 1e3; };
  for (std::uint32_t r = 0; r < s_.num_ranks(); ++r)
    add({{"ph", "M"}, {"pid", r}, {"name", "process_name"}, {"args", {{"name", fmt::format("rank {}", r)}}}});
  for (const busy& b : busy_) {
    const op& o = s_.at(b.id);
    std::string name;
    if (b.what == cpu_work::calc) name = "calc";
    else if (b.what == cpu_work::reception) name = fmt::format("o recv from {}", s_.rank_of(b.id));
    else name = fmt::format("o send to {}", o.peer);
    const std::string_view label = s_.label(b.id);
    add({{"ph", "X"},
         {"pid", b.rank},
         {"tid", b.cpu},
         {"name", name},
         {"cat", b.what == cpu_work::calc ? "calc" : "overhead"},
         {"ts", us(b.begin)},
         {"dur", us(b.end - b.begin)},
         {"args", {{"op", s_.describe(b.id)}, {"label", std::string(label)}}}});
  }
  for (std::size_t i = 0; i < msgs_.size(); ++i) {
    const msg& m = msgs_[i];
    const std::uint32_t from = s_.rank_of(m.id);
    const std::string id = fmt::format("0x{:x}", i);
    add({{"ph", "b"}, {"pid", from}, {"tid", 0}, {"cat", "message"}, {"id", id},
         {"name", fmt::format("{} B to {}", s_.at(m.id).size, m.to)}, {"ts", us(m.sent)},
         {"args", {{"op", s_.describe(m.id)}}}});
    add({{"ph", "e"}, {"pid", from}, {"tid", 0}, {"cat", "message"}, {"id", id},
         {"name", fmt::format("{} B to {}", s_.at(m.id).size, m.to)}, {"ts", us(m.received)}});
  }
  return out + "]}\n";
}

}  // namespace sidecore::model::sim
