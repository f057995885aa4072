// The `sidecore` command: predict, report, info, simulate, loggp, whatif, study.
// Exit codes: 0 success, 2 usage or input error or results that could not be written (message on stderr), 1 internal
// error.
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "info.hpp"
#include "cli_errors.hpp"
#include "cli_values.hpp"
#include "loggp.hpp"
#include "simulate.hpp"
#include "whatif.hpp"
#include "study.hpp"
#include "terminal_escape.hpp"
#include "write_file.hpp"
#include "sidecore/model/analysis.hpp"
#include "sidecore/common/input_error.hpp"
#include "sidecore/model/input.hpp"
#include "sidecore/model/render.hpp"

namespace {

using namespace sidecore::model;
using sidecore::input_error;
using sidecore::tools::write_file;

// The options predict and report share: where the inputs come from and the model's parameters.
struct model_args {
  std::vector<std::string> profiles;
  std::string mpip;
  std::optional<int> cores;
  double alpha = 0.0;
  std::string alpha_sweep;
  std::string scaling;  // empty: linear unless --delta / --scaling-table says otherwise
  std::optional<double> delta;
  std::string scaling_table;
  double noise_pct = default_noise * 100;
  int max_cores = 1024;
  sidecore::tools::whatif_args trace;  // --trace: the replay beside the model
};

void add_model_options(CLI::App* app, model_args& a) {
  app->add_option("profiles", a.profiles,
                  "sidecore JSON profiles (job or per-rank; mode \"off\" is the calibration run, mode \"core\" "
                  "profiles are compared with the prediction)");
  app->add_option("--mpip", a.mpip, "read an mpiP report instead of sidecore profiles (needs --cores)");
  app->add_option("--cores", a.cores,
                  "cores per node N_core: with profiles, what if the node had N cores (each rank's computation is "
                  "moved from its measured n_core with the scaling model); with --mpip, the run's core count "
                  "(required: mpiP does not record it)");
  app->add_option("--alpha", a.alpha, "fraction of blocking calls converted to nonblocking, in [0, 1] (default 0)");
  app->add_option("--alpha-sweep", a.alpha_sweep,
                  "alpha sweep START:STOP:STEP (default 0:1:0.05 for the plot; given, the sweep is printed)");
  app->add_option("--scaling", a.scaling,
                  "computation scaling model: linear (the paper), delta, table (the default when --scaling-table "
                  "is given)")
      ->check(CLI::IsMember({"linear", "delta", "table"}));
  app->add_option("--delta", a.delta,
                  "power-law exponent for --scaling delta: t_comp proportional to N^-delta, in [-1, 2]");
  app->add_option("--scaling-table", a.scaling_table,
                  "measured t_comp per thread count for --scaling table (lines \"threads seconds\")");
  app->add_option("--noise", a.noise_pct,
                  "noise band in percent, in [0, 100): |speedup - 1| below it is \"within noise\" (default 2)");
  app->add_option("--max-cores", a.max_cores,
                  fmt::format("largest N_core the what-if searches, an integer in [2 - {}] (default 1024)",
                              max_cores_searched));
  app->add_option("--trace", a.trace.traces,
                  "the calibration run's SIDECORE_TRACE files (one per rank): show the simulated t_dedicated "
                  "(sidecore whatif) beside the analytical one and why they differ; the replay's cores are --cores "
                  "when given, else the traces' OpenMP threads");
  app->add_option("--loggp", a.trace.loggp_file, "with --trace: LogGP parameter file for the replay");
}

// The files predict and report read, for check_outputs.
std::vector<sidecore::tools::named_path> model_inputs(const model_args& a) {
  std::vector<sidecore::tools::named_path> in;
  for (const std::string& p : a.profiles) in.push_back({"PROFILE", p});
  in.push_back({"--mpip", a.mpip});
  in.push_back({"--scaling-table", a.scaling_table});
  for (const std::string& t : a.trace.traces) in.push_back({"--trace", t});
  in.push_back({"--loggp", a.trace.loggp_file});
  return in;
}

// With --trace: the replay's times and the reasons for a difference, as notes of the analysis.
void add_trace_notes(analysis& an, const model_args& a, const analysis_options& opt) {
  if (a.trace.traces.empty()) return;
  std::string run;  // the calibration's id: the first profile that records one (make_job_input checked they agree)
  for (const auto& p : an.calibration)
    if (run.empty()) run = p.run;
  // The replay computes what the traces measured, on the calibration's N_core: with --cores asking about another
  // count the model moves its computation there and the replay cannot, so the two are not compared.
  const int traced_cores = an.calibration.empty() ? 0 : an.calibration.front().n_core;
  if (a.cores && traced_cores > 0 && *a.cores != traced_cores) {
    an.notes.push_back(fmt::format("trace replay (--trace): not compared with the model: the traces ran on {} cores "
                                   "per rank, the model was asked about {} (--cores); `sidecore whatif` replays the "
                                   "traced core count",
                                   traced_cores, *a.cores));
    return;
  }
  // The replay's N (the dedicated core leaves N-1 to the computation) is the model's N_core (a 1-thread trace, which
  // has no N-1, can be replayed), the traces' OpenMP threads only where it is not at least 2; its computation is
  // slowed from N to N-1 cores by the model's own scaling, so that both t_dedicated are of one assumption.
  sidecore::tools::whatif_args replay = a.trace;
  if (!an.inputs.empty() && an.inputs.front().n_core >= 2) replay.cores = an.inputs.front().n_core;
  replay.model_scaling = opt.model.scaling;
  for (std::string& n : sidecore::tools::compare_with_model(replay, an.job.t_noprogress_s, an.job.t_dedicated_s, run))
    an.notes.push_back(std::move(n));
}

// Turns the arguments into analysis options; every inconsistency is an input_error naming the option.
analysis_options make_options(const model_args& a) {
  if (!a.trace.loggp_file.empty() && a.trace.traces.empty())
    throw input_error::refused("--loggp", a.trace.loggp_file,
                               "--loggp together with --trace (the replay whose LogGP parameters it gives)");
  analysis_options o;
  o.model.alpha = a.alpha;
  o.model.noise = a.noise_pct / 100.0;
  std::string kind = a.scaling;
  if (kind.empty()) kind = a.delta ? "delta" : (!a.scaling_table.empty() ? "table" : "linear");
  // A measured table is better than any assumption (issue 15: -1 to -4 % against +17 to +86 % with linear), so
  // given, it is used; the output says which model was used and why.
  if (!a.scaling.empty()) o.scaling_reason = "chosen with --scaling " + a.scaling;
  else if (kind == "delta") o.scaling_reason = "chosen with --delta";
  else if (kind == "table") o.scaling_reason = "measured: --scaling-table given";
  else
    o.scaling_reason = "default: the paper's assumption, no measured scaling given; --scaling-table FILE with t_comp "
                       "at N and N-1 threads replaces it";
  if (kind == "delta") {
    if (!a.delta) throw input_error("--scaling delta", "", "needs --delta D (the power-law exponent, in [-1, 2])");
    o.model.scaling = scaling_model::power_law(*a.delta);
  } else if (a.delta) {
    throw input_error("--delta", "", fmt::format("only applies to --scaling delta, not --scaling {}", kind));
  }
  if (kind == "table") {
    if (a.scaling_table.empty())
      throw input_error("--scaling table", "", "needs --scaling-table FILE (lines \"threads t_comp_s\")");
    o.model.scaling = scaling_model::read_table_file(a.scaling_table);
  } else if (!a.scaling_table.empty()) {
    throw input_error("--scaling-table", "", fmt::format("only applies to --scaling table, not --scaling {}", kind));
  }
  if (!a.alpha_sweep.empty()) o.sweep = parse_alpha_range(a.alpha_sweep);
  o.max_cores = a.max_cores;
  validate(o.model);
  return o;
}

job_input load_input(const model_args& a) {
  if (!a.mpip.empty()) {
    if (!a.profiles.empty())
      throw input_error("--mpip", "", "give either sidecore profiles or --mpip FILE, not both");
    if (!a.cores) throw input_error("--cores", "", "--mpip needs --cores N (cores per node; mpiP does not record it)");
    return load_mpip(a.mpip, *a.cores);
  }
  if (a.profiles.empty())
    throw input_error("PROFILE", "", "no input: give sidecore JSON profiles (PROFILE...) or --mpip FILE --cores N");
  return load_profiles(a.profiles, a.cores);
}

// "sidecore" and the subcommand given, as the messages name the command.
std::string command_name(const CLI::App& app) {
  std::string command = "sidecore";
  for (const CLI::App* sub : app.get_subcommands()) command += " " + sub->get_name();
  return command;
}

// `rc` unless what the command printed on standard output did not all reach it (a full disk, a closed or failing
// file): a failed write only sets the stream's state, so without this check the command would end with status 0
// as if its results had been delivered. Then says so on stderr and returns 2 (or `rc` when already non-zero).
int output_written(int rc, const std::string& command) {
  errno = 0;
  std::cout.flush();
  const int flush_errno = errno;
  if (std::cout && std::fflush(stdout) == 0 && !std::ferror(stdout)) return rc;
  const int err = flush_errno != 0 ? flush_errno : errno;
  std::cerr << command << ": error: standard output: the results could not be written"
            << (err != 0 ? fmt::format(" ({})", std::strerror(err)) : std::string()) << "\n";
  return rc == 0 ? 2 : rc;
}

}  // namespace

