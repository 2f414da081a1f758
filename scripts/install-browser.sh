#!/usr/bin/env bash
# Headless Chromium for the viewer's browser tests, from Debian's packages.
# Playwright drives this binary; its own browser download does not work offline.
set -euo pipefail
if [ -x /usr/bin/chromium ]; then
  exit 0
fi
if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null; then
  echo "chromium is missing and cannot be installed here (needs root and apt-get);" \
       "browser tests will be skipped. Install Debian's chromium package to run them." >&2
  exit 0
fi
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
