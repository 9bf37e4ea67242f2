// Table-driven QTest of every inspector model over the frozen fixtures (fixtures/v1), the corrupt
// variants (fixtures/corrupt) and, when present, engine-written snapshots: each model runs under
// QAbstractItemModelTester (fatal mode) and its contents are checked against the ops results.
#include <QAbstractItemModelTester>
#include <QDir>
#include <QDirIterator>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSignalSpy>
#include <QTest>

#include "gui_test_util.h"
#include "models/byte_source.h"
#include "models/detail_tree_model.h"
#include "models/diff_models.h"
#include "models/display.h"
#include "models/loaders.h"
#include "models/location.h"
#include "models/snapshot_list_model.h"
#include "models/state_table_model.h"
#include "models/table_models.h"

using namespace ckpt;
using namespace ckpt::inspector;
using namespace ckpt::inspector::testing;

class ModelsTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void snapshotModels_data();
  void snapshotModels();
  void findingsModel_data();
  void findingsModel();
  void snapshotListOverCheckpointRoot();
  void stateTableFetchesLazilyAndFilters();
  void stateTableExportsSelectionAsJson();
  void diffModelsColourChanges();
  void byteSourceReadsOnlyRequestedBlocks();
  void progressReachesTheTaskState();
  void cancelledValidateReportsCancelled();
  void unknownValuesShowAsDashes();
  void cleanLocationKeepsUriSpelling_data();
  void cleanLocationKeepsUriSpelling();
};

namespace {

void addSnapshotRows() {
  QTest::addColumn<QString>("path");
  QTest::addColumn<bool>("loads");
  QTest::addColumn<bool>("validatesClean");
  QTest::newRow("v1/savepoint") << fixture("v1/savepoint") << true << true;
  QTest::newRow("v1/savepoint/_metadata") << fixture("v1/savepoint/_metadata") << true << true;
  QTest::newRow("v1/checkpoints/chk-1") << checkpointJobDir() + "/chk-1" << true << true;
  QTest::newRow("v1/checkpoints/chk-2") << checkpointJobDir() + "/chk-2" << true << true;
  QTest::newRow("v1/unaligned/chk-5")
      << fixture("v1/unaligned/1a2b3c4d5e6f708192a3b4c5d6e7f801/chk-5") << true << true;
  QTest::newRow("corrupt/bad-magic") << fixture("corrupt/bad-magic") << false << false;
  QTest::newRow("corrupt/truncated-metadata") << fixture("corrupt/truncated-metadata") << false << false;
  QTest::newRow("corrupt/future-version") << fixture("corrupt/future-version") << false << false;
  QTest::newRow("corrupt/block-checksum-mismatch") << fixture("corrupt/block-checksum-mismatch") << true << false;
  QTest::newRow("corrupt/flipped-payload-byte") << fixture("corrupt/flipped-payload-byte") << false << false;
  QTest::newRow("corrupt/escaping-reference") << fixture("corrupt/escaping-reference") << false << false;
  QTest::newRow("corrupt/missing-referenced-file") << fixture("corrupt/missing-referenced-file") << true << false;
  // Apache Flink's own snapshots (fixtures/flink, fixtures/flink-corrupt).
  QTest::newRow("flink/savepoint-v5") << fixture("flink/complexKeyed-flink2.0") << true << true;
  QTest::newRow("flink/savepoint-v6") << fixture("flink/semi-anti-join-with-literal-agg-savepoint") << true << true;
  QTest::newRow("flink/rocksdb-checkpoint")
      << fixture("flink/new-stateful-udf-migration-itcase-flink2.0-rocksdb-checkpoint") << true << true;
  QTest::newRow("flink/savepoint-v2") << fixture("flink/complexKeyed-flink1.9") << true << true;
  QTest::newRow("flink-corrupt/version-1") << fixture("flink-corrupt/version-1") << false << false;
  QTest::newRow("flink-corrupt/missing-relative-file") << fixture("flink-corrupt/missing-relative-file") << true << false;
  // Engine-written snapshots (ctest's gui_engine_snapshot_setup runs the engine when it is part
  // of the build): every savepoint and retained checkpoint under the root.
  const QByteArray engine = qgetenv("CKPT_ENGINE_SNAPSHOT_ROOT");
  if (engine.isEmpty()) return;
  QDirIterator it(QString::fromLocal8Bit(engine), {QStringLiteral("_metadata")}, QDir::Files,
                  QDirIterator::Subdirectories);
  int found = 0;
  while (it.hasNext()) {
    const QString dir = QFileInfo(it.next()).absolutePath();
    QTest::newRow(qPrintable(QStringLiteral("engine/") + QFileInfo(dir).fileName())) << dir << true << true;
    ++found;
  }
  if (found == 0) QTest::newRow("engine/none-written") << QString::fromLocal8Bit(engine) + "/missing" << true << true;
}

}  // namespace

