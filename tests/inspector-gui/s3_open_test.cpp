// QTest of ckpt-inspector on S3 (offscreen): snapshots uploaded to the local s3proxy of the
// s3proxy_server ctest fixture open from their s3:// locations (File > Open Location…, the
// command line, MainWindow::openPath) and show what the same window shows for the local copy,
// which is the oracle: operators, states, every keyed state's entries, validate's findings and
// verdict, a checkpoint root's listing and History page. A missing key, a wrong bucket, a prefix
// without a snapshot and missing credentials each give a message naming the location.
#include <QApplication>
#include <QDir>
#include <QFile>
#include <QInputDialog>
#include <QProcess>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QTreeView>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>

#include "app/history_page.h"
#include "app/main_window.h"
#include "app/state_browser.h"
#include "ckpt/s3/s3_client.h"
#include "ckpt/s3/s3_config.h"
#include "ckpt/s3/s3_fs.h"
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

constexpr char kS3GuiSavepoint[] = "engine-v1/savepoint-e0e1e2-30e19071c9cd";
constexpr char kS3GuiRoot[] = "engine-v1/checkpoints";
constexpr char kS3GuiFlinkSavepoint[] = "flink/new-stateful-udf-migration-itcase-flink2.0-hashmap-savepoint";
// The key pair the fixture's s3proxy checks signatures with (tests/format/s3/s3proxy_start.sh,
// as in tests/format/s3/e2e/s3_test_server.h).
constexpr char kS3GuiAccessKey[] = "AKIDCKPTS3TEST000001";
constexpr char kS3GuiSecretKey[] = "ckpt/s3+test/SECRETkey0000000000000000";

std::string s3GuiReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Operators (name, id) and their states, in the tree's order: what the Details tree shows,
// without the file rows (whose paths differ between the copies by construction).
QStringList s3GuiTreeOutline(const DetailTreeModel& m, const QModelIndex& parent = {}) {
  QStringList out;
  for (int r = 0; r < m.rowCount(parent); ++r) {
    const QModelIndex i = m.index(r, 0, parent);
    const int kind = i.data(kNodeKindRole).toInt();
    if (kind == DetailTreeModel::kOperator) {
      out << QStringLiteral("operator %1 %2").arg(i.data().toString(), i.data(kOperatorIdRole).toString());
    } else if (kind == DetailTreeModel::kState) {
      out << QStringLiteral("  state %1").arg(i.data().toString());
    }
    if (kind != DetailTreeModel::kFile) out << s3GuiTreeOutline(m, i);
  }
  return out;
}

// Every row of the state browser's current state, each cell's text joined.
QStringList s3GuiStateRows(StateTableModel& m) {
  QStringList rows;
  if (!fetchAll(m)) return {QStringLiteral("<not all rows were read>")};
  for (int r = 0; r < m.rowCount(); ++r) {
    QStringList cells;
    for (int c = 0; c < m.columnCount(); ++c) {
      if (c == m.sourceColumn()) continue;  // names the file, whose location differs
      cells << cell(m, r, c).toString();
    }
    rows << cells.join(QLatin1Char('|'));
  }
  return rows;
}

// Every keyed state of the open snapshot as (operator id, state name), in the snapshot's order.
QList<QPair<QString, QString>> s3GuiKeyedStates(const MainWindow& w) {
  QList<QPair<QString, QString>> out;
  for (const ops::OperatorInfo& op : w.snapshot()->operators) {
    for (const ops::StateInfo& s : op.states) {
      if (s.keyed) out.append({qs(op.id_hex), qs(s.name)});
    }
  }
  return out;
}

// What a window shows of one snapshot: tree outline, every keyed state's entries (each row
// prefixed with "operator/state"), findings and verdict (with `location` written as <loc>, so the
// copies compare).
struct S3GuiView {
  QStringList outline;
  int operators = 0;
  QStringList entries;
  QStringList findings;
  QString verdict;
};

}  // namespace

class S3OpenTest : public QObject {
  Q_OBJECT

 private:
  std::unique_ptr<s3::S3Client> m_client;
  QString m_bucket;

