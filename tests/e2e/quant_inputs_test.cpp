// Calibration and evaluation on the user's inputs (planner/quant/calibration_inputs.h, run keys
// quant.calibration / quant.evaluation / quant.preprocess). Real photographs come from
// Debian's python3-skimage (skimage/data); the tests that need them skip naming the package.
#include <gtest/gtest.h>
#include <stb_image_write.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "planner/quant/calibration_inputs.h"
#include "tests/e2e/child_run.h"
#include "tests/e2e/report_util.h"

namespace strider {
namespace {

namespace fs = std::filesystem;
using namespace report_test;

const std::string kSkimage = "/usr/lib/python3/dist-packages/skimage/data/";

// A float32 .npy of `shape` holding `v`.
void write_npy(const std::string& path, const std::string& shape, const std::vector<float>& v) {
  std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': " + shape + ", }";
  while ((10 + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  std::ofstream f(path, std::ios::binary);
  f.write("\x93NUMPY\x01\x00", 8);
  const uint16_t n = uint16_t(header.size());
  f.put(char(n & 0xff)).put(char(n >> 8));
  f << header;
  f.write(reinterpret_cast<const char*>(v.data()), std::streamsize(v.size() * 4));
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "no error";
}

TEST(QuantInputs, NpyInEitherLayout) {
  Scratch dir("npy");
  fs::create_directories(dir.str());
  // (2, 1, 3) NCHW: channel 0 = 1 2 3, channel 1 = 4 5 6.
  write_npy(dir.file("a.npy"), "(2, 1, 3)", {1, 2, 3, 4, 5, 6});
  Preprocess p;
  EXPECT_EQ(load_input(dir.file("a.npy"), 2, 1, 3, p, "k"), (std::vector<float>{1, 2, 3, 4, 5, 6}));
  // The same bytes as (1, 1, 3, 2) NHWC: pixel x has channels (v[2x], v[2x + 1]).
  write_npy(dir.file("b.npy"), "(1, 1, 3, 2)", {1, 2, 3, 4, 5, 6});
  p.layout = "nhwc";
  EXPECT_EQ(load_input(dir.file("b.npy"), 2, 1, 3, p, "k"), (std::vector<float>{1, 3, 5, 2, 4, 6}));
  EXPECT_EQ(
      error_of([&] { load_input(dir.file("a.npy"), 2, 1, 3, p, "quant.calibration.inputs"); }),
      "quant.calibration.inputs: " + dir.file("a.npy") +
          ": shape (2, 1, 3), expected (1, 3, 2) or (1, 1, 3, 2) (quant.preprocess.layout nhwc)");
  // A directory lists its inputs sorted; count keeps the first.
  InputSet set{dir.str(), 1};
  EXPECT_EQ(input_files(set, "k"), (std::vector<std::string>{dir.file("a.npy")}));
  EXPECT_EQ(error_of([&] {
              input_files(InputSet{dir.str() + "/*.png", 0}, "quant.evaluation.inputs");
            }),
            "quant.evaluation.inputs: " + dir.str() +
                "/*.png: no input file (expected .npy, .png, "
                ".jpg or .jpeg files)");
}

// PNG decoding and the preprocessing on a 4 x 2 image written here: resize, crop, mean / std and
// channel order by hand.
TEST(QuantInputs, ImagePreprocessing) {
  Scratch dir("png");
  fs::create_directories(dir.str());
  // 4 wide, 2 high, RGB: pixel (y, x) = (40 x + 10 y, 100, 200 - 40 x).
  std::vector<uint8_t> px;
  for (int y = 0; y < 2; ++y) {
    for (int x = 0; x < 4; ++x) {
      px.push_back(uint8_t(40 * x + 10 * y));
      px.push_back(100);
      px.push_back(uint8_t(200 - 40 * x));
    }
  }
  ASSERT_NE(stbi_write_png(dir.file("i.png").c_str(), 4, 2, 3, px.data(), 12), 0);
  Preprocess p;
  // resize 0: the whole image to 2 x 1 (H 1, W 2): source x = (x + 0.5) 2 - 0.5 = 0.5, 2.5;
  // y = (0.5) 2 - 0.5 = 0.5. Red at (0.5, 0.5): mean of 0, 40, 10, 50 = 25; at (0.5, 2.5): 105.
  std::vector<float> v = load_input(dir.file("i.png"), 3, 1, 2, p, "k");
  ASSERT_EQ(v.size(), 6u);
  EXPECT_FLOAT_EQ(v[0], float(25 / 255.0));
  EXPECT_FLOAT_EQ(v[1], float(105 / 255.0));
  EXPECT_FLOAT_EQ(v[2], float(100 / 255.0));
  // Blue (200 - 40 x) at x 0.5, 2.5: 180, 100.
  EXPECT_FLOAT_EQ(v[4], float(180 / 255.0));
  // bgr, mean 0.5, std 0.25: channel 0 is blue, (180 / 255 - 0.5) / 0.25.
  p.channels = "bgr";
  p.mean = {0.5};
  p.std = {0.25};
  v = load_input(dir.file("i.png"), 3, 1, 2, p, "k");
  EXPECT_FLOAT_EQ(v[0], float((180 / 255.0 - 0.5) / 0.25));
  // resize 2 (shorter side 2 -> 4 x 2 unchanged), centre crop 2 x 2: x from 1, exact pixels.
  p = Preprocess();
  p.resize = 2;
  v = load_input(dir.file("i.png"), 3, 2, 2, p, "k");
  EXPECT_FLOAT_EQ(v[0], float(40 / 255.0));  // red (0, 1)
  EXPECT_FLOAT_EQ(v[3], float(90 / 255.0));  // red (1, 2)
  p.resize = 1;                              // 2 x 1 after resize: smaller than the 2 x 2 input
  EXPECT_EQ(
      error_of([&] { load_input(dir.file("i.png"), 3, 2, 2, p, "quant.calibration.inputs"); }),
      "quant.calibration.inputs: " + dir.file("i.png") +
          ": resized to 2 x 1, smaller than the input's 2 x 2 (quant.preprocess.resize 1)");
  std::ofstream(dir.file("bad.png")) << "not a png";
  EXPECT_EQ(
      error_of([&] { load_input(dir.file("bad.png"), 3, 2, 2, p, "quant.calibration.inputs"); })
          .rfind("quant.calibration.inputs: " + dir.file("bad.png") + ": cannot decode the image (",
                 0),
      0u);
}

// A functional run calibrated on photographs and evaluated on others: both sets in summary.json
// and layers.csv, the method recorded, the figure no longer in-sample.
TEST(QuantInputs, RunWithCalibrationAndEvaluationPhotos) {
  if (!fs::exists(kSkimage + "chelsea.png")) {
    GTEST_SKIP() << "needs Debian's python3-skimage (real photographs in " << kSkimage << ")";
  }
  Scratch dir("quant_photos");
  std::ostringstream out, err;
  const std::vector<std::string> args = {
      "run",   kDefaultRun,
      "--out", dir.str(),
      "--set", "sim.functional=true",
      "--set", "quant.calibration.inputs=" + kSkimage + "c*.png",  // camera, cell, ..., coffee
      "--set", "quant.calibration.count=3",
      "--set", "quant.calibration.method=percentile",
      "--set", "quant.evaluation.inputs=" + kSkimage + "astronaut.png",
      "--set", "quant.preprocess.resize=40",
      "--set", "quant.preprocess.mean=[0.485, 0.456, 0.406]",
      "--set", "quant.preprocess.std=[0.229, 0.224, 0.225]"};
  ASSERT_EQ(dispatch(args, out, err), 0) << err.str();
  const nlohmann::json j = read_json(dir.file("summary.json"));
  EXPECT_EQ(j["functional"]["mismatches"], 0);
  const nlohmann::json& q = j["quant"];
  EXPECT_EQ(q["in_sample"], false);
  EXPECT_EQ(q["synthetic"], false);
  EXPECT_EQ(q["method"], "percentile 99.99");
  EXPECT_EQ(q["calibration"]["samples"], 3);
  EXPECT_EQ(q["evaluation"]["samples"], 1);
  EXPECT_EQ(q["evaluation"]["top1_total"], 1);
  EXPECT_TRUE(q["evaluation"]["output_sqnr_db"].is_number());
  // Per sample, named by its file (the first 3 of c*.png by name: camera, cell,
  // checker_bilevel); one held-out sample: its figures are the set's.
  ASSERT_EQ(q["calibration"]["per_sample"].size(), 3u);
  EXPECT_EQ(q["calibration"]["per_sample"][0]["input"], kSkimage + "camera.png");
  EXPECT_EQ(q["calibration"]["per_sample"][2]["input"], kSkimage + "checker_bilevel.png");
  const nlohmann::json& one = q["evaluation"]["per_sample"];
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0]["input"], kSkimage + "astronaut.png");
  EXPECT_EQ(one[0]["output_sqnr_db"], q["evaluation"]["output_sqnr_db"]);
  EXPECT_EQ(one[0]["output_relative_error"], q["evaluation"]["output_relative_error"]);
  EXPECT_EQ(one[0]["top1_agree"], q["evaluation"]["top1_agree"] == 1);
  EXPECT_NE(out.str().find("held-out         output SQNR"), std::string::npos) << out.str();
  int eval_rows = 0;
  for (const auto& row : read_csv(dir.file("layers.csv")).rows)
    eval_rows += !row.at("eval_sqnr_db").empty();
  EXPECT_EQ(eval_rows, j["functional"]["checked_tensors"].get<int>());
}

// A residual Add fused into its conv (lowering.fuse, the default) changes no value: the input
// sets' figures are the unfused run's, to the bit. Their float pass runs the graph as
// calibrated (QuantInfo::float_graph): on the fused graph it missed the Add and its ReLU
// (tiny_cnn's conv2b takes add1) and read Clip bounds by shifted node indices.
TEST(QuantInputs, FusedResidualsMeasureAsUnfused) {
  Scratch dir("quant_fused");
  fs::create_directories(dir.str() + "/cal");
  fs::create_directories(dir.str() + "/eval");
  for (int k = 0; k < 3; ++k) {  // smooth, a different phase and amplitude per sample
    std::vector<float> v(3 * 32 * 32);
    for (size_t i = 0; i < v.size(); ++i) v[i] = float((1 + 0.4 * k) * std::sin(0.05 * i + k));
    write_npy(dir.str() + (k < 2 ? "/cal/" : "/eval/") + std::to_string(k) + ".npy",
              "(3, 32, 32)", v);
  }
  nlohmann::json q[2];
  for (int fuse = 0; fuse < 2; ++fuse) {
    const std::string out = dir.file(fuse ? "fused" : "plain");
    const std::vector<std::string> args = {
        "run", kDefaultRun, "--out", out, "--set", "sim.functional=true",
        "--set", std::string("arch.lowering.fuse=") + (fuse ? "true" : "false"),
        "--set", "quant.calibration.inputs=" + dir.str() + "/cal",
        "--set", "quant.evaluation.inputs=" + dir.str() + "/eval"};
    struct Exit {
      int status;
    };
    const Exit done = in_child<Exit>([&](Exit& x) {  // one simulation per process
      std::ostringstream o, e;
      x.status = dispatch(args, o, e);
    });
    ASSERT_EQ(done.status, 0);
    const nlohmann::json j = read_json(out + "/summary.json");
    EXPECT_EQ(j["functional"]["mismatches"], 0);
    // add1 folded into conv2b and pool1 into conv1 when fused
    EXPECT_EQ(j["functional"]["checked_tensors"], fuse ? 7 : 9);
    q[fuse] = j["quant"];
  }
  for (const char* set : {"calibration", "evaluation"}) {
    const nlohmann::json &a = q[0][set], &b = q[1][set];
    ASSERT_TRUE(a["output_sqnr_db"].is_number()) << set;
    EXPECT_EQ(a["output_sqnr_db"], b["output_sqnr_db"]) << set;
    EXPECT_EQ(a["top1_agree"], b["top1_agree"]) << set;
    ASSERT_EQ(a["per_sample"].size(), b["per_sample"].size()) << set;
    // (clipped_fraction differs: it counts the measured layers' values, and conv2b's own
    // result is no layer's output once fused)
    for (size_t i = 0; i < a["per_sample"].size(); ++i)
      EXPECT_EQ(a["per_sample"][i]["output_sqnr_db"], b["per_sample"][i]["output_sqnr_db"]);
  }
}

TEST(QuantInputs, ConfigErrorsNameTheKey) {
  Scratch dir("quant_bad");
  // Each run's --set overrides and a piece of the error it must print (exit status not 0).
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"quant.calibration.method=kl"},
       "--set quant.calibration.method=kl: expected one of mse, minmax, percentile, entropy, "
       "got \"kl\""},
      {{"sim.functional=true", "quant.calibration.inputs=/nonexistent/x.npy"},
       "/nonexistent/x.npy"},
      {{"quant.calibration.output_headroom=0.5"},
       "--set quant.calibration.output_headroom=0.5: expected a finite factor >= 1, got 0.5"},
      {{"quant.calibration.bias_correction=maybe"},
       "--set quant.calibration.bias_correction=maybe: expected true or false, got \"maybe\""}};
  for (const auto& [sets, want] : cases) {
    std::vector<std::string> args = {"run", kDefaultRun, "--out", dir.str()};
    for (const std::string& s : sets) args.insert(args.end(), {"--set", s});
    std::ostringstream out, err;
    EXPECT_NE(dispatch(args, out, err), 0) << want;
    EXPECT_NE(err.str().find(want), std::string::npos) << err.str();
  }
}

}  // namespace
}  // namespace strider
