#!/usr/bin/env bash
# Installs what the browser tests need on a fresh Debian machine: Chromium (headless) for the
# replay-viewer screenshots. Idempotent; needs root or sudo for apt-get. Skips when present.
set -euo pipefail
if command -v chromium >/dev/null 2>&1 || [ -x /usr/bin/chromium ]; then
  echo "chromium: present ($(chromium --version 2>/dev/null || echo unknown))"
  exit 0
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core >/dev/null
echo "chromium: installed ($(chromium --version 2>/dev/null || echo unknown))"
