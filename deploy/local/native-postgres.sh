#!/usr/bin/env bash
# Native PostgreSQL 15 with pgvector, as a throwaway local cluster: the production database path for CI and the
# discovery benchmark (the embedded PGlite is the default everywhere else).
#
#   deploy/local/native-postgres.sh [DATA_DIR] [PORT]   install what is missing, start a cluster, print its URL
#   deploy/local/native-postgres.sh --stop [DATA_DIR]   stop that cluster (the data directory is kept)
#
# Defaults: DATA_DIR=/tmp/ioa-pg15, PORT=55432. Only the URL goes to stdout (everything else to stderr), so
# `DATABASE_URL=$(deploy/local/native-postgres.sh /tmp/pg 55432)` works. Idempotent and non-interactive: a second
# run finds pgvector installed and the cluster running and just prints the URL again.
#
# pgvector: Debian bookworm ships 0.4, which lacks iterative index scans (0.8) that discovery's filtered searches
# use. So it is built from Debian trixie's source package (0.8.x) against the installed server. Needs root.
set -euo pipefail

PG_MAJOR=15
PG_BIN="/usr/lib/postgresql/${PG_MAJOR}/bin"
PG_CONFIG="${PG_BIN}/pg_config"

log() { echo "[native-postgres] $*" >&2; }

if [[ "${1:-}" == "--stop" ]]; then
  DATA_DIR="${2:-/tmp/ioa-pg15}"
  if [[ -f "${DATA_DIR}/postmaster.pid" ]]; then
    runuser -u postgres -- "${PG_BIN}/pg_ctl" -D "${DATA_DIR}" -m fast -w stop >&2
  else
    log "no cluster running in ${DATA_DIR}"
  fi
  exit 0
fi

DATA_DIR="${1:-/tmp/ioa-pg15}"
PORT="${2:-55432}"

if [[ "$(id -u)" != "0" ]]; then
  log "must run as root (it installs packages and runs the server as the postgres user)"
  exit 1
fi

export DEBIAN_FRONTEND=noninteractive
# Wait for another apt/dpkg (a parallel job) instead of failing on its lock.
APT=(apt-get -y -q -o DPkg::Lock::Timeout=600)
apt_updated=0
apt_update() {
  if [[ "${apt_updated}" == "0" ]]; then
    "${APT[@]}" update >&2
    apt_updated=1
  fi
}

# --- the server ---------------------------------------------------------------------------------------------------
if [[ ! -x "${PG_BIN}/postgres" ]]; then
  log "installing postgresql-${PG_MAJOR}"
  apt_update
  "${APT[@]}" install --no-install-recommends "postgresql-${PG_MAJOR}" >&2
fi

# --- pgvector -----------------------------------------------------------------------------------------------------
extension_dir() { "${PG_CONFIG}" --sharedir 2>/dev/null | sed 's|$|/extension|'; }

installed_vector_version() {
  local control
  control="$(extension_dir)/vector.control"
  [[ -f "${control}" ]] && sed -n "s/^default_version = '\(.*\)'/\1/p" "${control}"
}

needs_vector_build() {
  local version
  version="$(installed_vector_version || true)"
  [[ -z "${version}" ]] && return 0
  # Require 0.8+ (iterative index scans).
  local major minor
  major="${version%%.*}"
  minor="${version#*.}"
  minor="${minor%%.*}"
  (( major == 0 && minor < 8 ))
}

if needs_vector_build; then
  log "building pgvector for PostgreSQL ${PG_MAJOR} from Debian trixie's source package"
  apt_update
  "${APT[@]}" install --no-install-recommends "postgresql-server-dev-${PG_MAJOR}" build-essential dpkg-dev >&2
  SOURCES=/etc/apt/sources.list.d/ioa-trixie-src.sources
  if [[ ! -f "${SOURCES}" ]]; then
    # Source packages only (Types: deb-src): nothing from trixie can be installed as a binary by this.
    cat >"${SOURCES}" <<'EOF'
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: trixie
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
    apt_updated=0
  fi
  apt_update
  BUILD_DIR="$(mktemp -d /tmp/ioa-pgvector-build.XXXXXX)"
  trap 'rm -rf "${BUILD_DIR}"' EXIT
  (
    cd "${BUILD_DIR}"
    # As root apt warns that the download is unsandboxed; harmless for a source package.
    apt-get -q source pgvector >&2
    cd pgvector-*/
    make -s PG_CONFIG="${PG_CONFIG}" >&2
    make -s PG_CONFIG="${PG_CONFIG}" install >&2
  )
  log "pgvector $(installed_vector_version) installed"
fi

# --- the cluster --------------------------------------------------------------------------------------------------
mkdir -p "${DATA_DIR}"
chown postgres:postgres "${DATA_DIR}"
chmod 700 "${DATA_DIR}"
if [[ ! -f "${DATA_DIR}/PG_VERSION" ]]; then
  log "initialising a cluster in ${DATA_DIR}"
  # Trust authentication: a throwaway local cluster, listening on 127.0.0.1 only.
  runuser -u postgres -- "${PG_BIN}/initdb" -D "${DATA_DIR}" -U postgres -A trust -E UTF8 --locale=C.UTF-8 >&2
  cat >>"${DATA_DIR}/postgresql.conf" <<EOF

# ioa: throwaway cluster for tests and benchmarks
listen_addresses = '127.0.0.1'
unix_socket_directories = '${DATA_DIR}'
max_connections = 400
shared_buffers = 1GB
maintenance_work_mem = 1GB
work_mem = 32MB
max_parallel_maintenance_workers = 2
EOF
fi

if runuser -u postgres -- "${PG_BIN}/pg_ctl" -D "${DATA_DIR}" status >/dev/null 2>&1; then
  log "already running in ${DATA_DIR}"
else
  log "starting on 127.0.0.1:${PORT}"
  runuser -u postgres -- "${PG_BIN}/pg_ctl" -D "${DATA_DIR}" -o "-p ${PORT}" -l "${DATA_DIR}/server.log" -w -t 60 \
    start >&2
fi

RUNNING_PORT="$(sed -n 4p "${DATA_DIR}/postmaster.pid")"
"${PG_BIN}/psql" -h 127.0.0.1 -p "${RUNNING_PORT}" -U postgres -d postgres -v ON_ERROR_STOP=1 -qAt \
  -c 'SET client_min_messages = warning' -c 'CREATE EXTENSION IF NOT EXISTS vector' -c 'SELECT 1' >/dev/null
echo "postgres://postgres@127.0.0.1:${RUNNING_PORT}/postgres"
