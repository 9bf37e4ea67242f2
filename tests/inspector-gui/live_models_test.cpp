// QTest of the live Checkpoints view's parsing and models over REST answers in the shape a Flink
// 2.3 / 1.20 cluster sends them (trimmed from real answers): file: URIs as external_path,
// "NaN" percentiles, pending subtasks, vertices keyed by id; and the history model's live update
// (rows inserted on top and removed at the bottom, persistent indexes kept). Every model runs
// under QAbstractItemModelTester.
#include <QAbstractItemModelTester>
#include <QPersistentModelIndex>
#include <QSignalSpy>
#include <QTest>
#include <cmath>

#include "models/live_checkpoints.h"

using namespace ckpt::inspector;

namespace {

LiveHistoryEntry entry(qint64 id, const char* status = "COMPLETED") {
  LiveHistoryEntry e;
  e.id = id;
  e.status = QString::fromLatin1(status);
  return e;
}

QVector<LiveHistoryEntry> entries(std::initializer_list<qint64> ids) {
  QVector<LiveHistoryEntry> out;
  for (qint64 id : ids) out.push_back(entry(id));
  return out;
}

QVector<qint64> ids(const LiveHistoryModel& m) {
  QVector<qint64> out;
  for (int r = 0; r < m.rowCount(); ++r)
    out.push_back(m.index(r, LiveHistoryModel::kId).data().toLongLong());
  return out;
}

}  // namespace

class LiveModelsTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void localSnapshotPathTakesFilesOnly_data() {
    QTest::addColumn<QString>("external");
    QTest::addColumn<QString>("local");
    QTest::newRow("plain path (ckpt-engine)") << "/data/ckpt/j/chk-3"
                                              << "/data/ckpt/j/chk-3";
    QTest::newRow("file:/ (Flink)") << "file:/data/ckpt/j/chk-3"
                                    << "/data/ckpt/j/chk-3";
    QTest::newRow("file:///") << "file:///data/sp/savepoint-1"
                              << "/data/sp/savepoint-1";
    QTest::newRow("file://localhost/") << "file://localhost/data/x"
                                       << "/data/x";
    // Flink writes Path strings, not encoded URIs (base::LocalPathOf): "%20" stays as it is.
    QTest::newRow("percent sign kept") << "file:/data/with%20space/chk-1"
                                       << "/data/with%20space/chk-1";
    QTest::newRow("space") << "file:/data/with space/chk-1"
                           << "/data/with space/chk-1";
    QTest::newRow("another host") << "file://other-host/data/x"
                                  << "";
    QTest::newRow("s3") << "s3://bucket/ckpt/chk-1"
                        << "";
    QTest::newRow("hdfs") << "hdfs://nn:8020/ckpt/chk-1"
                          << "";
    QTest::newRow("not addressable") << "<checkpoint-not-externally-addressable>"
                                     << "";
    QTest::newRow("relative") << "ckpt/chk-1"
                              << "";
    QTest::newRow("empty") << ""
                           << "";
  }
  void localSnapshotPathTakesFilesOnly() {
    QFETCH(QString, external);
    QFETCH(QString, local);
    QCOMPARE(localSnapshotPath(external), local);
  }

  void parsesFlinksCheckpointStatistics() {
    const QByteArray json =
        R"({"counts": {"restored": 0, "total": 45, "in_progress": 1, "completed": 41, "failed": 3},
 "summary": {"checkpointed_size": {"min": 1748, "max": 2824, "avg": 2799, "p50": 2824.0, "p90": 2824.0, "p95": 2824.0, "p99": 2824.0, "p999": 2824.0},
             "end_to_end_duration": {"min": 0, "max": 0, "avg": 0, "p50": "NaN", "p90": "NaN", "p95": "NaN", "p99": "NaN", "p999": "NaN"}},
 "latest": {"completed": {"className": "completed", "id": 44, "status": "COMPLETED", "is_savepoint": false, "savepointFormat": null,
                          "checkpoint_type": "UNALIGNED_CHECKPOINT", "external_path": "file:/tmp/f/checkpoints/439697c95ce1bc06743db7081687da5e/chk-44", "discarded": false},
            "savepoint": {"className": "completed", "id": 13, "status": "COMPLETED", "is_savepoint": true, "savepointFormat": "CANONICAL",
                          "checkpoint_type": "SAVEPOINT", "external_path": "file:/tmp/f/savepoints/savepoint-439697-45b207b0f9a9", "discarded": false},
            "failed": null, "restored": null},
 "history": [
   {"className": "in_progress", "id": 45, "status": "IN_PROGRESS", "is_savepoint": false, "trigger_timestamp": 1796285618975,
    "num_subtasks": 4, "num_acknowledged_subtasks": 1, "checkpoint_type": "UNALIGNED_CHECKPOINT", "tasks": {}},
   {"className": "completed", "id": 44, "status": "COMPLETED", "is_savepoint": false, "trigger_timestamp": 1796285618875,
    "latest_ack_timestamp": 1796285618885, "checkpointed_size": 2824, "state_size": 2824, "end_to_end_duration": 10,
    "alignment_buffered": 0, "processed_data": 0, "persisted_data": 18460, "num_subtasks": 4, "num_acknowledged_subtasks": 4,
    "checkpoint_type": "UNALIGNED_CHECKPOINT", "tasks": {},
    "external_path": "file:/tmp/f/checkpoints/439697c95ce1bc06743db7081687da5e/chk-44", "discarded": false},
   {"className": "completed", "id": 2, "status": "COMPLETED", "is_savepoint": false, "checkpoint_type": "CHECKPOINT",
    "external_path": "file:/tmp/f/checkpoints/439697c95ce1bc06743db7081687da5e/chk-2", "discarded": true},
   {"className": "failed", "id": 1, "status": "FAILED", "is_savepoint": false, "failure_timestamp": 1796285610000,
    "failure_message": "Checkpoint expired before completing."}]})";
    QString error;
    const std::optional<LiveCheckpoints> c = parseCheckpointingStatistics(json, &error);
    QVERIFY2(c, qPrintable(error));
    QCOMPARE(c->total, 45);
    QCOMPARE(c->completed, 41);
    QCOMPARE(c->failed, 3);
    QCOMPARE(c->history.size(), 4);
    QCOMPARE(c->history[1].path,
             QStringLiteral("file:/tmp/f/checkpoints/439697c95ce1bc06743db7081687da5e/chk-44"));
    QCOMPARE(c->history[1].persistedBytes, 18460);
    QVERIFY(!c->history[1].discarded);
    QVERIFY(c->history[2].discarded);
    QCOMPARE(c->history[3].failure, QStringLiteral("Checkpoint expired before completing."));
    QVERIFY(c->latestSavepoint && c->latestSavepoint->savepoint);
    QCOMPARE(c->latestSavepoint->id, 13);
    QVERIFY(!c->latestFailed);
    QCOMPARE(c->restoredId, -1);

    // "NaN" (Jackson's text for a percentile over too few samples) is not a number: shown as "—".
    LiveSummaryModel summary;
    QAbstractItemModelTester tester(&summary,
                                    QAbstractItemModelTester::FailureReportingMode::Fatal);
    summary.setRows(c->summary);
    QCOMPARE(summary.rowCount(), 2);
    QCOMPARE(summary.index(0, 4).data().toString(), QStringLiteral("2.76 KiB"));
    QCOMPARE(summary.index(1, 0).data().toString(), QStringLiteral("end_to_end_duration"));
    QCOMPARE(summary.index(1, 1).data().toString(), QStringLiteral("0 ms"));
    QCOMPARE(summary.index(1, 4).data().toString(), QStringLiteral("—"));
    QVERIFY(std::isnan(summary.index(1, 4).data(Qt::UserRole).toDouble()));
  }

  void showsOperatorsInTheJobsOrder() {
    // Flink keys details/:id "tasks" by vertex id; QJsonObject iterates them sorted.
    const QByteArray json = R"({"id": 13, "status": "COMPLETED", "tasks": {
      "239c254b5ff89532b198266322bc819f": {"id": 13, "status": "COMPLETED", "state_size": 1218, "num_subtasks": 2, "num_acknowledged_subtasks": 2},
      "5e695f00738be66c275f8a96a14aa10e": {"id": 13, "status": "COMPLETED", "state_size": 530, "num_subtasks": 2, "num_acknowledged_subtasks": 2}}})";
    QString error;
    const auto tasks = parseCheckpointDetails(json, &error);
    QVERIFY2(tasks, qPrintable(error));
    const QVector<LiveVertex> vertices = {
        {"5e695f00738be66c275f8a96a14aa10e", "Source: seq -> slow", 2},
        {"239c254b5ff89532b198266322bc819f", "sum -> sink: Writer", 2}};
    LiveTasksModel m;
    QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::Fatal);
    m.setTasks(*tasks, vertices);
    QCOMPARE(m.index(0, LiveTasksModel::kOperator).data().toString(),
             QStringLiteral("Source: seq -> slow"));
    QCOMPARE(m.index(1, LiveTasksModel::kOperator).data().toString(),
             QStringLiteral("sum -> sink: Writer"));
    QCOMPARE(m.index(1, LiveTasksModel::kAcknowledged).data().toString(), QStringLiteral("2/2"));
    QCOMPARE(m.index(1, LiveTasksModel::kOperator).data(Qt::UserRole).toString(),
             QStringLiteral("239c254b5ff89532b198266322bc819f"));
  }

  void showsAPendingSubtaskWithoutNumbers() {
    const QByteArray json = R"({"id": 45, "status": "IN_PROGRESS", "subtasks": [
      {"className": "completed", "index": 0, "ack_timestamp": 1796285612802, "end_to_end_duration": 26, "checkpointed_size": 581,
       "state_size": 581, "checkpoint": {"sync": 1, "async": 8}, "alignment": {"buffered": 0, "processed": 0, "persisted": 8528, "duration": 3},
       "start_delay": 14, "unaligned_checkpoint": true, "aborted": false, "status": "completed"},
      {"className": "pending_or_failed", "index": 1, "status": "pending_or_failed"}]})";
    QString error;
    const auto subtasks = parseSubtaskDetails(json, &error);
    QVERIFY2(subtasks, qPrintable(error));
    LiveSubtasksModel m;
    QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::Fatal);
    m.setSubtasks(*subtasks);
    QCOMPARE(m.index(0, LiveSubtasksModel::kSync).data().toString(), QStringLiteral("1 ms"));
    QCOMPARE(m.index(0, LiveSubtasksModel::kAsync).data().toString(), QStringLiteral("8 ms"));
    QCOMPARE(m.index(0, LiveSubtasksModel::kAlignment).data().toString(), QStringLiteral("3 ms"));
    QCOMPARE(m.index(0, LiveSubtasksModel::kStartDelay).data().toString(), QStringLiteral("14 ms"));
    QCOMPARE(m.index(0, LiveSubtasksModel::kPersisted).data().toString(),
             QStringLiteral("8.33 KiB"));
    QCOMPARE(m.index(0, LiveSubtasksModel::kUnaligned).data().toString(), QStringLiteral("yes"));
    QCOMPARE(m.index(1, LiveSubtasksModel::kIndex).data().toInt(), 1);
    QCOMPARE(m.index(1, LiveSubtasksModel::kStatus).data().toString(),
             QStringLiteral("pending_or_failed"));
    for (int c = LiveSubtasksModel::kAck; c < LiveSubtasksModel::kColumnCount; ++c) {
      QCOMPARE(m.index(1, c).data().toString(), QStringLiteral("—"));
    }
  }

  // A live refresh: new checkpoints on top, the oldest leaving the bottom (Flink keeps the last
  // `web.checkpoints.history`), an in-progress row completing: rows move, they are not reset.
  void historyUpdatesRowsInPlace() {
    LiveHistoryModel m;
    QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::Fatal);
    m.setEntries(entries({5, 4, 3, 2, 1}));
    QPersistentModelIndex three(m.index(2, LiveHistoryModel::kStatus));
    QSignalSpy reset(&m, &QAbstractItemModel::modelReset);
    QSignalSpy inserted(&m, &QAbstractItemModel::rowsInserted);
    QSignalSpy removed(&m, &QAbstractItemModel::rowsRemoved);

    QVector<LiveHistoryEntry> next = entries({7, 6, 5, 4, 3});
    next[0].status = QStringLiteral("IN_PROGRESS");
    m.setEntries(next);
    QCOMPARE(ids(m), QVector<qint64>({7, 6, 5, 4, 3}));
    QCOMPARE(reset.count(), 0);
    QCOMPARE(inserted.count(), 1);
    QCOMPARE(removed.count(), 1);
    QVERIFY(three.isValid());
    QCOMPARE(three.row(), 4);
    QCOMPARE(m.index(0, LiveHistoryModel::kStatus).data().toString(),
             QStringLiteral("IN_PROGRESS"));

    next = entries({8, 7, 6, 5, 4});  // 7 completed
    m.setEntries(next);
    QCOMPARE(m.index(1, LiveHistoryModel::kStatus).data().toString(), QStringLiteral("COMPLETED"));
    QVERIFY(!three.isValid());  // left the history
    QCOMPARE(reset.count(), 0);

    // A gap in the middle (a row gone) and rows between kept ones.
    m.setEntries(entries({9, 8, 6, 5, 4, 2}));
    QCOMPARE(ids(m), QVector<qint64>({9, 8, 6, 5, 4, 2}));
    QCOMPARE(reset.count(), 0);

    // Another job's history (same ids in another order): a reset.
    m.setEntries(entries({2, 4, 5}));
    QCOMPARE(ids(m), QVector<qint64>({2, 4, 5}));
    QCOMPARE(reset.count(), 1);
    m.setEntries({});
    QCOMPARE(m.rowCount(), 0);
  }
};

QTEST_GUILESS_MAIN(LiveModelsTest)
#include "live_models_test.moc"
