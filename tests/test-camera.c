/*
 * The camera's sources without a camera: a stand-in V4L2 driver written
 * here, answering the ioctls through camera_v4l2_io (formats, sizes and
 * rates, controls, mmap'd buffers and their queue, an eventfd as its fd,
 * faults on demand), MJPEG frames made by libjpeg, and recordings made in
 * a temporary folder.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/videodev2.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef HAVE_JPEG
#include <jpeglib.h>
#endif

#include "base/clock.h"
#include "camera/camera-source.h"
#include "image/image.h"
#include "check.h"
#include "capture.h"

#define FAKE_MODES 16
#define FAKE_RATES 4
#define FAKE_CTRLS 8
#define FAKE_BUFS 8
#define FAKE_PAGE 4096
/* Rows the stand-in pads, as drivers align them: conversions must use
 * bytesperline, not the width. */
#define FAKE_ROW_PAD 64
#define FAKE_MJPEG_BUF (640 * 480 * 2)
#define W 640
#define H 480
#define VW 320
#define VH 240
#define TEST_FPS 30
/* A request one of the stand-in's handlers leaves to the next. */
#define NOT_MINE 1

/* ---- the stand-in driver ---- */

struct fake_mode {
	uint32_t fourcc;
	int w, h;
	unsigned fps[FAKE_RATES];
};

struct fake_ctrl {
	uint32_t id;
	int value;
	bool sticks;             /* false: a set is taken but reads back unchanged */
};

struct fake_buf {
	uint8_t *mem;
	size_t len;
	bool queued;
	uint32_t bytesused, flags, sequence;
};

struct fake {
	const char *path;
	uint32_t caps;
	struct fake_mode modes[FAKE_MODES];
	int nmodes;
	struct fake_ctrl ctrls[FAKE_CTRLS];
	int nctrls;
	int fd;
	uint32_t fourcc;
	int w, h;
	size_t bytesperline, sizeimage;
	struct v4l2_fract tpf;
	struct fake_buf bufs[FAKE_BUFS];
	unsigned nbufs;
	int done[FAKE_BUFS], ndone;   /* filled buffers, oldest first */
	bool streaming, gone;
	uint32_t seq;
	int sfmt_errno, reqbufs_errno, streamon_errno;
	int mapped;
	uint32_t clock;          /* the buffers' timestamp flag */
	/* A device that lists no sizes (S_FMT gives its first mode's), or
	 * one range of them and of rates (modes[0]'s format). */
	bool no_sizes;
	struct v4l2_frmsize_stepwise steps;
	struct v4l2_frmival_stepwise rates;
};

static struct fake_mode *fake_find(struct fake *f, uint32_t fourcc, int w, int h)
{
	for (int i = 0; i < f->nmodes; i++)
		if (f->modes[i].fourcc == fourcc && (w < 0 || (f->modes[i].w == w &&
							       f->modes[i].h == h)))
			return &f->modes[i];
	return NULL;
}

static struct fake_ctrl *fake_ctrl(struct fake *f, uint32_t id)
{
	for (int i = 0; i < f->nctrls; i++)
		if (f->ctrls[i].id == id)
			return &f->ctrls[i];
	return NULL;
}

/* A control's value, -1 when the stand-in has none. */
static int fake_value(struct fake *f, uint32_t id)
{
	struct fake_ctrl *k = fake_ctrl(f, id);

	return k ? k->value : -1;
}

static size_t fake_row(uint32_t fourcc, int w)
{
	switch (fourcc) {
	case V4L2_PIX_FMT_GREY:
		return (size_t)w + FAKE_ROW_PAD;
	case V4L2_PIX_FMT_MJPEG:
		return 0;
	default:
		return (size_t)w * 2 + FAKE_ROW_PAD;
	}
}

static int fake_open(void *data, const char *path, int flags)
{
	struct fake *f = data;

	if (strcmp(path, f->path) != 0) {
		errno = ENOENT;
		return -1;
	}
	f->fd = eventfd(0, EFD_NONBLOCK | ((flags & O_CLOEXEC) ? EFD_CLOEXEC : 0));
	return f->fd;
}

static int fake_close(void *data, int fd)
{
	struct fake *f = data;

	for (unsigned i = 0; i < f->nbufs; i++)
		free(f->bufs[i].mem);
	f->nbufs = 0;
	f->fd = -1;
	return close(fd);
}

static int fail(int e)
{
	errno = e;
	return -1;
}

/* The distinct formats in the order the modes list them. */
static uint32_t fake_format(struct fake *f, unsigned index)
{
	unsigned n = 0;

	for (int i = 0; i < f->nmodes; i++) {
		bool seen = false;

		for (int j = 0; j < i; j++)
			seen |= f->modes[j].fourcc == f->modes[i].fourcc;
		if (!seen && n++ == index)
			return f->modes[i].fourcc;
	}
	return 0;
}

static int fake_ioctl_format(struct fake *f, unsigned long req, void *arg)
{
	switch (req) {
	case VIDIOC_ENUM_FMT: {
		struct v4l2_fmtdesc *d = arg;
		uint32_t fcc = fake_format(f, d->index);

		if (d->type != V4L2_BUF_TYPE_VIDEO_CAPTURE || !fcc)
			return fail(EINVAL);
		d->pixelformat = fcc;
		return 0;
	}
	case VIDIOC_ENUM_FRAMESIZES: {
		struct v4l2_frmsizeenum *s = arg;
		unsigned n = 0;

		if (f->no_sizes)
			return fail(EINVAL);
		if (f->steps.max_width) {
			if (s->index)
				return fail(EINVAL);
			s->type = V4L2_FRMSIZE_TYPE_STEPWISE;
			s->stepwise = f->steps;
			return 0;
		}

		for (int i = 0; i < f->nmodes; i++)
			if (f->modes[i].fourcc == s->pixel_format && n++ == s->index) {
				s->type = V4L2_FRMSIZE_TYPE_DISCRETE;
				s->discrete.width = (unsigned)f->modes[i].w;
				s->discrete.height = (unsigned)f->modes[i].h;
				return 0;
			}
		return fail(EINVAL);
	}
	case VIDIOC_ENUM_FRAMEINTERVALS: {
		struct v4l2_frmivalenum *v = arg;
		struct fake_mode *m = fake_find(f, v->pixel_format, (int)v->width, (int)v->height);

		if (f->steps.max_width) {
			if (v->index)
				return fail(EINVAL);
			v->type = V4L2_FRMIVAL_TYPE_CONTINUOUS;
			v->stepwise = f->rates;
			return 0;
		}

		if (!m || v->index >= FAKE_RATES || !m->fps[v->index])
			return fail(EINVAL);
		v->type = V4L2_FRMIVAL_TYPE_DISCRETE;
		v->discrete = (struct v4l2_fract){ 1, m->fps[v->index] };
		return 0;
	}
	case VIDIOC_S_FMT: {
		struct v4l2_format *x = arg;
		struct fake_mode *m;

		if (f->sfmt_errno)
			return fail(f->sfmt_errno);
		m = fake_find(f, x->fmt.pix.pixelformat, (int)x->fmt.pix.width,
			      (int)x->fmt.pix.height);
		if (!m)
			m = &f->modes[0];
		f->fourcc = m->fourcc;
		f->w = m->w;
		f->h = m->h;
		if (f->steps.max_width) {
			f->w = (int)x->fmt.pix.width;
			f->h = (int)x->fmt.pix.height;
		}
		f->bytesperline = fake_row(m->fourcc, f->w);
		f->sizeimage = f->bytesperline ? f->bytesperline * (size_t)f->h : FAKE_MJPEG_BUF;
		f->tpf = (struct v4l2_fract){ 1, m->fps[0] };
	}
	/* fall through - S_FMT answers as G_FMT */
	case VIDIOC_G_FMT: {
		struct v4l2_format *x = arg;

		x->fmt.pix.pixelformat = f->fourcc;
		x->fmt.pix.width = (unsigned)f->w;
		x->fmt.pix.height = (unsigned)f->h;
		x->fmt.pix.bytesperline = (unsigned)f->bytesperline;
		x->fmt.pix.sizeimage = (unsigned)f->sizeimage;
		return 0;
	}
	case VIDIOC_S_PARM: {
		struct v4l2_streamparm *p = arg;
		struct fake_mode *m = fake_find(f, f->fourcc, f->w, f->h);

		if (f->steps.max_width)
			f->tpf = p->parm.capture.timeperframe;
		for (int i = 0; m && i < FAKE_RATES; i++)
			if (m->fps[i] && p->parm.capture.timeperframe.numerator *
			    m->fps[i] == p->parm.capture.timeperframe.denominator)
				f->tpf = (struct v4l2_fract){ 1, m->fps[i] };
	}
	/* fall through */
	case VIDIOC_G_PARM: {
		struct v4l2_streamparm *p = arg;

		p->parm.capture.capability = V4L2_CAP_TIMEPERFRAME;
		p->parm.capture.timeperframe = f->tpf;
		return 0;
	}
	}
	return NOT_MINE;
}

