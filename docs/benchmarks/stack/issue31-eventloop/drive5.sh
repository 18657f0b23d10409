#!/usr/bin/env bash
# drive4.sh's real-time event loops with this session (the bench, i.e. the engines and their HTTP client) in a
# scheduling group at nice -10 too: how much of the client's lookup tail is the client waiting for a core.
set -u
here=$(cd "$(dirname "$0")" && pwd)
setsid bash -c "echo -10 > /proc/\$\$/autogroup; cat /proc/\$\$/autogroup > /tmp/client-autogroup.txt; RUN=rt-loops-client $here/drive4.sh $*"
mv /tmp/client-autogroup.txt ${OUT_ROOT:-$here}/rt-loops-client/client-autogroup.txt
