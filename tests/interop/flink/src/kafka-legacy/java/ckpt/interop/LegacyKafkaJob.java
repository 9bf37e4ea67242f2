package ckpt.interop;

import java.nio.charset.StandardCharsets;
import java.util.Properties;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.connectors.kafka.FlinkKafkaConsumer;
import org.apache.flink.streaming.connectors.kafka.FlinkKafkaProducer;
import org.apache.flink.streaming.connectors.kafka.KafkaDeserializationSchema;
import org.apache.flink.streaming.connectors.kafka.KafkaSerializationSchema;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * Flink 1.20 only (the pom adds src/kafka-legacy/java to that profile): the legacy
 * FlinkKafkaConsumer (offsets committed on checkpoint) -> legacy-kafka-mirror ->
 * FlinkKafkaProducer (EXACTLY_ONCE, transactional id prefix). ConnectorHarness calls
 * {@link #build} by reflection, so the common sources compile against Flink 2.x too.
 */
public final class LegacyKafkaJob {
  private LegacyKafkaJob() {}

  /** Kafka records as "topic-partition|offset|value", like ConnectorJobs.OffsetDeserializer. */
  public static final class OffsetSchema implements KafkaDeserializationSchema<String> {
    @Override
    public boolean isEndOfStream(String s) {
      return false;
    }

    @Override
    public String deserialize(ConsumerRecord<byte[], byte[]> r) {
      return r.topic() + "-" + r.partition() + "|" + r.offset() + "|" + new String(r.value(), StandardCharsets.UTF_8);
    }

    @Override
    public TypeInformation<String> getProducedType() {
      return Types.STRING;
    }
  }

  /** Writes each value to {@code topic}. */
  public static final class ValueSchema implements KafkaSerializationSchema<String> {
    private final String topic;

    public ValueSchema(String topic) {
      this.topic = topic;
    }

    @Override
    public ProducerRecord<byte[], byte[]> serialize(String v, Long ts) {
      return new ProducerRecord<>(topic, v.getBytes(StandardCharsets.UTF_8));
    }
  }

  public static void build(StreamExecutionEnvironment env, String bootstrap, String in, String group, String out,
      String prefix, String run, long paceMicros) {
    Properties cp = new Properties();
    cp.setProperty("bootstrap.servers", bootstrap);
    cp.setProperty("group.id", group);
    // small fetches, so a subtask with two partitions reads both at once
    cp.setProperty("max.partition.fetch.bytes", "2048");
    cp.setProperty("max.poll.records", "50");
    FlinkKafkaConsumer<String> consumer = new FlinkKafkaConsumer<>(in, new OffsetSchema(), cp);
    consumer.setStartFromEarliest();
    consumer.setCommitOffsetsOnCheckpoints(true);
    Properties pp = new Properties();
    pp.setProperty("bootstrap.servers", bootstrap);
    pp.setProperty("transaction.timeout.ms", "600000");
    FlinkKafkaProducer<String> producer =
        new FlinkKafkaProducer<>(out, new ValueSchema(out), pp, FlinkKafkaProducer.Semantic.EXACTLY_ONCE);
    producer.setTransactionalIdPrefix(prefix);
    env.addSource(consumer, "legacy-kafka-source").uid("legacy-kafka-source")
        .map(new Mirror(run, paceMicros)).uid("legacy-kafka-mirror").name("legacy-kafka-mirror")
        .addSink(producer).uid("legacy-kafka-sink").name("legacy-kafka-sink");
  }
}
