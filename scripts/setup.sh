#!/usr/bin/env bash
# Installs every Debian package Strider needs (DESIGN section 8). Idempotent: installs only what
# is missing, so a second run is a no-op. Run as root (or with sudo available) on Debian 12.
set -euo pipefail

packages=(
  build-essential cmake make pkg-config g++
  libsystemc-dev libyaml-cpp-dev libboost-dev libboost-program-options-dev
  libgtest-dev libgmock-dev
  libonnx-dev protobuf-compiler libprotobuf-dev
  libonnx-testdata  # ONNX's backend test suite: ctest onnx_conformance
  nlohmann-json3-dev libssl-dev
  python3 python3-dev pybind11-dev python3-numpy python3-matplotlib bc time
  python3-pandas  # optional for users; installed so CI tests the package with and without it
  libstb-dev     # stb_image: PNG / JPEG calibration images
  python3-skimage  # real photographs (skimage/data) for the calibration tests
)
# Only needed to regenerate the bundled ONNX graphs (scripts/export_models.py).
if [ "${STRIDER_EXPORT_DEPS:-0}" = "1" ]; then
  packages+=(python3-torch python3-torchvision python3-onnx)
fi
# Only needed for the libFuzzer targets (scripts/fuzz.sh).
if [ "${STRIDER_FUZZ_DEPS:-0}" = "1" ]; then
  packages+=(clang libclang-rt-14-dev)
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
echo "setup: installing ${missing[*]}" >&2
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
$SUDO apt-get update
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y --no-install-recommends "${missing[@]}"
