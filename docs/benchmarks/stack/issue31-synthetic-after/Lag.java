import java.util.*;
import org.apache.kafka.clients.admin.*;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.*;

/** Prints the records the consumer group is behind (end offsets - committed offsets, all its partitions). */
public class Lag {
    public static void main(String[] args) throws Exception {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, args[0]))) {
            Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(args[1])
                    .partitionsToOffsetAndMetadata().get();
            Map<TopicPartition, OffsetSpec> req = new HashMap<>();
            committed.keySet().forEach(tp -> req.put(tp, OffsetSpec.latest()));
            long lag = 0;
            for (var e : admin.listOffsets(req).all().get().entrySet()) {
                OffsetAndMetadata c = committed.get(e.getKey());
                lag += Math.max(0, e.getValue().offset() - (c == null ? 0 : c.offset()));
            }
            System.out.println(lag);
        }
    }
}
