#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/kd.h>
#include <linux/major.h>
#include <linux/vt.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "base/log.h"
#include "display/vt.h"

/* tty minors 1..MAX_NR_CONSOLES are VTs; 64 and up are serial ports. */
#define VT_MINOR_LAST 63

struct vt {
	int tty_fd;
	int signal_fd;
	int number;
	int release_signal;
	int acquire_signal;
	bool active;
	sigset_t blocked;   /* what we blocked, to unblock on restore */
	struct vt_handler handler;
};

static int vt_number_of(int fd)
{
	struct stat st;
	struct vt_stat vs;
	int minor_nr;

	if (!isatty(fd) || fstat(fd, &st) < 0 || !S_ISCHR(st.st_mode))
		return 0;
	if (major(st.st_rdev) != TTY_MAJOR)
		return 0;
	minor_nr = (int)minor(st.st_rdev);
	if (minor_nr < 1 || minor_nr > VT_MINOR_LAST)
		return 0;
	/* A VT answers VT_GETSTATE; anything else does not. */
	if (ioctl(fd, VT_GETSTATE, &vs) < 0)
		return 0;
	return minor_nr;
}

int vt_setup(const struct vt_handler *handler, struct vt **out)
{
	struct vt *vt;
	struct vt_mode mode = { 0 };
	struct vt_stat vs;
	int number, ret;

	*out = NULL;
	number = vt_number_of(STDIN_FILENO);
	if (number == 0) {
		log_debug("standard input is not a VT: no console switching");
		return 0;
	}

	vt = calloc(1, sizeof(*vt));
	if (!vt)
		return -ENOMEM;
	vt->signal_fd = -1;
	vt->number = number;
	vt->handler = *handler;
	/* Real-time signals, like weston: SIGUSR1/2 stay free for the service. */
	vt->release_signal = SIGRTMIN;
	vt->acquire_signal = SIGRTMIN + 1;

	vt->tty_fd = fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 3);
	if (vt->tty_fd < 0) {
		ret = -errno;
		goto err_free;
	}

	sigemptyset(&vt->blocked);
	sigaddset(&vt->blocked, vt->release_signal);
	sigaddset(&vt->blocked, vt->acquire_signal);
	ret = -pthread_sigmask(SIG_BLOCK, &vt->blocked, NULL);
	if (ret < 0)
		goto err_close;
	vt->signal_fd = signalfd(-1, &vt->blocked, SFD_CLOEXEC | SFD_NONBLOCK);
	if (vt->signal_fd < 0) {
		ret = -errno;
		log_error("signalfd for VT switching: %s", strerror(errno));
		goto err_unblock;
	}

	if (ioctl(vt->tty_fd, VT_GETSTATE, &vs) < 0) {
		ret = -errno;
		goto err_signal;
	}
	vt->active = vs.v_active == number;

	if (ioctl(vt->tty_fd, KDSETMODE, KD_GRAPHICS) < 0) {
		ret = -errno;
		log_error("cannot set tty%d to graphics mode (KDSETMODE): %s%s", number,
			  strerror(errno),
			  errno == EPERM ? " (the VT must be the controlling tty, or run as root)"
					 : "");
		goto err_signal;
	}

	mode.mode = VT_PROCESS;
	mode.relsig = (short)vt->release_signal;
	mode.acqsig = (short)vt->acquire_signal;
	if (ioctl(vt->tty_fd, VT_SETMODE, &mode) < 0) {
		ret = -errno;
		log_error("cannot take over VT switching on tty%d (VT_SETMODE): %s", number,
			  strerror(errno));
		goto err_text;
	}

	log_debug("running on tty%d (%s)", number, vt->active ? "active" : "in the background");
	*out = vt;
	return 0;

err_text:
	ioctl(vt->tty_fd, KDSETMODE, KD_TEXT);
err_signal:
	close(vt->signal_fd);
