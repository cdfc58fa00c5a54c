/*
 * A V4L2 capture device through the kernel's own API (linux/videodev2.h,
 * the "Video for Linux API" of the kernel's userspace-api documentation),
 * every call through struct camera_v4l2_io so that tests can stand in for
 * the driver.
 *
 * Opening negotiates the format and mode (VIDIOC_ENUM_FMT,
 * VIDIOC_ENUM_FRAMESIZES, VIDIOC_ENUM_FRAMEINTERVALS; S_FMT and S_PARM, read
 * back with G_FMT and G_PARM), locks what a tracking camera must not
 * adjust by itself (exposure, gain, white balance; the mains frequency
 * against lamp flicker), and starts mmap streaming with every buffer
 * queued. Reading dequeues until the driver has no more (EAGAIN), keeps
 * the newest and gives the rest straight back; the newest is turned to
 * grey at the vision's size and given back too. A gone device (ENODEV,
 * or EIO: videobuf2 fails every call so once its queue is in error, as
 * drivers put it when unplugged) is -ENODEV; the caller says it. POLLERR
 * on the fd is for read() to judge: videobuf2 also gives it for a queue
 * that is merely not streaming yet, and there DQBUF tells the two apart.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/videodev2.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/log.h"
#include "camera/camera-source-private.h"

/* Buffers asked of the driver: enough that one is always free for it
 * while the newest is converted; the fewest it may give. */
#define V4L2_BUFFERS 4
#define V4L2_MIN_BUFFERS 2
/* /dev/videoN numbers: the kernel's VIDEO_NUM_DEVICES (v4l2-dev.c). */
#define VIDEO_NODES_MAX 256
/* Caps on what a device may list, against a driver that never says stop. */
#define ENUM_MAX 64
#define MODES_MAX 512
/* Frame rates match within this share (30000/1001 is 30). */
#define FPS_TOLERANCE 0.01
/* A corrupt frame is said at most this often. */
#define CORRUPT_SAY_NS (60 * NSEC_PER_SEC)
#define NSEC_PER_USEC 1000u
#define PATH_SIZE 256

struct v4l2_mode {
	enum camera_pixfmt fmt;
	uint32_t fourcc;
	int width, height;
	struct v4l2_fract interval;   /* 0/0: the device did not say */
};

struct v4l2_source {
	struct camera_source base;
	struct camera_v4l2_io io;
	int fd;
	char path[PATH_SIZE];
	enum camera_pixfmt fmt;
	int width, height, factor;
	size_t stride;
	struct {
		void *addr;
		size_t len;
	} bufs[V4L2_BUFFERS];
	unsigned nbufs;
	bool streaming;
	uint8_t *grey;
	struct camera_mjpeg *mjpeg;
	struct camera_source_counts counts;
	uint64_t last_seq;
	bool have_seq, said_clock, said_corrupt;
	uint64_t corrupt_said_ns;
};

/* ---- the kernel's calls ---- */

static int kernel_open(void *data, const char *path, int flags)
{
	(void)data;
	return open(path, flags);
}

static int kernel_close(void *data, int fd)
{
	(void)data;
	return close(fd);
}

static int kernel_ioctl(void *data, int fd, unsigned long request, void *arg)
{
	(void)data;
	return ioctl(fd, request, arg);
}

static void *kernel_mmap(void *data, size_t len, int prot, int flags, int fd, long offset)
{
	(void)data;
	return mmap(NULL, len, prot, flags, fd, (off_t)offset);
}

static int kernel_munmap(void *data, void *addr, size_t len)
{
	(void)data;
	return munmap(addr, len);
}

static const struct camera_v4l2_io kernel_io = {
	.open = kernel_open,
	.close = kernel_close,
	.ioctl = kernel_ioctl,
	.mmap = kernel_mmap,
	.munmap = kernel_munmap,
};

/* An ioctl through the table, again when a signal cut it short: 0 or -errno. */
static int xioctl(const struct camera_v4l2_io *io, int fd, unsigned long request, void *arg)
{
	for (;;) {
		if (io->ioctl(io->data, fd, request, arg) == 0)
			return 0;
		if (errno != EINTR)
			return -errno;
	}
}

/* ---- formats and modes ---- */

