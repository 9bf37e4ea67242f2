// QTest of the inspector's presentation rules (offscreen): the window never grows past the size
// it was given, empty states say so, the state browser sorts and filters by value, and the
// pages fit a 1024x700 window.
#include <QFileInfo>
#include <QImage>
#include <QJsonDocument>
#include <QJsonObject>
#include <QPlainTextEdit>
#include <QHeaderView>
#include <QScrollBar>
#include <cmath>
#include <QProcess>
#include <QRegularExpression>
#include <QStatusBar>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>

#include <QTableView>
#include <QTreeView>

#include "app/charts.h"
#include "app/diff_page.h"
#include "app/history_page.h"
#include "app/hex_view.h"
#include "app/job_graph_view.h"
#include "app/main_window.h"
#include "app/state_browser.h"
#include "app/status_line.h"
#include "models/error_offset.h"
#include "models/snapshot_list_model.h"
#include "models/table_models.h"
#include "models/timestamp_text.h"
#include "gui_test_util.h"

using namespace ckpt;
using namespace ckpt::inspector;
using namespace ckpt::inspector::testing;

namespace {

// Whether `step` is 1, 2 or 5 times a power of ten (within rounding).
bool isOneTwoFive(double step) {
  if (step <= 0) return false;
  const double mag = std::pow(10.0, std::floor(std::log10(step) + 1e-9));
  const double m = step / mag;
  return std::abs(m - 1) < 1e-6 || std::abs(m - 2) < 1e-6 || std::abs(m - 5) < 1e-6;
}

// The id of operator `name` and its first state of `kind` (empty name: any) in `w`'s snapshot.
std::pair<QString, QString> stateOf(const MainWindow& w, const std::string& name, ops::StateKind kind) {
  auto op = w.snapshot()->FindOperator(name);
  if (!op.ok()) return {};
  for (const ops::StateInfo& st : (*op)->states) {
    if (st.kind == kind) return {QString::fromStdString((*op)->id_hex), QString::fromStdString(st.name)};
  }
  return {};
}

QStringList columnOf(StateTableModel& m, int column) {
  QStringList out;
  for (int r = 0; r < m.rowCount(); ++r) out << cell(m, r, column).toString();
  return out;
}

}  // namespace

class PolishTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void initTestCase() { initWindowTests(QStringLiteral("ckpt-inspector-polish-test")); }

  // A status message far wider than the window is elided; the window keeps its width and the
  // whole message is the tooltip.
  void longStatusMessageDoesNotWidenWindow() {
    TestWindow w(TestWindow::kShown, QSize(1024, 700));
    QVERIFY(w.open(fixture("v1/savepoint")));
    auto* line = w.statusBar()->findChild<StatusLine*>();
    QVERIFY(line != nullptr);
    const QString longText = QStringLiteral("Could not read ") + QString(600, QLatin1Char('x')) + QStringLiteral(" END");
    line->showMessage(longText);
    QApplication::processEvents();
    QVERIFY2(w.width() <= 1024, qPrintable(QString::number(w.width())));
    QVERIFY(w.minimumSizeHint().width() <= 1024);
    QCOMPARE(w.statusMessage(), longText);
    QCOMPARE(line->toolTip(), longText);
    QVERIFY(line->text() != longText);
    QVERIFY(line->text().endsWith(QChar(0x2026)));
    QVERIFY(line->fontMetrics().horizontalAdvance(line->text()) <= line->contentsRect().width());
  }

  // Every page, with a snapshot open, fits a 1024x700 window (nothing forces it wider or taller).
  void everyPageFits1024x700() {
    TestWindow w(TestWindow::kShown, QSize(1024, 700));
    QVERIFY(w.open(fixture("v1/savepoint")));
    for (int i = 0; i < MainWindow::kPageCount; ++i) {
      w.showPage(static_cast<MainWindow::Page>(i));
      QApplication::processEvents();
      const QSize min = w.minimumSizeHint();
      QVERIFY2(min.width() <= 1024 && min.height() <= 700,
               qPrintable(QStringLiteral("page %1 (%2) needs %3x%4").arg(i).arg(w.pages()->tabText(i))
                              .arg(min.width()).arg(min.height())));
      QCOMPARE(w.size(), QSize(1024, 700));
    }
  }

  // --screenshot renders the window at the requested size and exits 0.
  void screenshotKeepsRequestedSize() {
    QTemporaryDir dir;
    QProcess p;
    p.setProcessChannelMode(QProcess::MergedChannels);
    p.start(QStringLiteral(CKPT_INSPECTOR_EXE),
            {fixture("v1/savepoint"), QStringLiteral("--screenshot"), dir.path(), QStringLiteral("--size"),
             QStringLiteral("1024x700"), QStringLiteral("-platform"), QStringLiteral("offscreen")});
    QVERIFY(p.waitForFinished(240000));
    const QString out = QString::fromUtf8(p.readAll());
    QVERIFY2(p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0, qPrintable(out));
    const QImage window(dir.filePath(QStringLiteral("window-summary-light.png")));
    QVERIFY(!window.isNull());
    QCOMPARE(window.size() / window.devicePixelRatio(), QSize(1024, 700));
  }

  // A filter nothing matches ends in "No entries" (not "Counting…" forever).
  void emptyFilterSaysNoEntries() {
    TestWindow w;
    QVERIFY(w.open(fixture("v1/savepoint")));
    w.showPage(MainWindow::kStatePage);
    StateBrowser* sb = w.stateBrowser();
    sb->applyFilter(QStringLiteral("no-such-key-anywhere"), -1, StateTableModel::KeyMatch::kSubstring);
    QVERIFY2(QTest::qWaitFor([&] { return sb->rangeText() == QStringLiteral("No entries"); }, 60000),
             qPrintable(sb->rangeText()));
    QCOMPARE(sb->model()->rowCount(), 0);
  }

  // With nothing chosen, the State page shows a state that has entries.
  void defaultStateHasEntries_data() {
    QTest::addColumn<QString>("path");
    QTest::newRow("own savepoint") << fixture("v1/savepoint");
    QTest::newRow("flink 1.20 keyed") << fixture("flink/complexKeyed-flink1.20");
    QTest::newRow("flink 2.0 non-keyed") << fixture("flink/nonKeyed-flink2.0");
  }
  void defaultStateHasEntries() {
    QFETCH(QString, path);
    TestWindow w;
    QVERIFY(w.open(path));
    w.showPage(MainWindow::kStatePage);
    StateTableModel* m = w.stateBrowser()->model();
    QVERIFY(QTest::qWaitFor([&] {
      if (m->rowCount() == 0 && m->canFetchMore({})) m->fetchMore({});
      return m->rowCount() > 0 || (m->fullyFetched() && !m->counting());
    }, 60000));
    QVERIFY2(m->rowCount() > 0, qPrintable(w.stateBrowser()->currentOperator() + QStringLiteral(": ") +
                                           w.stateBrowser()->rangeText()));
  }

  // The Findings headline breaks its line before the verdict (no literal "\n"), and messages
  // keep their start when cut (elided at the end; whole in the tooltip).
  void findingsHeaderAndMessages() {
    TestWindow w;
    QVERIFY(w.open(fixture("corrupt/missing-referenced-file")));
    QSignalSpy done(&w, &MainWindow::validationFinished);
    w.validateSnapshot(false);
    QVERIFY(QTest::qWaitFor([&] { return !done.isEmpty(); }, 60000));
    const QString head = w.verdictText();
    QVERIFY2(!head.contains(QStringLiteral("\\n")), qPrintable(head));
    QVERIFY2(head.contains(QStringLiteral("\nVerdict: ")), qPrintable(head));
    QCOMPARE(w.findingsView()->textElideMode(), Qt::ElideRight);
    QVERIFY(w.findingsModel()->rowCount() > 0);
    const QModelIndex msg = w.findingsModel()->index(0, FindingsModel::kMessage);
    QVERIFY(msg.data(Qt::ToolTipRole).toString().startsWith(msg.data().toString()));
  }

  // Header clicks sort the state table (numbers by value); a value filter keeps only the rows
  // whose value contains the text, and sorts too.
  void sortedAndValueFilteredStateTable() {
    TestWindow w;
    QVERIFY(w.open(fixture("v1/savepoint")));
    const auto [op, state] = stateOf(w, "per-user-aggregate", ops::StateKind::kValue);
    QVERIFY(!op.isEmpty());
    StateBrowser* sb = w.stateBrowser();
    sb->showState(op, state);
    StateTableModel& m = *sb->model();
    QVERIFY(fetchAll(m));
    const int total = m.rowCount();
    QVERIFY(total > 2);
    const QStringList opsOrder = columnOf(m, StateTableModel::kValue);

    sb->sortRows(StateTableModel::kValue, Qt::DescendingOrder);
    QCOMPARE(m.sortColumn(), int(StateTableModel::kValue));
    const QStringList desc = columnOf(m, StateTableModel::kValue);
    QCOMPARE(desc.size(), total);
    for (int r = 1; r < total; ++r) QVERIFY2(desc[r - 1].toDouble() >= desc[r].toDouble(), qPrintable(desc.join(u',')));
    QVERIFY(desc != opsOrder);
    QCOMPARE(sb->view()->horizontalHeader()->sortIndicatorSection(), int(StateTableModel::kValue));
    sb->sortRows(-1);
    QCOMPARE(columnOf(m, StateTableModel::kValue), opsOrder);

    // Filter by the digits of the largest value: every row left contains them, some rows went.
    const QString needle = desc.front();
    sb->applyFilter(needle, -1, StateTableModel::KeyMatch::kValueContains);
    QVERIFY(fetchAll(m));
    QVERIFY(m.rowCount() >= 1 && m.rowCount() < total);
    for (const QString& v : columnOf(m, StateTableModel::kValue)) QVERIFY2(v.contains(needle), qPrintable(v));
    sb->sortRows(StateTableModel::kKey, Qt::AscendingOrder);
    const QStringList keys = columnOf(m, StateTableModel::kKey);
    QStringList sortedKeys = keys;
    sortedKeys.sort();
    QCOMPARE(keys, sortedKeys);
  }

  // A state whose values are tuples with named fields shows one column per field (header = the
  // field's name, cell = the field's value, the whole value in the tooltip), and a field column
  // sorts the rows.
  void tupleStateShowsOneColumnPerField() {
    TestWindow w;
    QVERIFY(w.open(fixture("engine-v1/savepoint-e0e1e2-30e19071c9cd")));
    auto op = w.snapshot()->FindOperator("numbers");
    QVERIFY(op.ok());
    StateBrowser* sb = w.stateBrowser();
    sb->showState(QString::fromStdString((*op)->id_hex), QStringLiteral("splits"));
    StateTableModel& m = *sb->model();
    QVERIFY(fetchAll(m));
    const QStringList names{QStringLiteral("split"), QStringLiteral("next"), QStringLiteral("end")};
    QCOMPARE(m.valueColumnCount(), 3);
    QCOMPARE(m.columnCount(), int(StateTableModel::kValue) + 3 + 1);
    for (int i = 0; i < 3; ++i) {
      QCOMPARE(m.headerData(StateTableModel::kValue + i, Qt::Horizontal, Qt::DisplayRole).toString(), names[i]);
    }
    QCOMPARE(m.headerData(m.sourceColumn(), Qt::Horizontal, Qt::DisplayRole).toString(), QStringLiteral("State"));
    const int total = m.rowCount();
    QVERIFY2(total >= 2, qPrintable(QString::number(total)));
    for (int r = 0; r < total; ++r) {
      cell(m, r, StateTableModel::kValue);
      const QString whole = m.index(r, StateTableModel::kValue).data(Qt::ToolTipRole).toString();
      const QJsonObject value = QJsonDocument::fromJson(whole.toUtf8()).object();
      QCOMPARE(value.size(), 3);
      for (int i = 0; i < 3; ++i) {
        const QJsonValue field = value.value(names[i]);
        const QString expected = field.isString() ? field.toString() : QString::number(field.toInteger());
        QCOMPARE(cell(m, r, StateTableModel::kValue + i).toString(), expected);
      }
      QCOMPARE(cell(m, r, m.sourceColumn()).toString(), QStringLiteral("splits"));
    }

    const int next = StateTableModel::kValue + 1;
    sb->sortRows(next, Qt::DescendingOrder);
    QCOMPARE(m.sortColumn(), next);
    const QStringList desc = columnOf(m, next);
    QCOMPARE(desc.size(), total);
    for (int r = 1; r < total; ++r) QVERIFY2(desc[r - 1].toLongLong() >= desc[r].toLongLong(), qPrintable(desc.join(u',')));
    sb->sortRows(next, Qt::AscendingOrder);
    const QStringList asc = columnOf(m, next);
    for (int r = 1; r < total; ++r) QVERIFY2(asc[r - 1].toLongLong() <= asc[r].toLongLong(), qPrintable(asc.join(u',')));
    QVERIFY2(asc.front() != asc.back(), qPrintable(asc.join(u',')));

    // The value filter matches the whole value, whichever columns show it.
    sb->applyFilter(QStringLiteral("\"next\":") + asc.back(), -1, StateTableModel::KeyMatch::kValueContains);
    QVERIFY(fetchAll(m));
    QVERIFY(m.rowCount() >= 1 && m.rowCount() < total);
    for (int r = 0; r < m.rowCount(); ++r) QCOMPARE(cell(m, r, next).toString(), asc.back());
  }

  // Timers show their timestamp as an ISO-8601 UTC date; the milliseconds are the tooltip.
  void timerTimestampsAreDates() {
    TestWindow w;
    QVERIFY(w.open(fixture("v1/savepoint")));
    const auto [op, state] = stateOf(w, "per-user-aggregate", ops::StateKind::kTimers);
    QVERIFY(!state.isEmpty());
    w.stateBrowser()->showState(op, state);
    StateTableModel& m = *w.stateBrowser()->model();
    QVERIFY(fetchAll(m));
    QVERIFY(m.rowCount() > 0);
    const QString shown = cell(m, 0, StateTableModel::kUserKey).toString();
    const QString tip = m.index(0, StateTableModel::kUserKey).data(Qt::ToolTipRole).toString();
    QVERIFY2(QRegularExpression(QStringLiteral("^\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z$")).match(shown).hasMatch(),
             qPrintable(shown));
    QVERIFY2(tip.endsWith(QStringLiteral(" ms")), qPrintable(tip));
    QCOMPARE(timestampText(tip.chopped(3)), shown);
  }

  void timestampTextFormatsUtc() {
    QCOMPARE(timestampText(QStringLiteral("0")), QStringLiteral("1970-01-01T00:00:00.000Z"));
    QCOMPARE(timestampText(QStringLiteral("1709294400123")), QStringLiteral("2024-03-01T12:00:00.123Z"));
    QCOMPARE(timestampText(QStringLiteral("9223372036854775807")), QStringLiteral("9223372036854775807"));
    QCOMPARE(timestampText(QStringLiteral("-9223372036854775808")), QStringLiteral("-9223372036854775808"));
    QCOMPARE(timestampText(QStringLiteral("soon")), QStringLiteral("soon"));
  }

  // Comparing from the newer checkpoint still puts the older one on side A; Swap exchanges the
  // sides and compares again; the numeric columns fit next to the stretched name column.
  void diffPutsOlderSnapshotOnSideA() {
    TestWindow w(TestWindow::kShown, QSize(1024, 700));
    const QString older = checkpointJobDir() + "/chk-1", newer = checkpointJobDir() + "/chk-2";
    QVERIFY(w.open(newer));
    QSignalSpy done(w.diffPage(), &DiffPage::diffFinished);
    w.compareWith(older);
    QVERIFY(QTest::qWaitFor([&] { return !done.isEmpty(); }, 60000));
    QCOMPARE(done.size(), 1);
    QVERIFY2(done.front().front().toBool(), qPrintable(w.diffPage()->summary()));
    QCOMPARE(w.diffPage()->pathA(), older);
    QCOMPARE(w.diffPage()->pathB(), newer);
    const auto* result = w.diffPage()->treeModel()->result().get();
    QVERIFY(result != nullptr);
    QCOMPARE(result->checkpoint_id_a, int64_t{1});
    QCOMPARE(result->checkpoint_id_b, int64_t{2});
    QVERIFY(result->files_added > 0);
    QApplication::processEvents();
    QHeaderView* header = w.diffPage()->treeView()->header();
    QVERIFY2(header->length() <= w.diffPage()->treeView()->viewport()->width(),
             qPrintable(QStringLiteral("%1 > %2").arg(header->length()).arg(w.diffPage()->treeView()->viewport()->width())));

    done.clear();
    w.diffPage()->swapSides();
    QVERIFY(QTest::qWaitFor([&] { return !done.isEmpty(); }, 60000));
    QCOMPARE(w.diffPage()->pathA(), newer);
    QCOMPARE(w.diffPage()->treeModel()->result()->checkpoint_id_a, int64_t{2});
    QVERIFY(w.diffPage()->treeModel()->result()->files_removed > 0);
  }

  // A `_metadata` that does not parse is still shown byte for byte, the byte the error names
  // marked.
  void unparsableMetadataInHexPane_data() {
    QTest::addColumn<QString>("path");
    QTest::newRow("flink: operator count past the end") << fixture("flink-corrupt/flipped-length");
    QTest::newRow("flink: truncated") << fixture("flink-corrupt/truncated-metadata");
    QTest::newRow("own: truncated") << fixture("corrupt/truncated-metadata");
  }
  void unparsableMetadataInHexPane() {
    QFETCH(QString, path);
    TestWindow w;
    QSignalSpy failed(&w, &MainWindow::openFailed);
    w.openPath(path);
    QVERIFY(QTest::qWaitFor([&] { return !failed.isEmpty(); }, 30000));
    const QString error = failed.front().front().toString();
    QVERIFY(w.showingCannotOpen());
    HexView* hex = w.hexView();
    QCOMPARE(hex->path(), path + QStringLiteral("/_metadata"));
    QCOMPARE(hex->regionLength(), uint64_t(QFileInfo(hex->path()).size()));
    const std::optional<uint64_t> at = errorByteOffset(error);
    QVERIFY2(at.has_value(), qPrintable(error));
    QCOMPARE(hex->highlightStart(), std::min(*at, hex->regionLength() - 1));
    QCOMPARE(hex->highlightLength(), uint64_t{1});
    QVERIFY(hex->isOffsetVisible(hex->highlightStart()));
    QVERIFY2(w.hexRangeText().contains(QStringLiteral("where reading failed")), qPrintable(w.hexRangeText()));
    QCOMPARE(w.decodedPane()->toPlainText(), error);
  }

  void errorByteOffsetReadsTheReadersWording() {
    QCOMPARE(errorByteOffset(QStringLiteral("/x/_metadata: at byte 20: operator state count")), std::optional<uint64_t>(20));
    QCOMPARE(errorByteOffset(QStringLiteral("f: short read of the header at offset 4096")), std::optional<uint64_t>(4096));
    QCOMPARE(errorByteOffset(QStringLiteral("/x/_metadata: truncated: 37 bytes, the envelope says 90")), std::optional<uint64_t>(37));
    QCOMPARE(errorByteOffset(QStringLiteral("/x/_metadata: not a checkpoint metadata file")), std::nullopt);
  }

  // A Flink snapshot's Job graph page says the metadata carries no job graph instead of calling
  // every operator "not in the job graph"; this project's snapshots keep their graph.
  void flinkJobGraphPageSaysThereIsNone() {
    TestWindow w;
    QVERIFY(w.open(fixture("flink/complexKeyed-flink1.20")));
    JobGraphView* g = w.jobGraph();
    QVERIFY(!g->recordsJobGraph());
    QVERIFY2(g->outsideCaption().contains(QStringLiteral("Apache Flink's _metadata carries no job graph")),
             qPrintable(g->outsideCaption()));
    QVERIFY(!w.snapshot()->operators.empty());
    for (int op = 0; op < static_cast<int>(w.snapshot()->operators.size()); ++op) {
      QVERIFY2(!g->tooltipFor(op).contains(QStringLiteral("not in the job graph")), qPrintable(g->tooltipFor(op)));
    }
    // The caption is not cut off by the page's width.
    QVERIFY(g->sizeHint().width() >= g->fontMetrics().horizontalAdvance(g->outsideCaption()));

    QVERIFY(w.open(fixture("v1/savepoint")));
    QVERIFY(w.jobGraph()->recordsJobGraph());
    QCOMPARE(w.jobGraph()->outsideCaption(), QStringLiteral("Not in the job graph"));
  }

  // Axis ticks: 0 and equal 1-2-5 steps reaching the maximum; byte ticks are 1-2-5 steps of
  // the binary unit the maximum reaches, labelled without rounding noise.
  void historyTicksAreNice_data() {
    QTest::addColumn<double>("max");
    for (double max : {1.0, 7.0, 950.0, 1000.0, 1234.5, 0.37, 86400000.0, 3e9}) {
      QTest::newRow(qPrintable(QString::number(max))) << max;
    }
  }
  void historyTicksAreNice() {
    QFETCH(double, max);
    const std::vector<double> ticks = HistoryChart::niceTicks(max);
    QVERIFY(ticks.size() >= 2 && ticks.size() <= 12);
    QCOMPARE(ticks.front(), 0.0);
    QVERIFY(ticks.back() >= max * (1 - 1e-9));
    const double step = ticks[1] - ticks[0];
    QVERIFY2(isOneTwoFive(step), qPrintable(QString::number(step)));
    for (size_t i = 1; i < ticks.size(); ++i) QCOMPARE(ticks[i], static_cast<double>(i) * step);
    // One step below the top would not reach the maximum.
    QVERIFY(ticks[ticks.size() - 2] < max);
  }
  void historyByteTicksAreNiceInTheirUnit() {
    const std::vector<double> mib = HistoryChart::byteTicks(2.0 * 1024 * 1024);  // 2 MiB
    QCOMPARE(mib[1], 0.5 * 1024 * 1024);
    QCOMPARE(HistoryChart::byteTickLabel(mib[1], 2.0 * 1024 * 1024), QStringLiteral("0.5 MiB"));
    QCOMPARE(HistoryChart::byteTickLabel(mib.back(), 2.0 * 1024 * 1024), QStringLiteral("2 MiB"));
    const std::vector<double> small = HistoryChart::byteTicks(950);
    QCOMPARE(small[1], 200.0);
    QCOMPARE(HistoryChart::byteTickLabel(small[1], 950), QStringLiteral("200 B"));
    QCOMPARE(HistoryChart::byteTicks(3), (std::vector<double>{0, 1, 2, 3}));
    const double max = 700.0 * 1024;  // 700 KiB: steps of 200 KiB
    const std::vector<double> t = HistoryChart::byteTicks(max);
    QCOMPARE(HistoryChart::byteTickLabel(t[1], max), QStringLiteral("200 KiB"));
    QCOMPARE(HistoryChart::byteTickLabel(t.back(), max), QStringLiteral("800 KiB"));
  }

  // The History chart's legend sits in its title row, clear of the plot and its axis labels;
  // the Snapshots dock shows time, size and health without scrolling sideways.
  void historyLegendAndSnapshotsDockFit() {
    TestWindow w(TestWindow::kShown, QSize(1024, 700));
    QVERIFY(w.openRoot(fixture("v1/checkpoints")));
    QVERIFY(QTest::qWaitFor([&] { return !w.busy(); }, 30000));
    w.showPage(MainWindow::kHistoryPage);
    HistoryChart* chart = w.historyPage()->chart();
    chart->repaint();
    const QRectF legend = chart->headerLegendRect();
    QVERIFY(!legend.isEmpty());
    QVERIFY2(legend.bottom() <= chart->plotRect().top(), qPrintable(QStringLiteral("%1 > %2").arg(legend.bottom()).arg(chart->plotRect().top())));
    QVERIFY(legend.left() >= 0 && legend.right() <= chart->width());

    QTreeView* list = w.snapshotList();
    QApplication::processEvents();
    QVERIFY(list->isVisible());
    QVERIFY2(list->horizontalScrollBar()->maximum() == 0,
             qPrintable(QStringLiteral("header %1 px, viewport %2 px, path %3 px").arg(list->header()->length())
                            .arg(list->viewport()->width()).arg(list->columnWidth(0))));
    QVERIFY(list->header()->length() <= list->viewport()->width());
    for (int c : {SnapshotListModel::kTime, SnapshotListModel::kFullSize, SnapshotListModel::kHealth}) {
      QVERIFY(!list->isColumnHidden(c));
      // Every cell's text fits its column (nothing elided).
      const QAbstractItemModel* m = list->model();
      for (int j = 0; j < m->rowCount(); ++j) {
        const QModelIndex job = m->index(j, 0);
        for (int r = 0; r < m->rowCount(job); ++r) {
          const QString text = m->index(r, c, job).data().toString();
          QVERIFY2(list->fontMetrics().horizontalAdvance(text) <= list->columnWidth(c),
                   qPrintable(QStringLiteral("column %1: '%2' in %3 px").arg(c).arg(text).arg(list->columnWidth(c))));
        }
      }
    }
  }

  void screenshotRejectsMalformedSize() {
    QProcess p;
    p.start(QStringLiteral(CKPT_INSPECTOR_EXE), {QStringLiteral("--size"), QStringLiteral("wide")});
    QVERIFY(p.waitForFinished(60000));
    QCOMPARE(p.exitCode(), 2);
    QVERIFY(QString::fromUtf8(p.readAllStandardError()).contains(QStringLiteral("--size")));
  }
};

QTEST_MAIN(PolishTest)
#include "polish_test.moc"