err_unblock:
	pthread_sigmask(SIG_UNBLOCK, &vt->blocked, NULL);
err_close:
	close(vt->tty_fd);
err_free:
	free(vt);
	return ret;
}

void vt_restore(struct vt *vt)
{
	struct vt_mode mode = { .mode = VT_AUTO };

	if (!vt)
		return;
	if (ioctl(vt->tty_fd, VT_SETMODE, &mode) < 0)
		log_warn("tty%d: VT_SETMODE VT_AUTO: %s", vt->number, strerror(errno));
	if (ioctl(vt->tty_fd, KDSETMODE, KD_TEXT) < 0)
		log_warn("tty%d: KDSETMODE KD_TEXT: %s", vt->number, strerror(errno));
	close(vt->signal_fd);
	close(vt->tty_fd);
	/* A switch signal still pending would kill us once unblocked: drop it. */
	signal(vt->release_signal, SIG_IGN);
	signal(vt->acquire_signal, SIG_IGN);
	pthread_sigmask(SIG_UNBLOCK, &vt->blocked, NULL);
	free(vt);
}

/* Home, clear the screen, clear the scrollback: no water's last words
 * left on the console. */
#define VT_CLEAR "\033[H\033[2J\033[3J"

int vt_give_back(const char *path)
{
	struct vt_mode mode = { .mode = VT_AUTO };
	int fd, number, ret = 0;

	/* Not our controlling terminal: the kiosk's session has ended. */
	fd = open(path, O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		log_error("console '%s': %s", path, strerror(errno));
		return ret;
	}
	number = vt_number_of(fd);
	if (number == 0) {
		log_error("console '%s' is not a virtual terminal (/dev/ttyN)", path);
		close(fd);
		return -ENOTTY;
	}
	if (ioctl(fd, VT_SETMODE, &mode) < 0) {
		ret = -errno;
		log_error("tty%d: VT_SETMODE VT_AUTO: %s", number, strerror(errno));
	}
	if (ioctl(fd, KDSETMODE, KD_TEXT) < 0) {
		ret = -errno;
		log_error("tty%d: KDSETMODE KD_TEXT: %s", number, strerror(errno));
	}
	if (write(fd, VT_CLEAR, sizeof(VT_CLEAR) - 1) < 0 && ret == 0) {
		ret = -errno;
		log_error("tty%d: clearing the screen: %s", number, strerror(errno));
	}
	close(fd);
	return ret;
}

int vt_get_fd(const struct vt *vt)
{
	return vt ? vt->signal_fd : -1;
}

bool vt_active(const struct vt *vt)
{
	return vt ? vt->active : true;
}

int vt_dispatch(struct vt *vt)
{
	struct signalfd_siginfo si;
	ssize_t n;
	int ret = 0;

	if (!vt)
		return 0;
	for (;;) {
		n = read(vt->signal_fd, &si, sizeof(si));
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN)
				break;
			return -errno;
		}
		if (n != sizeof(si))
			break;

		if ((int)si.ssi_signo == vt->release_signal) {
			if (!vt->active)
				continue;
			log_info("tty%d: switching away, giving up the display", vt->number);
			vt->handler.release(vt->handler.data);
			vt->active = false;
			if (ioctl(vt->tty_fd, VT_RELDISP, 1) < 0)
				log_warn("tty%d: VT_RELDISP: %s", vt->number, strerror(errno));
		} else if ((int)si.ssi_signo == vt->acquire_signal) {
			if (ioctl(vt->tty_fd, VT_RELDISP, VT_ACKACQ) < 0)
				log_warn("tty%d: VT_RELDISP VT_ACKACQ: %s", vt->number,
					 strerror(errno));
			if (vt->active)
				continue;
			log_info("tty%d: switched back, taking the display again", vt->number);
			vt->active = true;
			ret = vt->handler.acquire(vt->handler.data);
			if (ret < 0)
				return ret;
		}
	}
	return ret;
}
