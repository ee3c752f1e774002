#!/usr/bin/env bash
# Installs what the browser and GUI tests need on a fresh Debian machine: Chromium (headless), which
# the browser tests drive with Playwright (the test extra; tests/conftest.py points it at
# /usr/bin/chromium, so Playwright never downloads a browser of its own), and Xvfb for the PyBullet
# GUI test. Idempotent; needs root or sudo for apt-get. Skips what is present.
set -euo pipefail
need=()
command -v chromium >/dev/null 2>&1 || need+=(chromium)
command -v Xvfb >/dev/null 2>&1 || need+=(xvfb)
if [ "${#need[@]}" -eq 0 ]; then
  echo "test environment: chromium and Xvfb present ($(chromium --version 2>/dev/null || echo chromium))"
  exit 0
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${need[@]}" fonts-dejavu-core >/dev/null
echo "test environment: installed ${need[*]} ($(chromium --version 2>/dev/null || echo chromium))"
