// The C API (sidecore.h): codes, sc_last_error(), SC_REQUEST_NULL after sc_wait, a copied handle waited twice,
// communicators by id, and bad input mapped to codes.
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
  EXPECT_EQ(line, 0) << "c_api_roundtrip.c:" << line << " failed; sc_last_error: " << sc_last_error();
}

TEST_F(CApi, RoundTripFromCWithTruncation) {
  const int line = sctest_c_api_roundtrip(2010, 1);
  EXPECT_EQ(line, 0) << "c_api_roundtrip.c:" << line << " failed; sc_last_error: " << sc_last_error();
}

TEST_F(CApi, CodesMatchErrcAndHaveNames) {
  EXPECT_EQ(SC_ERR_INVALID_ARGUMENT, static_cast<int>(sidecore::errc::invalid_argument));
  EXPECT_EQ(SC_ERR_NOT_INITIALIZED, static_cast<int>(sidecore::errc::not_initialized));
  EXPECT_EQ(SC_ERR_ALREADY_INITIALIZED, static_cast<int>(sidecore::errc::already_initialized));
  EXPECT_EQ(SC_ERR_INVALID_REQUEST, static_cast<int>(sidecore::errc::invalid_request));
  EXPECT_EQ(SC_ERR_TRUNCATED, static_cast<int>(sidecore::errc::truncated));
  EXPECT_EQ(SC_ERR_CANCELED, static_cast<int>(sidecore::errc::canceled));
  EXPECT_EQ(SC_ERR_BAD_SETTING, static_cast<int>(sidecore::errc::bad_setting));
  EXPECT_EQ(SC_ERR_TOPOLOGY, static_cast<int>(sidecore::errc::topology));
  EXPECT_EQ(SC_ERR_TRANSPORT, static_cast<int>(sidecore::errc::transport));
  EXPECT_EQ(SC_ERR_MPI, static_cast<int>(sidecore::errc::mpi));
  EXPECT_EQ(SC_ERR_PEER_FAILED, static_cast<int>(sidecore::errc::peer_failed));
  EXPECT_STREQ(sc_error_name(SC_ERR_PEER_FAILED), "peer_failed");
  EXPECT_STREQ(sc_error_name(SC_SUCCESS), "success");
  EXPECT_STREQ(sc_error_name(SC_ERR_TRUNCATED), "truncated");
  EXPECT_STREQ(sc_error_name(SC_ERR_INVALID_REQUEST), "invalid_request");
  EXPECT_STREQ(sc_error_name(SC_ERR_INTERNAL), "internal");
  EXPECT_STREQ(sc_error_name(12345), "unknown");
  EXPECT_STREQ(sc_error_name(-1), "unknown");
}

