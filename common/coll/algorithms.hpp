// The builder of each (kind, algorithm) pair, one source file per algorithm (its header comment gives its rounds,
// its LogGP cost and its source). schedule.cpp dispatches to them after validating the spec.
#pragma once

#include "builder.hpp"

namespace sidecore::coll::detail {

void build_barrier_dissemination(builder& b);
void build_barrier_recursive_doubling(builder& b);

void build_bcast_binomial(builder& b);
void build_bcast_scatter_allgather(builder& b);
void build_bcast_linear(builder& b);

void build_reduce_binomial(builder& b);
void build_reduce_rabenseifner(builder& b);
void build_reduce_linear(builder& b);

void build_allreduce_recursive_doubling(builder& b);
void build_allreduce_ring(builder& b);
void build_allreduce_rabenseifner(builder& b);

void build_gather_binomial(builder& b);
void build_gather_linear(builder& b);
void build_scatter_binomial(builder& b);
void build_scatter_linear(builder& b);

void build_allgather_ring(builder& b);  // allgather and allgatherv
void build_allgather_linear(builder& b);  // allgather and allgatherv
void build_allgather_bruck(builder& b);
void build_allgather_recursive_doubling(builder& b);

void build_alltoall_linear(builder& b);  // alltoall and alltoallv
void build_alltoall_pairwise(builder& b);  // alltoall and alltoallv
void build_alltoall_bruck(builder& b);

void build_reduce_scatter_block_pairwise(builder& b);
void build_reduce_scatter_block_recursive_halving(builder& b);

}  // namespace sidecore::coll::detail
