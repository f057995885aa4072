// libsidecore-pmpi.so — MPI call wrappers (PMPI interposition). One wrapper per intercepted MPI C function: it
// brackets the PMPI call with CALL_ENTER/CALL_EXIT of the function's model category (seed 004, Section III-C); the
// collectives of the monitored kinds also record their instance's arrival and departure (collectives.hpp), and the
// waits and tests the departure of the nonblocking ones they complete.
// The prototypes are MPICH 4.0.2's (mpi_proto.h), so the library matches the system MPICH's ABI exactly.
// Each function with an MPI 4.0 large-count variant (MPI_Count counts, MPI_Aint displacements) is followed by its
// "_c" twin: same category, named "MPI_<Name>_c" in the profile.
// MPI_Init, MPI_Init_thread and MPI_Finalize are in pmpi.cpp.
#include <mpi.h>

#include "collectives.hpp"
#include "pmpi_internal.hpp"

using sidecore::category;
using sidecore::instrument::op_kind;
using sidecore::instrument::pmpi::blocking_coll;
using sidecore::instrument::pmpi::bytes_of;
using sidecore::instrument::pmpi::call_scope;
using sidecore::instrument::pmpi::group_communicator_created;
using sidecore::instrument::pmpi::merged_communicator_created;
using sidecore::instrument::pmpi::nonblocking_coll;
using sidecore::instrument::pmpi::persistent_coll;
using sidecore::instrument::pmpi::persistent_start;
using sidecore::instrument::pmpi::request_watch;
using sidecore::instrument::pmpi::sum_bytes;
using sidecore::instrument::pmpi::times_size;

namespace {
// A communicator-making call's return: the new communicator gets its monitoring key. Returns rc.
int created(int rc, MPI_Comm parent, const MPI_Comm* child) {
  if (rc == MPI_SUCCESS && child != nullptr) sidecore::instrument::pmpi::communicator_created(parent, *child);
  return rc;
}

// Whether a wait or test of every request (Waitall; Testall with `all` its flag) that returned rc reported slot i
// complete: all of them on success; under MPI_ERR_IN_STATUS those whose status holds no error.
bool all_reported(int rc, bool all, const MPI_Status* statuses, int i) {
  if (rc == MPI_SUCCESS) return all;
  return rc == MPI_ERR_IN_STATUS && statuses != MPI_STATUSES_IGNORE && statuses[i].MPI_ERROR == MPI_SUCCESS;
}

// Whether Waitsome or Testsome reported slot i complete: among its indices (under MPI_ERR_IN_STATUS, with no error in
// the status beside it).
bool some_reported(int rc, const int* outcount, const int* indices, const MPI_Status* statuses, int i) {
  if ((rc != MPI_SUCCESS && rc != MPI_ERR_IN_STATUS) || *outcount == MPI_UNDEFINED) return false;
  for (int j = 0; j < *outcount; ++j) {
    if (indices[j] != i) continue;
    return rc == MPI_SUCCESS || (statuses != MPI_STATUSES_IGNORE && statuses[j].MPI_ERROR == MPI_SUCCESS);
  }
  return false;
}
}  // namespace

#pragma GCC visibility push(default)
extern "C" {

// ---- Blocking point-to-point and collectives (category "blocking").
int MPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) {
  const call_scope scope(category::blocking, "MPI_Send");
  return PMPI_Send(buf, count, datatype, dest, tag, comm);
}

int MPI_Send_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) {
  const call_scope scope(category::blocking, "MPI_Send_c");
  return PMPI_Send_c(buf, count, datatype, dest, tag, comm);
}

int MPI_Recv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Status *status) {
  const call_scope scope(category::blocking, "MPI_Recv");
  return PMPI_Recv(buf, count, datatype, source, tag, comm, status);
}

int MPI_Recv_c(void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
               MPI_Status *status) {
  const call_scope scope(category::blocking, "MPI_Recv_c");
  return PMPI_Recv_c(buf, count, datatype, source, tag, comm, status);
}

int MPI_Ssend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) {
  const call_scope scope(category::blocking, "MPI_Ssend");
  return PMPI_Ssend(buf, count, datatype, dest, tag, comm);
}

int MPI_Ssend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) {
  const call_scope scope(category::blocking, "MPI_Ssend_c");
  return PMPI_Ssend_c(buf, count, datatype, dest, tag, comm);
}

int MPI_Rsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) {
  const call_scope scope(category::blocking, "MPI_Rsend");
  return PMPI_Rsend(buf, count, datatype, dest, tag, comm);
}

int MPI_Rsend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) {
  const call_scope scope(category::blocking, "MPI_Rsend_c");
  return PMPI_Rsend_c(buf, count, datatype, dest, tag, comm);
}

int MPI_Bsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) {
  const call_scope scope(category::blocking, "MPI_Bsend");
  return PMPI_Bsend(buf, count, datatype, dest, tag, comm);
}

int MPI_Bsend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) {
  const call_scope scope(category::blocking, "MPI_Bsend_c");
  return PMPI_Bsend_c(buf, count, datatype, dest, tag, comm);
}

int MPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm, MPI_Status *status) {
  const call_scope scope(category::blocking, "MPI_Sendrecv");
  return PMPI_Sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source, recvtag, comm,
                       status);
}

int MPI_Sendrecv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                   void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm,
                   MPI_Status *status) {
  const call_scope scope(category::blocking, "MPI_Sendrecv_c");
  return PMPI_Sendrecv_c(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source, recvtag,
                         comm, status);
}

int MPI_Sendrecv_replace(void *buf, int count, MPI_Datatype datatype, int dest, int sendtag, int source, int recvtag,
                         MPI_Comm comm, MPI_Status *status) {
  const call_scope scope(category::blocking, "MPI_Sendrecv_replace");
  return PMPI_Sendrecv_replace(buf, count, datatype, dest, sendtag, source, recvtag, comm, status);
}

int MPI_Sendrecv_replace_c(void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int sendtag, int source,
                           int recvtag, MPI_Comm comm, MPI_Status *status) {
  const call_scope scope(category::blocking, "MPI_Sendrecv_replace_c");
  return PMPI_Sendrecv_replace_c(buf, count, datatype, dest, sendtag, source, recvtag, comm, status);
}

int MPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status) {
  const call_scope scope(category::blocking, "MPI_Probe");
  return PMPI_Probe(source, tag, comm, status);
}

int MPI_Barrier(MPI_Comm comm) {
  const call_scope scope(category::blocking, "MPI_Barrier");
  const blocking_coll coll(op_kind::barrier, comm, [&] { return 0; });
  return PMPI_Barrier(comm);
}

int MPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm) {
  const call_scope scope(category::blocking, "MPI_Bcast");
  const blocking_coll coll(op_kind::bcast, comm, [&] { return bytes_of(count, datatype); });
  return PMPI_Bcast(buffer, count, datatype, root, comm);
}

int MPI_Bcast_c(void *buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm) {
  const call_scope scope(category::blocking, "MPI_Bcast_c");
  const blocking_coll coll(op_kind::bcast, comm, [&] { return bytes_of(count, datatype); });
  return PMPI_Bcast_c(buffer, count, datatype, root, comm);
}

int MPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
               MPI_Comm comm) {
  const call_scope scope(category::blocking, "MPI_Reduce");
  const blocking_coll coll(op_kind::reduce, comm, [&] { return bytes_of(count, datatype); });
  return PMPI_Reduce(sendbuf, recvbuf, count, datatype, op, root, comm);
}

int MPI_Reduce_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, int root,
                 MPI_Comm comm) {
  const call_scope scope(category::blocking, "MPI_Reduce_c");
  const blocking_coll coll(op_kind::reduce, comm, [&] { return bytes_of(count, datatype); });
  return PMPI_Reduce_c(sendbuf, recvbuf, count, datatype, op, root, comm);
}

int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  const call_scope scope(category::blocking, "MPI_Allreduce");
  const blocking_coll coll(op_kind::allreduce, comm, [&] { return bytes_of(count, datatype); });
  return PMPI_Allreduce(sendbuf, recvbuf, count, datatype, op, comm);
}

