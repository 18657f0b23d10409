import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListTopicsOptions;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.TopicPartition;

/**
 * java -cp promptcache-stack.jar TopicRecords.java host:port: every topic's end offsets summed over its partitions,
 * internal topics included (Kafka Streams' changelogs and repartition topics): the records written to it since it was
 * created, whatever compaction removed since, plus one commit marker per partition each transaction wrote to.
 */
public class TopicRecords {

    public static void main(String[] args) throws Exception {
        Properties settings = new Properties();
        settings.put("bootstrap.servers", args[0]);
        try (Admin admin = Admin.create(settings)) {
            Set<String> names = admin.listTopics(new ListTopicsOptions().listInternal(true)).names().get();
            Map<String, TopicDescription> topics = admin.describeTopics(names).allTopicNames().get();
            Map<TopicPartition, OffsetSpec> ends = new HashMap<>();
            topics.forEach((name, topic) -> topic.partitions()
                    .forEach(p -> ends.put(new TopicPartition(name, p.partition()), OffsetSpec.latest())));
            Map<String, Long> sums = new TreeMap<>();
            admin.listOffsets(ends).all().get().forEach((tp, end) -> sums.merge(tp.topic(), end.offset(), Long::sum));
            sums.forEach((name, sum) -> System.out.println(sum + "\t" + name));
        }
    }
}
