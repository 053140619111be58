#include "planner/quant/calibration_inputs.h"

#include <glob.h>
#include <stb_image.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <memory>
#include <stdexcept>

#include "core/common/input_file.h"

namespace strider {
namespace {

namespace fs = std::filesystem;

constexpr uint64_t kMaxInputFileBytes = uint64_t{512} << 20;  // one image or array

[[noreturn]] void fail(const std::string& key, const std::string& path, const std::string& what) {
  throw std::runtime_error(key + ": " + path + ": " + what);
}

// The whole file, its errors naming the key.
std::string read_file(const std::string& path, const std::string& key) {
  try {
    return read_input_file(path, kMaxInputFileBytes);
  } catch (const InputFileError& e) {
    fail(key, path, e.reason());
  }
}

bool input_extension(const fs::path& p) {
  std::string e = p.extension().string();
  std::transform(e.begin(), e.end(), e.begin(), [](unsigned char c) { return std::tolower(c); });
  return e == ".npy" || e == ".png" || e == ".jpg" || e == ".jpeg";
}

std::string shape_text(const std::vector<int64_t>& s) {
  std::string t = "(";
  for (size_t i = 0; i < s.size(); ++i) t += (i ? ", " : "") + std::to_string(s[i]);
  return t + (s.size() == 1 ? ",)" : ")");
}

// A .npy array: version 1-3 header, dtype <f4, <f8 or |u1, C order.
std::vector<float> load_npy(const std::string& path, int64_t c, int64_t h, int64_t w,
                            const Preprocess& p, const std::string& key) {
  const std::string bytes = read_file(path, key);
  if (bytes.size() < 10 || bytes.compare(0, 6, "\x93NUMPY") != 0)
    fail(key, path, "not a .npy file");
  const int major = static_cast<unsigned char>(bytes[6]);
  size_t header_len = 0, start = 0;
  if (major == 1) {
    header_len = size_t(uint8_t(bytes[8])) | size_t(uint8_t(bytes[9])) << 8;
    start = 10;
  } else if (bytes.size() >= 12) {
    header_len = 0;
    for (int i = 0; i < 4; ++i) header_len |= size_t(uint8_t(bytes[8 + i])) << (8 * i);
    start = 12;
  }
  if (start == 0 || start + header_len > bytes.size()) fail(key, path, "truncated .npy header");
  const std::string header = bytes.substr(start, header_len);
  const auto field = [&](const std::string& name) {
    const size_t at = header.find("'" + name + "'");
    if (at == std::string::npos) fail(key, path, ".npy header without '" + name + "'");
    return header.substr(header.find(':', at) + 1);
  };
  const std::string descr = field("descr");
  const std::string dtype = descr.substr(descr.find('\'') + 1, 3);
  size_t item = 0;
  if (dtype == "<f4") item = 4;
  if (dtype == "<f8") item = 8;
  if (dtype == "|u1") item = 1;
  if (item == 0)
    fail(key, path, "dtype " + dtype + ", expected float32 (<f4), float64 (<f8) or uint8");
  if (field("fortran_order").find("False") != 0 && field("fortran_order").find(" False") != 0) {
    fail(key, path, "Fortran order, expected C order");
  }
  std::string shape_src = field("shape");
  shape_src =
      shape_src.substr(shape_src.find('(') + 1, shape_src.find(')') - shape_src.find('(') - 1);
  std::vector<int64_t> shape;
  for (size_t i = 0; i < shape_src.size();) {
    const size_t comma = shape_src.find(',', i);
    const std::string part =
        shape_src.substr(i, comma == std::string::npos ? std::string::npos : comma - i);
    if (part.find_first_of("0123456789") != std::string::npos) shape.push_back(std::stoll(part));
    if (comma == std::string::npos) break;
    i = comma + 1;
  }
  const bool nhwc = p.layout == "nhwc";
  std::vector<int64_t> want = nhwc ? std::vector<int64_t>{h, w, c} : std::vector<int64_t>{c, h, w};
  std::vector<int64_t> want_batched = want;
  want_batched.insert(want_batched.begin(), 1);
  if (shape != want && shape != want_batched) {
    fail(key, path,
         "shape " + shape_text(shape) + ", expected " + shape_text(want) + " or " +
             shape_text(want_batched) + " (quant.preprocess.layout " + p.layout + ")");
  }
  const size_t n = size_t(c * h * w), data = start + header_len;
  if (bytes.size() < data + n * item) fail(key, path, "truncated .npy data");
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) {
    const char* at = bytes.data() + data + i * item;
    float x = 0;
    if (item == 4) {
      std::memcpy(&x, at, 4);
    } else if (item == 8) {
      double d;
      std::memcpy(&d, at, 8);
      x = float(d);
    } else {
      x = float(uint8_t(*at));
    }
    if (!std::isfinite(x)) fail(key, path, "element " + std::to_string(i) + " is not finite");
    // NHWC element (y, x, ch) to CHW.
    const size_t dst = nhwc ? (i % size_t(c)) * size_t(h * w) + i / size_t(c) : i;
    v[dst] = x;
  }
  return v;
}

// Bilinear sample of channel ch of an 8-bit interleaved image at real (y, x), edges clamped.
float sample(const uint8_t* px, int iw, int ih, int chans, int ch, double y, double x) {
  y = std::clamp(y, 0.0, double(ih - 1));
  x = std::clamp(x, 0.0, double(iw - 1));
  const int y0 = int(y), x0 = int(x), y1 = std::min(y0 + 1, ih - 1), x1 = std::min(x0 + 1, iw - 1);
  const double fy = y - y0, fx = x - x0;
  const auto at = [&](int yy, int xx) { return double(px[(size_t(yy) * iw + xx) * chans + ch]); };
  return float((at(y0, x0) * (1 - fx) + at(y0, x1) * fx) * (1 - fy) +
               (at(y1, x0) * (1 - fx) + at(y1, x1) * fx) * fy);
}

std::vector<float> load_image(const std::string& path, int64_t c, int64_t h, int64_t w,
                              const Preprocess& p, const std::string& key) {
  const std::string bytes = read_file(path, key);
  int iw = 0, ih = 0, chans = 0;
  std::unique_ptr<uint8_t, void (*)(void*)> px(
      stbi_load_from_memory(reinterpret_cast<const stbi_uc*>(bytes.data()), int(bytes.size()), &iw,
                            &ih, &chans, 0),
      stbi_image_free);
  if (!px) fail(key, path, std::string("cannot decode the image (") + stbi_failure_reason() + ")");
  if (c != 1 && c != 3) {
    fail(key, path,
         "an image for an input of " + std::to_string(c) +
             " channels, expected 1 or 3 (give .npy arrays)");
  }
  // The resized image's size (shorter side to `resize`) and the crop's offset in it.
  double rh = double(h), rw = double(w), oy = 0, ox = 0;
  if (p.resize > 0) {
    const double s = double(p.resize) / double(std::min(iw, ih));
    rh = std::round(ih * s);
    rw = std::round(iw * s);
    if (rh < double(h) || rw < double(w)) {
      fail(key, path,
           "resized to " + std::to_string(int64_t(rw)) + " x " + std::to_string(int64_t(rh)) +
               ", smaller than the input's " + std::to_string(w) + " x " + std::to_string(h) +
               " (quant.preprocess.resize " + std::to_string(p.resize) + ")");
    }
    oy = std::round((rh - double(h)) / 2);
    ox = std::round((rw - double(w)) / 2);
  }
  const double sy = double(ih) / rh, sx = double(iw) / rw;
  std::vector<float> v(size_t(c * h * w));
  for (int64_t ch = 0; ch < c; ++ch) {
    // The network's channel ch: rgb order, or reversed for bgr; grey images replicate.
    const int colour = c == 1 ? 0 : p.channels == "bgr" ? int(2 - ch) : int(ch);
    const int src = chans >= 3 ? colour : 0;
    const double mean = p.mean.size() == 1 ? p.mean[0] : p.mean.at(size_t(ch));
    const double sd = p.std.size() == 1 ? p.std[0] : p.std.at(size_t(ch));
    for (int64_t y = 0; y < h; ++y) {
      for (int64_t x = 0; x < w; ++x) {
        const double fy = (double(y) + oy + 0.5) * sy - 0.5, fx = (double(x) + ox + 0.5) * sx - 0.5;
        const double value = sample(px.get(), iw, ih, chans, src, fy, fx) / 255.0;
        v[size_t((ch * h + y) * w + x)] = float((value - mean) / sd);
      }
    }
  }
  return v;
}

}  // namespace