int MPI_Allreduce_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
                    MPI_Comm comm) {
  const call_scope scope(category::blocking, "MPI_Allreduce_c");
  const blocking_coll coll(op_kind::allreduce, comm, [&] { return bytes_of(count, datatype); });
  return PMPI_Allreduce_c(sendbuf, recvbuf, count, datatype, op, comm);
}

int MPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
               MPI_Datatype recvtype, int root, MPI_Comm comm) {
  const call_scope scope(category::blocking, "MPI_Gather");
  const blocking_coll coll(op_kind::gather, comm, [&] {
    return sendbuf == MPI_IN_PLACE ? bytes_of(recvcount, recvtype) : bytes_of(sendcount, sendtype);
  });
  return PMPI_Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
}

int MPI_Gather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                 MPI_Datatype recvtype, int root, MPI_Comm comm) {
  const call_scope scope(category::blocking, "MPI_Gather_c");
  const blocking_coll coll(op_kind::gather, comm, [&] {
    return sendbuf == MPI_IN_PLACE ? bytes_of(recvcount, recvtype) : bytes_of(sendcount, sendtype);
  });
  return PMPI_Gather_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
}

int MPI_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm) {
  const call_scope scope(category::blocking, "MPI_Gatherv");
  const blocking_coll coll(op_kind::gather, comm,
                           [&] { return sendbuf == MPI_IN_PLACE ? 0 : bytes_of(sendcount, sendtype); });
  return PMPI_Gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm);
}

int MPI_Gatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                  const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, int root,
                  MPI_Comm comm) {
  const call_scope scope(category::blocking, "MPI_Gatherv_c");
  const blocking_coll coll(op_kind::gather, comm,
                           [&] { return sendbuf == MPI_IN_PLACE ? 0 : bytes_of(sendcount, sendtype); });
  return PMPI_Gatherv_c(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm);
}

int MPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                MPI_Datatype recvtype, int root, MPI_Comm comm) {
  const call_scope scope(category::blocking, "MPI_Scatter");
  const blocking_coll coll(op_kind::scatter, comm, [&] {
    return recvbuf == MPI_IN_PLACE ? bytes_of(sendcount, sendtype) : bytes_of(recvcount, recvtype);
  });
  return PMPI_Scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
}

int MPI_Scatter_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                  MPI_Datatype recvtype, int root, MPI_Comm comm) {
  const call_scope scope(category::blocking, "MPI_Scatter_c");
  const blocking_coll coll(op_kind::scatter, comm, [&] {
    return recvbuf == MPI_IN_PLACE ? bytes_of(sendcount, sendtype) : bytes_of(recvcount, recvtype);
  });
  return PMPI_Scatter_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
}

int MPI_Scatterv(const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  const call_scope scope(category::blocking, "MPI_Scatterv");
  const blocking_coll coll(op_kind::scatter, comm,
                           [&] { return recvbuf == MPI_IN_PLACE ? 0 : bytes_of(recvcount, recvtype); });
  return PMPI_Scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm);
}

int MPI_Scatterv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[], MPI_Datatype sendtype,
                   void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  const call_scope scope(category::blocking, "MPI_Scatterv_c");
  const blocking_coll coll(op_kind::scatter, comm,
                           [&] { return recvbuf == MPI_IN_PLACE ? 0 : bytes_of(recvcount, recvtype); });
  return PMPI_Scatterv_c(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm);
}

int MPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                  MPI_Datatype recvtype, MPI_Comm comm) {
  const call_scope scope(category::blocking, "MPI_Allgather");
  const blocking_coll coll(op_kind::allgather, comm, [&] {
    return sendbuf == MPI_IN_PLACE ? bytes_of(recvcount, recvtype) : bytes_of(sendcount, sendtype);
  });
  return PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}

int MPI_Allgather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                    MPI_Datatype recvtype, MPI_Comm comm) {
  const call_scope scope(category::blocking, "MPI_Allgather_c");
  const blocking_coll coll(op_kind::allgather, comm, [&] {
    return sendbuf == MPI_IN_PLACE ? bytes_of(recvcount, recvtype) : bytes_of(sendcount, sendtype);
  });
  return PMPI_Allgather_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}

int MPI_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                   const int displs[], MPI_Datatype recvtype, MPI_Comm comm) {
  const call_scope scope(category::blocking, "MPI_Allgatherv");
  const blocking_coll coll(op_kind::allgatherv, comm,
                           [&] { return sendbuf == MPI_IN_PLACE ? 0 : bytes_of(sendcount, sendtype); });
  return PMPI_Allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm);
}

int MPI_Allgatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                     const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, MPI_Comm comm) {
  const call_scope scope(category::blocking, "MPI_Allgatherv_c");
  const blocking_coll coll(op_kind::allgatherv, comm,
                           [&] { return sendbuf == MPI_IN_PLACE ? 0 : bytes_of(sendcount, sendtype); });
  return PMPI_Allgatherv_c(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm);
}

int MPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                 MPI_Datatype recvtype, MPI_Comm comm) {
  const call_scope scope(category::blocking, "MPI_Alltoall");
  const blocking_coll coll(op_kind::alltoall, comm, [&] {
    return times_size(comm, sendbuf == MPI_IN_PLACE ? bytes_of(recvcount, recvtype) : bytes_of(sendcount, sendtype));
  });
  return PMPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}

int MPI_Alltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                   MPI_Datatype recvtype, MPI_Comm comm) {
  const call_scope scope(category::blocking, "MPI_Alltoall_c");
  const blocking_coll coll(op_kind::alltoall, comm, [&] {
    return times_size(comm, sendbuf == MPI_IN_PLACE ? bytes_of(recvcount, recvtype) : bytes_of(sendcount, sendtype));
  });
  return PMPI_Alltoall_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}

int MPI_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                  void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm) {
  const call_scope scope(category::blocking, "MPI_Alltoallv");
  const blocking_coll coll(op_kind::alltoallv, comm, [&] {
    return sendbuf == MPI_IN_PLACE ? sum_bytes(recvcounts, recvtype, comm) : sum_bytes(sendcounts, sendtype, comm);
  });
  return PMPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm);
}

int MPI_Alltoallv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[], MPI_Datatype sendtype,
                    void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[], MPI_Datatype recvtype,
                    MPI_Comm comm) {
  const call_scope scope(category::blocking, "MPI_Alltoallv_c");
  const blocking_coll coll(op_kind::alltoallv, comm, [&] {
    return sendbuf == MPI_IN_PLACE ? sum_bytes(recvcounts, recvtype, comm) : sum_bytes(sendcounts, sendtype, comm);
  });
  return PMPI_Alltoallv_c(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm);
}

int MPI_Alltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[], const MPI_Datatype sendtypes[],
                  void *recvbuf, const int recvcounts[], const int rdispls[], const MPI_Datatype recvtypes[],
                  MPI_Comm comm) {
  const call_scope scope(category::blocking, "MPI_Alltoallw");
  const blocking_coll coll(op_kind::alltoallv, comm, [&] {
    return sendbuf == MPI_IN_PLACE ? sum_bytes(recvcounts, recvtypes, comm) : sum_bytes(sendcounts, sendtypes, comm);
  });
  return PMPI_Alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm);
}

int MPI_Alltoallw_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                    const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[],
                    const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm) {
  const call_scope scope(category::blocking, "MPI_Alltoallw_c");
  const blocking_coll coll(op_kind::alltoallv, comm, [&] {
    return sendbuf == MPI_IN_PLACE ? sum_bytes(recvcounts, recvtypes, comm) : sum_bytes(sendcounts, sendtypes, comm);
  });
  return PMPI_Alltoallw_c(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm);
}

int MPI_Reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype, MPI_Op op,
                       MPI_Comm comm) {
  const call_scope scope(category::blocking, "MPI_Reduce_scatter");
  const blocking_coll coll(op_kind::reduce_scatter_block, comm, [&] { return sum_bytes(recvcounts, datatype, comm); });
  return PMPI_Reduce_scatter(sendbuf, recvbuf, recvcounts, datatype, op, comm);
}