int main(int argc, char** argv) {
  const sidecore::tools::escaped_terminal_output escaped;  // before anything is printed, CLI11's messages included
  CLI::App app{"sidecore: dedicated-core communication progress for hybrid MPI+OpenMP applications.\n"
               "Predicts from a profile whether one core per node dedicated to progress pays off (the model of "
               "Denis et al., CCGRID 2022).",
               "sidecore"};
  app.require_subcommand(1);
  app.failure_message(sidecore::tools::cli_failure_message);

  model_args pa;
  std::string format = "text";
  std::string plot;
  CLI::App* predict =
      app.add_subcommand("predict", "predict the run time with a dedicated progress core and explain it");
  add_model_options(predict, pa);
  predict->add_option("--format", format, "output format: text (default), json, csv")
      ->check(CLI::IsMember({"text", "json", "csv"}));
  predict->add_option("--plot", plot, "write the alpha sweep as an SVG plot to this file");

  model_args ra;
  std::string output;
  CLI::App* report = app.add_subcommand("report", "write a self-contained HTML report");
  add_model_options(report, ra);
  report->add_option("-o,--output", output, "HTML file to write")->required();

  CLI::App* info = app.add_subcommand("info", "print the runtime's settings and topology (needs libsidecore)");

  sidecore::tools::simulate_args sa;
  CLI::App* simulate = sidecore::tools::add_simulate(app, sa);
  sidecore::tools::loggp_args la;
  CLI::App* loggp = sidecore::tools::add_loggp(app, la);
  sidecore::tools::whatif_args wa;
  CLI::App* whatif = sidecore::tools::add_whatif(app, wa);
  sidecore::tools::study_args sta;
  CLI::App* study = sidecore::tools::add_study(app, sta);

  for (CLI::App* sub : {predict, report, simulate, loggp, whatif, study}) sidecore::tools::check_option_values(sub);
  try {
    // CLI11 takes the arguments in reverse order.
    std::vector<std::string> args = sidecore::tools::study_argv(argc, argv);
    std::reverse(args.begin(), args.end());
    app.parse(args);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);  // --help prints on standard output, and its status is 0
    return code == 0 ? output_written(0, command_name(app)) : 2;
  }
  const auto run = [&]() -> int {
    try {
      if (*info) return sidecore::tools::run_info();
      if (*simulate) return sidecore::tools::run_simulate(sa);
      if (*loggp) return sidecore::tools::run_loggp(la);
      if (*whatif) return sidecore::tools::run_whatif(wa);
      if (*study) return sidecore::tools::run_study(sta);
      if (*predict) {
        sidecore::tools::check_outputs(model_inputs(pa), {{"--plot", plot}});
        const analysis_options opt = make_options(pa);
        analysis a = analyze(load_input(pa), opt);
        add_trace_notes(a, pa, opt);
        render_options ro;
        ro.show_sweep = !pa.alpha_sweep.empty();
        if (!plot.empty()) write_file(plot, render_alpha_svg(a), "--plot");
        if (format == "json") std::cout << render_json(a, ro);
        else if (format == "csv") std::cout << render_csv(a, ro);
        else std::cout << render_text(a, ro);
        return 0;
      }
      if (*report) {
        sidecore::tools::check_outputs(model_inputs(ra), {{"--output", output}});
        const analysis_options opt = make_options(ra);
        analysis a = analyze(load_input(ra), opt);
        add_trace_notes(a, ra, opt);
        write_file(output, render_html(a), "--output");
        std::cout << fmt::format("sidecore report: wrote {} (verdict: {}; the formula: {})\n", output,
                                 verdict_name(a.headline()), formula_outcome(a.job));
        return 0;
      }
    } catch (const input_error& e) {
      std::cerr << command_name(app) << ": error: " << e.what() << "\n";
      return 2;
    } catch (const std::exception& e) {
      std::cerr << "sidecore: internal error: " << e.what() << "\n";
      return 1;
    }
    return 0;
  };
  return output_written(run(), command_name(app));
}