static const struct {
	uint32_t fourcc;
	enum camera_pixfmt fmt;
} fourccs[] = {
	{ V4L2_PIX_FMT_GREY, CAMERA_PIX_GREY },
	{ V4L2_PIX_FMT_Y16, CAMERA_PIX_Y16 },
	{ V4L2_PIX_FMT_Y10, CAMERA_PIX_Y10 },
	{ V4L2_PIX_FMT_YUYV, CAMERA_PIX_YUYV },
	{ V4L2_PIX_FMT_UYVY, CAMERA_PIX_UYVY },
	{ V4L2_PIX_FMT_MJPEG, CAMERA_PIX_MJPEG },
	{ V4L2_PIX_FMT_JPEG, CAMERA_PIX_MJPEG },
};

static int fourcc_format(uint32_t fourcc)
{
	for (size_t i = 0; i < sizeof(fourccs) / sizeof(fourccs[0]); i++)
		if (fourccs[i].fourcc == fourcc)
			return (int)fourccs[i].fmt;
	return -1;
}

static double mode_fps(const struct v4l2_mode *m)
{
	return m->interval.numerator ? (double)m->interval.denominator / m->interval.numerator
				     : 0;
}

struct mode_list {
	struct v4l2_mode m[MODES_MAX];
	int n;
};

static void mode_add(struct mode_list *l, enum camera_pixfmt fmt, uint32_t fourcc, int w, int h,
		     struct v4l2_fract interval)
{
	if (l->n < MODES_MAX)
		l->m[l->n++] = (struct v4l2_mode){ fmt, fourcc, w, h, interval };
}

/* A stepwise range's value nearest want from below, on its steps. */
static int step_pick(unsigned min, unsigned max, unsigned step, int want)
{
	unsigned v = want > 0 ? (unsigned)want : max;

	if (v > max)
		v = max;
	if (v < min)
		return (int)min;
	if (step > 1)
		v = min + (v - min) / step * step;
	return (int)v;
}

static void enum_intervals(struct v4l2_source *s, struct mode_list *l, enum camera_pixfmt fmt,
			   uint32_t fourcc, int w, int h, double want_fps)
{
	int added = 0;

	for (unsigned i = 0; i < ENUM_MAX; i++) {
		struct v4l2_frmivalenum fi = { .index = i, .pixel_format = fourcc,
					       .width = (unsigned)w, .height = (unsigned)h };

		if (xioctl(&s->io, s->fd, VIDIOC_ENUM_FRAMEINTERVALS, &fi) < 0)
			break;
		if (fi.type == V4L2_FRMIVAL_TYPE_DISCRETE) {
			mode_add(l, fmt, fourcc, w, h, fi.discrete);
			added++;
			continue;
		}
		/* Stepwise or continuous: its fastest, and what was asked
		 * when it lies within. */
		mode_add(l, fmt, fourcc, w, h, fi.stepwise.min);
		added++;
		if (want_fps > 0 && fi.stepwise.min.numerator && fi.stepwise.max.numerator) {
			double fast = (double)fi.stepwise.min.denominator / fi.stepwise.min.numerator;
			double slow = (double)fi.stepwise.max.denominator / fi.stepwise.max.numerator;
			const unsigned per = 1000;

			if (want_fps <= fast && want_fps >= slow)
				mode_add(l, fmt, fourcc, w, h,
					 (struct v4l2_fract){ per, (unsigned)lround(want_fps * per) });
		}
		break;
	}
	if (!added)
		mode_add(l, fmt, fourcc, w, h, (struct v4l2_fract){ 0, 0 });
}

