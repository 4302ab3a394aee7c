#!/usr/bin/env bash
# Starts a private Docker daemon and builds a tiny sandbox image from the host's own binaries, so
# the DockerExecutor tests run for real without a registry. Sourced by .ci/run; exports
# NESTCLAW_TEST_DOCKER=1 and NESTCLAW_TEST_DOCKER_SOCKET when it worked.

docker_sandbox_start() {
  local dir=/tmp/nestclaw-ci-docker
  local sock="$dir/docker.sock"
  command -v dockerd >/dev/null 2>&1 || { echo "ci: no dockerd: Docker executor tests will be SKIPPED"; return 1; }
  mkdir -p "$dir"
  if [ ! -S "$sock" ] || ! docker -H "unix://$sock" info >/dev/null 2>&1; then
    dockerd --host "unix://$sock" --data-root "$dir/data" --exec-root "$dir/exec" --pidfile "$dir/docker.pid" \
      --bridge=none --iptables=false --ip6tables=false >"$dir/dockerd.log" 2>&1 &
    for _ in $(seq 1 50); do docker -H "unix://$sock" info >/dev/null 2>&1 && break; sleep 0.2; done
  fi
  if ! docker -H "unix://$sock" info >/dev/null 2>&1; then
    echo "ci: dockerd did not start (see $dir/dockerd.log): Docker executor tests will be SKIPPED"
    return 1
  fi
  # A rootfs with just the programs the tests and the file tools use, plus their shared libraries.
  local root="$dir/rootfs"
  rm -rf "$root" && mkdir -p "$root"/{tmp,workspace,etc,proc,dev}
  local bins=(sh dash bash cat head tail find mkdir dirname dd sleep id echo nohup touch ls rm true wc grep)
  for b in "${bins[@]}"; do
    local p
    p=$(type -P "$b") || continue
    p=$(readlink -f "$p")
    mkdir -p "$root/usr/bin" && cp -L "$p" "$root/usr/bin/$b"
    for lib in $(ldd "$p" 2>/dev/null | grep -o '/[^ ]*'); do
      mkdir -p "$root$(dirname "$lib")" && cp -L "$lib" "$root$lib"
    done
  done
  ln -s usr/bin "$root/bin"
  [ -d "$root/lib64" ] || ln -s usr/lib64 "$root/lib64" 2>/dev/null || true
  [ -d "$root/lib" ] || ln -s usr/lib "$root/lib" 2>/dev/null || true
  echo 'nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin' >"$root/etc/passwd"
  tar -C "$root" -c . | docker -H "unix://$sock" import - nestclaw-sandbox-test >/dev/null || {
    echo "ci: docker import failed: Docker executor tests will be SKIPPED"
    return 1
  }
  export NESTCLAW_TEST_DOCKER=1 NESTCLAW_TEST_DOCKER_SOCKET="$sock"
  echo "ci: private Docker daemon at $sock with image nestclaw-sandbox-test: Docker executor tests will RUN"
}

docker_sandbox_stop() {
  local pidfile=/tmp/nestclaw-ci-docker/docker.pid
  [ -f "$pidfile" ] && kill "$(cat "$pidfile")" 2>/dev/null || true
}
