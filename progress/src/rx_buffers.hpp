// Receive buffers (rx_buffers.cpp) for eager and control messages: posted to the provider on the control tag,
// each eager_max + a header long. One contiguous array, so a completion whose op_context lies inside it is one
// of these (anything else is a req).
#pragma once

#include <rdma/fabric.h>

#include <cstddef>
#include <vector>

namespace sidecore::progress {

struct rx_buffer {
  fi_context2 ctx;  // first member
  char* buf = nullptr;
};

struct rx_buffers {
  std::vector<rx_buffer> bufs;
  std::vector<char> mem;
  std::vector<rx_buffer*> unposted;  // taken back (a message was read out) or refused by the provider for now
  std::size_t size = 0;              // bytes per buffer

  [[nodiscard]] bool owns(const void* op_context) const noexcept {
    const auto* c = static_cast<const char*>(op_context);
    return c >= reinterpret_cast<const char*>(bufs.data()) &&
           c < reinterpret_cast<const char*>(bufs.data() + bufs.size());
  }
};

}  // namespace sidecore::progress