int MPI_Reduce_scatter_c(const void *sendbuf, void *recvbuf, const MPI_Count recvcounts[], MPI_Datatype datatype,
                         MPI_Op op, MPI_Comm comm) {
  const call_scope scope(category::blocking, "MPI_Reduce_scatter_c");
  const blocking_coll coll(op_kind::reduce_scatter_block, comm, [&] { return sum_bytes(recvcounts, datatype, comm); });
  return PMPI_Reduce_scatter_c(sendbuf, recvbuf, recvcounts, datatype, op, comm);
}

int MPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op,
                             MPI_Comm comm) {
  const call_scope scope(category::blocking, "MPI_Reduce_scatter_block");
  const blocking_coll coll(op_kind::reduce_scatter_block, comm,
                           [&] { return times_size(comm, bytes_of(recvcount, datatype)); });
  return PMPI_Reduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, comm);
}

int MPI_Reduce_scatter_block_c(const void *sendbuf, void *recvbuf, MPI_Count recvcount, MPI_Datatype datatype,
                               MPI_Op op, MPI_Comm comm) {
  const call_scope scope(category::blocking, "MPI_Reduce_scatter_block_c");
  const blocking_coll coll(op_kind::reduce_scatter_block, comm,
                           [&] { return times_size(comm, bytes_of(recvcount, datatype)); });
  return PMPI_Reduce_scatter_block_c(sendbuf, recvbuf, recvcount, datatype, op, comm);
}

int MPI_Scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  const call_scope scope(category::blocking, "MPI_Scan");
  return PMPI_Scan(sendbuf, recvbuf, count, datatype, op, comm);
}

int MPI_Scan_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  const call_scope scope(category::blocking, "MPI_Scan_c");
  return PMPI_Scan_c(sendbuf, recvbuf, count, datatype, op, comm);
}

int MPI_Exscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  const call_scope scope(category::blocking, "MPI_Exscan");
  return PMPI_Exscan(sendbuf, recvbuf, count, datatype, op, comm);
}

int MPI_Exscan_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  const call_scope scope(category::blocking, "MPI_Exscan_c");
  return PMPI_Exscan_c(sendbuf, recvbuf, count, datatype, op, comm);
}

int MPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message *message, MPI_Status *status) {
  const call_scope scope(category::blocking, "MPI_Mprobe");
  return PMPI_Mprobe(source, tag, comm, message, status);
}

int MPI_Mrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message, MPI_Status *status) {
  const call_scope scope(category::blocking, "MPI_Mrecv");
  return PMPI_Mrecv(buf, count, datatype, message, status);
}

int MPI_Mrecv_c(void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Message *message, MPI_Status *status) {
  const call_scope scope(category::blocking, "MPI_Mrecv_c");
  return PMPI_Mrecv_c(buf, count, datatype, message, status);
}

// Neighbourhood collectives (MPI 3.0) on a topology communicator: blocking, like the other collectives.
int MPI_Neighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                           MPI_Datatype recvtype, MPI_Comm comm) {
  const call_scope scope(category::blocking, "MPI_Neighbor_allgather");
  return PMPI_Neighbor_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}

int MPI_Neighbor_allgather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                             MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  const call_scope scope(category::blocking, "MPI_Neighbor_allgather_c");
  return PMPI_Neighbor_allgather_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}

int MPI_Neighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                            const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm) {
  const call_scope scope(category::blocking, "MPI_Neighbor_allgatherv");
  return PMPI_Neighbor_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm);
}

int MPI_Neighbor_allgatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                              const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
                              MPI_Comm comm) {
  const call_scope scope(category::blocking, "MPI_Neighbor_allgatherv_c");
  return PMPI_Neighbor_allgatherv_c(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm);
}

int MPI_Neighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                          MPI_Datatype recvtype, MPI_Comm comm) {
  const call_scope scope(category::blocking, "MPI_Neighbor_alltoall");
  return PMPI_Neighbor_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}

int MPI_Neighbor_alltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                            MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  const call_scope scope(category::blocking, "MPI_Neighbor_alltoall_c");
  return PMPI_Neighbor_alltoall_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}

int MPI_Neighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                           void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                           MPI_Comm comm) {
  const call_scope scope(category::blocking, "MPI_Neighbor_alltoallv");
  return PMPI_Neighbor_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm);
}

int MPI_Neighbor_alltoallv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                             MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[],
                             const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm) {
  const call_scope scope(category::blocking, "MPI_Neighbor_alltoallv_c");
  return PMPI_Neighbor_alltoallv_c(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype,
                                   comm);
}

int MPI_Neighbor_alltoallw(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                           const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                           const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm) {
  const call_scope scope(category::blocking, "MPI_Neighbor_alltoallw");
  return PMPI_Neighbor_alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes,
                                 comm);
}

int MPI_Neighbor_alltoallw_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                             const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[],
                             const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm) {
  const call_scope scope(category::blocking, "MPI_Neighbor_alltoallw_c");
  return PMPI_Neighbor_alltoallw_c(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes,
                                   comm);
}

// ---- Nonblocking initiation (category "init"), persistent starts included.
int MPI_Isend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
              MPI_Request *request) {
  const call_scope scope(category::init, "MPI_Isend");
  return PMPI_Isend(buf, count, datatype, dest, tag, comm, request);
}

int MPI_Isend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                MPI_Request *request) {
  const call_scope scope(category::init, "MPI_Isend_c");
  return PMPI_Isend_c(buf, count, datatype, dest, tag, comm, request);
}

int MPI_Irecv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Request *request) {
  const call_scope scope(category::init, "MPI_Irecv");
  return PMPI_Irecv(buf, count, datatype, source, tag, comm, request);
}

int MPI_Irecv_c(void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                MPI_Request *request) {
  const call_scope scope(category::init, "MPI_Irecv_c");
  return PMPI_Irecv_c(buf, count, datatype, source, tag, comm, request);
}

int MPI_Issend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
               MPI_Request *request) {
  const call_scope scope(category::init, "MPI_Issend");
  return PMPI_Issend(buf, count, datatype, dest, tag, comm, request);
}

int MPI_Issend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                 MPI_Request *request) {
  const call_scope scope(category::init, "MPI_Issend_c");
  return PMPI_Issend_c(buf, count, datatype, dest, tag, comm, request);
}

int MPI_Irsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
               MPI_Request *request) {
  const call_scope scope(category::init, "MPI_Irsend");
  return PMPI_Irsend(buf, count, datatype, dest, tag, comm, request);
}

int MPI_Irsend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                 MPI_Request *request) {
  const call_scope scope(category::init, "MPI_Irsend_c");
  return PMPI_Irsend_c(buf, count, datatype, dest, tag, comm, request);
}

int MPI_Ibsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
               MPI_Request *request) {
  const call_scope scope(category::init, "MPI_Ibsend");
  return PMPI_Ibsend(buf, count, datatype, dest, tag, comm, request);
}

int MPI_Ibsend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                 MPI_Request *request) {
  const call_scope scope(category::init, "MPI_Ibsend_c");
  return PMPI_Ibsend_c(buf, count, datatype, dest, tag, comm, request);
}

int MPI_Ibarrier(MPI_Comm comm, MPI_Request *request) {
  const call_scope scope(category::init, "MPI_Ibarrier");
  nonblocking_coll coll(op_kind::barrier, comm, [&] { return 0; });
  return coll.started(PMPI_Ibarrier(comm, request), request);
}

int MPI_Ibcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm, MPI_Request *request) {
  const call_scope scope(category::init, "MPI_Ibcast");
  nonblocking_coll coll(op_kind::bcast, comm, [&] { return bytes_of(count, datatype); });
  return coll.started(PMPI_Ibcast(buffer, count, datatype, root, comm, request), request);
}

int MPI_Ibcast_c(void *buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm, MPI_Request *request) {
  const call_scope scope(category::init, "MPI_Ibcast_c");
  nonblocking_coll coll(op_kind::bcast, comm, [&] { return bytes_of(count, datatype); });
  return coll.started(PMPI_Ibcast_c(buffer, count, datatype, root, comm, request), request);
}

