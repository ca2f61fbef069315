#!/usr/bin/env bash
# The book's browser check (tests/test_book_browser.py) drives a real headless
# Chromium. Install it when we can (root with apt: CI and the dev machines),
# otherwise say how. SKIP_BROWSER=1 skips the check (the test then reports a skip).
set -euo pipefail
[ "${SKIP_BROWSER:-0}" = "1" ] && { echo "note: SKIP_BROWSER=1, the browser check of the book will be skipped"; exit 0; }
[ -n "${CHROMIUM:-}" ] && [ -x "${CHROMIUM}" ] && exit 0
for c in chromium chromium-browser; do command -v "$c" >/dev/null 2>&1 && exit 0; done
if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
  echo "installing Chromium for the book's browser check (apt-get install chromium)"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  command -v chromium >/dev/null 2>&1 && exit 0
fi
cat >&2 <<'MSG'
error: make test checks the built book in a real browser and needs Chromium.
  Debian/Ubuntu:  sudo apt-get install chromium
  other systems:  install Chromium or Google Chrome and set CHROMIUM=/path/to/binary
  or skip that one check:  make test SKIP_BROWSER=1
MSG
exit 1