static int fake_ioctl_ctrl(struct fake *f, unsigned long req, void *arg)
{
	switch (req) {
	case VIDIOC_QUERYCTRL: {
		struct v4l2_queryctrl *q = arg;

		return fake_ctrl(f, q->id) ? 0 : fail(EINVAL);
	}
	case VIDIOC_S_CTRL: {
		struct v4l2_control *c = arg;
		struct fake_ctrl *k = fake_ctrl(f, c->id);

		if (!k)
			return fail(EINVAL);
		if (k->sticks)
			k->value = c->value;
		return 0;
	}
	case VIDIOC_G_CTRL: {
		struct v4l2_control *c = arg;
		struct fake_ctrl *k = fake_ctrl(f, c->id);

		if (!k)
			return fail(EINVAL);
		c->value = k->value;
		return 0;
	}
	}
	return NOT_MINE;
}

static int fake_ioctl_stream(struct fake *f, unsigned long req, void *arg)
{
	switch (req) {
	case VIDIOC_REQBUFS: {
		struct v4l2_requestbuffers *r = arg;

		if (f->reqbufs_errno)
			return fail(f->reqbufs_errno);
		if (r->memory != V4L2_MEMORY_MMAP)
			return fail(EINVAL);
		f->nbufs = r->count < FAKE_BUFS ? r->count : FAKE_BUFS;
		for (unsigned i = 0; i < f->nbufs; i++) {
			f->bufs[i] = (struct fake_buf){ .mem = calloc(1, f->sizeimage),
							.len = f->sizeimage };
			if (!f->bufs[i].mem)
				return fail(ENOMEM);
		}
		r->count = f->nbufs;
		return 0;
	}
	case VIDIOC_QUERYBUF: {
		struct v4l2_buffer *b = arg;

		if (b->index >= f->nbufs)
			return fail(EINVAL);
		b->length = (unsigned)f->bufs[b->index].len;
		b->m.offset = b->index * FAKE_PAGE;
		return 0;
	}
	case VIDIOC_QBUF: {
		struct v4l2_buffer *b = arg;

		if (f->gone)
			return fail(ENODEV);
		if (b->index >= f->nbufs || f->bufs[b->index].queued)
			return fail(EINVAL);
		f->bufs[b->index].queued = true;
		return 0;
	}
	case VIDIOC_DQBUF: {
		struct v4l2_buffer *b = arg;
		struct fake_buf *x;
		uint64_t t = clock_now_ns();

		if (f->gone)
			return fail(ENODEV);
		if (!f->ndone)
			return fail(EAGAIN);
		b->index = (unsigned)f->done[0];
		memmove(f->done, f->done + 1, (size_t)--f->ndone * sizeof(f->done[0]));
		if (!f->ndone) {
			/* All taken: the fd no longer readable, as a driver's poll. */
			eventfd_t n;

			eventfd_read(f->fd, &n);
		}
		x = &f->bufs[b->index];
		x->queued = false;
		b->bytesused = x->bytesused;
		b->length = (unsigned)x->len;
		b->flags = x->flags | f->clock;
		b->sequence = x->sequence;
		b->timestamp.tv_sec = (time_t)(t / NSEC_PER_SEC);
		b->timestamp.tv_usec = (suseconds_t)(t % NSEC_PER_SEC / 1000);
		return 0;
	}
	case VIDIOC_STREAMON:
		if (f->streamon_errno)
			return fail(f->streamon_errno);
		f->streaming = true;
		return 0;
	case VIDIOC_STREAMOFF:
		f->streaming = false;
		return 0;
	}
	return NOT_MINE;
}

static int fake_ioctl(void *data, int fd, unsigned long req, void *arg)
{
	struct fake *f = data;
	int r;

	if (fd != f->fd)
		return fail(EBADF);
	if (req == VIDIOC_QUERYCAP) {
		struct v4l2_capability *c = arg;

		memset(c, 0, sizeof(*c));
		snprintf((char *)c->card, sizeof(c->card), "Stand-in camera");
		c->capabilities = f->caps | V4L2_CAP_DEVICE_CAPS;
		c->device_caps = f->caps;
		return 0;
	}
	r = fake_ioctl_format(f, req, arg);
	if (r == NOT_MINE)
		r = fake_ioctl_ctrl(f, req, arg);
	if (r == NOT_MINE)
		r = fake_ioctl_stream(f, req, arg);
	return r == NOT_MINE ? fail(ENOTTY) : r;
}

static void *fake_mmap(void *data, size_t len, int prot, int flags, int fd, long offset)
{
	struct fake *f = data;
	unsigned i = (unsigned)(offset / FAKE_PAGE);

	(void)prot, (void)flags;
	if (fd != f->fd || i >= f->nbufs || len != f->bufs[i].len) {
		errno = EINVAL;
		return MAP_FAILED;
	}
	f->mapped++;
	return f->bufs[i].mem;
}

static int fake_munmap(void *data, void *addr, size_t len)
{
	struct fake *f = data;

	(void)addr, (void)len;
	f->mapped--;
	return 0;
}

/* The driver fills a queued buffer: bytes, flags; readable through the fd. */
static bool fake_deliver(struct fake *f, const void *bytes, size_t len, uint32_t flags)
{
	for (unsigned i = 0; i < f->nbufs; i++) {
		struct fake_buf *b = &f->bufs[i];
		bool done = false;

		for (int j = 0; j < f->ndone; j++)
			done |= f->done[j] == (int)i;
		if (!b->queued || done)
			continue;
		REQUIRE(len <= b->len);
		memcpy(b->mem, bytes, len);
		b->bytesused = (uint32_t)len;
		b->flags = flags;
		b->sequence = f->seq++;
		f->done[f->ndone++] = (int)i;
		REQUIRE(eventfd_write(f->fd, 1) == 0);
		return true;
	}
	return false;
}