/* Every (format, size, rate) the device offers in a format we convert. */
static void enum_modes(struct v4l2_source *s, const struct camera_mode *want, struct mode_list *l)
{
	int want_w = want->width > 0 ? want->width : CAMERA_DEFAULT_WIDTH;
	int want_h = want->height > 0 ? want->height : CAMERA_DEFAULT_HEIGHT;

	l->n = 0;
	for (unsigned fi = 0; fi < ENUM_MAX; fi++) {
		struct v4l2_fmtdesc fd = { .index = fi, .type = V4L2_BUF_TYPE_VIDEO_CAPTURE };
		int fmt;
		unsigned si;

		if (xioctl(&s->io, s->fd, VIDIOC_ENUM_FMT, &fd) < 0)
			break;
		fmt = fourcc_format(fd.pixelformat);
		if (fmt < 0)
			continue;
		for (si = 0; si < ENUM_MAX; si++) {
			struct v4l2_frmsizeenum fs = { .index = si, .pixel_format = fd.pixelformat };

			if (xioctl(&s->io, s->fd, VIDIOC_ENUM_FRAMESIZES, &fs) < 0)
				break;
			if (fs.type == V4L2_FRMSIZE_TYPE_DISCRETE) {
				enum_intervals(s, l, fmt, fd.pixelformat, (int)fs.discrete.width,
					       (int)fs.discrete.height, want->fps);
				continue;
			}
			enum_intervals(s, l, fmt, fd.pixelformat,
				       step_pick(fs.stepwise.min_width, fs.stepwise.max_width,
						 fs.stepwise.step_width, want_w),
				       step_pick(fs.stepwise.min_height, fs.stepwise.max_height,
						 fs.stepwise.step_height, want_h), want->fps);
			si++;
			break;
		}
		/* No sizes listed: what was asked, S_FMT adjusts it. */
		if (si == 0)
			mode_add(l, fmt, fd.pixelformat, want_w, want_h, (struct v4l2_fract){ 0, 0 });
	}
}

static bool mode_matches(const struct v4l2_mode *m, const struct camera_mode *want)
{
	double fps = mode_fps(m);

	if (want->width > 0 && m->width != want->width)
		return false;
	if (want->height > 0 && m->height != want->height)
		return false;
	if (want->fps > 0 && fps > 0 && fabs(fps - want->fps) > FPS_TOLERANCE * want->fps)
		return false;
	return true;
}

/* Is a better than b for tracking? The size nearest 640x480 from below
 * (above only when nothing is below), then the highest rate, then the
 * format's order (uncompressed luma before MJPEG). */
static bool mode_better(const struct v4l2_mode *a, const struct v4l2_mode *b)
{
	bool fa = a->width <= CAMERA_DEFAULT_WIDTH && a->height <= CAMERA_DEFAULT_HEIGHT;
	bool fb = b->width <= CAMERA_DEFAULT_WIDTH && b->height <= CAMERA_DEFAULT_HEIGHT;
	long area_a = (long)a->width * a->height, area_b = (long)b->width * b->height;
	double ra = mode_fps(a), rb = mode_fps(b);

	if (fa != fb)
		return fa;
	if (area_a != area_b)
		return fa ? area_a > area_b : area_a < area_b;
	if (fabs(ra - rb) > FPS_TOLERANCE * (ra > rb ? ra : rb))
		return ra > rb;
	return a->fmt < b->fmt;
}

/* What the device offers, as "640x480@30 GREY, ...", for a refusal. */
static void modes_said(const struct mode_list *l, char *buf, size_t size)
{
	size_t used = 0;

	buf[0] = '\0';
	for (int i = 0; i < l->n && used + 1 < size; i++) {
		const struct v4l2_mode *m = &l->m[i];
		int n = snprintf(buf + used, size - used, "%s%dx%d@%.4g %s", i ? ", " : "",
				 m->width, m->height, mode_fps(m), camera_pixfmt_name(m->fmt));

		if (n < 0)
			break;
		used += (size_t)n;
	}
	if (!l->n)
		snprintf(buf, size, "no format this program converts");
}

static void mode_asked(const struct camera_mode *m, char *buf, size_t size)
{
	char w[16] = "any", h[16] = "any", f[24] = "any";

	if (m->width > 0)
		snprintf(w, sizeof(w), "%d", m->width);
	if (m->height > 0)
		snprintf(h, sizeof(h), "%d", m->height);
	if (m->fps > 0)
		snprintf(f, sizeof(f), "%.4g", m->fps);
	snprintf(buf, size, "%sx%s@%s", w, h, f);
}

/* ---- opening ---- */

static bool can_capture(const struct v4l2_capability *cap)
{
	uint32_t caps = cap->capabilities & V4L2_CAP_DEVICE_CAPS ? cap->device_caps
								  : cap->capabilities;

	return (caps & V4L2_CAP_VIDEO_CAPTURE) && (caps & V4L2_CAP_STREAMING);
}

