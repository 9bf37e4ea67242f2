// QTest (offscreen) of the inspector's second pass (issue 15): a snapshot that does not open
// gets its own page and nothing of another snapshot stays on screen; the verdict is ops' and
// says what was checked, and a cancelled validate leaves no results behind; the hex view
// follows every selection (tree node, file row, state row, finding) with the selected range
// highlighted, and shows a block's stored or decompressed bytes.
#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QHeaderView>
#include <QMenuBar>
#include <QPlainTextEdit>
#include <QProcess>
#include <QStatusBar>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeView>
#include <filesystem>

#include "app/charts.h"
#include "app/hex_view.h"
#include "app/job_graph_view.h"
#include "app/main_window.h"
#include "app/state_browser.h"
#include "ckpt/ops/file_layout.h"
#include "ckpt/ops/record_range.h"
#include "gui_test_util.h"
#include "models/detail_tree_model.h"
#include "models/display.h"
#include "models/snapshot_list_model.h"
#include "models/state_table_model.h"
#include "models/table_models.h"

using namespace ckpt;
using namespace ckpt::inspector;
using namespace ckpt::inspector::testing;

namespace {

QModelIndex listedCheckpoint(SnapshotListModel& m, int64_t id) {
  for (int j = 0; j < m.rowCount(); ++j) {
    const QModelIndex job = m.index(j, 0);
    for (int i = 0; i < m.rowCount(job); ++i) {
      const QModelIndex s = m.index(i, 0, job);
      if (m.entry(s) && m.entry(s)->checkpoint_id == id) return s;
    }
  }
  return {};
}

}  // namespace

class LinkedViewsTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void initTestCase() {
    initWindowTests(QStringLiteral("ckpt-inspector-linked-test"));
  }

  // Must-fix 1: a corrupt (chk-3) and an incomplete (chk-4) checkpoint selected in a root each
  // get their own "Cannot open" page; title, Summary and every tab leave chk-2 behind.
  void selectingCorruptCheckpointInRootShowsItsOwnErrorPage() {
    QTemporaryDir tmp;
    const QString root = tmp.path() + QStringLiteral("/checkpoints");
    copyTree(fixture("v1/checkpoints"), root);
    const QString job = root + QStringLiteral("/1a2b3c4d5e6f708192a3b4c5d6e7f801");
    QVERIFY(QDir().mkpath(job + "/chk-3"));
    QVERIFY(QFile::copy(fixture("corrupt/truncated-metadata/_metadata"), job + "/chk-3/_metadata"));
    QVERIFY(QFile::copy(job + "/chk-2/numbers-source-0-operator.state", job + "/chk-3/numbers-source-0-operator.state"));
    QVERIFY(QDir().mkpath(job + "/chk-4"));
    QVERIFY(QFile::copy(job + "/chk-2/numbers-source-0-operator.state", job + "/chk-4/numbers-source-0-operator.state"));

    TestWindow w;
    QSignalSpy loaded(&w, &MainWindow::snapshotLoaded);
    w.openPath(root);
    QVERIFY(QTest::qWaitFor([&] { return !loaded.isEmpty() && !w.busy(); }, 30000));
    QCOMPARE(w.snapshot()->checkpoint_id, int64_t{2});
    QVERIFY(w.windowTitle().contains(QStringLiteral("chk-2")));
    // Something of chk-2 is on screen in the Details tab.
    w.detailTree()->setCurrentIndex(findNode(*w.detailModel(), DetailTreeModel::kFile));
    QVERIFY(!w.hexView()->path().isEmpty());

    QSignalSpy shown(&w, &MainWindow::cannotOpenShown);
    const QModelIndex corrupt = listedCheckpoint(*w.snapshotListModel(), 3);
    QVERIFY(corrupt.isValid());
    w.snapshotList()->setCurrentIndex(corrupt);
    QVERIFY(QTest::qWaitFor([&] { return !shown.isEmpty(); }, 30000));
    QVERIFY(w.showingCannotOpen());
    QVERIFY2(w.windowTitle().contains(QStringLiteral("Cannot open")) && w.windowTitle().contains(QStringLiteral("chk-3")), qPrintable(w.windowTitle()));
    QVERIFY(w.shownPath().endsWith(QStringLiteral("chk-3")));
    const QString page = w.summaryText();
    QVERIFY2(page.contains(QStringLiteral("Cannot open")) && page.contains(QStringLiteral("chk-3")), qPrintable(page));
    QVERIFY2(page.contains(QStringLiteral("CKPT-M004")), qPrintable(page));  // the rule...
    QVERIFY2(page.contains(QStringLiteral("What to do:")), qPrintable(page));  // ...and its hint
    QVERIFY2(page.contains(QStringLiteral("Listed as")) && page.contains(QStringLiteral("corrupt")), qPrintable(page));
    QVERIFY(!page.contains(QStringLiteral("Largest operators")));  // nothing of chk-2
    QVERIFY(w.snapshot() == nullptr);
    QCOMPARE(w.detailModel()->rowCount(), 0);
    // The hex pane shows chk-3's own unparsable _metadata, nothing of chk-2.
    QVERIFY2(w.hexView()->path().endsWith(QStringLiteral("chk-3/_metadata")), qPrintable(w.hexView()->path()));
    QCOMPARE(w.stateBrowser()->model()->rowCount(), 0);
    // What can be shown: the files on disk.
    QCOMPARE(w.filesView()->model()->rowCount(), 2);
    QCOMPARE(w.pages()->currentIndex(), static_cast<int>(MainWindow::kSummaryPage));
    QVERIFY(!menuAction(w, QStringLiteral("Validate"))->isEnabled());

    shown.clear();
    w.snapshotList()->setCurrentIndex(listedCheckpoint(*w.snapshotListModel(), 4));
    QVERIFY(QTest::qWaitFor([&] { return !shown.isEmpty(); }, 30000));
    QVERIFY(w.windowTitle().contains(QStringLiteral("chk-4")));
    QVERIFY2(w.summaryText().contains(QStringLiteral("CKPT-M001")), qPrintable(w.summaryText()));
    QVERIFY(w.summaryText().contains(QStringLiteral("incomplete")));

    // Back to a good one: its own title and content again.
    loaded.clear();
    w.snapshotList()->setCurrentIndex(listedCheckpoint(*w.snapshotListModel(), 2));
    QVERIFY(QTest::qWaitFor([&] { return !loaded.isEmpty() && !w.busy(); }, 30000));
    QVERIFY(!w.showingCannotOpen());
    QVERIFY(w.windowTitle().contains(QStringLiteral("chk-2")));
    QVERIFY(!w.summaryText().contains(QStringLiteral("Cannot open")));
    QVERIFY(menuAction(w, QStringLiteral("Validate"))->isEnabled());
    // Failed opens stay out of Open Recent.
    QVERIFY(!w.recentFiles().contains(QDir::cleanPath(job + "/chk-3")));
    QVERIFY(!w.statusMessage().startsWith(QStringLiteral("Opening")));
  }

  // Must-fix 2: under checksum errors the verdict never says restore is possible; it says what
  // was checked, before and after Validate.
  void verdictIsOpsCapabilityTableWithWhatWasChecked() {
    QTemporaryDir tmp;
    const QString copy = tmp.path() + QStringLiteral("/flipped");
    copyTree(fixture("corrupt/block-checksum-mismatch"), copy);
    TestWindow w;
    QVERIFY(openAndWait(w, copy));
    QVERIFY2(w.summaryText().contains(QStringLiteral("Checked: metadata only")), qPrintable(w.summaryText()));
    QVERIFY(w.summaryText().contains(QStringLiteral("as far as the metadata shows")));
    QSignalSpy done(&w, &MainWindow::validationFinished);
    w.validateSnapshot(false);
    QVERIFY(QTest::qWaitFor([&] { return !done.isEmpty(); }, 30000));
    QVERIFY(done.front().front().toBool());
    const QString summary = w.summaryText();
    QVERIFY2(summary.contains(QStringLiteral("Checked: checksums")), qPrintable(summary));
    QVERIFY2(summary.contains(QStringLiteral("restore: no, blocked by CKPT-F003")), qPrintable(summary));
    QVERIFY(!summary.contains(QStringLiteral("✔ restore")));
    QVERIFY(!summary.contains(QStringLiteral("found no problems")));  // the errors are listed
    QVERIFY2(w.verdictText().contains(QStringLiteral("✘ restore (blocked by CKPT-F003")), qPrintable(w.verdictText()));
    QVERIFY(w.verdictText().contains(QStringLiteral("checksums")));
  }

  // Must-fix 2 and 8: Escape cancels a deep validate; the earlier run's "no problems" is gone
  // and the page says the check was cancelled.
  void cancelledDeepValidateLeavesNoStaleResults() {
    QTemporaryDir tmp;
    const QString big = tmp.path() + QStringLiteral("/big");
    QProcess gen;
    gen.start(QStringLiteral(CKPT_GEN_STATE_SAVEPOINT), {big, QStringLiteral("200000"), QStringLiteral("4")});
    QVERIFY(gen.waitForFinished(300000));
    QVERIFY2(gen.exitCode() == 0, gen.readAllStandardError().constData());
    TestWindow w;
    QVERIFY(openAndWait(w, big));
    QSignalSpy done(&w, &MainWindow::validationFinished);
    w.validateSnapshot(false);
    QVERIFY(QTest::qWaitFor([&] { return !done.isEmpty(); }, 60000));
    QVERIFY(done.front().front().toBool());
    QVERIFY2(w.summaryText().contains(QStringLiteral("found no problems")), qPrintable(w.summaryText()));
    done.clear();
    w.validateSnapshot(true);
    QTest::keyClick(&w, Qt::Key_Escape);
    QVERIFY(QTest::qWaitFor([&] { return !done.isEmpty(); }, 60000));
    QVERIFY(!done.front().front().toBool());
    QVERIFY2(w.verdictText().contains(QStringLiteral("cancelled")), qPrintable(w.verdictText()));
    const QString summary = w.summaryText();
    QVERIFY2(summary.contains(QStringLiteral("was cancelled")), qPrintable(summary));
    QVERIFY(!summary.contains(QStringLiteral("found no problems")));
    QVERIFY(summary.contains(QStringLiteral("Checked: metadata only")));
    QCOMPARE(w.findingsModel()->rowCount(), 0);
  }

  // Must-fix 3: a checksum finding at block 1 scrolls the hex view to that block's offset with
  // the block highlighted (not the file at 0).
  void findingAtOffsetScrollsHexToHighlightedRange() {
    QTemporaryDir tmp;
    const QString copy = tmp.path() + QStringLiteral("/flipped");
    copyTree(fixture("corrupt/block-checksum-mismatch"), copy);
    TestWindow w;
    QVERIFY(openAndWait(w, copy));
    QSignalSpy done(&w, &MainWindow::validationFinished);
    w.validateSnapshot(false);
    QVERIFY(QTest::qWaitFor([&] { return !done.isEmpty(); }, 30000));
    int row = -1;
    for (int r = 0; r < w.findingsModel()->rowCount(); ++r) {
      if (w.findingsModel()->findings()[static_cast<size_t>(r)].rule_id == "CKPT-F006") row = r;
    }
    QVERIFY(row >= 0);
    const std::string file = copy.toStdString() + "/tiny-count-0-keyed.state";
    auto layout = ops::DescribeFileLayout(localFs(), file, true);
    QVERIFY(layout.ok());
    QVERIFY(layout->blocks.size() >= 2);
    const ops::ByteRange damaged = layout->blocks[1].whole();
    QVERIFY(damaged.offset > 0);
    QSignalSpy shown(&w, &MainWindow::hexRangeShown);
    w.showFinding(row);
    QVERIFY(QTest::qWaitFor([&] { return !shown.isEmpty(); }, 30000));
    QCOMPARE(w.pages()->currentIndex(), static_cast<int>(MainWindow::kDetailsPage));
    QCOMPARE(w.hexView()->path(), QString::fromStdString(file));
    QCOMPARE(w.hexView()->highlightStart(), damaged.offset);
    QCOMPARE(w.hexView()->highlightLength(), damaged.length);
    QVERIFY2(w.hexView()->isOffsetVisible(damaged.offset), qPrintable(QString::number(w.hexView()->firstVisibleOffset())));
    QVERIFY2(w.hexRangeText().contains(QStringLiteral("block 1")), qPrintable(w.hexRangeText()));
    // The damaged block is marked in the block picker; its decompressed bytes are refused with
    // the reason instead of garbage.
    QVERIFY(w.blockPicker()->itemText(2).contains(QStringLiteral("checksum mismatch")));
    w.blockPicker()->setCurrentIndex(2);
    w.decompressedBox()->setChecked(true);
    QVERIFY(w.hexView()->path().isEmpty());
  }

  // Must-fix 3: a node that is not a file clears the hex view; a Files row follows into the
  // tree and a double-click opens it in Details; a block's stored and decompressed bytes.
  void hexFollowsTreeAndFilesAndShowsBlocks() {
    TestWindow w;
    QVERIFY(openAndWait(w, fixture("v1/savepoint")));
    const QModelIndex file = findNode(*w.detailModel(), DetailTreeModel::kFile);
    QSignalSpy shown(&w, &MainWindow::hexRangeShown);
    w.detailTree()->setCurrentIndex(file);
    QVERIFY(!w.hexView()->path().isEmpty());
    w.detailTree()->setCurrentIndex(findNode(*w.detailModel(), DetailTreeModel::kOperator));
    QVERIFY(w.hexView()->path().isEmpty());
    QVERIFY(!w.blockPicker()->isEnabled());

    // Files: the last row, double-clicked.
    w.showPage(MainWindow::kFilesPage);
    QTableView* files = w.filesView();
    QVERIFY(QTest::qWaitFor([&] { return files->model()->rowCount() > 0; }, 30000));
    const int last = files->model()->rowCount() - 1;
    const QModelIndex cell = files->model()->index(last, FilesModel::kPath);
    files->scrollTo(cell);
    QTest::mouseClick(files->viewport(), Qt::LeftButton, {}, files->visualRect(cell).center());
    QCOMPARE(w.detailTree()->currentIndex().data(kFileIndexRole).toInt(), last);
    QTest::mouseDClick(files->viewport(), Qt::LeftButton, {}, files->visualRect(cell).center());
    QCOMPARE(w.pages()->currentIndex(), static_cast<int>(MainWindow::kDetailsPage));
    const ops::SnapshotFile& sf = w.snapshot()->files[static_cast<size_t>(last)];
    QCOMPARE(w.hexView()->path(), qs(sf.resolved_path));

    // A keyed-state container: block 0 stored, then decompressed (the record stream bytes).
    int keyed = -1;
    for (size_t i = 0; i < w.snapshot()->files.size(); ++i) {
      if (w.snapshot()->files[i].kind == ops::FileKind::kKeyedState) keyed = static_cast<int>(i);
    }
    QVERIFY(keyed >= 0);
    shown.clear();
    w.openFileInDetails(keyed);
    QVERIFY(QTest::qWaitFor([&] { return !shown.isEmpty(); }, 30000));
    QVERIFY(w.blockPicker()->isEnabled());
    const std::string path = w.snapshot()->files[static_cast<size_t>(keyed)].resolved_path;
    auto layout = ops::DescribeFileLayout(localFs(), path);
    QVERIFY(layout.ok());
    QCOMPARE(w.blockPicker()->count(), static_cast<int>(layout->blocks.size()) + 1);
    w.blockPicker()->setCurrentIndex(1);
    QCOMPARE(w.hexView()->regionStart(), layout->blocks[0].header.offset);
    QCOMPARE(w.hexView()->regionLength(), layout->blocks[0].whole().length);
    QVERIFY(!w.hexView()->decoded());
    w.decompressedBox()->setChecked(true);
    QVERIFY(w.hexView()->decoded());
    QCOMPARE(w.hexView()->regionLength(), uint64_t{layout->blocks[0].raw_length});
    QVERIFY(w.hexView()->path().contains(QStringLiteral("decompressed")));
  }

  // Must-fix 3: selecting a record in the state table selects its file in the tree and
  // highlights the record's bytes (narrower than its key group's section: in this zstd file the
  // stored block holding the record, inside the section), like Wireshark's linked panes.
  void stateRowSelectsTreeNodeAndKeyGroupBytes() {
    TestWindow w;
    QVERIFY(openAndWait(w, fixture("v1/savepoint")));
    StateBrowser* b = w.stateBrowser();
    const QString op = qs(w.snapshot()->FindOperator("per-user-aggregate").value()->id_hex);
    b->showState(op, QStringLiteral("order-count"));
    w.showPage(MainWindow::kStatePage);
    QVERIFY(QTest::qWaitFor([&] { return b->model()->rowCount() > 0; }, 30000));
    QSignalSpy shown(&w, &MainWindow::hexRangeShown);
    b->view()->setCurrentIndex(b->model()->index(0, StateTableModel::kKey));
    QVERIFY(QTest::qWaitFor([&] { return !shown.isEmpty(); }, 30000));
    const int kg = b->model()->index(0, StateTableModel::kKeyGroup).data().toInt();
    const QModelIndex node = w.detailTree()->currentIndex();
    QCOMPARE(node.data(kNodeKindRole).toInt(), static_cast<int>(DetailTreeModel::kFile));
    QCOMPARE(node.data(kOperatorIdRole).toString(), op);
    const ops::SnapshotFile& sf = w.snapshot()->files[static_cast<size_t>(node.data(kFileIndexRole).toInt())];
    QCOMPARE(w.hexView()->path(), qs(sf.resolved_path));
    auto layout = ops::DescribeFileLayout(localFs(), sf.resolved_path);
    QVERIFY(layout.ok());
    const ops::SectionLayout* sec = ops::KeyGroupSection(*layout, static_cast<uint32_t>(kg));
    QVERIFY(sec != nullptr);
    const StateBrowser::SelectedRecord rec = b->currentRecord();
    QVERIFY(rec.file >= 0);
    const auto where = ops::LocateRecord(*layout, {rec.offset, rec.length});
    QVERIFY(where.has_value());
    QVERIFY(rec.offset >= sec->logical.offset && rec.offset + rec.length <= sec->logical.end());
    QCOMPARE(w.hexView()->highlightStart(), where->block_stored.offset);
    QCOMPARE(w.hexView()->highlightLength(), where->block_stored.length);
    QVERIFY(w.hexView()->highlightStart() >= sec->stored.offset);
    QVERIFY(w.hexView()->highlightStart() + w.hexView()->highlightLength() <= sec->stored.end());
    QVERIFY2(w.hexRangeText().contains(QStringLiteral("holding the record")), qPrintable(w.hexRangeText()));
    // The decoded pane shows the entry, not the tree node.
    QVERIFY(w.decodedPane()->toPlainText().contains(QStringLiteral("key group %1").arg(kg)));
  }

  // A click on an operator in the job graph selects it in the tree, the Subtasks chart and the
  // State tab.
  void jobGraphClickSelectsOperatorEverywhere() {
    TestWindow w;
    QVERIFY(openAndWait(w, fixture("v1/savepoint")));
    const ops::Snapshot& s = *w.snapshot();
    const std::string aggName = "per-user-aggregate";
    int agg = -1;
    for (size_t i = 0; i < s.operators.size(); ++i) {
      if (s.operators[i].uid == aggName || s.operators[i].name == aggName) agg = static_cast<int>(i);
    }
    QVERIFY(agg >= 0);
    const QString aggId = qs(s.operators[static_cast<size_t>(agg)].id_hex);
    w.showPage(MainWindow::kJobGraphPage);
    JobGraphView* g = w.jobGraph();
    QTest::mouseClick(g, Qt::LeftButton, {}, g->operatorRect(agg).center().toPoint());
    QCOMPARE(g->selectedOperator(), agg);
    QCOMPARE(w.detailTree()->currentIndex().data(kOperatorIdRole).toString(), aggId);
    QCOMPARE(w.subtaskChart()->operatorIndex(), agg);
    QCOMPARE(w.stateBrowser()->currentOperator(), aggId);
  }

  // A tree selection moves the job graph and the Subtasks chart to its operator.
  void treeSelectionMovesJobGraphAndSubtasks() {
    TestWindow w;
    QVERIFY(openAndWait(w, fixture("v1/savepoint")));
    const ops::Snapshot& s = *w.snapshot();
    for (int op = 0; op < static_cast<int>(s.operators.size()); ++op) {
      ops::Location loc;
      loc.operator_id = s.operators[static_cast<size_t>(op)].id_hex;
      const QModelIndex node = w.detailModel()->indexForLocation(loc);
      QVERIFY(node.isValid());
      w.detailTree()->setCurrentIndex(node);
      QCOMPARE(w.jobGraph()->selectedOperator(), op);
      QCOMPARE(w.subtaskChart()->operatorIndex(), op);
    }
  }

  // A state row selects its operator in the job graph and the Subtasks chart too (through the
  // tree node it selects).
  void stateRowMovesJobGraphAndSubtasks() {
    TestWindow w;
    QVERIFY(openAndWait(w, fixture("v1/savepoint")));
    StateBrowser* b = w.stateBrowser();
    const ops::OperatorInfo* info = w.snapshot()->FindOperator("per-user-aggregate").value();
    const int agg = static_cast<int>(info - w.snapshot()->operators.data());
    // Start elsewhere so that following is visible.
    w.jobGraph()->setSelectedOperator(-1);
    w.subtaskChart()->setOperator(w.snapshot(), -1);
    b->showState(qs(info->id_hex), QStringLiteral("order-count"));
    w.showPage(MainWindow::kStatePage);
    QVERIFY(QTest::qWaitFor([&] { return b->model()->rowCount() > 0; }, 30000));
    QSignalSpy shown(&w, &MainWindow::hexRangeShown);
    b->view()->setCurrentIndex(b->model()->index(0, StateTableModel::kKey));
    QVERIFY(QTest::qWaitFor([&] { return !shown.isEmpty(); }, 30000));
    QCOMPARE(w.jobGraph()->selectedOperator(), agg);
    QCOMPARE(w.subtaskChart()->operatorIndex(), agg);
  }
};

QTEST_MAIN(LinkedViewsTest)
#include "linked_views_test.moc"