void ModelsTest::snapshotModels_data() { addSnapshotRows(); }

void ModelsTest::snapshotModels() {
  QFETCH(QString, path);
  QFETCH(bool, loads);
  const Loaded<ops::Snapshot> loaded = await(loadSnapshot(localFs(), path));
  QCOMPARE(loaded.ok(), loads);
  if (!loads) {
    QVERIFY2(!loaded.error.isEmpty(), "a failed load carries ops' message");
    QVERIFY2(loaded.error.contains(QStringLiteral("_metadata")), qPrintable(loaded.error));
    return;
  }
  const ops::Snapshot& s = *loaded.value;

  DetailTreeModel tree;
  QAbstractItemModelTester treeTester(&tree, QAbstractItemModelTester::FailureReportingMode::Fatal);
  tree.setSnapshot(loaded.value);
  QCOMPARE(tree.rowCount(), static_cast<int>(s.operators.size()));
  uint64_t files_in_tree = 0;
  for (int r = 0; r < tree.rowCount(); ++r) {
    const QModelIndex op = tree.index(r, 0);
    const ops::OperatorInfo& info = s.operators[static_cast<size_t>(r)];
    QCOMPARE(op.data(kNodeKindRole).toInt(), static_cast<int>(DetailTreeModel::kOperator));
    QCOMPARE(tree.index(r, DetailTreeModel::kUidHash).data().toString(), qs(info.id_hex));
    QCOMPARE(tree.index(r, DetailTreeModel::kUid).data().toString(),
             info.uid_origin == ops::UidOrigin::kNotRecorded ? QStringLiteral("not recorded") : qs(info.uid));
    QCOMPARE(tree.index(r, DetailTreeModel::kParallelism).data().toUInt(), info.parallelism);
    QCOMPARE(tree.index(r, DetailTreeModel::kMaxParallelism).data().toUInt(), info.max_parallelism);
    // The size model of ops (docs/sizes.md), not the writer's per-subtask metrics (which count a
    // shared channel-state file once per subtask).
    QCOMPARE(tree.index(r, DetailTreeModel::kFullSize).data(kSortRole).toULongLong(), info.total_bytes);
    QCOMPARE(tree.index(r, DetailTreeModel::kCheckpointedSize).data(kSortRole).toULongLong(),
             info.checkpointed_bytes);
    // No state row is larger than its operator.
    for (int c = 0; c < tree.rowCount(op); ++c) {
      QVERIFY(tree.index(c, DetailTreeModel::kFullSize, op).data(kSortRole).toULongLong() <= info.total_bytes);
    }
    // Every file node names a file of the table and carries its size; a `_metadata` node (state
    // kept inline) carries the inline bytes of its subtask's handles, never the whole file.
    uint64_t inline_in_tree = 0;
    std::vector<QModelIndex> stack{op};
    while (!stack.empty()) {
      const QModelIndex i = stack.back();
      stack.pop_back();
      for (int c = 0; c < tree.rowCount(i); ++c) stack.push_back(tree.index(c, 0, i));
      if (i.data(kNodeKindRole).toInt() != DetailTreeModel::kFile) continue;
      ++files_in_tree;
      const int f = i.data(kFileIndexRole).toInt();
      QVERIFY(f >= 0 && f < static_cast<int>(s.files.size()));
      const uint64_t shown = i.siblingAtColumn(DetailTreeModel::kFullSize).data(kSortRole).toULongLong();
      if (s.files[static_cast<size_t>(f)].is_metadata) {
        QVERIFY(shown <= info.total_bytes);
        inline_in_tree += shown;
      } else {
        QCOMPARE(shown, s.files[static_cast<size_t>(f)].size_bytes);
      }
      QVERIFY(!tree.describe(i).isEmpty());
    }
    // Inline bytes shown under the operator's states never exceed the operator (a handle of a
    // subtask holding several operator states is shown under each of them).
    if (info.states.size() <= 1) QVERIFY(inline_in_tree <= info.total_bytes);
  }
  if (!s.files.empty()) QVERIFY(files_in_tree > 0);

  OperatorTableModel table;
  QAbstractItemModelTester tableTester(&table, QAbstractItemModelTester::FailureReportingMode::Fatal);
  table.setRows(ops::OperatorTable(s));
  QCOMPARE(table.rowCount(), static_cast<int>(s.operators.size()));

  const auto files = await(listFiles(localFs(), loaded.value));
  QVERIFY2(files.ok(), qPrintable(files.error));
  FilesModel filesModel;
  QAbstractItemModelTester filesTester(&filesModel, QAbstractItemModelTester::FailureReportingMode::Fatal);
  filesModel.setRows(*files.value);
  QCOMPARE(filesModel.rowCount(), static_cast<int>(s.files.size()));

  // The state table of every operator with state: fetch everything, under the tester.
  for (const ops::OperatorInfo& op : s.operators) {
    for (const ops::StateInfo& state : op.states) {
      StateTableModel model;
      QAbstractItemModelTester stateTester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
      model.setSource(localFs(), loaded.value, qs(op.id_hex), qs(state.name));
      QVERIFY(fetchAll(model));
      uint64_t expected = 0;
      ops::DumpOptions options;
      options.operator_ref = op.id_hex;
      options.state = state.name;
      auto n = ops::Dump(localFs(), s, options, [](const ops::DumpEntry&) { return base::Status::OK(); });
      if (!n.ok()) {
        // Rows known from the index are read when shown: read them until the error arrives.
        for (int r = 0; r < model.rowCount() && model.lastError().isEmpty(); ++r) cell(model, r, StateTableModel::kKey);
        QVERIFY2(!model.lastError().isEmpty(), "a dump error reaches the model");
        continue;
      }
      expected = *n;
      QVERIFY2(model.lastError().isEmpty(), qPrintable(model.lastError()));
      QCOMPARE(static_cast<uint64_t>(model.rowCount()), expected);
      for (int r = 0; r < model.rowCount(); ++r) {
        QVERIFY2(!cell(model, r, StateTableModel::kSource).toString().isEmpty(),
                 qPrintable(QStringLiteral("%1/%2 row %3 of %4").arg(qs(op.name), qs(state.name)).arg(r).arg(model.rowCount())));
      }
    }
  }
}