int MPI_Ireduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
                MPI_Comm comm, MPI_Request *request) {
  const call_scope scope(category::init, "MPI_Ireduce");
  nonblocking_coll coll(op_kind::reduce, comm, [&] { return bytes_of(count, datatype); });
  return coll.started(PMPI_Ireduce(sendbuf, recvbuf, count, datatype, op, root, comm, request), request);
}

int MPI_Ireduce_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, int root,
                  MPI_Comm comm, MPI_Request *request) {
  const call_scope scope(category::init, "MPI_Ireduce_c");
  nonblocking_coll coll(op_kind::reduce, comm, [&] { return bytes_of(count, datatype); });
  return coll.started(PMPI_Ireduce_c(sendbuf, recvbuf, count, datatype, op, root, comm, request), request);
}

int MPI_Iallreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                   MPI_Request *request) {
  const call_scope scope(category::init, "MPI_Iallreduce");
  nonblocking_coll coll(op_kind::allreduce, comm, [&] { return bytes_of(count, datatype); });
  return coll.started(PMPI_Iallreduce(sendbuf, recvbuf, count, datatype, op, comm, request), request);
}

int MPI_Iallreduce_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
                     MPI_Comm comm, MPI_Request *request) {
  const call_scope scope(category::init, "MPI_Iallreduce_c");
  nonblocking_coll coll(op_kind::allreduce, comm, [&] { return bytes_of(count, datatype); });
  return coll.started(PMPI_Iallreduce_c(sendbuf, recvbuf, count, datatype, op, comm, request), request);
}

int MPI_Igather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request) {
  const call_scope scope(category::init, "MPI_Igather");
  nonblocking_coll coll(op_kind::gather, comm, [&] {
    return sendbuf == MPI_IN_PLACE ? bytes_of(recvcount, recvtype) : bytes_of(sendcount, sendtype);
  });
  return coll.started(PMPI_Igather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, request),
                      request);
}

int MPI_Igather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                  MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request) {
  const call_scope scope(category::init, "MPI_Igather_c");
  nonblocking_coll coll(op_kind::gather, comm, [&] {
    return sendbuf == MPI_IN_PLACE ? bytes_of(recvcount, recvtype) : bytes_of(sendcount, sendtype);
  });
  return coll.started(PMPI_Igather_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, request),
                      request);
}

int MPI_Igatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                 const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request) {
  const call_scope scope(category::init, "MPI_Igatherv");
  nonblocking_coll coll(op_kind::gather, comm,
                        [&] { return sendbuf == MPI_IN_PLACE ? 0 : bytes_of(sendcount, sendtype); });
  return coll.started(
      PMPI_Igatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm, request), request);
}

int MPI_Igatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                   const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, int root,
                   MPI_Comm comm, MPI_Request *request) {
  const call_scope scope(category::init, "MPI_Igatherv_c");
  nonblocking_coll coll(op_kind::gather, comm,
                        [&] { return sendbuf == MPI_IN_PLACE ? 0 : bytes_of(sendcount, sendtype); });
  return coll.started(
      PMPI_Igatherv_c(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm, request),
      request);
}

int MPI_Iscatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                 MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request) {
  const call_scope scope(category::init, "MPI_Iscatter");
  nonblocking_coll coll(op_kind::scatter, comm, [&] {
    return recvbuf == MPI_IN_PLACE ? bytes_of(sendcount, sendtype) : bytes_of(recvcount, recvtype);
  });
  return coll.started(PMPI_Iscatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, request),
                      request);
}

int MPI_Iscatter_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                   MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request) {
  const call_scope scope(category::init, "MPI_Iscatter_c");
  nonblocking_coll coll(op_kind::scatter, comm, [&] {
    return recvbuf == MPI_IN_PLACE ? bytes_of(sendcount, sendtype) : bytes_of(recvcount, recvtype);
  });
  return coll.started(PMPI_Iscatter_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, request),
                      request);
}

int MPI_Iscatterv(const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request) {
  const call_scope scope(category::init, "MPI_Iscatterv");
  nonblocking_coll coll(op_kind::scatter, comm,
                        [&] { return recvbuf == MPI_IN_PLACE ? 0 : bytes_of(recvcount, recvtype); });
  return coll.started(
      PMPI_Iscatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm, request),
      request);
}

int MPI_Iscatterv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[], MPI_Datatype sendtype,
                    void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                    MPI_Request *request) {
  const call_scope scope(category::init, "MPI_Iscatterv_c");
  nonblocking_coll coll(op_kind::scatter, comm,
                        [&] { return recvbuf == MPI_IN_PLACE ? 0 : bytes_of(recvcount, recvtype); });
  return coll.started(
      PMPI_Iscatterv_c(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm, request),
      request);
}

int MPI_Iallgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                   MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request) {
  const call_scope scope(category::init, "MPI_Iallgather");
  nonblocking_coll coll(op_kind::allgather, comm, [&] {
    return sendbuf == MPI_IN_PLACE ? bytes_of(recvcount, recvtype) : bytes_of(sendcount, sendtype);
  });
  return coll.started(PMPI_Iallgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request),
                      request);
}

int MPI_Iallgather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                     MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request) {
  const call_scope scope(category::init, "MPI_Iallgather_c");
  nonblocking_coll coll(op_kind::allgather, comm, [&] {
    return sendbuf == MPI_IN_PLACE ? bytes_of(recvcount, recvtype) : bytes_of(sendcount, sendtype);
  });
  return coll.started(PMPI_Iallgather_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request),
                      request);
}

int MPI_Iallgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                    const int displs[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request) {
  const call_scope scope(category::init, "MPI_Iallgatherv");
  nonblocking_coll coll(op_kind::allgatherv, comm,
                        [&] { return sendbuf == MPI_IN_PLACE ? 0 : bytes_of(sendcount, sendtype); });
  return coll.started(
      PMPI_Iallgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, request), request);
}

int MPI_Iallgatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                      const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, MPI_Comm comm,
                      MPI_Request *request) {
  const call_scope scope(category::init, "MPI_Iallgatherv_c");
  nonblocking_coll coll(op_kind::allgatherv, comm,
                        [&] { return sendbuf == MPI_IN_PLACE ? 0 : bytes_of(sendcount, sendtype); });
  return coll.started(
      PMPI_Iallgatherv_c(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, request), request);
}

int MPI_Ialltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                  MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request) {
  const call_scope scope(category::init, "MPI_Ialltoall");
  nonblocking_coll coll(op_kind::alltoall, comm, [&] {
    return times_size(comm, sendbuf == MPI_IN_PLACE ? bytes_of(recvcount, recvtype) : bytes_of(sendcount, sendtype));
  });
  return coll.started(PMPI_Ialltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request),
                      request);
}

int MPI_Ialltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                    MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request) {
  const call_scope scope(category::init, "MPI_Ialltoall_c");
  nonblocking_coll coll(op_kind::alltoall, comm, [&] {
    return times_size(comm, sendbuf == MPI_IN_PLACE ? bytes_of(recvcount, recvtype) : bytes_of(sendcount, sendtype));
  });
  return coll.started(PMPI_Ialltoall_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request),
                      request);
}

int MPI_Ialltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                   void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                   MPI_Request *request) {
  const call_scope scope(category::init, "MPI_Ialltoallv");
  nonblocking_coll coll(op_kind::alltoallv, comm, [&] {
    return sendbuf == MPI_IN_PLACE ? sum_bytes(recvcounts, recvtype, comm) : sum_bytes(sendcounts, sendtype, comm);
  });
  return coll.started(
      PMPI_Ialltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm, request),
      request);
}

int MPI_Ialltoallv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[], MPI_Datatype sendtype,
                     void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[], MPI_Datatype recvtype,
                     MPI_Comm comm, MPI_Request *request) {
  const call_scope scope(category::init, "MPI_Ialltoallv_c");
  nonblocking_coll coll(op_kind::alltoallv, comm, [&] {
    return sendbuf == MPI_IN_PLACE ? sum_bytes(recvcounts, recvtype, comm) : sum_bytes(sendcounts, sendtype, comm);
  });
  return coll.started(
      PMPI_Ialltoallv_c(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm, request),
      request);
}

