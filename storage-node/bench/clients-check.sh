#!/usr/bin/env bash
# Compatibility check with the AWS CLI and boto3 (Debian: apt-get install awscli python3-boto3): starts the packaged
# node with SigV4 on and drives it with both clients (bucket and object operations, ranged GET, multipart upload,
# batch delete, presigned GET, and boto3's plain create_multipart_upload / upload_part / complete_multipart_upload
# sequence at several part sizes with a part sent again, ListMultipartUploads, PartNumber reads, EntityTooSmall).
# Exits non-zero on the first mismatch.
#
#   storage-node/bench/clients-check.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
AWS=${AWS:-aws}
for tool in "$AWS" python3 java curl; do
    command -v "$tool" >/dev/null || { echo "missing $tool (apt-get install awscli python3-boto3)" >&2; exit 1; }
done
python3 -c 'import boto3' || { echo "missing boto3 (apt-get install python3-boto3)" >&2; exit 1; }
[ -f storage-node/target/quarkus-app/quarkus-run.jar ] || ./mvnw -q -B -pl storage-node -am -DskipTests package
WORK=$(mktemp -d /tmp/promptcache-clients.XXXXXX)
PORT=${PORT:-19090}
java -Xmx512m -Dquarkus.http.port=$PORT -Dquarkus.http.host=127.0.0.1 -Dpromptcache.storage.data-dir="$WORK/node" \
    -Dkafka.bootstrap.servers=127.0.0.1:1 -Dquarkus.log.level=WARN \
    -Dpromptcache.storage.auth.mode=sigv4 -Dpromptcache.storage.auth.credentials.AKIACHECK=check-secret \
    -jar storage-node/target/quarkus-app/quarkus-run.jar > "$WORK/node.log" 2>&1 &
NODE=$!
trap 'kill $NODE 2>/dev/null; wait $NODE 2>/dev/null; rm -rf "$WORK"' EXIT
for _ in $(seq 1 120); do curl -s -o /dev/null "http://127.0.0.1:$PORT/q/health/ready" && break; sleep 0.5; done

export AWS_ACCESS_KEY_ID=AKIACHECK AWS_SECRET_ACCESS_KEY=check-secret AWS_DEFAULT_REGION=us-east-1
export AWS_CONFIG_FILE="$WORK/aws-config" AWS_EC2_METADATA_DISABLED=true
printf '[default]\ns3 =\n    addressing_style = path\n' > "$AWS_CONFIG_FILE"
EP=(--endpoint-url "http://127.0.0.1:$PORT")
step() { echo "== $*"; }

head -c 3000000 /dev/urandom > "$WORK/small.bin"
head -c 20000000 /dev/urandom > "$WORK/large.bin"   # above the CLI's 8 MiB multipart threshold

step "aws CLI $("$AWS" --version 2>&1 | cut -d' ' -f1)"
"$AWS" "${EP[@]}" s3 mb s3://cli-check
"$AWS" "${EP[@]}" s3 cp --only-show-errors "$WORK/small.bin" "s3://cli-check/dir/small file+1.bin"
"$AWS" "${EP[@]}" s3 cp --only-show-errors "$WORK/large.bin" s3://cli-check/dir/large.bin
"$AWS" "${EP[@]}" s3 ls s3://cli-check/dir/ | tee "$WORK/ls.txt"
grep -q "small file+1.bin" "$WORK/ls.txt" && grep -q "large.bin" "$WORK/ls.txt"
"$AWS" "${EP[@]}" s3 cp --only-show-errors s3://cli-check/dir/large.bin "$WORK/large.back"
cmp "$WORK/large.bin" "$WORK/large.back"
"$AWS" "${EP[@]}" s3 cp --only-show-errors "s3://cli-check/dir/small file+1.bin" "$WORK/small.back"
cmp "$WORK/small.bin" "$WORK/small.back"
"$AWS" "${EP[@]}" s3api get-object --bucket cli-check --key dir/large.bin --range bytes=1000-1999 "$WORK/range.bin" \
    > /dev/null
cmp <(tail -c +1001 "$WORK/large.bin" | head -c 1000) "$WORK/range.bin"
"$AWS" "${EP[@]}" s3api head-object --bucket cli-check --key dir/large.bin | grep -q '"ETag": "\\"[0-9a-f]*-[0-9]*\\""'
"$AWS" "${EP[@]}" s3 rm --recursive s3://cli-check/dir/
"$AWS" "${EP[@]}" s3 rb s3://cli-check
echo "aws CLI: OK"

step "boto3 $(python3 -c 'import boto3; print(boto3.__version__)')"
PORT=$PORT WORK=$WORK python3 - <<'PY'
import hashlib, os, urllib.request
import boto3
from boto3.s3.transfer import TransferConfig
from botocore.config import Config

ep = f"http://127.0.0.1:{os.environ['PORT']}"
s3 = boto3.client("s3", endpoint_url=ep, config=Config(s3={"addressing_style": "path"}, signature_version="s3v4"))
s3.create_bucket(Bucket="boto-check")
body = os.urandom(1_500_000)
s3.put_object(Bucket="boto-check", Key="kv/ä b+c", Body=body, Metadata={"blocks": "3"}, ContentType="application/x-kv")
got = s3.get_object(Bucket="boto-check", Key="kv/ä b+c")
assert got["Body"].read() == body and got["Metadata"] == {"blocks": "3"}, "round trip"
part = s3.get_object(Bucket="boto-check", Key="kv/ä b+c", Range="bytes=100-199")
assert part["Body"].read() == body[100:200] and part["ContentRange"] == f"bytes 100-199/{len(body)}", "range"
large = os.path.join(os.environ["WORK"], "large.bin")
s3.upload_file(large, "boto-check", "kv/large", Config=TransferConfig(multipart_threshold=5 << 20,
                                                                        multipart_chunksize=5 << 20))
