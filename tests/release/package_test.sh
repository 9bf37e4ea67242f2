#!/usr/bin/env bash
# Builds the Debian packages and tarballs (cpack), unpacks every .deb into a scratch root
# (dpkg-deb -x) and checks what a user would get:
#   - each installed binary's --version prints the project version, --help works (the
#     inspector's with no display: DISPLAY, WAYLAND_DISPLAY and QT_QPA_PLATFORM unset);
#   - `man -l` renders every installed man page, each with EXIT STATUS and EXAMPLES;
#   - desktop-file-validate and appstreamcli validate --no-net accept the desktop entry and the
#     metainfo; the MIME type is well-formed and claims _metadata;
#   - the completions are installed and shellcheck-clean (bash);
#   - the ckpt-tool package's Depends has no Qt library;
#   - lintian reports no error (warnings are printed);
#   - each TGZ holds the same binaries.
# Usage: package_test.sh BUILD_DIR SCRATCH_DIR VERSION
set -euo pipefail
build=$(readlink -f "$1")
scratch=$2
version=$3
rm -rf "$scratch"
mkdir -p "$scratch/out" "$scratch/root"
scratch=$(readlink -f "$scratch")
fail=0
bad() { echo "FAIL: $*" >&2; fail=1; }

echo "== cpack"
(cd "$scratch/out" && cpack --config "$build/CPackConfig.cmake" -B "$scratch/out" >"$scratch/cpack.log" 2>&1) ||
  { cat "$scratch/cpack.log" >&2; exit 1; }
mapfile -t debs < <(find "$scratch/out" -maxdepth 1 -name '*.deb' | sort)
mapfile -t tgzs < <(find "$scratch/out" -maxdepth 1 -name '*.tar.gz' | sort)
printf '  %s\n' "${debs[@]##*/}" "${tgzs[@]##*/}"
for pkg in ckpt-tool ckpt-engine ckpt-inspector; do
  ls "$scratch/out/${pkg}_${version}_"*.deb >/dev/null 2>&1 || bad "no ${pkg}_${version}_*.deb"
  ls "$scratch/out/"*"-${pkg}.tar.gz" >/dev/null 2>&1 || bad "no *-${pkg}.tar.gz"
done

echo "== Depends"
for deb in "${debs[@]}"; do
  depends=$(dpkg-deb -f "$deb" Depends)
  echo "  ${deb##*/}: $depends"
  [[ -n $depends ]] || bad "${deb##*/} has no Depends (dpkg-shlibdeps did not run?)"
done
tool_deb=$(ls "$scratch/out/ckpt-tool_${version}_"*.deb)
if dpkg-deb -f "$tool_deb" Depends | grep -qi 'qt'; then bad "ckpt-tool depends on Qt"; fi
insp_deb=$(ls "$scratch/out/ckpt-inspector_${version}_"*.deb)
dpkg-deb -f "$insp_deb" Depends | grep -q 'libqt6widgets6' || bad "ckpt-inspector does not depend on libqt6widgets6"

echo "== unpack"
for deb in "${debs[@]}"; do dpkg-deb -x "$deb" "$scratch/root"; done
root=$scratch/root
for b in ckpt-tool ckpt-engine ckpt-inspector; do
  [[ -x $root/usr/bin/$b ]] || bad "/usr/bin/$b not installed"
done

echo "== --version and --help"
run_nodisplay() { env -u DISPLAY -u WAYLAND_DISPLAY -u QT_QPA_PLATFORM "$@"; }
for b in ckpt-tool ckpt-engine ckpt-inspector; do
  out=$(run_nodisplay "$root/usr/bin/$b" --version 2>&1) || bad "$b --version exited $?: $out"
  [[ $out == "$b $version" ]] || bad "$b --version printed '$out', want '$b $version'"
  help=$(run_nodisplay "$root/usr/bin/$b" --help 2>&1) || bad "$b --help exited $?"
  grep -qi "usage" <<<"$help" || bad "$b --help printed no usage: $help"
  echo "  $b: $out"
done
out=$("$root/usr/bin/ckpt-tool" help validate) || bad "ckpt-tool help validate exited $?"
grep -q -- "--against" <<<"$out" || bad "ckpt-tool help validate does not show validate's help"

echo "== man pages"
mapfile -t pages < <(find "$root/usr/share/man/man1" -name '*.1.gz' | sort)
((${#pages[@]} >= 15)) || bad "only ${#pages[@]} man pages installed"
for b in ckpt-tool ckpt-engine ckpt-inspector ckpt-tool-validate ckpt-tool-help ckpt-engine-run; do
  [[ -f $root/usr/share/man/man1/$b.1.gz ]] || bad "no man page $b.1.gz"
done
for p in "${pages[@]}"; do
  text=$(MANWIDTH=80 LC_ALL=C.UTF-8 man -l "$p" 2>"$scratch/man.err") || bad "man -l ${p##*/} failed"
  if grep -q . "$scratch/man.err"; then bad "man -l ${p##*/} warned: $(cat "$scratch/man.err")"; fi
  for s in NAME SYNOPSIS DESCRIPTION "EXIT STATUS"; do
    grep -q "^$s" <<<"$text" || bad "${p##*/} has no $s section"
  done
  grep -q "^EXAMPLES" <<<"$text" || bad "${p##*/} has no EXAMPLES section"
done
echo "  ${#pages[@]} pages render"

echo "== desktop integration"
desktop=$root/usr/share/applications/org.ckpt.Inspector.desktop
metainfo=$root/usr/share/metainfo/org.ckpt.Inspector.metainfo.xml
desktop-file-validate "$desktop" || bad "desktop-file-validate failed"
grep -qx 'Exec=ckpt-inspector %f' "$desktop" || bad "desktop Exec is not 'ckpt-inspector %f'"
appstreamcli validate --no-net "$metainfo" || bad "appstreamcli validate failed"
[[ -f $root/usr/share/icons/hicolor/scalable/apps/ckpt-inspector.svg ]] || bad "no SVG icon"
mime=$root/usr/share/mime/packages/ckpt-inspector.xml
xmllint --noout "$mime" || bad "MIME XML malformed"
grep -q 'pattern="_metadata"' "$mime" || bad "MIME type does not claim _metadata"
grep -q 'application/x-ckpt-metadata' "$desktop" || bad "desktop entry does not open application/x-ckpt-metadata"

echo "== completions"
for f in bash-completion/completions/ckpt-tool zsh/vendor-completions/_ckpt-tool fish/vendor_completions.d/ckpt-tool.fish; do
  [[ -s $root/usr/share/$f ]] || bad "completion $f not installed"
done
shellcheck -s bash "$root/usr/share/bash-completion/completions/ckpt-tool" || bad "shellcheck: bash completion"

echo "== lintian"
for deb in "${debs[@]}"; do
  lintian --tag-display-limit 0 "$deb" >"$scratch/lintian.log" 2>&1 || true
  grep -v -e 'running with root privileges' "$scratch/lintian.log" | sed "s|^|  ${deb##*/}: |" || true
  if grep -q '^E:' "$scratch/lintian.log"; then bad "lintian errors in ${deb##*/}"; fi
done

echo "== tarballs"
for t in "${tgzs[@]}"; do
  listing=$(tar -tzf "$t")
  grep -q '/bin/ckpt-' <<<"$listing" || bad "${t##*/} holds no binary"
done

((fail == 0)) && echo "ok: packages build, install, run and validate"
exit "$fail"
