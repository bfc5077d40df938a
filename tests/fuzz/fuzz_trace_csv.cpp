// libFuzzer target: a workload trace CSV (time,kind,name,gpus,duration) and the same bytes as a
// price file (region,instanceType,capacityType,usdPerHour). Both readers take a path, so the
// input goes through a file in the working directory, which tests/fuzz/run.sh makes the target's
// own: a fixed relative name, so the paths the readers report have the same length on every run
// (a pid in it changed the coverage from run to run, issue 46).
#include <cstddef>
#include <cstdint>
#include <fstream>
#include <string>

#include "models/aws/instance_catalog.hpp"
#include "sim/scenario/input_error.hpp"
#include "sim/scenario/price_file.hpp"
#include "sim/scenario/workloads.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace eksim;
  static const std::string path = "fuzz-trace-csv-input.csv";
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  const scenario::Location from{"scenario.yaml", 1, 1};
  try {
    scenario::read_trace(path, from);
  } catch (const scenario::InputError&) {
  }
  try {
    scenario::read_price_file(path, from, aws::InstanceCatalog::builtin());
  } catch (const scenario::InputError&) {
  }
  return 0;
}