/* Opens path into s->fd and checks it captures: 0 or -errno with err. */
static int open_node(struct v4l2_source *s, const char *path, struct v4l2_capability *cap,
		     char *err, size_t errlen)
{
	int r;

	snprintf(s->path, sizeof(s->path), "%s", path);
	s->fd = s->io.open(s->io.data, path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (s->fd < 0) {
		r = -errno;
		if (r == -ENOENT)
			snprintf(err, errlen, "camera %s: not there (expected a V4L2 capture "
				 "device: /dev/videoN, a /dev/v4l/by-id/ link or auto; or a folder "
				 "of frames)", path);
		else if (r == -EBUSY)
			snprintf(err, errlen, "camera %s: busy, another program has it", path);
		else if (r == -EACCES)
			snprintf(err, errlen, "camera %s: permission denied (expected read and "
				 "write access, as the video group has)", path);
		else
			snprintf(err, errlen, "camera %s: cannot open it: %s", path, strerror(-r));
		return r;
	}
	memset(cap, 0, sizeof(*cap));
	r = xioctl(&s->io, s->fd, VIDIOC_QUERYCAP, cap);
	if (r < 0 || !can_capture(cap)) {
		if (r < 0 && r != -ENOTTY && r != -EINVAL)
			snprintf(err, errlen, "camera %s: cannot ask what it is: %s", path,
				 strerror(-r));
		else
			snprintf(err, errlen, "camera %s: not a V4L2 capture device that streams "
				 "(expected video capture with streaming I/O)", path);
		s->io.close(s->io.data, s->fd);
		s->fd = -1;
		return r < 0 && r != -EINVAL ? r : -ENOTTY;
	}
	return 0;
}

/* "auto": the first capture device among /dev/video* by number. */
static int open_auto(struct v4l2_source *s, struct v4l2_capability *cap, char *err,
		     size_t errlen)
{
	for (int n = 0; n < VIDEO_NODES_MAX; n++) {
		char path[PATH_SIZE];

		snprintf(path, sizeof(path), "/dev/video%d", n);
		if (open_node(s, path, cap, err, errlen) == 0)
			return 0;
	}
	snprintf(err, errlen, "camera auto: no V4L2 capture device that streams among "
		 "/dev/video*");
	return -ENOENT;
}

static int set_format(struct v4l2_source *s, const struct v4l2_mode *m, char *err,
		      size_t errlen)
{
	struct v4l2_format f = { .type = V4L2_BUF_TYPE_VIDEO_CAPTURE };
	int r, fmt;

	f.fmt.pix.width = (unsigned)m->width;
	f.fmt.pix.height = (unsigned)m->height;
	f.fmt.pix.pixelformat = m->fourcc;
	f.fmt.pix.field = V4L2_FIELD_NONE;
	r = xioctl(&s->io, s->fd, VIDIOC_S_FMT, &f);
	if (r == -EBUSY) {
		snprintf(err, errlen, "camera %s: busy, another program has it", s->base.name);
		return r;
	}
	if (r < 0) {
		snprintf(err, errlen, "camera %s: refused %dx%d %s: %s", s->base.name, m->width,
			 m->height, camera_pixfmt_name(m->fmt), strerror(-r));
		return -EINVAL;
	}
	memset(&f, 0, sizeof(f));
	f.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
	r = xioctl(&s->io, s->fd, VIDIOC_G_FMT, &f);
	if (r < 0) {
		snprintf(err, errlen, "camera %s: cannot read its format back: %s", s->base.name,
			 strerror(-r));
		return r;
	}
	fmt = fourcc_format(f.fmt.pix.pixelformat);
	if (fmt < 0 || f.fmt.pix.width == 0 || f.fmt.pix.height == 0) {
		snprintf(err, errlen, "camera %s: gave format %.4s %ux%u where %s %dx%d was "
			 "asked", s->base.name, (const char *)&f.fmt.pix.pixelformat,
			 f.fmt.pix.width, f.fmt.pix.height, camera_pixfmt_name(m->fmt), m->width,
			 m->height);
		return -EINVAL;
	}
	s->fmt = fmt;
	s->width = (int)f.fmt.pix.width;
	s->height = (int)f.fmt.pix.height;
	s->stride = f.fmt.pix.bytesperline ? f.fmt.pix.bytesperline
					   : camera_row_bytes(s->fmt, s->width);
	if (s->fmt != CAMERA_PIX_MJPEG && s->stride < camera_row_bytes(s->fmt, s->width)) {
		snprintf(err, errlen, "camera %s: rows of %zu bytes for %d %s pixels",
			 s->base.name, s->stride, s->width, camera_pixfmt_name(s->fmt));
		return -EINVAL;
	}
	return 0;
}

/* The rate: asked with S_PARM, read back with G_PARM; the mode's own
 * when the device cannot say. */
static double set_rate(struct v4l2_source *s, const struct v4l2_mode *m)
{
	struct v4l2_streamparm p = { .type = V4L2_BUF_TYPE_VIDEO_CAPTURE };
	struct v4l2_fract t;

	if (m->interval.numerator) {
		p.parm.capture.timeperframe = m->interval;
		if (xioctl(&s->io, s->fd, VIDIOC_S_PARM, &p) < 0)
			log_info("camera %s: cannot set its frame rate; taking its own",
				 s->base.name);
	}
	memset(&p, 0, sizeof(p));
	p.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
	if (xioctl(&s->io, s->fd, VIDIOC_G_PARM, &p) == 0 &&
	    (p.parm.capture.capability & V4L2_CAP_TIMEPERFRAME)) {
		t = p.parm.capture.timeperframe;
		if (t.numerator && t.denominator)
			return (double)t.denominator / t.numerator;
	}
	return mode_fps(m);
}

/* One control locked: absent, one line; refused or not kept, one line. */
static void lock_control(struct v4l2_source *s, uint32_t id, const char *what, int value)
{
	struct v4l2_queryctrl q = { .id = id };
	struct v4l2_control c = { .id = id, .value = value };
	int r;

	if (xioctl(&s->io, s->fd, VIDIOC_QUERYCTRL, &q) < 0 ||
	    (q.flags & V4L2_CTRL_FLAG_DISABLED)) {
		log_info("camera %s: has no %s control; left as the camera has it",
			 s->base.name, what);
		return;
	}
	r = xioctl(&s->io, s->fd, VIDIOC_S_CTRL, &c);
	if (r < 0) {
		log_warn("camera %s: %s: setting %d refused (%s); the picture may drift",
			 s->base.name, what, value, strerror(-r));
		return;
	}
	c = (struct v4l2_control){ .id = id };
	r = xioctl(&s->io, s->fd, VIDIOC_G_CTRL, &c);
	if (r < 0)
		log_warn("camera %s: %s: cannot read it back (%s)", s->base.name, what,
			 strerror(-r));
	else if (c.value != value)
		log_warn("camera %s: %s: reads back %d after %d was set; the picture may drift",
			 s->base.name, what, c.value, value);
}

/* Nothing a tracking camera's background model must fight: exposure and
 * gain fixed, white balance fixed, and the anti-flicker filter at the
 * mains frequency (lamps flicker at twice it). */
static void lock_camera(struct v4l2_source *s, int mains_hz)
{
	lock_control(s, V4L2_CID_EXPOSURE_AUTO, "manual exposure (exposure_auto)",
		     V4L2_EXPOSURE_MANUAL);
	lock_control(s, V4L2_CID_EXPOSURE_AUTO_PRIORITY, "fixed frame rate "
		     "(exposure_auto_priority)", 0);
	lock_control(s, V4L2_CID_AUTOGAIN, "fixed gain (autogain)", 0);
	lock_control(s, V4L2_CID_AUTO_WHITE_BALANCE, "fixed white balance "
		     "(white_balance_automatic)", 0);
	if (mains_hz == 50 || mains_hz == 60)
		lock_control(s, V4L2_CID_POWER_LINE_FREQUENCY, "mains frequency "
			     "(power_line_frequency)", mains_hz == 50 ?
			     V4L2_CID_POWER_LINE_FREQUENCY_50HZ : V4L2_CID_POWER_LINE_FREQUENCY_60HZ);
}

static int start_streaming(struct v4l2_source *s, char *err, size_t errlen)
{
	struct v4l2_requestbuffers rb = { .count = V4L2_BUFFERS,
					  .type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
					  .memory = V4L2_MEMORY_MMAP };
	enum v4l2_buf_type type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
	int r = xioctl(&s->io, s->fd, VIDIOC_REQBUFS, &rb);

	if (r == -EBUSY) {
		snprintf(err, errlen, "camera %s: busy, another program has it", s->base.name);
		return r;
	}
	if (r < 0 || rb.count < V4L2_MIN_BUFFERS) {
		snprintf(err, errlen, "camera %s: gave %u mmap buffers where %d were asked%s%s",
			 s->base.name, r < 0 ? 0 : rb.count, V4L2_BUFFERS, r < 0 ? ": " : "",
			 r < 0 ? strerror(-r) : "");
		return r < 0 ? r : -ENOMEM;
	}
	if (rb.count > V4L2_BUFFERS)
		rb.count = V4L2_BUFFERS;
	for (unsigned i = 0; i < rb.count; i++) {
		struct v4l2_buffer b = { .index = i, .type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
					 .memory = V4L2_MEMORY_MMAP };
		void *p;

		r = xioctl(&s->io, s->fd, VIDIOC_QUERYBUF, &b);
		if (r < 0) {
			snprintf(err, errlen, "camera %s: cannot ask for buffer %u: %s",
				 s->base.name, i, strerror(-r));
			return r;
		}
		p = s->io.mmap(s->io.data, b.length, PROT_READ | PROT_WRITE, MAP_SHARED, s->fd,
			       (long)b.m.offset);
		if (p == MAP_FAILED) {
			r = -errno;
			snprintf(err, errlen, "camera %s: cannot map buffer %u: %s", s->base.name,
				 i, strerror(-r));
			return r;
		}
		s->bufs[i].addr = p;
		s->bufs[i].len = b.length;
		s->nbufs = i + 1;
		r = xioctl(&s->io, s->fd, VIDIOC_QBUF, &b);
		if (r < 0) {
			snprintf(err, errlen, "camera %s: cannot queue buffer %u: %s",
				 s->base.name, i, strerror(-r));
			return r;
		}
	}
	r = xioctl(&s->io, s->fd, VIDIOC_STREAMON, &type);
	if (r == -EBUSY)
		snprintf(err, errlen, "camera %s: busy, another program has it", s->base.name);
	else if (r == -ENOSPC)
		snprintf(err, errlen, "camera %s: not enough USB bandwidth for %dx%d@%.4g %s "
			 "(another camera on the same bus?); a smaller mode or MJPEG needs less",
			 s->base.name, s->width, s->height, s->base.mode.fps,
			 camera_pixfmt_name(s->fmt));
	else if (r < 0)
		snprintf(err, errlen, "camera %s: cannot start streaming: %s", s->base.name,
			 strerror(-r));
	if (r < 0)
		return r;
	s->streaming = true;
	return 0;
}

/* ---- the source ---- */

static int v4l2_get_fd(struct camera_source *base)
{
	return ((struct v4l2_source *)base)->fd;
}

static uint64_t v4l2_next_due(struct camera_source *base)
{
	(void)base;
	return 0;
}

static void v4l2_get_counts(struct camera_source *base, struct camera_source_counts *out)
{
	*out = ((struct v4l2_source *)base)->counts;
}

static void v4l2_destroy(struct camera_source *base)
{
	struct v4l2_source *s = (struct v4l2_source *)base;

	if (!s)
		return;
	if (s->streaming) {
		enum v4l2_buf_type type = V4L2_BUF_TYPE_VIDEO_CAPTURE;

		xioctl(&s->io, s->fd, VIDIOC_STREAMOFF, &type);
	}
	for (unsigned i = 0; i < s->nbufs; i++)
		s->io.munmap(s->io.data, s->bufs[i].addr, s->bufs[i].len);
	if (s->fd >= 0)
		s->io.close(s->io.data, s->fd);
	camera_mjpeg_destroy(s->mjpeg);
	free(s->grey);
	free(s);
}

static int gone(int r)
{
	return r == -ENODEV || r == -EIO ? -ENODEV : r;
}

static int requeue(struct v4l2_source *s, struct v4l2_buffer *b)
{
	return gone(xioctl(&s->io, s->fd, VIDIOC_QBUF, b));
}

/* The frames lost between two the driver handed out. */
static void count_sequence(struct v4l2_source *s, uint32_t seq)
{
	if (s->have_seq && seq > s->last_seq + 1)
		s->counts.dropped += seq - s->last_seq - 1;
	s->last_seq = seq;
	s->have_seq = true;
}

/* The buffer's picture into s->grey: 0, or -EBADMSG counted as an error. */
static int convert(struct v4l2_source *s, const struct v4l2_buffer *b, uint64_t now_ns)
{
	const uint8_t *data = s->bufs[b->index].addr;
	size_t len = b->bytesused ? b->bytesused : b->length;
	char why[160];
	int r;

	if (len > s->bufs[b->index].len)
		len = s->bufs[b->index].len;
	if (s->fmt == CAMERA_PIX_MJPEG) {
		r = camera_mjpeg_decode(s->mjpeg, data, len, s->width, s->height, s->factor,
					s->grey, why, sizeof(why));
	} else if (len < s->stride * (size_t)(s->height - 1) +
			 camera_row_bytes(s->fmt, s->width)) {
		snprintf(why, sizeof(why), "%zu bytes where a %dx%d %s frame takes %zu", len,
			 s->width, s->height, camera_pixfmt_name(s->fmt),
			 s->stride * (size_t)s->height);
		r = -EBADMSG;
	} else {
		camera_convert(s->fmt, data, s->stride, s->width, s->height, s->factor, s->grey);
		r = 0;
	}
	if (r == 0)
		return 0;
	s->counts.errors++;
	if (!s->said_corrupt || now_ns - s->corrupt_said_ns >= CORRUPT_SAY_NS) {
		log_warn("camera %s: frame %u skipped: %s (%llu so far; said at most once a "
			 "minute)", s->base.name, b->sequence, why,
			 (unsigned long long)s->counts.errors);
		s->said_corrupt = true;
		s->corrupt_said_ns = now_ns;
	}
	return -EBADMSG;
}

static int v4l2_read(struct camera_source *base, uint64_t now_ns, struct camera_frame *out)
{
	struct v4l2_source *s = (struct v4l2_source *)base;
	struct v4l2_buffer newest;
	bool have = false;
	int r;

	for (;;) {
		struct v4l2_buffer b = { .type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
					 .memory = V4L2_MEMORY_MMAP };

		r = xioctl(&s->io, s->fd, VIDIOC_DQBUF, &b);
		if (r == -EAGAIN)
			break;
		if (r < 0 || b.index >= s->nbufs) {
			/* The newest so far goes back, or the driver runs short. */
			if (have)
				requeue(s, &newest);
			return r < 0 ? gone(r) : -EIO;
		}
		count_sequence(s, b.sequence);
		if (b.flags & V4L2_BUF_FLAG_ERROR) {
			s->counts.errors++;
			r = requeue(s, &b);
			if (r < 0)
				return r;
			continue;
		}
		if (have) {
			s->counts.dropped++;
			r = requeue(s, &newest);
			if (r < 0)
				return r;
		}
		newest = b;
		have = true;
	}
	if (!have)
		return 0;
	r = convert(s, &newest, now_ns);
	if ((newest.flags & V4L2_BUF_FLAG_TIMESTAMP_MASK) == V4L2_BUF_FLAG_TIMESTAMP_MONOTONIC) {
		out->t_ns = (uint64_t)newest.timestamp.tv_sec * NSEC_PER_SEC +
			    (uint64_t)newest.timestamp.tv_usec * NSEC_PER_USEC;
	} else {
		if (!s->said_clock)
			log_info("camera %s: its timestamps are not the monotonic clock's; "
				 "taking the time each frame is read", s->base.name);
		s->said_clock = true;
		out->t_ns = now_ns;
	}
	{
		int q = requeue(s, &newest);

		if (q < 0)
			return q;
	}
	if (r < 0)
		return 0;
	s->counts.frames++;
	out->grey = s->grey;
	out->width = s->base.vision_w;
	out->height = s->base.vision_h;
	out->sequence = newest.sequence;
	return 1;
}

static const struct camera_source_ops v4l2_ops = {
	.name = "v4l2",
	.get_fd = v4l2_get_fd,
	.read = v4l2_read,
	.next_due = v4l2_next_due,
	.get_counts = v4l2_get_counts,
	.destroy = v4l2_destroy,
};

/* The mode to ask for, or -EINVAL with the refusal said. */
static int choose_mode(struct v4l2_source *s, const struct camera_mode *want,
		       struct v4l2_mode *out, char *err, size_t errlen)
{
	struct mode_list *l = malloc(sizeof(*l));
	int best = -1;

	if (!l) {
		snprintf(err, errlen, "camera %s: out of memory", s->base.name);
		return -ENOMEM;
	}
	enum_modes(s, want, l);
	for (int i = 0; i < l->n; i++)
		if (mode_matches(&l->m[i], want) && (best < 0 || mode_better(&l->m[i], &l->m[best])))
			best = i;
	if (best < 0) {
		char offers[512], asked[64];

		modes_said(l, offers, sizeof(offers));
		mode_asked(want, asked, sizeof(asked));
		snprintf(err, errlen, "camera %s: cannot give %s; it offers %s", s->base.name,
			 asked, offers);
		free(l);
		return -EINVAL;
	}
	*out = l->m[best];
	free(l);
	return 0;
}

int camera_v4l2_open(const struct camera_source_config *c, struct camera_source **out,
		     char *err, size_t errlen)
{
	struct v4l2_source *s = calloc(1, sizeof(*s));
	struct v4l2_capability cap;
	struct v4l2_mode m;
	int r;

	*out = NULL;
	if (!s) {
		snprintf(err, errlen, "camera %s: out of memory", c->device);
		return -ENOMEM;
	}
	s->base.ops = &v4l2_ops;
	s->io = c->io ? *c->io : kernel_io;
	s->fd = -1;
	r = strcmp(c->device, "auto") == 0 ? open_auto(s, &cap, err, errlen)
					   : open_node(s, c->device, &cap, err, errlen);
	if (r < 0)
		goto fail;
	snprintf(s->base.name, sizeof(s->base.name), "%.60s (%.60s)", s->path,
		 (const char *)cap.card);
	r = choose_mode(s, &c->mode, &m, err, errlen);
	if (r < 0)
		goto fail;
	r = set_format(s, &m, err, errlen);
	if (r < 0)
		goto fail;
	if ((c->mode.width > 0 && s->width != c->mode.width) ||
	    (c->mode.height > 0 && s->height != c->mode.height)) {
		snprintf(err, errlen, "camera %s: gave %dx%d where %dx%d was asked", s->base.name,
			 s->width, s->height, c->mode.width, c->mode.height);
		r = -EINVAL;
		goto fail;
	}
	s->base.mode.width = s->width;
	s->base.mode.height = s->height;
	s->base.mode.fps = set_rate(s, &m);
	if (c->mode.fps > 0 && s->base.mode.fps > 0 &&
	    fabs(s->base.mode.fps - c->mode.fps) > FPS_TOLERANCE * c->mode.fps)
		log_warn("camera %s: runs at %.4g frames a second where %.4g was asked",
			 s->base.name, s->base.mode.fps, c->mode.fps);
	s->factor = camera_source_fit(&s->base, c->max_w, c->max_h);
	s->grey = malloc((size_t)s->base.vision_w * s->base.vision_h);
	if (!s->grey) {
		snprintf(err, errlen, "camera %s: out of memory", s->base.name);
		r = -ENOMEM;
		goto fail;
	}
	if (s->fmt == CAMERA_PIX_MJPEG) {
		r = camera_mjpeg_create(&s->mjpeg);
		if (r < 0) {
			snprintf(err, errlen, "camera %s: offers only MJPEG at %dx%d, and this "
				 "build has no JPEG decoder", s->base.name, s->width, s->height);
			r = -EINVAL;
			goto fail;
		}
	}
	lock_camera(s, c->mains_hz);
	r = start_streaming(s, err, errlen);
	if (r < 0)
		goto fail;
	log_info("camera %s: %dx%d@%.4g %s, seen at %dx%d", s->base.name, s->width, s->height,
		 s->base.mode.fps, camera_pixfmt_name(s->fmt), s->base.vision_w,
		 s->base.vision_h);
	*out = &s->base;
	return 0;
fail:
	v4l2_destroy(&s->base);
	return r;
}
