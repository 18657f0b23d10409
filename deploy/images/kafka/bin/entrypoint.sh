#!/bin/sh
# A KRaft broker configured as the apache/kafka image configures one: every KAFKA_<NAME> variable is the property
# <name> (lower case, _ -> ., __ -> _, ___ -> -), but for the JVM options below; the log directories are formatted with
# CLUSTER_ID on the first start. Then the broker runs as PID 1's exec, so `docker stop` reaches it.
set -eu
config=/opt/kafka/config/server.properties
mkdir -p /opt/kafka/config
: > "$config"
env | while IFS='=' read -r name value; do
    case "$name" in
        KAFKA_HEAP_OPTS|KAFKA_OPTS|KAFKA_JVM_PERFORMANCE_OPTS|KAFKA_LOG4J_OPTS|KAFKA_JMX_OPTS|KAFKA_GC_LOG_OPTS|KAFKA_VERSION) ;;
        KAFKA_*)
            key=$(printf '%s' "${name#KAFKA_}" | tr 'A-Z' 'a-z' | sed -e 's/___/-/g' -e 's/__/@/g' -e 's/_/./g' -e 's/@/_/g')
            printf '%s=%s\n' "$key" "$value" >> "$config" ;;
    esac
done
grep -q '^log.dirs=' "$config" || echo "log.dirs=/var/lib/kafka/data" >> "$config"
java_opts="${KAFKA_HEAP_OPTS:--Xmx512m} ${KAFKA_JVM_PERFORMANCE_OPTS:--XX:+UseG1GC -XX:MaxGCPauseMillis=20} ${KAFKA_OPTS:-}"
java_opts="$java_opts -Dorg.slf4j.simpleLogger.defaultLogLevel=info -Dorg.slf4j.simpleLogger.log.state.change.logger=warn"
log_dir=$(sed -n 's/^log\.dirs=//p' "$config" | cut -d, -f1)
if [ ! -f "$log_dir/meta.properties" ]; then
    # shellcheck disable=SC2086
    java $java_opts -cp '/opt/kafka/libs/*' kafka.tools.StorageTool format --ignore-formatted \
        --cluster-id "${CLUSTER_ID:-5L6g3nShT-eMCtK--X86sw}" --config "$config"
fi
# shellcheck disable=SC2086
exec java $java_opts -cp '/opt/kafka/libs/*' kafka.Kafka "$config"