head = s3.head_object(Bucket="boto-check", Key="kv/large")
assert head["ContentLength"] == os.path.getsize(large) and head["ETag"].endswith('-4"'), head["ETag"]
back = s3.get_object(Bucket="boto-check", Key="kv/large")["Body"].read()
assert hashlib.md5(back).digest() == hashlib.md5(open(large, "rb").read()).digest(), "multipart bytes"
keys = [o["Key"] for o in s3.list_objects_v2(Bucket="boto-check", Prefix="kv/")["Contents"]]
assert sorted(keys) == ["kv/large", "kv/ä b+c"], keys
url = s3.generate_presigned_url("get_object", Params={"Bucket": "boto-check", "Key": "kv/ä b+c"}, ExpiresIn=60)
assert urllib.request.urlopen(url).read() == body, "presigned GET"
bad = boto3.client("s3", endpoint_url=ep, aws_access_key_id="AKIACHECK", aws_secret_access_key="wrong",
                   config=Config(s3={"addressing_style": "path"}))
try:
    bad.list_objects_v2(Bucket="boto-check")
    raise AssertionError("a wrong secret was accepted")
except bad.exceptions.ClientError as e:
    assert e.response["Error"]["Code"] == "SignatureDoesNotMatch", e.response["Error"]
deleted = s3.delete_objects(Bucket="boto-check", Delete={"Objects": [{"Key": k} for k in keys]})
assert len(deleted["Deleted"]) == 2, deleted
s3.delete_bucket(Bucket="boto-check")
print("boto3: OK")

# The plain multipart sequence a new user writes, at several part sizes
s3.create_bucket(Bucket="boto-mp")
MiB = 1 << 20
for sizes in ([1], [5 * MiB, 1], [5 * MiB, 5 * MiB, 3 * MiB], [8 * MiB, 8 * MiB], [6 * MiB + 7, 100_000]):
    key = "mp/" + "-".join(map(str, sizes))
    data = [os.urandom(n) for n in sizes]
    up = s3.create_multipart_upload(Bucket="boto-mp", Key=key, ContentType="application/x-kv")
    listed = s3.list_multipart_uploads(Bucket="boto-mp", Prefix=key)["Uploads"]
    assert [u["UploadId"] for u in listed] == [up["UploadId"]], listed
    parts = []
    for number, chunk in enumerate(data, start=1):
        r = s3.upload_part(Bucket="boto-mp", Key=key, UploadId=up["UploadId"], PartNumber=number, Body=chunk)
        parts.append({"PartNumber": number, "ETag": r["ETag"]})
    if len(data) > 1:
        # part 1 sent again after a later part completed: the new bytes replace it
        data[0] = os.urandom(sizes[0])
        r = s3.upload_part(Bucket="boto-mp", Key=key, UploadId=up["UploadId"], PartNumber=1, Body=data[0])
        parts[0] = {"PartNumber": 1, "ETag": r["ETag"]}
    done = s3.complete_multipart_upload(Bucket="boto-mp", Key=key, UploadId=up["UploadId"],
                                        MultipartUpload={"Parts": parts})
    assert done["ETag"].endswith(f'-{len(sizes)}"'), done
    whole = b"".join(data)
    assert s3.get_object(Bucket="boto-mp", Key=key)["Body"].read() == whole, key
    head = s3.head_object(Bucket="boto-mp", Key=key, PartNumber=len(sizes))
    assert head["PartsCount"] == len(sizes) and head["ContentLength"] == sizes[-1], head
    assert s3.get_object(Bucket="boto-mp", Key=key, PartNumber=1)["Body"].read() == data[0], key
    print("boto3 multipart", sizes, "OK")
# a non-last part under 5 MiB is S3's EntityTooSmall, said when completing; the upload can still be aborted
up = s3.create_multipart_upload(Bucket="boto-mp", Key="mp/small")
parts = [{"PartNumber": n, "ETag": s3.upload_part(Bucket="boto-mp", Key="mp/small", UploadId=up["UploadId"],
                                                   PartNumber=n, Body=os.urandom(1000))["ETag"]} for n in (1, 2)]
try:
    s3.complete_multipart_upload(Bucket="boto-mp", Key="mp/small", UploadId=up["UploadId"],
                                 MultipartUpload={"Parts": parts})
    raise AssertionError("a 1000-byte first part was accepted")
except s3.exceptions.ClientError as e:
    assert e.response["Error"]["Code"] == "EntityTooSmall", e.response["Error"]
s3.abort_multipart_upload(Bucket="boto-mp", Key="mp/small", UploadId=up["UploadId"])
assert "Uploads" not in s3.list_multipart_uploads(Bucket="boto-mp"), "aborted upload still listed"
s3.delete_objects(Bucket="boto-mp", Delete={"Objects": [{"Key": o["Key"]} for o in
                                                       s3.list_objects(Bucket="boto-mp")["Contents"]]})
s3.delete_bucket(Bucket="boto-mp")
print("boto3 multipart: OK")
PY
