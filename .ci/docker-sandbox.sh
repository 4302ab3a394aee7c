#!/usr/bin/env bash
# Starts a private Docker daemon and builds a tiny sandbox image from the host's own binaries, so
# the DockerExecutor tests run for real without a registry. Sourced by .ci/run; exports
# NESTCLAW_TEST_DOCKER=1 and NESTCLAW_TEST_DOCKER_SOCKET when it worked, and
# NESTCLAW_TEST_DOCKER_DEFAULT_IMAGE when the documented default image (debian:bookworm-slim) is
# there too: pulled when a registry answers, else built with debootstrap from the Debian mirror.

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
  local bins=(sh dash bash cat head tail find mkdir dirname dd sleep id echo nohup touch ls rm true wc grep tr env setsid kill)
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
  docker_default_image "$sock" || true
}

# The image tools.docker.image names by default: the escape suite runs against it as well.
docker_default_image() {
  local sock=$1 image=debian:bookworm-slim dir=/tmp/nestclaw-ci-docker/bookworm
  local d=(docker -H "unix://$sock")
  if ! "${d[@]}" image inspect "$image" >/dev/null 2>&1; then
    timeout 60 "${d[@]}" pull -q "$image" >/dev/null 2>&1 || {
      command -v debootstrap >/dev/null 2>&1 || apt_install debootstrap
      if ! command -v debootstrap >/dev/null 2>&1; then
        echo "ci: no registry and no debootstrap: the default image $image is NOT tested"
        return 1
      fi
      echo "ci: no registry answers: building $image with debootstrap --variant=minbase (about 40 s)"
      rm -rf "$dir"
      debootstrap --variant=minbase bookworm "$dir" http://deb.debian.org/debian >"$dir.log" 2>&1 &&
        tar -C "$dir" -c . | "${d[@]}" import - "$image" >/dev/null || {
        echo "ci: building $image failed (see $dir.log): the default image is NOT tested"
        return 1
      }
      rm -rf "$dir"
    }
  fi
  export NESTCLAW_TEST_DOCKER_DEFAULT_IMAGE="$image"
  echo "ci: the documented default image $image is present: the escape suite runs against it too"
}

docker_sandbox_stop() {
  local pidfile=/tmp/nestclaw-ci-docker/docker.pid
  [ -f "$pidfile" ] && kill "$(cat "$pidfile")" 2>/dev/null || true
}
