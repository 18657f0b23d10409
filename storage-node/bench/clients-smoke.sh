#!/usr/bin/env bash
# Smoke test of a storage node with two more real S3 clients, s3cmd and rclone (Debian: apt-get install s3cmd
# rclone): for each, make a bucket, put a small object and a multipart one, list, get back (rclone: a range too),
# sync a directory up and down, remove everything, remove the bucket. Exits non-zero on the first mismatch.
# Run by ThirdPartyClientsIT against the packaged node with SigV4; by hand against any node:
#
#   storage-node/bench/clients-smoke.sh http://127.0.0.1:9000 ACCESS_KEY SECRET
set -euo pipefail
EP=$1 KEY=$2 SECRET=$3
HOSTPORT=${EP#http://}
for tool in s3cmd rclone cmp diff; do
    command -v "$tool" >/dev/null || { echo "missing $tool (apt-get install s3cmd rclone)" >&2; exit 2; }
done
WORK=$(mktemp -d /tmp/promptcache-smoke.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
step() { echo "== $*"; }
RUN=$(( RANDOM * 32768 + RANDOM ))     # buckets of their own: a node may hold an earlier run's

head -c 300000 /dev/urandom > "$WORK/small.bin"
head -c 12000000 /dev/urandom > "$WORK/large.bin"     # 3 parts of 5 MiB at most
mkdir -p "$WORK/dir/sub"
for i in 1 2 3; do head -c $((i * 70000)) /dev/urandom > "$WORK/dir/file $i.bin"; done
echo "a text" > "$WORK/dir/sub/x+y.txt"

step "s3cmd $(s3cmd --version | cut -d' ' -f3)"
cat > "$WORK/s3cfg" <<CFG
[default]
access_key = $KEY
secret_key = $SECRET
host_base = $HOSTPORT
host_bucket = $HOSTPORT
use_https = False
signature_v2 = False
bucket_location = us-east-1
enable_multipart = True
multipart_chunk_size_mb = 5
CFG
S3CMD=(s3cmd -c "$WORK/s3cfg" --no-progress)
B=s3://s3cmd-smoke-$RUN
"${S3CMD[@]}" mb "$B"
"${S3CMD[@]}" put "$WORK/small.bin" "$B/small.bin"
"${S3CMD[@]}" --debug put "$WORK/large.bin" "$B/large.bin" > "$WORK/s3cmd-put.log" 2>&1 \
    || { tail -20 "$WORK/s3cmd-put.log"; exit 1; }
grep -q "Upload finished: 3 parts" "$WORK/s3cmd-put.log"                         # a multipart upload of 3 parts
"${S3CMD[@]}" ls "$B/" | tee "$WORK/s3cmd-ls.txt"
grep -q "$B/small.bin" "$WORK/s3cmd-ls.txt" && grep -q "$B/large.bin" "$WORK/s3cmd-ls.txt"
"${S3CMD[@]}" info "$B/large.bin" | grep -E "File size|MD5 sum"
"${S3CMD[@]}" get "$B/large.bin" "$WORK/large.s3cmd"
cmp "$WORK/large.bin" "$WORK/large.s3cmd"
"${S3CMD[@]}" get "$B/small.bin" "$WORK/small.s3cmd"
cmp "$WORK/small.bin" "$WORK/small.s3cmd"
"${S3CMD[@]}" sync "$WORK/dir/" "$B/dir/"
"${S3CMD[@]}" sync "$B/dir/" "$WORK/dir.s3cmd/"
diff -r "$WORK/dir" "$WORK/dir.s3cmd"
"${S3CMD[@]}" del --recursive --force "$B/"
"${S3CMD[@]}" rb "$B"
echo "s3cmd: OK"

step "rclone $(rclone version | head -1 | cut -d' ' -f2)"
export RCLONE_CONFIG="$WORK/rclone.conf" RCLONE_CONFIG_PC_TYPE=s3 RCLONE_CONFIG_PC_PROVIDER=Other \
    RCLONE_CONFIG_PC_ENDPOINT="$EP" RCLONE_CONFIG_PC_ACCESS_KEY_ID="$KEY" RCLONE_CONFIG_PC_SECRET_ACCESS_KEY="$SECRET" \
    RCLONE_CONFIG_PC_REGION=us-east-1 RCLONE_CONFIG_PC_FORCE_PATH_STYLE=true
touch "$RCLONE_CONFIG"
# the node is plain http on 127.0.0.1; rclone's AWS SDK fails on an AWS_CA_BUNDLE some machines set for a proxy
rclone() { env -u AWS_CA_BUNDLE rclone "$@"; }
R=pc:rclone-smoke-$RUN
rclone mkdir "$R"
rclone copyto "$WORK/small.bin" "$R/small.bin"
rclone copyto --s3-upload-cutoff 5M --s3-chunk-size 5M "$WORK/large.bin" "$R/large.bin"
rclone ls "$R" | tee "$WORK/rclone-ls.txt"
grep -q " small.bin" "$WORK/rclone-ls.txt" && grep -q " large.bin" "$WORK/rclone-ls.txt"
rclone cat --offset 1000 --count 5000 "$R/large.bin" > "$WORK/range.rclone"     # a range GET
cmp <(tail -c +1001 "$WORK/large.bin" | head -c 5000) "$WORK/range.rclone"
rclone copyto "$R/large.bin" "$WORK/large.rclone"
cmp "$WORK/large.bin" "$WORK/large.rclone"
rclone sync "$WORK/dir" "$R/dir"
rclone check "$WORK/dir" "$R/dir"
rclone sync "$R/dir" "$WORK/dir.rclone"
diff -r "$WORK/dir" "$WORK/dir.rclone"
rclone purge "$R"
if rclone lsd pc: | grep -q "rclone-smoke-$RUN"; then echo "the bucket is still listed" >&2; exit 1; fi
echo "rclone: OK"