void ModelsTest::findingsModel_data() { addSnapshotRows(); }

void ModelsTest::findingsModel() {
  QFETCH(QString, path);
  QFETCH(bool, validatesClean);
  auto task = std::make_shared<TaskState>();
  const auto report = await(validateSnapshot(localFs(), path, ops::ValidateOptions{}, task));
  QVERIFY2(report.ok(), qPrintable(report.error));
  FindingsModel model;
  QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
  model.setFindings(report.value->findings);
  QCOMPARE(model.rowCount(), static_cast<int>(report.value->findings.size()));
  QCOMPARE(!ops::HasErrors(report.value->findings), validatesClean);
  for (int r = 0; r < model.rowCount(); ++r) {
    const ops::Finding& f = report.value->findings[static_cast<size_t>(r)];
    QCOMPARE(model.index(r, FindingsModel::kRule).data().toString(), qs(f.rule_id));
    QCOMPARE(model.index(r, FindingsModel::kSeverity).data(kSeverityRole).toInt(), static_cast<int>(f.severity));
    QVERIFY(model.index(r, FindingsModel::kMessage).data(Qt::ToolTipRole).toString().contains(qs(f.message)));
  }
  // Findings point into the tree when the metadata loads.
  const auto loaded = await(loadSnapshot(localFs(), path));
  if (!loaded.ok()) return;
  DetailTreeModel tree;
  tree.setSnapshot(loaded.value);
  for (const ops::Finding& f : report.value->findings) {
    if (f.location.operator_id.empty() && f.location.file.empty()) continue;
    if (f.severity != ops::Severity::kError) continue;
    const QModelIndex i = tree.indexForLocation(f.location);
    QVERIFY2(i.isValid(), qPrintable(qs(f.rule_id + ": " + f.message)));
  }
}

