package ckpt.interop;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * A Chrome DevTools protocol client on the JDK's WebSocket: starts a headless Chromium, attaches
 * to its first page and sends commands to it; events go to one listener (DashboardTour's).
 */
final class DashboardTourCdp implements AutoCloseable {
  static final ObjectMapper MAPPER = new ObjectMapper();
  private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(30);

  private final Process browser;
  private final WebSocket socket;
  private final AtomicInteger nextId = new AtomicInteger(1);
  private final Map<Integer, CompletableFuture<JsonNode>> pending = new ConcurrentHashMap<>();
  private final Consumer<JsonNode> events;
  private final List<String> browserLog = new ArrayList<>();

  /** Starts `chromium` with a fresh profile in `profileDir` and attaches to its page. */
  DashboardTourCdp(String chromium, Path profileDir, int width, int height,
                   Consumer<JsonNode> events) throws Exception {
    this.events = events;
    ProcessBuilder pb = new ProcessBuilder(chromium, "--headless=new", "--no-sandbox",
        "--disable-gpu", "--no-first-run", "--no-default-browser-check",
        "--remote-debugging-port=0", "--user-data-dir=" + profileDir,
        "--window-size=" + width + "," + height, "about:blank");
    pb.redirectOutput(ProcessBuilder.Redirect.DISCARD);
    browser = pb.start();
    String wsBrowser = readDevToolsUrl(browser, Duration.ofSeconds(60));
    URI browserUri = URI.create(wsBrowser);
    HttpClient http = HttpClient.newHttpClient();
    String pageWs = null;
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (pageWs == null) {
      HttpResponse<String> list = http.send(
          HttpRequest.newBuilder(URI.create("http://" + browserUri.getHost() + ":"
              + browserUri.getPort() + "/json/list")).build(),
          HttpResponse.BodyHandlers.ofString());
      for (JsonNode t : MAPPER.readTree(list.body())) {
        if ("page".equals(t.path("type").asText())) {
          pageWs = t.path("webSocketDebuggerUrl").asText();
          break;
        }
      }
      if (pageWs == null) {
        if (System.nanoTime() > deadline) throw new IOException("Chromium opened no page target");
        Thread.sleep(100);  // polls /json/list until the page target exists, with a deadline
      }
    }
    socket = http.newWebSocketBuilder().buildAsync(URI.create(pageWs), new Listener())
        .get(30, TimeUnit.SECONDS);
  }

  private String readDevToolsUrl(Process p, Duration timeout) throws Exception {
    CompletableFuture<String> url = new CompletableFuture<>();
    Thread reader = new Thread(() -> {
      try (BufferedReader r = new BufferedReader(
               new InputStreamReader(p.getErrorStream(), StandardCharsets.UTF_8))) {
        String line;
        while ((line = r.readLine()) != null) {
          int at = line.indexOf("DevTools listening on ");
          if (at >= 0) {
            url.complete(line.substring(at + "DevTools listening on ".length()).trim());
          } else {
            synchronized (browserLog) {
              if (browserLog.size() < 200) browserLog.add(line);
            }
          }
        }
      } catch (IOException ignored) {
        // the browser exited; the future below times out or already completed
      }
      url.completeExceptionally(new IOException("Chromium exited before it printed "
          + "`DevTools listening on`: " + String.join("\n", browserLog)));
    }, "chromium-stderr");
    reader.setDaemon(true);
    reader.start();
    try {
      return url.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      throw new IOException("Chromium printed no `DevTools listening on` within " + timeout);
    }
  }

  /** Sends a command and waits for its result; a protocol error is an exception. */
  JsonNode send(String method, Object... params) throws Exception {
    int id = nextId.getAndIncrement();
    ObjectNode msg = MAPPER.createObjectNode();
    msg.put("id", id);
    msg.put("method", method);
    ObjectNode p = msg.putObject("params");
    for (int i = 0; i + 1 < params.length; i += 2) {
      p.set((String) params[i], MAPPER.valueToTree(params[i + 1]));
    }
    CompletableFuture<JsonNode> reply = new CompletableFuture<>();
    pending.put(id, reply);
    synchronized (socket) {
      socket.sendText(MAPPER.writeValueAsString(msg), true).get(10, TimeUnit.SECONDS);
    }
    JsonNode r;
    try {
      r = reply.get(COMMAND_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      pending.remove(id);
      throw new IOException(method + ": no answer from Chromium within " + COMMAND_TIMEOUT);
    }
    if (r.has("error")) throw new IOException(method + ": " + r.get("error"));
    return r.path("result");
  }

  /** Evaluates a JavaScript expression in the page and returns its value (JSON). */
  JsonNode eval(String expression) throws Exception {
    JsonNode r = send("Runtime.evaluate", "expression", expression, "returnByValue", true,
        "awaitPromise", true);
    if (r.has("exceptionDetails")) {
      throw new IOException("evaluating `" + expression + "`: "
          + r.path("exceptionDetails").path("exception").path("description").asText(
              r.path("exceptionDetails").path("text").asText()));
    }
    return r.path("result").path("value");
  }

  @Override
  public void close() {
    try {
      socket.sendClose(WebSocket.NORMAL_CLOSURE, "").get(5, TimeUnit.SECONDS);
    } catch (Exception ignored) {
      // the browser is killed below either way
    }
    browser.destroy();
    try {
      if (!browser.waitFor(10, TimeUnit.SECONDS)) browser.destroyForcibly().waitFor();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private final class Listener implements WebSocket.Listener {
    private final StringBuilder partial = new StringBuilder();

    @Override
    public CompletionStage<?> onText(WebSocket ws, CharSequence data, boolean last) {
      partial.append(data);
      if (last) {
        String text = partial.toString();
        partial.setLength(0);
        try {
          JsonNode msg = MAPPER.readTree(text);
          if (msg.has("id")) {
            CompletableFuture<JsonNode> f = pending.remove(msg.get("id").asInt());
            if (f != null) f.complete(msg);
          } else {
            events.accept(msg);
          }
        } catch (Exception e) {
          System.err.println("CDP: unreadable message: " + e);
        }
      }
      ws.request(1);
      return null;
    }
  }
}
