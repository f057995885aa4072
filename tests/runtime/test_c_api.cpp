// The C API (sidecore.h): codes, sidecore_last_error(), SIDECORE_REQUEST_NULL after sidecore_wait, a copied handle
// waited twice, communicators by id, and bad input mapped to codes.
#include <sidecore/sidecore.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "test_util.hpp"

extern "C" int sctest_c_api_roundtrip(int tag, int with_truncation);
extern "C" int sctest_c_api_coll(void);

namespace {

using sctest::Collective;
using sctest::left;
using sctest::right;
using ::testing::HasSubstr;
using ::testing::Not;

using CApi = Collective;

TEST_F(CApi, RoundTripFromC) {
  const int line = sctest_c_api_roundtrip(2000, 0);
  EXPECT_EQ(line, 0) << "c_api_roundtrip.c:" << line << " failed; sidecore_last_error: " << sidecore_last_error();
}

TEST_F(CApi, RoundTripFromCWithTruncation) {
  const int line = sctest_c_api_roundtrip(2010, 1);
  EXPECT_EQ(line, 0) << "c_api_roundtrip.c:" << line << " failed; sidecore_last_error: " << sidecore_last_error();
}

TEST_F(CApi, CodesMatchErrcAndHaveNames) {
  EXPECT_EQ(SIDECORE_ERR_INVALID_ARGUMENT, static_cast<int>(sidecore::errc::invalid_argument));
  EXPECT_EQ(SIDECORE_ERR_NOT_INITIALIZED, static_cast<int>(sidecore::errc::not_initialized));
  EXPECT_EQ(SIDECORE_ERR_ALREADY_INITIALIZED, static_cast<int>(sidecore::errc::already_initialized));
  EXPECT_EQ(SIDECORE_ERR_INVALID_REQUEST, static_cast<int>(sidecore::errc::invalid_request));
  EXPECT_EQ(SIDECORE_ERR_TRUNCATED, static_cast<int>(sidecore::errc::truncated));
  EXPECT_EQ(SIDECORE_ERR_CANCELED, static_cast<int>(sidecore::errc::canceled));
  EXPECT_EQ(SIDECORE_ERR_BAD_SETTING, static_cast<int>(sidecore::errc::bad_setting));
  EXPECT_EQ(SIDECORE_ERR_TOPOLOGY, static_cast<int>(sidecore::errc::topology));
  EXPECT_EQ(SIDECORE_ERR_TRANSPORT, static_cast<int>(sidecore::errc::transport));
  EXPECT_EQ(SIDECORE_ERR_MPI, static_cast<int>(sidecore::errc::mpi));
  EXPECT_EQ(SIDECORE_ERR_PEER_FAILED, static_cast<int>(sidecore::errc::peer_failed));
  EXPECT_STREQ(sidecore_error_name(SIDECORE_ERR_PEER_FAILED), "peer_failed");
  EXPECT_STREQ(sidecore_error_name(SIDECORE_SUCCESS), "success");
  EXPECT_STREQ(sidecore_error_name(SIDECORE_ERR_TRUNCATED), "truncated");
  EXPECT_STREQ(sidecore_error_name(SIDECORE_ERR_INVALID_REQUEST), "invalid_request");
  EXPECT_STREQ(sidecore_error_name(SIDECORE_ERR_INTERNAL), "internal");
  EXPECT_STREQ(sidecore_error_name(12345), "unknown");
  EXPECT_STREQ(sidecore_error_name(-1), "unknown");
}

TEST_F(CApi, BadArgumentsGiveCodesAndMessages) {
  char buf[8] = {};
  sidecore_request r = 777;
  EXPECT_EQ(sidecore_isend(buf, 8, -2, 1, SIDECORE_COMM_WORLD, &r), SIDECORE_ERR_INVALID_ARGUMENT);
  EXPECT_THAT(std::string(sidecore_last_error()), HasSubstr("-2"));
  EXPECT_EQ(r, 777u) << "outputs are set only on success";
  EXPECT_EQ(sidecore_isend(buf, -5, right(rank, size), 1, SIDECORE_COMM_WORLD, &r), SIDECORE_ERR_INVALID_ARGUMENT);
  EXPECT_THAT(std::string(sidecore_last_error()), HasSubstr("-5"));
  EXPECT_EQ(sidecore_irecv(nullptr, 8, left(rank, size), 1, SIDECORE_COMM_WORLD, &r), SIDECORE_ERR_INVALID_ARGUMENT);
  EXPECT_THAT(std::string(sidecore_last_error()), HasSubstr("null"));
  EXPECT_EQ(sidecore_irecv(buf, 8, left(rank, size), sidecore::tag_max + 1, SIDECORE_COMM_WORLD, &r),
            SIDECORE_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(sidecore_isend(buf, 8, right(rank, size), 1, SIDECORE_COMM_WORLD, nullptr), SIDECORE_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(sidecore_isend(buf, 8, right(rank, size), 1, 12345, &r), SIDECORE_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(sidecore_isend(buf, 8, right(rank, size), 1, -1, &r), SIDECORE_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(sidecore_rank(nullptr), SIDECORE_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(sidecore_wait(nullptr, nullptr), SIDECORE_ERR_INVALID_ARGUMENT);
  sidecore_request none = SIDECORE_REQUEST_NULL;
  EXPECT_EQ(sidecore_wait(&none, nullptr), SIDECORE_ERR_INVALID_REQUEST);
  EXPECT_THAT(std::string(sidecore_last_error()), HasSubstr("never started"));
  // A made-up handle is not a request.
  sidecore_request junk = 0xdeadbeef00000042ULL;  // bit 63 set: what an inline send handle looks like in C++
  EXPECT_EQ(sidecore_wait(&junk, nullptr), SIDECORE_ERR_INVALID_REQUEST);
  EXPECT_THAT(std::string(sidecore_last_error()),
              HasSubstr("sidecore_wait: the handle names no request: it is a value sidecore"));
  junk = 0x5eadbeef00000042ULL;
  EXPECT_EQ(sidecore_wait(&junk, nullptr), SIDECORE_ERR_INVALID_REQUEST);
  sidecore_request reqs[2] = {SIDECORE_REQUEST_NULL, SIDECORE_REQUEST_NULL};
  EXPECT_EQ(sidecore_waitall(-1, reqs, nullptr), SIDECORE_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(sidecore_waitall(2, nullptr, nullptr), SIDECORE_ERR_INVALID_ARGUMENT);
  int index = 5;
  EXPECT_EQ(sidecore_waitany(2, reqs, &index, nullptr), SIDECORE_SUCCESS);
  EXPECT_EQ(index, -1) << "no active request";
  EXPECT_EQ(sidecore_waitall(2, reqs, nullptr), SIDECORE_SUCCESS);
  // Values beyond the byte the C++ enums hold are named as given (they were narrowed to 255 first).
  double d[2] = {1, 2}, e[2] = {};
  EXPECT_EQ(sidecore_allreduce(d, e, 2, 256 + SIDECORE_INT64, SIDECORE_SUM, SIDECORE_COMM_WORLD),
            SIDECORE_ERR_INVALID_ARGUMENT);
  EXPECT_THAT(std::string(sidecore_last_error()), HasSubstr("dtype 258 is not a sidecore_dtype"));
  EXPECT_EQ(sidecore_bcast(d, 2, -1, 0, SIDECORE_COMM_WORLD), SIDECORE_ERR_INVALID_ARGUMENT);
  EXPECT_THAT(std::string(sidecore_last_error()), HasSubstr("dtype -1 is not a sidecore_dtype"));
  // Inside the byte but no sidecore_dtype or sidecore_op: the same words (not the C++ API's names).
  EXPECT_EQ(sidecore_bcast(d, 2, 77, 0, SIDECORE_COMM_WORLD), SIDECORE_ERR_INVALID_ARGUMENT);
  EXPECT_THAT(std::string(sidecore_last_error()),
              HasSubstr("dtype 77 is not a sidecore_dtype; accepted: SIDECORE_BYTE (0), SIDECORE_INT32"));
  EXPECT_EQ(sidecore_allreduce(d, e, 2, SIDECORE_DOUBLE, 50, SIDECORE_COMM_WORLD), SIDECORE_ERR_INVALID_ARGUMENT);
  EXPECT_THAT(std::string(sidecore_last_error()), HasSubstr("op 50 is neither a built-in sidecore_op"));
  EXPECT_EQ(sidecore_allreduce(d, e, 2, SIDECORE_DOUBLE, -1, SIDECORE_COMM_WORLD), SIDECORE_ERR_INVALID_ARGUMENT);
  EXPECT_THAT(std::string(sidecore_last_error()), HasSubstr("op -1 is neither"));
  // A refusal before the C++ API sets the message too (it kept the previous call's).
  EXPECT_EQ(sidecore_region_begin(nullptr), SIDECORE_ERR_INVALID_ARGUMENT);
  EXPECT_THAT(std::string(sidecore_last_error()), HasSubstr("sidecore_region_begin: name is NULL"));
  // A success clears the thread's last error.
  int rk = -1;
  EXPECT_EQ(sidecore_rank(&rk), SIDECORE_SUCCESS);
  EXPECT_STREQ(sidecore_last_error(), "");
  EXPECT_EQ(rk, rank);
}

TEST_F(CApi, LastErrorIsPerThread) {
  char buf[8] = {};
  sidecore_request r = SIDECORE_REQUEST_NULL;
  ASSERT_EQ(sidecore_isend(buf, 8, -7, 1, SIDECORE_COMM_WORLD, &r), SIDECORE_ERR_INVALID_ARGUMENT);
  std::string other;
  std::thread t([&] { other = sidecore_last_error(); });
  t.join();
  EXPECT_EQ(other, "") << "another thread sees this thread's error";
  EXPECT_THAT(std::string(sidecore_last_error()), HasSubstr("-7"));
}

// A small send completes inside sidecore::isend without a slot (an inline handle); the C API keeps a slot for
// its sends, so that a copy of a send handle waited on after the original is still an error.
TEST_F(CApi, CopiedSendHandleWaitedTwice) {
  std::uint64_t out = 6, in = 0;
  sidecore_request s = SIDECORE_REQUEST_NULL, r = SIDECORE_REQUEST_NULL;
  ASSERT_EQ(sidecore_irecv(&in, 8, left(rank, size), 2150, SIDECORE_COMM_WORLD, &r), SIDECORE_SUCCESS);
  ASSERT_EQ(sidecore_isend(&out, 8, right(rank, size), 2150, SIDECORE_COMM_WORLD, &s), SIDECORE_SUCCESS);
  const sidecore_request copy = s;
  sidecore_status st{};
  ASSERT_EQ(sidecore_wait(&s, &st), SIDECORE_SUCCESS);
  EXPECT_EQ(st.bytes, 8u);
  EXPECT_EQ(s, static_cast<sidecore_request>(SIDECORE_REQUEST_NULL));
  sidecore_request again = copy;
  EXPECT_EQ(sidecore_wait(&again, nullptr), SIDECORE_ERR_INVALID_REQUEST);
  EXPECT_THAT(std::string(sidecore_last_error()), HasSubstr("already"));
  ASSERT_EQ(sidecore_wait(&r, nullptr), SIDECORE_SUCCESS);
  EXPECT_EQ(in, 6u);
}

TEST_F(CApi, CopiedHandleWaitedTwiceAndTestWaitany) {
  std::uint64_t out = 5, in = 0;
  sidecore_request r = SIDECORE_REQUEST_NULL;
  ASSERT_EQ(sidecore_irecv(&in, 8, left(rank, size), 2100, SIDECORE_COMM_WORLD, &r), SIDECORE_SUCCESS);
  const sidecore_request copy = r;
  sidecore_request s = SIDECORE_REQUEST_NULL;
  ASSERT_EQ(sidecore_isend(&out, 8, right(rank, size), 2100, SIDECORE_COMM_WORLD, &s), SIDECORE_SUCCESS);
  // sidecore_test until done.
  int flag = 0;
  sidecore_status st{};
  for (int i = 0; !flag; ++i) {
    ASSERT_EQ(sidecore_test(&r, &flag, &st), SIDECORE_SUCCESS);
    ASSERT_LT(i, 100000000);
  }
  EXPECT_EQ(r, static_cast<sidecore_request>(SIDECORE_REQUEST_NULL));
  EXPECT_EQ(st.source, left(rank, size));
  EXPECT_EQ(st.tag, 2100);
  EXPECT_EQ(st.bytes, 8u);
  sidecore_request again = copy;
  EXPECT_EQ(sidecore_wait(&again, nullptr), SIDECORE_ERR_INVALID_REQUEST);
  EXPECT_THAT(std::string(sidecore_last_error()), HasSubstr("already"));
  EXPECT_EQ(sidecore_test(&again, &flag, nullptr), SIDECORE_ERR_INVALID_REQUEST);
  EXPECT_EQ(sidecore_cancel(&again), SIDECORE_ERR_INVALID_REQUEST);
  int index = -5;
  ASSERT_EQ(sidecore_waitany(1, &s, &index, nullptr), SIDECORE_SUCCESS);
  EXPECT_EQ(index, 0);
  EXPECT_EQ(s, static_cast<sidecore_request>(SIDECORE_REQUEST_NULL));
}

// A copy of a consumed handle, or a value sidecore never gave, is refused by the array calls and sidecore_request_free
// as by sidecore_wait (SIDECORE_ERR_INVALID_REQUEST), and before any request of the array is waited on or freed.
TEST_F(CApi, StaleHandlesAreRefusedByTheArrayCallsAndFree) {
  std::uint64_t out = 7, in = 0, in2 = 0;
  sidecore_request r = SIDECORE_REQUEST_NULL;
  ASSERT_EQ(sidecore_irecv(&in, 8, left(rank, size), 2300, SIDECORE_COMM_WORLD, &r), SIDECORE_SUCCESS);
  const sidecore_request stale = r;
  ASSERT_EQ(sidecore_send(&out, 8, right(rank, size), 2300, SIDECORE_COMM_WORLD), SIDECORE_SUCCESS);
  ASSERT_EQ(sidecore_wait(&r, nullptr), SIDECORE_SUCCESS);
  sidecore_request live = SIDECORE_REQUEST_NULL;
  ASSERT_EQ(sidecore_irecv(&in2, 8, left(rank, size), 2301, SIDECORE_COMM_WORLD, &live), SIDECORE_SUCCESS);
  sidecore_request reqs[2] = {live, stale};
  EXPECT_EQ(sidecore_waitall(2, reqs, nullptr), SIDECORE_ERR_INVALID_REQUEST);
  EXPECT_THAT(std::string(sidecore_last_error()), HasSubstr("reqs[1]"));
  EXPECT_EQ(reqs[0], live) << "a refused sidecore_waitall waited on nothing";
  EXPECT_EQ(reqs[1], stale);
  int index = -5;
  EXPECT_EQ(sidecore_waitany(2, reqs, &index, nullptr), SIDECORE_ERR_INVALID_REQUEST);
  EXPECT_THAT(std::string(sidecore_last_error()), HasSubstr("reqs[1]"));
  sidecore_request junk = 0x5eadbeef00000042ULL;
  EXPECT_EQ(sidecore_request_free(&junk), SIDECORE_ERR_INVALID_REQUEST);
  EXPECT_THAT(std::string(sidecore_last_error()), HasSubstr("sidecore did not give"));
  sidecore_request copy = stale;
  EXPECT_EQ(sidecore_request_free(&copy), SIDECORE_ERR_INVALID_REQUEST);
  EXPECT_EQ(reqs[0], live);
  ASSERT_EQ(sidecore_send(&out, 8, right(rank, size), 2301, SIDECORE_COMM_WORLD), SIDECORE_SUCCESS);
  ASSERT_EQ(sidecore_wait(&live, nullptr), SIDECORE_SUCCESS) << "the live request survived the refused calls";
  EXPECT_EQ(in2, 7u);
}

// A copy of a handle freed (sidecore_request_free) while its receive was still pending is a handle of nothing: every
// call refuses it, also after the message arrived, rather than waiting for a completion that is never handed out.
TEST_F(CApi, ACopyOfAHandleFreedWhilePendingIsRefused) {
  std::uint64_t out = 9, in = 0;
  sidecore_request r = SIDECORE_REQUEST_NULL;
  ASSERT_EQ(sidecore_irecv(&in, 8, left(rank, size), 2350, SIDECORE_COMM_WORLD, &r), SIDECORE_SUCCESS);
  const sidecore_request copy = r;
  ASSERT_EQ(sidecore_request_free(&r), SIDECORE_SUCCESS);
  sidecore_request again = copy;
  EXPECT_EQ(sidecore_wait(&again, nullptr), SIDECORE_ERR_INVALID_REQUEST);
  int flag = -1;
  EXPECT_EQ(sidecore_test(&again, &flag, nullptr), SIDECORE_ERR_INVALID_REQUEST);
  EXPECT_EQ(sidecore_cancel(&again), SIDECORE_ERR_INVALID_REQUEST);
  EXPECT_EQ(sidecore_waitall(1, &again, nullptr), SIDECORE_ERR_INVALID_REQUEST);
  ASSERT_EQ(sidecore_send(&out, 8, right(rank, size), 2350, SIDECORE_COMM_WORLD), SIDECORE_SUCCESS);
  ASSERT_EQ(sidecore_barrier(SIDECORE_COMM_WORLD),
            SIDECORE_SUCCESS);  // the freed receive has had its message: still refused
  EXPECT_EQ(sidecore_wait(&again, nullptr), SIDECORE_ERR_INVALID_REQUEST);
  EXPECT_EQ(sidecore_test(&again, &flag, nullptr), SIDECORE_ERR_INVALID_REQUEST);
}

// sidecore_waitall returns the first failed request's error: sidecore_last_error is that request's sentence, naming its
// index, not the sentence of a later request that failed another way.
TEST_F(CApi, WaitallSaysTheErrorOfTheRequestItReturns) {
  std::int32_t a[8] = {}, b[8] = {};
  double c[8] = {}, d[8] = {};
  sidecore_request q[2] = {SIDECORE_REQUEST_NULL, SIDECORE_REQUEST_NULL};
  ASSERT_EQ(sidecore_iallreduce(a, b, rank == 0 ? 4 : 8, SIDECORE_INT32, SIDECORE_SUM, SIDECORE_COMM_WORLD, &q[0]),
            SIDECORE_SUCCESS);
  ASSERT_EQ(sidecore_iallreduce(c, d, 2, rank == 0 ? SIDECORE_INT32 : SIDECORE_FLOAT, SIDECORE_SUM, SIDECORE_COMM_WORLD,
                                &q[1]),
            SIDECORE_SUCCESS);
  sidecore_status st[2]{};
  EXPECT_EQ(sidecore_waitall(2, q, st), SIDECORE_ERR_INVALID_ARGUMENT);
  const std::string err = sidecore_last_error();
  EXPECT_THAT(err, HasSubstr("sidecore_waitall: reqs[0]: ")) << err;
  EXPECT_THAT(err, Not(HasSubstr("float32"))) << "reqs[1]'s sentence: " << err;
}

// A request's own error that is not a failure of the transport still gets a sentence in sidecore_last_error.
TEST_F(CApi, TruncatedAndCanceledSayWhy) {
  std::uint64_t big[2] = {1, 2}, small = 0;
  sidecore_request r = SIDECORE_REQUEST_NULL;
  ASSERT_EQ(sidecore_irecv(&small, 8, left(rank, size), 2310, SIDECORE_COMM_WORLD, &r), SIDECORE_SUCCESS);
  ASSERT_EQ(sidecore_send(big, 16, right(rank, size), 2310, SIDECORE_COMM_WORLD), SIDECORE_SUCCESS);
  ASSERT_EQ(sidecore_wait(&r, nullptr), SIDECORE_ERR_TRUNCATED);
  EXPECT_THAT(std::string(sidecore_last_error()), HasSubstr("sidecore_wait"));
  EXPECT_THAT(std::string(sidecore_last_error()), HasSubstr("larger than"));
  EXPECT_THAT(std::string(sidecore_last_error()), HasSubstr("first 8 bytes"));
  ASSERT_EQ(sidecore_irecv(&small, 8, left(rank, size), 2311, SIDECORE_COMM_WORLD, &r), SIDECORE_SUCCESS);
  ASSERT_EQ(sidecore_cancel(&r), SIDECORE_SUCCESS);
  sidecore_request one[1] = {r};
  ASSERT_EQ(sidecore_waitall(1, one, nullptr), SIDECORE_ERR_CANCELED);
  EXPECT_THAT(std::string(sidecore_last_error()), HasSubstr("sidecore_waitall: reqs[0]"));
  EXPECT_THAT(std::string(sidecore_last_error()), HasSubstr("cancel"));
}

// sidecore_testall and sidecore_testany, as MPI_Testall and MPI_Testany: nothing is consumed until everything (testall)
// or one request (testany) completed; an array with no active request completes at once with index -1.
TEST_F(CApi, TestallAndTestany) {
  std::uint64_t out = 9, in[2] = {};
  sidecore_request r[2] = {SIDECORE_REQUEST_NULL, SIDECORE_REQUEST_NULL};
  ASSERT_EQ(sidecore_irecv(&in[0], 8, left(rank, size), 2320, SIDECORE_COMM_WORLD, &r[0]), SIDECORE_SUCCESS);
  ASSERT_EQ(sidecore_irecv(&in[1], 8, left(rank, size), 2321, SIDECORE_COMM_WORLD, &r[1]), SIDECORE_SUCCESS);
  int flag = -1, index = -5;
  ASSERT_EQ(sidecore_testall(2, r, &flag, nullptr), SIDECORE_SUCCESS);
  EXPECT_EQ(flag, 0) << "nothing was sent yet";
  ASSERT_EQ(sidecore_testany(2, r, &index, &flag, nullptr), SIDECORE_SUCCESS);
  EXPECT_EQ(flag, 0);
  EXPECT_EQ(index, -1);
  MPI_Barrier(MPI_COMM_WORLD);  // every rank has tested before any sends
  ASSERT_EQ(sidecore_send(&out, 8, right(rank, size), 2321, SIDECORE_COMM_WORLD), SIDECORE_SUCCESS);
  sidecore_status st{};
  for (int i = 0; flag == 0; ++i) {
    ASSERT_EQ(sidecore_testany(2, r, &index, &flag, &st), SIDECORE_SUCCESS);
    ASSERT_LT(i, 100000000);
  }
  EXPECT_EQ(index, 1);
  EXPECT_EQ(st.tag, 2321);
  EXPECT_EQ(r[1], static_cast<sidecore_request>(SIDECORE_REQUEST_NULL));
  EXPECT_NE(r[0], static_cast<sidecore_request>(SIDECORE_REQUEST_NULL));
  MPI_Barrier(MPI_COMM_WORLD);  // every rank's testany saw 2321 before any sends 2320
  ASSERT_EQ(sidecore_send(&out, 8, right(rank, size), 2320, SIDECORE_COMM_WORLD), SIDECORE_SUCCESS);
  sidecore_status sts[2]{};
  flag = 0;
  for (int i = 0; flag == 0; ++i) {
    ASSERT_EQ(sidecore_testall(2, r, &flag, sts), SIDECORE_SUCCESS);
    ASSERT_LT(i, 100000000);
  }
  EXPECT_EQ(sts[0].tag, 2320);
  EXPECT_EQ(r[0], static_cast<sidecore_request>(SIDECORE_REQUEST_NULL));
  EXPECT_EQ(in[0], 9u);
  EXPECT_EQ(in[1], 9u);
  flag = 0;
  ASSERT_EQ(sidecore_testany(2, r, &index, &flag, nullptr), SIDECORE_SUCCESS);
  EXPECT_EQ(flag, 1) << "no active request: complete at once";
  EXPECT_EQ(index, -1);
  EXPECT_EQ(sidecore_testall(2, r, nullptr, nullptr), SIDECORE_ERR_INVALID_ARGUMENT);
  EXPECT_THAT(std::string(sidecore_last_error()), HasSubstr("sidecore_testall: flag is NULL"));
  EXPECT_EQ(sidecore_testany(-1, r, &index, &flag, nullptr), SIDECORE_ERR_INVALID_ARGUMENT);
}

TEST_F(CApi, CancelGivesCanceledCode) {
  std::uint64_t in = 0;
  sidecore_request r = SIDECORE_REQUEST_NULL;
  ASSERT_EQ(sidecore_irecv(&in, 8, left(rank, size), 2200, SIDECORE_COMM_WORLD, &r), SIDECORE_SUCCESS);
  ASSERT_EQ(sidecore_cancel(&r), SIDECORE_SUCCESS);
  EXPECT_NE(r, static_cast<sidecore_request>(SIDECORE_REQUEST_NULL)) << "a cancelled request must still be waited";
  sidecore_status st{};
  EXPECT_EQ(sidecore_wait(&r, &st), SIDECORE_ERR_CANCELED);
  EXPECT_EQ(st.error, SIDECORE_ERR_CANCELED) << "the cancelled receive (source " << left(rank, size)
                                       << ", tag 2200) got a message: source " << st.source << ", tag " << st.tag
                                       << ", " << st.bytes << " B, value " << in;
  EXPECT_EQ(r, static_cast<sidecore_request>(SIDECORE_REQUEST_NULL));
  MPI_Barrier(MPI_COMM_WORLD);
  // Cancelling a send is refused, and the handle stays usable.
  std::uint64_t out = 1;
  sidecore_request s = SIDECORE_REQUEST_NULL;
  ASSERT_EQ(sidecore_isend(&out, 8, right(rank, size), 2201, SIDECORE_COMM_WORLD, &s), SIDECORE_SUCCESS);
  EXPECT_EQ(sidecore_cancel(&s), SIDECORE_ERR_INVALID_ARGUMENT);
  EXPECT_NE(s, static_cast<sidecore_request>(SIDECORE_REQUEST_NULL));
  ASSERT_EQ(sidecore_recv(&in, 8, left(rank, size), 2201, SIDECORE_COMM_WORLD, nullptr), SIDECORE_SUCCESS);
  EXPECT_EQ(sidecore_wait(&s, nullptr), SIDECORE_SUCCESS);
}

TEST_F(CApi, Communicators) {
  sidecore_comm d = -5;
  ASSERT_EQ(sidecore_comm_dup(SIDECORE_COMM_WORLD, &d), SIDECORE_SUCCESS);
  EXPECT_GT(d, 0);
  const sidecore_comm copy = d;
  std::uint64_t out = 3, in = 0;
  sidecore_request s = SIDECORE_REQUEST_NULL;
  ASSERT_EQ(sidecore_isend(&out, 8, right(rank, size), 1, d, &s), SIDECORE_SUCCESS);
  sidecore_status st{};
  ASSERT_EQ(sidecore_recv(&in, 8, left(rank, size), 1, d, &st), SIDECORE_SUCCESS);
  EXPECT_EQ(in, 3u);
  ASSERT_EQ(sidecore_wait(&s, nullptr), SIDECORE_SUCCESS);
  sidecore_comm half = -5;
  ASSERT_EQ(sidecore_comm_split(d, rank % 2, rank, &half), SIDECORE_SUCCESS);
  ASSERT_GT(half, 0);
  int half_rank = -1, half_size = -1, world_rank = -1;
  ASSERT_EQ(sidecore_comm_rank(half, &half_rank), SIDECORE_SUCCESS);
  ASSERT_EQ(sidecore_comm_size(half, &half_size), SIDECORE_SUCCESS);
  EXPECT_EQ(half_rank, rank / 2);
  EXPECT_EQ(half_size, (size - rank % 2 + 1) / 2);
  ASSERT_EQ(sidecore_comm_rank(SIDECORE_COMM_WORLD, &world_rank), SIDECORE_SUCCESS);
  EXPECT_EQ(world_rank, rank);
  EXPECT_EQ(sidecore_comm_size(half, nullptr), SIDECORE_ERR_INVALID_ARGUMENT);
  EXPECT_THAT(std::string(sidecore_last_error()), HasSubstr("sidecore_comm_size: size is NULL"));
  ASSERT_EQ(sidecore_comm_free(&half), SIDECORE_SUCCESS);
  EXPECT_EQ(half, -1);
  sidecore_comm none = -5;
  ASSERT_EQ(sidecore_comm_split(d, rank == 0 ? -1 : 1, 0, &none), SIDECORE_SUCCESS);
  if (rank == 0) EXPECT_EQ(none, -1) << "split with color -1 gives -1";
  else ASSERT_EQ(sidecore_comm_free(&none), SIDECORE_SUCCESS);
  ASSERT_EQ(sidecore_comm_free(&d), SIDECORE_SUCCESS);
  EXPECT_EQ(d, -1);
  EXPECT_EQ(sidecore_isend(&out, 8, right(rank, size), 1, copy, &s), SIDECORE_ERR_INVALID_ARGUMENT);
  EXPECT_THAT(std::string(sidecore_last_error()), HasSubstr("freed"));
  int freed_size = -7;
  EXPECT_EQ(sidecore_comm_size(copy, &freed_size), SIDECORE_ERR_INVALID_ARGUMENT);
  EXPECT_THAT(std::string(sidecore_last_error()), HasSubstr("freed"));
  EXPECT_EQ(freed_size, -7) << "outputs are set only on success";
  sidecore_comm world = SIDECORE_COMM_WORLD;
  EXPECT_EQ(sidecore_comm_free(&world), SIDECORE_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(sidecore_comm_dup(SIDECORE_COMM_WORLD, nullptr), SIDECORE_ERR_INVALID_ARGUMENT);
}

// The collectives from C (c_api_coll.c).
TEST_F(CApi, CollectivesFromC) {
  const int line = sctest_c_api_coll();
  EXPECT_EQ(line, 0) << "c_api_coll.c:" << line << " failed; sidecore_last_error: " << sidecore_last_error();
}

// A language binding's buffer sizes (sidecore_binding_limits): the next call with a buffer refuses a count beyond them,
// names the buffer and its size, and starts nothing; the call after it is unlimited again.
TEST_F(CApi, BindingLimitsRefuseACountBeyondTheBuffer) {
  double x[4] = {1, 2, 3, 4}, y[4] = {};
  sidecore_request r = 777;
  ASSERT_EQ(sidecore_binding_limits(16, -1), SIDECORE_SUCCESS);
  EXPECT_EQ(sidecore_isend(x, 32, right(rank, size), 5, SIDECORE_COMM_WORLD, &r), SIDECORE_ERR_INVALID_ARGUMENT);
  EXPECT_THAT(std::string(sidecore_last_error()),
              HasSubstr("sidecore_isend: bytes=32 reaches beyond buf, which holds 16 bytes"));
  EXPECT_EQ(r, 777u);
  ASSERT_EQ(sidecore_binding_limits(-1, 24), SIDECORE_SUCCESS);
  EXPECT_EQ(sidecore_recv(y, 32, left(rank, size), 5, SIDECORE_COMM_WORLD, nullptr), SIDECORE_ERR_INVALID_ARGUMENT);
  EXPECT_THAT(std::string(sidecore_last_error()),
              HasSubstr("sidecore_recv: bytes=32 reaches beyond buf, which holds 24"));
  ASSERT_EQ(sidecore_binding_limits(32, 8), SIDECORE_SUCCESS);
  EXPECT_EQ(sidecore_allreduce(x, y, 4, SIDECORE_DOUBLE, SIDECORE_SUM, SIDECORE_COMM_WORLD),
            SIDECORE_ERR_INVALID_ARGUMENT);
  // The count is elements of the dtype: the refusal says so, and gives the buffer in bytes and in elements.
  EXPECT_THAT(
      std::string(sidecore_last_error()),
      HasSubstr(
          "sidecore_allreduce: count is 4, which reaches beyond recv: this rank's recv must hold 32 bytes (4 "
          "elements of SIDECORE_DOUBLE) and holds 8 bytes (1 element of SIDECORE_DOUBLE); accepted: count 0 .. 1"));
  ASSERT_EQ(sidecore_binding_limits(8, 32), SIDECORE_SUCCESS);
  EXPECT_EQ(sidecore_allreduce(x, y, 4, SIDECORE_DOUBLE, SIDECORE_SUM, SIDECORE_COMM_WORLD),
            SIDECORE_ERR_INVALID_ARGUMENT);
  EXPECT_THAT(std::string(sidecore_last_error()),
              HasSubstr("send must hold 32 bytes (4 elements of SIDECORE_DOUBLE) and holds 8 bytes (1 element of "
                        "SIDECORE_DOUBLE)"));
  // A size that is no whole number of elements, and a rooted kind whose buffer holds a block per rank.
  ASSERT_EQ(sidecore_binding_limits(-1, 12), SIDECORE_SUCCESS);
  EXPECT_EQ(sidecore_allreduce(x, y, 2, SIDECORE_DOUBLE, SIDECORE_SUM, SIDECORE_COMM_WORLD),
            SIDECORE_ERR_INVALID_ARGUMENT);
  EXPECT_THAT(std::string(sidecore_last_error()),
              HasSubstr("holds 12 bytes (1 element of SIDECORE_DOUBLE and 4 bytes more); accepted: count 0 .. 1"));
  if (size > 1) {
    ASSERT_EQ(sidecore_binding_limits(-1, 8), SIDECORE_SUCCESS);
    EXPECT_EQ(sidecore_allgather(x, y, 1, SIDECORE_DOUBLE, SIDECORE_COMM_WORLD), SIDECORE_ERR_INVALID_ARGUMENT);
    EXPECT_THAT(std::string(sidecore_last_error()),
                HasSubstr("accepted: count 0 .. 0 (recv holds a block of count elements for each of the "
                          "communicator's " + std::to_string(size) + " ranks)"));
  }
  // Without a binding's limits: a NULL buffer that must hold the count.
  EXPECT_EQ(sidecore_allreduce(nullptr, y, 4, SIDECORE_DOUBLE, SIDECORE_SUM, SIDECORE_COMM_WORLD),
            SIDECORE_ERR_INVALID_ARGUMENT);
  EXPECT_THAT(
      std::string(sidecore_last_error()),
      HasSubstr("send is null but must hold 32 bytes (4 elements of SIDECORE_DOUBLE) on this rank, given its count"));
  // Limits that hold, and a call after a limited one: both run.
  ASSERT_EQ(sidecore_binding_limits(32, 32), SIDECORE_SUCCESS);
  ASSERT_EQ(sidecore_allreduce(x, y, 4, SIDECORE_DOUBLE, SIDECORE_SUM, SIDECORE_COMM_WORLD), SIDECORE_SUCCESS)
      << sidecore_last_error();
  EXPECT_EQ(y[3], 4.0 * size);
  // A call refused before it reads its buffers still takes the limits: the call after it is not limited.
  ASSERT_EQ(sidecore_binding_limits(8, 8), SIDECORE_SUCCESS);
  EXPECT_EQ(sidecore_isend(x, 32, right(rank, size), 5, SIDECORE_COMM_WORLD, nullptr), SIDECORE_ERR_INVALID_ARGUMENT);
  ASSERT_EQ(sidecore_allreduce(x, y, 4, SIDECORE_DOUBLE, SIDECORE_SUM, SIDECORE_COMM_WORLD), SIDECORE_SUCCESS)
      << sidecore_last_error();
  // In place: the send side is not checked, the receive side is.
  ASSERT_EQ(sidecore_binding_limits(-1, 16), SIDECORE_SUCCESS);
  const void* in_place = reinterpret_cast<const void*>(std::uintptr_t{1});  // SIDECORE_IN_PLACE, without its C cast
  EXPECT_EQ(sidecore_allreduce(in_place, y, 4, SIDECORE_DOUBLE, SIDECORE_SUM, SIDECORE_COMM_WORLD),
            SIDECORE_ERR_INVALID_ARGUMENT);
  EXPECT_THAT(std::string(sidecore_last_error()),
              HasSubstr("holds 16 bytes (2 elements of SIDECORE_DOUBLE); accepted: count 0 .. 2"));
  EXPECT_EQ(sidecore_binding_limits(-2, 0), SIDECORE_ERR_INVALID_ARGUMENT);
  EXPECT_THAT(std::string(sidecore_last_error()), HasSubstr("send_bytes=-2"));
}

// The C API's messages name the C function called and the bad value, in C's words.
TEST_F(CApi, MessagesNameTheCallTheValueAndCWords) {
  std::int32_t x[4] = {1, 2, 3, 4};
  EXPECT_EQ(sidecore_allreduce(x, x, 4, SIDECORE_INT32, SIDECORE_SUM, SIDECORE_COMM_WORLD),
            SIDECORE_ERR_INVALID_ARGUMENT);
  std::string err = sidecore_last_error();
  EXPECT_THAT(err, HasSubstr("or SIDECORE_IN_PLACE where")) << err;
  EXPECT_THAT(err, Not(HasSubstr("sidecore_SC_IN_PLACE"))) << err;
  std::int64_t counts[8] = {1, 1, 1, 1, 1, 1, 1, 1}, displs[8] = {0, 1, 2, 3, 4, 5, 6, 7};
  std::int32_t all[8] = {};
  EXPECT_EQ(sidecore_allgatherv(x, 1, all, counts, displs, SIDECORE_INT32, 999), SIDECORE_ERR_INVALID_ARGUMENT);
  err = sidecore_last_error();
  EXPECT_THAT(err, ::testing::StartsWith("sidecore_allgatherv: ")) << err;
  EXPECT_THAT(err, HasSubstr("999")) << err;
  int r = -1;
  EXPECT_EQ(sidecore_comm_rank(1 << 20, &r), SIDECORE_ERR_INVALID_ARGUMENT);
  EXPECT_THAT(std::string(sidecore_last_error()), HasSubstr("1048576"));
  EXPECT_EQ(sidecore_comm_rank(-5, &r), SIDECORE_ERR_INVALID_ARGUMENT);
  EXPECT_THAT(std::string(sidecore_last_error()), HasSubstr("-5"));
}

// One request twice in an array (MPI calls it erroneous): refused before anything is waited on, as a copy of a
// consumed handle is, rather than the second copy taken for an empty request.
TEST_F(CApi, OneRequestTwiceInAnArrayIsRefused) {
  std::uint64_t out = 3, in = 0;
  sidecore_request r = SIDECORE_REQUEST_NULL;
  ASSERT_EQ(sidecore_irecv(&in, 8, left(rank, size), 2360, SIDECORE_COMM_WORLD, &r), SIDECORE_SUCCESS);
  sidecore_request twice[3] = {r, SIDECORE_REQUEST_NULL, r};
  EXPECT_EQ(sidecore_waitall(3, twice, nullptr), SIDECORE_ERR_INVALID_REQUEST);
  EXPECT_THAT(std::string(sidecore_last_error()), HasSubstr("reqs[0] and reqs[2]"));
  int flag = -1;
  EXPECT_EQ(sidecore_testall(3, twice, &flag, nullptr), SIDECORE_ERR_INVALID_REQUEST);
  int index = -5;
  EXPECT_EQ(sidecore_waitany(3, twice, &index, nullptr), SIDECORE_ERR_INVALID_REQUEST);
  EXPECT_EQ(twice[0], r) << "a refused call touched nothing";
  std::vector<sidecore_request> many(40, SIDECORE_REQUEST_NULL);  // a long array: sorted, not compared pairwise
  many[5] = r;
  many[37] = r;
  EXPECT_EQ(sidecore_waitall(40, many.data(), nullptr), SIDECORE_ERR_INVALID_REQUEST);
  EXPECT_THAT(std::string(sidecore_last_error()), HasSubstr("reqs[5] and reqs[37]"));
  ASSERT_EQ(sidecore_send(&out, 8, right(rank, size), 2360, SIDECORE_COMM_WORLD), SIDECORE_SUCCESS);
  ASSERT_EQ(sidecore_wait(&r, nullptr), SIDECORE_SUCCESS);
  EXPECT_EQ(in, 3u);
}

TEST_F(CApi, BindingFailSetsTheMessage) {
  EXPECT_EQ(sidecore_binding_fail(SIDECORE_ERR_INVALID_ARGUMENT, "sidecore_isend: buf is not contiguous"),
            SIDECORE_ERR_INVALID_ARGUMENT);
  EXPECT_STREQ(sidecore_last_error(), "sidecore_isend: buf is not contiguous");
  EXPECT_EQ(sidecore_binding_fail(SIDECORE_SUCCESS, "x"), SIDECORE_ERR_INVALID_ARGUMENT);
  EXPECT_THAT(std::string(sidecore_last_error()), HasSubstr("accepted: a SIDECORE_ERR_* code"));
  EXPECT_EQ(sidecore_binding_fail(SIDECORE_ERR_TRUNCATED, nullptr), SIDECORE_ERR_INVALID_ARGUMENT);
  EXPECT_THAT(std::string(sidecore_last_error()), HasSubstr("NULL message"));
  EXPECT_EQ(sidecore_binding_fail(12345, "x"), SIDECORE_ERR_INVALID_ARGUMENT);
}

// SIDECORE_IN_PLACE goes only where MPI takes MPI_IN_PLACE: as a point-to-point buffer, sidecore_isend read at address
// 1 (SIGSEGV) and sidecore_irecv was accepted, to write there later.
TEST_F(CApi, InPlaceIsNoPointToPointBuffer) {
  void* in_place = reinterpret_cast<void*>(std::uintptr_t{1});  // SIDECORE_IN_PLACE, without its C cast
  sidecore_request r = 777;
  EXPECT_EQ(sidecore_isend(in_place, 4, right(rank, size), 6, SIDECORE_COMM_WORLD, &r), SIDECORE_ERR_INVALID_ARGUMENT);
  EXPECT_THAT(std::string(sidecore_last_error()),
              HasSubstr("sidecore_isend: buf is SIDECORE_IN_PLACE; accepted: a buffer"));
  EXPECT_EQ(sidecore_irecv(in_place, 4, left(rank, size), 6, SIDECORE_COMM_WORLD, &r), SIDECORE_ERR_INVALID_ARGUMENT);
  EXPECT_THAT(std::string(sidecore_last_error()), HasSubstr("sidecore_irecv: buf is SIDECORE_IN_PLACE"));
  EXPECT_EQ(sidecore_send(in_place, 4, right(rank, size), 6, SIDECORE_COMM_WORLD), SIDECORE_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(sidecore_recv(in_place, 4, left(rank, size), 6, SIDECORE_COMM_WORLD, nullptr),
            SIDECORE_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(sidecore_send_init(in_place, 4, right(rank, size), 6, SIDECORE_COMM_WORLD, &r),
            SIDECORE_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(sidecore_recv_init(in_place, 4, left(rank, size), 6, SIDECORE_COMM_WORLD, &r),
            SIDECORE_ERR_INVALID_ARGUMENT);
  EXPECT_THAT(std::string(sidecore_last_error()), HasSubstr("sidecore_recv_init: buf is SIDECORE_IN_PLACE"));
  EXPECT_EQ(r, 777u);
}

// A call that succeeds leaves sidecore_last_error empty, the regions' too (they kept the last failure's message).
TEST_F(CApi, RegionsClearTheLastError) {
  EXPECT_EQ(sidecore_region_begin(nullptr), SIDECORE_ERR_INVALID_ARGUMENT);
  ASSERT_STRNE(sidecore_last_error(), "");
  EXPECT_EQ(sidecore_region_begin("r"), SIDECORE_SUCCESS);
  EXPECT_STREQ(sidecore_last_error(), "");
  EXPECT_EQ(sidecore_region_begin(nullptr), SIDECORE_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(sidecore_region_end(), SIDECORE_SUCCESS);
  EXPECT_STREQ(sidecore_last_error(), "");
}

// A sidecore_region_end without an open region of its thread (more ends than begins) is refused, not ignored: the
// regions of the profile would otherwise not be the ones the program meant.
TEST_F(CApi, ARegionEndWithoutABeginIsRefused) {
  EXPECT_EQ(sidecore_region_end(), SIDECORE_ERR_INVALID_ARGUMENT);
  EXPECT_THAT(std::string(sidecore_last_error()), HasSubstr("sidecore_region_end: no region is open on this thread"));
  EXPECT_EQ(sidecore_region_begin("outer"), SIDECORE_SUCCESS);
  EXPECT_EQ(sidecore_region_begin("inner"), SIDECORE_SUCCESS);
  EXPECT_EQ(sidecore_region_end(), SIDECORE_SUCCESS);
  EXPECT_EQ(sidecore_region_end(), SIDECORE_SUCCESS);
  EXPECT_EQ(sidecore_region_end(), SIDECORE_ERR_INVALID_ARGUMENT);
  int other = -1;
  EXPECT_EQ(sidecore_region_begin("here"), SIDECORE_SUCCESS);
  std::thread t([&] { other = sidecore_region_end(); });  // a region is its thread's: another thread has none open
  t.join();
  EXPECT_EQ(other, SIDECORE_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(sidecore_region_end(), SIDECORE_SUCCESS);
}

// The C API's messages name its own calls and constants, not the C++ API's (sidecore::isend, world(), in_place,
// any_source), which a C or Fortran program cannot write.
TEST_F(CApi, MessagesSpeakC) {
  char buf[8] = {};
  sidecore_request r = SIDECORE_REQUEST_NULL;
  EXPECT_EQ(sidecore_isend(buf, 8, size + 3, 1, SIDECORE_COMM_WORLD, &r), SIDECORE_ERR_INVALID_ARGUMENT);
  EXPECT_THAT(std::string(sidecore_last_error()), HasSubstr("sidecore_isend: dest=" + std::to_string(size + 3)));
  EXPECT_EQ(sidecore_irecv(buf, 8, size + 3, 1, SIDECORE_COMM_WORLD, &r), SIDECORE_ERR_INVALID_ARGUMENT);
  EXPECT_THAT(std::string(sidecore_last_error()), HasSubstr("or SIDECORE_ANY_SOURCE"));
  EXPECT_EQ(sidecore_isend(buf, 8, right(rank, size), 12345, 77, &r), SIDECORE_ERR_INVALID_ARGUMENT);
  EXPECT_THAT(std::string(sidecore_last_error()), HasSubstr("pass SIDECORE_COMM_WORLD or a live one"));
  sidecore_comm world = SIDECORE_COMM_WORLD;
  EXPECT_EQ(sidecore_comm_free(&world), SIDECORE_ERR_INVALID_ARGUMENT);
  EXPECT_STREQ(sidecore_last_error(), "sidecore_comm_free: SIDECORE_COMM_WORLD cannot be freed");
  double x = 0;
  const void* in_place = reinterpret_cast<const void*>(std::uintptr_t{1});  // SIDECORE_IN_PLACE, without its C cast
  EXPECT_EQ(sidecore_bcast(const_cast<void*>(in_place), 1, SIDECORE_DOUBLE, 0, SIDECORE_COMM_WORLD),
            SIDECORE_ERR_INVALID_ARGUMENT);
  EXPECT_THAT(std::string(sidecore_last_error()), HasSubstr("sidecore_bcast: recv is SIDECORE_IN_PLACE"));
  EXPECT_EQ(sidecore_allreduce(&x, &x, -1, SIDECORE_DOUBLE, SIDECORE_SUM, SIDECORE_COMM_WORLD),
            SIDECORE_ERR_INVALID_ARGUMENT);
  EXPECT_THAT(std::string(sidecore_last_error()), ::testing::StartsWith("sidecore_allreduce: "));
  EXPECT_THAT(std::string(sidecore_last_error()), ::testing::Not(HasSubstr("sidecore::")));
}

// sidecore_startall stops at the first request it cannot start: its message names the call, the element and where it
// stopped (the ones before are started).
TEST_F(CApi, StartallNamesTheRequestItStoppedAt) {
  int x = 1, got[2] = {0, 0};
  sidecore_request rs[2] = {SIDECORE_REQUEST_NULL, SIDECORE_REQUEST_NULL};
  const int to = right(rank, size), from = left(rank, size);
  ASSERT_EQ(sidecore_send_init(&x, sizeof x, to, 41, SIDECORE_COMM_WORLD, &rs[0]), SIDECORE_SUCCESS);
  ASSERT_EQ(sidecore_send_init(&x, sizeof x, to, 42, SIDECORE_COMM_WORLD, &rs[1]), SIDECORE_SUCCESS);
  ASSERT_EQ(sidecore_start(&rs[1]), SIDECORE_SUCCESS);
  EXPECT_EQ(sidecore_startall(2, rs), SIDECORE_ERR_INVALID_REQUEST);
  EXPECT_THAT(std::string(sidecore_last_error()),
              ::testing::StartsWith("sidecore_startall: reqs[1]: the persistent request is "
                                    "still active"));
  EXPECT_THAT(std::string(sidecore_last_error()), HasSubstr("reqs[0] was started, the rest not"));
  sidecore_status st;
  ASSERT_EQ(sidecore_recv(&got[0], sizeof x, from, 41, SIDECORE_COMM_WORLD, &st), SIDECORE_SUCCESS);
  ASSERT_EQ(sidecore_recv(&got[1], sizeof x, from, 42, SIDECORE_COMM_WORLD, &st), SIDECORE_SUCCESS);
  ASSERT_EQ(sidecore_waitall(2, rs, nullptr), SIDECORE_SUCCESS);
  EXPECT_EQ(sidecore_request_free(&rs[0]), SIDECORE_SUCCESS);
  EXPECT_EQ(sidecore_request_free(&rs[1]), SIDECORE_SUCCESS);
}

}  // namespace
