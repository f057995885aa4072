// The system MPI as a transport: what users get today, measured with the same loops as sidecore.
#pragma once

#include <mpi.h>

#include <span>
#include <string>

#include "bench_common.hpp"

namespace scb {

class mpi_transport {
 public:
  using request = MPI_Request;

  [[nodiscard]] std::string name() const { return "mpi"; }
  [[nodiscard]] std::string label() const { return "mpi"; }
  [[nodiscard]] std::string mode() const { return "mpi (progress inside MPI calls only)"; }
  [[nodiscard]] std::string provider() const {
    char version[MPI_MAX_LIBRARY_VERSION_STRING] = {};
    int len = 0;
    MPI_Get_library_version(version, &len);
    // Keep the "Version" and "Device" lines (MPICH) or the first line (others); drop the configure line.
    std::string v(version, static_cast<std::size_t>(len)), out;
    std::size_t start = 0;
    for (int line = 0; start < v.size(); ++line) {
      std::size_t nl = v.find('\n', start);
      std::string l = v.substr(start, nl == std::string::npos ? std::string::npos : nl - start);
      start = nl == std::string::npos ? v.size() : nl + 1;
      if (line == 0 || l.find("Device:") != std::string::npos) {
        for (char& ch : l) ch = ch == '\t' ? ' ' : ch;
        out += (out.empty() ? "" : ", ") + l;
      }
    }
    return "system MPI: " + out;
  }

  request isend(const void* buf, std::size_t bytes, int peer, int tag) {
    request r;
    MPI_Isend(buf, static_cast<int>(bytes), MPI_BYTE, peer, tag, MPI_COMM_WORLD, &r);
    return r;
  }
  request irecv(void* buf, std::size_t bytes, int peer, int tag) {
    request r;
    MPI_Irecv(buf, static_cast<int>(bytes), MPI_BYTE, peer, tag, MPI_COMM_WORLD, &r);
    return r;
  }
  void wait(request& r) { MPI_Wait(&r, MPI_STATUS_IGNORE); }
  void waitall(std::span<request> rs) { MPI_Waitall(static_cast<int>(rs.size()), rs.data(), MPI_STATUSES_IGNORE); }
  void send(const void* buf, std::size_t bytes, int peer, int tag) {
    MPI_Send(buf, static_cast<int>(bytes), MPI_BYTE, peer, tag, MPI_COMM_WORLD);
  }
  void recv(void* buf, std::size_t bytes, int peer, int tag) {
    MPI_Recv(buf, static_cast<int>(bytes), MPI_BYTE, peer, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
};

}  // namespace scb