  QString uri(const QString& rel) const { return QStringLiteral("s3://%1/%2").arg(m_bucket, rel); }

  // Uploads fixtures/<rel> under the same relative keys, so s3://<bucket>/<x> mirrors fixtures/<x>.
  bool upload(const std::string& rel) {
    const std::filesystem::path root = fixture(QString()).toStdString();
    for (const auto& entry : std::filesystem::recursive_directory_iterator(root / rel)) {
      if (!entry.is_regular_file()) continue;
      const std::string key = std::filesystem::relative(entry.path(), root).generic_string();
      const base::Status put = m_client->Put(m_bucket.toStdString(), key, s3GuiReadFile(entry.path().string()));
      if (!put.ok()) {
        qWarning("upload of %s failed: %s", key.c_str(), put.ToString().c_str());
        return false;
      }
    }
    return true;
  }

  // Opens `location` in `w` and reads what the window shows of it (validate included).
  static bool viewOf(TestWindow& w, const QString& location, S3GuiView& view) {
    if (!w.open(location)) {
      qWarning("%s did not open: %s", qPrintable(location), qPrintable(w.statusMessage()));
      return false;
    }
    view.outline = s3GuiTreeOutline(*w.detailModel());
    view.operators = static_cast<int>(w.snapshot()->operators.size());
    for (const auto& [op, state] : s3GuiKeyedStates(w)) {
      w.stateBrowser()->showState(op, state);
      for (const QString& row : s3GuiStateRows(*w.stateBrowser()->model())) {
        view.entries << op + QLatin1Char('/') + state + QLatin1Char(' ') + row;
      }
    }
    QSignalSpy done(&w, &MainWindow::validationFinished);
    w.validateSnapshot(false);
    if (!QTest::qWaitFor([&] { return !done.isEmpty() && !w.busy(); }, 60000)) return false;
    for (const ops::Finding& f : w.findingsModel()->findings()) {
      view.findings << qs(f.rule_id + " " + f.message).replace(location, QStringLiteral("<loc>"));
    }
    view.verdict = w.verdictText().replace(location, QStringLiteral("<loc>"));
    return true;
  }

  void compareSavepoint(const QString& rel) {
    S3GuiView local, remote;
    {
      TestWindow w(TestWindow::kHidden);
      QVERIFY(viewOf(w, QDir::cleanPath(fixture(rel)), local));
    }
    TestWindow w(TestWindow::kHidden);
    QVERIFY(viewOf(w, uri(rel), remote));
    QCOMPARE(w.currentPath(), uri(rel));
    QVERIFY(local.operators > 0);
    QVERIFY(!local.outline.isEmpty());
    QCOMPARE(remote.operators, local.operators);
    QCOMPARE(remote.outline, local.outline);
    QVERIFY(!local.entries.isEmpty());
    QCOMPARE(remote.entries, local.entries);
    QCOMPARE(remote.findings, local.findings);
    QVERIFY(!local.verdict.isEmpty());
    QCOMPARE(remote.verdict, local.verdict);
  }

 private Q_SLOTS:
  void initTestCase() {
    const std::string state = CKPT_S3PROXY_STATE;
    QString endpoint = QString::fromStdString(s3GuiReadFile(state + "/endpoint")).trimmed();
    QVERIFY2(!endpoint.isEmpty(),
             qPrintable(QStringLiteral("no local S3 server: %1/endpoint is missing; the s3proxy_server "
                                       "fixture (tests/format/s3/s3proxy_start.sh) failed or was not run")
                            .arg(QString::fromStdString(state))));
    // The inspector reads its S3 configuration from the environment, as ckpt-tool does.
    qputenv("AWS_ACCESS_KEY_ID", kS3GuiAccessKey);
    qputenv("AWS_SECRET_ACCESS_KEY", kS3GuiSecretKey);
    qputenv("AWS_ENDPOINT_URL", endpoint.toUtf8());
    qputenv("AWS_REGION", "us-east-1");
    qunsetenv("AWS_SESSION_TOKEN");
    qunsetenv("AWS_ENDPOINT_URL_S3");
    s3::RegisterS3Schemes();

    s3::S3Config config;
    config.endpoint = endpoint.toStdString();
    config.path_style = true;
    config.credentials = {kS3GuiAccessKey, kS3GuiSecretKey, ""};
    config.credentials_source = "the test fixture";
    auto client = s3::S3Client::Create(config);
    QVERIFY2(client.ok(), client.status().ToString().c_str());
    m_client = std::move(client).value();
    m_bucket = QStringLiteral("inspector-%1").arg(QCoreApplication::applicationPid());
    const base::Status created = m_client->CreateBucket(m_bucket.toStdString());
    QVERIFY2(created.ok(), created.ToString().c_str());
    QVERIFY(upload("engine-v1"));
    QVERIFY(upload(kS3GuiFlinkSavepoint));
  }

