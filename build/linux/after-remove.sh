#!/bin/sh
set -e
rm -f /etc/udev/rules.d/70-ticket-kiosk-scanners.rules
command -v udevadm >/dev/null 2>&1 && udevadm control --reload-rules || true
