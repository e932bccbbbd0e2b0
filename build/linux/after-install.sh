#!/bin/sh
# .deb post-install: install the scanner udev rule and reload udev so a
# plugged-in scanner becomes readable by the plugdev group without a reboot.
set -e
install -m 0644 "/opt/Ticket Kiosk/resources/udev/70-ticket-kiosk-scanners.rules" /etc/udev/rules.d/70-ticket-kiosk-scanners.rules
if command -v udevadm >/dev/null 2>&1; then
  udevadm control --reload-rules || true
  udevadm trigger --subsystem-match=hidraw || true
fi
