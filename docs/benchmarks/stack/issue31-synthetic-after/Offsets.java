import java.util.*;
import org.apache.kafka.clients.admin.*;
import org.apache.kafka.common.*;

/** Prints the sum of the end offsets of every topic (records ever written), one line per topic. */
public class Offsets {
    public static void main(String[] args) throws Exception {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, args[0]))) {
            Set<String> topics = admin.listTopics(new ListTopicsOptions().listInternal(false)).names().get();
            Map<TopicPartition, OffsetSpec> req = new HashMap<>();
            for (TopicDescription d : admin.describeTopics(topics).allTopicNames().get().values()) {
                for (TopicPartitionInfo p : d.partitions()) {
                    req.put(new TopicPartition(d.name(), p.partition()), OffsetSpec.latest());
                }
            }
            Map<String, Long> sums = new TreeMap<>();
            admin.listOffsets(req).all().get().forEach((tp, info) -> sums.merge(tp.topic(), info.offset(), Long::sum));
            sums.forEach((t, n) -> System.out.println(t + " " + n));
        }
    }
}