void ModelsTest::snapshotListOverCheckpointRoot() {
  const auto opened = await(openPath(localFs(), fixture("v1/checkpoints")));
  QVERIFY2(opened.ok(), qPrintable(opened.error));
  QVERIFY(!opened.value->snapshot);
  SnapshotListModel model;
  QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
  model.setListing(fixture("v1/checkpoints"), opened.value->jobs);
  QCOMPARE(model.rowCount(), 1);
  const QModelIndex job = model.index(0, 0);
  QVERIFY(model.rowCount(job) >= 2);
  bool saw_chk2 = false;
  for (int r = 0; r < model.rowCount(job); ++r) {
    const QModelIndex i = model.index(r, 0, job);
    const ops::SnapshotEntry* e = model.entry(i);
    QVERIFY(e != nullptr);
    QVERIFY(i.data(SnapshotListModel::kAbsolutePathRole).toString().endsWith(qs(e->path)));
    QVERIFY(qs(e->path).endsWith(QLatin1Char('/') + i.data().toString()) || qs(e->path) == i.data().toString());
    if (e->checkpoint_id == 2) {
      saw_chk2 = true;
      // chk-2 is incremental: it uploaded less than it references.
      QVERIFY(e->checkpointed_size_bytes < e->full_size_bytes);
      QCOMPARE(model.index(r, SnapshotListModel::kFullSize, job).data(kSortRole).toULongLong(), e->full_size_bytes);
    }
  }
  QVERIFY(saw_chk2);
  const auto history = await(loadHistory(localFs(), fixture("v1/checkpoints"), opened.value->jobs.front().job_id_hex));
  QVERIFY(history.ok());
  QCOMPARE(history.value->rows.size(), opened.value->jobs.front().snapshots.size());
  QCOMPARE(history.value->job_id_hex, opened.value->jobs.front().job_id_hex);
  size_t completed = 0;
  for (const ops::HistoryRow& p : history.value->rows) {
    if (p.entry.health == ops::SnapshotHealth::kComplete) {
      QVERIFY(p.duration_ms >= 0);
      ++completed;
    }
  }
  QCOMPARE(history.value->summary.completed, completed);
}

