#include "cli.hpp"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <utility>

namespace apps {

namespace {

std::string number_text(double v) {
  std::ostringstream s;
  s << v;
  return s.str();
}

// strtoll and strtod skip leading blanks: a value must start with its sign or a digit (or '.' for a number).
bool starts_like_a_number(const std::string& text) {
  if (text.empty()) return false;
  const char c = text.front();
  return (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.';
}

// `text` wrapped at word boundaries to lines of at most `width` columns, every line after the first indented by
// `indent` (the first starts at column `col`).
std::string wrap(const std::string& text, std::size_t col, std::size_t indent, std::size_t width) {
  std::string out;
  const std::size_t start = col;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t end = text.find_first_of(" \n", pos);
    if (end == std::string::npos) end = text.size();
    const std::string word = text.substr(pos, end - pos);
    if (col > start && col + 1 + word.size() > width) {
      out += "\n" + std::string(indent, ' ');
      col = indent;
    } else if (col > start) {
      out += ' ';
      ++col;
    }
    out += word;
    col += word.size();
    pos = end + 1;
  }
  return out;
}

}  // namespace

cli::cli(std::string program, std::string summary) : program_(std::move(program)), summary_(std::move(summary)) {}

void cli::option(const std::string& name, int& value, int lo, int hi, const std::string& help) {
  entries_.push_back({"--" + name, "N", "an integer from " + std::to_string(lo) + " to " + std::to_string(hi), help,
                      [&value, lo, hi](const std::string& text) {
                        if (!starts_like_a_number(text)) return false;
                        errno = 0;
                        char* end = nullptr;
                        const long long v = std::strtoll(text.c_str(), &end, 10);
                        if (errno != 0 || *end != '\0' || v < lo || v > hi) return false;
                        value = static_cast<int>(v);
                        return true;
                      }});
  entries_.back().help += " (default " + std::to_string(value) + ")";
}

void cli::option(const std::string& name, double& value, double lo, double hi, const std::string& help) {
  entries_.push_back({"--" + name, "X", "a number from " + number_text(lo) + " to " + number_text(hi), help,
                      [&value, lo, hi](const std::string& text) {
                        if (!starts_like_a_number(text)) return false;
                        errno = 0;
                        char* end = nullptr;
                        const double v = std::strtod(text.c_str(), &end);
                        if (errno != 0 || *end != '\0' || !std::isfinite(v) || v < lo || v > hi) return false;
                        value = v;
                        return true;
                      }});
  entries_.back().help += " (default " + number_text(value) + ")";
}

void cli::option(const std::string& name, std::string& value, std::vector<std::string> accepted,
                 const std::string& help) {
  std::string list, bars;
  for (const auto& a : accepted) {
    list += (list.empty() ? "" : ", ") + a;
    bars += (bars.empty() ? "" : "|") + a;
  }
  entries_.push_back({"--" + name, bars, "one of " + list, help,
                      [&value, accepted = std::move(accepted)](const std::string& text) {
                        for (const auto& a : accepted)
                          if (text == a) {
                            value = text;
                            return true;
                          }
                        return false;
                      }});
  if (!value.empty()) entries_.back().help += " (default " + value + ")";
}

void cli::flag(const std::string& name, bool& value, const std::string& help) {
  entries_.push_back({"--" + name, "", "", help, [&value](const std::string&) {
                        value = true;
                        return true;
                      }});
}

cli::entry* cli::find(const std::string& name) {
  for (auto& e : entries_)
    if (e.name == name) return &e;
  return nullptr;
}

bool cli::given(const std::string& name) const {
  for (const auto& e : entries_)
    if (e.name == "--" + name) return e.given;
  return false;
}

std::string cli::usage() const {
  constexpr std::size_t indent = 24, width = 110;
  std::string u = "usage: " + program_ + " [options]\n\n" + wrap(summary_, 0, 0, width) + "\n\noptions:\n";
  auto add = [&](std::string head, const std::string& help) {
    if (head.size() + 1 < indent) head.resize(indent, ' ');
    else head += "\n" + std::string(indent, ' ');
    u += head + wrap(help, indent, indent, width) + "\n";
  };
  for (const auto& e : entries_) add("  " + e.name + (e.metavar.empty() ? "" : " " + e.metavar), e.help);
  add("  --help", "print this and exit");
  return u;
}

int cli::parse(int argc, char** argv, bool print) {
  auto fail = [&](const std::string& msg) {
    if (print)
      std::fprintf(stderr, "%s: %s (%s --help lists the options)\n", program_.c_str(), msg.c_str(),
                   program_.c_str());
    return 2;
  };
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      if (print) std::fputs(usage().c_str(), stdout);
      return 0;
    }
    std::string value;
    bool inline_value = false;
    if (const auto eq = arg.find('='); arg.rfind("--", 0) == 0 && eq != std::string::npos) {
      value = arg.substr(eq + 1);
      arg.resize(eq);
      inline_value = true;
    }
    entry* e = find(arg);
    if (!e) return fail("unknown option '" + arg + "'");
    if (e->metavar.empty()) {
      if (inline_value) return fail(arg + " takes no value (given '" + value + "')");
    } else if (!inline_value) {
      if (i + 1 >= argc) return fail(arg + " needs a value: " + e->accepted);
      value = argv[++i];
    }
    // An option given twice takes its last value, as getopt's users expect: sidecore study appends a case's options
    // after the command's own (--inputs '--steps 20' on 'md --steps 30').
    if (!e->set(value)) return fail(arg + "='" + value + "' is not accepted: give " + e->accepted);
    e->given = true;
  }
  return -1;
}

}  // namespace apps