static int fake_queued(const struct fake *f)
{
	int n = 0;

	for (unsigned i = 0; i < f->nbufs; i++)
		n += f->bufs[i].queued;
	return n;
}

static struct camera_v4l2_io fake_io(struct fake *f)
{
	return (struct camera_v4l2_io){ fake_open, fake_close, fake_ioctl, fake_mmap,
					fake_munmap, f };
}

/* A stand-in at /dev/video0 that captures and streams, with every control. */
static void fake_init(struct fake *f)
{
	memset(f, 0, sizeof(*f));
	f->path = "/dev/video0";
	f->caps = V4L2_CAP_VIDEO_CAPTURE | V4L2_CAP_STREAMING;
	f->fd = -1;
	f->clock = V4L2_BUF_FLAG_TIMESTAMP_MONOTONIC;
	f->ctrls[f->nctrls++] = (struct fake_ctrl){ V4L2_CID_EXPOSURE_AUTO, V4L2_EXPOSURE_APERTURE_PRIORITY, true };
	f->ctrls[f->nctrls++] = (struct fake_ctrl){ V4L2_CID_EXPOSURE_AUTO_PRIORITY, 1, true };
	f->ctrls[f->nctrls++] = (struct fake_ctrl){ V4L2_CID_AUTOGAIN, 1, true };
	f->ctrls[f->nctrls++] = (struct fake_ctrl){ V4L2_CID_AUTO_WHITE_BALANCE, 1, true };
	f->ctrls[f->nctrls++] = (struct fake_ctrl){ V4L2_CID_POWER_LINE_FREQUENCY, 0, true };
}

static void fake_mode(struct fake *f, uint32_t fourcc, int w, int h, unsigned fps0, unsigned fps1)
{
	f->modes[f->nmodes++] = (struct fake_mode){ fourcc, w, h, { fps0, fps1, 0, 0 } };
}

/* Opens the stand-in with mode asked (zeros: the default); the log in
 * captured[] afterwards. */
static int open_fake(struct fake *f, struct camera_mode mode, struct camera_source **s, char *err,
		     size_t errlen)
{
	struct camera_v4l2_io io = fake_io(f);
	struct camera_source_config c = { .device = "/dev/video0", .mode = mode, .max_w = VW,
					  .max_h = VH, .mains_hz = 50, .io = &io };
	struct capture cap;
	int r;

	if (strcmp(f->path, "/dev/video0") != 0)
		c.device = f->path;
	capture_begin(&cap, STDERR_FILENO);
	r = camera_source_open(&c, s, err, errlen);
	capture_end(&cap);
	return r;
}

/* ---- negotiation ---- */

static bool test_grey_preferred(void)
{
	struct fake f;
	struct camera_source *s;
	char err[512];

	fake_init(&f);
	fake_mode(&f, V4L2_PIX_FMT_YUYV, W, H, 30, 0);
	fake_mode(&f, V4L2_PIX_FMT_MJPEG, W, H, 30, 0);
	fake_mode(&f, V4L2_PIX_FMT_GREY, W, H, 30, 0);
	REQUIRE_EQ(open_fake(&f, (struct camera_mode){ 0 }, &s, err, sizeof(err)), 0);
	CHECK_EQ(f.fourcc, V4L2_PIX_FMT_GREY);
	CHECK_EQ(s->mode.width, W);
	CHECK_EQ(s->mode.height, H);
	CHECK_EQ((int)s->mode.fps, 30);
	CHECK_EQ(s->vision_w, VW);
	CHECK_EQ(s->vision_h, VH);
	CHECK(f.streaming);
	CHECK_EQ(fake_queued(&f), 4);
	CHECK_EQ(f.mapped, 4);
	CHECK(strstr(s->name, "/dev/video0") && strstr(s->name, "Stand-in camera"));
	CHECK_EQ(s->ops->get_fd(s), f.fd);
	camera_source_destroy(s);
	CHECK(!f.streaming);
	CHECK_EQ(f.mapped, 0);
	CHECK_EQ(f.fd, -1);
	return true;
}

static bool test_only_mjpeg(void)
{
	struct fake f;
	struct camera_source *s;
	char err[512];

	fake_init(&f);
	fake_mode(&f, V4L2_PIX_FMT_MJPEG, W, H, 15, 30);
	REQUIRE_EQ(open_fake(&f, (struct camera_mode){ 0 }, &s, err, sizeof(err)), 0);
	CHECK_EQ(f.fourcc, V4L2_PIX_FMT_MJPEG);
	CHECK_EQ((int)s->mode.fps, 30);
	camera_source_destroy(s);

	/* Raw at 30, MJPEG at 60: MJPEG is the only way to the rate. */
	fake_init(&f);
	fake_mode(&f, V4L2_PIX_FMT_YUYV, W, H, 30, 0);
	fake_mode(&f, V4L2_PIX_FMT_MJPEG, W, H, 30, 60);
	REQUIRE_EQ(open_fake(&f, (struct camera_mode){ 0 }, &s, err, sizeof(err)), 0);
	CHECK_EQ(f.fourcc, V4L2_PIX_FMT_MJPEG);
	CHECK_EQ((int)s->mode.fps, 60);
	camera_source_destroy(s);

	/* The same rate both ways: uncompressed. */
	fake_init(&f);
	fake_mode(&f, V4L2_PIX_FMT_MJPEG, W, H, 30, 60);
	fake_mode(&f, V4L2_PIX_FMT_UYVY, W, H, 60, 0);
	REQUIRE_EQ(open_fake(&f, (struct camera_mode){ 0 }, &s, err, sizeof(err)), 0);
	CHECK_EQ(f.fourcc, V4L2_PIX_FMT_UYVY);
	camera_source_destroy(s);
	return true;
}

static bool test_default_mode(void)
{
	struct fake f;
	struct camera_source *s;
	char err[512];

	fake_init(&f);
	fake_mode(&f, V4L2_PIX_FMT_GREY, 1280, 720, 30, 60);
	fake_mode(&f, V4L2_PIX_FMT_GREY, W, H, 30, 60);
	fake_mode(&f, V4L2_PIX_FMT_GREY, 320, 240, 120, 0);
	REQUIRE_EQ(open_fake(&f, (struct camera_mode){ 0 }, &s, err, sizeof(err)), 0);
	CHECK_EQ(s->mode.width, W);
	CHECK_EQ(s->mode.height, H);
	CHECK_EQ((int)s->mode.fps, 60);
	CHECK_EQ(f.tpf.denominator, 60);
	camera_source_destroy(s);

	/* No 640x480: the nearest size below it. */
	fake_init(&f);
	fake_mode(&f, V4L2_PIX_FMT_GREY, 1280, 720, 60, 0);
	fake_mode(&f, V4L2_PIX_FMT_GREY, 800, 600, 30, 0);
	fake_mode(&f, V4L2_PIX_FMT_GREY, 424, 240, 90, 0);
	fake_mode(&f, V4L2_PIX_FMT_GREY, 320, 240, 120, 0);
	REQUIRE_EQ(open_fake(&f, (struct camera_mode){ 0 }, &s, err, sizeof(err)), 0);
	CHECK_EQ(s->mode.width, 424);
	CHECK_EQ(s->mode.height, 240);
	CHECK_EQ((int)s->mode.fps, 90);
	/* 424 does not fit 320: shrunk by 2, 212x120. */
	CHECK_EQ(s->vision_w, 212);
	CHECK_EQ(s->vision_h, 120);
	camera_source_destroy(s);
	return true;
}