void ModelsTest::stateTableFetchesLazilyAndFilters() {
  const auto loaded = await(loadSnapshot(localFs(), fixture("v1/savepoint")));
  QVERIFY(loaded.ok());
  StateTableModel model;
  QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
  model.setSource(localFs(), loaded.value, QStringLiteral("per-user-aggregate"), QStringLiteral("order-count"));
  // Four keyed states share the containers, so the section index's record counts are not this
  // state's rows: they are counted in the background as a view asks (see state_memory_test for
  // a total known from the index).
  QVERIFY(!model.totalFromIndex());
  QCOMPARE(model.rowCount(), 0);  // nothing is read before the view asks
  QVERIFY(model.canFetchMore({}));
  QVERIFY(fetchAll(model));
  QCOMPARE(model.rowCount(), 24);  // one value per sample user
  QVERIFY(!cell(model, 23, StateTableModel::kValue).toString().isEmpty());
  // Key filter: ops seeks the key's group and returns only that key.
  model.setFilter(QStringLiteral("\"user-07\""), std::nullopt);
  QVERIFY(fetchAll(model));
  QCOMPARE(model.rowCount(), 1);
  QCOMPARE(cell(model, 0, StateTableModel::kKey).toString(), QStringLiteral("\"user-07\""));
  QCOMPARE(cell(model, 0, StateTableModel::kValue).toString(), QStringLiteral("22"));
  const uint32_t group = cell(model, 0, StateTableModel::kKeyGroup).toUInt();
  // Key-group filter: every row is in that group and the key is among them.
  model.setFilter(QString(), group);
  QVERIFY(fetchAll(model));
  QVERIFY(model.rowCount() >= 1);
  QCOMPARE(model.firstRowOfKeyGroup(group), 0);
  for (int r = 0; r < model.rowCount(); ++r) QCOMPARE(cell(model, r, StateTableModel::kKeyGroup).toUInt(), group);
  // Prefix and substring filters match the key as shown (a string key without its quotes).
  model.setFilter(QStringLiteral("user-0"), std::nullopt, StateTableModel::KeyMatch::kPrefix);
  QVERIFY(!model.totalFromIndex());
  QVERIFY(fetchAll(model));
  QCOMPARE(model.rowCount(), 10);  // user-00 .. user-09
  for (int r = 0; r < model.rowCount(); ++r) QVERIFY(cell(model, r, StateTableModel::kKey).toString().startsWith(QStringLiteral("\"user-0")));
  model.setFilter(QStringLiteral("r-1"), std::nullopt, StateTableModel::KeyMatch::kSubstring);
  QVERIFY(fetchAll(model));
  QCOMPARE(model.rowCount(), 10);  // user-10 .. user-19
  model.setFilter(QStringLiteral("ser-0"), std::nullopt, StateTableModel::KeyMatch::kPrefix);
  QVERIFY(fetchAll(model));
  QCOMPARE(model.rowCount(), 0);
  // A key that is absent yields no rows and no error.
  model.setFilter(QStringLiteral("\"nobody\""), std::nullopt);
  QVERIFY(fetchAll(model));
  QVERIFY2(model.lastError().isEmpty(), qPrintable(model.lastError()));
  QCOMPARE(model.rowCount(), 0);
  // A key that does not parse as the key type (int64 here) is reported, not asserted.
  const auto counter = await(loadSnapshot(localFs(), checkpointJobDir() + "/chk-1"));
  QVERIFY(counter.ok());
  QSignalSpy failed(&model, &StateTableModel::loadFailed);
  model.setSource(localFs(), counter.value, QStringLiteral("count-per-key"), QString());
  model.setFilter(QStringLiteral("not-a-number"), std::nullopt);
  model.fetchMore({});
  QVERIFY(QTest::qWaitFor([&] { return !model.counting(); }, 30000));
  QVERIFY(!model.lastError().isEmpty());
  QCOMPARE(failed.size(), 1);
  QCOMPARE(model.rowCount(), 0);
  QVERIFY(!model.canFetchMore({}));
}

void ModelsTest::stateTableExportsSelectionAsJson() {
  const auto loaded = await(loadSnapshot(localFs(), fixture("v1/savepoint")));
  QVERIFY(loaded.ok());
  StateTableModel model;
  model.setSource(localFs(), loaded.value, QStringLiteral("per-user-aggregate"), QStringLiteral("spend-by-category"));
  QVERIFY(fetchAll(model));
  QCOMPARE(model.rowCount(), 48);  // two categories per user
  const QByteArray json = model.rowsToJson({model.index(0, 0), model.index(3, 2), model.index(3, 4)});
  QJsonParseError error;
  const QJsonDocument doc = QJsonDocument::fromJson(json, &error);
  QVERIFY2(error.error == QJsonParseError::NoError, qPrintable(error.errorString() + ": " + json));
  QCOMPARE(doc.array().size(), 2);  // rows 0 and 3
  const QJsonObject row = doc.array()[1].toObject();
  QCOMPARE(row[QStringLiteral("state")].toString(), QStringLiteral("spend-by-category"));
  QVERIFY(row[QStringLiteral("key")].isString());
  QVERIFY(row[QStringLiteral("user_key")].isString());
  QVERIFY(row[QStringLiteral("value")].isDouble());
  QVERIFY(row[QStringLiteral("key_group")].isDouble());
  // Operator state has no key and no key group.
  model.setSource(localFs(), loaded.value, QStringLiteral("orders-source"), QStringLiteral("offsets"));
  QVERIFY(fetchAll(model));
  QCOMPARE(model.rowCount(), 2);
  QVERIFY(!cell(model, 0, StateTableModel::kKeyGroup).isValid());
  const QJsonDocument op = QJsonDocument::fromJson(model.rowsToJson({model.index(1, 0)}));
  QVERIFY(op.array()[0].toObject()[QStringLiteral("key_group")].isNull());
  QCOMPARE(op.array()[0].toObject()[QStringLiteral("subtask")].toInt(), 1);
}

