package ckpt.interop;

import java.io.File;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListTransactionsOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TransactionDescription;
import org.apache.kafka.clients.admin.TransactionListing;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * An Apache Kafka broker in a child JVM: KRaft, one combined broker+controller node on
 * 127.0.0.1, its log dirs under {@code dir}. The classpath is the one kafka-broker/pom.xml
 * resolved (kafka_2.13 and its dependencies), so the broker's kafka-clients never meets the
 * Flink connector's. The ports are free ones picked just before the start.
 */
final class KafkaBroker implements AutoCloseable {
  static final long TIMEOUT_MS = 120_000;

  final String bootstrap;
  final String version;
  private final Process process;
  private final Admin admin;
  private final File log;

  private KafkaBroker(String bootstrap, String version, Process process, Admin admin, File log) {
    this.bootstrap = bootstrap;
    this.version = version;
    this.process = process;
    this.admin = admin;
    this.log = log;
  }

  static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  /** The version of the kafka_2.13 jar on a classpath ("4.1.1"). */
  static String versionOf(String classpath) {
    for (String e : classpath.split(File.pathSeparator)) {
      String n = new File(e).getName();
      if (n.startsWith("kafka_2.13-") && n.endsWith(".jar")) return n.substring(11, n.length() - 4);
    }
    throw new IllegalArgumentException("no kafka_2.13-*.jar on the broker classpath " + classpath);
  }

