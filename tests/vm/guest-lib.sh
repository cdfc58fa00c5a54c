# Shell helpers inside the test VM (busybox sh).  Installed as /rk/lib.sh,
# sourced by /init, by the command server and by every guest script.
#
#   rk_start [-i] NAME CMD [ARG...]  run CMD in the background; output to
#                                    /tmp/rk-NAME.log; -i gives it a stdin that
#                                    stays open (a fifo: rk_send writes to it)
#   rk_send NAME TEXT                write TEXT and a newline to NAME's stdin
#   rk_running NAME                  true while NAME has not exited
#   rk_wait NAME [TIMEOUT_S]         wait for exit; prints "RK-RC NAME <rc>";
#                                    returns its exit code, 124 on timeout
#   rk_stop NAME [SIG] [TIMEOUT_S]   send SIG (TERM), wait; prints
#                                    "RK-STOP NAME rc=<rc> ms=<ms>" where ms is
#                                    the time from the signal to the exit
#   rk_log NAME                      print NAME's output
#   rk_wait_path PATH [TIMEOUT_S]    wait until PATH exists
#   rk_uptime_ms                     milliseconds since boot
#
# Exit codes are those of sh: 128+N for a death by signal N.

rk_uptime_ms() {
	local u
	read -r u _ < /proc/uptime
	# "12.34" -> 12340
	echo $(( ${u%%.*} * 1000 + 1${u#*.} * 10 - 1000 ))
}

rk_start() {
	local fifo=
	if [ "$1" = -i ]; then
		fifo=1
		shift
	fi
	local name=$1
	shift
	rm -f /tmp/rk-$name.pid /tmp/rk-$name.rc /tmp/rk-$name.in
	if [ -n "$fifo" ]; then
		mkfifo /tmp/rk-$name.in
		# Holds the write end open so the program never sees EOF.
		sleep 2147483647 > /tmp/rk-$name.in 3>&- &
		echo $! > /tmp/rk-$name.holder
	fi
	(
		if [ -n "$fifo" ]; then
			"$@" < /tmp/rk-$name.in > /tmp/rk-$name.log 2>&1 3>&- &
		else
			"$@" < /dev/null > /tmp/rk-$name.log 2>&1 3>&- &
		fi
		echo $! > /tmp/rk-$name.pid
		wait $!
		echo $? > /tmp/rk-$name.rc.new
		mv /tmp/rk-$name.rc.new /tmp/rk-$name.rc
	) 3>&- > /dev/null 2>&1 &
	while [ ! -s /tmp/rk-$name.pid ]; do
		usleep 10000
	done
	echo "RK-STARTED $name $(cat /tmp/rk-$name.pid)"
}

rk_send() {
	echo "$2" > /tmp/rk-$1.in
}

rk_running() {
	[ -s /tmp/rk-$1.pid ] && [ ! -e /tmp/rk-$1.rc ]
}

rk_wait() {
	local name=$1 timeout=${2:-30} waited=0 rc
	while [ ! -e /tmp/rk-$name.rc ]; do
		if [ $waited -ge $(( timeout * 100 )) ]; then
			echo "RK-RC $name timeout"
			return 124
		fi
		usleep 10000
		waited=$(( waited + 1 ))
	done
	rc=$(cat /tmp/rk-$name.rc)
	if [ -s /tmp/rk-$name.holder ]; then
		kill $(cat /tmp/rk-$name.holder) 2>/dev/null
		rm -f /tmp/rk-$name.holder
	fi
	echo "RK-RC $name $rc"
	return $rc
}

rk_stop() {
	local name=$1 sig=${2:-TERM} timeout=${3:-10} t0 rc
	t0=$(rk_uptime_ms)
	kill -$sig $(cat /tmp/rk-$name.pid)
	rk_wait $name $timeout > /dev/null
	rc=$?
	echo "RK-STOP $name rc=$rc ms=$(( $(rk_uptime_ms) - t0 ))"
	return $rc
}

rk_log() {
	cat /tmp/rk-$1.log
}

rk_wait_path() {
	local waited=0 timeout=${2:-10}
	while [ ! -e "$1" ]; do
		[ $waited -ge $(( timeout * 100 )) ] && return 1
		usleep 10000
		waited=$(( waited + 1 ))
	done
	return 0
}

# Command server on a serial port: reads "SEQ BASE64" lines, runs the
# decoded shell text in a subshell with stdout/stderr to the port, then
# writes "RK-CMD-END SEQ RC".  Started by /init when /dev/ttyS1 exists.
rk_serve() {
	local port=$1 seq b64 rc cmd
	exec 3<> "$port"
	# Set while it is open: a virtio console (arm64's virt board) resets
	# its settings on the last close, and takes no speed.
	stty raw -echo 115200 <&3 2>/dev/null || stty raw -echo <&3 2>/dev/null
	echo "RK-CMD-READY" >&3
	while IFS=' ' read -r seq b64 <&3; do
		[ -n "$seq" ] || continue
		# The text itself, not a file: under systemd a file in /tmp
		# could not be read back once in a while (a /tmp being mounted
		# or still read-only when the first command came).
		cmd=$(echo "$b64" | base64 -d 2>/dev/null)
		( eval "$cmd" ) < /dev/null >&3 2>&3 3>&-
		rc=$?
		echo "RK-CMD-END $seq $rc" >&3
	done
}