std::vector<std::string> input_files(const InputSet& set, const std::string& key) {
  std::vector<std::string> files;
  std::error_code ec;
  if (fs::is_directory(set.inputs, ec)) {
    for (const fs::directory_entry& e : fs::directory_iterator(set.inputs, ec)) {
      if (e.is_regular_file(ec) && input_extension(e.path())) files.push_back(e.path().string());
    }
  } else if (set.inputs.find_first_of("*?[") != std::string::npos) {
    glob_t g{};
    if (::glob(set.inputs.c_str(), 0, nullptr, &g) == 0) {
      for (size_t i = 0; i < g.gl_pathc; ++i) files.push_back(g.gl_pathv[i]);
    }
    globfree(&g);
  } else {
    try {
      check_input_file(set.inputs, kMaxInputFileBytes);
    } catch (const InputFileError& e) {
      fail(key, set.inputs, e.reason());
    }
    files.push_back(set.inputs);
  }
  std::sort(files.begin(), files.end());
  if (files.empty()) {
    throw std::runtime_error(key + ": " + set.inputs +
                             ": no input file (expected .npy, .png, .jpg or .jpeg files)");
  }
  if (set.count > 0 && files.size() > set.count) files.resize(size_t(set.count));
  return files;
}

std::vector<float> load_input(const std::string& path, int64_t c, int64_t h, int64_t w,
                              const Preprocess& p, const std::string& key) {
  if (p.mean.size() != 1 && int64_t(p.mean.size()) != c) {
    fail(key, path,
         "quant.preprocess.mean has " + std::to_string(p.mean.size()) +
             " values, expected 1 or the input's " + std::to_string(c) + " channels");
  }
  if (p.std.size() != 1 && int64_t(p.std.size()) != c) {
    fail(key, path,
         "quant.preprocess.std has " + std::to_string(p.std.size()) +
             " values, expected 1 or the input's " + std::to_string(c) + " channels");
  }
  if (fs::path(path).extension() == ".npy") return load_npy(path, c, h, w, p, key);
  return load_image(path, c, h, w, p, key);
}

std::vector<std::vector<float>> load_input_set(const InputSet& set, const Tensor& t,
                                               const Preprocess& p, const std::string& key,
                                               std::vector<std::string>* names) {
  const std::vector<std::string> files = input_files(set, key);
  const size_t batch = size_t(std::max<int64_t>(t.shape.n, 1));
  if (files.size() < batch) {
    throw std::runtime_error(key + ": " + set.inputs + ": " + std::to_string(files.size()) +
                             " file(s), the input '" + t.name + "' takes a batch of " +
                             std::to_string(batch));
  }
  std::vector<std::vector<float>> samples;
  for (size_t i = 0; i + batch <= files.size(); i += batch) {
    std::vector<float> s;
    for (size_t b = 0; b < batch; ++b) {
      const std::vector<float> one =
          load_input(files[i + b], t.shape.c, t.shape.h, t.shape.w, p, key);
      s.insert(s.end(), one.begin(), one.end());
    }
    samples.push_back(std::move(s));
    if (names) names->push_back(files[i]);
  }
  return samples;
}

}  // namespace strider