/* Sizes and rates as ranges (UVC's and vivid's other way), or not listed. */
static bool test_ranges(void)
{
	struct fake f;
	struct camera_source *s;
	char err[512];

	fake_init(&f);
	fake_mode(&f, V4L2_PIX_FMT_GREY, 1920, 1080, 30, 0);
	f.steps = (struct v4l2_frmsize_stepwise){ 160, 1920, 16, 120, 1080, 8 };
	f.rates = (struct v4l2_frmival_stepwise){ { 1, 90 }, { 1, 5 }, { 1, 1 } };
	REQUIRE_EQ(open_fake(&f, (struct camera_mode){ 0 }, &s, err, sizeof(err)), 0);
	CHECK_EQ(s->mode.width, W);
	CHECK_EQ(s->mode.height, H);
	CHECK_EQ((int)s->mode.fps, 90);
	camera_source_destroy(s);
	REQUIRE_EQ(open_fake(&f, (struct camera_mode){ 800, 600, 25 }, &s, err, sizeof(err)), 0);
	CHECK_EQ(s->mode.width, 800);
	CHECK_EQ((int)(s->mode.fps + 0.5), 25);
	CHECK_EQ(s->vision_w, 266);   /* 800 / 3 */
	CHECK_EQ(s->vision_h, 200);
	camera_source_destroy(s);

	/* No sizes listed: what S_FMT gives, read back with G_FMT. */
	fake_init(&f);
	fake_mode(&f, V4L2_PIX_FMT_YUYV, 1280, 720, 60, 0);
	f.no_sizes = true;
	REQUIRE_EQ(open_fake(&f, (struct camera_mode){ 0 }, &s, err, sizeof(err)), 0);
	CHECK_EQ(s->mode.width, 1280);
	CHECK_EQ(s->mode.height, 720);
	CHECK_EQ((int)s->mode.fps, 60);
	CHECK_EQ(s->vision_w, 320);
	CHECK_EQ(s->vision_h, 180);
	camera_source_destroy(s);
	/* A size asked that it then does not give: refused. */
	REQUIRE_EQ(open_fake(&f, (struct camera_mode){ W, H, 0 }, &s, err, sizeof(err)), -EINVAL);
	REQUIRE_STR_HAS(err, "gave 1280x720 where 640x480 was asked");
	CHECK_EQ(f.fd, -1);
	return true;
}

static bool test_asked_mode(void)
{
	struct fake f;
	struct camera_source *s;
	char err[512];

	fake_init(&f);
	fake_mode(&f, V4L2_PIX_FMT_GREY, W, H, 30, 60);
	fake_mode(&f, V4L2_PIX_FMT_GREY, 320, 240, 120, 0);
	REQUIRE_EQ(open_fake(&f, (struct camera_mode){ 320, 240, 120 }, &s, err, sizeof(err)), 0);
	CHECK_EQ(s->mode.width, 320);
	CHECK_EQ((int)s->mode.fps, 120);
	CHECK_EQ(s->vision_w, 320);
	camera_source_destroy(s);
	REQUIRE_EQ(open_fake(&f, (struct camera_mode){ W, H, 30 }, &s, err, sizeof(err)), 0);
	CHECK_EQ((int)s->mode.fps, 30);
	camera_source_destroy(s);

	err[0] = '\0';
	REQUIRE_EQ(open_fake(&f, (struct camera_mode){ 1920, 1080, 60 }, &s, err, sizeof(err)),
		   -EINVAL);
	CHECK(s == NULL);
	REQUIRE_STR_HAS(err, "/dev/video0");
	REQUIRE_STR_HAS(err, "cannot give 1920x1080@60");
	REQUIRE_STR_HAS(err, "640x480@60 GREY");
	REQUIRE_STR_HAS(err, "320x240@120 GREY");
	CHECK(!strchr(err, '\n'));
	CHECK(!f.streaming);
	CHECK_EQ(f.fd, -1);
	return true;
}

static bool test_open_faults(void)
{
	struct fake f;
	struct camera_source *s;
	char err[512];

	/* Not there. */
	fake_init(&f);
	fake_mode(&f, V4L2_PIX_FMT_GREY, W, H, 30, 0);
	f.path = "/dev/video3";
	{
		struct camera_v4l2_io io = fake_io(&f);
		struct camera_source_config c = { .device = "/dev/video9", .io = &io };

		REQUIRE_EQ(camera_source_open(&c, &s, err, sizeof(err)), -ENOENT);
		REQUIRE_STR_HAS(err, "/dev/video9");
		REQUIRE_STR_HAS(err, "expected a V4L2 capture device");
		/* auto: the first that captures, by number. */
		c.device = "auto";
		REQUIRE_EQ(camera_source_open(&c, &s, err, sizeof(err)), 0);
		CHECK(strstr(s->name, "/dev/video3") != NULL);
		camera_source_destroy(s);
	}

	/* Through the kernel's own calls: not there; a node that is no
	 * V4L2 device at all. */
	{
		struct camera_source_config c = { .device = "/nonexistent/video9" };

		REQUIRE_EQ(camera_source_open(&c, &s, err, sizeof(err)), -ENOENT);
		REQUIRE_STR_HAS(err, "camera /nonexistent/video9: not there");
		c.device = "/dev/null";
		REQUIRE_EQ(camera_source_open(&c, &s, err, sizeof(err)), -ENOTTY);
		REQUIRE_STR_HAS(err, "camera /dev/null: not a V4L2 capture device");
	}

	/* An output device. */
	fake_init(&f);
	fake_mode(&f, V4L2_PIX_FMT_GREY, W, H, 30, 0);
	f.caps = V4L2_CAP_VIDEO_OUTPUT | V4L2_CAP_STREAMING;
	REQUIRE_EQ(open_fake(&f, (struct camera_mode){ 0 }, &s, err, sizeof(err)), -ENOTTY);
	REQUIRE_STR_HAS(err, "not a V4L2 capture device");
	CHECK_EQ(f.fd, -1);

	/* Busy, where drivers say it. */
	int *busy[] = { &f.sfmt_errno, &f.reqbufs_errno, &f.streamon_errno };

	for (size_t i = 0; i < sizeof(busy) / sizeof(busy[0]); i++) {
		fake_init(&f);
		fake_mode(&f, V4L2_PIX_FMT_GREY, W, H, 30, 0);
		*busy[i] = EBUSY;
		REQUIRE_EQ(open_fake(&f, (struct camera_mode){ 0 }, &s, err, sizeof(err)), -EBUSY);
		REQUIRE_STR_HAS(err, "another program has it");
		CHECK(!strchr(err, '\n'));
		CHECK_EQ(f.mapped, 0);
		CHECK_EQ(f.fd, -1);
	}

	/* USB bandwidth. */
	fake_init(&f);
	fake_mode(&f, V4L2_PIX_FMT_YUYV, W, H, 30, 0);
	f.streamon_errno = ENOSPC;
	REQUIRE_EQ(open_fake(&f, (struct camera_mode){ 0 }, &s, err, sizeof(err)), -ENOSPC);
	REQUIRE_STR_HAS(err, "USB bandwidth");
	return true;
}

