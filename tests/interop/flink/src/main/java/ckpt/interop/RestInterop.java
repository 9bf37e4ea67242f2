package ckpt.interop;

import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.client.deployment.StandaloneClusterId;
import org.apache.flink.client.program.rest.RestClusterClient;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.runtime.client.JobStatusMessage;
import org.apache.flink.runtime.jobgraph.JobGraph;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;

import java.io.PrintWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * Flink's own REST client against ckpt-engine, and the JSON key sets of a REST endpoint.
 *
 * <pre>
 *   client --address URL --job ID --dir DIR   RestClusterClient: listJobs, triggerSavepoint,
 *                                              stopWithSavepoint (prints SAVEPOINT / STOPPED paths)
 *   cancel --address URL --job ID             RestClusterClient.cancel
 *   keys --address URL --job ID --out FILE    key paths of each endpoint's JSON (ckpt-engine)
 *   keys --minicluster --out FILE             the same from a MiniCluster running a keyed job
 * </pre>
 */
public final class RestInterop {
  static final ObjectMapper MAPPER = new ObjectMapper();
  static final Pattern ID = Pattern.compile("[0-9a-f]{32}");
  static final long TIMEOUT_MS = 120_000;

  public static void main(String[] args) throws Exception {
    Map<String, String> a = new TreeMap<>();
    for (int i = 1; i < args.length; ++i) {
      if (args[i].equals("--minicluster")) {
        a.put("minicluster", "true");
      } else {
        a.put(args[i].substring(2), args[++i]);
      }
    }
    switch (args[0]) {
      case "client" -> client(a.get("address"), JobID.fromHexString(a.get("job")), a.get("dir"));
      case "cancel" -> cancel(a.get("address"), JobID.fromHexString(a.get("job")));
      case "keys" -> {
        if (a.containsKey("minicluster")) {
          miniClusterKeys(Path.of(a.get("out")));
        } else {
          writeKeys(a.get("address"), a.get("job"), Path.of(a.get("out")));
        }
      }
      default -> throw new IllegalArgumentException("unknown mode " + args[0]);
    }
  }

  static RestClusterClient<StandaloneClusterId> restClient(String address) throws Exception {
    URI uri = URI.create(address);
    Configuration c = new Configuration();
    c.set(RestOptions.ADDRESS, uri.getHost());
    c.set(RestOptions.PORT, uri.getPort());
    return new RestClusterClient<>(c, StandaloneClusterId.getInstance());
  }

  static void client(String address, JobID job, String dir) throws Exception {
    try (RestClusterClient<StandaloneClusterId> c = restClient(address)) {
      Collection<JobStatusMessage> jobs = c.listJobs().get();
      boolean found = false;
      for (JobStatusMessage m : jobs) {
        System.out.println("LIST " + m.getJobId() + " " + m.getJobName() + " " + m.getJobState());
        found |= m.getJobId().equals(job);
      }
      if (!found) throw new IllegalStateException("listJobs did not return job " + job);
      String sp = c.triggerSavepoint(job, dir, SavepointFormatType.CANONICAL).get();
      System.out.println("SAVEPOINT " + sp);
      String stopped = c.stopWithSavepoint(job, false, dir, SavepointFormatType.CANONICAL).get();
      System.out.println("STOPPED " + stopped);
    }
  }

  static void cancel(String address, JobID job) throws Exception {
    try (RestClusterClient<StandaloneClusterId> c = restClient(address)) {
      c.cancel(job).get();
      System.out.println("CANCELLED " + job);
    }
  }

  // ------------------------------------------------------------------ key sets

