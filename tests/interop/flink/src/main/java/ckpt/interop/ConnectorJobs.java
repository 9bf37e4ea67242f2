package ckpt.interop;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.serialization.SimpleStringEncoder;
import org.apache.flink.api.common.serialization.SimpleStringSchema;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.apache.flink.connector.file.sink.FileSink;
import org.apache.flink.connector.file.src.FileSource;
import org.apache.flink.connector.file.src.reader.TextLineInputFormat;
import org.apache.flink.connector.kafka.sink.KafkaRecordSerializationSchema;
import org.apache.flink.connector.kafka.sink.KafkaSink;
import org.apache.flink.connector.kafka.source.KafkaSource;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.flink.connector.kafka.source.reader.deserializer.KafkaRecordDeserializationSchema;
import org.apache.flink.core.fs.Path;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.filesystem.bucketassigners.BasePathBucketAssigner;
import org.apache.flink.streaming.api.functions.sink.filesystem.rollingpolicies.OnCheckpointRollingPolicy;
import org.apache.flink.util.Collector;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * The connector jobs (ConnectorHarness): parallelism 2, uids on every operator, the source
 * chained to {@link Mirror}.
 *   kafka-source-sink: KafkaSource (FLIP-27; group id, offsets committed on checkpoint) ->
 *     kafka-mirror -> KafkaSink (EXACTLY_ONCE, transactional id prefix).
 *   file-source-sink: FileSource (continuous monitoring, text lines) -> file-mirror ->
 *     FileSink (row format, rolled on every checkpoint).
 * The legacy FlinkKafkaConsumer -> FlinkKafkaProducer job lives in src/kafka-legacy/java
 * (LegacyKafkaJob), compiled only for Flink 1.20, whose Kafka connector still ships them.
 */
final class ConnectorJobs {
  private ConnectorJobs() {}

  /** Kafka records as "topic-partition|offset|value": the offset is ConsumerRecord.offset(). */
  public static final class OffsetDeserializer implements KafkaRecordDeserializationSchema<String> {
    @Override
    public void deserialize(ConsumerRecord<byte[], byte[]> r, Collector<String> out) {
      out.collect(r.topic() + "-" + r.partition() + "|" + r.offset() + "|" + new String(r.value(), StandardCharsets.UTF_8));
    }

    @Override
    public TypeInformation<String> getProducedType() {
      return Types.STRING;
    }
  }

  static void kafka(StreamExecutionEnvironment env, String bootstrap, String in, String group, String out,
      String prefix, String run, long paceMicros) {
    KafkaSource<String> source = KafkaSource.<String>builder()
        .setBootstrapServers(bootstrap)
        .setTopics(in)
        .setGroupId(group)
        .setStartingOffsets(OffsetsInitializer.earliest())
        .setDeserializer(new OffsetDeserializer())
        .setProperty("commit.offsets.on.checkpoint", "true")
        .setProperty("partition.discovery.interval.ms", "0")
        // small fetches, so a reader with two partitions reads both at once
        .setProperty("max.partition.fetch.bytes", "2048")
        .setProperty("max.poll.records", "50")
        .build();
    KafkaSink<String> sink = KafkaSink.<String>builder()
        .setBootstrapServers(bootstrap)
        .setRecordSerializer(KafkaRecordSerializationSchema.<String>builder()
            .setTopic(out).setValueSerializationSchema(new SimpleStringSchema()).build())
        .setDeliveryGuarantee(DeliveryGuarantee.EXACTLY_ONCE)
        .setTransactionalIdPrefix(prefix)
        .setProperty("transaction.timeout.ms", "600000")
        .build();
    env.fromSource(source, WatermarkStrategy.noWatermarks(), "kafka-source").uid("kafka-source")
        .map(new Mirror(run, paceMicros)).uid("kafka-mirror").name("kafka-mirror")
        .sinkTo(sink).uid("kafka-sink").name("kafka-sink");
  }

  static void files(StreamExecutionEnvironment env, String inDir, String outDir, String run, long paceMicros) {
    FileSource<String> source = FileSource.forRecordStreamFormat(new TextLineInputFormat(), new Path(inDir))
        .monitorContinuously(Duration.ofMillis(200))
        .build();
    FileSink<String> sink = FileSink.forRowFormat(new Path(outDir), new SimpleStringEncoder<String>())
        .withBucketAssigner(new BasePathBucketAssigner<>())
        .withRollingPolicy(OnCheckpointRollingPolicy.build())
        .build();
    env.fromSource(source, WatermarkStrategy.noWatermarks(), "file-source").uid("file-source")
        .map(new Mirror(run, paceMicros)).uid("file-mirror").name("file-mirror")
        .sinkTo(sink).uid("file-sink").name("file-sink");
  }
}
