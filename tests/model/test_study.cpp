// The parts of `sidecore study` (model/tools/study/): the plan and its launches, medians, the comparison on
// known profiles, the record's round trip, resuming, the launcher and the error messages.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model_test_util.hpp"
#include "study/compare.hpp"
#include "study/config.hpp"
#include "study/launcher.hpp"
#include "study/plan.hpp"
#include "study/record.hpp"
#include "study/report.hpp"

namespace {

using namespace sidecore::tools::study;
using sctest::error_of;
using sidecore::category;
using sidecore::profile;

config two_cases() {
  config c;
  c.ranks = 2;
  c.reps = 2;
  c.inputs = {"--size 4", "--size 6 --steps 3"};
  c.alphas = {0.5, 1};
  c.alpha_option = "--alpha";
  c.app = {"./md", "--check"};
  return c;
}

TEST(StudyPlan, RepetitionMajorWithEveryKind) {
  const auto plan = make_plan(two_cases());
  ASSERT_EQ(plan.size(), 2u * 2u * 5u);  // cases x reps x (calibration, scaling, dedicated, 2 alphas)
  EXPECT_EQ(plan[0].id, "c0.calibration.r0");
  EXPECT_EQ(plan[1].id, "c0.scaling.r0");
  EXPECT_EQ(plan[2].id, "c0.dedicated.r0");
  EXPECT_EQ(plan[3].id, "c0.alpha-0.5.r0");
  EXPECT_EQ(plan[4].id, "c0.alpha-1.r0");
  EXPECT_EQ(plan[5].id, "c0.calibration.r1");
  EXPECT_EQ(plan[10].case_index, 1);
  EXPECT_EQ(plan[3].kind, run_kind::alpha);
  EXPECT_DOUBLE_EQ(plan[3].alpha, 0.5);
}

TEST(StudyPlan, LaunchSetsModeThreadsProfileAndAlpha) {
  config c = two_cases();
  c.mpiexec = "mpiexec -bind-to core:4";
  const auto plan = make_plan(c);
  const launch cal = make_launch(c, plan[0], 4, "/o/prof.%r.json");
  EXPECT_EQ(describe(cal),
            "env OMP_NUM_THREADS=4 OMP_PLACES=cores OMP_PROC_BIND=close SIDECORE_PROFILE=/o/prof.%r.json "
            "SIDECORE_PROGRESS=off mpiexec -bind-to core:4 -n 2 ./md --check --size 4");
  // Words with blanks or shell characters are quoted: the printed command runs as it was run when pasted.
  config q = two_cases();
  q.app = {"./app", "a b", "it's", "$HOME"};
  q.inputs = {};
  const launch quoted = make_launch(q, make_plan(q)[0], 4, "/o dir/prof.%r.json");
  EXPECT_EQ(describe(quoted),
            "env OMP_NUM_THREADS=4 OMP_PLACES=cores OMP_PROC_BIND=close 'SIDECORE_PROFILE=/o dir/prof.%r.json' "
            "SIDECORE_PROGRESS=off mpiexec -n 2 ./app 'a b' 'it'\\''s' '$HOME'");
  EXPECT_EQ(*make_launch(c, plan[1], 4, "p").env.at("OMP_NUM_THREADS"), "3");
  const launch ded = make_launch(c, plan[2], 4, "p");
  EXPECT_FALSE(ded.env.at("OMP_NUM_THREADS").has_value());  // sidecore fences OpenMP off the progress core itself
  EXPECT_FALSE(ded.env.contains("OMP_PLACES"));               // ... and binds each thread to one application core
  EXPECT_EQ(*ded.env.at("SIDECORE_PROGRESS"), "core");
  const launch al = make_launch(c, plan[3], 4, "p");
  ASSERT_GE(al.argv.size(), 2u);
  EXPECT_EQ(al.argv[al.argv.size() - 2], "--alpha");
  EXPECT_EQ(al.argv.back(), "0.5");
  // Unknown core count: the calibration leaves OpenMP its default, every core of the rank's cpuset.
  EXPECT_FALSE(make_launch(c, plan[0], 0, "p").env.at("OMP_NUM_THREADS").has_value());
  c.preload = true;
  c.preload_library = "/lib/libsidecore-pmpi.so";
  ::unsetenv("LD_PRELOAD");
  EXPECT_EQ(*make_launch(c, plan[0], 4, "p").env.at("LD_PRELOAD"), "/lib/libsidecore-pmpi.so");
}

// Alpha points that differ beyond 6 digits are distinct runs, each given to the app exactly as the user wrote it.
TEST(StudyPlan, AlphaPointsKeepEveryDigit) {
  config c = two_cases();
  c.alphas = {0.1234567, 0.1234568, 0.1, 0.10000001};
  std::vector<std::string> ids, args;
  for (const run_spec& r : make_plan(c))
    if (r.kind == run_kind::alpha && r.case_index == 0 && r.rep == 0) {
      ids.push_back(r.id);
      args.push_back(make_launch(c, r, 4, "p").argv.back());
    }
  EXPECT_EQ(args, (std::vector<std::string>{"0.1234567", "0.1234568", "0.1", "0.10000001"}));
  ASSERT_EQ(ids.size(), 4u);
  EXPECT_EQ(std::set<std::string>(ids.begin(), ids.end()).size(), 4u) << ids[0] << " " << ids[1] << " " << ids[3];
}

// The scaling table compares computations placed alike: one thread per core in every run.
TEST(StudyPlan, ModeOffRunsBindOneThreadPerCoreUnlessTheUserPlacesThreads) {
  config c = two_cases();
  const auto plan = make_plan(c);
  ::unsetenv("OMP_PLACES");
  ::unsetenv("OMP_PROC_BIND");
  const launch scaling = make_launch(c, plan[1], 4, "p");
  EXPECT_EQ(*scaling.env.at("OMP_PLACES"), "cores");
  EXPECT_EQ(*scaling.env.at("OMP_PROC_BIND"), "close");
  EXPECT_EQ(*make_launch(c, plan[0], 0, "p").env.at("OMP_PLACES"), "cores");  // the first calibration too
  c.preload = true;  // the PMPI library narrows the process to the application cores: `cores` are those
  EXPECT_EQ(*make_launch(c, plan[2], 4, "p").env.at("OMP_PLACES"), "cores");
  ::setenv("OMP_PROC_BIND", "spread", 1);
  EXPECT_FALSE(make_launch(c, plan[0], 4, "p").env.contains("OMP_PLACES"));
  EXPECT_FALSE(make_launch(c, plan[1], 4, "p").env.contains("OMP_PROC_BIND"));
  ::unsetenv("OMP_PROC_BIND");
}

TEST(StudyMedian, OddEvenAndIndex) {
  EXPECT_FALSE(median({}).has_value());
  EXPECT_DOUBLE_EQ(*median({3, 1, 2}), 2);
  EXPECT_DOUBLE_EQ(*median({4, 1, 3, 2}), 2.5);
  EXPECT_EQ(median_index({5, 1, 3}), 2u);
  EXPECT_EQ(median_index({4, 1, 3, 2}), 3u);  // the lower middle: 2
  EXPECT_DOUBLE_EQ(*middle({4, 1, 3, 2}), 2);
  EXPECT_FALSE(middle({}).has_value());
  EXPECT_THROW((void)median_index({}), std::invalid_argument);
}

TEST(StudyConfig, ErrorsNameOptionValueAndAccepted) {
  config c = two_cases();
  c.app.clear();
  EXPECT_NE(error_of([&] { validate(c); }).find("APP: no application given: put it after --"), std::string::npos);
  c = two_cases();
  c.reps = 0;
  EXPECT_EQ(error_of([&] { validate(c); }), "--reps: '0' is not accepted; accepted: an integer in [1 - 99]");
  c = two_cases();
  c.ranks = 0;
  EXPECT_EQ(error_of([&] { validate(c); }),
            "-n: '0' is not accepted; accepted: an integer in [1 - 65536] (the rank count)");
  c.ranks = 99999;
  EXPECT_EQ(error_of([&] { validate(c); }),
            "-n: '99999' is not accepted; accepted: an integer in [1 - 65536] (the rank count)");
  c.ranks = sidecore::tools::study::max_study_ranks;
  EXPECT_EQ(error_of([&] { validate(c); }), "(no error)");
  c = two_cases();
  c.alphas = {1.5};
  EXPECT_EQ(error_of([&] { validate(c); }),
            "--alpha: '1.5' is not accepted; accepted: numbers in [0, 1] (a list: 0.25,0.5,1)");
  c = two_cases();
  c.alphas = {0.5, 0.5};
  EXPECT_EQ(error_of([&] { validate(c); }),
            "--alpha: '0.5' is not accepted; accepted: each alpha point once (0.5 is given twice)");
  c = two_cases();
  c.alpha_option.clear();
  EXPECT_NE(error_of([&] {
              validate(c);
            }).find("--alpha: '0.5,1' is not accepted; accepted: --alpha together with --alpha-option=OPTION"),
            std::string::npos);
  c = two_cases();
  c.alpha_option = "alpha";
  EXPECT_NE(error_of([&] {
              validate(c);
            }).find("--alpha-option: 'alpha' is not accepted; accepted: an option name starting with '-'"),
            std::string::npos);
  c = two_cases();
  c.mpiexec = "  ";
  EXPECT_NE(error_of([&] { validate(c); }).find("--mpiexec: '  ' is not accepted; accepted: a launcher command"),
            std::string::npos);
  c = two_cases();
  c.cores_per_rank = 0;
  EXPECT_EQ(error_of([&] { validate(c); }),
            "--cores-per-rank: '0' is not accepted; accepted: an integer >= 2 (a dedicated core needs one core for "
            "progress and one to compute)");
  // One core per rank leaves no core to dedicate: refused before any run, not after the calibration.
  c.cores_per_rank = 1;
  EXPECT_NE(error_of([&] { validate(c); }).find("--cores-per-rank: '1' is not accepted; accepted: an integer >= 2"),
            std::string::npos);
  c = two_cases();
  c.host_cores = 0;
  EXPECT_EQ(error_of([&] { validate(c); }), "--host-cores: '0' is not accepted; accepted: an integer >= 1");
  // A case given twice would run twice and be compared with itself.
  c = two_cases();
  c.inputs = {"--size 4", "--size 6", "--size 4"};
  EXPECT_EQ(error_of([&] { validate(c); }),
            "--inputs: '--size 4' is not accepted; accepted: each case once ('--size 4' is given twice)");
  // The PMPI library is what --preload puts in LD_PRELOAD: given alone it would be ignored.
  c = two_cases();
  c.preload_library = "/opt/lib/libsidecore-pmpi.so";
  EXPECT_EQ(error_of([&] { validate(c); }),
            "--pmpi-library: '/opt/lib/libsidecore-pmpi.so' is not accepted; accepted: --pmpi-library together with "
            "--preload (which puts it in LD_PRELOAD), or neither");
  c.preload = true;
  EXPECT_EQ(error_of([&] { validate(c); }), "(no error)");
  EXPECT_EQ(parse_alpha_list("0.25,0.5,1"), (std::vector<double>{0.25, 0.5, 1}));
  EXPECT_EQ(error_of([] { (void)parse_alpha_list("0.25,x"); }),
            "--alpha: 'x' is not accepted; accepted: numbers in [0, 1] (a list: 0.25,0.5,1)");
  // An empty item is quoted as '': the user sees that an item is missing, not which.
  EXPECT_EQ(error_of([] { (void)parse_alpha_list("0.25,"); }),
            "--alpha: '' is not accepted; accepted: numbers in [0, 1] (a list: 0.25,0.5,1)");
  EXPECT_EQ(split_words(" a\tb  c "), (std::vector<std::string>{"a", "b", "c"}));
}

run_record done_run(const run_spec& s, double total, double comp, int n_core, std::uint64_t blocking) {
  run_record r;
  r.spec = s;
  r.command = "env SIDECORE_PROGRESS=off mpiexec -n 1 ./app";
  r.ok = true;
  r.profile = "runs/" + s.id + "/prof.job.json";
  r.t_total_s = total;
  r.t_comp_s = comp;
  r.n_core = n_core;
  r.provider = "shm";
  r.blocking_calls = blocking;
  return r;
}

TEST(StudyRecord, RoundTripKeepsEveryField) {
  study_record rec;
  rec.settings = two_cases();
  rec.settings.cores_per_rank = 4;
  rec.settings.preload = true;
  rec.settings.preload_library = "/x/libsidecore-pmpi.so";
  const auto plan = make_plan(rec.settings);
  rec.runs.push_back(done_run(plan[0], 1.5, 1.25, 4, 476));
  rec.runs.back().load_before = 1.25;
  run_record failed;
  failed.spec = plan[1];
  failed.command = "env X=1 mpiexec";
  failed.exit_status = 137;
  failed.error = "exit status 137";
  failed.stderr_tail = "line 1\nline \"2\"";
  rec.runs.push_back(failed);
  const nlohmann::json comparison = nlohmann::json::array();
  const study_record back = parse_record(to_json_text(rec, &comparison), "study.json");
  EXPECT_EQ(back.settings.app, rec.settings.app);
  EXPECT_EQ(back.settings.inputs, rec.settings.inputs);
  EXPECT_EQ(back.settings.alphas, rec.settings.alphas);
  EXPECT_EQ(back.settings.cores_per_rank, 4);
  EXPECT_EQ(back.settings.preload_library, "/x/libsidecore-pmpi.so");
  ASSERT_EQ(back.runs.size(), 2u);
  EXPECT_EQ(back.runs[0].spec.id, "c0.calibration.r0");
  EXPECT_EQ(back.runs[0].blocking_calls, 476u);
  EXPECT_DOUBLE_EQ(back.runs[0].t_comp_s, 1.25);
  EXPECT_DOUBLE_EQ(back.runs[0].load_before, 1.25);
  EXPECT_FALSE(back.runs[1].ok);
  EXPECT_EQ(back.runs[1].stderr_tail, "line 1\nline \"2\"");
  EXPECT_EQ(back.runs[1].spec.kind, run_kind::scaling);
  ASSERT_NE(back.done("c0.calibration.r0"), nullptr);
  EXPECT_EQ(back.done("c0.scaling.r0"), nullptr);  // failed runs are run again on --resume
}

// Text that is not UTF-8: an app's stderr is saved with U+FFFD for the bad bytes (the record is JSON; it threw and the
// study lost its runs); settings that go into the record as they are (the app's arguments, the cases, the folder,
// the launcher) are refused, naming the option and the value.
TEST(StudyRecord, TextThatIsNotUtf8) {
  study_record rec;
  rec.settings = two_cases();
  run_record failed;
  failed.spec = make_plan(rec.settings)[0];
  failed.error = "exit status 1";
  failed.stderr_tail = "caf\xe9";
  rec.runs.push_back(failed);
  const study_record back = parse_record(to_json_text(rec, nullptr), "study.json");
  EXPECT_EQ(back.runs.at(0).stderr_tail, "caf\xef\xbf\xbd");
  config c = two_cases();
  c.app = {"./md", "data\xe9"};
  EXPECT_EQ(error_of([&] { validate(c); }),
            "APP: 'data\\xe9' is not accepted; accepted: UTF-8 text (the study record is JSON): argument 1 of the "
            "app has a byte that is not UTF-8");
  c = two_cases();
  c.inputs = {"--size \xff"};
  EXPECT_NE(error_of([&] { validate(c); }).find("--inputs: '--size \\xff' is not accepted; accepted: UTF-8 text"),
            std::string::npos);
  c = two_cases();
  c.out_dir = "out\xe9";
  EXPECT_NE(error_of([&] { validate(c); }).find("--out: 'out\\xe9' is not accepted"), std::string::npos);
}

// --resume keeps a run of the record only when it is a run of this study's plan as the plan has it, once, and its
// profile reads: an edited record (a run given another kind, an id outside the plan, a run twice) or a damaged
// profile counted runs that were not made, or kept a run the model then refused on every resume.
TEST(StudyRecord, ResumeKeepsOnlyThePlansRunsWithAProfileThatReads) {
  const config c = two_cases();
  const auto plan = make_plan(c);
  std::vector<run_record> old;
  old.push_back(done_run(plan[0], 1, 1, 4, 10));
  old.push_back(done_run(plan[0], 1, 1, 4, 10));  // twice
  run_record other_kind = done_run(plan[2], 1, 1, 4, 10);
  other_kind.spec.kind = run_kind::calibration;
  old.push_back(other_kind);
  run_spec outside = plan[1];
  outside.id = "../../escape";
  old.push_back(done_run(outside, 1, 1, 4, 10));
  old.push_back(done_run(plan[3], 1, 1, 4, 10));  // its profile does not read
  old.push_back(done_run(plan[1], 1, 1, 4, 10));
  run_record failed = done_run(plan[4], 1, 1, 4, 10);
  failed.ok = false;
  old.push_back(failed);
  std::vector<std::string> dropped;
  const std::vector<run_record> kept = runs_to_resume(
      std::move(old), plan,
      [&](const run_record& r) { return r.spec.id == plan[3].id ? std::string("malformed JSON at byte 6") : ""; },
      dropped);
  ASSERT_EQ(kept.size(), 2U);
  EXPECT_EQ(kept[0].spec.id, plan[0].id);
  EXPECT_EQ(kept[1].spec.id, plan[1].id);
  ASSERT_EQ(dropped.size(), 4U);
  EXPECT_NE(dropped[0].find(plan[0].id + ": given twice"), std::string::npos) << dropped[0];
  EXPECT_NE(dropped[1].find(plan[2].id + ": the record says calibration where the plan has dedicated"),
            std::string::npos) << dropped[1];
  EXPECT_NE(dropped[2].find("../../escape: not a run of this study"), std::string::npos) << dropped[2];
  EXPECT_NE(dropped[3].find(plan[3].id + ": its profile: malformed JSON at byte 6"), std::string::npos) << dropped[3];
}

TEST(StudyRecord, BadRecordsNamed) {
  EXPECT_NE(error_of([] { (void)parse_record("{", "s.json"); }).find("s.json: malformed JSON at byte "),
            std::string::npos);
  EXPECT_NE(error_of([] { (void)parse_record(R"({"schema": 1e999})", "s.json"); }).find("1e999"), std::string::npos);
  EXPECT_EQ(error_of([] { (void)parse_record(R"({"schema":"x"})", "s.json"); }),
            "s.json: schema: \"x\": a study record has schema \"sidecore-study\"");
  EXPECT_EQ(error_of([] { (void)parse_record(R"({"schema":"sidecore-study","schema_version":2})", "s.json"); }),
            "s.json: schema_version: 2: this sidecore reads version 1");
  study_record rec;
  rec.settings = two_cases();
  auto j = nlohmann::json::parse(to_json_text(rec, nullptr));
  j["settings"]["ranks"] = "two";
  EXPECT_EQ(error_of([&] { (void)parse_record(j.dump(), "s.json"); }),
            "s.json: settings.ranks: has the wrong type: \"two\"");
  // Numbers that are not integers of the field's type (found by fuzz_study_record: nlohmann's conversion of
  // 27777777777777777777, read as a float, to int is undefined).
  EXPECT_EQ(error_of([] { (void)parse_record(R"({"schema":"sidecore-study","schema_version":27777777777777777777})",
                                             "s.json"); }),
            "s.json: schema_version: 2.777777777777778e+19 is not accepted; accepted: an integer in "
            "-2147483648..2147483647");
  j["settings"]["ranks"] = 1e300;
  EXPECT_EQ(error_of([&] { (void)parse_record(j.dump(), "s.json"); }),
            "s.json: settings.ranks: 1e+300 is not accepted; accepted: an integer in -2147483648..2147483647");
  j["settings"]["ranks"] = 2.5;
  EXPECT_EQ(error_of([&] { (void)parse_record(j.dump(), "s.json"); }),
            "s.json: settings.ranks: 2.5 is not accepted; accepted: an integer in -2147483648..2147483647");
  j["settings"]["ranks"] = std::uint64_t{1} << 40;
  EXPECT_EQ(error_of([&] { (void)parse_record(j.dump(), "s.json"); }),
            "s.json: settings.ranks: 1099511627776 is not accepted; accepted: an integer in -2147483648..2147483647");
  rec.runs.push_back(done_run(make_plan(rec.settings)[0], 1.5, 1.25, 4, 476));
  j = nlohmann::json::parse(to_json_text(rec, nullptr));
  j["runs"][0]["blocking_calls"] = -1;
  EXPECT_EQ(error_of([&] { (void)parse_record(j.dump(), "s.json"); }),
            "s.json: runs[0].blocking_calls: -1 is not accepted; accepted: an integer in 0..18446744073709551615");
}

// A resumed record's numbers feed the comparison as measured: a damaged or hand-edited one (negative, absurd, out
// of the study's plan) is refused naming the file, the field and the value, not compared.
TEST(StudyRecord, DamagedNumbersRefused) {
  study_record rec;
  rec.settings = two_cases();
  rec.runs.push_back(done_run(make_plan(rec.settings)[0], 1.5, 1.25, 4, 476));
  const auto good = nlohmann::json::parse(to_json_text(rec, nullptr));
  const struct {
    const char* field;
    nlohmann::json value;
    const char* message;
  } cases[] = {
      {"t_total_s", -5.0,
       "s.json: runs[0].t_total_s: -5.0 is not accepted; accepted: a number of seconds in [0, 1e+09]"},
      {"t_comp_s", 1e300,
       "s.json: runs[0].t_comp_s: 1e+300 is not accepted; accepted: a number of seconds in [0, 1e+09]"},
      {"wall_s", -0.5, "s.json: runs[0].wall_s: -0.5 is not accepted; accepted: a number of seconds in [0, 1e+09]"},
      {"wall_s", nullptr, "s.json: runs[0].wall_s: has the wrong type: null"},  // how nlohmann writes a NaN
      {"load_before", -1.0, "s.json: runs[0].load_before: -1.0 is not accepted; accepted: a number in [0, 1e+06]"},
      {"alpha", 2.0, "s.json: runs[0].alpha: 2.0 is not accepted; accepted: a number in [0, 1]"},
      {"n_core", -3, "s.json: runs[0].n_core: -3 is not accepted; accepted: an integer in [1 - 1048576] (a run that "
                     "finished)"},
      {"n_core", 0, "s.json: runs[0].n_core: 0 is not accepted; accepted: an integer in [1 - 1048576]"},
      {"rep", 7, "s.json: runs[0].rep: 7 is not accepted; accepted: an integer in [0 - 1] (the record's --reps 2)"},
      {"case", 2, "s.json: runs[0].case: 2 is not accepted; accepted: an integer in [0 - 1] (the record's 2 "
                  "cases)"},
  };
  for (const auto& c : cases) {
    auto j = good;
    j["runs"][0][c.field] = c.value;
    const std::string m = error_of([&] { (void)parse_record(j.dump(), "s.json"); });
    EXPECT_NE(m.find(c.message), std::string::npos) << c.field << " " << c.value.dump() << " gave: " << m;
  }
  auto j = good;
  j["settings"]["reps"] = 0;
  EXPECT_EQ(error_of([&] { (void)parse_record(j.dump(), "s.json"); }),
            "s.json: settings.reps: 0 is not accepted; accepted: an integer in [1 - 99]");
  j = good;
  j["settings"]["ranks"] = 99999;
  EXPECT_EQ(error_of([&] { (void)parse_record(j.dump(), "s.json"); }),
            "s.json: settings.ranks: 99999 is not accepted; accepted: an integer in [1 - 65536]");
  // A failed run may have no core count.
  j = good;
  j["runs"][0]["ok"] = false;
  j["runs"][0]["n_core"] = 0;
  EXPECT_EQ(error_of([&] { (void)parse_record(j.dump(), "s.json"); }), "(no error)");
}

TEST(StudyResume, SameStudyOnlyMoreRepsAllowed) {
  config a = two_cases(), b = two_cases();
  b.reps = 5;
  EXPECT_EQ(error_of([&] { check_same_study(a, b, "o/study.json"); }), "(no error)");
  b.ranks = 4;
  EXPECT_EQ(error_of([&] { check_same_study(a, b, "o/study.json"); }),
            "--resume: -n: o/study.json holds a study with -n 2, this command asks for 4: resume the same study, or "
            "give another --out");
  b = two_cases();
  b.inputs = {"--size 4"};
  EXPECT_NE(error_of([&] { check_same_study(a, b, "o/study.json"); }).find("--inputs"), std::string::npos);
  // Fewer repetitions: the record's runs would outnumber what the header says the medians are of.
  a.reps = 3;
  b = two_cases();
  b.reps = 2;
  EXPECT_EQ(error_of([&] { check_same_study(a, b, "o/study.json"); }),
            "--resume: --reps: o/study.json holds a study with --reps 3, this command asks for 2; accepted: 3 or more "
            "(more repetitions add runs)");
}

// One rank of a known job: 8 s of computation on 2 threads, 14 s on 1 (a scaling of 1.75, not linear's 2), waits.
profile rank_profile(sidecore::progress_mode mode, double total, double comp) {
  profile p;
  p.rank = 0;
  p.nranks = 1;
  p.mode = mode;
  p.provider = "shm";
  p.n_core = 2;
  p.t_total_s = total;
  p.t_comp_s = comp;
  p[category::wait] = {total - comp - 0.5, 10, 0.01};
  p[category::other] = {0.5, 2, 0.1};
  return p;
}

study_record one_rank_study(int runs_of_each) {
  study_record rec;
  rec.settings.ranks = 1;
  rec.settings.reps = runs_of_each;
  rec.settings.app = {"./app"};
  for (const auto& s : make_plan(rec.settings)) {
    if (s.kind == run_kind::calibration) rec.runs.push_back(done_run(s, 10 + s.rep, 8, 2, 0));
    if (s.kind == run_kind::scaling) rec.runs.push_back(done_run(s, 16, 14, 2, 0));
    if (s.kind == run_kind::dedicated) rec.runs.push_back(done_run(s, 15 + s.rep, 14, 2, 0));
  }
  return rec;
}

profile load_synthetic(const run_record& r) {
  const bool core = r.spec.kind == run_kind::dedicated;
  return rank_profile(core ? sidecore::progress_mode::core : sidecore::progress_mode::off, r.t_total_s, r.t_comp_s);
}

TEST(StudyCompare, MeasuredScalingMediansAndError) {
  const study_record rec = one_rank_study(3);
  const auto cases = compare(rec, load_synthetic, 2);
  ASSERT_EQ(cases.size(), 1u);
  const case_result& c = cases[0];
  EXPECT_TRUE(c.judged) << (c.not_judged.empty() ? "" : c.not_judged[0]);
  EXPECT_EQ(c.cores_per_rank, 2);
  EXPECT_DOUBLE_EQ(*c.t_noprogress_s, 11);  // median of 10, 11, 12
  EXPECT_DOUBLE_EQ(*c.measured_s, 16);      // median of 15, 16, 17
  // t_newcomp = 8 * 14/8 (the measured table, not linear's 16); waits at their minimum 10 x 0.01; other 0.5.
  EXPECT_NEAR(*c.predicted_s, 14 + 0.1 + 0.5, 1e-9);
  EXPECT_NEAR(*c.error, (14.6 - 16) / 16, 1e-9);
  ASSERT_FALSE(c.terms.empty());
  EXPECT_EQ(c.terms.front().name, "computation (t_comp -> t_newcomp)");
  EXPECT_DOUBLE_EQ(c.terms.front().predicted_s, 14);
  EXPECT_DOUBLE_EQ(*c.terms.front().measured_s, 14);
  EXPECT_NE(c.scaling.find("measured"), std::string::npos);
  bool nonlinear = false;
  for (const auto& f : c.findings) nonlinear |= f.id == "nonlinear-scaling";
  EXPECT_TRUE(nonlinear);
  const auto j = to_json(cases);
  EXPECT_EQ(j[0]["judged"], true);
  EXPECT_NEAR(j[0]["predicted_t_dedicated_s"].get<double>(), 14.6, 1e-9);
  const std::string text = render_text(cases, rec);
  EXPECT_NE(text.find("error -8."), std::string::npos) << text;
  const std::string html = render_html(cases, rec);
  EXPECT_NE(html.find("sidecore study: the model against measured runs"), std::string::npos);
  EXPECT_NE(html.find("<svg"), std::string::npos);
}

// With an even count the headline's times are the runs shown in full (the lower middle), not the mean of two runs,
// which matched no table and no report.
TEST(StudyCompare, EvenRepetitionsHeadlineIsTheRunShown) {
  const auto cases = compare(one_rank_study(2), load_synthetic, 2);  // calibrations 10, 11 s; dedicated 15, 16 s
  ASSERT_EQ(cases.size(), 1u);
  const case_result& c = cases[0];
  EXPECT_DOUBLE_EQ(*c.t_noprogress_s, 10);
  EXPECT_DOUBLE_EQ(*c.measured_s, 15);
  ASSERT_FALSE(c.terms.empty());
  EXPECT_NEAR(c.terms.back().predicted_s, *c.predicted_s, 1e-12) << c.terms.back().name;
  EXPECT_NEAR(*c.terms.back().measured_s, *c.measured_s, 1e-12) << c.terms.back().name;
}

// Repetitions that spread more than the targets the model is judged by are said to, with their range.
TEST(StudyCompare, NoisyRepetitionsAreFound) {
  study_record rec = one_rank_study(3);  // calibrations 10-12 s, dedicated 15-17 s, scaling 14 s each
  auto cases = compare(rec, load_synthetic, 2);
  EXPECT_NEAR(*cases[0].spread_calibration, 2.0 / 11, 1e-12);
  EXPECT_NEAR(*cases[0].spread_dedicated, 2.0 / 16, 1e-12);
  EXPECT_DOUBLE_EQ(*cases[0].spread_scaling, 0);
  const auto noisy = [](const case_result& c) {
    for (const auto& f : c.findings)
      if (f.id == "noisy-runs") return f.text;
    return std::string();
  };
  EXPECT_NE(noisy(cases[0]).find("calibrations 10-12 s (18 % of their median), dedicated runs 15-17 s (12 %"),
            std::string::npos)
      << noisy(cases[0]);
  EXPECT_NEAR(to_json(cases)[0]["spread"]["dedicated"].get<double>(), 0.125, 1e-12);
  for (auto& r : rec.runs)
    r.t_total_s = r.spec.kind == run_kind::dedicated ? 16 : r.spec.kind == run_kind::calibration ? 11 : 16;
  cases = compare(rec, load_synthetic, 2);
  EXPECT_EQ(noisy(cases[0]), "");
  EXPECT_FALSE(compare(one_rank_study(1), load_synthetic, 2)[0].spread_dedicated.has_value());  // one run: no spread
}

TEST(StudyCompare, OversubscribedRunsAreNotJudged) {
  study_record rec = one_rank_study(1);
  rec.settings.ranks = 2;  // 2 ranks x 2 cores on a 2-core host
  const auto cases = compare(rec, load_synthetic, 2);
  ASSERT_EQ(cases.size(), 1u);
  EXPECT_FALSE(cases[0].judged);
  ASSERT_FALSE(cases[0].not_judged.empty());
  EXPECT_NE(
      cases[0].not_judged[0].find("oversubscribed: 2 ranks x 2 cores each = 4 busy threads on this host's 2 cores"),
      std::string::npos);
  EXPECT_NE(render_text(cases, rec).find("error not judged"), std::string::npos);
}

// The ranks' profiles name their host and its cores, counted as n_core is (hwloc's cores, not this host's logical
// CPUs): the study judges oversubscription as predict does, per host, with that count.
study_record two_rank_study() {
  study_record rec = one_rank_study(1);
  rec.settings.ranks = 2;
  return rec;
}

profile_loader two_ranks_on(std::vector<sidecore::host_info> hosts) {
  return [hosts](const run_record& r) {
    std::vector<profile> ranks;
    for (int i = 0; i < 2; ++i) {
      profile p = load_synthetic(r);
      p.rank = i;
      p.nranks = 2;
      p.host = hosts[static_cast<std::size_t>(i)];
      ranks.push_back(std::move(p));
    }
    return sidecore::make_job_profile(std::move(ranks));
  };
}

std::string oversubscribed_reason(const case_result& c) {
  for (const std::string& why : c.not_judged)
    if (why.find("oversubscribed") != std::string::npos) return why;
  return "";
}

TEST(StudyCompare, OversubscriptionCountedInTheProfilesHostCores) {
  // One host of 2 cores (4 logical CPUs, what this host's count says): 2 ranks x 2 cores are 4 busy threads on 2.
  auto cases = compare(two_rank_study(), two_ranks_on({{"00000000000000aa", 2}, {"00000000000000aa", 2}}), 4);
  EXPECT_FALSE(cases[0].judged);
  const std::string why = oversubscribed_reason(cases[0]);
  EXPECT_NE(why.find("2 ranks (0, 1) ran on host 00000000000000aa, 2 cores each: 4 busy threads on its 2 cores"),
            std::string::npos)
      << why;
  // Two hosts of 2 cores, one rank each: nobody takes turns, although 4 busy threads exceed this host's 2.
  cases = compare(two_rank_study(), two_ranks_on({{"00000000000000aa", 2}, {"00000000000000bb", 2}}), 2);
  EXPECT_EQ(oversubscribed_reason(cases[0]), "");
  EXPECT_TRUE(cases[0].judged) << (cases[0].not_judged.empty() ? "" : cases[0].not_judged[0]);
  // --host-cores is the user's count, and wins over the profiles'.
  study_record rec = two_rank_study();
  rec.settings.host_cores = 8;
  cases = compare(rec, two_ranks_on({{"00000000000000aa", 2}, {"00000000000000aa", 2}}), 2);
  EXPECT_EQ(oversubscribed_reason(cases[0]), "");
  rec.settings.host_cores = 3;
  cases = compare(rec, two_ranks_on({{"00000000000000aa", 2}, {"00000000000000bb", 2}}), 2);
  EXPECT_NE(oversubscribed_reason(cases[0]).find("4 busy threads on this host's 3 cores (--host-cores)"),
            std::string::npos)
      << oversubscribed_reason(cases[0]);
}

TEST(StudyCompare, BusyHostIsNotJudged) {
  study_record rec = one_rank_study(3);
  for (auto& r : rec.runs) r.load_before = 7.5;  // other work on a 2-core host
  const auto cases = compare(rec, load_synthetic, 2);
  EXPECT_FALSE(cases[0].judged);
  ASSERT_FALSE(cases[0].not_judged.empty());
  EXPECT_NE(cases[0].not_judged[0].find("the host was busy: its load average was 7.5 when the runs started (median) on "
                                        "2 cores"),
            std::string::npos);
}

// The 1-minute load average counts the study's own previous runs (1 rank x 2 threads here) and the build before it:
// make demo on an idle 2-core host saw 2.2. That is the study's own work, not a busy host.
TEST(StudyCompare, TheStudysOwnLoadIsNotABusyHost) {
  study_record rec = one_rank_study(3);
  for (auto& r : rec.runs) r.load_before = 2.2;
  const auto cases = compare(rec, load_synthetic, 2);
  for (const std::string& why : cases[0].not_judged) EXPECT_EQ(why.find("the host was busy"), std::string::npos) << why;
}

TEST(StudyCompare, OneCorePerRankAndMissingRunsSaidNotGuessed) {
  study_record rec = one_rank_study(1);
  for (auto& r : rec.runs) r.n_core = 1;
  auto cases = compare(rec, load_synthetic, 2);
  ASSERT_FALSE(cases[0].not_judged.empty());
  EXPECT_NE(cases[0].not_judged[0].find("each rank had 1 core"), std::string::npos);
  EXPECT_FALSE(cases[0].predicted_s.has_value());
  rec.runs.clear();
  cases = compare(rec, load_synthetic, 2);
  EXPECT_EQ(cases[0].not_judged[0], "no calibration run finished: nothing to predict from");
}

TEST(StudyLauncher, ExitStatusAndStderrTail) {
  const auto dir = std::filesystem::temp_directory_path() / ("sidecore-study-test-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string out = (dir / "out").string(), err = (dir / "err").string();
  env_changes env{{"STUDY_TEST_VALUE", "42"}, {"STUDY_TEST_GONE", std::nullopt}};
  ::setenv("STUDY_TEST_GONE", "x", 1);
  const child_result r = run_child(
      {"sh", "-c",
       "echo \"v=$STUDY_TEST_VALUE g=${STUDY_TEST_GONE-unset}\"; for i in 1 2 3 4; do echo e$i >&2; done; exit 3"},
      env, out, err, "test");
  EXPECT_EQ(r.exit_status, 3);
  EXPECT_FALSE(r.interrupted);
  EXPECT_EQ(file_tail(out), "v=42 g=unset");
  EXPECT_EQ(file_tail(err, 2), "e3\ne4");
  EXPECT_EQ(file_tail(err), "e1\ne2\ne3\ne4");
  EXPECT_NE(error_of([&] { (void)run_child({"/nonexistent/program"}, {}, out, err, "c0.calibration.r0"); })
                .find("c0.calibration.r0: /nonexistent/program: cannot start: No such file or directory"),
            std::string::npos);
  std::filesystem::remove_all(dir);
}

}  // namespace
