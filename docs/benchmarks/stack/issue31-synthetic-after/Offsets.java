import java.util.*;
import org.apache.kafka.clients.admin.*;
import org.apache.kafka.common.*;

/**
 * Prints the sum of the end offsets of every topic (records ever written, whatever compaction removed since, plus the
 * transactions' commit markers), one line per topic. With a second argument {@code --internal}, Kafka's own topics
 * too ({@code __transaction_state}, {@code __consumer_offsets}).
 */
public class Offsets {
    public static void main(String[] args) throws Exception {
        boolean internal = args.length > 1 && args[1].equals("--internal");
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, args[0]))) {
            Set<String> topics = admin.listTopics(new ListTopicsOptions().listInternal(internal)).names().get();
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
