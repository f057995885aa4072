// File descriptors used up after init (progress/src/fd_room.hpp): two tcp;ofi_rxm engines in this process, each
// the other's peer, with no message exchanged yet, so the first message makes the connection. tcp;ofi_rxm takes a
// descriptor for the connecting socket and one for the accepted one; with none left it fails its accept() without
// a word, and the sender's first message is refused (EAGAIN) for ever. SIDECORE_PEER_TIMEOUT is 0 (no deadline).
//  * The sender: its send must complete within 10 s, either delivered or failed with req_result::transport, naming
//    the peer, the provider and the descriptors (and the remedy), for each size class (inject, eager, rendezvous)
//    and for 0, 1 and 2 descriptors left. Once the descriptors are given back, a send to that peer arrives.
//  * The receiver: a receive that waits is never failed for it (its peer may just not have sent yet), but with the
//    descriptors used up it says once on stderr that a connection to it may not be accepted.
// The limit is lowered to 64 above what is open (filling a limit of a million would take long) and restored after.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

#include <sidecore/progress/tag.hpp>

#include "fd_room.hpp"
#include "local_engine.hpp"

namespace {

using namespace sidecore::progress;
using fd_clk = std::chrono::steady_clock;

const std::uint64_t kFdTag = sidecore::progress::tag::make(tag::kind::p2p, 0, 21);

// Lowers the soft RLIMIT_NOFILE to 64 above what is open; fill() then opens /dev/null up to it but for `keep`. The
// destructor closes them and restores the limit.
class fd_squeeze {
 public:
  fd_squeeze() {
    ok_ = ::getrlimit(RLIMIT_NOFILE, &saved_) == 0;
    const fd_room r = fd_room_now();
    if (!ok_ || !r.known()) return;
    struct rlimit lower = saved_;
    lower.rlim_cur = std::min<rlim_t>(saved_.rlim_cur, static_cast<rlim_t>(r.used) + 64);
    ok_ = ::setrlimit(RLIMIT_NOFILE, &lower) == 0;
  }
  fd_squeeze(const fd_squeeze&) = delete;
  fd_squeeze& operator=(const fd_squeeze&) = delete;
  ~fd_squeeze() {
    release();
    if (ok_) (void)::setrlimit(RLIMIT_NOFILE, &saved_);
  }
  [[nodiscard]] bool ok() const noexcept { return ok_; }
  // Opens /dev/null until none is left, then closes `keep` of them: `keep` descriptors are free.
  void fill(int keep) {
    for (;;) {
      const int fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
      if (fd < 0) break;
      held_.push_back(fd);
    }
    for (int k = 0; k < keep && !held_.empty(); ++k) {
      ::close(held_.back());
      held_.pop_back();
    }
  }
  void release() noexcept {
    for (const int fd : held_) ::close(fd);
    held_.clear();
  }

