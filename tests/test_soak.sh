#!/usr/bin/env bash
# The soak of tests/soak.sh, short (`make soak` runs it for 60 s): a slow
# consumer for 6 s, exact accounting, flat RSS and fd count.
# normal build only: exact loss under a slow consumer is the library's arithmetic (test_collector runs it under ASan); flat RSS means nothing beside ASan's quarantine
source "$(dirname "$0")/lib.sh"
if ! need_root; then
	for t in soak_accounting soak_rss_flat soak_fds_flat; do
		skip "$t" "needs root"
	done
	finish
fi
exec bash "$(dirname "$0")/soak.sh" "$BUILD" 6
