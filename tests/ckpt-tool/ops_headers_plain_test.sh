#!/usr/bin/env bash
# ops public headers expose plain types only (ARCHITECTURE §2): fails if any header under
# ops/include includes Qt, protobuf, RocksDB or CLI11, directly or through a format header
# that does (ckpt/format/proto.h and everything that includes it).
set -euo pipefail
root="${1:?usage: ops_headers_plain_test.sh SOURCE_DIR}"
include="$root/ops/include"
[[ -d "$include" ]] || { echo "no $include" >&2; exit 2; }
# format headers that pull protobuf in (transitively).
tainted=$(grep -rlE '#include\s*[<"](google/protobuf|ckpt/format/proto\.h)' "$root/format/include" \
          | sed "s|$root/format/include/||" || true)
status=0
while IFS= read -r -d '' header; do
  rel="${header#"$root"/}"
  if grep -nE '#include\s*[<"](Q[A-Za-z]+|Qt[A-Za-z]*/|google/protobuf|rocksdb/|CLI/)' "$header"; then
    echo "FAIL: $rel includes a Qt, protobuf, RocksDB or CLI11 header" >&2
    status=1
  fi
  for t in $tainted; do
    if grep -qE "#include\s*\"$t\"" "$header"; then
      echo "FAIL: $rel includes $t, which includes protobuf" >&2
      status=1
    fi
  done
done < <(find "$include" -name '*.h' -print0)
count=$(find "$include" -name '*.h' | wc -l)
[[ $count -gt 0 ]] || { echo "FAIL: no headers found under $include" >&2; exit 1; }
[[ $status -eq 0 ]] && echo "ok: $count ops public headers are free of Qt, protobuf, RocksDB and CLI11"
exit $status
