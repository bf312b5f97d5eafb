#!/usr/bin/env bash
# Sets up a Raspberry Pi OS (Debian bookworm) machine as a croupier table:
# packages, the croupier user, the program in a venv under /opt/croupier, the
# table's config in /etc/croupier (written once, never replaced), the local
# mosquitto with its accounts and ACL, the systemd units, and starts them.
#
# Safe to run again (after an upgrade of the source tree, say): every file is
# compared before it is written, existing config and passwords are kept, and
# a running table is not restarted behind the dealer's back.
#
# Usage: sudo systemd/install.sh --table ID [options]     (see --help)
set -euo pipefail

usage() {
  cat <<'EOF'
usage: install.sh --table ID [--rules PROFILE] [--gpio auto|rpi-gpio|rpi-lgpio]
                  [--no-start] [--root DIR] [--dry-run]

  --table ID     the table's id (letters, digits, '-', '_'; it becomes a topic
                 level). Needed the first time; afterwards read from
                 /etc/croupier/table.toml.
  --rules NAME   the rule profile for a new table.toml (default be-casino)
  --gpio WHICH   the RPi.GPIO implementation: rpi-lgpio (on /dev/gpiochip*) or
                 rpi-gpio (RPi.GPIO itself, the `pi` extra). auto (default):
                 rpi-lgpio on a Raspberry Pi 5 and on any kernel from 6.6 on,
                 where RPi.GPIO's edge detection no longer works.
  --no-start     enable the units but do not start them
  --root DIR     write every file under DIR instead of /, and print (do not
                 run) the commands that change the live system: apt-get,
                 useradd, pip, systemctl, chown. For tests and images.
  --dry-run      change nothing: print what would be written and run
EOF
}

# ---------------------------------------------------------------- arguments
src="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
table="" rules="be-casino" gpio="auto" start=yes root="" dry=no
while [ $# -gt 0 ]; do
  case "$1" in
    --table) table="${2:?--table needs an id}"; shift 2 ;;
    --rules) rules="${2:?--rules needs a profile}"; shift 2 ;;
    --gpio) gpio="${2:?--gpio needs auto, rpi-gpio or rpi-lgpio}"; shift 2 ;;
    --no-start) start=no; shift ;;
    --root) root="${2:?--root needs a directory}"; shift 2 ;;
    --dry-run) dry=yes; shift ;;
    -h|--help) usage; exit 0 ;;
    *) echo "install.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done

say() { echo "install: $*"; }
die() { echo "install.sh: $*" >&2; exit 1; }

if [ -n "$root" ]; then
  root="$(cd "$root" 2>/dev/null && pwd)" || die "--root $root: no such directory"
fi
live=no  # live: act on this machine; otherwise files under --root only
[ "$dry" = no ] && [ -z "$root" ] && live=yes
if [ "$live" = yes ] && [ "$(id -u)" -ne 0 ]; then
  die "run as root (sudo), or try --dry-run"
fi

TABLE_RE='^[A-Za-z0-9_-]{1,32}$'
VENV=/opt/croupier/venv
SHARE=/opt/croupier/share
CONFIG=/etc/croupier/table.toml
BROKER_DIR=/etc/mosquitto/croupier
UNIT_DIR=/etc/systemd/system

for f in systemd/croupier.service systemd/croupier-retry.service systemd/croupier-retry.timer \
         systemd/croupier.service.d/rpi-gpio-sysfs.conf systemd/table.toml.in \
         systemd/croupier-broker systemd/mosquitto/10-croupier.conf \
         systemd/mosquitto/20-croupier-floor.conf systemd/mosquitto/roles.acl \
         systemd/mosquitto/mosquitto.service.d/croupier.conf \
         docs/deploy.md pyproject.toml; do
  [ -f "$src/$f" ] || die "$src/$f is missing: run install.sh from a complete croupier source tree"
done

# ---------------------------------------------------------------- helpers
# A command that changes the live system: run it, or only print it.
run() {
  if [ "$live" = yes ]; then
    "$@"
  else
    say "would run: $*"
  fi
}

# Ownership: set on the live system; under --root only printed (the users and
# groups are the target's, not this machine's), and only when not root's.
own() {
  [ "$1" = root:root ] && [ "$live" = no ] && return 0
  run chown "$1" "$root$2"
}