int MPI_Ialltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[], const MPI_Datatype sendtypes[],
                   void *recvbuf, const int recvcounts[], const int rdispls[], const MPI_Datatype recvtypes[],
                   MPI_Comm comm, MPI_Request *request) {
  const call_scope scope(category::init, "MPI_Ialltoallw");
  nonblocking_coll coll(op_kind::alltoallv, comm, [&] {
    return sendbuf == MPI_IN_PLACE ? sum_bytes(recvcounts, recvtypes, comm) : sum_bytes(sendcounts, sendtypes, comm);
  });
  return coll.started(
      PMPI_Ialltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm, request),
      request);
}

int MPI_Ialltoallw_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                     const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[],
                     const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Request *request) {
  const call_scope scope(category::init, "MPI_Ialltoallw_c");
  nonblocking_coll coll(op_kind::alltoallv, comm, [&] {
    return sendbuf == MPI_IN_PLACE ? sum_bytes(recvcounts, recvtypes, comm) : sum_bytes(sendcounts, sendtypes, comm);
  });
  return coll.started(PMPI_Ialltoallw_c(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
                                        recvtypes, comm, request),
                      request);
}

int MPI_Ireduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype, MPI_Op op,
                        MPI_Comm comm, MPI_Request *request) {
  const call_scope scope(category::init, "MPI_Ireduce_scatter");
  nonblocking_coll coll(op_kind::reduce_scatter_block, comm, [&] { return sum_bytes(recvcounts, datatype, comm); });
  return coll.started(PMPI_Ireduce_scatter(sendbuf, recvbuf, recvcounts, datatype, op, comm, request), request);
}

int MPI_Ireduce_scatter_c(const void *sendbuf, void *recvbuf, const MPI_Count recvcounts[], MPI_Datatype datatype,
                          MPI_Op op, MPI_Comm comm, MPI_Request *request) {
  const call_scope scope(category::init, "MPI_Ireduce_scatter_c");
  nonblocking_coll coll(op_kind::reduce_scatter_block, comm, [&] { return sum_bytes(recvcounts, datatype, comm); });
  return coll.started(PMPI_Ireduce_scatter_c(sendbuf, recvbuf, recvcounts, datatype, op, comm, request), request);
}

int MPI_Ireduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op,
                              MPI_Comm comm, MPI_Request *request) {
  const call_scope scope(category::init, "MPI_Ireduce_scatter_block");
  nonblocking_coll coll(op_kind::reduce_scatter_block, comm,
                        [&] { return times_size(comm, bytes_of(recvcount, datatype)); });
  return coll.started(PMPI_Ireduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, comm, request), request);
}

int MPI_Ireduce_scatter_block_c(const void *sendbuf, void *recvbuf, MPI_Count recvcount, MPI_Datatype datatype,
                                MPI_Op op, MPI_Comm comm, MPI_Request *request) {
  const call_scope scope(category::init, "MPI_Ireduce_scatter_block_c");
  nonblocking_coll coll(op_kind::reduce_scatter_block, comm,
                        [&] { return times_size(comm, bytes_of(recvcount, datatype)); });
  return coll.started(PMPI_Ireduce_scatter_block_c(sendbuf, recvbuf, recvcount, datatype, op, comm, request), request);
}

int MPI_Iscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
              MPI_Request *request) {
  const call_scope scope(category::init, "MPI_Iscan");
  return PMPI_Iscan(sendbuf, recvbuf, count, datatype, op, comm, request);
}

int MPI_Iscan_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                MPI_Request *request) {
  const call_scope scope(category::init, "MPI_Iscan_c");
  return PMPI_Iscan_c(sendbuf, recvbuf, count, datatype, op, comm, request);
}

int MPI_Iexscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                MPI_Request *request) {
  const call_scope scope(category::init, "MPI_Iexscan");
  return PMPI_Iexscan(sendbuf, recvbuf, count, datatype, op, comm, request);
}

int MPI_Iexscan_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                  MPI_Request *request) {
  const call_scope scope(category::init, "MPI_Iexscan_c");
  return PMPI_Iexscan_c(sendbuf, recvbuf, count, datatype, op, comm, request);
}

int MPI_Imrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message, MPI_Request *request) {
  const call_scope scope(category::init, "MPI_Imrecv");
  return PMPI_Imrecv(buf, count, datatype, message, request);
}

int MPI_Imrecv_c(void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Message *message, MPI_Request *request) {
  const call_scope scope(category::init, "MPI_Imrecv_c");
  return PMPI_Imrecv_c(buf, count, datatype, message, request);
}

int MPI_Isendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm, MPI_Request *request) {
  const call_scope scope(category::init, "MPI_Isendrecv");
  return PMPI_Isendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source, recvtag,
                        comm, request);
}

int MPI_Isendrecv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                    void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm,
                    MPI_Request *request) {
  const call_scope scope(category::init, "MPI_Isendrecv_c");
  return PMPI_Isendrecv_c(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source, recvtag,
                          comm, request);
}

int MPI_Isendrecv_replace(void *buf, int count, MPI_Datatype datatype, int dest, int sendtag, int source, int recvtag,
                          MPI_Comm comm, MPI_Request *request) {
  const call_scope scope(category::init, "MPI_Isendrecv_replace");
  return PMPI_Isendrecv_replace(buf, count, datatype, dest, sendtag, source, recvtag, comm, request);
}

int MPI_Isendrecv_replace_c(void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int sendtag, int source,
                            int recvtag, MPI_Comm comm, MPI_Request *request) {
  const call_scope scope(category::init, "MPI_Isendrecv_replace_c");
  return PMPI_Isendrecv_replace_c(buf, count, datatype, dest, sendtag, source, recvtag, comm, request);
}

int MPI_Ineighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                            MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request) {
  const call_scope scope(category::init, "MPI_Ineighbor_allgather");
  return PMPI_Ineighbor_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request);
}

int MPI_Ineighbor_allgather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                              MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request) {
  const call_scope scope(category::init, "MPI_Ineighbor_allgather_c");
  return PMPI_Ineighbor_allgather_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request);
}

int MPI_Ineighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                             const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
                             MPI_Request *request) {
  const call_scope scope(category::init, "MPI_Ineighbor_allgatherv");
  return PMPI_Ineighbor_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, request);
}

int MPI_Ineighbor_allgatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                               const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
                               MPI_Comm comm, MPI_Request *request) {
  const call_scope scope(category::init, "MPI_Ineighbor_allgatherv_c");
  return PMPI_Ineighbor_allgatherv_c(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm,
                                     request);
}

int MPI_Ineighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                           MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request) {
  const call_scope scope(category::init, "MPI_Ineighbor_alltoall");
  return PMPI_Ineighbor_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request);
}

int MPI_Ineighbor_alltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                             MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request) {
  const call_scope scope(category::init, "MPI_Ineighbor_alltoall_c");
  return PMPI_Ineighbor_alltoall_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request);
}

int MPI_Ineighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                            void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                            MPI_Comm comm, MPI_Request *request) {
  const call_scope scope(category::init, "MPI_Ineighbor_alltoallv");
  return PMPI_Ineighbor_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm,
                                  request);
}

int MPI_Ineighbor_alltoallv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                              MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[],
                              const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request) {
  const call_scope scope(category::init, "MPI_Ineighbor_alltoallv_c");
  return PMPI_Ineighbor_alltoallv_c(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype,
                                    comm, request);
}

int MPI_Ineighbor_alltoallw(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                            const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                            const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                            MPI_Request *request) {
  const call_scope scope(category::init, "MPI_Ineighbor_alltoallw");
  return PMPI_Ineighbor_alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes,
                                  comm, request);
}

int MPI_Ineighbor_alltoallw_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                              const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[],
                              const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                              MPI_Request *request) {
  const call_scope scope(category::init, "MPI_Ineighbor_alltoallw_c");
  return PMPI_Ineighbor_alltoallw_c(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes,
                                    comm, request);
}

