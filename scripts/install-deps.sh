#!/usr/bin/env bash
# Installs the Debian 12 packages Cairn needs: `build` for compiling and running the server,
# `test` additionally for the test suite (PostgreSQL server, Python venv). Skips what is there.
set -euo pipefail
profile=${1:-build}
pkgs=(build-essential cmake ninja-build ccache pkg-config libboost-dev nlohmann-json3-dev
      libsqlite3-dev libpq-dev libspdlog-dev libfmt-dev libcli11-dev libssl-dev libcurl4-openssl-dev libavro-dev
      zlib1g-dev libmariadb-dev librdkafka-dev libthrift-dev thrift-compiler libjemalloc-dev)
# The web UI (ui/) is built with npm from its lock file at build time; Debian's Node.js 18 and npm
# do it. A machine that already has a newer Node.js with npm keeps it.
command -v npm >/dev/null 2>&1 || pkgs+=(nodejs npm)
if [ "$profile" = test ]; then
  # The UI's browser tests drive Debian's Chromium (no browser download).
  pkgs+=(chromium chromium-driver)
  pkgs+=(googletest libgtest-dev libgmock-dev postgresql postgresql-client python3 python3-venv curl
         libssl-dev maven mariadb-server mariadb-client clang-14 libclang-rt-14-dev)
  # The REST compatibility kit runs on a JDK 17; keep a preinstalled one.
  command -v javac >/dev/null 2>&1 || pkgs+=(openjdk-17-jdk-headless)
fi
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "Installing Debian packages: ${missing[*]}"
sudo_cmd=()
[ "$(id -u)" -ne 0 ] && sudo_cmd=(sudo)
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
