// gemmlab devices: the GPU's properties, as the seeds list them.
#include <iostream>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "core/device.hpp"
#include "results/table.hpp"

namespace gemmlab::cli {

void add_devices_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("devices", "show the properties of each CUDA GPU");
  cmd->callback([] {
    require_gpu();
    const int n = device_count();
    const SoftwareVersions v = software_versions();
    std::cout << fmt::format("driver {}, CUDA runtime {}, cuBLAS {}\n", v.driver, v.runtime, v.cublas);
    for (int i = 0; i < n; ++i) {
      const DeviceInfo d = query_device(i);
      Table t({"property", "value"});
      auto kib = [](std::size_t b) { return fmt::format("{} B ({} KiB)", b, b / 1024); };
      t.add({"name", d.name});
      t.add({"compute capability", fmt::format("{}.{}", d.cc_major, d.cc_minor)});
      t.add({"multiprocessors (SMs)", std::to_string(d.sm_count)});
      t.add({"CUDA cores", fmt::format("{} ({} per SM)", d.cuda_cores(), d.fp32_lanes_per_sm)});
      t.add({"max SM clock", fmt::format("{} MHz", d.clock_khz / 1000)});
      t.add({"FP32 peak (2 x cores x clock)", fmt::format("{:.1f} TFLOPS", d.peak_fp32_tflops())});
      t.add({"memory clock", fmt::format("{} MHz", d.memory_clock_khz / 1000)});
      t.add({"memory bus", fmt::format("{} bit", d.memory_bus_bits)});
      t.add({"memory bandwidth (theoretical)", fmt::format("{:.0f} GB/s", d.peak_dram_gbs())});
      t.add({"global memory", fmt::format("{:.1f} GiB", double(d.global_mem_bytes) / (1ull << 30))});
      t.add({"L2 cache", fmt::format("{} MiB", d.l2_bytes / (1 << 20))});
      t.add({"shared memory per block", kib(d.smem_per_block)});
      t.add({"shared memory per block (opt-in)", kib(d.smem_per_block_optin)});
      t.add({"shared memory per SM", kib(d.smem_per_sm)});
      t.add({"registers per block", std::to_string(d.regs_per_block)});
      t.add({"registers per SM", std::to_string(d.regs_per_sm)});
      t.add({"max threads per block", std::to_string(d.max_threads_per_block)});
      t.add({"max threads per SM", std::to_string(d.max_threads_per_sm)});
      t.add({"max blocks per SM", std::to_string(d.max_blocks_per_sm)});
      t.add({"warp size", std::to_string(d.warp_size)});
      t.add({"max block dimensions", fmt::format("{} x {} x {}", d.max_block_dim[0], d.max_block_dim[1], d.max_block_dim[2])});
      t.add({"max grid dimensions", fmt::format("{} x {} x {}", d.max_grid_dim[0], d.max_grid_dim[1], d.max_grid_dim[2])});
      t.add({"ECC", d.ecc ? "on" : "off"});
      std::cout << fmt::format("\nGPU {}\n", i);
      t.print(std::cout);
    }
  });
}

}  // namespace gemmlab::cli
