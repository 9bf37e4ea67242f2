#!/usr/bin/env bash
# The verbs of ckpt::ops talk to the metadata formats only through the SnapshotFormat seam
# (ops/src/formats/snapshot_format.h): fails, naming file:line, if any source under ops/src
# outside ops/src/formats/ asks whether a snapshot is an Apache Flink one (IsFlinkMetadataFile,
# FlinkMetadataOf), includes ckpt::flink or formats/flink/ headers, or names ckpt::flink.
set -euo pipefail
root="${1:?usage: ops_format_seam_test.sh SOURCE_DIR}"
src="$root/ops/src"
[[ -d "$src/formats" ]] || { echo "no $src/formats" >&2; exit 2; }
pattern='IsFlinkMetadataFile|FlinkMetadataOf|#include[[:space:]]*[<"](ckpt/flink/|formats/flink/)|flink::'
status=0
count=0
while IFS= read -r -d '' file; do
  count=$((count + 1))
  rel="${file#"$root"/}"
  while IFS= read -r hit; do
    echo "FAIL: $rel:$hit" >&2
    status=1
  done < <(grep -nE "$pattern" "$file" || true)
done < <(find "$src" -path "$src/formats" -prune -o -type f \( -name '*.h' -o -name '*.cpp' \) -print0)
[[ $count -gt 0 ]] || { echo "FAIL: no sources found under $src outside formats/" >&2; exit 1; }
[[ $status -eq 0 ]] && echo "ok: $count ops sources outside formats/ reach the formats only through SnapshotFormat"
exit $status
