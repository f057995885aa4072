// The command's output without raw control characters (terminal_escape.hpp).
#include "terminal_escape.hpp"

#include <iostream>

namespace sidecore::tools {

namespace {

bool is_control(unsigned char c) noexcept { return (c < 0x20 && c != '\n' && c != '\t') || c == 0x7f; }

// Writes "\xNN" for c; false when `out` did not take it all.
bool put_escaped(std::streambuf* out, unsigned char c) {
  static constexpr char hex[] = "0123456789abcdef";
  const char e[4] = {'\\', 'x', hex[c >> 4], hex[c & 0xf]};
  return out->sputn(e, 4) == 4;
}

}  // namespace

escaping_streambuf::int_type escaping_streambuf::overflow(int_type c) {
  if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
  const auto ch = static_cast<unsigned char>(traits_type::to_char_type(c));
  if (is_control(ch)) return put_escaped(out_, ch) ? c : traits_type::eof();
  return out_->sputc(static_cast<char>(ch));
}

std::streamsize escaping_streambuf::xsputn(const char* s, std::streamsize n) {
  std::streamsize done = 0;
  while (done < n) {
    std::streamsize run = 0;  // the plain bytes from s[done] on, passed on in one piece
    while (done + run < n && !is_control(static_cast<unsigned char>(s[done + run]))) ++run;
    if (run > 0) {
      const std::streamsize put = out_->sputn(s + done, run);
      done += put;
      if (put < run) return done;
    }
    if (done < n) {
      if (!put_escaped(out_, static_cast<unsigned char>(s[done]))) return done;
      ++done;
    }
  }
  return done;
}

escaped_terminal_output::escaped_terminal_output()
    : cout_old_(std::cout.rdbuf()), cerr_old_(std::cerr.rdbuf()), cout_buf_(cout_old_), cerr_buf_(cerr_old_) {
  std::cout.rdbuf(&cout_buf_);
  std::cerr.rdbuf(&cerr_buf_);
}

escaped_terminal_output::~escaped_terminal_output() {
  std::cout.flush();
  std::cerr.flush();
  std::cout.rdbuf(cout_old_);
  std::cerr.rdbuf(cerr_old_);
}

}  // namespace sidecore::tools
