// The shm provider's directory in a refusal: when libfabric's shm finds no room (fi_getinfo: No data available with
// a small /dev/shm, a container's 64 MiB default), the message says how much room there is and where.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "shm_space.hpp"

namespace {

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(ShmSpace, NamesTheDirectoryAndItsFreeSpace) {
  const std::string note = sidecore::progress::shm_space_note(std::filesystem::temp_directory_path().string());
  EXPECT_TRUE(has(note, std::filesystem::temp_directory_path().string())) << note;
  EXPECT_TRUE(has(note, " MiB free of ")) << note;
  EXPECT_TRUE(has(note, "shm provider")) << note;
}

TEST(ShmSpace, AMissingDirectoryIsSaid) {
  const std::string dir = "/nonexistent-shm-" + std::to_string(::getpid());
  const std::string note = sidecore::progress::shm_space_note(dir);
  EXPECT_TRUE(has(note, dir + " cannot be used")) << note;
}

}  // namespace
