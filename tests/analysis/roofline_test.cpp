// The roofline arithmetic and seed 002's bandwidth-bound estimate.
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "analysis/gpu_specs.hpp"
#include "analysis/roofline.hpp"
#include "core/error.hpp"

using namespace gemmlab;

namespace {

TEST(Roofline, SeedTwoBandwidthBound) {
  // Seed 002: GTX 1060, 192 GB/s, 8 bytes per 2 flops = 4 B/flop -> 48 GFLOPS.
  EXPECT_DOUBLE_EQ(bandwidth_bound_gflops(192, 4), 48);
  EXPECT_DOUBLE_EQ(bandwidth_bound_gflops(find_gpu("gtx1060").dram_gbs, 4), 48);
  EXPECT_THROW(bandwidth_bound_gflops(0, 4), Error);
  EXPECT_THROW(bandwidth_bound_gflops(192, 0), Error);
  // "How fast must memory be to reach the peak?" 4 B/flop x 4 TFLOPS = 16 TB/s.
  EXPECT_DOUBLE_EQ(4.0 * 4e3, 16e3);
}

TEST(Roofline, BytesPerFlopOfATrafficModel) {
  TrafficModel naive;  // N = 1024: 2N^3 loads, N^2 stores, 2N^3 flops
  naive.flops = 2.0 * 1024 * 1024 * 1024;
  naive.global_loads = 2.0 * 1024 * 1024 * 1024;
  naive.global_stores = 1024.0 * 1024;
  EXPECT_NEAR(bytes_per_flop(naive), 4.0, 0.01);
  EXPECT_NEAR(bandwidth_bound_gflops(192, bytes_per_flop(naive)), 48, 0.1);
  EXPECT_THROW(bytes_per_flop(TrafficModel{}), Error);
}

TEST(Roofline, MinimumTraffic) {
  // 4096^3 FP32: A and B read (2 x 64 MiB), C written (64 MiB).
  const Shape s{4096, 4096, 4096};
  EXPECT_DOUBLE_EQ(min_dram_bytes(s, DType::f32, DType::f32, false), 3.0 * 4096 * 4096 * 4);
  EXPECT_DOUBLE_EQ(min_dram_bytes(s, DType::f32, DType::f32, true), 4.0 * 4096 * 4096 * 4);
  EXPECT_DOUBLE_EQ(min_dram_bytes(Shape{2, 3, 5}, DType::bf16, DType::f32, false), 2.0 * (10 + 15) + 4.0 * 6);
  // Intensity 2N^3 / 12 N^2 = N / 6.
  EXPECT_NEAR(s.flops() / min_dram_bytes(s, DType::f32, DType::f32, false), 4096.0 / 6, 1e-9);
}

TEST(Roofline, PlaceOnRoof) {
  Roof r;
  r.compute_gflops = 60000;
  r.bandwidth_gbs = 3000;
  // Intensity 1 flop/B: memory-bound at 3000 GFLOPS.
  RoofPoint p = place_on_roof(r, 1e9, 1e9, 1500);
  EXPECT_DOUBLE_EQ(p.intensity, 1);
  EXPECT_TRUE(p.memory_bound);
  EXPECT_DOUBLE_EQ(p.attainable_gflops, 3000);
  EXPECT_DOUBLE_EQ(p.share, 0.5);
  // Intensity 100: compute-bound at 60000.
  p = place_on_roof(r, 100e9, 1e9, 30000);
  EXPECT_FALSE(p.memory_bound);
  EXPECT_DOUBLE_EQ(p.attainable_gflops, 60000);
  EXPECT_DOUBLE_EQ(p.share, 0.5);
  // Unknown compute roof: no share.
  r.compute_gflops = 0;
  p = place_on_roof(r, 100e9, 1e9, 30000);
  EXPECT_DOUBLE_EQ(p.attainable_gflops, 0);
  EXPECT_DOUBLE_EQ(p.share, 0);
}

TEST(Roofline, RoofsFromMeasuredOrTheoretical) {
  DeviceInfo dev = device_info_of(find_gpu("h100"));
  dev.memory_clock_khz = 2619000;
  dev.memory_bus_bits = 5120;
  Roof t = roof_for(Precision::fp32, dev, nullptr);
  EXPECT_EQ(t.source, "theoretical");
  EXPECT_NEAR(t.compute_gflops, 66900, 100);
  EXPECT_NEAR(t.bandwidth_gbs, 3352, 1);
  Roof bf = roof_for(Precision::bf16, dev, nullptr);
  EXPECT_DOUBLE_EQ(bf.compute_gflops, 989e3);  // the datasheet, dense
  EXPECT_DOUBLE_EQ(roof_for(Precision::tf32, dev, nullptr).compute_gflops, 989e3 / 2);
  Peaks m;
  m.fp32_tflops = 50;
  m.dram_gbs = 3000;
  m.mma_bf16_tflops = 600;
  Roof measured = roof_for(Precision::fp32, dev, &m);
  EXPECT_EQ(measured.source, "measured (gemmlab peak)");
  EXPECT_DOUBLE_EQ(measured.compute_gflops, 50000);
  EXPECT_DOUBLE_EQ(measured.bandwidth_gbs, 3000);
  EXPECT_DOUBLE_EQ(roof_for(Precision::bf16, dev, &m).compute_gflops, 600000);
  m.dram_gbs = 0;
  EXPECT_EQ(roof_for(Precision::fp32, dev, &m).source, "compute measured, bandwidth theoretical");
}

TEST(Roofline, PeaksFileRoundTripAndErrors) {
  Peaks p;
  p.device = "NVIDIA H100 80GB HBM3";
  p.fp32_tflops = 51.5;
  p.dram_gbs = 3010;
  p.mma_bf16_tflops = 640;
  p.theoretical_fp32_tflops = 66.9;
  const nlohmann::json file = {{"context", {{"device", "x"}}}, {"peaks", peaks_to_json(p)}};
  const Peaks back = peaks_from_json(file);
  EXPECT_EQ(back.device, p.device);
  EXPECT_DOUBLE_EQ(back.fp32_tflops, 51.5);
  EXPECT_DOUBLE_EQ(back.dram_gbs, 3010);
  EXPECT_DOUBLE_EQ(back.mma_bf16_tflops, 640);
  EXPECT_THROW(peaks_from_json(nlohmann::json{{"x", 1}}), Error);
  EXPECT_THROW(peaks_from_json(nlohmann::json{{"fp32_tflops", "fast"}, {"dram_gbs", 1}}), Error);
  EXPECT_THROW(peaks_from_json(nlohmann::json{{"fp32_tflops", -1}, {"dram_gbs", 1}}), Error);
  // A device that is not a string is gemmlab's error, not a JSON type error.
  EXPECT_THROW(peaks_from_json(nlohmann::json{{"fp32_tflops", 1}, {"dram_gbs", 1}, {"device", 7}}), Error);
  EXPECT_EQ(peaks_from_json(nlohmann::json{{"fp32_tflops", 1}, {"dram_gbs", 1}, {"device", nullptr}}).device, "");
  EXPECT_THROW(read_peaks_file("/nonexistent/peaks.json"), Error);
  const std::string path = (std::filesystem::temp_directory_path() / "gemmlab_bad_peaks.json").string();
  std::ofstream(path) << "{ not json";
  EXPECT_THROW(read_peaks_file(path), Error);
  std::filesystem::remove(path);
}

}  // namespace
