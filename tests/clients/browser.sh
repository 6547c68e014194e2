#!/usr/bin/env bash
# A page in headless Chromium fetching `serve` from another origin (tests/clients/browser.py).
# Installs Debian's chromium when it is missing and apt-get can; skips, saying why, otherwise.
# Usage: browser.sh PATH/TO/vault-search
set -euo pipefail
binary=$1
here=$(dirname "$0")

find_chromium() {
    command -v chromium || command -v chromium-browser || command -v google-chrome || true
}
chromium=$(find_chromium)
if [ -z "$chromium" ]; then
    if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
        echo "chromium not found: installing Debian's chromium"
        if ! { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium; } >/dev/null; then
            echo "browser test: skipped: chromium could not be installed (no package archive?)"
            exit 0
        fi
        chromium=$(find_chromium)
    else
        echo "browser test: skipped: no chromium, and no apt-get as root to install it"
        exit 0
    fi
fi
python3 "$here/browser.py" "$binary" "$chromium"
