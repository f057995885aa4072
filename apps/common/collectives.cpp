#include "collectives.hpp"

namespace apps {

namespace {

// The apps' collectives are blocking and in place: sidecore's allreduce with in_place as the send buffer.
void reduce_in_place(void* values, std::size_t count, sidecore::dtype t, sidecore::op o, const sidecore::comm& c) {
  sidecore::allreduce(sidecore::in_place, values, static_cast<std::int64_t>(count), t, o, c);
}

}  // namespace

void allreduce_sum(std::span<double> values, const sidecore::comm& c) {
  reduce_in_place(values.data(), values.size(), sidecore::dtype::float64, sidecore::op::sum, c);
}

void allreduce_sum(std::span<std::uint64_t> values, const sidecore::comm& c) {
  reduce_in_place(values.data(), values.size(), sidecore::dtype::uint64, sidecore::op::sum, c);
}

double allreduce_max(double value, const sidecore::comm& c) {
  reduce_in_place(&value, 1, sidecore::dtype::float64, sidecore::op::max, c);
  return value;
}

int allreduce_max(int value, const sidecore::comm& c) {
  static_assert(sizeof(int) == sizeof(std::int32_t));
  reduce_in_place(&value, 1, sidecore::dtype::int32, sidecore::op::max, c);
  return value;
}

void barrier(const sidecore::comm& c) { sidecore::barrier(c); }

}  // namespace apps
