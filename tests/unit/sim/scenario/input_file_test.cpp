#include "sim/scenario/input_file.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

namespace eksim::scenario {
namespace {

class InputFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("eksim-input-file-test-" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  // The message read_input_file gives for path, or "" when it reads it.
  static std::string refusal(const std::string& path) {
    try {
      read_input_file(path, Location{"s.yaml", 4, 9});
      return "";
    } catch (const InputError& e) {
      EXPECT_EQ(e.where().line, 4);
      return e.what();
    }
  }
  std::filesystem::path dir_;
};

TEST_F(InputFileTest, ReadsARegularFileThroughASymlink) {
  std::ofstream(dir_ / "a.csv") << "x,y\n1,2";
  std::filesystem::create_symlink(dir_ / "a.csv", dir_ / "link.csv");
  EXPECT_EQ(read_input_file((dir_ / "a.csv").string(), Location{}), "x,y\n1,2");
  EXPECT_EQ(read_input_file((dir_ / "link.csv").string(), Location{}), "x,y\n1,2");
}

// A FIFO with no writer would block a plain open() forever; it is refused at once.
TEST_F(InputFileTest, FifoIsRefusedWithoutWaitingForAWriter) {
  std::string fifo = (dir_ / "trace.csv").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_EQ(refusal(fifo), "s.yaml:4:9: error: cannot open \"" + fifo + "\": is a FIFO, not a regular file");
  std::filesystem::create_symlink(fifo, dir_ / "link.csv");
  EXPECT_EQ(refusal((dir_ / "link.csv").string()),
            "s.yaml:4:9: error: cannot open \"" + (dir_ / "link.csv").string() + "\": is a FIFO, not a regular file");
}

TEST_F(InputFileTest, DevicesDirectoriesAndMissingFilesAreRefused) {
  EXPECT_EQ(refusal("/dev/zero"), "s.yaml:4:9: error: cannot open \"/dev/zero\": is a character device, not a regular file");
  EXPECT_EQ(refusal("/dev/null"), "s.yaml:4:9: error: cannot open \"/dev/null\": is a character device, not a regular file");
  EXPECT_EQ(refusal(dir_.string()), "s.yaml:4:9: error: cannot open \"" + dir_.string() + "\": is a directory");
  EXPECT_EQ(refusal((dir_ / "none.csv").string()),
            "s.yaml:4:9: error: cannot open \"" + (dir_ / "none.csv").string() + "\": no such file");
  EXPECT_EQ(refusal(""), "s.yaml:4:9: error: cannot open \"\": no such file");
}

}  // namespace
}  // namespace eksim::scenario