changed=no  # set by put/remove when they changed something
broker_unit_changed=no

# put MODE OWNER PATH: install standard input as PATH (under --root), only
# when its content or mode differs. OWNER is user:group (set on the live system).
put() {
  local mode="$1" owner="$2" path="$3" dest="$root$3" tmp
  changed=no
  tmp="$(mktemp)"
  cat >"$tmp"
  if [ -f "$dest" ] && cmp -s "$tmp" "$dest" && [ "$(stat -c %a "$dest")" = "${mode#0}" ] \
     && { [ "$live" = no ] || [ "$(stat -c %U:%G "$dest")" = "$owner" ]; }; then
    rm -f "$tmp"
    say "unchanged $path"
    return 0
  fi
  if [ "$dry" = yes ]; then
    rm -f "$tmp"
    say "would write $path ($mode $owner)"
    changed=yes
    return 0
  fi
  mkdir -p "$(dirname "$dest")"
  local verb=updated
  [ -e "$dest" ] || verb=wrote
  install -m "$mode" "$tmp" "$dest"
  rm -f "$tmp"
  say "$verb $path"
  own "$owner" "$path"
  changed=yes
}

# A directory with its mode and owner.
directory() {
  local mode="$1" owner="$2" path="$3"
  if [ "$dry" = yes ]; then
    [ -d "$root$path" ] || say "would create $path ($mode $owner)"
    return 0
  fi
  if [ ! -d "$root$path" ]; then
    say "created $path"
  fi
  install -d -m "$mode" "$root$path"
  own "$owner" "$path"
}

remove() {
  changed=no
  [ -e "$root$1" ] || return 0
  if [ "$dry" = yes ]; then say "would remove $1"; else rm -f "$root$1"; say "removed $1"; fi
  changed=yes
}

# A value from an existing table.toml (Python's own TOML reader; bookworm has 3.11).
toml_get() {
  python3 - "$root$CONFIG" "$1" "$2" <<'PY'
import sys, tomllib
path, section, key = sys.argv[1:]
with open(path, "rb") as f:
    print(tomllib.load(f).get(section, {}).get(key, ""))
PY
}

new_password() { head -c 18 /dev/urandom | base64 | tr '+/' '-_'; }

# The installed croupier-broker on the installed roles (what an admin runs
# later), its messages prefixed like ours.
broker_tool() {
  bash "$root/usr/local/sbin/croupier-broker" --dir "$root$BROKER_DIR" \
    --roles "$root$SHARE/roles.acl" --no-reload "$@" 2>&1 | sed 's/^/install: /'
}

# A checksum of files, missing ones counting as empty.
fingerprint() { local f; for f in "$@"; do if [ -f "$f" ]; then cat "$f"; fi; done | sha256sum; }

# ---------------------------------------------------------------- the table's id
if [ -f "$root$CONFIG" ]; then
  have="$(toml_get table id)" || die "$CONFIG is not valid TOML: fix it or move it away"
  if [ -n "$table" ] && [ "$table" != "$have" ]; then
    die "$CONFIG is table '$have', not '$table': edit it (or move it away) and run again"
  fi
  table="$have"
  say "table $table (from $CONFIG, which is kept as it is)"
else
  [ -n "$table" ] || die "--table ID is needed for a first install (no $CONFIG yet)"
  say "table $table (new)"
fi
[[ "$table" =~ $TABLE_RE ]] || die "'$table' is not a table id (1 to 32 letters, digits, '-', '_')"
[[ "$rules" =~ ^[A-Za-z0-9_-]+$ ]] || die "'$rules' is not a rule profile name (croupier rules lists them)"

# ---------------------------------------------------------------- which GPIO library
model_file="/proc/device-tree/model"
[ -n "$root" ] && [ -f "$root$model_file" ] && model_file="$root$model_file"
model="unknown machine"
[ -r "$model_file" ] && model="$(tr -d '\0' <"$model_file")"
kernel="$(uname -r)"
case "$gpio" in
  auto)
    if [[ "$model" == *"Raspberry Pi 5"* ]]; then
      gpio=rpi-lgpio; why="a Raspberry Pi 5: RPi.GPIO cannot drive its GPIO"
    elif printf '6.6\n%s\n' "${kernel%%-*}" | sort -C -V; then
      gpio=rpi-lgpio; why="kernel $kernel: RPi.GPIO's edge detection fails from 6.6 on"
    else
      gpio=rpi-gpio; why="kernel $kernel on $model"
    fi ;;
  rpi-gpio|rpi-lgpio) why="chosen with --gpio" ;;
  *) die "--gpio must be auto, rpi-gpio or rpi-lgpio" ;;
