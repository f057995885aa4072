// The `sidecore` command's messages for what CLI11 refuses (cli_errors.hpp).
#include "cli_errors.hpp"

#include <cctype>
#include <string_view>
#include <vector>

namespace sidecore::tools {

namespace {

// CLI11's type word (INT, UINT, FLOAT, TEXT, ...) as words.
std::string type_words(std::string_view t) {
  if (t == "INT") return "an integer";
  if (t == "UINT") return "a whole number >= 0";
  if (t == "FLOAT") return "a number";
  if (t == "TEXT") return "text";
  std::string s(t);
  for (char& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return s;
}

// "INT:INT in [1 - 4096]" (the type and its validators' descriptions, ':'-separated) as "an integer in [1 - 4096]".
std::string accepted_of(const std::string& type_name) {
  std::vector<std::string> parts;
  std::size_t from = 0;
  for (std::size_t at; (at = type_name.find(':', from)) != std::string::npos; from = at + 1)
    parts.push_back(type_name.substr(from, at - from));
  parts.push_back(type_name.substr(from));
  std::string base = parts.front(), bounds;
  for (std::size_t i = 1; i < parts.size(); ++i) {
    std::string_view d = parts[i];
    // A range's description starts with its own type word ("INT in [1 - 4096]"): keep what follows it. The range
    // bounds the sign, so an unsigned option reads as an integer in it.
    if (const auto sp = d.find(" in ["); sp != std::string_view::npos &&
        d.substr(0, sp).find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZ") == std::string_view::npos) {
      d.remove_prefix(sp + 1);
      if (base == "UINT") base = "INT";
    }
    if (!d.empty()) bounds += " " + std::string(d);
  }
  return type_words(base) + bounds;
}

}  // namespace

std::string accepted_by(const CLI::Option& o) { return accepted_of(o.get_type_name()); }

std::string cli_failure_message(const CLI::App* app, const CLI::Error& e) {
  std::string command = app->get_name();
  const std::vector<CLI::App*> subs = app->get_subcommands();
  if (!subs.empty()) command += " " + subs.front()->get_name();
  std::string what = e.what();
  // The option and the value CLI11 refused: "Could not convert: NAME = VALUE" (not a number) or "NAME: Value VALUE
  // not in range A to B" (a CLI::Range check, which runs before the conversion).
  std::string name, value, accepted;
  constexpr std::string_view convert = "Could not convert: ", range = ": Value ", range_end = " not in range ";
  if (dynamic_cast<const CLI::ConversionError*>(&e) != nullptr && what.rfind(convert, 0) == 0) {
    if (const std::size_t eq = what.find(" = ", convert.size()); eq != std::string::npos) {
      name = what.substr(convert.size(), eq - convert.size());
      value = what.substr(eq + 3);
    }
  } else if (dynamic_cast<const CLI::ValidationError*>(&e) != nullptr) {
    const std::size_t at = what.find(range), end = what.rfind(range_end);
    if (at != std::string::npos && end != std::string::npos && end >= at + range.size()) {
      name = what.substr(0, at);
      value = what.substr(at + range.size(), end - at - range.size());
    }
    // A CLI::IsMember check: "NAME: VALUE not in {a,b,c}", which says what is accepted itself.
    const std::size_t colon = what.find(": "), set = what.rfind(" not in {");
    if (name.empty() && colon != std::string::npos && set != std::string::npos && set > colon && what.back() == '}') {
      name = what.substr(0, colon);
      value = what.substr(colon + 2, set - colon - 2);
      accepted = "one of " + what.substr(set + 9, what.size() - set - 10);
      for (std::size_t c = 0; (c = accepted.find(',', c)) != std::string::npos; c += 2) accepted.replace(c, 1, ", ");
    }
  }
  if (!name.empty() && accepted.empty()) {
    const CLI::Option* opt = nullptr;
    for (const CLI::App* s : subs)
      if (opt == nullptr) opt = s->get_option_no_throw(name);
    if (opt == nullptr) opt = app->get_option_no_throw(name);
    if (opt != nullptr) accepted = accepted_by(*opt);
  }
  if (!accepted.empty()) what = name + ": '" + value + "' is not accepted; accepted: " + accepted;
  return command + ": error: " + what + "\nRun with --help for more information.\n";
}

}  // namespace sidecore::tools
