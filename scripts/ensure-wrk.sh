#!/usr/bin/env bash
# The load generator of bench/e2e: wrk from Debian, installed when it is missing.
exec "$(dirname "$0")/ensure-debian.sh" wrk:wrk