/* ---- controls ---- */

static bool test_controls(void)
{
	struct fake f;
	struct camera_source *s;
	char err[512];
	const char *log;

	fake_init(&f);
	fake_mode(&f, V4L2_PIX_FMT_GREY, W, H, 30, 0);
	/* No gain control; a white balance that does not stick. */
	f.ctrls[2].id = V4L2_CID_HUE;
	f.ctrls[3].sticks = false;
	REQUIRE_EQ(open_fake(&f, (struct camera_mode){ 0 }, &s, err, sizeof(err)), 0);
	log = captured;
	CHECK_EQ(fake_value(&f, V4L2_CID_EXPOSURE_AUTO), V4L2_EXPOSURE_MANUAL);
	CHECK_EQ(fake_value(&f, V4L2_CID_EXPOSURE_AUTO_PRIORITY), 0);
	CHECK_EQ(fake_value(&f, V4L2_CID_POWER_LINE_FREQUENCY),
		 V4L2_CID_POWER_LINE_FREQUENCY_50HZ);
	CHECK_EQ(fake_value(&f, V4L2_CID_HUE), 1);
	CHECK_EQ(count_matches(log, "has no fixed gain (autogain) control"), 1);
	CHECK_EQ(count_matches(log, "white_balance_automatic"), 1);
	CHECK_EQ(count_matches(log, "reads back 1 after 0 was set"), 1);
	CHECK_EQ(count_matches(log, "exposure"), 0);
	CHECK_EQ(count_matches(log, "power_line"), 0);
	/* Those two lines and the one saying the mode. */
	CHECK_EQ(count_lines(log), 3);
	camera_source_destroy(s);
	return true;
}

/* ---- raw frames ---- */

/* A picture of hashed values over the whole range: every remainder of a
 * block's sum comes up, so rounding is checked, and the extremes (the
 * 16-bit formats' cap at 255). */
static unsigned pattern(int x, int y, unsigned range)
{
	unsigned h = (unsigned)x * 73856093u ^ (unsigned)y * 19349663u;

	h ^= h >> 13;
	h *= 0x5bd1e995u;
	h ^= h >> 15;
	return h % range;
}

/* The expected grey: the rounded mean of the k x k block, in 8 bits. */
static uint8_t expect_grey(int vx, int vy, int k, unsigned range, unsigned shift)
{
	unsigned sum = 0, n = (unsigned)(k * k) << shift, v;

	for (int j = 0; j < k; j++)
		for (int i = 0; i < k; i++)
			sum += pattern(k * vx + i, k * vy + j, range);
	v = (sum + n / 2) / n;
	return (uint8_t)(v > 255 ? 255 : v);
}

/* A w x h frame, which the source shrinks by k to 320 wide or less. */
static bool check_raw(uint32_t fourcc, unsigned range, unsigned shift, int w, int h, int k)
{
	struct fake f;
	struct camera_source *s;
	struct camera_frame fr;
	char err[512];
	size_t stride = fake_row(fourcc, w);
	uint8_t *raw = calloc(stride, (size_t)h);
	int bad = 0;

	REQUIRE(raw);
	for (int y = 0; y < h; y++)
		for (int x = 0; x < w; x++) {
			unsigned v = pattern(x, y, range);
			uint8_t *p = raw + (size_t)y * stride;

			switch (fourcc) {
			case V4L2_PIX_FMT_GREY:
				p[x] = (uint8_t)v;
				break;
			case V4L2_PIX_FMT_Y16:
			case V4L2_PIX_FMT_Y10:
				p[2 * x] = (uint8_t)v;
				p[2 * x + 1] = (uint8_t)(v >> 8);
				break;
			case V4L2_PIX_FMT_YUYV:
				p[2 * x] = (uint8_t)v;
				p[2 * x + 1] = (uint8_t)(255 - v);   /* chroma: never read */
				break;
			case V4L2_PIX_FMT_UYVY:
				p[2 * x] = (uint8_t)(255 - v);
				p[2 * x + 1] = (uint8_t)v;
				break;
			}
		}
	fake_init(&f);
	fake_mode(&f, fourcc, w, h, 30, 0);
	REQUIRE_EQ(open_fake(&f, (struct camera_mode){ 0 }, &s, err, sizeof(err)), 0);
	REQUIRE_EQ(f.fourcc, fourcc);
	REQUIRE(fake_deliver(&f, raw, stride * (size_t)h, 0));
	REQUIRE_EQ(s->ops->read(s, clock_now_ns(), &fr), 1);
	REQUIRE_EQ(fr.width, w / k);
	REQUIRE_EQ(fr.height, h / k);
	for (int y = 0; y < h / k; y++)
		for (int x = 0; x < w / k; x++)
			bad += fr.grey[y * (w / k) + x] != expect_grey(x, y, k, range, shift);
	CHECK_EQ(bad, 0);
	camera_source_destroy(s);
	free(raw);
	return bad == 0;
}

static bool test_raw_formats(void)
{
	/* 640x480 by 2 (the default), 960x720 by 3, 320x240 as it is. */
	const int sizes[][3] = { { W, H, 2 }, { 960, 720, 3 }, { VW, VH, 1 } };

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		int w = sizes[i][0], h = sizes[i][1], k = sizes[i][2];

		CHECK(check_raw(V4L2_PIX_FMT_GREY, 256, 0, w, h, k));
		CHECK(check_raw(V4L2_PIX_FMT_Y16, 65536, 8, w, h, k));
		CHECK(check_raw(V4L2_PIX_FMT_Y10, 1024, 2, w, h, k));
		CHECK(check_raw(V4L2_PIX_FMT_YUYV, 256, 0, w, h, k));
		CHECK(check_raw(V4L2_PIX_FMT_UYVY, 256, 0, w, h, k));
	}
	return true;
}

/* ---- the queue ---- */

static bool readable(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, 0) == 1 && (p.revents & POLLIN);
}

