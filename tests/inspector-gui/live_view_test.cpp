// QTest (offscreen) of the inspector's live Checkpoints view against a real ckpt-engine
// subprocess (`run --rest-port 0`): the history, counts, summary, configuration and per-operator
// and per-subtask details of the running job appear and match the snapshots on disk; a completed
// checkpoint opens in the main window; an unreachable address is reported; a screenshot of the
// view is written (CKPT_SCREENSHOT_DIR/live-checkpoints.png). Against a scripted REST endpoint
// (FakeRest): the selected checkpoint's details follow it from in progress to completed.
#include "app/live_view.h"

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QFontMetrics>
#include <QImage>
#include <QProcess>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTableView>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTemporaryDir>

#include "app/main_window.h"
#include "gui_test_util.h"

using namespace ckpt::inspector;

namespace {

// The first COMPLETED row whose path has a `_metadata` on disk; -1 if none.
int completedOnDisk(const LiveHistoryModel& m) {
  for (int r = 0; r < m.rowCount(); ++r) {
    const LiveHistoryEntry& e = m.entries()[r];
    if (e.status == QLatin1String("COMPLETED") && QFileInfo::exists(e.path + "/_metadata")) {
      return r;
    }
  }
  return -1;
}

// A REST endpoint on 127.0.0.1 answering GET PATH with routes[PATH] (404 with Flink's error body
// otherwise) and counting the requests per path; the test changes the routes as it goes.
class FakeRest : public QObject {
 public:
  FakeRest() {
    m_server.listen(QHostAddress::LocalHost, 0);
    connect(&m_server, &QTcpServer::newConnection, this, [this] {
      while (QTcpSocket* s = m_server.nextPendingConnection()) {
        connect(s, &QTcpSocket::readyRead, this, [this, s] { serve(s); });
        connect(s, &QTcpSocket::disconnected, s, &QObject::deleteLater);
      }
    });
  }
  bool listening() const { return m_server.isListening(); }
  QString url() const { return QStringLiteral("http://127.0.0.1:%1").arg(m_server.serverPort()); }

  QMap<QString, QByteArray> routes;
  QMap<QString, int> hits;

 private:
  void serve(QTcpSocket* s) {
    QByteArray& request = m_requests[s];
    request += s->readAll();
    if (!request.contains("\r\n\r\n")) return;
    const QString path =
        QString::fromLatin1(request.left(request.indexOf("\r\n")).split(' ').value(1));
    m_requests.remove(s);
    ++hits[path];
    const bool found = routes.contains(path);
    const QByteArray body =
        found ? routes.value(path) : R"({"errors": ["Not found: )" + path.toUtf8() + R"("]})";
    s->write(QByteArray(found ? "HTTP/1.1 200 OK\r\n" : "HTTP/1.1 404 Not Found\r\n") +
             "Content-Type: application/json\r\nContent-Length: " +
             QByteArray::number(body.size()) + "\r\nConnection: close\r\n\r\n" + body);
    s->disconnectFromHost();
  }

  QTcpServer m_server;
  QHash<QTcpSocket*, QByteArray> m_requests;
};

}  // namespace

class LiveViewTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void initTestCase() {
    QVERIFY(m_dir.isValid());
    const QString job = m_dir.filePath(QStringLiteral("job.json"));
    QFile f(job);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(QStringLiteral(
                R"({"name": "live-view", "parallelism": 2, "max_parallelism": 128,
 "operators": [
   {"id": "numbers", "kind": "sequence-source", "uid": "numbers",
    "params": {"from": 1, "to": 100000000, "splits": 4, "keys": 8, "rate_per_second": 5000}},
   {"id": "sum", "kind": "keyed-sum", "uid": "sum", "params": {"emit": "input-and-sum"}},
   {"id": "sink", "kind": "file-sink", "uid": "sums", "params": {"path": "%1"}}],
 "edges": [{"from": "numbers", "to": "sum", "partitioning": "HASH"},
           {"from": "sum", "to": "sink", "partitioning": "FORWARD"}]})")
                .arg(m_dir.filePath(QStringLiteral("out")))
                .toUtf8());
    f.close();
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("CKPT_ENGINE_STATE_FILE"), m_dir.filePath(QStringLiteral("state.json")));
    m_engine.setProcessEnvironment(env);
    m_engine.setProcessChannelMode(QProcess::MergedChannels);
    // Retained checkpoints stay on disk long enough to be opened from the history.
    m_engine.start(QStringLiteral(CKPT_ENGINE_EXE),
                   {QStringLiteral("run"), job, QStringLiteral("--checkpoint-dir"),
                    m_dir.filePath(QStringLiteral("ckpt")), QStringLiteral("--interval"),
                    QStringLiteral("200"), QStringLiteral("--num-retained"), QStringLiteral("50"),
                    QStringLiteral("--rest-port"), QStringLiteral("0")});
    QVERIFY2(m_engine.waitForStarted(30000), qPrintable(m_engine.errorString()));
    const QRegularExpression re(QStringLiteral("REST endpoint: (http://127\\.0\\.0\\.1:[0-9]+)"));
    QString out;
    QVERIFY2(QTest::qWaitFor(
                 [&] {
                   out += QString::fromUtf8(m_engine.readAll());
                   const QRegularExpressionMatch m = re.match(out);
                   if (m.hasMatch()) m_url = m.captured(1);
                   return m.hasMatch() || m_engine.state() == QProcess::NotRunning;
                 },
                 60000),
             "ckpt-engine did not print its REST endpoint");
    QVERIFY2(!m_url.isEmpty(), qPrintable(out));
  }

  void cleanupTestCase() {
    if (m_engine.state() != QProcess::NotRunning) {
      m_engine.kill();
      m_engine.waitForFinished(30000);
    }
  }

  void showsTheHistoryOfARunningEngine() {
    LiveCheckpointsWindow w(m_url, 200);
    w.show();
    QAbstractItemModelTester t1(w.historyModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    QAbstractItemModelTester t2(w.summaryModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    QAbstractItemModelTester t3(w.configModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    QAbstractItemModelTester t4(w.tasksModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    QAbstractItemModelTester t5(w.subtasksModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    QVERIFY2(QTest::qWaitFor([&] { return w.checkpoints().completed >= 3 && w.historyModel()->rowCount() >= 3; }, 60000),
             qPrintable(w.statusText()));
    const int polls = w.connection()->polls();
    QVERIFY(QTest::qWaitFor([&] { return w.connection()->polls() > polls; }, 30000));  // live
    QVERIFY2(w.countsText().contains(QStringLiteral("Completed")), qPrintable(w.countsText()));
    // What the view shows is on disk: each completed row's _metadata exists (retained 50).
    const int row = completedOnDisk(*w.historyModel());
    QVERIFY2(row >= 0, "no completed checkpoint of the history is on disk");
    const LiveHistoryEntry e = w.historyModel()->entries()[row];
    QVERIFY(e.path.startsWith(m_dir.filePath(QStringLiteral("ckpt"))));
    QCOMPARE(e.acknowledged, e.subtasks);
    QCOMPARE(w.historyModel()->index(row, LiveHistoryModel::kId).data().toLongLong(), e.id);
    // Summary percentiles and configuration.
    QVERIFY(w.summaryModel()->rowCount() >= 5);
    bool interval = false;
    for (int r = 0; r < w.configModel()->rowCount(); ++r) {
      if (w.configModel()->index(r, 0).data().toString() == QLatin1String("interval")) {
        interval = w.configModel()->index(r, 1).data().toString() == QLatin1String("200");
      }
    }
    QVERIFY2(interval, "the configuration does not show interval 200");
    // Details of the selected checkpoint: every operator chain, then its subtasks.
    w.selectCheckpoint(row);
    QVERIFY(QTest::qWaitFor([&] { return w.tasksModel()->rowCount() >= 2; }, 30000));
    QVERIFY(QTest::qWaitFor([&] { return w.subtasksModel()->rowCount() == 2; }, 30000));
    QCOMPARE(w.subtasksModel()->index(0, LiveSubtasksModel::kStatus).data().toString(),
             QStringLiteral("completed"));
    QCOMPARE(w.subtasksModel()->index(0, LiveSubtasksModel::kUnaligned).data().toString(),
             QStringLiteral("no"));

    QDir().mkpath(QStringLiteral(CKPT_SCREENSHOT_DIR));
    const QString png = QStringLiteral(CKPT_SCREENSHOT_DIR "/live-checkpoints.png");
    QVERIFY(w.grab().save(png));
    const QImage image(png);
    QVERIFY(!image.isNull());
    QCOMPARE(image.size(), w.size() * w.devicePixelRatio());
    w.tabs()->setCurrentIndex(1);
    QVERIFY(w.grab().save(QStringLiteral(CKPT_SCREENSHOT_DIR "/live-checkpoints-summary.png")));
  }

  void opensACompletedCheckpointInTheMainWindow() {
    MainWindow window;
    window.show();
    LiveCheckpointsWindow* live = openLiveView(window, m_url, 200);
    QVERIFY(QTest::qWaitFor([&] { return completedOnDisk(*live->historyModel()) >= 0; }, 60000));
    const int row = completedOnDisk(*live->historyModel());
    const QString path = live->historyModel()->entries()[row].path;
    QSignalSpy loaded(&window, &MainWindow::snapshotLoaded);
    // One click on the row's path, as a user would.
    QTableView* view = live->historyView();
    const QModelIndex cell = view->model()->index(row, LiveHistoryModel::kPathOrFailure);
    view->scrollTo(cell);
    QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, view->visualRect(cell).center());
    QVERIFY(QTest::qWaitFor([&] { return loaded.count() > 0; }, 60000));
    QCOMPARE(QDir(window.currentPath()).canonicalPath(), QDir(path).canonicalPath());
  }

  // Checkpoint 5 is selected while in progress: its operators and the chosen operator's
  // subtasks are fetched again on every refresh, and once more when it completes, the chosen
  // operator staying selected; after that they are not fetched again.
  void followsTheSelectedCheckpointUntilItCompletes() {
    FakeRest rest;
    QVERIFY(rest.listening());
    const QString job = QStringLiteral("/jobs/0123456789abcdef0123456789abcdef");
    const QString details = job + QStringLiteral("/checkpoints/details/5");
    rest.routes[QStringLiteral("/jobs/overview")] =
        R"({"jobs": [{"jid": "0123456789abcdef0123456789abcdef", "name": "fake", "state": "RUNNING"}]})";
    rest.routes[job] = R"({"vertices": [{"id": "aa", "name": "source", "parallelism": 2},
                                         {"id": "bb", "name": "sink", "parallelism": 2}]})";
    rest.routes[job + "/checkpoints/config"] = R"({"interval": 100})";
    const auto history = [](const char* status, int acked) {
      return QStringLiteral(
                 R"({"counts": {"restored": 0, "total": 1, "in_progress": %1, "completed": %2, "failed": 0},
        "summary": {}, "latest": {}, "history": [{"id": 5, "status": "%3", "is_savepoint": false,
        "num_subtasks": 4, "num_acknowledged_subtasks": %4}]})")
          .arg(acked < 4 ? 1 : 0)
          .arg(acked < 4 ? 0 : 1)
          .arg(QLatin1String(status))
          .arg(acked)
          .toUtf8();
    };
    const auto tasks = [](int sinkAcked) {
      return QStringLiteral(R"({"id": 5, "tasks": {
        "bb": {"status": "%1", "num_subtasks": 2, "num_acknowledged_subtasks": %2},
        "aa": {"status": "%1", "num_subtasks": 2, "num_acknowledged_subtasks": 2}}})")
          .arg(sinkAcked < 2 ? QStringLiteral("IN_PROGRESS") : QStringLiteral("COMPLETED"))
          .arg(sinkAcked)
          .toUtf8();
    };
    const QByteArray pending = R"({"subtasks": [{"index": 0, "status": "pending_or_failed"},
                                                {"index": 1, "status": "pending_or_failed"}]})";
    const QByteArray done = R"({"subtasks": [
      {"index": 0, "status": "completed", "end_to_end_duration": 9, "checkpoint": {"sync": 3, "async": 4},
       "alignment": {"duration": 1}, "start_delay": 2, "unaligned_checkpoint": false},
      {"index": 1, "status": "completed", "end_to_end_duration": 8, "checkpoint": {"sync": 2, "async": 4},
       "alignment": {"duration": 1}, "start_delay": 2, "unaligned_checkpoint": false}]})";
    rest.routes[job + "/checkpoints"] = history("IN_PROGRESS", 2);
    rest.routes[details] = tasks(0);
    rest.routes[details + "/subtasks/aa"] = done;
    rest.routes[details + "/subtasks/bb"] = pending;

    LiveCheckpointsWindow w(rest.url(), 100);
    w.show();
    QAbstractItemModelTester t1(w.tasksModel(),
                                QAbstractItemModelTester::FailureReportingMode::QtTest);
    QAbstractItemModelTester t2(w.subtasksModel(),
                                QAbstractItemModelTester::FailureReportingMode::QtTest);
    QVERIFY2(QTest::qWaitFor([&] { return w.historyModel()->rowCount() == 1; }, 30000),
             qPrintable(w.statusText()));
    w.selectCheckpoint(0);
    // The job's vertices (names, order) and the details are separate requests: either may
    // arrive first.
    QVERIFY(QTest::qWaitFor(
        [&] {
          return w.tasksModel()->rowCount() == 2 &&
                 w.tasksModel()->index(0, LiveTasksModel::kOperator).data().toString() ==
                     QLatin1String("source");
        },
        30000));
    QCOMPARE(w.tasksModel()->index(1, LiveTasksModel::kAcknowledged).data().toString(),
             QStringLiteral("0/2"));
    w.tasksView()->selectRow(1);  // the sink
    QVERIFY(QTest::qWaitFor([&] { return w.subtasksModel()->rowCount() == 2; }, 30000));
    QCOMPARE(w.subtasksModel()->index(0, LiveSubtasksModel::kSync).data().toString(),
             QStringLiteral("—"));
    // In progress: fetched again on refreshes.
    const int fetched = rest.hits.value(details);
    QVERIFY(QTest::qWaitFor([&] { return rest.hits.value(details) >= fetched + 2; }, 30000));

    rest.routes[details] = tasks(2);
    rest.routes[details + "/subtasks/bb"] = done;
    rest.routes[job + "/checkpoints"] = history("COMPLETED", 4);
    QVERIFY2(
        QTest::qWaitFor(
            [&] {
              return w.tasksModel()->index(1, LiveTasksModel::kAcknowledged).data().toString() ==
                         QLatin1String("2/2") &&
                     w.subtasksModel()->index(0, LiveSubtasksModel::kSync).data().toString() ==
                         QLatin1String("3 ms");
            },
            30000),
        qPrintable(w.statusText()));
    QCOMPARE(w.tasksView()->currentIndex().row(), 1);  // still the sink
    QCOMPARE(w.subtasksModel()->index(0, LiveSubtasksModel::kStatus).data().toString(),
             QStringLiteral("completed"));
    // Completed: no more fetches of its details over further refreshes.
    QVERIFY(QTest::qWaitFor(
        [&] { return w.historyModel()->entries().front().status == QLatin1String("COMPLETED"); },
        30000));
    const int after = rest.hits.value(details);
    const int polls = w.connection()->polls();
    QVERIFY(QTest::qWaitFor([&] { return w.connection()->polls() >= polls + 3; }, 30000));
    QCOMPARE(rest.hits.value(details), after);
  }

  // Two RUNNING jobs whose listing changes order between polls: the automatic choice stays on
  // the job it watches.
  void keepsWatchingItsJobWhenTheListingReorders() {
    FakeRest rest;
    QVERIFY(rest.listening());
    const QByteArray a =
        R"({"jid": "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "name": "a", "state": "RUNNING"})";
    const QByteArray b =
        R"({"jid": "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb", "name": "b", "state": "RUNNING"})";
    const QByteArray stats =
        R"({"counts": {"restored": 0, "total": 0, "in_progress": 0, "completed": 0, "failed": 0},
                                 "summary": {}, "latest": {}, "history": []})";
    for (const char* job :
         {"/jobs/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "/jobs/bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"}) {
      rest.routes[QLatin1String(job)] = R"({"vertices": []})";
      rest.routes[QLatin1String(job) + "/checkpoints/config"] = "{}";
      rest.routes[QLatin1String(job) + "/checkpoints"] = stats;
    }
    rest.routes[QStringLiteral("/jobs/overview")] = R"({"jobs": [)" + a + "," + b + "]}";
    LiveConnection c(rest.url());
    c.setInterval(50);
    c.start();
    QVERIFY(QTest::qWaitFor([&] { return c.polls() > 0; }, 30000));
    QCOMPARE(c.watchedJobId(), QStringLiteral("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"));
    rest.routes[QStringLiteral("/jobs/overview")] = R"({"jobs": [)" + b + "," + a + "]}";
    const int overviews = rest.hits.value(QStringLiteral("/jobs/overview"));
    QVERIFY(QTest::qWaitFor(
        [&] {
          return rest.hits.value(QStringLiteral("/jobs/overview")) >= overviews + 3 &&
                 c.polls() > 3;
        },
        30000));
    QCOMPARE(c.watchedJobId(), QStringLiteral("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"));
    // Once it no longer runs, the first RUNNING job is watched.
    rest.routes[QStringLiteral("/jobs/overview")] =
        R"({"jobs": [{"jid": "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "name": "a", "state": "FINISHED"}, )" +
        b + "]}";
    QVERIFY(QTest::qWaitFor(
        [&] { return c.watchedJobId() == QLatin1String("bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"); },
        30000));
  }

  // The job box shows the watched job after every refill of the listing, also when the
  // listing puts another job first (checked right after each refill, before the next answer).
  void jobBoxShowsTheWatchedJobAfterEveryListing() {
    FakeRest rest;
    QVERIFY(rest.listening());
    const QByteArray a =
        R"({"jid": "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "name": "a", "state": "RUNNING"})";
    const QByteArray b =
        R"({"jid": "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb", "name": "b-with-a-longer-name", "state": "RUNNING"})";
    const QByteArray stats =
        R"({"counts": {"restored": 0, "total": 0, "in_progress": 0, "completed": 0, "failed": 0},
                                 "summary": {}, "latest": {}, "history": []})";
    for (const char* job :
         {"/jobs/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "/jobs/bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"}) {
      rest.routes[QLatin1String(job)] = R"({"vertices": []})";
      rest.routes[QLatin1String(job) + "/checkpoints/config"] = "{}";
      rest.routes[QLatin1String(job) + "/checkpoints"] = stats;
    }
    rest.routes[QStringLiteral("/jobs/overview")] = R"({"jobs": [)" + a + "]}";
    LiveCheckpointsWindow w(rest.url(), 50);
    LiveConnection* c = w.connection();
    QVERIFY(QTest::qWaitFor([&] { return c->polls() > 0; }, 30000));
    QCOMPARE(c->watchedJobId(), QStringLiteral("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"));
    int refills = 0;
    QStringList wrong;
    connect(c, &LiveConnection::jobsUpdated, &w, [&] {
      ++refills;
      if (w.jobsBox()->currentData().toString() != c->watchedJobId())
        wrong << w.jobsBox()->currentText();
    });
    rest.routes[QStringLiteral("/jobs/overview")] = R"({"jobs": [)" + b + "," + a + "]}";
    QVERIFY(QTest::qWaitFor([&] { return refills >= 3; }, 30000));
    QVERIFY2(wrong.isEmpty(), qPrintable(wrong.join(QLatin1String("; "))));
    QCOMPARE(w.jobsBox()->count(), 2);
    // The box is wide enough for its longest entry.
    QFontMetrics fm(w.jobsBox()->font());
    QVERIFY(w.jobsBox()->sizeHint().width() >
            fm.horizontalAdvance(w.jobsBox()->itemText(0)));
  }

  void reportsAnUnreachableAddress() {
    LiveCheckpointsWindow w(QStringLiteral("127.0.0.1:1"), 200);
    QVERIFY(QTest::qWaitFor(
        [&] { return w.statusText().startsWith(QStringLiteral("cannot reach ")); }, 30000));
    QVERIFY2(w.statusText().contains(QStringLiteral("http://127.0.0.1:1 (GET /jobs/overview)")),
             qPrintable(w.statusText()));
    QCOMPARE(w.historyModel()->rowCount(), 0);
  }

 private:
  QTemporaryDir m_dir;
  QProcess m_engine;
  QString m_url;
};

QTEST_MAIN(LiveViewTest)
#include "live_view_test.moc"
