// Bad input gets a clear error, no crash and no hang (issue 2, "Runtime": invalid rank, negative size, null
// buffer with a non-zero size, waiting twice on a request; plus the other documented errors of sidecore.hpp).
// Every message must name the input and the bad value; where the API lists what is accepted, that too.
#include <chrono>
#include <string>
#include <vector>

#include "test_util.hpp"

namespace {

using sctest::Collective;
using sctest::left;
using sctest::right;
using sidecore::errc;
using sidecore::request;
using sidecore::status;
using ::testing::HasSubstr;

using BadInput = Collective;

TEST_F(BadInput, SendToInvalidRank) {
  char buf[8] = {};
  std::string m = SCTEST_EXPECT_ERROR(errc::invalid_argument, (void)sidecore::isend(buf, 8, -2, 1));
  EXPECT_THAT(m, HasSubstr("isend"));
  EXPECT_THAT(m, HasSubstr("-2"));
  EXPECT_THAT(m, HasSubstr("0.." + std::to_string(size - 1)));
  m = SCTEST_EXPECT_ERROR(errc::invalid_argument, (void)sidecore::isend(buf, 8, size, 1));
  EXPECT_THAT(m, HasSubstr(std::to_string(size)));
  // any_source is for receives only.
  m = SCTEST_EXPECT_ERROR(errc::invalid_argument, (void)sidecore::isend(buf, 8, sidecore::any_source, 1));
  EXPECT_THAT(m, HasSubstr("-1"));
  SCTEST_EXPECT_ERROR(errc::invalid_argument, sidecore::send(buf, 8, size + 5, 1));
}

TEST_F(BadInput, ReceiveFromInvalidRank) {
  char buf[8] = {};
  std::string m = SCTEST_EXPECT_ERROR(errc::invalid_argument, (void)sidecore::irecv(buf, 8, -2, 1));
  EXPECT_THAT(m, HasSubstr("irecv"));
  EXPECT_THAT(m, HasSubstr("-2"));
  EXPECT_THAT(m, HasSubstr("any_source"));
  m = SCTEST_EXPECT_ERROR(errc::invalid_argument, (void)sidecore::irecv(buf, 8, size, 1));
  EXPECT_THAT(m, HasSubstr(std::to_string(size)));
  SCTEST_EXPECT_ERROR(errc::invalid_argument, (void)sidecore::recv(buf, 8, 1 << 30, 1));
}

TEST_F(BadInput, NegativeSize) {
  char buf[8] = {};
  std::string m = SCTEST_EXPECT_ERROR(errc::invalid_argument, (void)sidecore::isend(buf, -1, right(rank, size), 1));
  EXPECT_THAT(m, HasSubstr("-1"));
  EXPECT_THAT(m, HasSubstr("negative"));
  m = SCTEST_EXPECT_ERROR(errc::invalid_argument, (void)sidecore::irecv(buf, INT64_MIN, left(rank, size), 1));
  EXPECT_THAT(m, HasSubstr(std::to_string(INT64_MIN)));
}

TEST_F(BadInput, NullBufferWithNonZeroSize) {
  std::string m = SCTEST_EXPECT_ERROR(errc::invalid_argument, (void)sidecore::isend(nullptr, 8, right(rank, size), 1));
  EXPECT_THAT(m, HasSubstr("null"));
  EXPECT_THAT(m, HasSubstr("8"));
  m = SCTEST_EXPECT_ERROR(errc::invalid_argument, (void)sidecore::irecv(nullptr, 1, left(rank, size), 1));
  EXPECT_THAT(m, HasSubstr("null"));
}

TEST_F(BadInput, TagOutOfRange) {
  char buf[8] = {};
  const std::string max = std::to_string(sidecore::tag_max);
  std::string m = SCTEST_EXPECT_ERROR(errc::invalid_argument, (void)sidecore::isend(buf, 8, right(rank, size), -1));
  EXPECT_THAT(m, HasSubstr("tag=-1"));
  EXPECT_THAT(m, HasSubstr(max));
  m = SCTEST_EXPECT_ERROR(errc::invalid_argument,
                          (void)sidecore::isend(buf, 8, right(rank, size), sidecore::tag_max + 1));
  EXPECT_THAT(m, HasSubstr(std::to_string(sidecore::tag_max + 1)));
  m = SCTEST_EXPECT_ERROR(errc::invalid_argument, (void)sidecore::irecv(buf, 8, left(rank, size), -2));
  EXPECT_THAT(m, HasSubstr("any_tag"));
  SCTEST_EXPECT_ERROR(errc::invalid_argument, (void)sidecore::irecv(buf, 8, left(rank, size), INT32_MIN));
}

// (bytes above the provider's largest message: not tested, shm and tcp;ofi_rxm report SIZE_MAX, so any size
// passes the check and only a buffer of that size would make a valid call.)

TEST_F(BadInput, WaitingTwiceOnARequest) {
  std::uint64_t v = 1, w = 0;
  request s = sidecore::isend(&v, 8, right(rank, size), 2);
  request r = sidecore::irecv(&w, 8, left(rank, size), 2);
  (void)sidecore::wait(r);
  (void)sidecore::wait(s);
  EXPECT_FALSE(r.active());
  std::string m = SCTEST_EXPECT_ERROR(errc::invalid_request, (void)sidecore::wait(r));
  EXPECT_THAT(m, HasSubstr("wait"));
  EXPECT_THAT(m, HasSubstr("already"));
  m = SCTEST_EXPECT_ERROR(errc::invalid_request, (void)sidecore::wait(s));
  SCTEST_EXPECT_ERROR(errc::invalid_request, (void)sidecore::test(r));
  SCTEST_EXPECT_ERROR(errc::invalid_request, sidecore::cancel(r));
}

// A handle consumed by wait must stay stale even after its slot is reused by new requests.
TEST_F(BadInput, StaleHandleAfterSlotReuse) {
  std::uint64_t v = 1, w = 0;
  request r = sidecore::irecv(&w, 8, left(rank, size), 3);
  request s = sidecore::isend(&v, 8, right(rank, size), 3);
  (void)sidecore::wait(r);
  (void)sidecore::wait(s);
  // Reuse slots: the newest free slots are taken first.
  std::vector<request> more;
  std::vector<std::uint64_t> out(8, 5), in(8, 0);
  for (int i = 0; i < 8; ++i) {
    more.push_back(sidecore::irecv(&in[static_cast<std::size_t>(i)], 8, left(rank, size), 4));
    more.push_back(sidecore::isend(&out[static_cast<std::size_t>(i)], 8, right(rank, size), 4));
  }
  EXPECT_FALSE(r.active());
  EXPECT_FALSE(s.active());
  SCTEST_EXPECT_ERROR(errc::invalid_request, (void)sidecore::wait(r));
  SCTEST_EXPECT_ERROR(errc::invalid_request, (void)sidecore::test(s));
  sidecore::waitall(more);
  for (auto x : in) EXPECT_EQ(x, 5u);
}

TEST_F(BadInput, DefaultConstructedAndMovedFromRequests) {
  request none;
  EXPECT_FALSE(none.active());
  EXPECT_EQ(none.handle(), 0u);
  std::string m = SCTEST_EXPECT_ERROR(errc::invalid_request, (void)sidecore::wait(none));
  EXPECT_THAT(m, HasSubstr("never started"));
  SCTEST_EXPECT_ERROR(errc::invalid_request, (void)sidecore::test(none));
  SCTEST_EXPECT_ERROR(errc::invalid_request, sidecore::cancel(none));
  // Moved-from.
  std::uint64_t v = 1, w = 0;
  request s = sidecore::isend(&v, 8, right(rank, size), 5);
  request moved = std::move(s);
  EXPECT_FALSE(s.active());  // NOLINT(bugprone-use-after-move): what a moved-from handle does is the point
  SCTEST_EXPECT_ERROR(errc::invalid_request, (void)sidecore::wait(s));
  (void)sidecore::recv(&w, 8, left(rank, size), 5);
  EXPECT_TRUE(sidecore::wait(moved).ok());
  // waitall/waitany/testall/testany skip inactive handles.
  request several[3];
  sidecore::waitall(several);
  EXPECT_EQ(sidecore::waitany(several), -1);
  EXPECT_TRUE(sidecore::testall(several));
  EXPECT_EQ(sidecore::testany(several), -1);
  sidecore::waitall({});
}

TEST_F(BadInput, StatusesSpanOfWrongLength) {
  std::uint64_t v = 1, w = 0;
  request reqs[2];
  reqs[0] = sidecore::irecv(&w, 8, left(rank, size), 6);
  reqs[1] = sidecore::isend(&v, 8, right(rank, size), 6);
  status one[1];
  std::string m = SCTEST_EXPECT_ERROR(errc::invalid_argument, sidecore::waitall(reqs, one));
  EXPECT_THAT(m, HasSubstr("1 statuses for 2 requests"));
  status three[3];
  SCTEST_EXPECT_ERROR(errc::invalid_argument, (void)sidecore::testall(reqs, three));
  // The requests were left alone and still complete.
  EXPECT_TRUE(reqs[0].active());
  status two[2];
  sidecore::waitall(reqs, two);
  EXPECT_TRUE(two[0].ok());
  EXPECT_EQ(w, 1u);
}

TEST_F(BadInput, CancelOfASendIsRefusedAndTheSendStillCompletes) {
  std::vector<std::uint8_t> big(256 * 1024, 1), in(256 * 1024);
  request s = sidecore::isend(big.data(), static_cast<std::int64_t>(big.size()), right(rank, size), 7);
  const std::string m = SCTEST_EXPECT_ERROR(errc::invalid_argument, sidecore::cancel(s));
  EXPECT_THAT(m, HasSubstr("send"));
  const status rs = sidecore::recv(in.data(), static_cast<std::int64_t>(in.size()), left(rank, size), 7);
  EXPECT_TRUE(rs.ok());
  EXPECT_TRUE(sidecore::wait(s).ok());
  EXPECT_EQ(in, big);
}

TEST_F(BadInput, NullCommunicator) {
  char buf[8] = {};
  const sidecore::comm null_comm;
  EXPECT_TRUE(null_comm.null());
  std::string m = SCTEST_EXPECT_ERROR(errc::invalid_argument, (void)sidecore::isend(buf, 8, 0, 1, null_comm));
  EXPECT_THAT(m, HasSubstr("null"));
  SCTEST_EXPECT_ERROR(errc::invalid_argument, (void)sidecore::irecv(buf, 8, 0, 1, null_comm));
  SCTEST_EXPECT_ERROR(errc::invalid_argument, (void)null_comm.rank());
  SCTEST_EXPECT_ERROR(errc::invalid_argument, (void)null_comm.size());
  SCTEST_EXPECT_ERROR(errc::invalid_argument, (void)null_comm.dup());
}

TEST_F(BadInput, ErrorNamesAreStable) {
  EXPECT_STREQ(sidecore::errc_name(errc::success), "success");
  EXPECT_STREQ(sidecore::errc_name(errc::invalid_argument), "invalid_argument");
  EXPECT_STREQ(sidecore::errc_name(errc::not_initialized), "not_initialized");
  EXPECT_STREQ(sidecore::errc_name(errc::already_initialized), "already_initialized");
  EXPECT_STREQ(sidecore::errc_name(errc::invalid_request), "invalid_request");
  EXPECT_STREQ(sidecore::errc_name(errc::truncated), "truncated");
  EXPECT_STREQ(sidecore::errc_name(errc::canceled), "canceled");
  EXPECT_STREQ(sidecore::errc_name(errc::bad_setting), "bad_setting");
  EXPECT_STREQ(sidecore::errc_name(errc::topology), "topology");
  EXPECT_STREQ(sidecore::errc_name(errc::transport), "transport");
  EXPECT_STREQ(sidecore::errc_name(errc::mpi), "mpi");
  EXPECT_STREQ(sidecore::errc_name(errc::peer_failed), "peer_failed");
}

TEST_F(BadInput, InitTwiceWhileRunning) {
  const std::string m = SCTEST_EXPECT_ERROR(errc::already_initialized, sidecore::init());
  EXPECT_THAT(m, HasSubstr("twice"));
  EXPECT_TRUE(sidecore::initialized());
  // Still works afterwards.
  std::uint64_t v = 3, w = 0;
  request s = sidecore::isend(&v, 8, right(rank, size), 8);
  EXPECT_TRUE(sidecore::recv(&w, 8, left(rank, size), 8).ok());
  (void)sidecore::wait(s);
  EXPECT_EQ(w, 3u);
}

// An 8-byte send fits one inject: without instrumentation it completes inside isend and its handle has no slot
// (progress::is_inline). Every request function must treat that handle as a completed send: active until
// consumed, status with the byte count, consumed once, not cancellable, skipped by nobody.
TEST_F(BadInput, SendsCompletedInsideIsend) {
  std::uint64_t v[6] = {1, 2, 3, 4, 5, 6}, w[6] = {};
  std::vector<request> recvs;
  for (int i = 0; i < 6; ++i) recvs.push_back(sidecore::irecv(&w[i], 8, left(rank, size), 40 + i));
  request s0 = sidecore::isend(&v[0], 8, right(rank, size), 40);
  EXPECT_TRUE(s0.active());
  status st;
  // Inline only when the call could post at once (core mode: the progress thread may hold the lock; tcp: the
  // provider may answer EAGAIN): else it has a slot and completes later, as any send.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (!sidecore::test(s0, &st)) ASSERT_LT(std::chrono::steady_clock::now(), deadline) << "the send never completed";
  EXPECT_TRUE(st.ok());
  EXPECT_EQ(st.bytes, 8u);
  EXPECT_EQ(st.source, -1);
  EXPECT_EQ(st.tag, -1);
  EXPECT_FALSE(s0.active());
  std::string m = SCTEST_EXPECT_ERROR(errc::invalid_request, (void)sidecore::wait(s0));
  EXPECT_THAT(m, HasSubstr("already"));
  SCTEST_EXPECT_ERROR(errc::invalid_request, (void)sidecore::test(s0));

  request s1 = sidecore::isend(&v[1], 8, right(rank, size), 41);
  m = SCTEST_EXPECT_ERROR(errc::invalid_argument, sidecore::cancel(s1));
  EXPECT_THAT(m, HasSubstr("send"));
  EXPECT_TRUE(s1.active());
  EXPECT_EQ(sidecore::wait(s1).bytes, 8u);

  // waitall, waitany, testall, testany over a mix of such sends and receives.
  request mix[2] = {sidecore::isend(&v[2], 0, right(rank, size), 42), sidecore::isend(&v[3], 8, right(rank, size), 43)};
  status sts[2];
  sidecore::waitall(mix, sts);
  EXPECT_EQ(sts[0].bytes, 0u);
  EXPECT_EQ(sts[1].bytes, 8u);
  EXPECT_FALSE(mix[0].active());
  request any[2] = {request{}, sidecore::isend(&v[4], 8, right(rank, size), 44)};
  EXPECT_EQ(sidecore::waitany(any, &st), 1);
  EXPECT_EQ(st.bytes, 8u);
  request last[1] = {sidecore::isend(&v[5], 8, right(rank, size), 45)};
  while (!sidecore::testall(last)) ASSERT_LT(std::chrono::steady_clock::now(), deadline) << "testall never true";
  EXPECT_FALSE(last[0].active());
  EXPECT_EQ(sidecore::testany(last), -1) << "consumed by testall";

  sidecore::waitall(recvs);
  for (int i = 0; i < 6; ++i) EXPECT_EQ(w[i], i == 2 ? 0 : v[i]) << "message " << i << " (message 2 has 0 bytes)";
  // Dropped unwaited: nothing to free, nothing lost. A dropped send that did not complete inside isend (core
  // mode, lock busy) still reads x later: x must outlive it, so nobody leaves before every message arrived.
  std::uint64_t x = 77, y = 0;
  request r = sidecore::irecv(&y, 8, left(rank, size), 46);
  { request dropped = sidecore::isend(&x, 8, right(rank, size), 46); }
  EXPECT_TRUE(sidecore::wait(r).ok());
  EXPECT_EQ(y, 77u);
  MPI_Barrier(MPI_COMM_WORLD);
}

}  // namespace