  void init() { initWindowTests(QStringLiteral("s3_open_test")); }

  void engineSavepointMatchesLocalCopy() { compareSavepoint(QString::fromLatin1(kS3GuiSavepoint)); }

  void flinkSavepointMatchesLocalCopy() { compareSavepoint(QString::fromLatin1(kS3GuiFlinkSavepoint)); }

  // A trailing '/' names the same snapshot (shown without it); its _metadata opens it too.
  void trailingSlashAndMetadataOpenTheSnapshot() {
    const QString location = uri(QString::fromLatin1(kS3GuiSavepoint));
    TestWindow w(TestWindow::kHidden);
    QVERIFY2(w.open(location + QStringLiteral("/")), qPrintable(w.statusMessage()));
    QCOMPARE(w.currentPath(), location);
    const size_t operators = w.snapshot()->operators.size();
    QVERIFY(operators > 0);
    TestWindow m(TestWindow::kHidden);
    QVERIFY2(m.open(location + QStringLiteral("/_metadata")), qPrintable(m.statusMessage()));
    QCOMPARE(m.snapshot()->operators.size(), operators);
  }

  // File > Open Location… takes a typed s3:// URI to the same open as File > Open….
  void openLocationDialogOpensAnS3Uri() {
    TestWindow w(TestWindow::kHidden);
    QAction* action = w.action(QStringLiteral("Open Location"));
    QVERIFY(action);
    const QString location = uri(QString::fromLatin1(kS3GuiSavepoint));
    bool typed = false;
    QTimer::singleShot(0, &w, [&] {
      auto* dialog = qobject_cast<QInputDialog*>(QApplication::activeModalWidget());
      if (dialog == nullptr) dialog = w.findChild<QInputDialog*>(QStringLiteral("openLocationDialog"));
      if (dialog == nullptr) return;
      dialog->setTextValue(QStringLiteral("  ") + location + QStringLiteral("  "));
      typed = true;
      dialog->accept();
    });
    QSignalSpy loaded(&w, &MainWindow::snapshotLoaded);
    action->trigger();
    QVERIFY(typed);
    // The store is read in the background: the menu action returned before anything loaded.
    QVERIFY(loaded.isEmpty());
    QVERIFY(QTest::qWaitFor([&] { return !loaded.isEmpty() && !w.busy(); }, 60000));
    QCOMPARE(loaded.front().front().toString(), location);
    QVERIFY(w.snapshot());
    QVERIFY(w.detailModel()->rowCount() > 0);
    QVERIFY(QApplication::activeModalWidget() == nullptr);
  }