esac
say "GPIO library: $gpio ($why)"

# ---------------------------------------------------------------- packages
packages=(python3 python3-venv mosquitto mosquitto-clients)
[ "$gpio" = rpi-gpio ] && packages+=(python3-dev gcc)  # RPi.GPIO builds from source
optional=(python3-picamera2)                             # Raspberry Pi OS: the CSI camera
[ "$gpio" = rpi-lgpio ] && optional+=(python3-lgpio)      # rpi-lgpio's library, if packaged
if [ "$live" = yes ]; then
  for p in "${optional[@]}"; do
    if apt-cache show "$p" >/dev/null 2>&1; then packages+=("$p")
    else say "no package $p here: skipped"; fi
  done
else
  packages+=("${optional[@]}")
fi
run apt-get update
run apt-get install -y --no-install-recommends "${packages[@]}"
if [ "$live" = no ] && ! command -v mosquitto_passwd >/dev/null; then
  die "mosquitto_passwd is needed to write the broker's password file (apt-get install mosquitto)"
fi

# ---------------------------------------------------------------- user and groups
for g in gpio video dialout; do
  if [ "$live" = no ]; then
    say "would run: groupadd --system $g (if there is no group $g)"
  elif ! getent group "$g" >/dev/null; then
    groupadd --system "$g"; say "created group $g"
  fi
done
if [ "$live" = no ]; then
  say "would run: useradd --system --user-group --home-dir /var/lib/croupier --no-create-home" \
      "--shell /usr/sbin/nologin --groups gpio,video,dialout croupier (if missing)"
elif ! getent passwd croupier >/dev/null; then
  useradd --system --user-group --home-dir /var/lib/croupier --no-create-home \
    --shell /usr/sbin/nologin --comment "croupier table controller" \
    --groups gpio,video,dialout croupier
  say "created user croupier"
else
  usermod -a -G gpio,video,dialout croupier
fi

# ---------------------------------------------------------------- the program
directory 0755 root:root /opt/croupier
directory 0755 root:root "$SHARE"
if [ "$live" = yes ] && [ ! -x "$VENV/bin/python" ]; then
  # System site packages: Picamera2 and libcamera come from the OS, not PyPI.
  python3 -m venv --system-site-packages "$VENV"
  say "created $VENV"
elif [ "$live" = no ]; then
  say "would run: python3 -m venv --system-site-packages $VENV (if missing)"
fi
if [ "$gpio" = rpi-lgpio ]; then
  # The two provide the same `RPi.GPIO` import and cannot be installed together.
  run "$VENV/bin/pip" uninstall --yes --quiet RPi.GPIO
  run "$VENV/bin/pip" install --upgrade --quiet "$src" rpi-lgpio
else
  run "$VENV/bin/pip" uninstall --yes --quiet rpi-lgpio
  run "$VENV/bin/pip" install --upgrade --quiet "${src}[pi]"
fi
put 0644 root:root "$SHARE/deploy.md" <"$src/docs/deploy.md"
put 0644 root:root "$SHARE/roles.acl" <"$src/systemd/mosquitto/roles.acl"
put 0644 root:root "$SHARE/table.toml.in" <"$src/systemd/table.toml.in"
put 0755 root:root /usr/local/sbin/croupier-broker <"$src/systemd/croupier-broker"

# ---------------------------------------------------------------- the table's config
directory 0750 root:croupier /etc/croupier
password=""
if [ -f "$root$CONFIG" ]; then
  say "unchanged $CONFIG (never replaced: edit it by hand)"
  password="$(toml_get mqtt password)"
  [ "$(toml_get mqtt username)" = "table-$table" ] \
    || say "warning: $CONFIG does not log in as table-$table: its broker account is not managed here"
else
  password="$(new_password)"
  # Filled in with shell built-ins: the password never appears on a command line.
  text="$(<"$src/systemd/table.toml.in")"
  text="${text//@TABLE@/$table}"
  text="${text//@RULES@/$rules}"
  text="${text//@PASSWORD@/$password}"
  printf '%s\n' "$text" | put 0640 root:croupier "$CONFIG"