// A persistent collective's start is a nonblocking collective's initiation, and one instance of it (collectives.hpp).
int MPI_Start(MPI_Request *request) {
  const call_scope scope(category::init, "MPI_Start");
  persistent_start starts(1, request);
  return starts.started(PMPI_Start(request));
}

int MPI_Startall(int count, MPI_Request array_of_requests[]) {
  const call_scope scope(category::init, "MPI_Startall");
  persistent_start starts(count, array_of_requests);
  return starts.started(PMPI_Startall(count, array_of_requests));
}

// ---- Tests and nonblocking probes (category "test": they poll, they initiate nothing).
int MPI_Iprobe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status) {
  const call_scope scope(category::test, "MPI_Iprobe");
  return PMPI_Iprobe(source, tag, comm, flag, status);
}

int MPI_Test(MPI_Request *request, int *flag, MPI_Status *status) {
  const call_scope scope(category::test, "MPI_Test");
  request_watch watch(1, request);
  const int rc = PMPI_Test(request, flag, status);
  watch.settle([&](int) { return rc == MPI_SUCCESS && *flag != 0; });
  return rc;
}

int MPI_Testall(int count, MPI_Request array_of_requests[], int *flag, MPI_Status array_of_statuses[]) {
  const call_scope scope(category::test, "MPI_Testall");
  request_watch watch(count, array_of_requests);
  const int rc = PMPI_Testall(count, array_of_requests, flag, array_of_statuses);
  watch.settle([&](int i) { return all_reported(rc, *flag != 0, array_of_statuses, i); });
  return rc;
}

int MPI_Testany(int count, MPI_Request array_of_requests[], int *indx, int *flag, MPI_Status *status) {
  const call_scope scope(category::test, "MPI_Testany");
  request_watch watch(count, array_of_requests);
  const int rc = PMPI_Testany(count, array_of_requests, indx, flag, status);
  watch.settle([&](int i) { return rc == MPI_SUCCESS && *flag != 0 && *indx == i; });
  return rc;
}

int MPI_Testsome(int incount, MPI_Request array_of_requests[], int *outcount, int array_of_indices[],
                 MPI_Status array_of_statuses[]) {
  const call_scope scope(category::test, "MPI_Testsome");
  request_watch watch(incount, array_of_requests);
  const int rc = PMPI_Testsome(incount, array_of_requests, outcount, array_of_indices, array_of_statuses);
  watch.settle([&](int i) { return some_reported(rc, outcount, array_of_indices, array_of_statuses, i); });
  return rc;
}

int MPI_Improbe(int source, int tag, MPI_Comm comm, int *flag, MPI_Message *message, MPI_Status *status) {
  const call_scope scope(category::test, "MPI_Improbe");
  return PMPI_Improbe(source, tag, comm, flag, message, status);
}

// Like a test, but it neither frees nor deactivates the request.
int MPI_Request_get_status(MPI_Request request, int *flag, MPI_Status *status) {
  const call_scope scope(category::test, "MPI_Request_get_status");
  const int rc = PMPI_Request_get_status(request, flag, status);
  if (rc == MPI_SUCCESS && *flag != 0) sidecore::instrument::pmpi::request_seen_complete(request);
  return rc;
}

// ---- Waits (category "wait").
int MPI_Wait(MPI_Request *request, MPI_Status *status) {
  const call_scope scope(category::wait, "MPI_Wait");
  request_watch watch(1, request);
  const int rc = PMPI_Wait(request, status);
  watch.settle([&](int) { return rc == MPI_SUCCESS; });
  return rc;
}

int MPI_Waitall(int count, MPI_Request array_of_requests[], MPI_Status array_of_statuses[]) {
  const call_scope scope(category::wait, "MPI_Waitall");
  request_watch watch(count, array_of_requests);
  const int rc = PMPI_Waitall(count, array_of_requests, array_of_statuses);
  watch.settle([&](int i) { return all_reported(rc, true, array_of_statuses, i); });
  return rc;
}

int MPI_Waitany(int count, MPI_Request array_of_requests[], int *indx, MPI_Status *status) {
  const call_scope scope(category::wait, "MPI_Waitany");
  request_watch watch(count, array_of_requests);
  const int rc = PMPI_Waitany(count, array_of_requests, indx, status);
  watch.settle([&](int i) { return rc == MPI_SUCCESS && *indx == i; });
  return rc;
}

int MPI_Waitsome(int incount, MPI_Request array_of_requests[], int *outcount, int array_of_indices[],
                 MPI_Status array_of_statuses[]) {
  const call_scope scope(category::wait, "MPI_Waitsome");
  request_watch watch(incount, array_of_requests);
  const int rc = PMPI_Waitsome(incount, array_of_requests, outcount, array_of_indices, array_of_statuses);
  watch.settle([&](int i) { return some_reported(rc, outcount, array_of_indices, array_of_statuses, i); });
  return rc;
}

// ---- Everything else that is intercepted (category "other").
int MPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm) {
  const call_scope scope(category::other, "MPI_Comm_dup");
  return created(PMPI_Comm_dup(comm, newcomm), comm, newcomm);
}

int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm) {
  const call_scope scope(category::other, "MPI_Comm_split");
  return created(PMPI_Comm_split(comm, color, key, newcomm), comm, newcomm);
}

int MPI_Comm_free(MPI_Comm *comm) {
  const call_scope scope(category::other, "MPI_Comm_free");
  return PMPI_Comm_free(comm);
}

int MPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm) {
  const call_scope scope(category::other, "MPI_Comm_create");
  return created(PMPI_Comm_create(comm, group, newcomm), comm, newcomm);
}

// MPI_Comm_create_group is collective over the group's members only: its communicator is keyed by its members
// (collectives.hpp).
int MPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *newcomm) {
  const call_scope scope(category::other, "MPI_Comm_create_group");
  const int rc = PMPI_Comm_create_group(comm, group, tag, newcomm);
  if (rc == MPI_SUCCESS && newcomm != nullptr) group_communicator_created(comm, tag, *newcomm);
  return rc;
}

// The other calls collective over a parent intracommunicator that make a new one: intercepted so that the new
// communicator gets its monitoring key (collectives.hpp). MPI_Comm_idup is not (its communicator may not be used,
// an attribute set included, before its request completes): its collectives are monitored on each rank, not
// matched across ranks.
int MPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm) {
  const call_scope scope(category::other, "MPI_Comm_dup_with_info");
  return created(PMPI_Comm_dup_with_info(comm, info, newcomm), comm, newcomm);
}

int MPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm *newcomm) {
  const call_scope scope(category::other, "MPI_Comm_split_type");
  return created(PMPI_Comm_split_type(comm, split_type, key, info, newcomm), comm, newcomm);
}

int MPI_Cart_create(MPI_Comm comm_old, int ndims, const int dims[], const int periods[], int reorder,
                    MPI_Comm *comm_cart) {
  const call_scope scope(category::other, "MPI_Cart_create");
  return created(PMPI_Cart_create(comm_old, ndims, dims, periods, reorder, comm_cart), comm_old, comm_cart);
}

int MPI_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm *newcomm) {
  const call_scope scope(category::other, "MPI_Cart_sub");
  return created(PMPI_Cart_sub(comm, remain_dims, newcomm), comm, newcomm);
}

int MPI_Graph_create(MPI_Comm comm_old, int nnodes, const int indx[], const int edges[], int reorder,
                     MPI_Comm *comm_graph) {
  const call_scope scope(category::other, "MPI_Graph_create");
  return created(PMPI_Graph_create(comm_old, nnodes, indx, edges, reorder, comm_graph), comm_old, comm_graph);
}

int MPI_Dist_graph_create(MPI_Comm comm_old, int n, const int sources[], const int degrees[], const int destinations[],
                          const int weights[], MPI_Info info, int reorder, MPI_Comm *comm_dist_graph) {
  const call_scope scope(category::other, "MPI_Dist_graph_create");
  return created(
      PMPI_Dist_graph_create(comm_old, n, sources, degrees, destinations, weights, info, reorder, comm_dist_graph),
      comm_old, comm_dist_graph);
}