  // A checkpoint root on S3 lists the same jobs and snapshots, shows the same newest complete
  // checkpoint, and fills the History page with the same rows.
  void checkpointRootMatchesLocalCopy() {
    const QString rel = QString::fromLatin1(kS3GuiRoot);
    auto openRoot = [](TestWindow& w, const QString& location) {
      QSignalSpy root(&w, &MainWindow::rootLoaded);
      QSignalSpy history(&w, &MainWindow::historyLoaded);
      QSignalSpy loaded(&w, &MainWindow::snapshotLoaded);
      w.openPath(location);
      return QTest::qWaitFor(
          [&] { return !root.isEmpty() && !history.isEmpty() && !loaded.isEmpty() && !w.busy(); }, 60000);
    };
    TestWindow local(TestWindow::kHidden);
    QVERIFY(openRoot(local, QDir::cleanPath(fixture(rel))));
    TestWindow remote(TestWindow::kHidden);
    QVERIFY2(openRoot(remote, uri(rel)), qPrintable(remote.statusMessage()));
    QCOMPARE(remote.rootPath(), uri(rel));
    SnapshotListModel* a = local.snapshotListModel();
    SnapshotListModel* b = remote.snapshotListModel();
    QVERIFY(a->rowCount() > 0);
    QCOMPARE(b->rowCount(), a->rowCount());
    for (int j = 0; j < a->rowCount(); ++j) {
      const QModelIndex ja = a->index(j, 0), jb = b->index(j, 0);
      QCOMPARE(jb.data().toString(), ja.data().toString());
      QVERIFY(a->rowCount(ja) > 1);  // several chk-N
      QCOMPARE(b->rowCount(jb), a->rowCount(ja));
      for (int s = 0; s < a->rowCount(ja); ++s) {
        for (int c = 0; c < SnapshotListModel::kColumnCount; ++c) {
          QCOMPARE(b->index(s, c, jb).data().toString(), a->index(s, c, ja).data().toString());
        }
      }
    }
    QCOMPARE(remote.snapshot()->checkpoint_id, local.snapshot()->checkpoint_id);
    QCOMPARE(s3GuiTreeOutline(*remote.detailModel()), s3GuiTreeOutline(*local.detailModel()));
    QAbstractItemModel* ha = local.historyPage()->table()->model();
    QAbstractItemModel* hb = remote.historyPage()->table()->model();
    QVERIFY(ha->rowCount() > 1);
    QCOMPARE(hb->rowCount(), ha->rowCount());
    for (int r = 0; r < ha->rowCount(); ++r) {
      for (int c = 0; c < ha->columnCount(); ++c) {
        QCOMPARE(hb->index(r, c).data().toString(), ha->index(r, c).data().toString());
      }
    }
    QCOMPARE(remote.historyPage()->overviewText(), local.historyPage()->overviewText());
  }

  // Opens `location`, which must fail, in a shown window and returns the Summary page's text:
  // "Cannot open <location>" in the title, the status line and on the page, with the error under
  // it and the listing's outcome; nothing modal is left open and nothing keeps running.
  static QString cannotOpenText(const QString& location) {
    TestWindow w;
    QSignalSpy failed(&w, &MainWindow::openFailed);
    QSignalSpy shown(&w, &MainWindow::cannotOpenShown);
    w.openPath(location);
    if (!QTest::qWaitFor([&] { return !failed.isEmpty() && !shown.isEmpty() && !w.busy(); }, 60000)) {
      return QStringLiteral("<no failure reported for %1>").arg(location);
    }
    const QString cannot = QStringLiteral("Cannot open %1").arg(location);
    if (!w.showingCannotOpen() || w.snapshot() || !w.statusMessage().contains(cannot) ||
        !w.windowTitle().contains(cannot) || QApplication::activeModalWidget() != nullptr || !w.isVisible()) {
      return QStringLiteral("<not shown as unopenable: status '%1', title '%2'>").arg(w.statusMessage(), w.windowTitle());
    }
    // The diagnosis that follows (what lies at the location) finished: its outcome replaced the
    // page's "listing…".
    if (w.summaryText().contains(QStringLiteral("listing…"))) return QStringLiteral("<still listing>");
    return w.summaryText();
  }