 private:
  struct rlimit saved_ {};
  bool ok_ = false;
  std::vector<int> held_;
};

// Eager up to 64 KiB: above the inject size, an eager message goes to the provider as a send (fi_tsendv).
std::vector<std::unique_ptr<engine>> tcp_pair() {
  ::setenv("FI_TCP_IFACE", "lo", 0);  // also set by ctest; here for a run of the binary by hand
  return sctest::engine_pair_with(sctest::local_config("tcp;ofi_rxm", std::size_t{64} << 10));
}

enum class size_class { inject, eager, rendezvous };

// Progresses both engines until done() or `seconds`; false on the deadline.
template <typename P>
bool progress_both(std::vector<std::unique_ptr<engine>>& e, double seconds, P done) {
  const auto deadline =
      fd_clk::now() + std::chrono::duration_cast<fd_clk::duration>(std::chrono::duration<double>(seconds));
  while (!done()) {
    e[0]->progress();
    e[1]->progress();
    if (fd_clk::now() > deadline) return false;
  }
  return true;
}

// What became of a first send with the descriptors used up.
enum class outcome { delivered, failed_at_once, stalled, hung };

// The sentence of a failed send names the peer, the provider, the descriptors and the remedy.
void expect_sentence(const std::string& why, std::initializer_list<const char*> parts) {
  for (const char* part : parts)
    EXPECT_NE(why.find(part), std::string::npos) << "missing \"" << part << "\" in: " << why;
}

// Engine 0 sends a message of class `sc` to engine 1, its first message, with `keep` descriptors free.
outcome first_send_with_fds_used_up(size_class sc, int keep) {
  auto e = tcp_pair();
  EXPECT_EQ(e.size(), 2u);
  if (e.size() != 2) return outcome::hung;
  const std::size_t len = sc == size_class::inject ? 8
                          : sc == size_class::eager ? e[0]->inject_size() + 100
                                                    : e[0]->eager_max() + 1;
  EXPECT_LE(len, e[0]->max_msg_size());
  if (sc == size_class::eager) {
    EXPECT_LE(len, e[0]->eager_max()) << "not an eager message";
  }
  SCOPED_TRACE("message of " + std::to_string(len) + " bytes, " + std::to_string(keep) + " descriptors free");
  std::vector<char> out(len, 'f'), in(len + 1, 0);
  fd_squeeze fds;
  EXPECT_TRUE(fds.ok());
  testing::internal::CaptureStderr();  // before the descriptors are used up: it takes one
  fds.fill(keep);
  const std::uint64_t r = e[1]->start_recv(in.data(), in.size(), kFdTag, 0, 0, 0, 0);
  const std::uint64_t s = e[0]->start_send(out.data(), out.size(), 1, kFdTag, 1, 0, 0, false);
  const bool ended = progress_both(e, 10.0, [&] { return !e[0]->pending(s); });
  // The send, whatever became of it, must not wait for ever.
  completion cs{};
  const bool send_done = ended && e[0]->wait(s, cs);
  bool recv_done = false;
  if (send_done && cs.result == req_result::ok)  // delivered: it must arrive
    recv_done = progress_both(e, 10.0, [&] { return !e[1]->pending(r); });
  const bool stalled = send_done && cs.result == req_result::transport &&
                       e[0]->describe(cs).find("no exchange with peer rank") != std::string::npos;
  // The receive that waits meanwhile stays posted, and (once it has waited 2 s with nothing completing) is
  // warned about on stderr.
  if (stalled) (void)progress_both(e, 1.0, [] { return false; });
  const bool recv_pending = e[1]->pending(r);
  fds.release();
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_TRUE(ended) << "the first send waited 10 s and never completed (no error either)";
  if (!ended) return outcome::hung;  // the engines would wait for their connection again
  if (send_done && cs.result == req_result::ok) {
    EXPECT_TRUE(recv_done) << "the send completed but its message never arrived";
  } else if (send_done) {
    EXPECT_EQ(cs.result, req_result::transport);
    EXPECT_EQ(cs.peer_index, 1);
    const std::string why = e[0]->describe(cs);
    std::printf("%d free: %s\n", keep, why.c_str());
    if (stalled) {
      EXPECT_EQ(cs.what, failure::fds_used_up);
      EXPECT_EQ(cs.fi_err, FI_EAGAIN);
      expect_sentence(why, {"no exchange with peer rank 1 completed within 2 s on provider 'tcp;ofi_rxm', and this "
                            "process has ", "file descriptors (RLIMIT_NOFILE) open", "ulimit -n"});
      EXPECT_TRUE(recv_pending) << "a receive was failed for the descriptors: its peer may just not have sent yet";
      expect_sentence(err, {"sidecore: warning: address 1: receives have waited 2 s while nothing completed",
                            "file descriptors (RLIMIT_NOFILE)", "provider 'tcp;ofi_rxm'"});
    } else {  // the provider found no descriptor for the connection, and said so
      EXPECT_EQ(cs.fi_err, FI_EMFILE) << why;
      expect_sentence(why, {"to address 1 failed on provider 'tcp;ofi_rxm': Too many open files",
                            "file descriptors (RLIMIT_NOFILE)", "ulimit -n"});
    }
  }
  // The descriptors given back: a send to the same peer arrives (into the receive still posted, or a new one).
  const std::uint64_t r2 = recv_done ? e[1]->start_recv(in.data(), in.size(), kFdTag, 0, 0, 0, 0) : r;
  const std::uint64_t s2 = e[0]->start_send(out.data(), out.size(), 1, kFdTag, 1, 0, 0, false);
  EXPECT_TRUE(progress_both(e, 10.0, [&] { return !e[0]->pending(s2) && !e[1]->pending(r2); }))
      << "no send arrives once the descriptors are back";
  completion c{};
  if (e[0]->wait(s2, c)) {
    EXPECT_EQ(c.result, req_result::ok) << e[0]->describe(c);
  }
  if (e[1]->wait(r2, c)) {
    EXPECT_EQ(c.result, req_result::ok) << e[1]->describe(c);
    EXPECT_EQ(c.bytes, len);
  }
  return !send_done || cs.result == req_result::ok ? outcome::delivered
         : stalled                                ? outcome::stalled
                                                  : outcome::failed_at_once;
}

// 0, 1 and 2 descriptors free: none waits for ever, and one of them is the stall (measured: with 1 free, the
// connecting socket takes it and the accept() finds none).
void first_sends(size_class sc) {
  bool any_stalled = false;
  for (int keep = 0; keep <= 2; ++keep) {
    const outcome o = first_send_with_fds_used_up(sc, keep);
    if (o == outcome::hung) return;
    any_stalled |= o == outcome::stalled;
  }
  EXPECT_TRUE(any_stalled) << "no first send stalled for want of a descriptor: the test no longer tests the stall";
}

TEST(FdsUsedUp, AFirstInjectSendCompletesOrFailsNamingTheDescriptors) { first_sends(size_class::inject); }

TEST(FdsUsedUp, AFirstEagerSendCompletesOrFailsNamingTheDescriptors) { first_sends(size_class::eager); }

TEST(FdsUsedUp, AFirstRendezvousSendCompletesOrFailsNamingTheDescriptors) { first_sends(size_class::rendezvous); }

// A receive that waits with the descriptors used up, for a peer that has not sent: never failed for it (only a
// refusal of the provider is taken for the stall), warned about once; it completes once the peer sends.
TEST(FdsUsedUp, AReceiveThatWaitsIsNeverFailedAndWarnedAboutOnce) {
  auto e = tcp_pair();
  ASSERT_EQ(e.size(), 2u);
  char in[8] = {};
  const char out[8] = {'l', 'a', 't', 'e', 0, 0, 0, 0};
  std::string err;
  bool pending = false;
  {
    fd_squeeze fds;
    ASSERT_TRUE(fds.ok());
    testing::internal::CaptureStderr();
    fds.fill(0);
    const std::uint64_t r = e[1]->start_recv(in, sizeof in, kFdTag, 0, 0, 0, 0);
    (void)progress_both(e, 4.5, [] { return false; });  // two looks at the descriptors, 2 s apart
    pending = e[1]->pending(r);
    fds.release();
    err = testing::internal::GetCapturedStderr();
    EXPECT_TRUE(pending) << "a receive whose peer had not sent was failed";
    const std::uint64_t s = e[0]->start_send(out, sizeof out, 1, kFdTag, 1, 0, 0, false);
    ASSERT_TRUE(progress_both(e, 10.0, [&] { return !e[1]->pending(r) && !e[0]->pending(s); }));
    completion c{};
    ASSERT_TRUE(e[1]->wait(r, c));
    EXPECT_EQ(c.result, req_result::ok) << e[1]->describe(c);
    EXPECT_STREQ(in, "late");
  }
  std::printf("%s", err.c_str());
  const std::string warning = "sidecore: warning: address 1: receives have waited";
  const std::size_t at = err.find(warning);
  ASSERT_NE(at, std::string::npos) << err;
  EXPECT_EQ(err.find(warning, at + 1), std::string::npos) << "warned more than once: " << err;
  expect_sentence(err, {"file descriptors (RLIMIT_NOFILE) open", "ulimit -n", "provider 'tcp;ofi_rxm'"});
}

}  // namespace
