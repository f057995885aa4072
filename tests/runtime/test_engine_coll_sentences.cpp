// The sentences a failed collective run reports (progress/coll/sentence.hpp), on two local shm engines in this
// process, each the other's rank of a two-rank communicator (coll_pair.hpp). The longest sentences the ranks really
// make come whole on both ranks: a mismatch in every field the signature carries, a message larger than the
// receive expects (in the sentence that the other rank is told), and a transport failure with a long description
// passed on to the other rank. Where a bound must hold (a notice is one eager message: a small SIDECORE_EAGER_MAX
// cuts it), the sentence still names the rank and the collective first, and ends visibly with " (cut)" on a whole
// UTF-8 sequence. Before, fixed buffers of 224, 240 and 320 bytes cut these sentences where they happened to end.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "../coll/signature.hpp"  // through progress/src, this target's include directory
#include "coll_pair.hpp"

namespace {

using namespace sctest;

// Whether `s` is well-formed UTF-8 (no sequence cut short, none out of place).
bool valid_utf8(std::string_view s) {
  for (std::size_t i = 0; i < s.size();) {
    const auto b = static_cast<unsigned char>(s[i]);
    const std::size_t n = b < 0x80 ? 1 : (b >> 5) == 0x6 ? 2 : (b >> 4) == 0xE ? 3 : (b >> 3) == 0x1E ? 4 : 0;
    if (n == 0 || i + n > s.size()) return false;
    for (std::size_t k = 1; k < n; ++k)
      if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return false;
    i += n;
  }
  return true;
}

bool ends_with(std::string_view s, std::string_view end) {
  return s.size() >= end.size() && s.substr(s.size() - end.size()) == end;
}

// A ring allreduce of `count` doubles on both ranks whose rank 0 fails its first receive with the engine's failure
// (its description: `fatal`, then "; the engine stopped while the request was in flight").
coll_pair::outcome receive_fails_with(coll_pair& p, const std::string& fatal) {
  coll::spec s = allreduce_of(16);
  std::vector<double> in0(16, 1.0), out0(16, 0.0), in1(16, 2.0), out1(16, 0.0);
  const std::uint64_t h0 =
      p.x[0]->start(p.c[0], p.c[0]->plan(s, coll::algorithm::ring), {in0.data(), out0.data(), {}}, 0);
  req* r = find_child(p.core(0), [](const req& q) {
    return q.op == req_kind::recv && q.stage.load(std::memory_order_relaxed) == req_stage::posted;
  });
  if (!r) {
    ADD_FAILURE() << "rank 0's first pass posted its receive from rank 1";
    return {};
  }
  std::snprintf(p.core(0).fatal_text, sizeof p.core(0).fatal_text, "%s", fatal.c_str());
  p.core(0).unlink_posted(r);
  p.core(0).fail_request(r, failure::engine, 0);
  const std::uint64_t h1 =
      p.x[1]->start(p.c[1], p.c[1]->plan(s, coll::algorithm::ring), {in1.data(), out1.data(), {}}, 0);
  EXPECT_TRUE(p.finish(h0, h1)) << "rank 1 must not wait for ever for rank 0's second message";
  return p.results(h0, h1);
}

// 85 three-byte characters: as much as the engine's failure text holds, and most cuts fall inside one.
std::string long_fatal() {
  std::string f;
  for (int i = 0; i < 85; ++i) f += "\xE2\x82\xAC";  // U+20AC
  return f;
}

TEST(CollSentences, AMismatchInEveryFieldComesWholeOnBothRanks) {
  coll_pair p;
  ASSERT_NO_FATAL_FAILURE(p.open());
  coll::spec s0 = allreduce_of(100000), s1 = allreduce_of(3);
  s0.op = coll::reduce_op::maxloc;
  s1.type = coll::dtype::float32;
  s1.op = coll::reduce_op::minloc;
  std::vector<double> in0(2 * 100000, 1.0), out0(in0.size());
  std::vector<double> in1(8, 1.0), out1(8);
  const std::uint64_t h0 =
      p.x[0]->start(p.c[0], p.c[0]->plan(s0, coll::algorithm::ring), {in0.data(), out0.data(), {}}, 0);
  const std::uint64_t h1 = p.x[1]->start(p.c[1], p.c[1]->plan(s1, coll::algorithm::recursive_doubling),
                                         {in1.data(), out1.data(), {}}, 0);
  ASSERT_TRUE(p.finish(h0, h1));
  const coll_pair::outcome o = p.results(h0, h1);
  for (int r = 0; r < 2; ++r) {
    const std::string& why = o.why[r];
    EXPECT_EQ(o.c[r].result, req_result::invalid) << why;
    EXPECT_TRUE(ends_with(why, "with the same type, operator, root and count")) << "rank " << r << ": " << why;
    for (const char* part :
         {"called allreduce with type ", ", operator ", ", algorithm ", ", another count (this rank"})
      EXPECT_NE(why.find(part), std::string::npos) << "rank " << r << " (" << part << "): " << why;
  }
  EXPECT_TRUE(p.slots_back());
}

// alltoallv: rank 0 sends rank 1 more than rank 1 expects, and expects a block rank 1 never sends, so that rank 0's
// run ends only with rank 1's notice, whose sentence it reports after rank 1's number.
TEST(CollSentences, ATruncationComesWholeOnTheRankThatIsTold) {
  coll_pair p;
  ASSERT_NO_FATAL_FAILURE(p.open());
  coll::spec s0, s1;
  s0.k = s1.k = coll::kind::alltoallv;
  s0.type = s1.type = coll::dtype::int32;
  s0.send_counts = {0, 123456};
  s0.send_displs = {0, 0};
  s0.recv_counts = {0, 10};
  s0.recv_displs = {0, 0};
  s1.send_counts = {0, 0};
  s1.send_displs = {0, 0};
  s1.recv_counts = {10, 0};
  s1.recv_displs = {0, 0};
  std::vector<std::int32_t> in0(123456, 1), out0(10), in1(1), out1(10);
  const std::uint64_t h0 =
      p.x[0]->start(p.c[0], p.c[0]->plan(s0, coll::algorithm::automatic), {in0.data(), out0.data(), {}}, 0);
  const std::uint64_t h1 =
      p.x[1]->start(p.c[1], p.c[1]->plan(s1, coll::algorithm::automatic), {in1.data(), out1.data(), {}}, 0);
  ASSERT_TRUE(p.finish(h0, h1));
  const coll_pair::outcome o = p.results(h0, h1);
  EXPECT_EQ(o.c[1].result, req_result::invalid) << o.why[1];
  EXPECT_EQ(o.c[0].result, req_result::invalid) << o.why[0];
  const std::string said = "rank 0 sent more than the 40 bytes this rank's alltoallv expects in message ";
  EXPECT_EQ(o.why[1].rfind(said, 0), 0u) << o.why[1];
  EXPECT_EQ(o.why[0].rfind("rank 1 found that the ranks' alltoallv calls differ: " + said, 0), 0u) << o.why[0];
  for (int r = 0; r < 2; ++r)
    EXPECT_TRUE(ends_with(o.why[r], "every rank must pass the same count and segment size")) << o.why[r];
  EXPECT_TRUE(p.slots_back());
}

TEST(CollSentences, ALongTransportFailureComesWholeOnBothRanks) {
  coll_pair p;
  ASSERT_NO_FATAL_FAILURE(p.open());
  const coll_pair::outcome o = receive_fails_with(p, long_fatal());
  const std::string own = "the allreduce's receive from rank 1 failed in the transport: " + long_fatal() +
                          "; the engine stopped while the request was in flight";
  EXPECT_EQ(o.c[0].result, req_result::transport);
  EXPECT_EQ(o.why[0], own);
  EXPECT_EQ(o.c[1].result, req_result::transport);
  EXPECT_EQ(o.why[1], "rank 0 of the communicator could not go on with the allreduce: " + own);
  EXPECT_TRUE(p.slots_back());
}

// A notice is one eager message: with SIDECORE_EAGER_MAX at 129 bytes the failed rank's sentence reaches the other
// rank cut, visibly and on a whole character, after the part that says who failed in what.
TEST(CollSentences, ANoticeCutToTheEagerSizeEndsVisiblyOnAWholeCharacter) {
  coll_pair p(local_config("shm", 129));
  ASSERT_NO_FATAL_FAILURE(p.open());
  const coll_pair::outcome o = receive_fails_with(p, long_fatal());
  EXPECT_EQ(o.c[0].result, req_result::transport);
  EXPECT_TRUE(ends_with(o.why[0], "; the engine stopped while the request was in flight")) << o.why[0];
  const std::string& told = o.why[1];
  EXPECT_EQ(o.c[1].result, req_result::transport);
  EXPECT_EQ(told.rfind("rank 0 of the communicator could not go on with the allreduce: the allreduce's receive from "
                       "rank 1 failed in the transport: \xE2\x82\xAC", 0),
            0u)
      << told;
  EXPECT_TRUE(ends_with(told, "\xE2\x82\xAC (cut)")) << told;
  EXPECT_TRUE(valid_utf8(told)) << told;
  const std::size_t prefix = std::strlen("rank 0 of the communicator could not go on with the allreduce: ");
  EXPECT_LE(told.size() - prefix, 129u) << told;
  EXPECT_TRUE(p.slots_back());
}

// A bcast of value_index pairs that are only moved: they travel as bytes (type byte, count in bytes), as the
// runtime's make_spec passes them; `moved` is the pairs' value type.
coll::spec moved_pairs(coll::dtype moved, std::uint64_t pairs) {
  coll::spec s;
  s.k = coll::kind::bcast;
  s.moved_pairs = moved;
  s.count = pairs * coll::element_size(moved, coll::reduce_op::minloc);
  return s;
}

std::string explained(const coll::spec& mine, const coll::spec& theirs) {
  char out[explain_max];
  explain_signature(out, sizeof out, coll_signature(mine, coll::algorithm::binomial),
                    coll_signature(theirs, coll::algorithm::binomial), mine, 1);
  return out;
}

// The pairs' value type is in the signature: pairs of another type and the same bytes differ (they were the same
// signature), and pairs against plain values are told as pairs, not as bytes ("type byte where this rank has
// float64"). Counts are compared in the callers' elements: 4 pairs and 4 doubles are the same count.
TEST(CollSentences, MovedPairsAreToldByTheirValueType) {
  coll::spec plain;
  plain.k = coll::kind::bcast;
  plain.type = coll::dtype::float64;
  plain.count = 4;
  const coll::spec doubles = moved_pairs(coll::dtype::float64, 4), floats = moved_pairs(coll::dtype::float32, 8),
                   floats4 = moved_pairs(coll::dtype::float32, 4);
  ASSERT_EQ(doubles.count, floats.count) << "the same bytes";
  EXPECT_NE(coll_signature(doubles, coll::algorithm::binomial), coll_signature(floats, coll::algorithm::binomial));
  EXPECT_EQ(explained(doubles, floats),
            "rank 1 called bcast with type {value; int32 index} pairs of float32 where this rank has {value; int32 "
            "index} pairs of float64, another count (this rank has count 4)");
  EXPECT_EQ(explained(plain, floats4),
            "rank 1 called bcast with type {value; int32 index} pairs of float32 where this rank has float64");
  EXPECT_EQ(explained(floats4, plain),
            "rank 1 called bcast with type float64 where this rank has {value; int32 index} pairs of float32");
  // Pairs of one type whose counts differ: the count, in pairs, as before.
  EXPECT_EQ(explained(moved_pairs(coll::dtype::float64, 10), moved_pairs(coll::dtype::float64, 7)),
            "rank 1 called bcast with another count (this rank has count 10, in {value; int32 index} pairs of dtype "
            "float64)");
}

// Equal signatures have nothing to explain: the sentence is empty, as signature.hpp says.
TEST(CollSentences, EqualSignaturesAreExplainedByNothing) {
  const coll::spec pairs = moved_pairs(coll::dtype::float64, 4);
  EXPECT_EQ(explained(pairs, pairs), "");
  coll::spec plain;
  plain.k = coll::kind::allreduce;
  plain.type = coll::dtype::int32;
  plain.count = 3;
  EXPECT_EQ(explained(plain, plain), "");
}

}  // namespace

// The engine's own failure sentence (fail_engine, which every request in flight then reports) holds the caller's
// step and the provider's name and error text, none of them bounded: too long, it is cut on a whole character and
// ends with " (cut)", as the collectives' sentences are.
TEST(EngineFailureSentence, ALongOneIsCutVisiblyOnAWholeCharacter) {
  coll_pair p;
  ASSERT_NO_FATAL_FAILURE(p.open());
  const std::string what = "fi_cq_read " + long_fatal() + long_fatal();
  p.core(0).fail_engine(what.c_str(), -5);
  const std::string_view text = p.core(0).fatal_text;
  EXPECT_LT(text.size(), sizeof p.core(0).fatal_text);
  EXPECT_TRUE(text.rfind("fi_cq_read ", 0) == 0) << text;
  EXPECT_TRUE(ends_with(text, " (cut)")) << text;
  EXPECT_TRUE(valid_utf8(text)) << text;
}
