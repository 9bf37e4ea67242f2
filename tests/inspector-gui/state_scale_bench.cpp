// state_scale_bench [KEYS [DIR]]: the inspector's timings on a large savepoint (issue 15's
// acceptance: a 20 M-key savepoint in Release): open -> Summary shown, go to the last row of the
// state browser, and a key-prefix filter over every key, each next to the plain ops call it is
// built on, measured in the same run (ops::LoadSnapshot; ops::Dump of the last key group; ops::Dump
// of the whole state). The savepoint is written by gen_state_savepoint (ckpt::format only) into
// DIR (default: a temporary directory) unless DIR already holds one. A benchmark, not a test: it
// prints numbers and asserts nothing about time. Runs offscreen.
#include <QApplication>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QProcess>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <cstdio>
#include <cstdlib>

#include "app/main_window.h"
#include "app/state_browser.h"
#include "ckpt/ops/dump.h"
#include "ckpt/ops/snapshot.h"
#include "models/location.h"
#include "models/state_table_model.h"

using ckpt::inspector::MainWindow;
using ckpt::inspector::StateTableModel;

namespace {

double ms(const QElapsedTimer& t) { return static_cast<double>(t.nsecsElapsed()) / 1e6; }

// ops::Dump of the big state (one key group, or all), counting entries: the baseline.
double dumpMs(ckpt::base::Fs& fs, const ckpt::ops::Snapshot& s, std::optional<uint32_t> key_group, uint64_t* entries) {
  ckpt::ops::DumpOptions o;
  o.operator_ref = "big-state";
  o.state = "count";
  o.key_group = key_group;
  QElapsedTimer t;
  t.start();
  uint64_t n = 0;
  auto r = ckpt::ops::Dump(fs, s, o, [&](const ckpt::ops::DumpEntry&) {
    ++n;
    return ckpt::base::Status::OK();
  });
  if (!r.ok()) std::fprintf(stderr, "state_scale_bench: dump: %s\n", r.status().ToString().c_str());
  *entries = n;
  return ms(t);
}

}  // namespace

int main(int argc, char** argv) {
  qputenv("QT_QPA_PLATFORM", "offscreen");
  QApplication app(argc, argv);
  const long keys = argc > 1 ? std::atol(argv[1]) : 20000000;
  QTemporaryDir tmp;
  const QString dir = argc > 2 ? QString::fromLocal8Bit(argv[2]) : tmp.path() + QStringLiteral("/big");
  if (!QFileInfo::exists(dir + QStringLiteral("/_metadata"))) {
    QElapsedTimer g;
    g.start();
    QProcess gen;
    gen.start(QStringLiteral(CKPT_GEN_STATE_SAVEPOINT), {dir, QString::number(keys), QStringLiteral("4")});
    if (!gen.waitForFinished(-1) || gen.exitCode() != 0) {
      std::fprintf(stderr, "state_scale_bench: generator failed: %s\n", gen.readAllStandardError().constData());
      return 1;
    }
    std::printf("generated %ld keys in %.1f s\n", keys, ms(g) / 1000);
  }

  // The filesystem the inspector itself resolves `dir` to.
  const ckpt::inspector::OpenedLocation where = ckpt::inspector::resolveLocation(dir);
  if (!where.ok()) {
    std::fprintf(stderr, "state_scale_bench: %s\n", qPrintable(where.error));
    return 1;
  }
  QElapsedTimer t;
  t.start();
  auto snap = ckpt::ops::LoadSnapshot(*where.fs, where.path.toStdString());
  const double load_ms = ms(t);
  if (!snap.ok()) {
    std::fprintf(stderr, "state_scale_bench: %s\n", snap.status().ToString().c_str());
    return 1;
  }

  MainWindow w;
  w.resize(1280, 800);
  w.show();
  QSignalSpy loaded(&w, &MainWindow::snapshotLoaded);
  t.restart();
  w.openPath(dir);
  if (!QTest::qWaitFor([&] { return !loaded.isEmpty(); }, 600000)) return 1;
  QApplication::processEvents();  // the Summary page is painted
  const double open_ms = ms(t);
  (void)QTest::qWaitFor([&] { return !w.busy(); }, 600000);  // background stats

  // Go to the last row: the total comes from the section index; only the last page is read.
  w.showPage(MainWindow::kStatePage);
  ckpt::inspector::StateBrowser* browser = w.stateBrowser();
  StateTableModel* m = browser->model();
  t.restart();
  browser->showState(QString::fromStdString((*snap->FindOperator("big-state"))->id_hex), QStringLiteral("count"));
  const int rows = m->rowCount();
  const int last = rows - 1;
  if (!browser->goToRow(last)) return 1;
  if (!QTest::qWaitFor([&] { return m->isLoaded(last) || !m->lastError().isEmpty(); }, 600000)) return 1;
  QApplication::processEvents();
  const double goto_ms = ms(t);
  const uint32_t last_group = static_cast<uint32_t>(m->index(last, StateTableModel::kKeyGroup).data().toInt());
  uint64_t group_entries = 0;
  const double group_dump_ms = dumpMs(*where.fs, *snap, last_group, &group_entries);

  // A prefix filter over every key (each key group is read and decoded once).
  t.restart();
  browser->applyFilter(QStringLiteral("1999999"), -1, StateTableModel::KeyMatch::kPrefix);
  for (int guard = 0; m->canFetchMore({}) && guard < 1000000; ++guard) {
    m->fetchMore({});
    if (!QTest::qWaitFor([&] { return !m->counting(); }, 600000)) return 1;
  }
  QApplication::processEvents();
  const double filter_ms = ms(t);
  const int matched = m->rowCount();
  uint64_t all_entries = 0;
  const double full_dump_ms = dumpMs(*where.fs, *snap, std::nullopt, &all_entries);

  std::printf("keys %ld, rows shown %d, files %zu, metadata %llu bytes\n", keys, rows, snap->files.size(),
              static_cast<unsigned long long>(snap->metadata_size_bytes));
  std::printf("open -> Summary shown: %.1f ms (ops::LoadSnapshot alone %.1f ms, ratio %.2f)\n", open_ms, load_ms,
              open_ms / std::max(0.001, load_ms));
  std::printf("go to last row %d: %.1f ms (ops::Dump of its key group %u, %llu entries: %.1f ms, ratio %.2f)\n", last + 1,
              goto_ms, last_group, static_cast<unsigned long long>(group_entries), group_dump_ms,
              goto_ms / std::max(0.001, group_dump_ms));
  std::printf("prefix filter '1999999' over all keys: %.1f ms, %d rows (ops::Dump of all %llu entries: %.1f ms, ratio %.2f)\n",
              filter_ms, matched, static_cast<unsigned long long>(all_entries), full_dump_ms,
              filter_ms / std::max(0.001, full_dump_ms));
  return 0;
}
