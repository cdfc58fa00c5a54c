#!/bin/sh
# The benchmark table of the README: every path at full HD on one thread,
# the seeds' loops and the memory floor beside them, then 4K on every thread.
set -eu
bench="${1:-./bench/ripple-bench}"
frames="${FRAMES:-100}"
cpus=$(nproc)
echo "# $(uname -m), $(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2- | sed 's/^ //'), $cpus CPUs"
$bench --size 1920x1080 --frames "$frames" --floor
$bench --size 1920x1080 --frames "$frames" --impl seed-o2
$bench --size 1920x1080 --frames "$frames" --impl seed-native
for impl in scalar sse2 avx2 neon; do
	$bench --size 1920x1080 --frames "$frames" --impl $impl --threads 1 2>/dev/null || true
done
$bench --size 1920x1080 --frames "$frames" --threads 1 --water calm
$bench --size 1920x1080 --frames "$frames" --threads 1 --format rgb565
$bench --size 960x540 --frames "$frames" --threads 1
$bench --size 3840x2160 --frames "$frames" --threads "$cpus"
$bench --size 3840x2160 --frames "$frames" --threads "$cpus" --water calm
