#!/usr/bin/env bash
# Installs the Debian/Ubuntu packages the project needs (run as root or with sudo).
# Already-installed packages are skipped, so it is cheap to run again.
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
packages=(
  python3 make g++ pkg-config   # native addons (better-sqlite3, keytar) build from source
  libsecret-1-dev               # keytar: the OS keychain on Linux (Secret Service)
  libusb-1.0-0 libudev1         # node-hid's prebuilt binary
  gnome-keyring dbus dbus-x11   # a real keyring, also headless, for the secret-store tests
  chromium                      # end-to-end tests and the browser kiosk
  poppler-utils                 # pdftoppm, pdftotext, pdfinfo: the tests read back the PDFs of `ticket export`
  postgresql                    # initdb/pg_ctl and the postgres user: tests start their own throwaway cluster
                                # (test/support/postgres-cluster.ts); the package's own 5432 cluster is not used
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "system packages: all present"
  exit 0
fi
echo "system packages: installing ${missing[*]}"
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