TEST_F(CApi, BadArgumentsGiveCodesAndMessages) {
  char buf[8] = {};
  sc_request r = 777;
  EXPECT_EQ(sc_isend(buf, 8, -2, 1, SC_COMM_WORLD, &r), SC_ERR_INVALID_ARGUMENT);
  EXPECT_THAT(std::string(sc_last_error()), HasSubstr("-2"));
  EXPECT_EQ(r, 777u) << "outputs are set only on success";
  EXPECT_EQ(sc_isend(buf, -5, right(rank, size), 1, SC_COMM_WORLD, &r), SC_ERR_INVALID_ARGUMENT);
  EXPECT_THAT(std::string(sc_last_error()), HasSubstr("-5"));
  EXPECT_EQ(sc_irecv(nullptr, 8, left(rank, size), 1, SC_COMM_WORLD, &r), SC_ERR_INVALID_ARGUMENT);
  EXPECT_THAT(std::string(sc_last_error()), HasSubstr("null"));
  EXPECT_EQ(sc_irecv(buf, 8, left(rank, size), sidecore::tag_max + 1, SC_COMM_WORLD, &r), SC_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(sc_isend(buf, 8, right(rank, size), 1, SC_COMM_WORLD, nullptr), SC_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(sc_isend(buf, 8, right(rank, size), 1, 12345, &r), SC_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(sc_isend(buf, 8, right(rank, size), 1, -1, &r), SC_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(sc_rank(nullptr), SC_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(sc_wait(nullptr, nullptr), SC_ERR_INVALID_ARGUMENT);
  sc_request none = SC_REQUEST_NULL;
  EXPECT_EQ(sc_wait(&none, nullptr), SC_ERR_INVALID_REQUEST);
  EXPECT_THAT(std::string(sc_last_error()), HasSubstr("never started"));
  // A made-up handle is not a request.
  sc_request junk = 0xdeadbeef00000042ULL;  // bit 63 set: what an inline send handle looks like in C++
  EXPECT_EQ(sc_wait(&junk, nullptr), SC_ERR_INVALID_REQUEST);
  EXPECT_THAT(std::string(sc_last_error()), HasSubstr("sc_wait: the handle names no request: it is a value sidecore"));
  junk = 0x5eadbeef00000042ULL;
  EXPECT_EQ(sc_wait(&junk, nullptr), SC_ERR_INVALID_REQUEST);
  sc_request reqs[2] = {SC_REQUEST_NULL, SC_REQUEST_NULL};
  EXPECT_EQ(sc_waitall(-1, reqs, nullptr), SC_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(sc_waitall(2, nullptr, nullptr), SC_ERR_INVALID_ARGUMENT);
  int index = 5;
  EXPECT_EQ(sc_waitany(2, reqs, &index, nullptr), SC_SUCCESS);
  EXPECT_EQ(index, -1) << "no active request";
  EXPECT_EQ(sc_waitall(2, reqs, nullptr), SC_SUCCESS);
  // Values beyond the byte the C++ enums hold are named as given (they were narrowed to 255 first).
  double d[2] = {1, 2}, e[2] = {};
  EXPECT_EQ(sc_allreduce(d, e, 2, 256 + SC_INT64, SC_SUM, SC_COMM_WORLD), SC_ERR_INVALID_ARGUMENT);
  EXPECT_THAT(std::string(sc_last_error()), HasSubstr("dtype 258 is not an sc_dtype"));
  EXPECT_EQ(sc_bcast(d, 2, -1, 0, SC_COMM_WORLD), SC_ERR_INVALID_ARGUMENT);
  EXPECT_THAT(std::string(sc_last_error()), HasSubstr("dtype -1 is not an sc_dtype"));
  // Inside the byte but no sc_dtype or sc_op: the same words (not the C++ API's names).
  EXPECT_EQ(sc_bcast(d, 2, 77, 0, SC_COMM_WORLD), SC_ERR_INVALID_ARGUMENT);
  EXPECT_THAT(std::string(sc_last_error()), HasSubstr("dtype 77 is not an sc_dtype; accepted: SC_BYTE (0), SC_INT32"));
  EXPECT_EQ(sc_allreduce(d, e, 2, SC_DOUBLE, 50, SC_COMM_WORLD), SC_ERR_INVALID_ARGUMENT);
  EXPECT_THAT(std::string(sc_last_error()), HasSubstr("op 50 is neither a built-in sc_op"));
  EXPECT_EQ(sc_allreduce(d, e, 2, SC_DOUBLE, -1, SC_COMM_WORLD), SC_ERR_INVALID_ARGUMENT);
  EXPECT_THAT(std::string(sc_last_error()), HasSubstr("op -1 is neither"));
  // A refusal before the C++ API sets the message too (it kept the previous call's).
  EXPECT_EQ(sc_region_begin(nullptr), SC_ERR_INVALID_ARGUMENT);
  EXPECT_THAT(std::string(sc_last_error()), HasSubstr("sc_region_begin: name is NULL"));
  // A success clears the thread's last error.
  int rk = -1;
  EXPECT_EQ(sc_rank(&rk), SC_SUCCESS);
  EXPECT_STREQ(sc_last_error(), "");
  EXPECT_EQ(rk, rank);
}

TEST_F(CApi, LastErrorIsPerThread) {
  char buf[8] = {};
  sc_request r = SC_REQUEST_NULL;
  ASSERT_EQ(sc_isend(buf, 8, -7, 1, SC_COMM_WORLD, &r), SC_ERR_INVALID_ARGUMENT);
  std::string other;
  std::thread t([&] { other = sc_last_error(); });
  t.join();
  EXPECT_EQ(other, "") << "another thread sees this thread's error";
  EXPECT_THAT(std::string(sc_last_error()), HasSubstr("-7"));
}

// A small send completes inside sidecore::isend without a slot (an inline handle); the C API keeps a slot for
// its sends, so that a copy of a send handle waited on after the original is still an error.
TEST_F(CApi, CopiedSendHandleWaitedTwice) {
  std::uint64_t out = 6, in = 0;
  sc_request s = SC_REQUEST_NULL, r = SC_REQUEST_NULL;
  ASSERT_EQ(sc_irecv(&in, 8, left(rank, size), 2150, SC_COMM_WORLD, &r), SC_SUCCESS);
  ASSERT_EQ(sc_isend(&out, 8, right(rank, size), 2150, SC_COMM_WORLD, &s), SC_SUCCESS);
  const sc_request copy = s;
  sc_status st{};
  ASSERT_EQ(sc_wait(&s, &st), SC_SUCCESS);
  EXPECT_EQ(st.bytes, 8u);
  EXPECT_EQ(s, static_cast<sc_request>(SC_REQUEST_NULL));
  sc_request again = copy;
  EXPECT_EQ(sc_wait(&again, nullptr), SC_ERR_INVALID_REQUEST);
  EXPECT_THAT(std::string(sc_last_error()), HasSubstr("already"));
  ASSERT_EQ(sc_wait(&r, nullptr), SC_SUCCESS);
  EXPECT_EQ(in, 6u);
}

TEST_F(CApi, CopiedHandleWaitedTwiceAndTestWaitany) {
  std::uint64_t out = 5, in = 0;
  sc_request r = SC_REQUEST_NULL;
  ASSERT_EQ(sc_irecv(&in, 8, left(rank, size), 2100, SC_COMM_WORLD, &r), SC_SUCCESS);
  const sc_request copy = r;
  sc_request s = SC_REQUEST_NULL;
  ASSERT_EQ(sc_isend(&out, 8, right(rank, size), 2100, SC_COMM_WORLD, &s), SC_SUCCESS);
  // sc_test until done.
  int flag = 0;
  sc_status st{};
  for (int i = 0; !flag; ++i) {
    ASSERT_EQ(sc_test(&r, &flag, &st), SC_SUCCESS);
    ASSERT_LT(i, 100000000);
  }
  EXPECT_EQ(r, static_cast<sc_request>(SC_REQUEST_NULL));
  EXPECT_EQ(st.source, left(rank, size));
  EXPECT_EQ(st.tag, 2100);
  EXPECT_EQ(st.bytes, 8u);
  sc_request again = copy;
  EXPECT_EQ(sc_wait(&again, nullptr), SC_ERR_INVALID_REQUEST);
  EXPECT_THAT(std::string(sc_last_error()), HasSubstr("already"));
  EXPECT_EQ(sc_test(&again, &flag, nullptr), SC_ERR_INVALID_REQUEST);
  EXPECT_EQ(sc_cancel(&again), SC_ERR_INVALID_REQUEST);
  int index = -5;
  ASSERT_EQ(sc_waitany(1, &s, &index, nullptr), SC_SUCCESS);
  EXPECT_EQ(index, 0);
  EXPECT_EQ(s, static_cast<sc_request>(SC_REQUEST_NULL));
}

// A copy of a consumed handle, or a value sidecore never gave, is refused by the array calls and sc_request_free as
// by sc_wait (SC_ERR_INVALID_REQUEST), and before any request of the array is waited on or freed.
TEST_F(CApi, StaleHandlesAreRefusedByTheArrayCallsAndFree) {
  std::uint64_t out = 7, in = 0, in2 = 0;
  sc_request r = SC_REQUEST_NULL;
  ASSERT_EQ(sc_irecv(&in, 8, left(rank, size), 2300, SC_COMM_WORLD, &r), SC_SUCCESS);
  const sc_request stale = r;
  ASSERT_EQ(sc_send(&out, 8, right(rank, size), 2300, SC_COMM_WORLD), SC_SUCCESS);
  ASSERT_EQ(sc_wait(&r, nullptr), SC_SUCCESS);
  sc_request live = SC_REQUEST_NULL;
  ASSERT_EQ(sc_irecv(&in2, 8, left(rank, size), 2301, SC_COMM_WORLD, &live), SC_SUCCESS);
  sc_request reqs[2] = {live, stale};
  EXPECT_EQ(sc_waitall(2, reqs, nullptr), SC_ERR_INVALID_REQUEST);
  EXPECT_THAT(std::string(sc_last_error()), HasSubstr("reqs[1]"));
  EXPECT_EQ(reqs[0], live) << "a refused sc_waitall waited on nothing";
  EXPECT_EQ(reqs[1], stale);
  int index = -5;
  EXPECT_EQ(sc_waitany(2, reqs, &index, nullptr), SC_ERR_INVALID_REQUEST);
  EXPECT_THAT(std::string(sc_last_error()), HasSubstr("reqs[1]"));
  sc_request junk = 0x5eadbeef00000042ULL;
  EXPECT_EQ(sc_request_free(&junk), SC_ERR_INVALID_REQUEST);
  EXPECT_THAT(std::string(sc_last_error()), HasSubstr("sidecore did not give"));
  sc_request copy = stale;
  EXPECT_EQ(sc_request_free(&copy), SC_ERR_INVALID_REQUEST);
  EXPECT_EQ(reqs[0], live);
  ASSERT_EQ(sc_send(&out, 8, right(rank, size), 2301, SC_COMM_WORLD), SC_SUCCESS);
  ASSERT_EQ(sc_wait(&live, nullptr), SC_SUCCESS) << "the live request survived the refused calls";
  EXPECT_EQ(in2, 7u);
}

// A copy of a handle freed (sc_request_free) while its receive was still pending is a handle of nothing: every call
// refuses it, also after the message arrived, rather than waiting for a completion that is never handed out.
TEST_F(CApi, ACopyOfAHandleFreedWhilePendingIsRefused) {
  std::uint64_t out = 9, in = 0;
  sc_request r = SC_REQUEST_NULL;
  ASSERT_EQ(sc_irecv(&in, 8, left(rank, size), 2350, SC_COMM_WORLD, &r), SC_SUCCESS);
  const sc_request copy = r;
  ASSERT_EQ(sc_request_free(&r), SC_SUCCESS);
  sc_request again = copy;
  EXPECT_EQ(sc_wait(&again, nullptr), SC_ERR_INVALID_REQUEST);
  int flag = -1;
  EXPECT_EQ(sc_test(&again, &flag, nullptr), SC_ERR_INVALID_REQUEST);
  EXPECT_EQ(sc_cancel(&again), SC_ERR_INVALID_REQUEST);
  EXPECT_EQ(sc_waitall(1, &again, nullptr), SC_ERR_INVALID_REQUEST);
  ASSERT_EQ(sc_send(&out, 8, right(rank, size), 2350, SC_COMM_WORLD), SC_SUCCESS);
  ASSERT_EQ(sc_barrier(SC_COMM_WORLD), SC_SUCCESS);  // the freed receive has had its message: still refused
  EXPECT_EQ(sc_wait(&again, nullptr), SC_ERR_INVALID_REQUEST);
  EXPECT_EQ(sc_test(&again, &flag, nullptr), SC_ERR_INVALID_REQUEST);
}

// sc_waitall returns the first failed request's error: sc_last_error is that request's sentence, naming its index,
// not the sentence of a later request that failed another way.
TEST_F(CApi, WaitallSaysTheErrorOfTheRequestItReturns) {
  std::int32_t a[8] = {}, b[8] = {};
  double c[8] = {}, d[8] = {};
  sc_request q[2] = {SC_REQUEST_NULL, SC_REQUEST_NULL};
  ASSERT_EQ(sc_iallreduce(a, b, rank == 0 ? 4 : 8, SC_INT32, SC_SUM, SC_COMM_WORLD, &q[0]), SC_SUCCESS);
  ASSERT_EQ(sc_iallreduce(c, d, 2, rank == 0 ? SC_INT32 : SC_FLOAT, SC_SUM, SC_COMM_WORLD, &q[1]), SC_SUCCESS);
  sc_status st[2]{};
  EXPECT_EQ(sc_waitall(2, q, st), SC_ERR_INVALID_ARGUMENT);
  const std::string err = sc_last_error();
  EXPECT_THAT(err, HasSubstr("sc_waitall: reqs[0]: ")) << err;
  EXPECT_THAT(err, Not(HasSubstr("float32"))) << "reqs[1]'s sentence: " << err;
}

// A request's own error that is not a failure of the transport still gets a sentence in sc_last_error.
TEST_F(CApi, TruncatedAndCanceledSayWhy) {
  std::uint64_t big[2] = {1, 2}, small = 0;
  sc_request r = SC_REQUEST_NULL;
  ASSERT_EQ(sc_irecv(&small, 8, left(rank, size), 2310, SC_COMM_WORLD, &r), SC_SUCCESS);
  ASSERT_EQ(sc_send(big, 16, right(rank, size), 2310, SC_COMM_WORLD), SC_SUCCESS);
  ASSERT_EQ(sc_wait(&r, nullptr), SC_ERR_TRUNCATED);
  EXPECT_THAT(std::string(sc_last_error()), HasSubstr("sc_wait"));
  EXPECT_THAT(std::string(sc_last_error()), HasSubstr("larger than"));
  EXPECT_THAT(std::string(sc_last_error()), HasSubstr("first 8 bytes"));
  ASSERT_EQ(sc_irecv(&small, 8, left(rank, size), 2311, SC_COMM_WORLD, &r), SC_SUCCESS);
  ASSERT_EQ(sc_cancel(&r), SC_SUCCESS);
  sc_request one[1] = {r};
  ASSERT_EQ(sc_waitall(1, one, nullptr), SC_ERR_CANCELED);
  EXPECT_THAT(std::string(sc_last_error()), HasSubstr("sc_waitall: reqs[0]"));
  EXPECT_THAT(std::string(sc_last_error()), HasSubstr("cancel"));
}

// sc_testall and sc_testany, as MPI_Testall and MPI_Testany: nothing is consumed until everything (testall) or one
// request (testany) completed; an array with no active request completes at once with index -1.
TEST_F(CApi, TestallAndTestany) {
  std::uint64_t out = 9, in[2] = {};
  sc_request r[2] = {SC_REQUEST_NULL, SC_REQUEST_NULL};
  ASSERT_EQ(sc_irecv(&in[0], 8, left(rank, size), 2320, SC_COMM_WORLD, &r[0]), SC_SUCCESS);
  ASSERT_EQ(sc_irecv(&in[1], 8, left(rank, size), 2321, SC_COMM_WORLD, &r[1]), SC_SUCCESS);
  int flag = -1, index = -5;
  ASSERT_EQ(sc_testall(2, r, &flag, nullptr), SC_SUCCESS);
  EXPECT_EQ(flag, 0) << "nothing was sent yet";
  ASSERT_EQ(sc_testany(2, r, &index, &flag, nullptr), SC_SUCCESS);
  EXPECT_EQ(flag, 0);
  EXPECT_EQ(index, -1);
  MPI_Barrier(MPI_COMM_WORLD);  // every rank has tested before any sends
  ASSERT_EQ(sc_send(&out, 8, right(rank, size), 2321, SC_COMM_WORLD), SC_SUCCESS);
  sc_status st{};
  for (int i = 0; flag == 0; ++i) {
    ASSERT_EQ(sc_testany(2, r, &index, &flag, &st), SC_SUCCESS);
    ASSERT_LT(i, 100000000);
  }
  EXPECT_EQ(index, 1);
  EXPECT_EQ(st.tag, 2321);
  EXPECT_EQ(r[1], static_cast<sc_request>(SC_REQUEST_NULL));
  EXPECT_NE(r[0], static_cast<sc_request>(SC_REQUEST_NULL));
  MPI_Barrier(MPI_COMM_WORLD);  // every rank's testany saw 2321 before any sends 2320
  ASSERT_EQ(sc_send(&out, 8, right(rank, size), 2320, SC_COMM_WORLD), SC_SUCCESS);
  sc_status sts[2]{};
  flag = 0;
  for (int i = 0; flag == 0; ++i) {
    ASSERT_EQ(sc_testall(2, r, &flag, sts), SC_SUCCESS);
    ASSERT_LT(i, 100000000);
  }
  EXPECT_EQ(sts[0].tag, 2320);
  EXPECT_EQ(r[0], static_cast<sc_request>(SC_REQUEST_NULL));
  EXPECT_EQ(in[0], 9u);
  EXPECT_EQ(in[1], 9u);
  flag = 0;
  ASSERT_EQ(sc_testany(2, r, &index, &flag, nullptr), SC_SUCCESS);
  EXPECT_EQ(flag, 1) << "no active request: complete at once";
  EXPECT_EQ(index, -1);
  EXPECT_EQ(sc_testall(2, r, nullptr, nullptr), SC_ERR_INVALID_ARGUMENT);
  EXPECT_THAT(std::string(sc_last_error()), HasSubstr("sc_testall: flag is NULL"));
  EXPECT_EQ(sc_testany(-1, r, &index, &flag, nullptr), SC_ERR_INVALID_ARGUMENT);
}

TEST_F(CApi, CancelGivesCanceledCode) {
  std::uint64_t in = 0;
  sc_request r = SC_REQUEST_NULL;
  ASSERT_EQ(sc_irecv(&in, 8, left(rank, size), 2200, SC_COMM_WORLD, &r), SC_SUCCESS);
  ASSERT_EQ(sc_cancel(&r), SC_SUCCESS);
  EXPECT_NE(r, static_cast<sc_request>(SC_REQUEST_NULL)) << "a cancelled request must still be waited";
  sc_status st{};
  EXPECT_EQ(sc_wait(&r, &st), SC_ERR_CANCELED);
  EXPECT_EQ(st.error, SC_ERR_CANCELED) << "the cancelled receive (source " << left(rank, size)
                                       << ", tag 2200) got a message: source " << st.source << ", tag " << st.tag
                                       << ", " << st.bytes << " B, value " << in;
  EXPECT_EQ(r, static_cast<sc_request>(SC_REQUEST_NULL));
  MPI_Barrier(MPI_COMM_WORLD);
  // Cancelling a send is refused, and the handle stays usable.
  std::uint64_t out = 1;
  sc_request s = SC_REQUEST_NULL;
  ASSERT_EQ(sc_isend(&out, 8, right(rank, size), 2201, SC_COMM_WORLD, &s), SC_SUCCESS);
  EXPECT_EQ(sc_cancel(&s), SC_ERR_INVALID_ARGUMENT);
  EXPECT_NE(s, static_cast<sc_request>(SC_REQUEST_NULL));
  ASSERT_EQ(sc_recv(&in, 8, left(rank, size), 2201, SC_COMM_WORLD, nullptr), SC_SUCCESS);
  EXPECT_EQ(sc_wait(&s, nullptr), SC_SUCCESS);
}

TEST_F(CApi, Communicators) {
  sc_comm d = -5;
  ASSERT_EQ(sc_comm_dup(SC_COMM_WORLD, &d), SC_SUCCESS);
  EXPECT_GT(d, 0);
  const sc_comm copy = d;
  std::uint64_t out = 3, in = 0;
  sc_request s = SC_REQUEST_NULL;
  ASSERT_EQ(sc_isend(&out, 8, right(rank, size), 1, d, &s), SC_SUCCESS);
  sc_status st{};
  ASSERT_EQ(sc_recv(&in, 8, left(rank, size), 1, d, &st), SC_SUCCESS);
  EXPECT_EQ(in, 3u);
  ASSERT_EQ(sc_wait(&s, nullptr), SC_SUCCESS);
  sc_comm half = -5;
  ASSERT_EQ(sc_comm_split(d, rank % 2, rank, &half), SC_SUCCESS);
  ASSERT_GT(half, 0);
  int half_rank = -1, half_size = -1, world_rank = -1;
  ASSERT_EQ(sc_comm_rank(half, &half_rank), SC_SUCCESS);
  ASSERT_EQ(sc_comm_size(half, &half_size), SC_SUCCESS);
  EXPECT_EQ(half_rank, rank / 2);
  EXPECT_EQ(half_size, (size - rank % 2 + 1) / 2);
  ASSERT_EQ(sc_comm_rank(SC_COMM_WORLD, &world_rank), SC_SUCCESS);
  EXPECT_EQ(world_rank, rank);
  EXPECT_EQ(sc_comm_size(half, nullptr), SC_ERR_INVALID_ARGUMENT);
  EXPECT_THAT(std::string(sc_last_error()), HasSubstr("sc_comm_size: size is NULL"));
  ASSERT_EQ(sc_comm_free(&half), SC_SUCCESS);
  EXPECT_EQ(half, -1);
  sc_comm none = -5;
  ASSERT_EQ(sc_comm_split(d, rank == 0 ? -1 : 1, 0, &none), SC_SUCCESS);
  if (rank == 0) EXPECT_EQ(none, -1) << "split with color -1 gives -1";
  else ASSERT_EQ(sc_comm_free(&none), SC_SUCCESS);
  ASSERT_EQ(sc_comm_free(&d), SC_SUCCESS);
  EXPECT_EQ(d, -1);
  EXPECT_EQ(sc_isend(&out, 8, right(rank, size), 1, copy, &s), SC_ERR_INVALID_ARGUMENT);
  EXPECT_THAT(std::string(sc_last_error()), HasSubstr("freed"));
  int freed_size = -7;
  EXPECT_EQ(sc_comm_size(copy, &freed_size), SC_ERR_INVALID_ARGUMENT);
  EXPECT_THAT(std::string(sc_last_error()), HasSubstr("freed"));
  EXPECT_EQ(freed_size, -7) << "outputs are set only on success";
  sc_comm world = SC_COMM_WORLD;
  EXPECT_EQ(sc_comm_free(&world), SC_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(sc_comm_dup(SC_COMM_WORLD, nullptr), SC_ERR_INVALID_ARGUMENT);
}

// The collectives from C (c_api_coll.c).
TEST_F(CApi, CollectivesFromC) {
  const int line = sctest_c_api_coll();
  EXPECT_EQ(line, 0) << "c_api_coll.c:" << line << " failed; sc_last_error: " << sc_last_error();
}

// A language binding's buffer sizes (sc_binding_limits): the next call with a buffer refuses a count beyond them,
// names the buffer and its size, and starts nothing; the call after it is unlimited again.
TEST_F(CApi, BindingLimitsRefuseACountBeyondTheBuffer) {
  double x[4] = {1, 2, 3, 4}, y[4] = {};
  sc_request r = 777;
  ASSERT_EQ(sc_binding_limits(16, -1), SC_SUCCESS);
  EXPECT_EQ(sc_isend(x, 32, right(rank, size), 5, SC_COMM_WORLD, &r), SC_ERR_INVALID_ARGUMENT);
  EXPECT_THAT(std::string(sc_last_error()), HasSubstr("sc_isend: bytes=32 reaches beyond buf, which holds 16 bytes"));
  EXPECT_EQ(r, 777u);
  ASSERT_EQ(sc_binding_limits(-1, 24), SC_SUCCESS);
  EXPECT_EQ(sc_recv(y, 32, left(rank, size), 5, SC_COMM_WORLD, nullptr), SC_ERR_INVALID_ARGUMENT);
  EXPECT_THAT(std::string(sc_last_error()), HasSubstr("sc_recv: bytes=32 reaches beyond buf, which holds 24"));
  ASSERT_EQ(sc_binding_limits(32, 8), SC_SUCCESS);
  EXPECT_EQ(sc_allreduce(x, y, 4, SC_DOUBLE, SC_SUM, SC_COMM_WORLD), SC_ERR_INVALID_ARGUMENT);
  // The count is elements of the dtype: the refusal says so, and gives the buffer in bytes and in elements.
  EXPECT_THAT(std::string(sc_last_error()),
              HasSubstr("sc_allreduce: count is 4, which reaches beyond recv: this rank's recv must hold 32 bytes (4 "
                        "elements of SC_DOUBLE) and holds 8 bytes (1 element of SC_DOUBLE); accepted: count 0 .. 1"));
  ASSERT_EQ(sc_binding_limits(8, 32), SC_SUCCESS);
  EXPECT_EQ(sc_allreduce(x, y, 4, SC_DOUBLE, SC_SUM, SC_COMM_WORLD), SC_ERR_INVALID_ARGUMENT);
  EXPECT_THAT(std::string(sc_last_error()),
              HasSubstr("send must hold 32 bytes (4 elements of SC_DOUBLE) and holds 8 bytes (1 element of "
                        "SC_DOUBLE)"));
  // A size that is no whole number of elements, and a rooted kind whose buffer holds a block per rank.
  ASSERT_EQ(sc_binding_limits(-1, 12), SC_SUCCESS);
  EXPECT_EQ(sc_allreduce(x, y, 2, SC_DOUBLE, SC_SUM, SC_COMM_WORLD), SC_ERR_INVALID_ARGUMENT);
  EXPECT_THAT(std::string(sc_last_error()),
              HasSubstr("holds 12 bytes (1 element of SC_DOUBLE and 4 bytes more); accepted: count 0 .. 1"));
  if (size > 1) {
    ASSERT_EQ(sc_binding_limits(-1, 8), SC_SUCCESS);
    EXPECT_EQ(sc_allgather(x, y, 1, SC_DOUBLE, SC_COMM_WORLD), SC_ERR_INVALID_ARGUMENT);
    EXPECT_THAT(std::string(sc_last_error()),
                HasSubstr("accepted: count 0 .. 0 (recv holds a block of count elements for each of the "
                          "communicator's " + std::to_string(size) + " ranks)"));
  }
  // Without a binding's limits: a NULL buffer that must hold the count.
  EXPECT_EQ(sc_allreduce(nullptr, y, 4, SC_DOUBLE, SC_SUM, SC_COMM_WORLD), SC_ERR_INVALID_ARGUMENT);
  EXPECT_THAT(std::string(sc_last_error()),
              HasSubstr("send is null but must hold 32 bytes (4 elements of SC_DOUBLE) on this rank, given its count"));
  // Limits that hold, and a call after a limited one: both run.
  ASSERT_EQ(sc_binding_limits(32, 32), SC_SUCCESS);
  ASSERT_EQ(sc_allreduce(x, y, 4, SC_DOUBLE, SC_SUM, SC_COMM_WORLD), SC_SUCCESS) << sc_last_error();
  EXPECT_EQ(y[3], 4.0 * size);
  // A call refused before it reads its buffers still takes the limits: the call after it is not limited.
  ASSERT_EQ(sc_binding_limits(8, 8), SC_SUCCESS);
  EXPECT_EQ(sc_isend(x, 32, right(rank, size), 5, SC_COMM_WORLD, nullptr), SC_ERR_INVALID_ARGUMENT);
  ASSERT_EQ(sc_allreduce(x, y, 4, SC_DOUBLE, SC_SUM, SC_COMM_WORLD), SC_SUCCESS) << sc_last_error();
  // In place: the send side is not checked, the receive side is.
  ASSERT_EQ(sc_binding_limits(-1, 16), SC_SUCCESS);
  const void* in_place = reinterpret_cast<const void*>(std::uintptr_t{1});  // SC_IN_PLACE, without its C cast
  EXPECT_EQ(sc_allreduce(in_place, y, 4, SC_DOUBLE, SC_SUM, SC_COMM_WORLD), SC_ERR_INVALID_ARGUMENT);
  EXPECT_THAT(std::string(sc_last_error()),
              HasSubstr("holds 16 bytes (2 elements of SC_DOUBLE); accepted: count 0 .. 2"));
  EXPECT_EQ(sc_binding_limits(-2, 0), SC_ERR_INVALID_ARGUMENT);
  EXPECT_THAT(std::string(sc_last_error()), HasSubstr("send_bytes=-2"));
}

// The C API's messages name the C function called and the bad value, in C's words.
TEST_F(CApi, MessagesNameTheCallTheValueAndCWords) {
  std::int32_t x[4] = {1, 2, 3, 4};
  EXPECT_EQ(sc_allreduce(x, x, 4, SC_INT32, SC_SUM, SC_COMM_WORLD), SC_ERR_INVALID_ARGUMENT);
  std::string err = sc_last_error();
  EXPECT_THAT(err, HasSubstr("or SC_IN_PLACE where")) << err;
  EXPECT_THAT(err, Not(HasSubstr("sc_SC_IN_PLACE"))) << err;
  std::int64_t counts[8] = {1, 1, 1, 1, 1, 1, 1, 1}, displs[8] = {0, 1, 2, 3, 4, 5, 6, 7};
  std::int32_t all[8] = {};
  EXPECT_EQ(sc_allgatherv(x, 1, all, counts, displs, SC_INT32, 999), SC_ERR_INVALID_ARGUMENT);
  err = sc_last_error();
  EXPECT_THAT(err, ::testing::StartsWith("sc_allgatherv: ")) << err;
  EXPECT_THAT(err, HasSubstr("999")) << err;
  int r = -1;
  EXPECT_EQ(sc_comm_rank(1 << 20, &r), SC_ERR_INVALID_ARGUMENT);
  EXPECT_THAT(std::string(sc_last_error()), HasSubstr("1048576"));
  EXPECT_EQ(sc_comm_rank(-5, &r), SC_ERR_INVALID_ARGUMENT);
  EXPECT_THAT(std::string(sc_last_error()), HasSubstr("-5"));
}

// One request twice in an array (MPI calls it erroneous): refused before anything is waited on, as a copy of a
// consumed handle is, rather than the second copy taken for an empty request.
TEST_F(CApi, OneRequestTwiceInAnArrayIsRefused) {
  std::uint64_t out = 3, in = 0;
  sc_request r = SC_REQUEST_NULL;
  ASSERT_EQ(sc_irecv(&in, 8, left(rank, size), 2360, SC_COMM_WORLD, &r), SC_SUCCESS);
  sc_request twice[3] = {r, SC_REQUEST_NULL, r};
  EXPECT_EQ(sc_waitall(3, twice, nullptr), SC_ERR_INVALID_REQUEST);
  EXPECT_THAT(std::string(sc_last_error()), HasSubstr("reqs[0] and reqs[2]"));
  int flag = -1;
  EXPECT_EQ(sc_testall(3, twice, &flag, nullptr), SC_ERR_INVALID_REQUEST);
  int index = -5;
  EXPECT_EQ(sc_waitany(3, twice, &index, nullptr), SC_ERR_INVALID_REQUEST);
  EXPECT_EQ(twice[0], r) << "a refused call touched nothing";
  std::vector<sc_request> many(40, SC_REQUEST_NULL);  // a long array: sorted, not compared pairwise
  many[5] = r;
  many[37] = r;
  EXPECT_EQ(sc_waitall(40, many.data(), nullptr), SC_ERR_INVALID_REQUEST);
  EXPECT_THAT(std::string(sc_last_error()), HasSubstr("reqs[5] and reqs[37]"));
  ASSERT_EQ(sc_send(&out, 8, right(rank, size), 2360, SC_COMM_WORLD), SC_SUCCESS);
  ASSERT_EQ(sc_wait(&r, nullptr), SC_SUCCESS);
  EXPECT_EQ(in, 3u);
}

TEST_F(CApi, BindingFailSetsTheMessage) {
  EXPECT_EQ(sc_binding_fail(SC_ERR_INVALID_ARGUMENT, "sc_isend: buf is not contiguous"), SC_ERR_INVALID_ARGUMENT);
  EXPECT_STREQ(sc_last_error(), "sc_isend: buf is not contiguous");
  EXPECT_EQ(sc_binding_fail(SC_SUCCESS, "x"), SC_ERR_INVALID_ARGUMENT);
  EXPECT_THAT(std::string(sc_last_error()), HasSubstr("accepted: an SC_ERR_* code"));
  EXPECT_EQ(sc_binding_fail(SC_ERR_TRUNCATED, nullptr), SC_ERR_INVALID_ARGUMENT);
  EXPECT_THAT(std::string(sc_last_error()), HasSubstr("NULL message"));
  EXPECT_EQ(sc_binding_fail(12345, "x"), SC_ERR_INVALID_ARGUMENT);
}

// SC_IN_PLACE goes only where MPI takes MPI_IN_PLACE: as a point-to-point buffer, sc_isend read at address 1
// (SIGSEGV) and sc_irecv was accepted, to write there later.
TEST_F(CApi, InPlaceIsNoPointToPointBuffer) {
  void* in_place = reinterpret_cast<void*>(std::uintptr_t{1});  // SC_IN_PLACE, without its C cast
  sc_request r = 777;
  EXPECT_EQ(sc_isend(in_place, 4, right(rank, size), 6, SC_COMM_WORLD, &r), SC_ERR_INVALID_ARGUMENT);
  EXPECT_THAT(std::string(sc_last_error()), HasSubstr("sc_isend: buf is SC_IN_PLACE; accepted: a buffer"));
  EXPECT_EQ(sc_irecv(in_place, 4, left(rank, size), 6, SC_COMM_WORLD, &r), SC_ERR_INVALID_ARGUMENT);
  EXPECT_THAT(std::string(sc_last_error()), HasSubstr("sc_irecv: buf is SC_IN_PLACE"));
  EXPECT_EQ(sc_send(in_place, 4, right(rank, size), 6, SC_COMM_WORLD), SC_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(sc_recv(in_place, 4, left(rank, size), 6, SC_COMM_WORLD, nullptr), SC_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(sc_send_init(in_place, 4, right(rank, size), 6, SC_COMM_WORLD, &r), SC_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(sc_recv_init(in_place, 4, left(rank, size), 6, SC_COMM_WORLD, &r), SC_ERR_INVALID_ARGUMENT);
  EXPECT_THAT(std::string(sc_last_error()), HasSubstr("sc_recv_init: buf is SC_IN_PLACE"));
  EXPECT_EQ(r, 777u);
}

// A call that succeeds leaves sc_last_error empty, the regions' too (they kept the last failure's message).
TEST_F(CApi, RegionsClearTheLastError) {
  EXPECT_EQ(sc_region_begin(nullptr), SC_ERR_INVALID_ARGUMENT);
  ASSERT_STRNE(sc_last_error(), "");
  EXPECT_EQ(sc_region_begin("r"), SC_SUCCESS);
  EXPECT_STREQ(sc_last_error(), "");
  EXPECT_EQ(sc_region_begin(nullptr), SC_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(sc_region_end(), SC_SUCCESS);
  EXPECT_STREQ(sc_last_error(), "");
}

// An sc_region_end without an open region of its thread (more ends than begins) is refused, not ignored: the
// regions of the profile would otherwise not be the ones the program meant.
TEST_F(CApi, ARegionEndWithoutABeginIsRefused) {
  EXPECT_EQ(sc_region_end(), SC_ERR_INVALID_ARGUMENT);
  EXPECT_THAT(std::string(sc_last_error()), HasSubstr("sc_region_end: no region is open on this thread"));
  EXPECT_EQ(sc_region_begin("outer"), SC_SUCCESS);
  EXPECT_EQ(sc_region_begin("inner"), SC_SUCCESS);
  EXPECT_EQ(sc_region_end(), SC_SUCCESS);
  EXPECT_EQ(sc_region_end(), SC_SUCCESS);
  EXPECT_EQ(sc_region_end(), SC_ERR_INVALID_ARGUMENT);
  int other = -1;
  EXPECT_EQ(sc_region_begin("here"), SC_SUCCESS);
  std::thread t([&] { other = sc_region_end(); });  // a region is its thread's: another thread has none open
  t.join();
  EXPECT_EQ(other, SC_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(sc_region_end(), SC_SUCCESS);
}

// The C API's messages name its own calls and constants, not the C++ API's (sidecore::isend, world(), in_place,
// any_source), which a C or Fortran program cannot write.
TEST_F(CApi, MessagesSpeakC) {
  char buf[8] = {};
  sc_request r = SC_REQUEST_NULL;
  EXPECT_EQ(sc_isend(buf, 8, size + 3, 1, SC_COMM_WORLD, &r), SC_ERR_INVALID_ARGUMENT);
  EXPECT_THAT(std::string(sc_last_error()), HasSubstr("sc_isend: dest=" + std::to_string(size + 3)));
  EXPECT_EQ(sc_irecv(buf, 8, size + 3, 1, SC_COMM_WORLD, &r), SC_ERR_INVALID_ARGUMENT);
  EXPECT_THAT(std::string(sc_last_error()), HasSubstr("or SC_ANY_SOURCE"));
  EXPECT_EQ(sc_isend(buf, 8, right(rank, size), 12345, 77, &r), SC_ERR_INVALID_ARGUMENT);
  EXPECT_THAT(std::string(sc_last_error()), HasSubstr("pass SC_COMM_WORLD or a live one"));
  sc_comm world = SC_COMM_WORLD;
  EXPECT_EQ(sc_comm_free(&world), SC_ERR_INVALID_ARGUMENT);
  EXPECT_STREQ(sc_last_error(), "sc_comm_free: SC_COMM_WORLD cannot be freed");
  double x = 0;
  const void* in_place = reinterpret_cast<const void*>(std::uintptr_t{1});  // SC_IN_PLACE, without its C cast
  EXPECT_EQ(sc_bcast(const_cast<void*>(in_place), 1, SC_DOUBLE, 0, SC_COMM_WORLD), SC_ERR_INVALID_ARGUMENT);
  EXPECT_THAT(std::string(sc_last_error()), HasSubstr("sc_bcast: recv is SC_IN_PLACE"));
  EXPECT_EQ(sc_allreduce(&x, &x, -1, SC_DOUBLE, SC_SUM, SC_COMM_WORLD), SC_ERR_INVALID_ARGUMENT);
  EXPECT_THAT(std::string(sc_last_error()), ::testing::StartsWith("sc_allreduce: "));
  EXPECT_THAT(std::string(sc_last_error()), ::testing::Not(HasSubstr("sidecore::")));
}

// sc_startall stops at the first request it cannot start: its message names the call, the element and where it
// stopped (the ones before are started).
TEST_F(CApi, StartallNamesTheRequestItStoppedAt) {
  int x = 1, got[2] = {0, 0};
  sc_request rs[2] = {SC_REQUEST_NULL, SC_REQUEST_NULL};
  const int to = right(rank, size), from = left(rank, size);
  ASSERT_EQ(sc_send_init(&x, sizeof x, to, 41, SC_COMM_WORLD, &rs[0]), SC_SUCCESS);
  ASSERT_EQ(sc_send_init(&x, sizeof x, to, 42, SC_COMM_WORLD, &rs[1]), SC_SUCCESS);
  ASSERT_EQ(sc_start(&rs[1]), SC_SUCCESS);
  EXPECT_EQ(sc_startall(2, rs), SC_ERR_INVALID_REQUEST);
  EXPECT_THAT(std::string(sc_last_error()), ::testing::StartsWith("sc_startall: reqs[1]: the persistent request is "
                                                                  "still active"));
  EXPECT_THAT(std::string(sc_last_error()), HasSubstr("reqs[0] was started, the rest not"));
  sc_status st;
  ASSERT_EQ(sc_recv(&got[0], sizeof x, from, 41, SC_COMM_WORLD, &st), SC_SUCCESS);
  ASSERT_EQ(sc_recv(&got[1], sizeof x, from, 42, SC_COMM_WORLD, &st), SC_SUCCESS);
  ASSERT_EQ(sc_waitall(2, rs, nullptr), SC_SUCCESS);
  EXPECT_EQ(sc_request_free(&rs[0]), SC_SUCCESS);
  EXPECT_EQ(sc_request_free(&rs[1]), SC_SUCCESS);
}

}  // namespace