void ModelsTest::diffModelsColourChanges() {
  auto task = std::make_shared<TaskState>();
  const QString a = checkpointJobDir() + "/chk-1", b = checkpointJobDir() + "/chk-2";
  const auto diff = await(diffSnapshots(localFs(), a, b, task));
  QVERIFY2(diff.ok(), qPrintable(diff.error));
  DiffTreeModel tree;
  QAbstractItemModelTester tester(&tree, QAbstractItemModelTester::FailureReportingMode::Fatal);
  tree.setResult(diff.value);
  QCOMPARE(tree.rowCount(), static_cast<int>(diff.value->operators.size()) + 1);
  const QModelIndex filesBranch = tree.index(tree.rowCount() - 1, 0);
  QCOMPARE(tree.rowCount(filesBranch), static_cast<int>(diff.value->files.size()));
  int added = 0;
  for (int r = 0; r < tree.rowCount(filesBranch); ++r) {
    const QModelIndex i = tree.index(r, 0, filesBranch);
    const auto change = static_cast<ops::DiffChange>(i.data(kChangeRole).toInt());
    QCOMPARE(change, diff.value->files[static_cast<size_t>(r)].change);
    if (change == ops::DiffChange::kAdded) {
      ++added;
      QCOMPARE(i.data(Qt::ForegroundRole).value<QBrush>().color(), DiffTreeModel::changeColor(change));
      QVERIFY(tree.index(r, DiffTreeModel::kDelta, filesBranch).data().toString().startsWith(QLatin1Char('+')));
    }
  }
  QCOMPARE(static_cast<size_t>(added), diff.value->files_added);
  QVERIFY(added > 0);  // chk-2 uploads new files

  const auto keys = await(diffKeys(localFs(), a, b, 1000, task));
  QVERIFY2(keys.ok(), qPrintable(keys.error));
  KeyDiffModel keyModel;
  QAbstractItemModelTester keyTester(&keyModel, QAbstractItemModelTester::FailureReportingMode::Fatal);
  keyModel.setList(keys.value);
  QCOMPARE(static_cast<uint64_t>(keyModel.rowCount()),
           keys.value->summary.added + keys.value->summary.removed + keys.value->summary.changed);
}

void ModelsTest::byteSourceReadsOnlyRequestedBlocks() {
  ByteSource source(localFs(), fixture("v1/savepoint/_metadata"));
  QVERIFY(source.ok());
  QVERIFY(source.size() > ByteSource::kBlockBytes / 2);
  const QByteArray head = source.read(0, 16);
  QCOMPARE(head.size(), 16);
  QCOMPARE(source.blocksRead(), uint64_t{1});
  QCOMPARE(source.read(source.size() - 4, 100).size(), 4);
  ByteSource missing(localFs(), fixture("corrupt/missing-referenced-file/nope.state"));
  QVERIFY(!missing.ok());
  QVERIFY(missing.error().contains(QStringLiteral("nope.state")));
}

void ModelsTest::progressReachesTheTaskState() {
  auto task = std::make_shared<TaskState>();
  ops::ValidateOptions options;
  options.deep = true;
  const auto report = await(validateSnapshot(localFs(), fixture("v1/savepoint"), options, task));
  QVERIFY2(report.ok(), qPrintable(report.error));
  const TaskState::View v = task->snapshot();
  QVERIFY(v.done > 0);
  QVERIFY(v.total >= v.done);
  QVERIFY(!v.what.isEmpty());
}