  static KafkaBroker start(File dir, File classpathFile) throws Exception {
    String cp = Files.readString(classpathFile.toPath()).trim();
    String version = versionOf(cp);
    dir.mkdirs();
    int port = freePort();
    int controller = freePort();
    File props = new File(dir, "server.properties");
    Files.writeString(props.toPath(), String.join("\n",
        "process.roles=broker,controller",
        "node.id=1",
        "listeners=PLAINTEXT://127.0.0.1:" + port + ",CONTROLLER://127.0.0.1:" + controller,
        "advertised.listeners=PLAINTEXT://127.0.0.1:" + port,
        "controller.listener.names=CONTROLLER",
        "listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
        "controller.quorum.voters=1@127.0.0.1:" + controller,
        "log.dirs=" + new File(dir, "logs").getAbsolutePath(),
        "num.partitions=1",
        "offsets.topic.replication.factor=1",
        "offsets.topic.num.partitions=1",
        "transaction.state.log.replication.factor=1",
        "transaction.state.log.min.isr=1",
        "transaction.state.log.num.partitions=1",
        "group.initial.rebalance.delay.ms=0",
        "") , StandardCharsets.UTF_8);
    String java = new File(new File(System.getProperty("java.home"), "bin"), "java").getAbsolutePath();
    File log = new File(dir, "broker.log");
    File formatLog = new File(dir, "format.log");
    Process format = new ProcessBuilder(java, "-cp", cp, "kafka.tools.StorageTool", "format",
        "--cluster-id", "ckpt-interop-kafka-01", "--config", props.getAbsolutePath(), "--ignore-formatted")
        .redirectErrorStream(true).redirectOutput(formatLog).start();
    if (!format.waitFor(TIMEOUT_MS, TimeUnit.MILLISECONDS) || format.exitValue() != 0) {
      format.destroyForcibly();
      throw new IllegalStateException("kafka storage format failed: " + Files.readString(formatLog.toPath()));
    }
    Process p = new ProcessBuilder(java, "-Xmx512m", "-cp", cp, "kafka.Kafka", props.getAbsolutePath())
        .redirectErrorStream(true).redirectOutput(log).start();
    // the broker never outlives the harness JVM, however that ends short of SIGKILL
    Runtime.getRuntime().addShutdownHook(new Thread(p::destroyForcibly));
    String bootstrap = "127.0.0.1:" + port;
    Properties ap = new Properties();
    ap.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    ap.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 5000);
    ap.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 10000);
    Admin admin = Admin.create(ap);
    KafkaBroker b = new KafkaBroker(bootstrap, version, p, admin, log);
    long deadline = System.currentTimeMillis() + TIMEOUT_MS;
    while (true) {
      if (!p.isAlive()) {
        b.close();
        throw new IllegalStateException("the Kafka broker exited (" + p.exitValue() + "): see " + log);
      }
      try {
        if (!admin.describeCluster().nodes().get(5, TimeUnit.SECONDS).isEmpty()) break;
      } catch (Exception e) {
        // not up yet
      }
      if (System.currentTimeMillis() > deadline) {
        b.close();
        throw new IllegalStateException("the Kafka broker did not answer within " + TIMEOUT_MS + " ms: see " + log);
      }
      Thread.sleep(100);
    }
    b.warmUp();
    return b;
  }

  /**
   * One transaction committed and one group offset committed, so the broker has created its
   * transaction-state and consumer-offsets topics before a job needs them (the first
   * initTransactions would otherwise wait for that creation inside a job's task).
   */
  private void warmUp() throws Exception {
    createTopic("warm-up", 1);
    Properties pp = new Properties();
    pp.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    pp.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "warm-up");
    try (KafkaProducer<byte[], byte[]> p = new KafkaProducer<>(pp, new ByteArraySerializer(), new ByteArraySerializer())) {
      p.initTransactions();
      p.beginTransaction();
      p.send(new ProducerRecord<>("warm-up", 0, null, new byte[] {1}));
      p.commitTransaction();
    }
    admin.alterConsumerGroupOffsets("warm-up", Map.of(new TopicPartition("warm-up", 0), new OffsetAndMetadata(1)))
        .all().get(60, TimeUnit.SECONDS);
  }

  void createTopic(String topic, int partitions) throws Exception {
    admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1))).all().get(60, TimeUnit.SECONDS);
  }

  /** Appends {@code records} values, non-transactionally, to partition {@code partition}. */
  void produce(String topic, int partition, List<String> records) throws Exception {
    Properties pp = new Properties();
    pp.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    pp.put(ProducerConfig.ACKS_CONFIG, "all");
    pp.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
    try (KafkaProducer<byte[], byte[]> p = new KafkaProducer<>(pp, new ByteArraySerializer(), new ByteArraySerializer())) {
      for (String r : records) p.send(new ProducerRecord<>(topic, partition, null, r.getBytes(StandardCharsets.UTF_8)));
      p.flush();
    }
  }

  /**
   * Every committed record of {@code topic} as a read_committed consumer sees it (up to the last
   * stable offset: an open transaction hides what follows it), as strings.
   */
  List<String> readCommitted(String topic) throws Exception {
    Properties cp = new Properties();
    cp.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    cp.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    cp.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    List<String> out = new ArrayList<>();
    try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(cp, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      List<TopicPartition> parts = new ArrayList<>();
      c.partitionsFor(topic, java.time.Duration.ofSeconds(30)).forEach(i -> parts.add(new TopicPartition(topic, i.partition())));
      c.assign(parts);
      c.seekToBeginning(parts);
      Map<TopicPartition, Long> end = c.endOffsets(parts, java.time.Duration.ofSeconds(30));
      long deadline = System.currentTimeMillis() + TIMEOUT_MS;
      while (true) {
        boolean done = true;
        for (TopicPartition tp : parts) if (c.position(tp, java.time.Duration.ofSeconds(30)) < end.get(tp)) done = false;
        if (done) break;
        if (System.currentTimeMillis() > deadline) throw new IllegalStateException("reading " + topic + " did not reach " + end);
        for (ConsumerRecord<byte[], byte[]> r : c.poll(java.time.Duration.ofMillis(200))) {
          out.add(new String(r.value(), StandardCharsets.UTF_8));
        }
      }
    }
    return out;
  }

  /** The group's committed offsets: "topic-partition" -> offset. */
  Map<String, Long> committed(String group) throws Exception {
    Map<TopicPartition, OffsetAndMetadata> m =
        admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get(30, TimeUnit.SECONDS);
    Map<String, Long> out = new TreeMap<>();
    m.forEach((tp, o) -> {
      if (o != null) out.put(tp.toString(), o.offset());
    });
    return out;
  }

  /** Kafka's view of every transactional id starting with {@code prefix}, by id. */
  List<Map<String, Object>> transactions(String prefix) throws Exception {
    Collection<TransactionListing> all = admin.listTransactions(new ListTransactionsOptions()).all().get(30, TimeUnit.SECONDS);
    List<String> ids = new ArrayList<>();
    for (TransactionListing l : all) {
      if (l.transactionalId().startsWith(prefix)) ids.add(l.transactionalId());
    }
    ids.sort(null);
    List<Map<String, Object>> out = new ArrayList<>();
    if (ids.isEmpty()) return out;
    Map<String, TransactionDescription> d = admin.describeTransactions(ids).all().get(30, TimeUnit.SECONDS);
    for (String id : ids) {
      TransactionDescription t = d.get(id);
      List<String> parts = new ArrayList<>();
      t.topicPartitions().forEach(tp -> parts.add(tp.toString()));
      parts.sort(null);
      out.add(Json.obj("transactional_id", id, "producer_id", t.producerId(), "epoch", (long) t.producerEpoch(),
          "state", t.state().toString(), "topic_partitions", parts));
    }
    return out;
  }

  @Override
  public void close() throws Exception {
    admin.close(java.time.Duration.ofSeconds(5));
    process.destroy();  // SIGTERM: the broker's own controlled shutdown
    if (!process.waitFor(60, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      process.waitFor(30, TimeUnit.SECONDS);
    }
  }
}
