// End-to-end QTest of ckpt-inspector's widgets (offscreen): open -> select -> hex range,
// findings navigation, diff, the remap and prune dialogs driven programmatically on temporary
// copies, state-browser export, treemap keyboard navigation, themes, recent files, and PNG
// screenshots of the window and every view under the build directory.
#include <QApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMimeData>
#include <QSettings>
#include <QUrl>
#include <QPlainTextEdit>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeView>
#include <QTreeWidget>
#include <set>

#include "app/diff_page.h"
#include "ckpt/base/fs.h"
#include "ckpt/ops/positions.h"
#include "app/hex_view.h"
#include "app/main_window.h"
#include "app/state_browser.h"
#include "app/task_progress.h"
#include "app/treemap_view.h"
#include "app/write_dialogs.h"
#include "gui_test_util.h"
#include "models/detail_tree_model.h"
#include "models/diff_models.h"
#include "models/display.h"
#include "models/snapshot_list_model.h"
#include "models/state_table_model.h"
#include "models/table_models.h"

using namespace ckpt;
using namespace ckpt::inspector;
using namespace ckpt::inspector::testing;

namespace {

// Non-blank: more than a handful of distinct colours.
int distinctColours(const QImage& image) {
  std::set<QRgb> colours;
  for (int y = 0; y < image.height(); y += 3) {
    for (int x = 0; x < image.width(); x += 3) {
      colours.insert(image.pixel(x, y));
      if (colours.size() > 64) return static_cast<int>(colours.size());
    }
  }
  return static_cast<int>(colours.size());
}

}  // namespace

class MainWindowTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void initTestCase() {
    initWindowTests(QStringLiteral("ckpt-inspector-test"));
  }

  // The summary's warnings are ops' own findings (validate's rules), not a copy in the GUI.
  void summaryWarningsComeFromValidateRules() {
    TestWindow w;
    QVERIFY(openAndWait(w, fixture("corrupt/missing-referenced-file")));
    QVERIFY2(w.summaryText().contains(QStringLiteral("CKPT-F001")), qPrintable(w.summaryText()));
    QVERIFY(openAndWait(w, fixture("v1/savepoint")));
    QVERIFY2(!w.summaryText().contains(QStringLiteral("CKPT-F00")), qPrintable(w.summaryText()));
  }

  // The Summary page's source positions are ops::ComputePositions' answer, not the GUI's own.
  void summaryShowsSourcePositions() {
    TestWindow w;
    QVERIFY(openAndWait(w, fixture("engine-v1/checkpoints/e0e1e2e3e4e5e6e7e8e9eaebecedeeef/chk-5")));
    const QString text = w.summaryText();
    QVERIFY2(text.contains(QStringLiteral("Source positions")), qPrintable(text));
    auto expected = ops::ComputePositions(base::Fs::Default(), *w.snapshot());
    QVERIFY(expected.ok());
    QVERIFY(!expected->operators.empty());
    size_t values = 0, files = 0;
    for (const ops::OperatorPositions& op : expected->operators) {
      QVERIFY2(text.contains(qs(ops::ConnectorKindName(op.connector))), qPrintable(text));
      for (const ops::SourcePosition& p : op.splits) {
        QVERIFY(p.next_value.has_value());
        QVERIFY2(text.contains(QString::number(*p.next_value)), qPrintable(text));
        ++values;
      }
      if (!op.sink) continue;
      for (const ops::SinkTransaction& t : op.sink->transactions) {
        QVERIFY2(text.contains(qs(t.pending_path)), qPrintable(text));
        ++files;
      }
    }
    QCOMPARE(values, size_t{4});  // the fixture's four sequence splits
    QVERIFY(files > 0);
    // A snapshot without connector state has no positions section.
    QVERIFY(openAndWait(w, fixture("v1/checkpoints/1a2b3c4d5e6f708192a3b4c5d6e7f801/chk-2")));
    QVERIFY2(!w.summaryText().contains(QStringLiteral("3255")), qPrintable(w.summaryText()));
  }

  void openSelectShowsHexRange() {
    TestWindow w;
    QVERIFY(openAndWait(w, fixture("v1/savepoint")));
    QVERIFY(w.summaryText().contains(QStringLiteral("savepoint (canonical) 42")));
    QVERIFY(w.summaryText().contains(QStringLiteral("Largest operators")));
    QVERIFY(w.summaryText().contains(QStringLiteral("Per-user aggregate")));
    QCOMPARE(w.recentFiles().value(0), QDir::cleanPath(fixture("v1/savepoint")));
    const QModelIndex file = findNode(*w.detailModel(), DetailTreeModel::kFile);
    QVERIFY(file.isValid());
    w.detailTree()->setCurrentIndex(file);
    const int f = file.data(kFileIndexRole).toInt();
    const ops::SnapshotFile& sf = w.snapshot()->files[static_cast<size_t>(f)];
    QCOMPARE(w.hexView()->path(), qs(sf.resolved_path));
    QCOMPARE(w.hexView()->regionStart(), uint64_t{0});
    QCOMPARE(w.hexView()->regionLength(), sf.size_bytes);
    w.showPage(MainWindow::kDetailsPage);
    w.hexView()->viewport()->repaint();
    // Only the visible rows were read: a state file this small is one block.
    QVERIFY(w.hexView()->blocksRead() >= 1 && w.hexView()->blocksRead() <= 2);
    QVERIFY(w.decodedPane()->toPlainText().contains(qs(sf.path)));
  }

  void openingCorruptMetadataReportsTheFile() {
    TestWindow w(TestWindow::kHidden);
    QSignalSpy failed(&w, &MainWindow::openFailed);
    w.openPath(fixture("corrupt/truncated-metadata"));
    QVERIFY(QTest::qWaitFor([&] { return !failed.isEmpty(); }, 30000));
    QVERIFY(failed.front().front().toString().contains(QStringLiteral("_metadata")));
    QVERIFY(w.summaryText().contains(QStringLiteral("Cannot open")));
    QVERIFY(w.summaryText().contains(QStringLiteral("truncated-metadata/_metadata")));
  }

  // A location on a filesystem the inspector does not have fails before anything is read, with
  // the scheme named on the page and in the signal.
  void openingAnUnknownSchemeNamesIt() {
    TestWindow w(TestWindow::kHidden);
    QSignalSpy failed(&w, &MainWindow::openFailed);
    QSignalSpy shown(&w, &MainWindow::cannotOpenShown);
    w.openPath(QStringLiteral("s3://bucket/savepoint-1"));
    QVERIFY(QTest::qWaitFor([&] { return !failed.isEmpty() && !shown.isEmpty(); }, 30000));
    QVERIFY(failed.front().front().toString().contains(QStringLiteral("s3")));
    QVERIFY(w.showingCannotOpen());
    QVERIFY(!w.snapshot());
    QVERIFY(w.summaryText().contains(QStringLiteral("Cannot open s3://bucket/savepoint-1")));
    QVERIFY(w.summaryText().contains(QStringLiteral("file")));  // the built-in schemes
    QVERIFY(!w.busy());
  }

  // The Diff page resolves both locations before comparing: an unknown scheme is its answer.
  void diffOfAnUnknownSchemeNamesIt() {
    DiffPage page;
    page.setPaths(QStringLiteral("s3://bucket/a"), fixture("v1/savepoint"));
    QSignalSpy done(&page, &DiffPage::diffFinished);
    page.compare(false);
    QCOMPARE(done.size(), 1);
    QVERIFY(!done.front().front().toBool());
    QVERIFY(page.summary().contains(QStringLiteral("s3")));
  }

  // A file: URI opens the local path it names.
  void openingAFileUriOpensTheLocalPath() {
    TestWindow w(TestWindow::kHidden);
    QVERIFY(openAndWait(w, QStringLiteral("file://") + fixture("v1/savepoint")));
    QCOMPARE(w.currentPath(), QDir::cleanPath(fixture("v1/savepoint")));
    QVERIFY(w.snapshot());
  }

  void checkpointRootListsSnapshotsAndHistory() {
    TestWindow w(TestWindow::kHidden);
    QSignalSpy root(&w, &MainWindow::rootLoaded);
    QSignalSpy history(&w, &MainWindow::historyLoaded);
    QSignalSpy loaded(&w, &MainWindow::snapshotLoaded);
    w.openPath(fixture("v1/checkpoints"));
    QVERIFY(QTest::qWaitFor([&] { return !root.isEmpty() && !history.isEmpty() && !loaded.isEmpty(); }, 30000));
    QCOMPARE(w.snapshotListModel()->rowCount(), 1);
    // The newest complete checkpoint is shown.
    QCOMPARE(w.snapshot()->checkpoint_id, int64_t{2});
  }

  void findingsJumpToTreeNodeAndBytes() {
    QTemporaryDir tmp;
    const QString copy = tmp.path() + QStringLiteral("/flipped");
    copyTree(fixture("corrupt/block-checksum-mismatch"), copy);
    TestWindow w;
    QVERIFY(openAndWait(w, copy));
    QSignalSpy done(&w, &MainWindow::validationFinished);
    w.validateSnapshot(false);
    QVERIFY(QTest::qWaitFor([&] { return !done.isEmpty(); }, 30000));
    QVERIFY(done.front().front().toBool());
    QVERIFY(w.findingsModel()->rowCount() > 0);
    QCOMPARE(w.pages()->currentIndex(), static_cast<int>(MainWindow::kFindingsPage));
    int row = -1;
    for (int r = 0; r < w.findingsModel()->rowCount() && row < 0; ++r) {
      if (!w.findingsModel()->findings()[static_cast<size_t>(r)].location.file.empty()) row = r;
    }
    QVERIFY2(row >= 0, "a checksum finding names its file");
    w.showFinding(row);
    QCOMPARE(w.pages()->currentIndex(), static_cast<int>(MainWindow::kDetailsPage));
    const QModelIndex current = w.detailTree()->currentIndex();
    QCOMPARE(current.data(kNodeKindRole).toInt(), static_cast<int>(DetailTreeModel::kFile));
    QVERIFY(w.hexView()->path().endsWith(QStringLiteral("tiny-count-0-keyed.state")));
    QVERIFY(w.decodedPane()->toPlainText().contains(qs(w.findingsModel()->findings()[static_cast<size_t>(row)].rule_id)));
    QVERIFY(w.summaryText().contains(QStringLiteral("error")));
  }

  void diffShowsAddedFilesAndKeyChanges() {
    TestWindow w(TestWindow::kHidden);
    QVERIFY(openAndWait(w, checkpointJobDir() + "/chk-1"));
    QSignalSpy done(w.diffPage(), &DiffPage::diffFinished);
    w.compareWith(checkpointJobDir() + "/chk-2", true);
    QVERIFY(QTest::qWaitFor([&] { return !done.isEmpty(); }, 60000));
    QVERIFY2(done.front().front().toBool(), qPrintable(w.diffPage()->summary()));
    DiffTreeModel* tree = w.diffPage()->treeModel();
    QVERIFY(tree->result());
    QVERIFY(tree->result()->files_added > 0);
    QVERIFY(w.diffPage()->summary().contains(QStringLiteral("added")));
    QVERIFY(w.diffPage()->keyModel()->rowCount() > 0 || tree->result()->different);
  }

  void remapDialogPlansThenWritesANewValidatedSavepoint() {
    QTemporaryDir tmp;
    const QString input = tmp.path() + QStringLiteral("/savepoint");
    copyTree(fixture("v1/savepoint"), input);
    const QByteArray metadata_before = [&] { QFile f(input + "/_metadata"); f.open(QIODevice::ReadOnly); return f.readAll(); }();
    RemapDialog dialog(localFs(), input);
    dialog.setMappings(QStringLiteral("orders-source=orders-source-v2"));
    dialog.setOutputDir(tmp.path() + QStringLiteral("/remapped"));
    QVERIFY(!dialog.canWrite());  // no write before a plan was shown
    QSignalSpy planned(&dialog, &RemapDialog::planned);
    dialog.plan();
    QVERIFY(QTest::qWaitFor([&] { return !planned.isEmpty(); }, 30000));
    QVERIFY2(planned.front().front().toBool(), qPrintable(dialog.message()));
    QVERIFY(!QFileInfo::exists(tmp.path() + "/remapped"));  // dry run wrote nothing
    QVERIFY(dialog.canWrite());
    bool renamed = false;
    for (int i = 0; i < dialog.planView()->topLevelItemCount(); ++i) {
      const QTreeWidgetItem* item = dialog.planView()->topLevelItem(i);
      if (item->text(1) == QLatin1String("rename")) renamed = item->text(3).contains(QStringLiteral("orders-source-v2"));
    }
    QVERIFY(renamed);
    // Editing the request invalidates the reviewed plan.
    dialog.setMappings(QStringLiteral("orders-source=other"));
    QVERIFY(!dialog.canWrite());
    dialog.setMappings(QStringLiteral("orders-source=orders-source-v2"));
    planned.clear();
    dialog.plan();
    QVERIFY(QTest::qWaitFor([&] { return !planned.isEmpty(); }, 30000));
    QSignalSpy written(&dialog, &RemapDialog::written);
    dialog.write();
    QVERIFY(QTest::qWaitFor([&] { return !written.isEmpty(); }, 60000));
    QVERIFY2(written.front().front().toBool(), qPrintable(dialog.message()));
    QVERIFY(QFileInfo::exists(tmp.path() + "/remapped/_metadata"));
    QVERIFY(dialog.lastOutcome()->validated.has_value());
    QVERIFY2(!ops::HasErrors(dialog.lastOutcome()->validated->findings), qPrintable(dialog.message()));
    QVERIFY(dialog.message().contains(QStringLiteral("validated")));
    // The input is untouched.
    QFile after(input + "/_metadata");
    QVERIFY(after.open(QIODevice::ReadOnly));
    QCOMPARE(after.readAll(), metadata_before);
    // And the result opens with the new uid.
    TestWindow w(TestWindow::kHidden);
    QVERIFY(openAndWait(w, tmp.path() + "/remapped"));
    QVERIFY(w.snapshot()->FindOperator("orders-source-v2").ok());
  }

  void pruneDialogShowsPlanAsksThenPrunesAndValidates() {
    QTemporaryDir tmp;
    const QString root = tmp.path() + QStringLiteral("/checkpoints");
    copyTree(fixture("v1/checkpoints"), root);
    const QString job = root + QStringLiteral("/1a2b3c4d5e6f708192a3b4c5d6e7f801");
    PruneDialog dialog(localFs(), root);
    dialog.setKeepLast(1);
    dialog.setMinOrphanAge(QStringLiteral("0s"));
    QSignalSpy planned(&dialog, &PruneDialog::planned);
    dialog.plan();
    QVERIFY(QTest::qWaitFor([&] { return !planned.isEmpty(); }, 30000));
    QVERIFY2(planned.front().front().toBool(), qPrintable(dialog.message()));
    QVERIFY(dialog.canPrune());
    QVERIFY(dialog.currentPlan()->files_to_delete > 0);
    QVERIFY(dialog.currentPlan()->options.verify_output);  // ops checks what the prune keeps
    QVERIFY(dialog.message().contains(QStringLiteral("Nothing has been deleted")));
    QVERIFY(QFileInfo::exists(job + "/chk-1/_metadata"));
    // Declining the confirmation deletes nothing.
    QString asked;
    dialog.setConfirmation([&](const QString& q) { asked = q; return false; });
    QSignalSpy pruned(&dialog, &PruneDialog::pruned);
    dialog.prune();
    QVERIFY(!asked.isEmpty());
    QCOMPARE(pruned.size(), 1);
    QVERIFY(!pruned.front().front().toBool());
    QVERIFY(QFileInfo::exists(job + "/chk-1/_metadata"));
    // Confirming runs the plan and validates what is retained.
    dialog.setConfirmation([](const QString&) { return true; });
    pruned.clear();
    dialog.prune();
    QVERIFY(QTest::qWaitFor([&] { return !pruned.isEmpty(); }, 60000));
    QVERIFY2(pruned.front().front().toBool(), qPrintable(dialog.message()));
    QVERIFY(!QFileInfo::exists(job + "/chk-1/_metadata"));
    QVERIFY(QFileInfo::exists(job + "/chk-2/_metadata"));
    // ops checked what the prune kept: every kept snapshot opens, the newest retained restores.
    const ops::PruneVerification& verified = dialog.lastResult()->verification;
    QVERIFY(!verified.snapshots.empty());
    QVERIFY(verified.ok());
    QVERIFY(!verified.restore_checked.empty());
    bool checkedChk2 = false;
    for (const ops::PruneVerifiedSnapshot& v : verified.snapshots) {
      QVERIFY2(v.opens && v.problem.empty(), v.path.c_str());
      if (v.restorable) QVERIFY2(*v.restorable, v.path.c_str());
      if (QString::fromStdString(v.path).endsWith(QStringLiteral("chk-2"))) checkedChk2 = v.restorable.value_or(false);
    }
    QVERIFY(checkedChk2);
    QVERIFY2(dialog.message().contains(QStringLiteral("restores")), qPrintable(dialog.message()));
  }

  void stateBrowserFiltersAndExportsSelection() {
    TestWindow w;
    QVERIFY(openAndWait(w, fixture("v1/savepoint")));
    StateBrowser* b = w.stateBrowser();
    b->showState(qs(w.snapshot()->FindOperator("per-user-aggregate").value()->id_hex), QStringLiteral("order-count"));
    w.showPage(MainWindow::kStatePage);
    QVERIFY(QTest::qWaitFor([&] { return b->model()->rowCount() > 0; }, 30000));  // first rows
    b->applyFilter(QStringLiteral("\"user-03\""), -1);
    QVERIFY(fetchAll(*b->model()));  // counted off the GUI thread
    QCOMPARE(b->model()->rowCount(), 1);
    b->view()->selectAll();
    QTemporaryDir tmp;
    const QString out = tmp.path() + QStringLiteral("/rows.json");
    QVERIFY(b->exportSelection(out));
    QFile f(out);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QJsonDocument doc = QJsonDocument::fromJson(f.readAll());
    QCOMPARE(doc.array().size(), 1);
    QCOMPARE(doc.array()[0].toObject()[QStringLiteral("key")].toString(), QStringLiteral("user-03"));
    QCOMPARE(doc.array()[0].toObject()[QStringLiteral("value")].toInt(), 10);
  }

  void treemapIsSquarifiedAndKeyboardNavigable() {
    const std::vector<double> sizes{6, 6, 4, 3, 2, 2, 1};
    const QRectF area(0, 0, 600, 400);
    const auto rects = TreemapView::squarify(sizes, area);
    double total = 0;
    for (double s : sizes) total += s;
    for (size_t i = 0; i < sizes.size(); ++i) {
      QVERIFY(area.contains(rects[i].adjusted(0.01, 0.01, -0.01, -0.01)));
      QVERIFY(qAbs(rects[i].width() * rects[i].height() - area.width() * area.height() * sizes[i] / total) < 1.0);
      QVERIFY(std::max(rects[i].width() / rects[i].height(), rects[i].height() / rects[i].width()) < 4.0);
    }
    TestWindow w(TestWindow::kShown, QSize(1200, 800));
    QVERIFY(openAndWait(w, fixture("v1/savepoint")));
    w.showPage(MainWindow::kTreemapPage);
    TreemapView* t = w.treemap();
    t->setFocus();
    QTest::keyClick(t, Qt::Key_Right);
    const int first = t->selectedNode();
    QVERIFY(first > 0);
    QTest::keyClick(t, Qt::Key_Right);
    QVERIFY(t->selectedNode() != first);
    QCOMPARE(t->nodes()[static_cast<size_t>(t->selectedNode())].parent, t->nodes()[static_cast<size_t>(first)].parent);
    QTest::keyClick(t, Qt::Key_Left);
    QCOMPARE(t->selectedNode(), first);
    QTest::keyClick(t, Qt::Key_Return);  // zoom into the operator
    QCOMPARE(t->rootNode(), first);
    QCOMPARE(t->nodes()[static_cast<size_t>(t->selectedNode())].parent, first);
    QTest::keyClick(t, Qt::Key_Backspace);
    QCOMPARE(t->rootNode(), 0);
    QCOMPARE(t->selectedNode(), first);
  }

  void dropShortcutsAndPersistedLayout() {
    {
      TestWindow w(TestWindow::kShown, QSize(1100, 700));
      QVERIFY(QTest::qWaitForWindowExposed(&w));
      w.activateWindow();
      QVERIFY(QTest::qWaitForWindowActive(&w));
      // Drag and drop of a snapshot directory opens it.
      QMimeData mime;
      mime.setUrls({QUrl::fromLocalFile(fixture("v1/unaligned/1a2b3c4d5e6f708192a3b4c5d6e7f801/chk-5"))});
      QSignalSpy loaded(&w, &MainWindow::snapshotLoaded);
      QDragEnterEvent enter(QPoint(50, 50), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
      QApplication::sendEvent(&w, &enter);
      QVERIFY(enter.isAccepted());
      QDropEvent drop(QPointF(50, 50), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
      QApplication::sendEvent(&w, &drop);
      QVERIFY(QTest::qWaitFor([&] { return !loaded.isEmpty(); }, 30000));
      QCOMPARE(w.snapshot()->checkpoint_id, int64_t{5});
      QVERIFY(QTest::qWaitFor([&] { return !w.busy(); }, 30000));
      // F5 reloads, Ctrl+F goes to the state filter.
      loaded.clear();
      QTest::keyClick(&w, Qt::Key_F5);
      QVERIFY(QTest::qWaitFor([&] { return !loaded.isEmpty(); }, 30000));
      QTest::keyClick(&w, Qt::Key_F, Qt::ControlModifier);
      QCOMPARE(w.pages()->currentIndex(), static_cast<int>(MainWindow::kStatePage));
      QVERIFY(QTest::qWaitFor([&] { return !w.busy(); }, 30000));
      w.resize(1000, 640);
      w.close();  // saves geometry and dock layout
    }
    QVERIFY(QSettings().contains(QStringLiteral("window/geometry")));
    QVERIFY(QSettings().contains(QStringLiteral("window/state")));
    MainWindow again;
    QCOMPARE(again.size(), QSize(1000, 640));
  }

  void taskProgressCancelsItsTask() {
    TaskProgress progress;
    std::shared_ptr<TaskState> task = progress.start(QStringLiteral("Validate"));
    QVERIFY(progress.running());
    QVERIFY(!task->cancelled());
    progress.cancel();
    QVERIFY(task->cancelled());
    progress.finish();
    QVERIFY(!progress.running());
  }

  void themeSwitchesPalette() {
    TestWindow w(TestWindow::kHidden);
    w.setTheme(Theme::kDark);
    QVERIFY(QApplication::palette().color(QPalette::Window).lightness() < 100);
    w.setTheme(Theme::kLight);
    QVERIFY(QApplication::palette().color(QPalette::Window).lightness() > 150);
    w.setTheme(Theme::kSystem);
  }

  void screenshotsOfEveryViewAreNonBlank() {
    TestWindow w;
    // The root: the list shows the job, chk-2 (the newest complete) opens, history is drawn.
    QSignalSpy history(&w, &MainWindow::historyLoaded);
    QVERIFY(openAndWait(w, fixture("v1/checkpoints")));
    QVERIFY(QTest::qWaitFor([&] { return !history.isEmpty() && !w.busy(); }, 30000));
    QCOMPARE(w.snapshot()->checkpoint_id, int64_t{2});
    // Fill the views that need an action: findings and diff.
    QSignalSpy validated(&w, &MainWindow::validationFinished);
    w.validateSnapshot(false);
    QVERIFY(QTest::qWaitFor([&] { return !validated.isEmpty(); }, 30000));
    QSignalSpy diffed(w.diffPage(), &DiffPage::diffFinished);
    w.compareWith(checkpointJobDir() + "/chk-1");
    QVERIFY(QTest::qWaitFor([&] { return !diffed.isEmpty(); }, 30000));
    w.detailTree()->setCurrentIndex(findNode(*w.detailModel(), DetailTreeModel::kFile));
    w.treemap()->selectNode(1);
    const QString dir = QStringLiteral(CKPT_SCREENSHOT_DIR "/offscreen");
    QDir(dir).removeRecursively();
    const QStringList files = w.saveScreenshots(dir);
    QVERIFY(files.size() >= MainWindow::kPageCount + 1);
    for (const QString& f : files) {
      const QImage image(f);
      QVERIFY2(!image.isNull(), qPrintable(f));
      if (f.contains(QStringLiteral("/window-"))) {
        QCOMPARE(image.size(), w.size() * w.devicePixelRatio());
      } else {
        QCOMPARE(image.size(), w.pages()->currentWidget()->size() * w.devicePixelRatio());
      }
      QVERIFY2(distinctColours(image) > 8, qPrintable(f + " looks blank"));
    }
    // The dark theme renders too.
    w.setTheme(Theme::kDark);
    w.showPage(MainWindow::kTreemapPage);
    QTest::qWait(20);  // palette-change events reach every widget
    const QImage dark = w.grab().toImage();
    QVERIFY(dark.save(dir + QStringLiteral("/window-treemap-dark.png")));
    QVERIFY(distinctColours(dark) > 8);
    QVERIFY(QColor(dark.pixel(dark.width() / 2, dark.height() - 5)).lightness() < 128);
    w.setTheme(Theme::kSystem);
  }
};

QTEST_MAIN(MainWindowTest)
#include "main_window_test.moc"
