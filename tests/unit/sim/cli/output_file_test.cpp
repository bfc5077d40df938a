#include "sim/cli/output_file.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "sim/scenario/input_error.hpp"

namespace eksim::cli {
namespace {

namespace fs = std::filesystem;

class OutputFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("eksim-output-file-test-" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  static std::string text_of(const fs::path& p) {
    std::ifstream in(p);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  fs::path dir_;
};

TEST_F(OutputFileTest, RegularFileIsReplacedWithItsPermissionsKept) {
  fs::path f = dir_ / "out.jsonl";
  std::ofstream(f) << "old\n";
  fs::permissions(f, fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
  replace_output_file(f.string(), "new\n");
  EXPECT_EQ(text_of(f), "new\n");
  EXPECT_EQ(fs::status(f).permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
  EXPECT_FALSE(fs::exists(dir_ / "out.jsonl.tmp"));
  replace_output_file((dir_ / "fresh.jsonl").string(), "x\n");
  EXPECT_EQ(text_of(dir_ / "fresh.jsonl"), "x\n");
}

TEST_F(OutputFileTest, SymlinkKeepsPointingAtTheReplacedFile) {
  fs::path target = dir_ / "results.jsonl", link = dir_ / "latest.jsonl";
  std::ofstream(target) << "old\n";
  fs::create_symlink(target, link);
  replace_output_file(link.string(), "new\n");
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_EQ(text_of(target), "new\n");
}

TEST_F(OutputFileTest, DevNullStaysADevice) {
  EXPECT_TRUE(is_output_stream("/dev/null"));
  replace_output_file("/dev/null", "discarded\n");
  struct stat st {};
  ASSERT_EQ(::stat("/dev/null", &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
}

TEST_F(OutputFileTest, FifoIsWrittenAsAStreamAndStaysAFifo) {
  fs::path fifo = dir_ / "out.fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_TRUE(is_output_stream(fifo.string()));
  std::string got;
  std::thread reader([&] { got = text_of(fifo); });
  replace_output_file(fifo.string(), "line\n");
  reader.join();
  EXPECT_EQ(got, "line\n");
  EXPECT_TRUE(fs::is_fifo(fifo));
}

TEST_F(OutputFileTest, DirectoryAndNonRegularTemporaryAreRefused) {
  EXPECT_FALSE(is_output_stream(dir_.string()));
  try {
    replace_output_file(dir_.string(), "x");
    FAIL();
  } catch (const scenario::InputError& e) {
    EXPECT_EQ(std::string(e.what()), "eksim: error: cannot write \"" + dir_.string() + "\": is a directory");
  }
  // Something else sits where the temporary file goes: it is not touched.
  fs::path f = dir_ / "out.jsonl";
  ASSERT_EQ(::mkfifo((f.string() + ".tmp").c_str(), 0600), 0);
  try {
    replace_output_file(f.string(), "x");
    FAIL();
  } catch (const scenario::InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "eksim: error: cannot write \"" + f.string() + ".tmp\": exists and is not a regular file");
  }
  EXPECT_TRUE(fs::is_fifo(f.string() + ".tmp"));
  // A stale regular temporary from an interrupted run is simply replaced.
  fs::remove(f.string() + ".tmp");
  std::ofstream(f.string() + ".tmp") << "stale";
  replace_output_file(f.string(), "x");
  EXPECT_EQ(text_of(f), "x");
}

}  // namespace
}  // namespace eksim::cli
