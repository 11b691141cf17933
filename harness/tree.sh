#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Prepares the kernel source trees.
#
#  build/src/linux-source-6.12   the pristine base, extracted once, never edited
#  build/tree-upstream           a plain copy of it (stock 6.12)
#  build/tree-ours               a copy of it with this series laid over:
#                                our whole files, then patches/*.patch, then
#                                the paths listed in patches/REMOVED deleted
#  build/tree-next               ours + the next/ layer: the replacement that
#                                grows behind this switch (IMPL=next) until it
#                                passes the suites and moves to the top level
#  build/$IMPL                   link to tree-$IMPL/_build, the O= folder
#
# The overlay is incremental: the wanted content of every file the series
# touches is assembled in a staging folder, and only files whose content
# differs are written into the work tree, so kbuild rebuilds just what
# changed.  Files the series no longer touches are put back from the base
# (with a fresh mtime, so their objects rebuild too).
. "$(dirname "$0")/common.sh"

tarball=/usr/src/linux-source-6.12.tar.xz
if [ ! -f "$SRC/Makefile" ]; then
	[ -f "$tarball" ] || die "$tarball missing (apt-get install linux-source-6.12)"
	say "extracting $tarball (once)"
	rm -rf "$SRC.tmp" && mkdir -p "$SRC.tmp"
	tar -xJf "$tarball" -C "$SRC.tmp"
	mv "$SRC.tmp/linux-source-6.12" "$SRC" && rmdir "$SRC.tmp"
fi
say "base: Linux $(make -s -C "$SRC" kernelversion) (Debian linux-source-6.12), IMPL=$IMPL"

tree=$KSRC
if [ ! -f "$tree/Makefile" ]; then
	say "copying base to ${tree#"$REPO"/} (once)"
	rm -rf "$tree.tmp" && cp -a "$SRC" "$tree.tmp" && mv "$tree.tmp" "$tree"
	rm -f "$tree.manifest"
fi
mkdir -p "$KOBJ"
ln -sfn "tree-$IMPL/_build" "$BUILD/$IMPL"
[ "$IMPL" = upstream ] && exit 0

# Layers of the series, later ones winning: the top level, then next/.
layers=("$REPO")
[ "$IMPL" = next ] && [ -d "$REPO/next" ] && layers+=("$REPO/next")

stage=$tree.stage
manifest=$tree.manifest	# lines "O path" (overlaid) or "R path" (removed)
touch "$manifest"

# 1. our whole files
rm -rf "$stage" && mkdir -p "$stage"
for layer in "${layers[@]}"; do
	cd "$layer"
	overlay_dirs=()
	for d in kernel arch include samples Documentation tools; do
		[ -d "$d" ] && overlay_dirs+=("$d")
	done
	[ ${#overlay_dirs[@]} -gt 0 ] || continue
	find "${overlay_dirs[@]}" -type f \
		! -name '*.o' ! -name '*.ko' ! -name '.*.cmd' ! -name '*.mod' \
		! -name '*.mod.c' ! -name '*.order' ! -name 'Module.symvers' \
		-print0 | cpio -0 -pdmu --quiet "$stage"
done
cd "$REPO"

# 2. our small diffs to upstream files, applied over the base version
shopt -s nullglob
patches=()
for layer in "${layers[@]}"; do patches+=("$layer"/patches/*.patch); done
for p in "${patches[@]}"; do
	sed -n 's|^+++ b/\([^[:space:]]*\).*|\1|p' "$p" | while read -r f; do
		[ -e "$stage/$f" ] && continue
		[ -e "$SRC/$f" ] || continue	# a new file created by the patch
		mkdir -p "$stage/$(dirname "$f")" && cp "$SRC/$f" "$stage/$f"
	done
done
for p in "${patches[@]}"; do
	patch -p1 -s -f --no-backup-if-mismatch -d "$stage" < "$p" ||
		die "patch $(basename "$p") does not apply to the base"
done

# 3. write what differs into the work tree
newman=$(mktemp)
(cd "$stage" && find . -type f | sed 's|^\./||' | sort) | while read -r f; do
	echo "O $f" >> "$newman"
	if ! cmp -s "$stage/$f" "$tree/$f"; then
		mkdir -p "$tree/$(dirname "$f")"
		cp "$stage/$f" "$tree/$f"	# fresh mtime: kbuild sees the change
		echo "  overlay $f"
	fi
done
removed=()
for layer in "${layers[@]}"; do
	[ -f "$layer/patches/REMOVED" ] &&
		mapfile -t -O ${#removed[@]} removed < <(grep -v '^\s*\(#\|$\)' "$layer/patches/REMOVED")
done
for f in "${removed[@]}"; do
	echo "R $f" >> "$newman"
	[ -e "$SRC/$f" ] || die "patches/REMOVED names $f, which the base does not have"
	if [ -e "$tree/$f" ]; then rm -f "$tree/$f"; echo "  remove  $f"; fi
done

# 4. what the series touched last time and no longer does goes back to base
sort -u "$newman" -o "$newman"
while read -r kind f; do
	grep -qxF "O $f" "$newman" && continue
	grep -qxF "R $f" "$newman" && continue
	if [ -e "$SRC/$f" ]; then
		cp "$SRC/$f" "$tree/$f"; echo "  restore $f"
	else
		rm -f "$tree/$f"; echo "  drop    $f"
		# and the folders it leaves empty, which the base does not have
		d=$(dirname "$f")
		while [ "$d" != . ] && [ ! -e "$SRC/$d" ] && rmdir "$tree/$d" 2>/dev/null; do
			d=$(dirname "$d")
		done
	fi
done < "$manifest"
mv "$newman" "$manifest"

# 5. the series replaces upstream's kprobes: none of its implementation
#    files may survive in our tree (patches/MUST_REPLACE lists them once the
#    replacement lands; each must be removed or overlaid by our own file).
for layer in "${layers[@]}"; do
	[ -f "$layer/patches/MUST_REPLACE" ] || continue
	grep -v '^\s*\(#\|$\)' "$layer/patches/MUST_REPLACE" | while read -r f; do
		if [ -e "$tree/$f" ] && cmp -s "$tree/$f" "$SRC/$f"; then
			die "upstream kprobes file survives unchanged in our tree: $f"
		fi
	done
done
exit 0
