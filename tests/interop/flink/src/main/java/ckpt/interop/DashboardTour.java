package ckpt.interop;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;

/**
 * Flink's own web dashboard against a REST endpoint (ckpt-engine's, or its history server's),
 * driven in headless Chromium over the DevTools protocol:
 *
 * <pre>
 *   DashboardTour --url http://HOST:PORT --out DIR [--chromium PATH] [--history] [--job JID]
 *                 [--line 1.20|2]
 * </pre>
 *
 * Visits every page of the dashboard through its hash routes (Flink 1.20 and 2.x route names):
 * overview, job lists, a job's graph, exceptions, timeline, checkpoints (each tab; one checkpoint
 * and one operator of it expanded), configuration, data skew, each vertex's tabs, the task
 * managers and the job manager (a history server has only the overview and finished jobs). Waits
 * on each page for its component and for the network to go quiet, takes a screenshot
 * (DIR/NN-page.png) and records every failure: an HTTP answer >= 400, a failed load, a console
 * error or assertion, an uncaught exception, an error log entry, a page whose content never
 * appears. Prints them all (DIR/failures.txt too) and exits 1 when there is any.
 */
public final class DashboardTour {
  private static final long PAGE_DEADLINE_MS = 20_000;
  private static final long QUIET_MS = 600;
  private static final int WIDTH = 1280;
  private static final int HEIGHT = 800;

  private final String base;
  private final Path out;
  private final boolean history;
  private final boolean flink2;
  private final List<String> failures = new ArrayList<>();
  private final Set<String> inflight = ConcurrentHashMap.newKeySet();
  private final Map<String, String> requestUrls = new ConcurrentHashMap<>();
  private volatile long lastNetworkActivity = System.nanoTime();
  private volatile String page = "(start)";
  private DashboardTourCdp cdp;
  private int shots = 0;

  private DashboardTour(String base, Path out, boolean history, boolean flink2) {
    this.base = base.replaceAll("/+$", "");
    this.out = out;
    this.history = history;
    this.flink2 = flink2;
  }

