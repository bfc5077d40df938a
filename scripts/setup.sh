#!/usr/bin/env bash
# Installs the Debian packages eksim needs, skipping those already present. Safe to run twice.
set -euo pipefail

packages=(
  g++ cmake make pkg-config
  # scripts/dev builds through ccache when it is present: rebuilds compile only what changed
  ccache
  libboost-dev nlohmann-json3-dev libyaml-cpp-dev libcli11-dev libfmt-dev libeigen3-dev
  # RE2: user-written regexps (Cluster Autoscaler's priority expander) with Go's linear-time semantics
  libre2-dev
  googletest libgtest-dev libbenchmark-dev
  # the sanitizer stage and the fuzz targets: clang with libFuzzer, ASan and UBSan runtimes
  clang-14 libclang-rt-14-dev llvm-14
  # notebooks run headless in the test suite with Debian's python3
  python3 python3-nbconvert python3-nbformat python3-ipykernel python3-matplotlib python3-pandas
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#packages[@]} packages present"
  exit 0
fi
echo "setup: installing ${missing[*]}"
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq || true
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
