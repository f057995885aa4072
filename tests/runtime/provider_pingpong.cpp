// Init and a ping-pong on the provider SIDECORE_PROVIDER names, at 2 ranks (every_provider.sh runs it on each
// provider fi_getinfo offers). argv[1] "accepted": init succeeds, messages of 0 B to 4 MiB (eager, injected,
// rendezvous) go both ways with their bytes intact, finalize returns. "refused": init fails on every rank with
// errc::transport and a message naming the provider and saying why. "unreachable": init fails on every rank with
// errc::transport naming the peer it could not reach (two_hosts.sh: the link down). Exit status 0 when every check
// held.
#include <mpi.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <sidecore/sidecore.hpp>

namespace {

int g_rank = 0;
int g_failures = 0;

void check(bool ok, const std::string& what) {
  if (ok) return;
  ++g_failures;
  std::fprintf(stderr, "[rank %d] FAILED: %s\n", g_rank, what.c_str());
}

std::uint8_t pattern(int from, std::size_t len, std::size_t i) {
  return static_cast<std::uint8_t>(static_cast<std::size_t>(from) * 131 + len * 7 + i * 13);
}

void pingpong() {
  const int peer = 1 - sidecore::rank();
  for (const std::size_t len : {std::size_t{0}, std::size_t{8}, std::size_t{100}, std::size_t{4000},
                                std::size_t{9000}, std::size_t{65536}, std::size_t{4} << 20}) {
    std::vector<std::uint8_t> out(len), in(len + 1, 0xee);
    for (std::size_t i = 0; i < len; ++i) out[i] = pattern(sidecore::rank(), len, i);
    const auto n = static_cast<std::int64_t>(len);
    for (int round = 0; round < 3; ++round) {
      sidecore::status st;
      if (sidecore::rank() == 0) {
        sidecore::send(out.data(), n, peer, 5);
        st = sidecore::recv(in.data(), n + 1, peer, 5);
      } else {
        st = sidecore::recv(in.data(), n + 1, peer, 5);
        sidecore::send(out.data(), n, peer, 5);
      }
      check(st.ok(), std::to_string(len) + " B: " + sidecore::errc_name(st.error));
      check(st.bytes == len, std::to_string(len) + " B: received " + std::to_string(st.bytes) + " bytes");
      std::size_t bad = 0;
      for (std::size_t i = 0; i < len; ++i) bad += in[i] != pattern(peer, len, i);
      check(bad == 0, std::to_string(len) + " B: " + std::to_string(bad) + " bytes differ");
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  const std::string expect = argc > 1 ? argv[1] : "";
  const char* env = std::getenv("SIDECORE_PROVIDER");
  const std::string provider = env ? env : "";
  if ((expect != "accepted" && expect != "refused" && expect != "unreachable") || provider.empty()) {
    std::fprintf(stderr,
                 "usage: SIDECORE_PROVIDER=<name> mpiexec -n 2 provider_pingpong accepted|refused|unreachable\n");
    MPI_Finalize();
    return 2;
  }
  try {
    sidecore::init();
    check(expect == "accepted", "init succeeded on provider '" + provider + "', where it should fail (" + expect + ")");
    check(sidecore::info().provider == provider, "runs provider '" + sidecore::info().provider + "'");
    if (sidecore::size() == 2) pingpong();
    sidecore::finalize();
  } catch (const sidecore::error& e) {
    const std::string msg = e.what();
    if (expect == "accepted") {
      check(false, "provider '" + provider + "': " + sidecore::errc_name(e.code()) + ": " + msg);
    } else if (expect == "unreachable") {
      check(e.code() == sidecore::errc::transport, std::string("code ") + sidecore::errc_name(e.code()));
      check(msg.find("no exchange with peer rank") != std::string::npos, "init names the peer it cannot reach: " + msg);
    } else {
      check(e.code() == sidecore::errc::transport, std::string("refusal code ") + sidecore::errc_name(e.code()));
      check(msg.find(provider) != std::string::npos && msg.find("not supported by sidecore") != std::string::npos,
            "the refusal names the provider and says why: " + msg);
    }
  }
  int any = 0;
  MPI_Allreduce(&g_failures, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (g_rank == 0) std::printf("provider '%s' (%s): %s\n", provider.c_str(), expect.c_str(), any ? "FAILED" : "ok");
  MPI_Finalize();
  return any ? 1 : 0;
}
