// Output files (issue 17, "Output files"): the common helper (checked first, written to a temporary file and renamed,
// never through a link, replacing said), the instrumentation's check of its outputs before a run, the trace written
// whole or not at all, and the rings' memory bound (SIDECORE_RING_EVENTS).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "sidecore/common/output_file.hpp"
#include "sidecore/common/profile.hpp"
#include "sidecore/instrument/instrument.hpp"

namespace fs = std::filesystem;
namespace si = sidecore::instrument;
using sidecore::category;

// A fresh directory of this test's own. (Outside the anonymous namespace: a fixture there makes GCC warn
// (-Wsubobject-linkage) when the file is compiled inside another, as a unity build does.)
class OutputFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) /
           ("sidecore_out_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  [[nodiscard]] std::string at(const std::string& name) const { return (dir_ / name).string(); }
  // The files of the directory (temporary files included: they start with a dot).
  [[nodiscard]] std::vector<std::string> listing() const {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(dir_)) names.push_back(e.path().filename().string());
    return names;
  }
  fs::path dir_;
};

namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// What `f` writes on stderr, run with TMPDIR set to `tmpdir` (the variable is given back its value after).
template <typename F>
std::string stderr_with_tmpdir(const std::string& tmpdir, F&& f) {
  const char* old = std::getenv("TMPDIR");
  const std::string kept = old != nullptr ? old : "";
  ::setenv("TMPDIR", tmpdir.c_str(), 1);
  testing::internal::CaptureStderr();
  f();
  std::string err = testing::internal::GetCapturedStderr();
  if (old != nullptr) ::setenv("TMPDIR", kept.c_str(), 1); else ::unsetenv("TMPDIR");
  return err;
}

// The paths of the files in `dir`.
std::vector<std::string> files_in(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) out.push_back(e.path().string());
  return out;
}

// Resident memory of this process in KiB (VmRSS of /proc/self/status).
long resident_kib() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
  }
  return -1;
}

}  // namespace

TEST_F(OutputFiles, UnusablePathsAreNamedWithTheirReason) {
  EXPECT_EQ(sidecore::output_path_problem(at("p.json")), "");
  EXPECT_TRUE(contains(sidecore::output_path_problem(at("missing/p.json")), "does not exist"))
      << sidecore::output_path_problem(at("missing/p.json"));
  EXPECT_TRUE(contains(sidecore::output_path_problem(""), "empty"));
  // A directory nobody can create files in, root included.
  EXPECT_TRUE(
      contains(sidecore::output_path_problem("/proc/sidecore-test.json"), "cannot create a file in directory '/proc'"))
      << sidecore::output_path_problem("/proc/sidecore-test.json");
  fs::create_directory(at("d"));
  EXPECT_TRUE(contains(sidecore::output_path_problem(at("d")), "is a directory"));
  std::ofstream(at("target")) << "keep";
  fs::create_symlink(at("target"), at("link"));
  EXPECT_TRUE(contains(sidecore::output_path_problem(at("link")), "symbolic link"));
  ASSERT_EQ(::mkfifo(at("fifo").c_str(), 0600), 0);
  EXPECT_TRUE(contains(sidecore::output_path_problem(at("fifo")), "not a regular file"));
  // A file as a directory component.
  EXPECT_FALSE(sidecore::output_path_problem(at("target/p.json")).empty());
  // A read-only file, refused also for root (to whom access(W_OK) says yes).
  std::ofstream(at("ro")) << "keep";
  fs::permissions(at("ro"), fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read);
  EXPECT_TRUE(contains(sidecore::output_path_problem(at("ro")), "protected file"))
      << sidecore::output_path_problem(at("ro"));
  EXPECT_EQ(listing().size(), 5u) << "the checks leave no file behind";  // d, target, link, fifo, ro
}