static bool test_newest_and_drops(void)
{
	struct fake f;
	struct camera_source *s;
	struct camera_source_counts n;
	struct camera_frame fr;
	char err[512];
	size_t len = fake_row(V4L2_PIX_FMT_GREY, W) * H;
	uint8_t *raw = malloc(len);
	uint64_t before = clock_now_ns();

	REQUIRE(raw);
	fake_init(&f);
	fake_mode(&f, V4L2_PIX_FMT_GREY, W, H, 30, 0);
	REQUIRE_EQ(open_fake(&f, (struct camera_mode){ 0 }, &s, err, sizeof(err)), 0);
	REQUIRE_EQ(s->ops->read(s, clock_now_ns(), &fr), 0);   /* nothing yet */
	for (int i = 1; i <= 3; i++) {
		memset(raw, i * 10, len);
		REQUIRE(fake_deliver(&f, raw, len, 0));
	}
	REQUIRE(readable(s->ops->get_fd(s)));
	REQUIRE_EQ(s->ops->read(s, clock_now_ns(), &fr), 1);
	CHECK(!readable(s->ops->get_fd(s)));   /* drained */
	CHECK_EQ(fr.grey[0], 30);
	CHECK_EQ(fr.grey[VW * VH - 1], 30);
	CHECK_EQ(fr.sequence, 2);
	CHECK(fr.t_ns >= before && fr.t_ns <= clock_now_ns());
	CHECK_EQ(fake_queued(&f), 4);
	s->ops->get_counts(s, &n);
	CHECK_EQ(n.frames, 1);
	CHECK_EQ(n.dropped, 2);
	CHECK_EQ(n.errors, 0);

	/* Frames the driver lost: a gap in the sequence. */
	f.seq += 5;
	memset(raw, 40, len);
	REQUIRE(fake_deliver(&f, raw, len, 0));
	REQUIRE_EQ(s->ops->read(s, clock_now_ns(), &fr), 1);
	CHECK_EQ(fr.grey[0], 40);
	s->ops->get_counts(s, &n);
	CHECK_EQ(n.dropped, 7);

	/* Flagged buffers: counted, skipped, given back. */
	memset(raw, 50, len);
	REQUIRE(fake_deliver(&f, raw, len, 0));
	memset(raw, 60, len);
	REQUIRE(fake_deliver(&f, raw, len, V4L2_BUF_FLAG_ERROR));
	REQUIRE_EQ(s->ops->read(s, clock_now_ns(), &fr), 1);
	CHECK_EQ(fr.grey[0], 50);
	REQUIRE(fake_deliver(&f, raw, len, V4L2_BUF_FLAG_ERROR));
	REQUIRE_EQ(s->ops->read(s, clock_now_ns(), &fr), 0);
	s->ops->get_counts(s, &n);
	CHECK_EQ(n.errors, 2);
	CHECK_EQ(n.frames, 3);
	CHECK_EQ(fake_queued(&f), 4);

	/* Timestamps of another clock: the time of the read, said once. */
	f.clock = V4L2_BUF_FLAG_TIMESTAMP_UNKNOWN;
	{
		struct capture cap;
		const char *log;

		capture_begin(&cap, STDERR_FILENO);
		for (uint64_t t = 7; t <= 8; t++) {
			REQUIRE(fake_deliver(&f, raw, len, 0));
			REQUIRE_EQ(s->ops->read(s, t, &fr), 1);
			CHECK_EQ(fr.t_ns, t);
		}
		log = capture_end(&cap);
		CHECK_EQ(count_matches(log, "timestamps are not the monotonic clock's"), 1);
		CHECK_EQ(count_lines(log), 1);
	}

	/* Unplugged mid-stream. */
	REQUIRE(fake_deliver(&f, raw, len, 0));
	f.gone = true;
	CHECK_EQ(s->ops->read(s, clock_now_ns(), &fr), -ENODEV);
	camera_source_destroy(s);
	free(raw);
	return true;
}

/* ---- MJPEG ---- */

#ifdef HAVE_JPEG
/* A smooth picture (JPEG keeps it within a few levels): a gradient and a
 * bright disc, the kind of frame a floor gives. */
static uint8_t smooth(int x, int y)
{
	int dx = x - 400, dy = y - 200;
	unsigned v = (unsigned)(40 + x * 100 / W + y * 60 / H);

	if (dx * dx + dy * dy < 80 * 80)
		v += 80;
	return (uint8_t)v;
}

/* A YCbCr JPEG of the picture, 4:2:2 as UVC cameras send, with the
 * standard Huffman tables or (own_tables) tables made for it. */
static bool encode_jpeg(uint8_t **out, unsigned long *len, bool own_tables)
{
	struct jpeg_compress_struct c;
	struct jpeg_error_mgr e;
	uint8_t row[W * 3];

	c.err = jpeg_std_error(&e);
	jpeg_create_compress(&c);
	*out = NULL;
	*len = 0;
	jpeg_mem_dest(&c, out, len);
	c.image_width = W;
	c.image_height = H;
	c.input_components = 3;
	c.in_color_space = JCS_RGB;
	jpeg_set_defaults(&c);
	jpeg_set_quality(&c, 90, TRUE);
	c.optimize_coding = own_tables ? TRUE : FALSE;   /* Huffman tables of its own */
	c.comp_info[0].h_samp_factor = 2;
	c.comp_info[0].v_samp_factor = 1;
	jpeg_start_compress(&c, TRUE);
	while (c.next_scanline < H) {
		JSAMPROW p = row;

		for (int x = 0; x < W; x++)
			memset(row + 3 * x, smooth(x, (int)c.next_scanline), 3);
		jpeg_write_scanlines(&c, &p, 1);
	}
	jpeg_finish_compress(&c);
	jpeg_destroy_compress(&c);
	return *out != NULL;
}

/* The frame without its DHT segments, as UVC cameras send it. */
static size_t strip_dht(const uint8_t *in, size_t len, uint8_t *out)
{
	size_t i = 2, o = 2;

	memcpy(out, in, 2);                       /* SOI */
	while (i + 4 <= len && in[i] == 0xff && in[i + 1] != 0xda) {
		size_t seg = 2 + ((size_t)in[i + 2] << 8 | in[i + 3]);

		if (in[i + 1] != 0xc4) {
			memcpy(out + o, in + i, seg);
			o += seg;
		}
		i += seg;
	}
	memcpy(out + o, in + i, len - i);         /* SOS to EOI */
	return o + len - i;
}

static bool test_mjpeg(void)
{
	struct fake f;
	struct camera_source *s;
	struct camera_source_counts n;
	struct camera_frame fr;
	char err[512];
	uint8_t *jpg, *bare, *first, *own;
	unsigned long len, own_len;
	size_t bare_len;
	int worst = 0;
	long total = 0;
	struct capture cap;
	const char *log;

	REQUIRE(encode_jpeg(&jpg, &len, false));
	REQUIRE(encode_jpeg(&own, &own_len, true));
	bare = malloc(len);
	first = malloc(VW * VH);
	REQUIRE(bare && first);
	bare_len = strip_dht(jpg, len, bare);
	REQUIRE(bare_len < len);

	fake_init(&f);
	fake_mode(&f, V4L2_PIX_FMT_MJPEG, W, H, 30, 0);
	REQUIRE_EQ(open_fake(&f, (struct camera_mode){ 0 }, &s, err, sizeof(err)), 0);
	REQUIRE(fake_deliver(&f, jpg, len, 0));
	REQUIRE_EQ(s->ops->read(s, clock_now_ns(), &fr), 1);
	REQUIRE_EQ(fr.width, VW);
	/* Against the picture's own 2x2 means: JPEG at quality 90 and the
	 * decoder's 1/2 scaled inverse DCT stay within a few levels (here
	 * 0.05 on average and 3 at worst, with libjpeg-turbo 2.1; the bounds
	 * leave room for another libjpeg's rounding). */
	for (int y = 0; y < VH; y++)
		for (int x = 0; x < VW; x++) {
			int want = (smooth(2 * x, 2 * y) + smooth(2 * x + 1, 2 * y) +
				    smooth(2 * x, 2 * y + 1) + smooth(2 * x + 1, 2 * y + 1) + 2) / 4;
			int d = abs(fr.grey[y * VW + x] - want);

			worst = d > worst ? d : worst;
			total += d;
		}
	fprintf(stderr, "MJPEG at 320x240: mean error %.3f, worst %d levels\n",
		(double)total / (VW * VH), worst);
	CHECK((double)total / (VW * VH) < 1.0);
	CHECK(worst <= 12);   /* at the disc's edge: ringing of a step of 80 */
	memcpy(first, fr.grey, VW * VH);

	/* Without its Huffman tables: the same picture, exactly; also after a
	 * frame that brought tables of its own (the decoder keeps them). */
	REQUIRE(fake_deliver(&f, bare, bare_len, 0));
	REQUIRE_EQ(s->ops->read(s, clock_now_ns(), &fr), 1);
	CHECK(memcmp(first, fr.grey, VW * VH) == 0);
	REQUIRE(fake_deliver(&f, own, own_len, 0));
	REQUIRE_EQ(s->ops->read(s, clock_now_ns(), &fr), 1);
	CHECK(memcmp(first, fr.grey, VW * VH) == 0);
	REQUIRE(fake_deliver(&f, bare, bare_len, 0));
	REQUIRE_EQ(s->ops->read(s, clock_now_ns(), &fr), 1);
	CHECK(memcmp(first, fr.grey, VW * VH) == 0);

	/* Corrupt: cut short, then garbage; counted, said once a minute. */
	capture_begin(&cap, STDERR_FILENO);
	REQUIRE(fake_deliver(&f, jpg, len / 3, 0));
	CHECK_EQ(s->ops->read(s, clock_now_ns(), &fr), 0);
	memset(bare + 200, 0x5a, 400);
	bare[0] = 0;
	REQUIRE(fake_deliver(&f, bare, bare_len, 0));
	CHECK_EQ(s->ops->read(s, clock_now_ns(), &fr), 0);
	log = capture_end(&cap);
	CHECK_EQ(count_matches(log, "skipped: corrupt JPEG data"), 1);
	CHECK_EQ(count_lines(log), 1);
	s->ops->get_counts(s, &n);
	CHECK_EQ(n.errors, 2);
	CHECK_EQ(n.frames, 4);
	CHECK_EQ(fake_queued(&f), 4);
	/* And the next good one decodes. */
	REQUIRE(fake_deliver(&f, jpg, len, 0));
	REQUIRE_EQ(s->ops->read(s, clock_now_ns(), &fr), 1);
	CHECK(memcmp(first, fr.grey, VW * VH) == 0);
	camera_source_destroy(s);
	free(jpg);
	free(own);
	free(bare);
	free(first);
	return true;
}
#endif

