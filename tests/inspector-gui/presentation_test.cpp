// QTest (offscreen) of the inspector's tables, sizes and small behaviours (issue 15, must-fix 4,
// 5 and 8): sortable, elided, fitted tables; sizes from ops' size model and changelog history
// on demand; the start page, disabled actions, a folder without snapshots, remap refusing an
// unmatched mapping, the elided progress label, and WCAG AA contrast of every meaningful colour
// in the light and the dark theme.
#include <QAbstractItemModelTester>
#include <QAction>
#include <QApplication>
#include <QDir>
#include <QDockWidget>
#include <QBrush>
#include <QFile>
#include <QFileInfo>
#include <QHeaderView>
#include <QImage>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeView>

#include "app/charts.h"
#include "app/growth_chart.h"
#include "app/history_page.h"
#include "app/main_window.h"
#include "app/state_browser.h"
#include "app/task_progress.h"
#include "app/theme.h"
#include "app/write_dialogs.h"
#include "ckpt/ops/growth.h"
#include "gui_test_util.h"
#include "models/detail_tree_model.h"
#include "models/diff_models.h"
#include "models/history_model.h"
#include "models/display.h"
#include "models/loaders.h"
#include "models/state_table_model.h"
#include "models/table_models.h"
#include "models/tone.h"

using namespace ckpt;
using namespace ckpt::inspector;
using namespace ckpt::inspector::testing;

namespace {

}  // namespace

class PresentationTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void initTestCase() {
    initWindowTests(QStringLiteral("ckpt-inspector-presentation-test"));
  }

  // Must-fix 4: a header click sorts (sizes numerically), long text is elided in the middle
  // with the whole text as tooltip, the Path column takes the room, and a chosen state hides
  // the State column that would repeat it.
  void tablesSortNumericallyElideAndFit() {
    TestWindow w;
    QVERIFY(openAndWait(w, fixture("v1/savepoint")));
    w.showPage(MainWindow::kFilesPage);
    QTableView* files = w.filesView();
    QAbstractItemModel* m = files->model();
    QVERIFY(m->rowCount() > 3);
    QHeaderView* h = files->horizontalHeader();
    const int x = h->sectionViewportPosition(FilesModel::kSize) + h->sectionSize(FilesModel::kSize) / 2;
    QTest::mouseClick(h->viewport(), Qt::LeftButton, {}, QPoint(x, h->height() / 2));
    QCOMPARE(h->sortIndicatorSection(), static_cast<int>(FilesModel::kSize));
    auto sizeAt = [&](int r) { return m->index(r, FilesModel::kSize).data(kSortRole).toULongLong(); };
    const bool ascending = h->sortIndicatorOrder() == Qt::AscendingOrder;
    for (int r = 1; r < m->rowCount(); ++r) {
      QVERIFY2(ascending ? sizeAt(r - 1) <= sizeAt(r) : sizeAt(r - 1) >= sizeAt(r), qPrintable(QString::number(r)));
    }
    // Sorted by bytes, not by the text ("9 B" after "10 KiB" would be text order).
    QVERIFY(sizeAt(0) != sizeAt(m->rowCount() - 1));
    QCOMPARE(files->textElideMode(), Qt::ElideMiddle);
    QCOMPARE(h->sectionResizeMode(FilesModel::kPath), QHeaderView::Stretch);
    const QModelIndex path = m->index(0, FilesModel::kPath);
    QCOMPARE(path.data(Qt::ToolTipRole).toString(), path.data().toString());

    StateBrowser* b = w.stateBrowser();
    b->showState(qs(w.snapshot()->FindOperator("per-user-aggregate").value()->id_hex), QStringLiteral("order-count"));
    QVERIFY(b->view()->isColumnHidden(StateTableModel::kSource));
    // Keyed state: ops says a Dump takes an exact key and a key group.
    QVERIFY(b->exactKeyFilterEnabled());
    QVERIFY(b->keyGroupFilterEnabled());
    b->showState(qs(w.snapshot()->FindOperator("orders-source").value()->id_hex), QString());
    // showState with no state picks the first one: still one state, still hidden.
    QVERIFY(b->view()->isColumnHidden(StateTableModel::kSource));
    // Operator state: no key to seek, no key groups.
    QVERIFY(!b->exactKeyFilterEnabled());
    QVERIFY(!b->keyGroupFilterEnabled());
    b->showState(qs(w.snapshot()->FindOperator("per-user-aggregate").value()->id_hex), QStringLiteral("order-count"));
    QVERIFY(b->exactKeyFilterEnabled());
    b->showState(qs(w.snapshot()->FindOperator("orders-source").value()->id_hex), QString());

    // "1 job", not "1 jobs".
    QString atRoot;
    connect(&w, &MainWindow::rootLoaded, this, [&] { atRoot = w.statusMessage(); });
    w.openPath(fixture("v1/checkpoints"));
    QVERIFY(QTest::qWaitFor([&] { return !atRoot.isEmpty(); }, 30000));
    QVERIFY2(atRoot.endsWith(QStringLiteral(": 1 job")), qPrintable(atRoot));
    auto* dock = w.findChild<QDockWidget*>(QStringLiteral("snapshotsDock"));
    QVERIFY(dock && (dock->features() & QDockWidget::DockWidgetMovable));
    QCOMPARE(w.snapshotList()->header()->sectionResizeMode(0), QHeaderView::Interactive);
  }

  // Must-fix 5: state sizes come from ops' size model (a state never larger than its
  // operator); changelog state shows replayed values, its history on demand.
  void sizesFromOpsAndChangelogHistoryOnDemand() {
    const auto loaded = await(loadSnapshot(localFs(), checkpointJobDir() + "/chk-2"));
    QVERIFY(loaded.ok());
    auto task = std::make_shared<TaskState>();
    const auto stats = await(computeStats(localFs(), loaded.value, task));
    QVERIFY(stats.ok());
    DetailTreeModel tree;
    tree.setSnapshot(loaded.value);
    tree.setStats(stats.value);
    for (int o = 0; o < tree.rowCount(); ++o) {
      const QModelIndex op = tree.index(o, 0);
      const qulonglong opBytes = tree.index(o, DetailTreeModel::kFullSize).data(kSortRole).toULongLong();
      for (int c = 0; c < tree.rowCount(op); ++c) {
        const QModelIndex child = tree.index(c, DetailTreeModel::kFullSize, op);
        if (child.siblingAtColumn(0).data(kNodeKindRole).toInt() != DetailTreeModel::kState) continue;
        const QVariant bytes = child.data(kSortRole);
        if (bytes.isValid()) QVERIFY2(bytes.toULongLong() <= opBytes, qPrintable(child.siblingAtColumn(0).data().toString()));
      }
    }
    StateTableModel model;
    model.setSource(localFs(), loaded.value, QStringLiteral("count-per-key"), QString());
    QVERIFY(fetchAll(model));
    const int replayed = model.rowCount();
    QCOMPARE(replayed, 16);  // keys 0..15, one replayed value each
    for (int r = 0; r < replayed; ++r) QVERIFY(!cell(model, r, StateTableModel::kSource).toString().contains(QStringLiteral("changelog")));
    model.setHistory(true);
    QVERIFY(fetchAll(model));
    QVERIFY(model.rowCount() > replayed);
    bool change = false;
    for (int r = 0; r < model.rowCount(); ++r) change |= cell(model, r, StateTableModel::kSource).toString().contains(QStringLiteral("changelog"));
    QVERIFY(change);
  }

  // Must-fix 8.
  void startPageDisabledActionsAndEmptyFolder() {
    TestWindow w;
    QVERIFY2(w.summaryText().contains(QStringLiteral("Open…")), qPrintable(w.summaryText()));
    QVERIFY(w.summaryText().contains(QStringLiteral("drop")));
    QVERIFY(!menuAction(w, QStringLiteral("Validate"))->isEnabled());
    QVERIFY(!menuAction(w, QStringLiteral("Remap"))->isEnabled());
    QVERIFY(openAndWait(w, fixture("v1/savepoint")));
    QVERIFY(menuAction(w, QStringLiteral("Validate"))->isEnabled());
    QVERIFY(!w.statusMessage().startsWith(QStringLiteral("Opening")));
    w.showStartPage();
    QVERIFY(w.summaryText().contains(QDir::cleanPath(fixture("v1/savepoint"))));  // recent files

    QTemporaryDir empty;
    QSignalSpy root(&w, &MainWindow::rootLoaded);
    QSignalSpy failed(&w, &MainWindow::openFailed);
    w.openPath(empty.path());
    QVERIFY(QTest::qWaitFor([&] { return !root.isEmpty() || !failed.isEmpty(); }, 30000));
    QVERIFY(!root.isEmpty());
    QVERIFY2(w.summaryText().contains(QStringLiteral("No snapshot in")), qPrintable(w.summaryText()));
    QVERIFY(w.snapshot() == nullptr);
    QVERIFY(!w.recentFiles().contains(QDir::cleanPath(empty.path())));
  }

  void remapRefusesAnUnmatchedMappingBeforeWriting() {
    QTemporaryDir tmp;
    RemapDialog dialog(localFs(), fixture("v1/savepoint"));
    dialog.setMappings(QStringLiteral("no-such-operator=other"));
    dialog.setOutputDir(tmp.path() + QStringLiteral("/out"));
    QSignalSpy planned(&dialog, &RemapDialog::planned);
    dialog.plan();
    QVERIFY(QTest::qWaitFor([&] { return !planned.isEmpty(); }, 30000));
    QVERIFY(!dialog.canWrite());
    QVERIFY(!QFileInfo::exists(tmp.path() + QStringLiteral("/out")));
  }

  void progressLabelElidesALongPath() {
    TaskProgress progress;
    progress.show();
    auto task = progress.start(QStringLiteral("Deep validate"));
    const QString path = QStringLiteral("/very/long/") + QString(400, QLatin1Char('d')) + QStringLiteral("/per-user-aggregate-1-keyed.state");
    task->progress().Report(1, 2, path.toStdString());
    QVERIFY(QTest::qWaitFor([&] { return progress.labelToolTip().contains(path); }, 10000));
    QVERIFY(progress.labelText().contains(QChar(0x2026)));  // elided
    QVERIFY(progress.labelText().size() < path.size());
    QVERIFY(progress.fontMetrics().horizontalAdvance(progress.labelText()) <= TaskProgress::kLabelWidth);
    progress.finish();
  }

  // Must-fix 7: history like Flink's Checkpoints tab: overview counts, min/avg/max/p99, a
  // table with status and in-flight data, a chart with ticks and tooltips, and a failed
  // checkpoint drawn as such (its slot is marked, never a silent gap).
  void historyShowsCountsSummaryTableAndFailedCheckpoints() {
    QTemporaryDir tmp;
    const QString root = tmp.path() + QStringLiteral("/checkpoints");
    copyTree(fixture("v1/checkpoints"), root);
    const QString job = root + QStringLiteral("/1a2b3c4d5e6f708192a3b4c5d6e7f801");
    QVERIFY(QDir().mkpath(job + "/chk-3"));
    QVERIFY(QFile::copy(fixture("corrupt/truncated-metadata/_metadata"), job + "/chk-3/_metadata"));
    TestWindow w;
    QSignalSpy history(&w, &MainWindow::historyLoaded);
    w.openPath(root);
    QVERIFY(QTest::qWaitFor([&] { return !history.isEmpty() && !w.busy(); }, 30000));
    HistoryPage* page = w.historyPage();
    HistoryTableModel* m = page->model();
    QAbstractItemModelTester tester(m, QAbstractItemModelTester::FailureReportingMode::Fatal);
    QCOMPARE(m->rowCount(), 3);
    QVERIFY(m->history() != nullptr);
    const ops::HistorySummary& c = m->history()->summary;
    QCOMPARE(c.completed, size_t{2});
    QCOMPARE(c.failed, size_t{1});
    QCOMPARE(c.incomplete, size_t{0});
    QVERIFY2(page->overviewText().contains(QStringLiteral("2 completed, 1 failed")), qPrintable(page->overviewText()));
    QVERIFY(page->overviewText().contains(QStringLiteral("p99")));
    int failed = -1;
    for (int r = 0; r < m->rowCount(); ++r) {
      if (m->index(r, HistoryTableModel::kStatus).data().toString().startsWith(QStringLiteral("failed"))) failed = r;
      else QVERIFY(m->index(r, HistoryTableModel::kUnaligned).data().toString() != QStringLiteral("—"));  // metrics read
    }
    QCOMPARE(m->index(failed, HistoryTableModel::kId).data().toLongLong(), 3LL);
    // Summary statistics: nearest-rank p99 and the mean.
    const ops::MetricSummary s = ops::SummarizeMetric({1, 2, 3, 4, 100});
    QCOMPARE(s.min, 1.0);
    QCOMPARE(s.max, 100.0);
    QCOMPARE(s.avg, 22.0);
    QCOMPARE(s.p50, 3.0);
    QCOMPARE(s.p99, 100.0);
    // The overview shows ops' summary of the two completed ones, and the newest of them.
    QCOMPARE(c.duration_ms.count, size_t{2});
    QVERIFY(c.latest_completed.has_value());
    QCOMPARE(m->history()->rows[*c.latest_completed].entry.checkpoint_id, int64_t{2});
    QVERIFY2(page->overviewText().contains(QStringLiteral("p50")), qPrintable(page->overviewText()));
    QVERIFY2(page->overviewText().contains(QStringLiteral("<b>Latest</b>: checkpoint 2")), qPrintable(page->overviewText()));
    // The chart: ticks, the failed slot with its own tooltip, a tooltip per completed one.
    w.showPage(MainWindow::kHistoryPage);
    HistoryChart* chart = page->chart();
    chart->repaint();
    const std::vector<double> ticks = HistoryChart::niceTicks(950);
    QCOMPARE(ticks.front(), 0.0);
    QVERIFY(ticks.back() >= 950);
    QCOMPARE(ticks[1], 200.0);
    const auto& points = m->history()->rows;
    for (int i = 0; i < static_cast<int>(points.size()); ++i) {
      const QPoint at(static_cast<int>(chart->slotCenter(i)), chart->height() / 2);
      QCOMPARE(chart->pointAt(at), i);
      const QString tip = chart->tooltipFor(i);
      if (points[static_cast<size_t>(i)].entry.checkpoint_id == 3) QVERIFY2(tip.contains(QStringLiteral("failed")), qPrintable(tip));
      else QVERIFY2(tip.contains(QStringLiteral("end-to-end")), qPrintable(tip));
    }
  }

  // The History page draws the storage growth ops::ComputeGrowth computes (the GUI computes
  // nothing): one bar per retained checkpoint, as tall as the bytes it introduced, its
  // still-referenced share at the bottom, and the amplification in the title.
  void historyDrawsTheGrowthOpsComputes() {
    QTemporaryDir tmp;
    const QString root = tmp.path() + QStringLiteral("/checkpoints");
    copyTree(fixture("v1/checkpoints"), root);
    const QString job = root + QStringLiteral("/1a2b3c4d5e6f708192a3b4c5d6e7f801");
    QFile stray(job + QStringLiteral("/shared/stray.bin"));
    QVERIFY(stray.open(QIODevice::WriteOnly));
    stray.write(QByteArray(4096, 'x'));
    stray.close();
    TestWindow w;
    w.openPath(root);
    HistoryPage* page = w.historyPage();
    GrowthChart* chart = page->growthChart();
    QVERIFY(QTest::qWaitFor([&] { return chart->growth() != nullptr && !w.busy(); }, 30000));
    auto expected = ops::ComputeGrowth(localFs(), job.toStdString());
    QVERIFY2(expected.ok(), expected.status().ToString().c_str());
    QCOMPARE(expected->jobs.size(), size_t{1});
    const ops::JobGrowth& want = expected->jobs[0];
    const ops::JobGrowth& shown = *chart->growth();
    QCOMPARE(shown.checkpoints.size(), want.checkpoints.size());
    QVERIFY(shown.checkpoints.size() >= 2);
    QCOMPARE(shown.orphaned_bytes, want.orphaned_bytes);
    QVERIFY(shown.orphaned_bytes >= 4096);
    w.showPage(MainWindow::kHistoryPage);
    chart->repaint();
    const QImage image = chart->grab().toImage();
    uint64_t most = 1;
    for (const auto& c : want.checkpoints) most = std::max(most, c.introduced_bytes);
    double tallest = 0;
    for (int i = 0; i < static_cast<int>(want.checkpoints.size()); ++i) {
      const ops::GrowthCheckpoint& c = want.checkpoints[static_cast<size_t>(i)];
      const QRectF bar = chart->barRect(i);
      const QRectF still = chart->stillReferencedRect(i);
      QVERIFY(!bar.isNull());
      QCOMPARE(bar.bottom(), still.bottom());
      tallest = std::max(tallest, bar.height());
      if (c.introduced_bytes > 0) {
        const double share = static_cast<double>(c.still_referenced_bytes) / static_cast<double>(c.introduced_bytes);
        QVERIFY2(std::abs(still.height() / bar.height() - share) < 0.01,
                 qPrintable(QStringLiteral("%1: %2 vs %3").arg(i).arg(still.height() / bar.height()).arg(share)));
        // The still-referenced share is painted in its own colour.
        if (still.height() > 2) {
          const QPoint in = still.center().toPoint();
          QCOMPARE(image.pixelColor(in).rgb(), chart->seriesColor(0).rgb());
        }
      }
      QCOMPARE(chart->barAt(bar.center().toPoint()), i);
      QVERIFY2(chart->tooltipFor(i).contains(QString::fromStdString(c.path)), qPrintable(chart->tooltipFor(i)));
    }
    QVERIFY(tallest > 0);
    QVERIFY2(chart->accessibleDescription().contains(QStringLiteral("amplification %1x").arg(want.amplification, 0, 'f', 2)),
             qPrintable(chart->accessibleDescription()));
  }

  // Finding, file, health and diff colours: at least 4.5:1 against Base and AlternateBase, in
  // both themes, and the models use them.
  void meaningfulColoursMeetWcagAaInBothThemes() {
    for (Theme theme : {Theme::kLight, Theme::kDark}) {
      applyTheme(theme);
      const QPalette p = QApplication::palette();
      for (Tone t : {Tone::kError, Tone::kWarning, Tone::kInfo, Tone::kAdded, Tone::kRemoved, Tone::kChanged}) {
        for (QPalette::ColorRole bg : {QPalette::Base, QPalette::AlternateBase}) {
          const double ratio = contrastRatio(toneColor(t, p), p.color(bg));
          QVERIFY2(ratio >= 4.5, qPrintable(QStringLiteral("%1 tone %2 on %3: %4:1")
                                                .arg(themeName(theme)).arg(static_cast<int>(t)).arg(static_cast<int>(bg)).arg(ratio)));
        }
      }
      FindingsModel findings;
      ops::Finding f;
      f.rule_id = "CKPT-F003";
      findings.setFindings({f});
      QCOMPARE(findings.index(0, FindingsModel::kSeverity).data(Qt::ForegroundRole).value<QBrush>().color(), toneColor(Tone::kError, p));
      QCOMPARE(DiffTreeModel::changeColor(ops::DiffChange::kAdded), toneColor(Tone::kAdded, p));
    }
    // The checker itself: black on white is 21:1, equal colours 1:1.
    QCOMPARE(qRound(contrastRatio(Qt::black, Qt::white)), 21);
    QCOMPARE(contrastRatio(QColor(10, 20, 30), QColor(10, 20, 30)), 1.0);
    applyTheme(Theme::kSystem);
  }

  // The subtask chart marks the subtasks whose checkpoint went unaligned (v1/unaligned: both
  // source subtasks and all six window subtasks persisted in-flight data; v1/savepoint: none).
  void subtaskChartMarksUnalignedSubtasks() {
    const auto loaded = await(loadSnapshot(localFs(), fixture("v1/unaligned/1a2b3c4d5e6f708192a3b4c5d6e7f801/chk-5")));
    QVERIFY(loaded.ok());
    SubtaskBarsChart chart;
    chart.setOperator(loaded.value, 1);
    QCOMPARE(chart.accessibleDescription(), QStringLiteral("6 of 6 subtasks took an unaligned checkpoint"));
    chart.resize(640, 320);
    QImage img(chart.size(), QImage::Format_ARGB32);
    chart.render(&img);  // paints without error, hatching included
    const auto aligned = await(loadSnapshot(localFs(), fixture("v1/savepoint")));
    QVERIFY(aligned.ok());
    chart.setOperator(aligned.value, 0);
    QVERIFY(chart.accessibleDescription().startsWith(QStringLiteral("0 of ")));
  }
};

QTEST_MAIN(PresentationTest)
#include "presentation_test.moc"
