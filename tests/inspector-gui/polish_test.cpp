// QTest of the inspector's presentation rules (offscreen): the window never grows past the size
// it was given, empty states say so, the state browser sorts and filters by value, and the
// pages fit a 1024x700 window.
#include <QFileInfo>
#include <QImage>
#include <QProcess>
#include <QStatusBar>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>

#include <QTableView>

#include "app/main_window.h"
#include "app/state_browser.h"
#include "app/status_line.h"
#include "models/table_models.h"
#include "gui_test_util.h"

using namespace ckpt;
using namespace ckpt::inspector;
using namespace ckpt::inspector::testing;

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
