// Collective schedules into simulator schedules (collective.hpp).
#include "sidecore/model/sim/collective.hpp"

#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

namespace sidecore::model::sim {

schedule from_collective(const std::vector<sidecore::coll::schedule>& per_rank, const local_costs& costs,
                         std::string source) {
  if (per_rank.empty()) throw std::invalid_argument(source + ": no ranks");
  const auto p = static_cast<std::uint32_t>(per_rank.size());
  schedule_builder b(p, source);
  std::vector<op_id> id;
  for (std::uint32_t r = 0; r < p; ++r) {
    const sidecore::coll::schedule& s = per_rank[r];
    id.assign(s.ops.size(), 0);
    for (std::size_t i = 0; i < s.ops.size(); ++i) {
      const sidecore::coll::op& o = s.ops[i];
      auto where = [&] { return fmt::format("{}: rank {}, operation {}", source, r, i); };
      const bool message = o.type == sidecore::coll::op_type::send || o.type == sidecore::coll::op_type::recv;
      if (message && (o.peer < 0 || static_cast<std::uint32_t>(o.peer) >= p))
        throw std::invalid_argument(fmt::format("{}: peer {} is not a rank of {}", where(), o.peer, p));
      switch (o.type) {
        case sidecore::coll::op_type::send:
          id[i] = b.send(r, static_cast<std::uint32_t>(o.peer), o.bytes, o.tag);
          break;
        case sidecore::coll::op_type::recv:
          id[i] = b.recv(r, static_cast<std::uint32_t>(o.peer), o.bytes, o.tag);
          break;
        case sidecore::coll::op_type::reduce:
        case sidecore::coll::op_type::copy: {
          const double per_byte =
              o.type == sidecore::coll::op_type::reduce ? costs.reduce_ns_per_byte : costs.copy_ns_per_byte;
          id[i] = b.calc(r, static_cast<std::uint64_t>(std::llround(static_cast<double>(o.bytes) * per_byte)));
          break;
        }
      }
      if (std::size_t{o.dep_first} + o.dep_count > s.deps.size())
        throw std::invalid_argument(fmt::format("{}: dependencies [{}, {}) lie outside the {} of the schedule",
                                                where(), o.dep_first, o.dep_first + o.dep_count, s.deps.size()));
      for (std::uint32_t k = o.dep_first; k < o.dep_first + o.dep_count; ++k) {
        if (s.deps[k] >= i)
          throw std::invalid_argument(fmt::format("{}: depends on operation {}, which is not an earlier one "
                                                  "(the schedule must be in topological order)", where(), s.deps[k]));
        b.depend(id[i], id[s.deps[k]]);
      }
    }
  }
  return b.build();
}

}  // namespace sidecore::model::sim
