// QTest (offscreen) of the inspector's job views (issue 15, second pass): a state row highlights
// its own record's bytes in the hex view (offsets from ops::Dump, mapped by ops::LocateRecord);
// the job graph (operators, chains, partitioned edges) linked to the tree; the two-phase-commit
// sink's pending files with what is on disk; the History chart's time axis to scale; prune
// listing checkpoints in numeric order with a confirmation that defaults to Cancel; and
// `ckpt-inspector --help` without a display.
#include <QAbstractButton>
#include <QAbstractItemModelTester>
#include <QApplication>
#include <QCheckBox>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QHeaderView>
#include <QMessageBox>
#include <QProcess>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <QTimer>
#include <QTreeView>
#include <QTreeWidget>

#include "app/charts.h"
#include "app/hex_view.h"
#include "app/job_graph_view.h"
#include "app/state_browser.h"
#include "app/write_dialogs.h"
#include "ckpt/ops/file_layout.h"
#include "ckpt/ops/pending_files.h"
#include "ckpt/ops/record_range.h"
#include "gui_test_util.h"
#include "models/pending_files_model.h"

using namespace ckpt;
using namespace ckpt::inspector;
using namespace ckpt::inspector::testing;

namespace {

int operatorIndex(const ops::Snapshot& s, const std::string& uid) {
  for (size_t i = 0; i < s.operators.size(); ++i) {
    if (s.operators[i].uid == uid) return static_cast<int>(i);
  }
  return -1;
}

// The varint at `p` and its length in bytes.
uint64_t readVarint(const char* p, size_t n, size_t* len) {
  uint64_t v = 0;
  *len = 0;
  for (int shift = 0; *len < n; shift += 7) {
    const auto b = static_cast<uint8_t>(p[(*len)++]);
    v |= static_cast<uint64_t>(b & 0x7f) << shift;
    if ((b & 0x80) == 0) break;
  }
  return v;
}

void writeFile(const QString& path, const QByteArray& bytes) {
  QFile f(path);
  QVERIFY(f.open(QIODevice::WriteOnly));
  f.write(bytes);
}

}  // namespace

class JobViewsTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void initTestCase() { initWindowTests(QStringLiteral("ckpt-inspector-job-views-test")); }

  // Item 3 (record level): selecting a state row selects its file in the tree and highlights
  // that record's bytes: in a zstd block the stored block holding it, and with Decompressed the
  // record itself (its varint length prefix, then exactly that many bytes).
  void selectingStateRowHighlightsItsRecordBytes() {
    TestWindow w;
    QVERIFY(w.open(fixture("v1/savepoint")));
    const ops::Snapshot& s = *w.snapshot();
    const int agg = operatorIndex(s, "per-user-aggregate");
    QVERIFY(agg >= 0);
    w.showPage(MainWindow::kStatePage);
    w.stateBrowser()->showState(qs(s.operators[static_cast<size_t>(agg)].id_hex), QStringLiteral("order-count"));
    StateTableModel* m = w.stateBrowser()->model();
    QVERIFY(QTest::qWaitFor([&] { return m->rowCount() > 3; }, 30000));
    QVERIFY(cell(*m, 3, StateTableModel::kKey).isValid());
    QSignalSpy shown(&w, &MainWindow::hexRangeShown);
    w.stateBrowser()->view()->setCurrentIndex(m->index(3, StateTableModel::kKey));
    QVERIFY(QTest::qWaitFor([&] { return !shown.isEmpty() && w.hexRangeText().contains(QStringLiteral("record")); }, 30000));
    const StateBrowser::SelectedRecord rec = w.stateBrowser()->currentRecord();
    QVERIFY(rec.file >= 0);
    QVERIFY(rec.length > 1);
    const ops::SnapshotFile& f = s.files[static_cast<size_t>(rec.file)];
    QCOMPARE(w.detailTree()->currentIndex().data(kFileIndexRole).toInt(), rec.file);
    QCOMPARE(w.hexView()->path(), qs(f.resolved_path));
    auto layout = ops::DescribeFileLayout(base::Fs::Default(), f.resolved_path);
    QVERIFY(layout.ok());
    const auto where = ops::LocateRecord(*layout, {rec.offset, rec.length});
    QVERIFY(where.has_value());
    QCOMPARE(layout->compression, std::string("zstd"));
    QVERIFY(!where->file.has_value());  // compressed: the record's bytes exist only decompressed
    QCOMPARE(w.hexView()->highlightStart(), where->block_stored.offset);
    QCOMPARE(w.hexView()->highlightLength(), where->block_stored.length);
    QVERIFY(w.hexView()->isOffsetVisible(where->block_stored.offset));
    // Decompressed: the record itself, in record-stream addresses.
    QVERIFY(w.decompressedBox()->isEnabled());
    w.decompressedBox()->setChecked(true);
    QVERIFY(w.hexView()->decoded());
    QCOMPARE(w.hexView()->highlightStart(), rec.offset);
    QCOMPARE(w.hexView()->highlightLength(), rec.length);
    auto raw = ops::ReadBlockRecords(base::Fs::Default(), f.resolved_path, where->block);
    QVERIFY(raw.ok());
    size_t prefix = 0;
    const uint64_t body = readVarint(raw->data() + where->in_block.offset, raw->size() - where->in_block.offset, &prefix);
    QCOMPARE(prefix + body, rec.length);
    // Another row: another record, never the previous one's bytes.
    const uint64_t first = rec.offset;
    QVERIFY(cell(*m, 4, StateTableModel::kKey).isValid());
    w.decompressedBox()->setChecked(false);
    shown.clear();
    w.stateBrowser()->view()->setCurrentIndex(m->index(4, StateTableModel::kKey));
    QVERIFY(QTest::qWaitFor([&] { return !shown.isEmpty(); }, 30000));
    QVERIFY(w.stateBrowser()->currentRecord().offset != first);
  }

  // ops::LocateRecord: an uncompressed block maps record-stream bytes 1:1 to file bytes; a
  // compressed one gives its stored block; a range outside every block is not a record.
  void locateRecordMapsUncompressedBlocksToFileBytes() {
    ops::FileLayout l;
    l.container = true;
    l.compression = "none";
    ops::BlockLayout b0;
    b0.index = 0;
    b0.header = {16, 24};
    b0.stored = {40, 100};
    b0.raw_length = 100;
    b0.logical_offset = 0;
    ops::BlockLayout b1 = b0;
    b1.index = 1;
    b1.header = {140, 24};
    b1.stored = {164, 50};
    b1.raw_length = 50;
    b1.logical_offset = 100;
    l.blocks = {b0, b1};
    auto r = ops::LocateRecord(l, {110, 7});
    QVERIFY(r.has_value());
    QCOMPARE(r->block, 1u);
    QCOMPARE(r->in_block, (ops::ByteRange{10, 7}));
    QVERIFY(r->file.has_value());
    QCOMPARE(*r->file, (ops::ByteRange{174, 7}));
    QVERIFY(!ops::LocateRecord(l, {95, 10}).has_value());  // would straddle two blocks
    QVERIFY(!ops::LocateRecord(l, {150, 1}).has_value());  // past the end
    l.compression = "zstd";
    l.blocks[1].stored = {164, 31};
    r = ops::LocateRecord(l, {110, 7});
    QVERIFY(r.has_value());
    QVERIFY(!r->file.has_value());
    QCOMPARE(r->block_stored, (ops::ByteRange{164, 31}));
  }

  // Item 7 (job graph): one box per chain, columns by distance from the source, edges with
  // their partitioning, the chained pair inside one box; clicking an operator selects it in the
  // tree, and selecting one in the tree highlights it in the graph.
  void jobGraphShowsChainsEdgesAndFollowsSelection() {
    TestWindow w;
    QVERIFY(w.open(fixture("v1/savepoint")));
    const ops::Snapshot& s = *w.snapshot();
    JobGraphView* g = w.jobGraph();
    const int src = operatorIndex(s, "orders-source"), agg = operatorIndex(s, "per-user-aggregate"),
              wm = operatorIndex(s, "watermark-tracker"), sink = operatorIndex(s, "file-sink");
    QVERIFY(src >= 0 && agg >= 0 && wm >= 0 && sink >= 0);
    QCOMPARE(g->chainCount(), 3);
    QCOMPARE(g->columnOf(src), 0);
    QCOMPARE(g->columnOf(agg), 1);
    QCOMPARE(g->columnOf(wm), 1);  // chained to the aggregate: same box
    QCOMPARE(g->columnOf(sink), 2);
    QVERIFY(g->operatorRect(wm).top() > g->operatorRect(agg).bottom());
    QCOMPARE(g->arrows().size(), size_t{3});
    QStringList labels;
    for (const auto& a : g->arrows()) labels << a.label;
    labels.sort();
    QCOMPARE(labels, (QStringList{QStringLiteral("chained (forward)"), QStringLiteral("hash"), QStringLiteral("rebalance")}));
    QVERIFY(g->tooltipFor(sink).contains(QStringLiteral("2 pending sink files")));
    w.showPage(MainWindow::kJobGraphPage);
    QVERIFY(!g->grab().isNull());
    QTest::mouseClick(g, Qt::LeftButton, {}, g->operatorRect(sink).center().toPoint());
    QCOMPARE(g->selectedOperator(), sink);
    QCOMPARE(w.detailTree()->currentIndex().data(kOperatorIdRole).toString(), qs(s.operators[static_cast<size_t>(sink)].id_hex));
    QCOMPARE(w.detailTree()->currentIndex().data(kNodeKindRole).toInt(), static_cast<int>(DetailTreeModel::kOperator));
    ops::Location loc;
    loc.operator_id = s.operators[static_cast<size_t>(agg)].id_hex;
    w.detailTree()->setCurrentIndex(w.detailModel()->indexForLocation(loc));
    QCOMPARE(g->selectedOperator(), agg);
  }

  // Item 7 (2PC): the sink's pending files are listed with what is on disk now.
  void pendingFilesPageListsSinkFilesWithDiskState() {
    TestWindow w;
    QSignalSpy listed(&w, &MainWindow::pendingFilesLoaded);
    QVERIFY(w.open(fixture("v1/savepoint")));
    QVERIFY(QTest::qWaitFor([&] { return !listed.isEmpty(); }, 30000));
    PendingFilesModel* m = w.pendingFilesModel();
    QAbstractItemModelTester tester(m, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QCOMPARE(m->rowCount(), 2);
    for (const ops::PendingFile& f : m->rows()) {
      QCOMPARE(f.operator_name, std::string("File sink"));
      QCOMPARE(f.pending_exists, QFileInfo::exists(qs(f.committable.pending_path)));
      QCOMPARE(f.final_exists, QFileInfo::exists(qs(f.committable.final_path)));
    }
    QVERIFY2(w.pendingFilesText().startsWith(QStringLiteral("2 pending sink files")), qPrintable(w.pendingFilesText()));
    // Selecting a row selects its sink (the nearest tree node: its subtask, else the operator)
    // in the tree and the graph.
    w.pendingFilesView()->setCurrentIndex(w.pendingFilesView()->model()->index(0, 0));
    const int sink = operatorIndex(*w.snapshot(), "file-sink");
    QCOMPARE(w.jobGraph()->selectedOperator(), sink);
    QCOMPARE(w.detailTree()->currentIndex().data(kOperatorIdRole).toString(), qs(w.snapshot()->operators[static_cast<size_t>(sink)].id_hex));
  }

  // ops::ListPendingFiles on paths under a temporary directory: every disk state is told apart,
  // and a size that differs from the recorded one is flagged.
  void pendingFileStatesFollowTheDisk() {
    auto loaded = ops::LoadSnapshot(base::Fs::Default(), fixture("v1/savepoint").toStdString());
    QVERIFY(loaded.ok());
    ops::Snapshot s = *loaded;
    QTemporaryDir tmp;
    const QString d = tmp.path();
    writeFile(d + "/.p0.inprogress", QByteArray(24, 'a'));  // pending, right size
    writeFile(d + "/p1", QByteArray(24, 'b'));               // committed
    writeFile(d + "/.p2.inprogress", QByteArray(5, 'c'));   // both, pending truncated
    writeFile(d + "/p2", QByteArray(24, 'c'));
    ops::SubtaskInfo* sub = nullptr;
    for (auto& op : s.operators) {
      for (auto& st : op.subtasks) {
        if (!st.committables.empty()) sub = &st;
      }
    }
    QVERIFY(sub != nullptr);
    ops::Committable c = sub->committables.front();
    c.size_bytes = 24;
    sub->committables.clear();
    for (int i = 0; i < 4; ++i) {
      c.pending_path = QStringLiteral("%1/.p%2.inprogress").arg(d).arg(i).toStdString();
      c.final_path = QStringLiteral("%1/p%2").arg(d).arg(i).toStdString();
      sub->committables.push_back(c);
    }
    auto rows = ops::ListPendingFiles(base::Fs::Default(), s);
    QVERIFY(rows.ok());
    QCOMPARE(rows->size(), size_t{4});
    QCOMPARE((*rows)[0].state, ops::PendingFileState::kPending);
    QVERIFY(!(*rows)[0].size_mismatch());
    QCOMPARE((*rows)[1].state, ops::PendingFileState::kCommitted);
    QCOMPARE((*rows)[2].state, ops::PendingFileState::kBoth);
    QVERIFY((*rows)[2].size_mismatch());
    QCOMPARE((*rows)[3].state, ops::PendingFileState::kMissing);
    PendingFilesModel m;
    QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
    m.setRows(*rows);
    QCOMPARE(m.index(2, PendingFilesModel::kState).data().toString(), QStringLiteral("both (size differs)"));
    QCOMPARE(m.index(3, PendingFilesModel::kState).data().toString(), QStringLiteral("missing"));
    QCOMPARE(m.index(0, PendingFilesModel::kSizeOnDisk).data(kSortRole).toULongLong(), 24ull);
  }

  // Item 5 of the brief (History): trigger times to scale, a failed checkpoint without a time
  // between its neighbours, even slots when switched off; time ticks on clock steps.
  void historyTimeAxisIsProportional() {
    auto history = std::make_shared<std::vector<ops::HistoryRow>>();
    const int64_t t0 = 1767225600000;  // 2026-01-01T00:00:00Z
    for (auto [id, dt] : std::vector<std::pair<int64_t, int64_t>>{{1, 0}, {2, 1000}, {3, 2000}, {4, -1}, {5, 10000}}) {
      ops::HistoryRow pt;
      pt.entry.checkpoint_id = id;
      pt.entry.health = dt < 0 ? ops::SnapshotHealth::kCorrupt : ops::SnapshotHealth::kComplete;
      pt.entry.trigger_timestamp_ms = dt < 0 ? 0 : t0 + dt;
      pt.entry.full_size_bytes = 1000;
      pt.duration_ms = dt < 0 ? -1 : 100;
      history->push_back(pt);
    }
    HistoryChart chart;
    chart.resize(900, 360);
    chart.setHistory(history);
    QVERIFY(chart.proportionalTime());
    QVERIFY(!chart.grab().isNull());  // paints, placing every snapshot
    const double x1 = chart.slotCenter(0), x2 = chart.slotCenter(1), x3 = chart.slotCenter(2),
                 x4 = chart.slotCenter(3), x5 = chart.slotCenter(4);
    QVERIFY(x2 - x1 > 0);
    QVERIFY(std::abs((x3 - x2) - (x2 - x1)) < 1.0);
    QVERIFY(std::abs((x5 - x3) / (x2 - x1) - 8.0) < 0.05);
    QVERIFY(x4 > x3 && x4 < x5);  // the failed one is drawn, between its neighbours
    QCOMPARE(chart.pointAt(QPoint(static_cast<int>(x5), static_cast<int>(chart.height() / 2))), 4);
    chart.setProportionalTime(false);
    QVERIFY(!chart.grab().isNull());
    QVERIFY(std::abs((chart.slotCenter(4) - chart.slotCenter(3)) - (chart.slotCenter(1) - chart.slotCenter(0))) < 1.0);
    QCOMPARE(HistoryChart::timeTicks(t0 + 1, t0 + 60000, 6),
             (std::vector<int64_t>{t0 + 10000, t0 + 20000, t0 + 30000, t0 + 40000, t0 + 50000, t0 + 60000}));
    QCOMPARE(HistoryChart::timeTicks(0, 3 * 3600000, 3), (std::vector<int64_t>{0, 3600000, 7200000, 10800000}));
  }

  // Item 8 (prune): checkpoints listed in numeric order (chk-9 before chk-10) with reasons in
  // words; the real confirmation box defaults to Cancel, so Return deletes nothing.
  void pruneListsNumericallyAndConfirmationDefaultsToCancel() {
    QTemporaryDir tmp;
    const QString root = tmp.path() + QStringLiteral("/checkpoints");
    copyTree(fixture("v1/checkpoints"), root);
    const QString job = root + QStringLiteral("/1a2b3c4d5e6f708192a3b4c5d6e7f801");
    copyTree(job + "/chk-2", job + "/chk-10");
    copyTree(job + "/chk-1", job + "/chk-9");
    PruneDialog dialog(localFs(), root);
    dialog.setKeepLast(1);
    dialog.setMinOrphanAge(QStringLiteral("0s"));
    QSignalSpy planned(&dialog, &PruneDialog::planned);
    dialog.plan();
    QVERIFY(QTest::qWaitFor([&] { return !planned.isEmpty(); }, 30000));
    QVERIFY2(planned.front().front().toBool(), qPrintable(dialog.message()));
    QTreeWidgetItem* snaps = dialog.planView()->topLevelItem(0);
    QStringList order;
    for (int i = 0; i < snaps->childCount(); ++i) {
      order << QFileInfo(snaps->child(i)->text(0)).fileName();
      QVERIFY2(snaps->child(i)->text(3).contains(QLatin1Char(' ')), qPrintable(snaps->child(i)->text(3)));
    }
    QCOMPARE(order, (QStringList{QStringLiteral("chk-1"), QStringLiteral("chk-2"), QStringLiteral("chk-9"), QStringLiteral("chk-10")}));
    QVERIFY(dialog.canPrune());
    QString defaultButton;
    QTimer::singleShot(0, &dialog, [&] {
      auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget());
      if (box == nullptr) return;
      if (box->defaultButton() != nullptr) defaultButton = box->defaultButton()->text().remove(QLatin1Char('&'));
      QTest::keyClick(box, Qt::Key_Return);
    });
    QSignalSpy pruned(&dialog, &PruneDialog::pruned);
    dialog.prune();
    QVERIFY(QTest::qWaitFor([&] { return !pruned.isEmpty(); }, 10000));
    QCOMPARE(defaultButton, QStringLiteral("Cancel"));
    QVERIFY(!pruned.front().front().toBool());
    QVERIFY(dialog.message().contains(QStringLiteral("nothing deleted")));
    QVERIFY(QFileInfo::exists(job + "/chk-1/_metadata"));
    QVERIFY(QFileInfo::exists(job + "/chk-9/_metadata"));
  }

  // Item 8: --help is answered without a display (no X server, no platform plugin asked for).
  void helpWorksWithoutDisplay() {
    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.remove(QStringLiteral("DISPLAY"));
    env.remove(QStringLiteral("WAYLAND_DISPLAY"));
    env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("xcb"));  // would abort if a display were opened
    p.setProcessEnvironment(env);
    p.start(QStringLiteral(CKPT_INSPECTOR_EXE), {QStringLiteral("--help")});
    QVERIFY(p.waitForFinished(30000));
    const QString out = QString::fromUtf8(p.readAllStandardOutput());
    QVERIFY2(p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0, p.readAllStandardError().constData());
    QVERIFY2(out.contains(QStringLiteral("Usage:")), qPrintable(out));
    QVERIFY(out.contains(QStringLiteral("--screenshot")));
  }
};

QTEST_MAIN(JobViewsTest)
#include "job_views_test.moc"
