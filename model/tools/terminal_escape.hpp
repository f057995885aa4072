// sidecore command — what it prints carries no control character from its inputs: a profile, a trace or a file name
// is text a user or a program may have edited, and an escape sequence in it (ESC [2J clears the screen, others
// rewrite the title or move the cursor) would act on the terminal instead of being read. Every byte below 0x20 but
// newline and tab, and DEL, is printed as \xNN.
#pragma once

#include <ostream>
#include <streambuf>

namespace sidecore::tools {

/// A stream buffer that writes to `out`, escaping control characters (all below 0x20 but '\n' and '\t', and 0x7f)
/// as "\xNN". A failed write of `out` is passed on, so the stream's state shows it.
class escaping_streambuf : public std::streambuf {
 public:
  explicit escaping_streambuf(std::streambuf* out) noexcept : out_(out) {}

 protected:
  int_type overflow(int_type c) override;
  std::streamsize xsputn(const char* s, std::streamsize n) override;
  int sync() override { return out_->pubsync(); }

 private:
  std::streambuf* out_;
};

/// For the command's life: std::cout and std::cerr escape control characters (escaping_streambuf); the streams get
/// their own buffers back when it is destroyed.
class escaped_terminal_output {
 public:
  escaped_terminal_output();
  ~escaped_terminal_output();
  escaped_terminal_output(const escaped_terminal_output&) = delete;
  escaped_terminal_output& operator=(const escaped_terminal_output&) = delete;

 private:
  std::streambuf* cout_old_;
  std::streambuf* cerr_old_;
  escaping_streambuf cout_buf_;
  escaping_streambuf cerr_buf_;
};

}  // namespace sidecore::tools
