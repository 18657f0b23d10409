#!/usr/bin/env bash
# drive.sh <checkout> <label>:<extra up args> ...: the issue-31 bench (16 engines, 300 s, 60 s warm-up, fresh stack
# each; ../issue31-priority/run.sh) with `up --index-first` plus each label's extra `up` arguments, in the order given.
# E.g. drive.sh /tmp/home base: lim4:"--index-config quarkus.thread-pool.max-threads=4"
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
HOME_DIR=$1; shift
for spec in "$@"; do
  label=${spec%%:*}; extra=${spec#*:}
  OUT_ROOT=$here UP_ARGS="--index-first $extra" "$here/../issue31-priority/run.sh" "$label" "$HOME_DIR" 300
  python3 "$here/../issue31-listed-keys/cpu-window.py" "$here/$label" 120 301
done
