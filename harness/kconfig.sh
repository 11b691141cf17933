#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Generates $KOBJ/.config = tinyconfig + the fragments in $FRAGS, then checks
# that every symbol the fragments ask for stuck (the last fragment naming a
# symbol decides what it should be).  Regenerated only when a
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

# What each symbol should be: the last fragment that names it wins, so a
# later fragment (config/matrix/*.config) may turn off what an earlier one
# turned on.
declare -A want_line want_frag
order=()
for f in $FRAGS; do
	while read -r line; do
		case "$line" in
		CONFIG_*=*|"# CONFIG_"*" is not set") ;;
		*) continue ;;
		esac
		sym=$(echo "$line" | grep -o 'CONFIG_[A-Za-z0-9_]*' | head -1)
		[ -n "${want_line[$sym]+x}" ] || order+=("$sym")
		want_line[$sym]=$line want_frag[$sym]=$(basename "$f")
	done < "$f"
done
bad=0
for sym in "${order[@]}"; do
	line=${want_line[$sym]}
	case "$line" in
	CONFIG_*=*) grep -qxF "$line" "$KOBJ/.config" && continue ;;
	*) grep -q "^$sym=[ym]" "$KOBJ/.config" || continue ;;
	esac
	got=$(grep -E "^$sym=|^# $sym is not set" "$KOBJ/.config" || echo "$sym absent")
	echo "config: ${want_frag[$sym]} wants '$line', got '$got'" >&2
	bad=1
done
if [ $bad -ne 0 ]; then
	rm -f "$KOBJ/.config"
	die "required config symbols did not stick (see above)"
fi
echo "$want" > "$stamp"