  static JsonNode get(HttpClient http, String address, String path) throws Exception {
    HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(address + path)).GET().build(),
        HttpResponse.BodyHandlers.ofString());
    if (r.statusCode() != 200) throw new IllegalStateException("GET " + path + ": " + r.statusCode() + " " + r.body());
    return MAPPER.readTree(r.body());
  }

  /** Key paths: objects by field ("a.b"), arrays as "[]" over all elements, ids as "<id>". */
  static void paths(JsonNode n, String prefix, TreeSet<String> out) {
    if (n.isObject()) {
      for (Iterator<Map.Entry<String, JsonNode>> it = n.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> e = it.next();
        String key = ID.matcher(e.getKey()).matches() ? "<id>" : e.getKey();
        String p = prefix.isEmpty() ? key : prefix + "." + key;
        out.add(p);
        paths(e.getValue(), p, out);
      }
    } else if (n.isArray()) {
      for (JsonNode e : n) paths(e, prefix + "[]", out);
    }
  }

  static void writeKeys(String address, String job, Path out) throws Exception {
    HttpClient http = HttpClient.newHttpClient();
    JsonNode cps = get(http, address, "/jobs/" + job + "/checkpoints");
    long cid = cps.get("latest").get("completed").get("id").asLong();
    // A checkpoint's details are fetched right away: with checkpoints every 100 ms it leaves the
    // history (the last 10) within seconds.
    JsonNode details = get(http, address, "/jobs/" + job + "/checkpoints/details/" + cid);
    String vertex = details.get("tasks").fieldNames().next();
    JsonNode subtasks = get(http, address,
        "/jobs/" + job + "/checkpoints/details/" + cid + "/subtasks/" + vertex);
    List<String> endpoints = List.of("/config", "/overview", "/jobs", "/jobs/overview",
        "/jobs/:jobid", "/jobs/:jobid/plan", "/jobs/:jobid/checkpoints",
        "/jobs/:jobid/checkpoints/config", "/jobs/:jobid/checkpoints/details/:checkpointid",
        "/jobs/:jobid/checkpoints/details/:checkpointid/subtasks/:vertexid");
    try (PrintWriter w = new PrintWriter(Files.newBufferedWriter(out, StandardCharsets.UTF_8))) {
      for (String e : endpoints) {
        String path = e.replace(":jobid", job).replace(":checkpointid", Long.toString(cid))
            .replace(":vertexid", vertex);
        TreeSet<String> keys = new TreeSet<>();
        JsonNode body = e.endsWith(":vertexid") ? subtasks
            : e.endsWith(":checkpointid") ? details
            : get(http, address, path);
        paths(body, "", keys);
        for (String k : keys) w.println(e + "\t" + k);
      }
    }
  }

  /** A keyed job with checkpoints every 100 ms and one savepoint, on a MiniCluster's REST. */
  static void miniClusterKeys(Path out) throws Exception {
    Configuration c = new Configuration();
    c.set(RestOptions.BIND_PORT, "0");
    c.set(RestOptions.ADDRESS, "127.0.0.1");
    c.set(RestOptions.BIND_ADDRESS, "127.0.0.1");
    Path sp = Files.createTempDirectory(out.toAbsolutePath().getParent(), "flink-sp");
    try (MiniCluster mc = Harness.startCluster(c)) {
      StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(new Configuration());
      env.setParallelism(2);
      env.enableCheckpointing(100);
      env.fromSequence(0, Long.MAX_VALUE).uid("seq").name("seq")
          .map(new Slow()).uid("slow").name("slow")
          .keyBy(v -> v % 16).reduce(Long::sum).uid("sum").name("sum")
          .sinkTo(new DiscardingSink<>()).uid("sink").name("sink");
      JobGraph job = env.getStreamGraph().getJobGraph();
      mc.submitJob(job).get();
      String address = mc.getRestAddress().get().toString().replaceAll("/$", "");
      String id = job.getJobID().toHexString();
      HttpClient http = HttpClient.newHttpClient();
      long deadline = System.currentTimeMillis() + TIMEOUT_MS;
      while (true) {
        try {
          JsonNode cps = get(http, address, "/jobs/" + id + "/checkpoints");
          if (cps.get("counts").get("completed").asLong() >= 2) break;
        } catch (IllegalStateException notYet) {
          // the job is still being scheduled
        }
        if (System.currentTimeMillis() > deadline) throw new IllegalStateException("no checkpoints on the MiniCluster");
        Thread.sleep(50);
      }
      mc.triggerSavepoint(job.getJobID(), sp.toString(), false, SavepointFormatType.CANONICAL).get();
      writeKeys(address, id, out);
      mc.cancelJob(job.getJobID()).get();
    }
  }

  static final class Slow implements MapFunction<Long, Long> {
    @Override
    public Long map(Long v) throws Exception {
      if (v % 64 == 0) Thread.sleep(1);
      return v;
    }
  }

  private RestInterop() {}
}