fi

# ---------------------------------------------------------------- the broker
directory 0750 root:mosquitto "$BROKER_DIR"
directory 0750 root:mosquitto "$BROKER_DIR/certs"
put 0644 root:root /etc/mosquitto/conf.d/10-croupier.conf <"$src/systemd/mosquitto/10-croupier.conf"
broker_conf_changed="$changed"
put 0644 root:root "$UNIT_DIR/mosquitto.service.d/croupier.conf" \
  <"$src/systemd/mosquitto/mosquitto.service.d/croupier.conf"
[ "$changed" = yes ] && broker_unit_changed=yes
certs=yes
for c in ca.crt broker.crt broker.key; do [ -f "$root$BROKER_DIR/certs/$c" ] || certs=no; done
if [ "$certs" = yes ]; then
  put 0644 root:root /etc/mosquitto/conf.d/20-croupier-floor.conf \
    <"$src/systemd/mosquitto/20-croupier-floor.conf"
else
  say "no certificates in $BROKER_DIR/certs (ca.crt, broker.crt, broker.key):" \
      "the floor listeners (TLS 8883, WebSockets 9443) stay off; the table uses the local one." \
      "Add them and run install.sh again (docs/deploy.md)."
  remove /etc/mosquitto/conf.d/20-croupier-floor.conf
fi
[ "$changed" = yes ] && broker_conf_changed=yes

accounts_before="$(fingerprint "$root$BROKER_DIR/passwd" "$root$BROKER_DIR/acl")"
if [ "$dry" = yes ]; then
  say "would add the broker account table-$table (if missing) and write $BROKER_DIR/acl"
elif [ -n "$password" ]; then
  if [ -f "$root$BROKER_DIR/roster" ] \
     && awk -v n="table-$table" '$1 == n { f = 1 } END { exit !f }' "$root$BROKER_DIR/roster"; then
    say "unchanged broker account table-$table"
  else
    printf '%s\n' "$password" | broker_tool add table "table-$table" "$table"
  fi
  broker_tool acl  # roles.acl may be newer than the acl
else
  say "warning: $CONFIG has no [mqtt] password: no broker account made for the table"
fi
accounts_changed=no
[ "$accounts_before" = "$(fingerprint "$root$BROKER_DIR/passwd" "$root$BROKER_DIR/acl")" ] \
  || accounts_changed=yes

# ---------------------------------------------------------------- units
units_changed="$broker_unit_changed"
for u in croupier.service croupier-retry.service croupier-retry.timer; do
  put 0644 root:root "$UNIT_DIR/$u" <"$src/systemd/$u"
  [ "$changed" = yes ] && units_changed=yes
done
dropin="$UNIT_DIR/croupier.service.d/rpi-gpio-sysfs.conf"
if [ "$gpio" = rpi-gpio ]; then
  put 0644 root:root "$dropin" <"$src/systemd/croupier.service.d/rpi-gpio-sysfs.conf"
else
  remove "$dropin"
fi
[ "$changed" = yes ] && units_changed=yes
# Keep the journal (watchdog stack dumps, driver faults) across reboots.
put 0644 root:root /etc/systemd/journald.conf.d/croupier.conf <<'EOF'
# Installed by croupier's install.sh: a persistent, bounded system journal.
[Journal]
Storage=persistent
SystemMaxUse=200M
EOF
[ "$changed" = yes ] && run systemctl restart systemd-journald

# ---------------------------------------------------------------- start
[ "$units_changed" = yes ] && run systemctl daemon-reload
now=(--now)
[ "$start" = yes ] || now=()
run systemctl enable "${now[@]}" mosquitto.service
if [ "$broker_conf_changed" = yes ]; then
  run systemctl restart mosquitto.service
elif [ "$accounts_changed" = yes ]; then
  run systemctl reload mosquitto.service
fi
was_active=no
[ "$live" = yes ] && systemctl --quiet is-active croupier.service && was_active=yes
run systemctl enable "${now[@]}" croupier.service croupier-retry.timer
if [ "$was_active" = yes ]; then
  say "croupier was already running and keeps running the version it started with;" \
      "restart it at a quiet moment: systemctl restart croupier (the round resumes from the journal)"
fi
say "done. Status: systemctl status croupier; log: journalctl -u croupier -f"