int MPI_Dist_graph_create_adjacent(MPI_Comm comm_old, int indegree, const int sources[], const int sourceweights[],
                                   int outdegree, const int destinations[], const int destweights[], MPI_Info info,
                                   int reorder, MPI_Comm *comm_dist_graph) {
  const call_scope scope(category::other, "MPI_Dist_graph_create_adjacent");
  return created(PMPI_Dist_graph_create_adjacent(comm_old, indegree, sources, sourceweights, outdegree, destinations,
                                                 destweights, info, reorder, comm_dist_graph),
                 comm_old, comm_dist_graph);
}

int MPI_Intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm *newintracomm) {
  const call_scope scope(category::other, "MPI_Intercomm_merge");
  const int rc = PMPI_Intercomm_merge(intercomm, high, newintracomm);
  if (rc == MPI_SUCCESS && newintracomm != nullptr) merged_communicator_created(*newintracomm);
  return rc;
}

int MPI_Cancel(MPI_Request *request) {
  const call_scope scope(category::other, "MPI_Cancel");
  return PMPI_Cancel(request);
}

int MPI_Request_free(MPI_Request *request) {
  const call_scope scope(category::other, "MPI_Request_free");
  request_watch watch(1, request);
  watch.freed(0);  // a freed collective's completion is never seen: the instance is left out
  if (request != nullptr) sidecore::instrument::pmpi::persistent_freed(*request);
  return PMPI_Request_free(request);
}

int MPI_Send_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                  MPI_Request *request) {
  const call_scope scope(category::other, "MPI_Send_init");
  return PMPI_Send_init(buf, count, datatype, dest, tag, comm, request);
}

int MPI_Send_init_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                    MPI_Request *request) {
  const call_scope scope(category::other, "MPI_Send_init_c");
  return PMPI_Send_init_c(buf, count, datatype, dest, tag, comm, request);
}

int MPI_Ssend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                   MPI_Request *request) {
  const call_scope scope(category::other, "MPI_Ssend_init");
  return PMPI_Ssend_init(buf, count, datatype, dest, tag, comm, request);
}

int MPI_Ssend_init_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                     MPI_Request *request) {
  const call_scope scope(category::other, "MPI_Ssend_init_c");
  return PMPI_Ssend_init_c(buf, count, datatype, dest, tag, comm, request);
}

int MPI_Bsend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                   MPI_Request *request) {
  const call_scope scope(category::other, "MPI_Bsend_init");
  return PMPI_Bsend_init(buf, count, datatype, dest, tag, comm, request);
}

int MPI_Bsend_init_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                     MPI_Request *request) {
  const call_scope scope(category::other, "MPI_Bsend_init_c");
  return PMPI_Bsend_init_c(buf, count, datatype, dest, tag, comm, request);
}

int MPI_Rsend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                   MPI_Request *request) {
  const call_scope scope(category::other, "MPI_Rsend_init");
  return PMPI_Rsend_init(buf, count, datatype, dest, tag, comm, request);
}

int MPI_Rsend_init_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                     MPI_Request *request) {
  const call_scope scope(category::other, "MPI_Rsend_init_c");
  return PMPI_Rsend_init_c(buf, count, datatype, dest, tag, comm, request);
}

int MPI_Recv_init(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                  MPI_Request *request) {
  const call_scope scope(category::other, "MPI_Recv_init");
  return PMPI_Recv_init(buf, count, datatype, source, tag, comm, request);
}

int MPI_Recv_init_c(void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                    MPI_Request *request) {
  const call_scope scope(category::other, "MPI_Recv_init_c");
  return PMPI_Recv_init_c(buf, count, datatype, source, tag, comm, request);
}

// ---- MPI 4.0 persistent collectives. The initialization starts nothing: "other", as MPI_Send_init's. Each start
// (MPI_Start, MPI_Startall: "init") is a nonblocking collective's initiation and, for the monitored kinds, one
// instance on the request's communicator (collectives.hpp). Scan, exscan and the neighbourhood collectives are
// counted but not monitored, as their nonblocking forms are.
//
// Their parameter lists come in shapes, each written once for both twins: SIDECORE_<SHAPE>(C, D) gives the parameter
// list and the argument list, with C the count type and D the displacement type: int and int for MPI_<Name>_init,
// MPI_Count and MPI_Aint for the large-count MPI_<Name>_init_c.
#define SIDECORE_ROOTLESS_REDUCE(C, D)                                                                           \
  (const void *sendbuf, void *recvbuf, C count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,   \
   MPI_Request *request), (sendbuf, recvbuf, count, datatype, op, comm, info, request)
#define SIDECORE_REDUCE(C, D)                                                                                    \
  (const void *sendbuf, void *recvbuf, C count, MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm,        \
   MPI_Info info, MPI_Request *request), (sendbuf, recvbuf, count, datatype, op, root, comm, info, request)
#define SIDECORE_BCAST(C, D)                                                                                     \
  (void *buffer, C count, MPI_Datatype datatype, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request),   \
      (buffer, count, datatype, root, comm, info, request)
#define SIDECORE_ROOTED(C, D)                                                                                    \
  (const void *sendbuf, C sendcount, MPI_Datatype sendtype, void *recvbuf, C recvcount, MPI_Datatype recvtype,    \
   int root, MPI_Comm comm, MPI_Info info, MPI_Request *request),                                                 \
      (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, info, request)
#define SIDECORE_ROOTLESS(C, D)                                                                                  \
  (const void *sendbuf, C sendcount, MPI_Datatype sendtype, void *recvbuf, C recvcount, MPI_Datatype recvtype,    \
   MPI_Comm comm, MPI_Info info, MPI_Request *request),                                                           \
      (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, info, request)
#define SIDECORE_GATHERV(C, D)                                                                                   \
  (const void *sendbuf, C sendcount, MPI_Datatype sendtype, void *recvbuf, const C recvcounts[], const D displs[], \
   MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request),                          \
      (sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm, info, request)
#define SIDECORE_SCATTERV(C, D)                                                                                  \
  (const void *sendbuf, const C sendcounts[], const D displs[], MPI_Datatype sendtype, void *recvbuf, C recvcount, \
   MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request),                          \
      (sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm, info, request)
#define SIDECORE_ALLGATHERV(C, D)                                                                                \
  (const void *sendbuf, C sendcount, MPI_Datatype sendtype, void *recvbuf, const C recvcounts[], const D displs[], \
   MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request),                                    \
      (sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, info, request)
#define SIDECORE_ALLTOALLV(C, D)                                                                                 \
  (const void *sendbuf, const C sendcounts[], const D sdispls[], MPI_Datatype sendtype, void *recvbuf,            \
   const C recvcounts[], const D rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,                  \
   MPI_Request *request),                                                                                         \
      (sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm, info, request)
#define SIDECORE_ALLTOALLW(C, D)                                                                                 \
  (const void *sendbuf, const C sendcounts[], const D sdispls[], const MPI_Datatype sendtypes[], void *recvbuf,   \
   const C recvcounts[], const D rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info,         \
   MPI_Request *request),                                                                                         \
      (sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm, info, request)
// MPI_Neighbor_alltoallw's displacements are MPI_Aint in both twins.
#define SIDECORE_NEIGHBOR_ALLTOALLW(C, D) SIDECORE_ALLTOALLW(C, MPI_Aint)
#define SIDECORE_REDUCE_SCATTER(C, D)                                                                            \
  (const void *sendbuf, void *recvbuf, const C recvcounts[], MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,     \
   MPI_Info info, MPI_Request *request), (sendbuf, recvbuf, recvcounts, datatype, op, comm, info, request)
#define SIDECORE_REDUCE_SCATTER_BLOCK(C, D)                                                                      \
  (const void *sendbuf, void *recvbuf, C recvcount, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,              \
   MPI_Info info, MPI_Request *request), (sendbuf, recvbuf, recvcount, datatype, op, comm, info, request)

