# Sourced by the PostgreSQL benchmark scripts: start_cluster WORKDIR PORT starts a throwaway PostgreSQL cluster in
# WORKDIR/cluster (initdb and the server as the `postgres` user, trust for `stepsync` on 127.0.0.1) from $PGB, and
# stop_cluster stops and removes it. Sets C (the cluster's folder).
start_cluster() {
  C="$1/cluster"; rm -rf "$C"; mkdir -p "$C"; chmod 755 "$1"; chown postgres "$C"
  runuser -u postgres -- "$PGB/initdb" -D "$C/data" -A trust -U stepsync >/dev/null
  runuser -u postgres -- "$PGB/pg_ctl" -D "$C/data" -l "$C/log" -w \
    -o "-p $2 -c listen_addresses=127.0.0.1 -c unix_socket_directories=$C" start >/dev/null
}
stop_cluster() { runuser -u postgres -- "$PGB/pg_ctl" -D "$C/data" -m fast -w stop >/dev/null; rm -rf "$C"; }