/* ---- recordings ---- */

/* A test's folder and the files in it, gone. */
static void remove_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[CHECK_DIR_MAX + 300];

	while (d && (e = readdir(d)))
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) {
			snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
			unlink(path);
		}
	if (d)
		closedir(d);
	rmdir(dir);
}

static bool write_file(const char *dir, const char *name, const void *data, size_t len)
{
	char path[CHECK_DIR_MAX + 64];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	REQUIRE(f);
	REQUIRE_EQ(fwrite(data, 1, len, f), len);
	REQUIRE_EQ(fclose(f), 0);
	return true;
}

static void frame_pixels(uint8_t *g, int k)
{
	for (int i = 0; i < VW * VH; i++)
		g[i] = (uint8_t)(k * 20 + i % 7);
}

static bool write_pgm(const char *dir, const char *name, const uint8_t *g, int w, int h)
{
	char head[64];
	int n = snprintf(head, sizeof(head), "P5\n# a comment\n%d %d\n255\n", w, h);
	size_t len = (size_t)n + (size_t)w * h;
	uint8_t *buf = malloc(len);
	bool ok;

	REQUIRE(buf);
	memcpy(buf, head, (size_t)n);
	memcpy(buf + n, g, (size_t)w * h);
	ok = write_file(dir, name, buf, len);
	free(buf);
	return ok;
}

/* Frames 0-9: PGM, one 16-bit, one PNG; 5 of another size, 7 broken; a
 * note and a temporary file among them. */
static bool make_recording(const char *dir)
{
	uint8_t g[VW * VH];
	char name[32];

	for (int k = 0; k < 10; k++) {
		frame_pixels(g, k);
		snprintf(name, sizeof(name), "%06d.pgm", k);
		if (k == 5) {
			REQUIRE(write_pgm(dir, name, g, 100, 100));
		} else if (k == 7) {
			REQUIRE(write_file(dir, name, "P5\n320 240\n255\nshort", 20));
		} else if (k == 8) {
			/* 16 bits, big-endian: v * 257 is v again in 8 bits. */
			size_t hl = strlen("P5\n320 240\n65535\n");
			uint8_t *b = malloc(hl + 2 * sizeof(g));

			REQUIRE(b);
			memcpy(b, "P5\n320 240\n65535\n", hl);
			for (size_t i = 0; i < sizeof(g); i++)
				b[hl + 2 * i] = b[hl + 2 * i + 1] = g[i];
			REQUIRE(write_file(dir, name, b, hl + 2 * sizeof(g)));
			free(b);
		} else if (k == 9) {
			uint32_t *px = malloc(sizeof(g) * 4);
			char path[CHECK_DIR_MAX + 64];

			REQUIRE(px);
			for (size_t i = 0; i < sizeof(g); i++)
				px[i] = 0xff000000u | g[i] * 0x010101u;
			snprintf(path, sizeof(path), "%s/frame-%06d.png", dir, k);
			REQUIRE_EQ(image_write_png_pixels(px, VW, VH, VW * 4, path), 0);
			free(px);
		} else {
			REQUIRE(write_pgm(dir, name, g, VW, VH));
		}
	}
	REQUIRE(write_file(dir, "notes.txt", "tuning, night of the 3rd", 24));
	REQUIRE(write_file(dir, ".000011.pgm.Xy12ab", "P5", 2));
	return true;
}

/* A batch through the recording: the sequence numbers and a digest. */
static bool replay_batch(const char *dir, uint64_t *seqs, int *n, uint64_t *digest,
			 bool check_pixels)
{
	struct camera_source_config c = { .device = dir, .mode = { 0, 0, TEST_FPS }, .batch = true };
	struct camera_source *s;
	struct camera_source_counts cnt;
	struct camera_frame fr;
	char err[512];
	uint64_t t = 1000 * NSEC_PER_SEC, step = NSEC_PER_SEC / TEST_FPS;
	uint8_t g[VW * VH];
	int r, calls = 0;

	REQUIRE_EQ(camera_source_open(&c, &s, err, sizeof(err)), 0);
	REQUIRE_EQ(s->ops->get_fd(s), -1);
	REQUIRE_EQ(s->vision_w, VW);
	*n = 0;
	*digest = 1469598103934665603ull;
	for (;;) {
		uint64_t due = s->ops->next_due(s);

		REQUIRE(calls++ < 100);
		if (due > t)
			t = due;
		r = s->ops->read(s, t, &fr);
		if (r == -ENODATA)
			break;
		REQUIRE(r >= 0);
		if (r == 0)
			continue;
		/* Frame k at k/FPS from the first read. */
		REQUIRE_EQ(fr.t_ns, 1000 * NSEC_PER_SEC + (fr.sequence * NSEC_PER_SEC + TEST_FPS - 1) / TEST_FPS);
		(void)step;
		seqs[(*n)++] = fr.sequence;
		if (check_pixels) {
			frame_pixels(g, (int)fr.sequence);
			CHECK(memcmp(g, fr.grey, sizeof(g)) == 0);
		}
		for (int i = 0; i < VW * VH; i++)
			*digest = (*digest ^ fr.grey[i]) * 1099511628211ull;
	}
	s->ops->get_counts(s, &cnt);
	CHECK_EQ(cnt.errors, 2);
	CHECK_EQ(cnt.dropped, 0);
	camera_source_destroy(s);
	return true;
}