  public static void main(String[] args) throws Exception {
    String url = null, chromium = "/usr/bin/chromium", job = null, out = null;
    boolean history = false;
    String line = "1.20";
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--url": url = args[++i]; break;
        case "--out": out = args[++i]; break;
        case "--chromium": chromium = args[++i]; break;
        case "--job": job = args[++i]; break;
        case "--history": history = true; break;
        case "--line": line = args[++i]; break;
        default:
          System.err.println("DashboardTour: unknown argument " + args[i]);
          System.exit(2);
      }
    }
    if (url == null || out == null) {
      System.err.println("usage: DashboardTour --url http://HOST:PORT --out DIR "
          + "[--chromium PATH] [--history] [--job JID] [--line 1.20|2]");
      System.exit(2);
    }
    DashboardTour tour = new DashboardTour(url, Path.of(out), history, line.startsWith("2"));
    Files.createDirectories(tour.out);
    int rc = tour.run(chromium, job);
    System.exit(rc);
  }

  /**
   * Flink 2.x's dashboard formats a watermark of Long.MAX_VALUE (an input that ended: FLIP-147's
   * MAX_WATERMARK, what every task of a finished job reports) as a date, fails, logs this
   * console.error and shows the value in UTC instead. Its own code path, on a true value:
   * listed as a note, never hidden; any other console error fails the tour.
   */
  private static final String WATERMARK_PIPE_QUIRK =
      "[HumanizeWatermarkToDatetimePipe] Error formatting date, falling back to UTC";

  private final List<String> notes = new ArrayList<>();

  private synchronized void note(String what) {
    String line = "[" + page + "] " + what;
    if (!notes.contains(line)) notes.add(line);
  }

  private synchronized void fail(String what) {
    String line = "[" + page + "] " + what;
    if (!failures.contains(line)) failures.add(line);
  }

  private int run(String chromium, String job) throws Exception {
    Path profile = Files.createTempDirectory(out, "chromium-profile");
    try (DashboardTourCdp c = new DashboardTourCdp(chromium, profile, WIDTH, HEIGHT, this::onEvent)) {
      cdp = c;
      cdp.send("Runtime.enable");
      cdp.send("Log.enable");
      cdp.send("Network.enable");
      cdp.send("Page.enable");
      cdp.send("Emulation.setDeviceMetricsOverride", "width", WIDTH, "height", HEIGHT,
          "deviceScaleFactor", 1, "mobile", false);
      tour(job);
    } catch (Exception e) {
      fail("tour aborted: " + e);
    } finally {
      deleteTree(profile);
    }
    StringBuilder report = new StringBuilder();
    for (String f : failures) report.append(f).append('\n');
    Files.writeString(out.resolve("failures.txt"), report.toString(), StandardCharsets.UTF_8);
    System.out.println("DashboardTour " + base + (history ? " (history server)" : "") + ": "
        + shots + " pages, " + failures.size() + " failures; screenshots in " + out);
    if (!notes.isEmpty()) {
      System.out.println("Notes (the dashboard's own handling of a true value, not failures):");
      for (String n : notes) System.out.println("  " + n);
    }
    if (!failures.isEmpty()) {
      System.out.println("FAILURES:");
      System.out.print(report);
      return 1;
    }
    return 0;
  }

  // ---- events -------------------------------------------------------------------------------

  private void onEvent(JsonNode msg) {
    String method = msg.path("method").asText();
    JsonNode p = msg.path("params");
    switch (method) {
      case "Network.requestWillBeSent": {
        String id = p.path("requestId").asText();
        requestUrls.put(id, p.path("request").path("url").asText());
        // The page's own loads count towards idle: its REST calls, documents and scripts (the
        // editor's web worker and blob: URLs never report finishing to the page's session).
        String type = p.path("type").asText();
        String url = p.path("request").path("url").asText();
        if (url.startsWith("http") && !url.contains("/worker/")
            && (type.equals("XHR") || type.equals("Fetch") || type.equals("Document")
                || type.equals("Script"))) {
          inflight.add(id);
        }
        lastNetworkActivity = System.nanoTime();
        break;
      }
      case "Network.responseReceived": {
        int status = p.path("response").path("status").asInt();
        String url = p.path("response").path("url").asText();
        if (status >= 400) {
          fail("HTTP " + status + " " + url);
        }
        lastNetworkActivity = System.nanoTime();
        break;
      }
      case "Network.loadingFinished":
        inflight.remove(p.path("requestId").asText());
        lastNetworkActivity = System.nanoTime();
        break;
      case "Network.loadingFailed": {
        String id = p.path("requestId").asText();
        inflight.remove(id);
        lastNetworkActivity = System.nanoTime();
        // A request the page itself abandoned (a route change cancels its polls) is no failure.
        if (!p.path("canceled").asBoolean(false)) {
          fail("load failed (" + p.path("errorText").asText() + ") " + requestUrls.get(id));
        }
        break;
      }
      case "Runtime.consoleAPICalled": {
        String type = p.path("type").asText();
        if (type.equals("error") || type.equals("assert")) {
          StringBuilder text = new StringBuilder();
          for (JsonNode a : p.path("args")) {
            if (text.length() > 0) text.append(' ');
            text.append(a.has("value") ? a.get("value").asText() : a.path("description").asText());
            // An object (Angular's HttpErrorResponse) shows its fields: status, url, message.
            for (JsonNode prop : a.path("preview").path("properties")) {
              String name = prop.path("name").asText();
              if (name.equals("status") || name.equals("url") || name.equals("message")) {
                text.append(' ').append(name).append('=').append(prop.path("value").asText());
              }
            }
          }
          String message = "console." + type + ": " + firstLines(text.toString());
          if (text.toString().contains(WATERMARK_PIPE_QUIRK)) {
            note(message);
          } else {
            fail(message);
          }
        }
        break;
      }
      case "Runtime.exceptionThrown": {
        JsonNode d = p.path("exceptionDetails");
        fail("uncaught exception: "
            + firstLines(d.path("exception").path("description").asText(d.path("text").asText())));
        break;
      }
      case "Log.entryAdded": {
        JsonNode e = p.path("entry");
        // Network errors are already recorded with their URL and status above.
        if (e.path("level").asText().equals("error") && !e.path("source").asText().equals("network")) {
          fail("log error (" + e.path("source").asText() + "): " + firstLines(e.path("text").asText())
              + (e.has("url") ? " at " + e.get("url").asText() : ""));
        }
        break;
      }
      default:
        break;
    }
  }

  private static String firstLines(String s) {
    String[] lines = s.split("\n");
    StringBuilder b = new StringBuilder(lines[0]);
    for (int i = 1; i < Math.min(lines.length, 3); i++) b.append(" | ").append(lines[i].trim());
    return b.toString();
  }

  // ---- waiting ------------------------------------------------------------------------------

  /** Polls a JavaScript condition until it is true; false when the deadline passes first. */
  private boolean waitFor(String condition, long deadlineMs) throws Exception {
    long end = System.nanoTime() + deadlineMs * 1_000_000;
    while (System.nanoTime() < end) {
      JsonNode v = cdp.eval("!!(" + condition + ")");
      if (v.asBoolean(false)) return true;
      Thread.sleep(50);
    }
    return false;
  }

  /** Waits until no request has been in flight for QUIET_MS (the dashboard polls every few s). */
  private void waitNetworkIdle() throws Exception {
    long end = System.nanoTime() + PAGE_DEADLINE_MS * 1_000_000;
    while (System.nanoTime() < end) {
      if (inflight.isEmpty() && System.nanoTime() - lastNetworkActivity > QUIET_MS * 1_000_000) {
        return;
      }
      Thread.sleep(50);
    }
    fail("network never went quiet for " + QUIET_MS + " ms; in flight: " + inflightUrls());
  }

  private List<String> inflightUrls() {
    List<String> urls = new ArrayList<>();
    for (String id : inflight) urls.add(requestUrls.get(id));
    return urls;
  }

  private static String js(String s) {
    return "'" + s.replace("\\", "\\\\").replace("'", "\\'") + "'";
  }

  private static String present(String selector) {
    return "document.querySelector(" + js(selector) + ")";
  }

  // ---- pages --------------------------------------------------------------------------------

  /** Goes to a hash route, waits for `selector` and a quiet network, takes a screenshot. */
  private boolean visit(String name, String route, String selector) throws Exception {
    page = name + " #" + route;
    if (shots == 0) {
      cdp.send("Page.navigate", "url", base + "/#" + route);
    } else {
      cdp.eval("location.hash = " + js("#" + route) + ", true");
    }
    boolean ok = waitFor(present(selector), PAGE_DEADLINE_MS);
    if (!ok) fail("<" + selector + "> did not appear within " + PAGE_DEADLINE_MS + " ms");
    waitNetworkIdle();
    screenshot(name);
    return ok;
  }

  /** Goes to a hash route and waits for `selector`, without a screenshot. */
  private void go(String route, String selector) throws Exception {
    page = "#" + route;
    cdp.eval("location.hash = " + js("#" + route) + ", true");
    if (!waitFor(present(selector), PAGE_DEADLINE_MS)) {
      fail("<" + selector + "> did not appear within " + PAGE_DEADLINE_MS + " ms");
    }
    waitNetworkIdle();
  }

  private void screenshot(String name) throws Exception {
    JsonNode shot = cdp.send("Page.captureScreenshot", "format", "png");
    shots++;
    String file = String.format("%02d-%s.png", shots, name.replaceAll("[^A-Za-z0-9_.-]+", "-"));
    Files.write(out.resolve(file), Base64.getDecoder().decode(shot.path("data").asText()));
  }

  /** Clicks the tab whose title is `title` inside `container`. */
  private boolean clickTab(String container, String title) throws Exception {
    return cdp.eval("(() => { const c = document.querySelector(" + js(container) + ");"
        + " if (!c) return false;"
        + " for (const t of c.querySelectorAll('.ant-tabs-tab')) {"
        + "   if (t.textContent.trim() === " + js(title) + ") {"
        + "     (t.querySelector('.ant-tabs-tab-btn') || t).click(); return true; } }"
        + " return false; })()").asBoolean(false);
  }

  /** Clicks the first element matching `selector` (inside `scope`, or the document). */
  private boolean click(String scope, String selector) throws Exception {
    return cdp.eval("(() => { const s = " + (scope == null ? "document" : present(scope)) + ";"
        + " const e = s && s.querySelector(" + js(selector) + ");"
        + " if (!e) return false; e.click(); return true; })()").asBoolean(false);
  }

  private void step(String name, String what, boolean ok) throws Exception {
    if (!ok) {
      fail(what);
      return;
    }
    waitNetworkIdle();
    screenshot(name);
  }

  private void checkpoints(String jobRoute) throws Exception {
    if (!visit("checkpoints-overview", jobRoute + "/checkpoints", "flink-job-checkpoints")) return;
    String tabs = "flink-job-checkpoints";
    String pane = "flink-job-checkpoints .ant-tabs-tabpane-active";
    if (clickTab(tabs, "History")) {
      page = "checkpoints-history";
      boolean rows = waitFor(present(pane + " .ant-table-row-expand-icon"), PAGE_DEADLINE_MS);
      step("checkpoints-history", "checkpoint history: no expandable checkpoint row within "
          + PAGE_DEADLINE_MS + " ms", rows);
      if (rows && click(pane, ".ant-table-row-expand-icon")) {
        page = "checkpoints-history-expanded";
        boolean detail = waitFor(present(pane + " flink-job-checkpoints-detail .ant-table-row-expand-icon"),
            PAGE_DEADLINE_MS);
        step("checkpoints-history-expanded",
            "expanded checkpoint: no operator row in <flink-job-checkpoints-detail>", detail);
        if (detail && click(pane + " flink-job-checkpoints-detail", ".ant-table-row-expand-icon")) {
          page = "checkpoints-history-operator";
          step("checkpoints-history-operator",
              "expanded operator: no <flink-job-checkpoints-subtask> table",
              waitFor(present(pane + " flink-job-checkpoints-subtask tbody tr"), PAGE_DEADLINE_MS));
        }
      }
    } else {
      fail("no History tab in <flink-job-checkpoints>");
    }
    for (String tab : new String[] {"Summary", "Configuration"}) {
      page = "checkpoints-" + tab.toLowerCase();
      step("checkpoints-" + tab.toLowerCase(), "no " + tab + " tab in <flink-job-checkpoints>",
          clickTab(tabs, tab) && waitFor(present(pane), PAGE_DEADLINE_MS));
    }
  }

  private void vertex(String jobRoute, String vid, String vname, boolean addMetric) throws Exception {
    String v = jobRoute + "/overview/" + vid;
    String n = "vertex-" + vname;
    visit(n + "-detail", v + "/detail", "flink-job-overview-drawer-detail");
    visit(n + "-subtasks", v + "/subtasks", "flink-job-overview-drawer-subtasks");
    visit(n + "-taskmanagers", v + "/taskmanagers", "flink-job-overview-drawer-taskmanagers");
    visit(n + "-accumulators", v + "/accumulators", "flink-job-overview-drawer-accumulators");
    // ckpt-engine's archives hold the final watermarks and metrics (Flink's hold neither).
    visit(n + "-watermarks", v + "/watermarks", "flink-job-overview-drawer-watermarks");
    if (history) {
      visit(n + "-metrics", v + "/metrics", "flink-job-overview-drawer-chart");
      return;  // back pressure and flame graphs are sampled from running tasks only
    }
    visit(n + "-backpressure", v + "/backpressure", "flink-job-overview-drawer-backpressure");
    visit(n + "-flamegraph", v + "/flamegraph", "flink-job-overview-drawer-flamegraph");
    if (visit(n + "-metrics", v + "/metrics", "flink-job-overview-drawer-chart") && addMetric) {
      String chart = "flink-job-overview-drawer-chart";
      page = n + "-metrics-added";
      boolean opened = click(chart, "nz-select .ant-select-selector")
          && waitFor(present(".ant-select-item-option"), PAGE_DEADLINE_MS);
      if (!opened) {
        fail("metrics: the Add Metric list opened with no metric to add");
      } else {
        click(null, ".ant-select-item-option");
        step(n + "-metrics-added", "metrics: no chart after adding a metric",
            waitFor(present(chart + " flink-job-chart"), PAGE_DEADLINE_MS));
      }
    }
  }

  private void tour(String jobArg) throws Exception {
    HttpClient http = HttpClient.newHttpClient();
    String jid = jobArg;
    if (jid == null) {
      for (JsonNode j : getJson(http, "/jobs/overview").path("jobs")) {
        if (history || j.path("state").asText().equals("RUNNING")) {
          jid = j.path("jid").asText();
          break;
        }
      }
      if (jid == null) throw new IllegalStateException(base + "/jobs/overview lists no "
          + (history ? "" : "running ") + "job");
    }
    JsonNode job = getJson(http, "/jobs/" + jid);
    Map<String, String> vertices = new LinkedHashMap<>();
    for (JsonNode v : job.path("vertices")) {
      vertices.put(v.path("id").asText(), v.path("name").asText());
    }
    String state = history ? "completed" : "running";
    String jobRoute = "/job/" + state + "/" + jid;

    visit("overview", "/overview",
        "flink-overview flink-job-list, flink-overview flink-application-list");
    if (!history) visit("running-jobs", "/job/running", "flink-job-list");
    visit("completed-jobs", "/job/completed", "flink-job-list");
    if (flink2) {
      if (!history) visit("running-applications", "/application/running", "flink-application-list");
      visit("completed-applications", "/application/completed", "flink-application-list");
    }
    if (visit("job-graph", jobRoute + "/overview", "flink-job-overview flink-dagre")) {
      waitFor(present("flink-dagre svg g.node"), PAGE_DEADLINE_MS);
    }
    visit("job-exceptions", jobRoute + "/exceptions", "flink-job-exceptions");
    visit("job-timeline", jobRoute + "/timeline", "flink-job-timeline");
    checkpoints(jobRoute);
    // Flink 2.x's Rescales tab shows for the adaptive scheduler's streaming jobs only.
    if (flink2 && cdp.eval("[...document.querySelectorAll('flink-job-status .ant-tabs-tab, flink-job-detail "
        + "a, .ant-tabs-tab')].some(e => e.textContent.trim() === 'Rescales')").asBoolean(false)) {
      visit("job-rescales", jobRoute + "/rescales", "flink-job-rescales");
    }
    visit("job-configuration", jobRoute + "/configuration", "flink-job-configuration");
    if (history) {
      visit("job-cluster-configuration", jobRoute + "/cluster_configuration", "flink-cluster-config");
    } else {
      visit("job-dataskew", jobRoute + "/dataskew", "flink-data-skew");
    }
    boolean first = true;
    int i = 0;
    for (Map.Entry<String, String> v : vertices.entrySet()) {
      // As a user does: back to the graph (the drawer closes), then the next vertex.
      if (!first) go(jobRoute + "/overview", "flink-job-overview flink-dagre");
      vertex(jobRoute, v.getKey(), "v" + (i++), first);
      first = false;
    }
    if (history) return;
    visit("task-managers", "/task-manager", "flink-task-manager-list");
    JsonNode tms = getJson(http, "/taskmanagers").path("taskmanagers");
    if (tms.size() == 0) {
      fail("/taskmanagers lists no task manager");
    } else {
      String tm = "/task-manager/" + tms.get(0).path("id").asText();
      visit("task-manager-metrics", tm + "/metrics", "flink-task-manager-metrics");
      visit("task-manager-logs", tm + "/logs", "flink-task-manager-logs");
      visit("task-manager-stdout", tm + "/stdout", "flink-task-manager-stdout");
      visit("task-manager-log-list", tm + "/log-list", "flink-task-manager-log-list");
      visit("task-manager-thread-dump", tm + "/thread-dump", "flink-task-manager-thread-dump");
    }
    visit("job-manager-config", "/job-manager/config", "flink-job-manager-configuration");
    visit("job-manager-metrics", "/job-manager/metrics", "flink-job-manager-metrics");
    visit("job-manager-logs", "/job-manager/logs", "flink-job-manager-logs");
    visit("job-manager-stdout", "/job-manager/stdout", "flink-job-manager-stdout");
    visit("job-manager-log-list", "/job-manager/log", "flink-job-manager-log-list");
    visit("job-manager-thread-dump", "/job-manager/thread-dump", "flink-job-manager-thread-dump");
  }

  private JsonNode getJson(HttpClient http, String path) throws Exception {
    HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(base + path)).build(),
        HttpResponse.BodyHandlers.ofString());
    if (r.statusCode() != 200) {
      throw new IllegalStateException("GET " + base + path + ": HTTP " + r.statusCode() + " " + r.body());
    }
    return DashboardTourCdp.MAPPER.readTree(r.body());
  }

  private static void deleteTree(Path p) {
    try (var walk = Files.walk(p)) {
      walk.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
    } catch (Exception ignored) {
      // a leftover browser profile in the scratch dir is harmless
    }
  }
}
