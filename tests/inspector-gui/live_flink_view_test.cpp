// QTest (offscreen) of the inspector's live Checkpoints view against a real Apache Flink
// MiniCluster (the interop harness's LiveServe: a keyed job with unaligned checkpoints every
// 200 ms and one canonical savepoint, and a second job restored from that savepoint). What the
// view shows is checked against Flink's own REST answers: the job picker, counts, history ids and
// fields, per-operator and per-subtask statistics, the configuration, the restored job's restore;
// a checkpoint and the savepoint open in the main window; Flink's error answer is reported
// without its stack trace; the selection stays on its checkpoint while the history moves; a
// screenshot is written (CKPT_SCREENSHOT_DIR/live-checkpoints-flink-LINE.png).
//
// Run by tests/interop/flink/run-live-view.sh (ctest interop.flink_live_view), which builds the
// harness and sets CKPT_FLINK_HARNESS_CP (the harness's class path) and CKPT_FLINK_LINE (1.20,
// 2); without them the test fails.
#include <QAbstractItemModelTester>
#include <QApplication>
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QProcess>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <cmath>

#include "app/live_view.h"
#include "app/main_window.h"
#include "gui_test_util.h"

using namespace ckpt::inspector;

namespace {

constexpr int kStartMs = 300000;  // a MiniCluster's first start on the shared 2-core machine
constexpr int kWaitMs = 120000;

QString env(const char* name) { return qEnvironmentVariable(name); }

// GET `url` and its JSON object (waits with a deadline, processing events); `*error` says why not.
QJsonObject getJson(const QString& url, QString* error) {
  QNetworkAccessManager nam;
  std::unique_ptr<QNetworkReply> reply(nam.get(QNetworkRequest(QUrl(url))));
  if (!QTest::qWaitFor([&] { return reply->isFinished(); }, kWaitMs)) {
    *error = QStringLiteral("GET %1: no answer").arg(url);
    return {};
  }
  const QByteArray body = reply->readAll();
  if (reply->error() != QNetworkReply::NoError) {
    *error =
        QStringLiteral("GET %1: %2 %3").arg(url, reply->errorString(), QString::fromUtf8(body));
    return {};
  }
  const QJsonDocument doc = QJsonDocument::fromJson(body);
  if (!doc.isObject()) *error = QStringLiteral("GET %1: not a JSON object").arg(url);
  return doc.object();
}

qint64 num(const QJsonObject& o, const char* key) {
  return static_cast<qint64>(o.value(QLatin1String(key)).toDouble(-1));
}

QString ms(const QJsonObject& o, const char* key) {
  return QStringLiteral("%1 ms").arg(num(o, key));
}
QString bytes(const QJsonObject& o, const char* key) {
  return humanBytes(static_cast<uint64_t>(num(o, key)));
}

int rowOf(const LiveHistoryModel& m, qint64 id) {
  for (int r = 0; r < m.rowCount(); ++r) {
    if (m.entries()[r].id == id) return r;
  }
  return -1;
}

// The first COMPLETED checkpoint (not savepoint) row whose _metadata is on disk; -1 if none.
int completedCheckpointOnDisk(const LiveHistoryModel& m) {
  for (int r = 0; r < m.rowCount(); ++r) {
    const LiveHistoryEntry& e = m.entries()[r];
    if (e.status == QLatin1String("COMPLETED") && !e.savepoint &&
        QFileInfo::exists(localSnapshotPath(e.path) + QStringLiteral("/_metadata"))) {
      return r;
    }
  }
  return -1;
}

}  // namespace

class LiveFlinkViewTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void initTestCase() {
    testing::initWindowTests(QStringLiteral("live-flink-view-test"));
    const QString cp = env("CKPT_FLINK_HARNESS_CP");
    m_line = env("CKPT_FLINK_LINE");
    QVERIFY2(!cp.isEmpty() && !m_line.isEmpty(),
             "CKPT_FLINK_HARNESS_CP and CKPT_FLINK_LINE are not set: run this test through "
             "tests/interop/flink/run-live-view.sh (ctest -R interop.flink_live_view)");
    QVERIFY(m_dir.isValid());
    // run-live-view.sh keeps a failed run's files (TMPDIR is its scratch dir, removed on success).
    m_dir.setAutoRemove(!qEnvironmentVariableIsSet("CKPT_FLINK_KEEP_DIR"));
    QFile opts(QStringLiteral(CKPT_SOURCE_DIR "/tests/interop/flink/jvm-opts.txt"));
    QVERIFY2(opts.open(QIODevice::ReadOnly), qPrintable(opts.fileName()));
    QStringList args =
        QString::fromUtf8(opts.readAll()).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    const QString info = m_dir.filePath(QStringLiteral("serve.txt"));
    args << QStringLiteral("-cp") << cp << QStringLiteral("ckpt.interop.LiveServe")
         << QStringLiteral("--dir") << m_dir.filePath(QStringLiteral("flink"))
         << QStringLiteral("--out") << info << QStringLiteral("--interval-ms")
         << QStringLiteral("200") << QStringLiteral("--unaligned");
    m_flink.setProcessChannelMode(QProcess::MergedChannels);
    m_flink.setStandardOutputFile(m_dir.filePath(QStringLiteral("serve.log")));
    // LiveServe serves until its standard input closes (cleanupTestCase, or this process dying).
    m_flink.start(QStringLiteral("java"), args);
    QVERIFY2(m_flink.waitForStarted(60000), qPrintable(m_flink.errorString()));
    QVERIFY2(QTest::qWaitFor(
                 [&] { return QFileInfo::exists(info) || m_flink.state() == QProcess::NotRunning; },
                 kStartMs),
             "the Flink MiniCluster did not start within the deadline");
    QVERIFY2(QFileInfo::exists(info),
             qPrintable(QStringLiteral("LiveServe exited: %1").arg(serveLog())));
    QFile f(info);
    QVERIFY(f.open(QIODevice::ReadOnly));
    for (const QString& line :
         QString::fromUtf8(f.readAll()).split(QLatin1Char('\n'), Qt::SkipEmptyParts)) {
      m_info.insert(line.section(QLatin1Char(' '), 0, 0), line.section(QLatin1Char(' '), 1));
    }
    m_url = m_info.value(QStringLiteral("address"));
    m_job = m_info.value(QStringLiteral("job_id"));
    m_restoredJob = m_info.value(QStringLiteral("restored_job_id"));
    QVERIFY2(!m_url.isEmpty() && m_job.size() == 32 && m_restoredJob.size() == 32,
             qPrintable(f.fileName()));
    QVERIFY2(m_info.value(QStringLiteral("flink_version")).startsWith(m_line),
             qPrintable(m_info.value(QStringLiteral("flink_version"))));
    qInfo("Flink %s MiniCluster at %s, job %s",
          qPrintable(m_info.value(QStringLiteral("flink_version"))), qPrintable(m_url),
          qPrintable(m_job));
  }

  void cleanupTestCase() {
    if (m_flink.state() == QProcess::NotRunning) return;
    m_flink.closeWriteChannel();
    if (!m_flink.waitForFinished(60000)) {
      m_flink.kill();
      m_flink.waitForFinished(30000);
    }
  }

  // The view's counts, history, latest savepoint, summary and configuration are Flink's.
  void showsTheHistoryOfAFlinkJob() {
    LiveCheckpointsWindow w(m_url, 300);
    w.resize(1400, 820);
    w.show();
    QAbstractItemModelTester t1(w.historyModel(),
                                QAbstractItemModelTester::FailureReportingMode::QtTest);
    QAbstractItemModelTester t2(w.summaryModel(),
                                QAbstractItemModelTester::FailureReportingMode::QtTest);
    QAbstractItemModelTester t3(w.configModel(),
                                QAbstractItemModelTester::FailureReportingMode::QtTest);
    QAbstractItemModelTester t4(w.tasksModel(),
                                QAbstractItemModelTester::FailureReportingMode::QtTest);
    QAbstractItemModelTester t5(w.subtasksModel(),
                                QAbstractItemModelTester::FailureReportingMode::QtTest);
    // Both jobs are listed; a RUNNING one is watched automatically; the user picks "live-view".
    QComboBox* jobs = w.findChild<QComboBox*>();
    QVERIFY(jobs);
    QVERIFY2(
        QTest::qWaitFor([&] { return jobs->count() == 2 && w.connection()->polls() > 0; }, kWaitMs),
        qPrintable(w.statusText()));
    QVERIFY(w.connection()->watchedJobId() == m_job ||
            w.connection()->watchedJobId() == m_restoredJob);
    pickJob(w, m_job);
    QVERIFY2(QTest::qWaitFor([&] { return waitableHistory(w); }, kWaitMs),
             qPrintable(w.statusText()));
    QCOMPARE(w.connection()->watchedJobId(), m_job);
    QCOMPARE(jobs->currentData().toString(), m_job);
    QVERIFY2(jobs->currentText() == QStringLiteral("live-view — %1 (RUNNING)").arg(m_job),
             qPrintable(jobs->currentText()));

    // Counts: the view's answer lies between Flink's answers before and after it.
    QString error;
    const QJsonObject before = getJson(checkpointsUrl(), &error);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    const int polls = w.connection()->polls();
    QVERIFY(QTest::qWaitFor([&] { return w.connection()->polls() >= polls + 2; }, kWaitMs));
    const LiveCheckpoints seen = w.checkpoints();
    const QJsonObject after = getJson(checkpointsUrl(), &error);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    const QJsonObject c0 = before.value(QLatin1String("counts")).toObject();
    const QJsonObject c1 = after.value(QLatin1String("counts")).toObject();
    QVERIFY(num(c0, "completed") <= seen.completed && seen.completed <= num(c1, "completed"));
    QVERIFY(num(c0, "total") <= seen.total && seen.total <= num(c1, "total"));
    QVERIFY(num(c0, "failed") <= seen.failed && seen.failed <= num(c1, "failed"));
    QCOMPARE(seen.restored, 0);
    QCOMPARE(seen.total, seen.completed + seen.failed + seen.inProgress);
    QVERIFY2(w.countsText().contains(QStringLiteral("Completed %1").arg(seen.completed)),
             qPrintable(w.countsText()));
    // History: newest first, its newest id between Flink's two answers'.
    const auto newest = [](const QJsonObject& o) {
      return num(o.value(QLatin1String("history")).toArray().first().toObject(), "id");
    };
    QVERIFY(!seen.history.isEmpty());
    QVERIFY(newest(before) <= seen.history.front().id && seen.history.front().id <= newest(after));
    for (int i = 1; i < seen.history.size(); ++i)
      QVERIFY(seen.history[i].id < seen.history[i - 1].id);

    // Every completed row the model shows has Flink's fields (a completed checkpoint's
    // statistics never change): the five newest and the savepoint.
    const qint64 savepointId = seen.latestSavepoint ? seen.latestSavepoint->id : -1;
    QVERIFY(savepointId > 0);
    QCOMPARE(localSnapshotPath(seen.latestSavepoint->path),
             localSnapshotPath(m_info.value(QStringLiteral("savepoint"))));
    // The entries to compare are chosen first: fetching Flink's details runs the event loop, in
    // which the live view refreshes and its rows move down as new checkpoints arrive, so each
    // entry's row is looked up again after the fetch.
    QList<LiveHistoryEntry> toCompare;
    for (int r = 0; r < w.historyModel()->rowCount() &&
                    (toCompare.size() < 5 || r <= rowOf(*w.historyModel(), savepointId));
         ++r) {
      const LiveHistoryEntry& e = w.historyModel()->entries()[r];
      if (e.status != QLatin1String("COMPLETED") || (toCompare.size() >= 5 && e.id != savepointId))
        continue;
      toCompare.append(e);
    }
    int compared = 0;
    for (const LiveHistoryEntry& e : toCompare) {
      const QJsonObject d = getJson(detailsUrl(e.id), &error);
      QVERIFY2(error.isEmpty(), qPrintable(error));
      QCOMPARE(d.value(QLatin1String("status")).toString(), e.status);
      QCOMPARE(d.value(QLatin1String("is_savepoint")).toBool(), e.savepoint);
      QCOMPARE(d.value(QLatin1String("external_path")).toString(), e.path);
      QCOMPARE(d.value(QLatin1String("discarded")).toBool(), e.discarded);
      QCOMPARE(num(d, "trigger_timestamp"), e.triggerMs);
      QCOMPARE(num(d, "latest_ack_timestamp"), e.latestAckMs);
      QCOMPARE(num(d, "end_to_end_duration"), e.durationMs);
      QCOMPARE(num(d, "checkpointed_size"), e.checkpointedBytes);
      QCOMPARE(num(d, "state_size"), e.stateBytes);
      QCOMPARE(num(d, "processed_data"), e.processedBytes);
      QCOMPARE(num(d, "persisted_data"), e.persistedBytes);
      const int r = rowOf(*w.historyModel(), e.id);
      if (r < 0) continue;  // left Flink's bounded history while its details were fetched
      const QAbstractItemModel* m = w.historyModel();
      QCOMPARE(m->index(r, LiveHistoryModel::kId).data().toLongLong(), e.id);
      QCOMPARE(m->index(r, LiveHistoryModel::kType).data().toString(),
               d.value(QLatin1String("checkpoint_type")).toString());
      QCOMPARE(m->index(r, LiveHistoryModel::kAcknowledged).data().toString(),
               QStringLiteral("%1/%2")
                   .arg(num(d, "num_acknowledged_subtasks"))
                   .arg(num(d, "num_subtasks")));
      QCOMPARE(m->index(r, LiveHistoryModel::kDuration).data().toString(),
               ms(d, "end_to_end_duration"));
      QCOMPARE(m->index(r, LiveHistoryModel::kFullSize).data().toString(), bytes(d, "state_size"));
      QCOMPARE(m->index(r, LiveHistoryModel::kPathOrFailure).data().toString(),
               d.value(QLatin1String("external_path")).toString());
      QCOMPARE(m->index(r, LiveHistoryModel::kType).data().toString(),
               e.id == savepointId ? QStringLiteral("SAVEPOINT")
                                   : QStringLiteral("UNALIGNED_CHECKPOINT"));
      ++compared;
    }
    QVERIFY(compared >= 3);

    // Summary: Flink's six metrics, numbers where Flink has them.
    QStringList metrics;
    for (int r = 0; r < w.summaryModel()->rowCount(); ++r) {
      metrics << w.summaryModel()->index(r, 0).data().toString();
      for (int c = 1; c <= 3; ++c) {  // min, max, avg: always numbers
        QVERIFY(!std::isnan(w.summaryModel()->index(r, c).data(Qt::UserRole).toDouble()));
      }
    }
    QCOMPARE(metrics, QStringList({"checkpointed_size", "state_size", "end_to_end_duration",
                                   "processed_data", "persisted_data", "alignment_buffered"}));

    // Configuration: every leaf of Flink's answer, with its value.
    const QJsonObject config =
        getJson(QStringLiteral("%1/jobs/%2/checkpoints/config").arg(m_url, m_job), &error);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    QMap<QString, QString> shown;
    for (int r = 0; r < w.configModel()->rowCount(); ++r) {
      shown.insert(w.configModel()->index(r, 0).data().toString(),
                   w.configModel()->index(r, 1).data().toString());
    }
    QCOMPARE(shown.value(QStringLiteral("interval")), QStringLiteral("200"));
    QCOMPARE(shown.value(QStringLiteral("unaligned_checkpoints")), QStringLiteral("true"));
    QCOMPARE(shown.value(QStringLiteral("mode")), config.value(QLatin1String("mode")).toString());
    QCOMPARE(shown.value(QStringLiteral("checkpoint_storage")),
             QStringLiteral("FileSystemCheckpointStorage"));
    QCOMPARE(shown.value(QStringLiteral("externalization.enabled")), QStringLiteral("true"));
    int leaves = 0;
    for (auto it = config.begin(); it != config.end(); ++it) {
      leaves += it.value().isObject() ? static_cast<int>(it.value().toObject().size()) : 1;
    }
    QCOMPARE(w.configModel()->rowCount(), leaves);

    // Per-operator and per-subtask details of the newest completed checkpoint that persisted
    // in-flight data (so some subtask went unaligned), then the savepoint.
    const int row = unalignedRow(*w.historyModel());
    QVERIFY(row >= 0);
    checkDetails(w, w.historyModel()->entries()[row].id, true);
    if (QTest::currentTestFailed()) return;
    // The screenshot: the unaligned checkpoint with the subtasks of the operator that persisted
    // the most in-flight data.
    int persisted = 0;
    for (int t = 1; t < w.tasksModel()->rowCount(); ++t) {
      if (w.tasksModel()->tasks()[t].persistedBytes >
          w.tasksModel()->tasks()[persisted].persistedBytes)
        persisted = t;
    }
    w.tasksView()->selectRow(persisted);
    QVERIFY(QTest::qWaitFor([&] { return w.subtasksModel()->rowCount() == 2; }, kWaitMs));
    QDir().mkpath(QStringLiteral(CKPT_SCREENSHOT_DIR));
    const QString png =
        QStringLiteral(CKPT_SCREENSHOT_DIR "/live-checkpoints-flink-%1.png").arg(m_line);
    QVERIFY(w.grab().save(png));
    const QImage image(png);
    QVERIFY(!image.isNull());
    QCOMPARE(image.size(), w.size() * w.devicePixelRatio());
    qInfo("screenshot: %s", qPrintable(png));

    checkDetails(w, savepointId, false);  // a savepoint is always aligned
  }

  // A completed checkpoint and the savepoint open in the main window (Flink's file: URIs).
  void opensACheckpointAndTheSavepointInTheMainWindow() {
    MainWindow window;
    window.show();
    LiveCheckpointsWindow* live = openLiveView(window, m_url, 300);
    live->connection()->setJob(m_job);
    QVERIFY2(QTest::qWaitFor(
                 [&] {
                   return waitableHistory(*live) &&
                          completedCheckpointOnDisk(*live->historyModel()) >= 0;
                 },
                 kWaitMs),
             qPrintable(live->statusText()));
    const int row = completedCheckpointOnDisk(*live->historyModel());
    const QString path = localSnapshotPath(live->historyModel()->entries()[row].path);
    QVERIFY(QFileInfo(path).isAbsolute());
    openAndCheck(window, *live, row, path);
    if (QTest::currentTestFailed()) return;

    const int sp = rowOf(*live->historyModel(), live->checkpoints().latestSavepoint->id);
    QVERIFY(sp >= 0);
    openAndCheck(window, *live, sp, localSnapshotPath(m_info.value(QStringLiteral("savepoint"))));
  }

  // The job restored from the savepoint: its restore (id, path, count) is Flink's, its history
  // continues after the savepoint's id, and none of the first job's rows carry over.
  void showsTheRestoredJob() {
    LiveCheckpointsWindow w(m_url, 300);
    w.show();
    QAbstractItemModelTester t(w.historyModel(),
                               QAbstractItemModelTester::FailureReportingMode::QtTest);
    QComboBox* jobs = w.findChild<QComboBox*>();
    QVERIFY(QTest::qWaitFor([&] { return jobs->count() == 2 && w.connection()->polls() > 0; },
                            kWaitMs));
    pickJob(w, m_job);
    QVERIFY(QTest::qWaitFor([&] { return waitableHistory(w); }, kWaitMs));
    const qint64 savepointId = w.checkpoints().latestSavepoint->id;
    pickJob(w, m_restoredJob);
    QVERIFY2(
        QTest::qWaitFor(
            [&] { return w.checkpoints().restoredId >= 0 && w.historyModel()->rowCount() > 0; },
            kWaitMs),
        qPrintable(w.statusText()));
    QCOMPARE(w.connection()->watchedJobId(), m_restoredJob);
    QCOMPARE(jobs->currentText(),
             QStringLiteral("live-view-restored — %1 (RUNNING)").arg(m_restoredJob));
    QString error;
    const QJsonObject answer =
        getJson(QStringLiteral("%1/jobs/%2/checkpoints").arg(m_url, m_restoredJob), &error);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    const QJsonObject restored = answer.value(QLatin1String("latest"))
                                     .toObject()
                                     .value(QLatin1String("restored"))
                                     .toObject();
    const LiveCheckpoints c = w.checkpoints();
    QCOMPARE(c.restoredId, num(restored, "id"));
    QCOMPARE(c.restoredId, savepointId);
    QCOMPARE(c.restoredPath, restored.value(QLatin1String("external_path")).toString());
    QCOMPARE(localSnapshotPath(c.restoredPath),
             localSnapshotPath(m_info.value(QStringLiteral("savepoint"))));
    QCOMPARE(c.restored, 1);
    QVERIFY2(w.countsText().endsWith(QStringLiteral("Restored 1")), qPrintable(w.countsText()));
    QVERIFY(!c.latestSavepoint);
    for (const LiveHistoryEntry& e : w.historyModel()->entries()) {
      QVERIFY2(e.id > savepointId, qPrintable(QString::number(e.id)));
      QVERIFY(!e.savepoint);
    }
  }

  // Flink's error answer ({"errors": ["...Exception: message\n\tat ..."]}) is shown as its message.
  void reportsFlinksErrorWithoutTheStackTrace() {
    LiveConnection c(m_url);
    c.setJob(m_job);
    QSignalSpy failed(&c, &LiveConnection::failed);
    c.requestDetails(999999999);
    QVERIFY(QTest::qWaitFor([&] { return !failed.isEmpty(); }, kWaitMs));
    const QString message = failed.front().front().toString();
    QVERIFY2(message.contains(QStringLiteral(
                 "Could not find checkpointing statistics for checkpoint 999999999")),
             qPrintable(message));
    QVERIFY2(!message.contains(QLatin1Char('\n')) &&
                 !message.contains(QStringLiteral("RestHandlerException")),
             qPrintable(message));
  }

  // New checkpoints arrive on top while a row is selected: the selection stays on its checkpoint.
  void keepsTheSelectionWhileTheHistoryMoves() {
    LiveCheckpointsWindow w(m_url, 200);
    w.connection()->setJob(m_job);
    w.show();
    QAbstractItemModelTester t(w.historyModel(),
                               QAbstractItemModelTester::FailureReportingMode::QtTest);
    QVERIFY2(QTest::qWaitFor([&] { return waitableHistory(w); }, kWaitMs),
             qPrintable(w.statusText()));
    const int row = 2;
    const qint64 id = w.historyModel()->entries()[row].id;
    w.selectCheckpoint(row);
    const qint64 top = w.historyModel()->entries().front().id;
    QVERIFY(QTest::qWaitFor([&] { return w.historyModel()->entries().front().id >= top + 3; },
                            kWaitMs));
    const QModelIndex current = w.historyView()->currentIndex();
    QVERIFY(current.isValid());
    QVERIFY(current.row() > row);
    QCOMPARE(w.historyModel()->entries()[current.row()].id, id);
    QVERIFY(w.historyView()->selectionModel()->isRowSelected(current.row(), {}));
  }

 private:
  // Picks job `id` in the job combo box as a user does.
  static void pickJob(LiveCheckpointsWindow& w, const QString& id) {
    QComboBox* jobs = w.findChild<QComboBox*>();
    const int i = jobs->findData(id);
    QVERIFY2(i >= 0, qPrintable(id));
    jobs->setCurrentIndex(i);
    Q_EMIT jobs->activated(i);
  }

  QString checkpointsUrl() const {
    return QStringLiteral("%1/jobs/%2/checkpoints").arg(m_url, m_job);
  }
  QString detailsUrl(qint64 id) const {
    return checkpointsUrl() + QStringLiteral("/details/%1").arg(id);
  }

  // The history holds the savepoint and at least three completed checkpoints.
  static bool waitableHistory(const LiveCheckpointsWindow& w) {
    const LiveCheckpoints& c = w.checkpoints();
    if (!c.latestSavepoint || rowOf(*w.historyModel(), c.latestSavepoint->id) < 0) return false;
    int completed = 0;
    for (const LiveHistoryEntry& e : w.historyModel()->entries()) {
      completed += e.status == QLatin1String("COMPLETED") && !e.savepoint;
    }
    return completed >= 3 && unalignedRow(*w.historyModel()) >= 0;
  }

  // The newest completed checkpoint that persisted in-flight data; -1 if none.
  static int unalignedRow(const LiveHistoryModel& m) {
    for (int r = 0; r < m.rowCount(); ++r) {
      const LiveHistoryEntry& e = m.entries()[r];
      if (e.status == QLatin1String("COMPLETED") && !e.savepoint && e.persistedBytes > 0) return r;
    }
    return -1;
  }

  // Selects checkpoint `id`: its operators (in the job's order, named as in /jobs/:id) and the
  // subtasks of each must be Flink's. Some subtask went unaligned iff `unaligned` (Flink 2.x
  // flags only the subtasks that persisted in-flight data, 1.20 every one of an unaligned
  // checkpoint).
  void checkDetails(LiveCheckpointsWindow& w, qint64 id, bool unaligned) {
    int unalignedSubtasks = 0;
    const int row = rowOf(*w.historyModel(), id);
    QVERIFY(row >= 0);
    w.selectCheckpoint(row);
    QString error;
    const QJsonObject d = getJson(detailsUrl(id), &error);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    const QJsonObject job = getJson(QStringLiteral("%1/jobs/%2").arg(m_url, m_job), &error);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    const QJsonArray vertices = job.value(QLatin1String("vertices")).toArray();
    QCOMPARE(vertices.size(), 2);  // Source: seq -> slow, sum -> sink: Writer
    QVERIFY(QTest::qWaitFor([&] { return w.tasksModel()->rowCount() == 2; }, kWaitMs));
    for (int t = 0; t < 2; ++t) {
      const QJsonObject v = vertices[t].toObject();
      const QString vid = v.value(QLatin1String("id")).toString();
      const QJsonObject task = d.value(QLatin1String("tasks")).toObject().value(vid).toObject();
      const QAbstractItemModel* tm = w.tasksModel();
      QCOMPARE(tm->index(t, LiveTasksModel::kOperator).data().toString(),
               v.value(QLatin1String("name")).toString());
      QCOMPARE(tm->index(t, LiveTasksModel::kStatus).data().toString(),
               task.value(QLatin1String("status")).toString());
      QCOMPARE(tm->index(t, LiveTasksModel::kAcknowledged).data().toString(),
               QStringLiteral("2/2"));
      QCOMPARE(tm->index(t, LiveTasksModel::kDuration).data().toString(),
               ms(task, "end_to_end_duration"));
      QCOMPARE(tm->index(t, LiveTasksModel::kFullSize).data().toString(),
               bytes(task, "state_size"));
      QCOMPARE(tm->index(t, LiveTasksModel::kPersisted).data().toString(),
               bytes(task, "persisted_data"));

      // The operator's subtasks, as Flink lists them.
      w.tasksView()->selectRow(t);
      const QJsonObject s = getJson(detailsUrl(id) + QStringLiteral("/subtasks/") + vid, &error);
      QVERIFY2(error.isEmpty(), qPrintable(error));
      const QJsonArray subtasks = s.value(QLatin1String("subtasks")).toArray();
      QCOMPARE(subtasks.size(), 2);
      const auto shown = [&](int r, int c) {
        return w.subtasksModel()->index(r, c).data().toString();
      };
      const QJsonObject last = subtasks[1].toObject();
      // Waits for this operator's rows (the previous operator's may still be shown).
      QVERIFY2(QTest::qWaitFor(
                   [&] {
                     return w.subtasksModel()->rowCount() == 2 &&
                            shown(1, LiveSubtasksModel::kFullSize) == bytes(last, "state_size") &&
                            shown(1, LiveSubtasksModel::kDuration) ==
                                ms(last, "end_to_end_duration");
                   },
                   kWaitMs),
               qPrintable(w.statusText()));
      for (int r = 0; r < 2; ++r) {
        const QJsonObject j = subtasks[r].toObject();
        const QJsonObject cp = j.value(QLatin1String("checkpoint")).toObject();
        const QJsonObject al = j.value(QLatin1String("alignment")).toObject();
        QCOMPARE(shown(r, LiveSubtasksModel::kIndex), QString::number(num(j, "index")));
        QCOMPARE(shown(r, LiveSubtasksModel::kStatus), j.value(QLatin1String("status")).toString());
        QCOMPARE(shown(r, LiveSubtasksModel::kStatus), QStringLiteral("completed"));
        QCOMPARE(shown(r, LiveSubtasksModel::kAck), formatTimestamp(num(j, "ack_timestamp")));
        QCOMPARE(shown(r, LiveSubtasksModel::kDuration), ms(j, "end_to_end_duration"));
        QCOMPARE(shown(r, LiveSubtasksModel::kSync), ms(cp, "sync"));
        QCOMPARE(shown(r, LiveSubtasksModel::kAsync), ms(cp, "async"));
        QCOMPARE(shown(r, LiveSubtasksModel::kAlignment), ms(al, "duration"));
        QCOMPARE(shown(r, LiveSubtasksModel::kStartDelay), ms(j, "start_delay"));
        QCOMPARE(shown(r, LiveSubtasksModel::kProcessed), bytes(al, "processed"));
        QCOMPARE(shown(r, LiveSubtasksModel::kPersisted), bytes(al, "persisted"));
        QCOMPARE(shown(r, LiveSubtasksModel::kFullSize), bytes(j, "state_size"));
        QCOMPARE(shown(r, LiveSubtasksModel::kUnaligned),
                 j.value(QLatin1String("unaligned_checkpoint")).toBool() ? QStringLiteral("yes")
                                                                         : QStringLiteral("no"));
        unalignedSubtasks += shown(r, LiveSubtasksModel::kUnaligned) == QLatin1String("yes");
      }
    }
    QCOMPARE(unalignedSubtasks > 0, unaligned);
  }

  // Opens history row `row` as a double-click does; the main window must load `path`.
  void openAndCheck(MainWindow& window, LiveCheckpointsWindow& live, int row, const QString& path) {
    QSignalSpy loaded(&window, &MainWindow::snapshotLoaded);
    QSignalSpy failed(&window, &MainWindow::openFailed);
    live.openCheckpoint(row);
    QVERIFY2(QTest::qWaitFor([&] { return !loaded.isEmpty() || !failed.isEmpty(); }, kWaitMs),
             qPrintable(live.statusText()));
    QVERIFY2(failed.isEmpty(),
             qPrintable(failed.isEmpty() ? QString() : failed.front().front().toString()));
    QCOMPARE(QDir(window.currentPath()).canonicalPath(), QDir(path).canonicalPath());
    // Flink's four operators (seq, slow, sum, sink writer) are in the offline views; the head
    // operator of each chain has the id REST gives its vertex.
    QVERIFY(window.snapshot());
    QCOMPARE(window.snapshot()->operators.size(), size_t{4});
    QCOMPARE(window.detailModel()->rowCount(), 4);
    QString error;
    const QJsonObject job = getJson(QStringLiteral("%1/jobs/%2").arg(m_url, m_job), &error);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    for (const QJsonValue& v : job.value(QLatin1String("vertices")).toArray()) {
      const std::string id = v.toObject().value(QLatin1String("id")).toString().toStdString();
      bool found = false;
      for (const auto& op : window.snapshot()->operators) found |= op.id_hex == id;
      QVERIFY2(found, id.c_str());
    }
    QVERIFY(QTest::qWaitFor([&] { return !window.busy(); }, kWaitMs));
  }

  QString serveLog() const {
    QFile f(m_dir.filePath(QStringLiteral("serve.log")));
    return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll().right(4000)) : QString();
  }

  QTemporaryDir m_dir;
  QProcess m_flink;
  QString m_line, m_url, m_job, m_restoredJob;
  QMap<QString, QString> m_info;
};

QTEST_MAIN(LiveFlinkViewTest)
#include "live_flink_view_test.moc"
