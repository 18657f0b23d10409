import java.time.Duration;
import java.util.*;
import org.apache.kafka.clients.consumer.*;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import io.promptcache.schema.proto.NodeStatus;

public class HbCount {
    public static void main(String[] a) throws Exception {
        Properties p = new Properties();
        p.put("bootstrap.servers", a[0]);
        p.put("group.id", "hbcount-" + UUID.randomUUID());
        p.put("auto.offset.reset", "latest");
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            TopicPartition tp = new TopicPartition("promptcache.nodes", 0);
            c.assign(List.of(tp));
            c.seekToEnd(List.of(tp));
            c.position(tp);
            long end = System.currentTimeMillis() + Long.parseLong(a[1]) * 1000;
            long n = 0, bytes = 0, entries = 0, maxE = 0; List<Long> gaps = new ArrayList<>(); long last = 0;
            while (System.currentTimeMillis() < end) {
                for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(200))) {
                    NodeStatus s = NodeStatus.parseFrom(r.value());
                    n++; bytes += r.value().length; entries += s.getReclaimedCount(); maxE = Math.max(maxE, s.getReclaimedCount());
                    if (last > 0) gaps.add(s.getHeartbeatAtMs() - last); last = s.getHeartbeatAtMs();
                    if (n <= 2 && s.getReclaimedCount() > 0) System.out.println("entry example: " + s.getReclaimed(0).getSerializedSize() + " B " + s.getReclaimed(0));
                }
            }
            Collections.sort(gaps);
            System.out.printf("heartbeats %d (%.1f/s), %d B avg, %.1f KB/s, reclaimed entries avg %d max %d, gap p50 %d ms%n",
                n, n / Double.parseDouble(a[1]), n == 0 ? 0 : bytes / n, bytes / 1024.0 / Double.parseDouble(a[1]), n == 0 ? 0 : entries / n, maxE, gaps.isEmpty() ? -1 : gaps.get(gaps.size() / 2));
        }
    }
}