void ModelsTest::cancelledValidateReportsCancelled() {
  auto task = std::make_shared<TaskState>();
  task->cancel();
  ops::ValidateOptions options;
  options.deep = true;
  const auto report = await(validateSnapshot(localFs(), fixture("v1/savepoint"), options, task));
  QVERIFY(!report.ok());
  QCOMPARE(report.code, base::StatusCode::kCancelled);
}

// A value that is not known shows as "—", never as 0: Flink records no checksum and no creator
// of its files, and a snapshot that could not be read has no sizes.
void ModelsTest::unknownValuesShowAsDashes() {
  const auto loaded = await(loadSnapshot(localFs(), fixture("flink/complexKeyed-flink2.0")));
  QVERIFY2(loaded.ok(), qPrintable(loaded.error));
  const auto files = await(listFiles(localFs(), loaded.value));
  QVERIFY2(files.ok(), qPrintable(files.error));
  FilesModel filesModel;
  filesModel.setRows(*files.value);
  QVERIFY(filesModel.rowCount() > 0);
  for (int r = 0; r < filesModel.rowCount(); ++r) {
    QCOMPARE(filesModel.index(r, FilesModel::kChecksum).data().toString(), QStringLiteral("—"));
    // `_metadata` is known to be written by the snapshot's own checkpoint; state files are not.
    const bool metadata =
        filesModel.index(r, FilesModel::kPath).data().toString().endsWith(QStringLiteral("_metadata"));
    QCOMPARE(filesModel.index(r, FilesModel::kCreatedBy).data().toString(),
             metadata ? QString::number(loaded.value->checkpoint_id) : QStringLiteral("—"));
  }
  const auto opened = await(openPath(localFs(), fixture("corrupt")));
  QVERIFY2(opened.ok(), qPrintable(opened.error));
  SnapshotListModel model;
  model.setListing(fixture("corrupt"), opened.value->jobs);
  size_t unreadable = 0;
  for (int j = 0; j < model.rowCount(); ++j) {
    const QModelIndex job = model.index(j, 0);
    for (int r = 0; r < model.rowCount(job); ++r) {
      const ops::SnapshotEntry* e = model.entry(model.index(r, 0, job));
      if (e == nullptr || e->health == ops::SnapshotHealth::kComplete) continue;
      ++unreadable;
      QCOMPARE(model.index(r, SnapshotListModel::kFullSize, job).data().toString(), QStringLiteral("—"));
      QCOMPARE(model.index(r, SnapshotListModel::kCheckpointedSize, job).data().toString(), QStringLiteral("—"));
    }
  }
  QVERIFY(unreadable > 0);
}

// A local path is cleaned as QDir::cleanPath cleans it; a location with a scheme keeps its "//"
// and loses only the trailing '/' after its key.
void ModelsTest::cleanLocationKeepsUriSpelling_data() {
  QTest::addColumn<QString>("path");
  QTest::addColumn<QString>("clean");
  QTest::newRow("local") << QStringLiteral("/a//b/./c/") << QStringLiteral("/a/b/c");
  QTest::newRow("relative") << QStringLiteral("a/../b/") << QStringLiteral("b");
  QTest::newRow("s3") << QStringLiteral("s3://bucket/sp-1") << QStringLiteral("s3://bucket/sp-1");
  QTest::newRow("s3 trailing") << QStringLiteral("s3://bucket/sp-1//") << QStringLiteral("s3://bucket/sp-1");
  QTest::newRow("s3 bucket") << QStringLiteral("s3://bucket/") << QStringLiteral("s3://bucket");
  QTest::newRow("s3a") << QStringLiteral("s3a://bucket/a/b/") << QStringLiteral("s3a://bucket/a/b");
}

void ModelsTest::cleanLocationKeepsUriSpelling() {
  QFETCH(QString, path);
  QFETCH(QString, clean);
  QCOMPARE(cleanLocation(path), clean);
}

QTEST_GUILESS_MAIN(ModelsTest)
#include "models_test.moc"