static bool test_replay(void)
{
	char dir[CHECK_DIR_MAX], empty[CHECK_DIR_MAX];
	uint64_t seqs[2][16] = { { 0 } }, digest[2];
	int n[2];
	const uint64_t want[] = { 0, 1, 2, 3, 4, 6, 8, 9 };
	struct camera_source_config c = { .device = dir, .mode = { 0, 0, 10 } };
	struct camera_source *s;
	struct camera_source_counts cnt;
	struct camera_frame fr;
	char err[512];
	struct capture cap;
	const char *log;
	uint64_t t0 = 50 * NSEC_PER_SEC;

	REQUIRE(check_tmpdir(dir, sizeof(dir), "test-camera"));
	REQUIRE(make_recording(dir));
	capture_begin(&cap, STDERR_FILENO);
	REQUIRE(replay_batch(dir, seqs[0], &n[0], &digest[0], true));
	REQUIRE(replay_batch(dir, seqs[1], &n[1], &digest[1], false));
	log = capture_end(&cap);
	REQUIRE_EQ(n[0], 8);
	for (int i = 0; i < 8; i++)
		CHECK_EQ(seqs[0][i], want[i]);
	CHECK_EQ(n[1], n[0]);
	CHECK(memcmp(seqs[0], seqs[1], sizeof(seqs[0])) == 0);
	CHECK(digest[0] == digest[1]);
	/* Each bad frame said in one line a run. */
	CHECK_EQ(count_matches(log, "000005.pgm skipped: is 100x100 where the recording's frames "
			       "are 320x240"), 2);
	CHECK_EQ(count_matches(log, "000007.pgm skipped"), 2);
	CHECK_EQ(count_matches(log, "notes.txt"), 0);

	/* In real time: the newest due, those passed dropped. */
	capture_begin(&cap, STDERR_FILENO);
	REQUIRE_EQ(camera_source_open(&c, &s, err, sizeof(err)), 0);
	REQUIRE_EQ(s->ops->read(s, t0, &fr), 1);
	CHECK_EQ(fr.sequence, 0);
	CHECK_EQ(s->ops->read(s, t0 + NSEC_PER_SEC / 20, &fr), 0);
	CHECK_EQ(s->ops->next_due(s), t0 + NSEC_PER_SEC / 10);
	REQUIRE_EQ(s->ops->read(s, t0 + 35 * NSEC_PER_SEC / 100, &fr), 1);
	CHECK_EQ(fr.sequence, 3);
	CHECK_EQ(fr.t_ns, t0 + 3 * NSEC_PER_SEC / 10);
	CHECK_EQ(s->ops->read(s, t0 + 35 * NSEC_PER_SEC / 100, &fr), 0);
	REQUIRE_EQ(s->ops->read(s, t0 + 10 * NSEC_PER_SEC, &fr), 1);
	CHECK_EQ(fr.sequence, 9);
	CHECK_EQ(s->ops->read(s, t0 + 10 * NSEC_PER_SEC, &fr), -ENODATA);
	s->ops->get_counts(s, &cnt);
	CHECK_EQ(cnt.frames, 3);
	CHECK_EQ(cnt.dropped, 2 + 5);
	camera_source_destroy(s);
	capture_end(&cap);

	/* A folder without frames. */
	REQUIRE(check_tmpdir(empty, sizeof(empty), "test-camera-empty"));
	REQUIRE(write_file(empty, "README", "x", 1));
	c.device = empty;
	REQUIRE_EQ(camera_source_open(&c, &s, err, sizeof(err)), -ENOENT);
	REQUIRE_STR_HAS(err, empty);
	REQUIRE_STR_HAS(err, "no numbered frames");
	CHECK(!strchr(err, '\n'));
	remove_dir(empty);
	remove_dir(dir);
	return true;
}

static bool test_record_replay(void)
{
	char dir[CHECK_DIR_MAX], gone[CHECK_DIR_MAX + 16], err[512], path[CHECK_DIR_MAX + 32];
	struct camera_record *r;
	struct camera_source_config c = { .device = dir, .batch = true };
	struct camera_source *s;
	struct camera_frame fr;
	const int stride = VW + 32;
	uint8_t *rows = malloc((size_t)stride * VH);
	uint8_t g[VW * VH];
	struct capture cap;
	const char *log;
	uint64_t t = 0;
	int got = 0, res;

	REQUIRE(rows);
	REQUIRE(check_tmpdir(dir, sizeof(dir), "test-camera-record"));
	REQUIRE_EQ(camera_record_create(dir, &r, err, sizeof(err)), 0);
	for (int k = 0; k < 5; k++) {
		frame_pixels(g, k + 3);
		for (int y = 0; y < VH; y++) {
			memcpy(rows + (size_t)y * stride, g + y * VW, VW);
			memset(rows + (size_t)y * stride + VW, 0xee, stride - VW);
		}
		REQUIRE_EQ(camera_record_write(r, (uint64_t)k, rows, VW, VH, (size_t)stride), 0);
	}
	camera_record_destroy(r);
	snprintf(path, sizeof(path), "%s/000004.pgm", dir);
	REQUIRE(access(path, F_OK) == 0);

	REQUIRE_EQ(camera_source_open(&c, &s, err, sizeof(err)), 0);
	while ((res = s->ops->read(s, t, &fr)) >= 0) {
		if (res == 1) {
			frame_pixels(g, (int)fr.sequence + 3);
			CHECK(memcmp(g, fr.grey, sizeof(g)) == 0);
			CHECK_EQ(fr.sequence, got);
			got++;
		}
		t += NSEC_PER_SEC;
		REQUIRE(t < 100 * NSEC_PER_SEC);
	}
	CHECK_EQ(res, -ENODATA);
	CHECK_EQ(got, 5);
	camera_source_destroy(s);

	/* A folder that goes away: one line, recording stopped. */
	snprintf(gone, sizeof(gone), "%s/gone", dir);
	REQUIRE_EQ(camera_record_create(gone, &r, err, sizeof(err)), 0);
	REQUIRE_EQ(camera_record_write(r, 0, rows, VW, VH, (size_t)stride), 0);
	snprintf(path, sizeof(path), "%s/000000.pgm", gone);
	REQUIRE_EQ(unlink(path), 0);
	REQUIRE_EQ(rmdir(gone), 0);
	capture_begin(&cap, STDERR_FILENO);
	CHECK(camera_record_write(r, 1, rows, VW, VH, (size_t)stride) < 0);
	CHECK(camera_record_write(r, 2, rows, VW, VH, (size_t)stride) < 0);
	log = capture_end(&cap);
	CHECK_EQ(count_lines(log), 1);
	CHECK_EQ(count_matches(log, "recording stopped"), 1);
	camera_record_destroy(r);
	camera_record_destroy(NULL);
	camera_source_destroy(NULL);
	free(rows);
	remove_dir(dir);
	return true;
}

int main(void)
{
	RUN(test_grey_preferred);
	RUN(test_only_mjpeg);
	RUN(test_default_mode);
	RUN(test_asked_mode);
	RUN(test_ranges);
	RUN(test_open_faults);
	RUN(test_controls);
	RUN(test_raw_formats);
	RUN(test_newest_and_drops);
#ifdef HAVE_JPEG
	RUN(test_mjpeg);
#endif
	RUN(test_replay);
	RUN(test_record_replay);
	return CHECK_EXIT();
}