  // A key under which nothing lies in an existing bucket: NotFound naming the bucket and key.
  void missingKeyNamesBucketAndKey() {
    const QString location = uri(QStringLiteral("no-such/savepoint-1"));
    const QString text = cannotOpenText(location);
    QVERIFY2(text.startsWith(QStringLiteral("Cannot open %1\n").arg(location)), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("NotFound: %1: no such object or prefix").arg(location)), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("cannot be listed: NotFound")), qPrintable(text));
  }

  // A bucket that does not exist: the error names it.
  void wrongBucketNamesTheBucket() {
    const QString bucket = m_bucket + QStringLiteral("-absent");
    const QString location = QStringLiteral("s3://%1/%2").arg(bucket, QString::fromLatin1(kS3GuiSavepoint));
    const QString text = cannotOpenText(location);
    QVERIFY2(text.startsWith(QStringLiteral("Cannot open %1\n").arg(location)), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("NotFound: S3 GET s3://%1/: HTTP 404 NoSuchBucket").arg(bucket)), qPrintable(text));
  }

  // Objects of a snapshot without its _metadata: an empty root, "No snapshot in <location>".
  void prefixWithoutMetadataIsNoSnapshot() {
    const QString location = uri(QStringLiteral("no-metadata/savepoint-1"));
    const std::filesystem::path dir = fixture(QString::fromLatin1(kS3GuiSavepoint)).toStdString();
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
      if (entry.path().filename() == "_metadata") continue;
      const std::string key = "no-metadata/savepoint-1/" + entry.path().filename().string();
      QVERIFY(m_client->Put(m_bucket.toStdString(), key, s3GuiReadFile(entry.path().string())).ok());
    }
    TestWindow w;
    QSignalSpy root(&w, &MainWindow::rootLoaded);
    QSignalSpy failed(&w, &MainWindow::openFailed);
    w.openPath(location);
    QVERIFY(QTest::qWaitFor([&] { return (!root.isEmpty() || !failed.isEmpty()) && !w.busy(); }, 60000));
    QVERIFY(failed.isEmpty());
    QVERIFY(!w.snapshot());
    QCOMPARE(w.snapshotListModel()->rowCount(), 0);
    QVERIFY2(w.statusMessage().contains(QStringLiteral("%1: 0 jobs").arg(location)), qPrintable(w.statusMessage()));
    QVERIFY2(w.summaryText().startsWith(QStringLiteral("No snapshot in %1\n").arg(location)), qPrintable(w.summaryText()));
  }

  // Without credentials anywhere (environment, Flink configuration, ~/.aws) the command line
  // names what is missing and exits 2, as for any location that does not open.
  void withoutCredentialsSaysSo() {
    QTemporaryDir home;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    for (const char* name : {"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE",
                             "AWS_SHARED_CREDENTIALS_FILE", "AWS_CONFIG_FILE", "FLINK_CONF_DIR"}) {
      env.remove(QString::fromLatin1(name));
    }
    env.insert(QStringLiteral("HOME"), home.path());
    QTemporaryDir shots;
    QProcess p;
    p.setProcessEnvironment(env);
    p.setProcessChannelMode(QProcess::MergedChannels);
    const QString location = uri(QString::fromLatin1(kS3GuiSavepoint));
    p.start(QStringLiteral(CKPT_INSPECTOR_EXE), {location, QStringLiteral("--screenshot"), shots.path()});
    QVERIFY(p.waitForStarted(30000));
    QVERIFY2(p.waitForFinished(120000), "ckpt-inspector did not finish");
    const QString out = QString::fromUtf8(p.readAll());
    QVERIFY2(p.exitStatus() == QProcess::NormalExit && p.exitCode() == 2, qPrintable(out));
    QVERIFY2(out.contains(QStringLiteral("cannot open %1: ").arg(location)), qPrintable(out));
    QVERIFY2(out.contains(QStringLiteral("no S3 credentials")), qPrintable(out));
  }

  // `ckpt-inspector s3://bucket/key --screenshot DIR` opens the location given on the command line
  // (exit 0 only when it opened and every view was rendered).
  void commandLineOpensAnS3Uri() {
    QTemporaryDir shots;
    QProcess p;
    p.setProcessChannelMode(QProcess::MergedChannels);
    p.start(QStringLiteral(CKPT_INSPECTOR_EXE),
            {uri(QString::fromLatin1(kS3GuiSavepoint)), QStringLiteral("--screenshot"), shots.path(),
             QStringLiteral("--size"), QStringLiteral("1024x700")});
    QVERIFY(p.waitForStarted(30000));
    QVERIFY2(p.waitForFinished(240000), "ckpt-inspector did not finish");
    QVERIFY2(p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0, p.readAll().constData());
    QVERIFY(!QDir(shots.path()).entryList({QStringLiteral("*.png")}).isEmpty());
  }
};

QTEST_MAIN(S3OpenTest)
#include "s3_open_test.moc"
