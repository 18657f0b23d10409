#!/bin/sh
# As Kafka's own script (the compose file's health check calls it by this path).
exec java -Xmx128m -Dorg.slf4j.simpleLogger.defaultLogLevel=warn -cp '/opt/kafka/libs/*' \
    org.apache.kafka.tools.BrokerApiVersionsCommand "$@"