TEST_F(OutputFiles, WriteCreatesThenReplacesWholeFiles) {
  EXPECT_EQ(sidecore::write_output_file(at("p.json"), "one"), sidecore::output_outcome::created);
  EXPECT_EQ(slurp(at("p.json")), "one");
  ::chmod(at("p.json").c_str(), 0640);
  EXPECT_EQ(sidecore::write_output_file(at("p.json"), "two"), sidecore::output_outcome::replaced);
  EXPECT_EQ(slurp(at("p.json")), "two");
  struct stat st {};
  ASSERT_EQ(::stat(at("p.json").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0640u) << "a replaced file keeps its permissions";
  EXPECT_EQ(listing(), std::vector<std::string>{"p.json"}) << "no temporary file left";
}

TEST_F(OutputFiles, NeverThroughASymbolicLink) {
  std::ofstream(at("target")) << "keep";
  fs::create_symlink(at("target"), at("link"));
  try {
    (void)sidecore::write_output_file(at("link"), "new");
    FAIL() << "wrote through a link";
  } catch (const sidecore::output_error& e) {
    EXPECT_EQ(e.path(), at("link"));
    EXPECT_TRUE(contains(e.what(), "symbolic link")) << e.what();
  }
  EXPECT_EQ(slurp(at("target")), "keep");
  EXPECT_TRUE(fs::is_symlink(at("link")));
}

TEST_F(OutputFiles, AnUncommittedFileLeavesTheOldOneAndNoTemporary) {
  std::ofstream(at("p.json")) << "old";
  {
    sidecore::output_file out(at("p.json"));
    std::fputs("half", out.stream());
    EXPECT_EQ(slurp(at("p.json")), "old") << "the content goes to a temporary file";
  }  // destroyed without commit: an error on the way
  EXPECT_EQ(slurp(at("p.json")), "old");
  EXPECT_EQ(listing(), std::vector<std::string>{"p.json"});
}

TEST_F(OutputFiles, SameFileThroughDifferentSpellings) {
  fs::create_directory(at("a"));
  EXPECT_TRUE(sidecore::same_output_file(at("a/p.json"), at("a/../a/./p.json")));
  fs::create_directory_symlink(at("a"), at("b"));
  EXPECT_TRUE(sidecore::same_output_file(at("a/p.json"), at("b/p.json")));
  EXPECT_FALSE(sidecore::same_output_file(at("a/p.json"), at("a/q.json")));
}

TEST_F(OutputFiles, InstrumentationChecksEveryOutputBeforeTheRun) {
  si::config c;
  c.profile = true;
  c.profile_path = at("p.%r.json");
  c.trace = true;
  c.trace_path = at("t.%r.json");
  EXPECT_EQ(si::check_outputs(c, 0, 4), "");
  EXPECT_EQ(listing().size(), 0u) << "checking writes nothing";
  // A missing directory: the message names the setting, its value, the path and the reason.
  c.profile_path = at("nodir/p.%r.json");
  std::string m = si::check_outputs(c, 1, 4);
  EXPECT_TRUE(contains(m, "SIDECORE_PROFILE='" + c.profile_path + "'")) << m;
  EXPECT_TRUE(contains(m, at("nodir/p.1.json"))) << m;
  EXPECT_TRUE(contains(m, "does not exist")) << m;
  // The profile and the trace with one pattern: an error naming both.
  c.profile_path = c.trace_path = at("x.%r.json");
  m = si::check_outputs(c, 2, 4);
  EXPECT_TRUE(contains(m, "SIDECORE_PROFILE='" + c.profile_path + "' and SIDECORE_TRACE='" + c.trace_path + "'")) << m;
  EXPECT_TRUE(contains(m, "same file")) << m;
  // Spelled differently, still one file.
  c.trace_path = (dir_ / "." / "x.%r.json").string();
  EXPECT_TRUE(contains(si::check_outputs(c, 2, 4), "same file"));
  // This rank's trace is another rank's profile, or the job profile.
  c.profile_path = at("p%r.json");
  c.trace_path = at("p1%r.json");
  m = si::check_outputs(c, 0, 12);  // rank 0's trace p10.json is rank 10's profile
  EXPECT_TRUE(contains(m, "rank 10's profile")) << m;
  EXPECT_EQ(si::check_outputs(c, 0, 10), "") << "ten ranks: no rank 10";
  // A link where the profile would go.
  c.trace = false;
  std::ofstream(at("target")) << "keep";
  fs::create_symlink(at("target"), at("p0.json"));
  EXPECT_TRUE(contains(si::check_outputs(c, 0, 1), "symbolic link"));
}

TEST_F(OutputFiles, TraceAppearsOnlyWhole) {
  // Streamed during the run into a temporary file; the trace's own name appears, complete, when it is finished.
  si::config c;
  c.trace = true;
  c.trace_path = at("trace.%r.json");
  si::start(c, 0, 1);
  for (int i = 0; i < 100; ++i) {
    si::call_enter(category::wait);
    si::call_exit(category::wait);
  }
  EXPECT_FALSE(fs::exists(at("trace.0.json")));
  ASSERT_TRUE(si::write_trace());
  si::stop();
  const nlohmann::json t = nlohmann::json::parse(slurp(at("trace.0.json")));
  EXPECT_TRUE(t["traceEvents"].is_array());
  EXPECT_EQ(listing(), std::vector<std::string>{"trace.0.json"});
}

// A file committed after its directory went away (removed during the run, the streamed trace's temporary file with
// it) is copied to the fallback path given to commit(); the error says where it went.
TEST_F(OutputFiles, ACommitWhoseDirectoryWentAwayGoesToTheFallback) {
  fs::create_directories(at("d"));
  sidecore::output_file out(at("d/t.json"));
  std::fputs("streamed content", out.stream());
  fs::remove_all(at("d"));
  try {
    (void)out.commit(at("saved.json"));
    ADD_FAILURE() << "commit into a removed directory succeeded";
  } catch (const sidecore::output_error& e) {
    EXPECT_EQ(e.saved_to(), at("saved.json"));
    EXPECT_TRUE(contains(e.what(), "saved in '" + at("saved.json") + "'")) << e.what();
  }
  EXPECT_EQ(slurp(at("saved.json")), "streamed content");
  EXPECT_EQ(listing(), std::vector<std::string>{"saved.json"});
}

// The trace, streamed into its temporary file during the run, is saved in the temporary directory when its own
// directory is removed before the end.
TEST_F(OutputFiles, ATraceWhoseDirectoryWentAwayIsSavedInTheTemporaryDirectory) {
  fs::create_directories(at("d"));
  fs::create_directories(at("tmp"));
  si::config c;
  c.trace = true;
  c.trace_path = at("d/trace.%r.json");
  si::start(c, 0, 1);
  si::call_enter(category::wait);
  si::call_exit(category::wait);
  fs::remove_all(at("d"));
  const std::string err = stderr_with_tmpdir(at("tmp"), [] { EXPECT_FALSE(si::write_trace()); });
  si::stop();
  EXPECT_TRUE(contains(err, "SIDECORE_TRACE")) << err;
  const std::vector<std::string> saved = files_in(at("tmp"));
  ASSERT_EQ(saved.size(), 1U) << err;
  EXPECT_TRUE(contains(err, "saved in '" + saved[0] + "'")) << err;
  const nlohmann::json t = nlohmann::json::parse(slurp(saved[0]));
  EXPECT_TRUE(t["traceEvents"].is_array());
}

TEST_F(OutputFiles, ProfileWriteReplacesWithAMessage) {
  const std::string path = at("p.json");
  std::ofstream(path) << "old";
  testing::internal::CaptureStderr();
  EXPECT_TRUE(si::write_text_file("SIDECORE_PROFILE", path, "new"));
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_TRUE(contains(err, "replaced the existing file '" + path + "'")) << err;
}

// A profile whose directory went away during the run (or whose disk filled) is not lost: it goes to the temporary
// directory, and the message names the setting, the path, the reason and where the text went.
TEST_F(OutputFiles, AProfileThatCannotBeWrittenIsSavedInTheTemporaryDirectory) {
  fs::create_directories(at("tmp"));
  const auto write = [&] { EXPECT_FALSE(si::write_text_file("SIDECORE_PROFILE", at("nodir/p.json"), "the text")); };
  const std::string err = stderr_with_tmpdir(at("tmp"), write);
  EXPECT_TRUE(contains(err, "SIDECORE_PROFILE")) << err;
  EXPECT_TRUE(contains(err, at("nodir/p.json"))) << err;
  EXPECT_TRUE(contains(err, "does not exist")) << err;
  const std::vector<std::string> saved = files_in(at("tmp"));
  ASSERT_EQ(saved.size(), 1U) << err;
  EXPECT_EQ(slurp(saved[0]), "the text");
  EXPECT_TRUE(contains(err, "saved in '" + saved[0] + "'")) << err;
  EXPECT_TRUE(contains(fs::path(saved[0]).filename().string(), "p.json")) << saved[0];

  // Neither place takes it: the message says the text is lost.
  const std::string err2 = stderr_with_tmpdir(at("gone"), write);
  EXPECT_TRUE(contains(err2, "is lost")) << err2;
}

// Issue 17: SIDECORE_RING_EVENTS=16777216 was accepted and took 811 MB for one rank. Now the ring is capped (a ring
// never holds more than 512 records between folds) and rank 0 says so.
TEST(RingMemory, AHugeRingSettingIsCappedWithAWarning) {
  si::config c;
  c.profile = true;
  c.ring_events = 16777216;
  const long before = resident_kib();
  testing::internal::CaptureStderr();
  si::start(c, 0, 1);
  const std::string err = testing::internal::GetCapturedStderr();
  for (int i = 0; i < 100000; ++i) {
    si::xfer_begin(static_cast<std::uint64_t>(i), 64, 1, si::current_thread_id());
    si::xfer_end(static_cast<std::uint64_t>(i), si::current_thread_id());
  }
  const long grown = resident_kib() - before;
  const sidecore::profile p = si::rank_profile();
  si::stop();
  EXPECT_EQ(p.overlap->total.count, 100000u) << "no event lost";
  EXPECT_LT(grown, 64 * 1024) << "resident memory grew by " << grown << " KiB";
  EXPECT_TRUE(contains(err, "SIDECORE_RING_EVENTS=16777216")) << err;
  EXPECT_TRUE(contains(err, "capped at 1024 records")) << err;
}

// Issue 17: 4194304-record rings with 8 threads took 1.6 GB per rank (and ran 100x slower).
TEST(RingMemory, EightThreadsWithHugeRingsStayBounded) {
  si::config c;
  c.profile = true;
  c.ring_events = 4194304;
  const long before = resident_kib();
  testing::internal::CaptureStderr();
  si::start(c, 0, 1);
  (void)testing::internal::GetCapturedStderr();
  std::vector<std::thread> threads;
  for (int k = 0; k < 8; ++k) {
    threads.emplace_back([k] {
      const auto me = si::current_thread_id();
      for (int i = 0; i < 20000; ++i) {
        const std::uint64_t id = (static_cast<std::uint64_t>(k) << 32) | static_cast<std::uint64_t>(i);
        si::call_enter(category::wait);
        si::xfer_begin(id, 64, 1, me);
        si::xfer_end(id, me);
        si::call_exit(category::wait);
      }
    });
  }
  for (auto& t : threads) t.join();
  const long grown = resident_kib() - before;
  const sidecore::profile p = si::rank_profile();
  si::stop();
  EXPECT_EQ(p.overlap->total.count, 8u * 20000u);
  EXPECT_EQ(p[category::wait].count, 8u * 20000u);
  EXPECT_LT(grown, 64 * 1024) << "resident memory grew by " << grown << " KiB";
}
