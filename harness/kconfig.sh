#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Generates $KOBJ/.config = tinyconfig + the fragments in $FRAGS, then checks
# that every symbol the fragments ask for stuck.  Regenerated only when a
# fragment changed, so an unchanged config costs nothing.
. "$(dirname "$0")/common.sh"

mkdir -p "$KOBJ"
stamp=$KOBJ/.config.frags
want=$(for f in $FRAGS; do echo "$f $(md5sum < "$f")"; done)
if [ -f "$KOBJ/.config" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$want" ]; then
	exit 0
fi
say "configuring $KOBJ: tinyconfig + $(for f in $FRAGS; do basename "$f"; done | xargs)"
kmake tinyconfig >/dev/null
# shellcheck disable=SC2086
"$KSRC/scripts/kconfig/merge_config.sh" -m -O "$KOBJ" "$KOBJ/.config" $FRAGS >/dev/null
kmake olddefconfig

bad=0
for f in $FRAGS; do
	while read -r line; do
		case "$line" in
		CONFIG_*=*) grep -qxF "$line" "$KOBJ/.config" && continue ;;
		"# CONFIG_"*" is not set")
			sym=${line#\# }; sym=${sym%% *}
			grep -q "^$sym=[ym]" "$KOBJ/.config" || continue ;;
		*) continue ;;
		esac
		sym=$(echo "$line" | grep -o 'CONFIG_[A-Za-z0-9_]*')
		got=$(grep -E "^$sym=|^# $sym is not set" "$KOBJ/.config" || echo "$sym absent")
		echo "config: $(basename "$f") wants '$line', got '$got'" >&2
		bad=1
	done < "$f"
done
if [ $bad -ne 0 ]; then
	rm -f "$KOBJ/.config"
	die "required config symbols did not stick (see above)"
fi
echo "$want" > "$stamp"