// MPI_<name> of a monitored kind (`kind`, an op_kind): counted in "other"; a successful initialization registers its
// request with `bytes`, an expression of the parameters.
#define SIDECORE_MONITORED_INIT(name, kind, bytes, params, args)        \
  int MPI_##name params {                                               \
    const call_scope scope(category::other, "MPI_" #name);              \
    persistent_coll coll(op_kind::kind, comm, [&] { return bytes; });   \
    return coll.registered(PMPI_##name args, request);                  \
  }
// MPI_<name> of a kind not monitored: counted in "other".
#define SIDECORE_COUNTED_INIT(name, params, args)                       \
  int MPI_##name params {                                               \
    const call_scope scope(category::other, "MPI_" #name);              \
    return PMPI_##name args;                                            \
  }
// Expands `shape` before `macro` splits it into its parameter and argument lists.
#define SIDECORE_APPLY(macro, ...) macro(__VA_ARGS__)
// MPI_<name>_init and its large-count twin MPI_<name>_init_c, by `init` (SIDECORE_MONITORED_INIT with the kind and
// the bytes, or SIDECORE_COUNTED_INIT).
#define SIDECORE_TWINS(init, name, shape, ...)                                                                 \
  SIDECORE_APPLY(init, name##_init, __VA_ARGS__ __VA_OPT__(, ) shape(int, int))                              \
  SIDECORE_APPLY(init, name##_init_c, __VA_ARGS__ __VA_OPT__(, ) shape(MPI_Count, MPI_Aint))
#define SIDECORE_PERSISTENT_TWINS(name, kind, bytes, shape) \
  SIDECORE_TWINS(SIDECORE_MONITORED_INIT, name, shape, kind, bytes)
#define SIDECORE_COUNTED_TWINS(name, shape) SIDECORE_TWINS(SIDECORE_COUNTED_INIT, name, shape)

// The bytes of the gathers (a rank's contribution; in place, the receive count's) and scatters (what a rank gets).
#define SIDECORE_SENT_BYTES \
  (sendbuf == MPI_IN_PLACE ? bytes_of(recvcount, recvtype) : bytes_of(sendcount, sendtype))
#define SIDECORE_SENT_BYTES_V (sendbuf == MPI_IN_PLACE ? 0 : bytes_of(sendcount, sendtype))
#define SIDECORE_RECEIVED_BYTES \
  (recvbuf == MPI_IN_PLACE ? bytes_of(sendcount, sendtype) : bytes_of(recvcount, recvtype))
#define SIDECORE_RECEIVED_BYTES_V (recvbuf == MPI_IN_PLACE ? 0 : bytes_of(recvcount, recvtype))

SIDECORE_MONITORED_INIT(Barrier_init, barrier, 0, (MPI_Comm comm, MPI_Info info, MPI_Request *request),
                        (comm, info, request))
SIDECORE_PERSISTENT_TWINS(Bcast, bcast, bytes_of(count, datatype), SIDECORE_BCAST)
SIDECORE_PERSISTENT_TWINS(Reduce, reduce, bytes_of(count, datatype), SIDECORE_REDUCE)
SIDECORE_PERSISTENT_TWINS(Allreduce, allreduce, bytes_of(count, datatype), SIDECORE_ROOTLESS_REDUCE)
SIDECORE_PERSISTENT_TWINS(Gather, gather, SIDECORE_SENT_BYTES, SIDECORE_ROOTED)
SIDECORE_PERSISTENT_TWINS(Gatherv, gather, SIDECORE_SENT_BYTES_V, SIDECORE_GATHERV)
SIDECORE_PERSISTENT_TWINS(Scatter, scatter, SIDECORE_RECEIVED_BYTES, SIDECORE_ROOTED)
SIDECORE_PERSISTENT_TWINS(Scatterv, scatter, SIDECORE_RECEIVED_BYTES_V, SIDECORE_SCATTERV)
SIDECORE_PERSISTENT_TWINS(Allgather, allgather, SIDECORE_SENT_BYTES, SIDECORE_ROOTLESS)
SIDECORE_PERSISTENT_TWINS(Allgatherv, allgatherv, SIDECORE_SENT_BYTES_V, SIDECORE_ALLGATHERV)
SIDECORE_PERSISTENT_TWINS(Alltoall, alltoall, times_size(comm, SIDECORE_SENT_BYTES), SIDECORE_ROOTLESS)
SIDECORE_PERSISTENT_TWINS(Alltoallv, alltoallv,
                          sendbuf == MPI_IN_PLACE ? sum_bytes(recvcounts, recvtype, comm)
                                                  : sum_bytes(sendcounts, sendtype, comm),
                          SIDECORE_ALLTOALLV)
SIDECORE_PERSISTENT_TWINS(Alltoallw, alltoallv,
                          sendbuf == MPI_IN_PLACE ? sum_bytes(recvcounts, recvtypes, comm)
                                                  : sum_bytes(sendcounts, sendtypes, comm),
                          SIDECORE_ALLTOALLW)
SIDECORE_PERSISTENT_TWINS(Reduce_scatter, reduce_scatter_block, sum_bytes(recvcounts, datatype, comm),
                          SIDECORE_REDUCE_SCATTER)
SIDECORE_PERSISTENT_TWINS(Reduce_scatter_block, reduce_scatter_block,
                          times_size(comm, bytes_of(recvcount, datatype)), SIDECORE_REDUCE_SCATTER_BLOCK)
SIDECORE_COUNTED_TWINS(Scan, SIDECORE_ROOTLESS_REDUCE)
SIDECORE_COUNTED_TWINS(Exscan, SIDECORE_ROOTLESS_REDUCE)
SIDECORE_COUNTED_TWINS(Neighbor_allgather, SIDECORE_ROOTLESS)
SIDECORE_COUNTED_TWINS(Neighbor_allgatherv, SIDECORE_ALLGATHERV)
SIDECORE_COUNTED_TWINS(Neighbor_alltoall, SIDECORE_ROOTLESS)
SIDECORE_COUNTED_TWINS(Neighbor_alltoallv, SIDECORE_ALLTOALLV)
SIDECORE_COUNTED_TWINS(Neighbor_alltoallw, SIDECORE_NEIGHBOR_ALLTOALLW)

// ---- MPI 4.0 partitioned communication. MPI_Psend_init and MPI_Precv_init make a persistent request ("other", as
// MPI_Send_init and MPI_Recv_init); MPI_Start(all) starts it. MPI_Pready, MPI_Pready_range and MPI_Pready_list hand
// partitions to MPI for sending: initiations ("init"; the progress core's engine then moves them in the background).
// MPI_Parrived polls for a partition without completing anything: a test ("test"). The wait or test that completes
// the request counts as for any other.
int MPI_Psend_init(const void *buf, int partitions, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                   MPI_Comm comm, MPI_Info info, MPI_Request *request) {
  const call_scope scope(category::other, "MPI_Psend_init");
  return PMPI_Psend_init(buf, partitions, count, datatype, dest, tag, comm, info, request);
}

int MPI_Precv_init(void *buf, int partitions, MPI_Count count, MPI_Datatype datatype, int source, int tag,
                   MPI_Comm comm, MPI_Info info, MPI_Request *request) {
  const call_scope scope(category::other, "MPI_Precv_init");
  return PMPI_Precv_init(buf, partitions, count, datatype, source, tag, comm, info, request);
}

int MPI_Pready(int partition, MPI_Request request) {
  const call_scope scope(category::init, "MPI_Pready");
  return PMPI_Pready(partition, request);
}

int MPI_Pready_range(int partition_low, int partition_high, MPI_Request request) {
  const call_scope scope(category::init, "MPI_Pready_range");
  return PMPI_Pready_range(partition_low, partition_high, request);
}

int MPI_Pready_list(int length, int array_of_partitions[], MPI_Request request) {
  const call_scope scope(category::init, "MPI_Pready_list");
  return PMPI_Pready_list(length, array_of_partitions, request);
}

int MPI_Parrived(MPI_Request request, int partition, int *flag) {
  const call_scope scope(category::test, "MPI_Parrived");
  return PMPI_Parrived(request, partition, flag);
}

}  // extern "C"
#pragma GCC visibility pop
