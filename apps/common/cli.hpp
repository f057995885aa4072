// Command-line options of the mini-apps: one table per app (name, target variable, accepted range, help), both
// `--name value` and `--name=value`, `--help`, and a message naming the option, the bad value and what is accepted.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace apps {

class cli {
 public:
  /// `program` is the executable's name; `summary` the paragraph --help prints above the options.
  cli(std::string program, std::string summary);

  /// An integer option accepted in [lo, hi]; `value` holds the default and receives the value given.
  void option(const std::string& name, int& value, int lo, int hi, const std::string& help);
  /// A floating-point option accepted in [lo, hi].
  void option(const std::string& name, double& value, double lo, double hi, const std::string& help);
  /// An option taking one of `accepted` (its default is `value`).
  void option(const std::string& name, std::string& value, std::vector<std::string> accepted,
              const std::string& help);
  /// A flag without value: sets `value` to true.
  void flag(const std::string& name, bool& value, const std::string& help);

  /// Parses argv[1..argc). On --help: prints the usage (on `print` true) and returns 0. On a bad option (unknown,
  /// or a value not accepted): prints a message naming it, the value and what is accepted (on `print` true) and
  /// returns 2. An option given twice takes its last value. Otherwise returns -1 (go on). Every rank parses; only
  /// one prints.
  [[nodiscard]] int parse(int argc, char** argv, bool print);
  /// True when the option was on the command line (not its default): presets fill only what was not given.
  [[nodiscard]] bool given(const std::string& name) const;
  /// The program name (for messages).
  [[nodiscard]] const std::string& program() const noexcept { return program_; }
  /// The usage text --help prints.
  [[nodiscard]] std::string usage() const;

 private:
  struct entry {
    std::string name;      // with its leading "--"
    std::string metavar;   // empty for a flag
    std::string accepted;  // e.g. "an integer from 1 to 64"
    std::string help;
    std::function<bool(const std::string&)> set;  // false when the value is not accepted
    bool given = false;
  };
  entry* find(const std::string& name);
  std::string program_, summary_;
  std::vector<entry> entries_;
};

/// A usage error found after parsing (options that contradict each other, a size the rank count cannot split):
/// thrown by an app's set-up, printed by apps::run with the program's name, exit status 2.
struct usage_error {
  std::string message;
};

}  // namespace apps
