# Sourced by scripts/run, scripts/test and scripts/bench: makes .venv on first
# use and reinstalls the project whenever pyproject.toml changes.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="$root/.venv"
py="${PYTHON:-}"
if [ -z "$py" ]; then
  for candidate in python3.11 python3.12 python3.13 python3; do
    if command -v "$candidate" >/dev/null 2>&1 &&
       "$candidate" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
      py="$candidate"; break
    fi
  done
fi
if [ -z "$py" ]; then
  echo "croupier needs Python 3.11 or newer (none found on PATH)" >&2
  exit 1
fi
if [ ! -x "$venv/bin/python" ]; then
  echo "creating $venv with $py" >&2
  "$py" -m venv "$venv"
fi
stamp="$venv/.installed"
if [ ! -f "$stamp" ] || [ "$root/pyproject.toml" -nt "$stamp" ]; then
  echo "installing croupier and its test tools into $venv" >&2
  "$venv/bin/python" -m pip install --quiet --upgrade pip
  "$venv/bin/python" -m pip install --quiet -e "$root[dev]"
  touch "$stamp"
fi
export PATH="$venv/bin:$PATH"
cd "$root"
