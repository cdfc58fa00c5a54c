/*
 * v4l2-walk: a floor with somebody walking on it, streamed into a V4L2
 * video output inside the test VM. vivid loops its HDMI output back to its
 * HDMI input (loop_video), so what this writes is what the kiosk's
 * --camera reads on the capture node, through the kernel's own driver.
 *
 *   v4l2-walk OUTPUT [CAPTURE]
 *
 * OUTPUT is the video output node (/dev/videoN). With CAPTURE the output's
 * DV timings are set to the capture's first, so that both sides have the
 * same size (vivid loops only then); the picture is GREY at the timings'
 * size, progressive, written at the output's rate (the driver takes a
 * buffer a frame period, the next one drawn as one comes back).
 *
 * The picture: a floor of boards (a smooth texture, as a camera sees
 * planks or tiles) with sensor noise that changes every frame, and a bright
 * round blob, a foot or a visitor seen from above, where told:
 *   show X Y          the blob at X Y (0..1 of the picture's width, height)
 *   walk X Y SECONDS  it walks from where it is to X Y in a straight line
 *                     at an even speed, arriving SECONDS later (the
 *                     monotonic clock at each frame drawn); "arrived X Y"
 *                     is printed when it is there
 *   size R            its radius, R of the picture's width (default 0.06)
 *   hide              no blob
 *   pause             the buffers the driver gives back are kept, none
 *                     queued: the output starves (vivid's capture shows
 *                     its own pattern then, and an error flag injected is
 *                     the capture's alone); resume queues them again
 *   status            "ok status N frames, E errors, M lost, blob at X Y" (or
 *                     "blob hidden"): E buffers came back flagged as errors
 *   quit              stop streaming and exit (so does the end of stdin)
 * Commands are one a line or several separated by ';', each answered on
 * standard output with "ok ..." or "error ...".
 *
 * A device that goes away (vivid's disconnect control, its driver unbound
 * or unloaded: POLLERR, ENODEV, EIO) is one line, "lost: WHY"; it is
 * opened again every RETRY_MS until it works ("ok streaming ...").
 *
 * Built statically so it runs in the guest without libraries; not part of
 * the program.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/videodev2.h>
#include <math.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define BUFFERS 4
#define RETRY_MS 200
#define LINE_MAX_LEN 4096
#define NSEC_PER_SEC 1000000000.0

/* The floor: boards BOARD_PX wide in the picture, each a little lighter or
 * darker, with a grain along them; the noise a sensor adds, a new draw
 * every frame from NOISE_FRAMES made at start (its spread NOISE_AMP grey
 * levels either way, as an 8-bit sensor's read noise in dim light). */
#define FLOOR_MEAN 96
#define BOARD_PX 48
#define BOARD_STEP 9
#define GRAIN_AMP 6.0
#define GRAIN_PERIOD_PX 23.0
#define NOISE_FRAMES 8
#define NOISE_AMP 3
/* The blob: its brightness inside, and the width of its soft edge. */
#define BLOB_GREY 235
#define BLOB_EDGE_PX 3.0
#define BLOB_RADIUS_DEFAULT 0.06

struct buffer {
	uint8_t *data;
	size_t length;
};

struct walk {
	const char *output, *capture;
	int fd;
	bool streaming;
	int w, h, stride;
	double period_s;
	struct buffer bufs[BUFFERS];
	unsigned n_bufs;
	uint8_t *floors;            /* NOISE_FRAMES pictures of the floor */
	int floors_w, floors_h;
	uint64_t frames, lost;
	uint64_t errors;            /* buffers given back flagged V4L2_BUF_FLAG_ERROR */
	bool paused;                /* buffers given back are held, not queued */
	uint32_t held;              /* which (a bit each) */
	/* The blob, in fractions of the picture. */
	bool shown;
	double x, y, radius;
	/* A walk under way: from (x0, y0) at t0 to (x1, y1) at t1. */
	bool walking;
	double x0, y0, x1, y1, t0, t1;
	uint64_t retry_at_ms;
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / NSEC_PER_SEC;
}

static int xioctl(int fd, unsigned long req, void *arg)
{
	int r;

	do
		r = ioctl(fd, req, arg);
	while (r < 0 && errno == EINTR);
	return r < 0 ? -errno : 0;
}

/* A small fixed-seed generator: the same floor every run. */
static uint32_t rng_next(uint32_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 17;
	*s ^= *s << 5;
	return *s;
}

static int make_floors(struct walk *wk)
{
	size_t size = (size_t)wk->w * (size_t)wk->h;
	uint32_t seed = 0x2545f491u;

	if (wk->floors && wk->floors_w == wk->w && wk->floors_h == wk->h)
		return 0;
	free(wk->floors);
	wk->floors = malloc(size * NOISE_FRAMES);
	if (!wk->floors)
		return -ENOMEM;
	wk->floors_w = wk->w;
	wk->floors_h = wk->h;
	for (int y = 0; y < wk->h; y++) {
		for (int x = 0; x < wk->w; x++) {
			int board = x / BOARD_PX;
			double v = FLOOR_MEAN + ((board * 7) % 5 - 2) * BOARD_STEP +
				   GRAIN_AMP * sin(2.0 * M_PI * (y + 17 * board) / GRAIN_PERIOD_PX);

			if (x % BOARD_PX == 0)
				v -= 2 * BOARD_STEP;   /* the gap between boards */
			for (int k = 0; k < NOISE_FRAMES; k++) {
				int n = (int)(rng_next(&seed) % (2 * NOISE_AMP + 1)) - NOISE_AMP;
				int g = (int)lround(v) + n;

				wk->floors[size * k + (size_t)y * wk->w + x] =
					(uint8_t)(g < 0 ? 0 : g > 255 ? 255 : g);
			}
		}
	}
	return 0;
}

static void blob_now(struct walk *wk, double t)
{
	if (!wk->walking)
		return;
	if (t >= wk->t1) {
		wk->x = wk->x1;
		wk->y = wk->y1;
		wk->walking = false;
		printf("arrived %.4f %.4f\n", wk->x, wk->y);
		fflush(stdout);
		return;
	}
	double f = (t - wk->t0) / (wk->t1 - wk->t0);

	wk->x = wk->x0 + f * (wk->x1 - wk->x0);
	wk->y = wk->y0 + f * (wk->y1 - wk->y0);
}

static void draw(struct walk *wk, uint8_t *dst)
{
	size_t size = (size_t)wk->w * (size_t)wk->h;
	const uint8_t *ground = wk->floors + size * (wk->frames * 5 % NOISE_FRAMES);

	for (int y = 0; y < wk->h; y++)
		memcpy(dst + (size_t)y * wk->stride, ground + (size_t)y * wk->w, (size_t)wk->w);
	blob_now(wk, now_s());
	if (!wk->shown)
		return;
	double cx = wk->x * wk->w, cy = wk->y * wk->h, r = wk->radius * wk->w;
	int x0 = (int)floor(cx - r - BLOB_EDGE_PX), x1 = (int)ceil(cx + r + BLOB_EDGE_PX);
	int y0 = (int)floor(cy - r - BLOB_EDGE_PX), y1 = (int)ceil(cy + r + BLOB_EDGE_PX);

	for (int y = y0 < 0 ? 0 : y0; y <= y1 && y < wk->h; y++) {
		for (int x = x0 < 0 ? 0 : x0; x <= x1 && x < wk->w; x++) {
			double d = hypot(x + 0.5 - cx, y + 0.5 - cy);
			double a = (r + BLOB_EDGE_PX - d) / BLOB_EDGE_PX;
			uint8_t *p = dst + (size_t)y * wk->stride + x;

			if (a <= 0)
				continue;
			if (a > 1)
				a = 1;
			*p = (uint8_t)lround(*p + a * (BLOB_GREY - *p));
		}
	}
}

static void close_device(struct walk *wk)
{
	if (wk->fd < 0)
		return;
	if (wk->streaming) {
		int type = V4L2_BUF_TYPE_VIDEO_OUTPUT;

		xioctl(wk->fd, VIDIOC_STREAMOFF, &type);
	}
	for (unsigned i = 0; i < wk->n_bufs; i++)
		if (wk->bufs[i].data)
			munmap(wk->bufs[i].data, wk->bufs[i].length);
	memset(wk->bufs, 0, sizeof(wk->bufs));
	wk->n_bufs = 0;
	wk->held = 0;
	close(wk->fd);
	wk->fd = -1;
	wk->streaming = false;
}

static int queue(struct walk *wk, unsigned index)
{
	struct v4l2_buffer b = {
		.type = V4L2_BUF_TYPE_VIDEO_OUTPUT,
		.memory = V4L2_MEMORY_MMAP,
		.index = index,
		.bytesused = (uint32_t)((size_t)wk->stride * wk->h),
		.field = V4L2_FIELD_NONE,
	};

	draw(wk, wk->bufs[index].data);
	wk->frames++;
	return xioctl(wk->fd, VIDIOC_QBUF, &b);
}

/* The capture's timings, to give the output the same size. */
static int capture_timings(const char *path, struct v4l2_dv_timings *t)
{
	int fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	int ret;

	if (fd < 0)
		return -errno;
	memset(t, 0, sizeof(*t));
	ret = xioctl(fd, VIDIOC_G_DV_TIMINGS, t);
	close(fd);
	return ret;
}

static int open_device(struct walk *wk, char *why, size_t why_size)
{
	struct v4l2_capability cap;
	struct v4l2_dv_timings t;
	struct v4l2_format fmt;
	struct v4l2_requestbuffers req;
	const char *step;
	int type = V4L2_BUF_TYPE_VIDEO_OUTPUT;
	int ret;

	step = "open";
	wk->fd = open(wk->output, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (wk->fd < 0) {
		ret = -errno;
		goto fail;
	}
	step = "VIDIOC_QUERYCAP";
	ret = xioctl(wk->fd, VIDIOC_QUERYCAP, &cap);
	if (ret == 0 && !((cap.capabilities & V4L2_CAP_DEVICE_CAPS ? cap.device_caps :
			   cap.capabilities) & V4L2_CAP_VIDEO_OUTPUT))
		ret = -ENOTTY;
	if (ret < 0)
		goto fail;
	if (wk->capture) {
		step = "VIDIOC_G_DV_TIMINGS on the capture";
		ret = capture_timings(wk->capture, &t);
		if (ret < 0)
			goto fail;
		step = "VIDIOC_S_DV_TIMINGS";
		ret = xioctl(wk->fd, VIDIOC_S_DV_TIMINGS, &t);
		if (ret < 0)
			goto fail;
	}
	step = "VIDIOC_G_DV_TIMINGS";
	ret = xioctl(wk->fd, VIDIOC_G_DV_TIMINGS, &t);
	if (ret < 0)
		goto fail;
	/* A frame lasts the whole raster, blanking included, at the pixel
	 * clock (CEA-861 / VESA DMT timings). */
	{
		const struct v4l2_bt_timings *bt = &t.bt;
		double total = (double)V4L2_DV_BT_FRAME_WIDTH(bt) * V4L2_DV_BT_FRAME_HEIGHT(bt);

		wk->period_s = bt->pixelclock ? total / (double)bt->pixelclock : 0;
	}
	memset(&fmt, 0, sizeof(fmt));
	fmt.type = V4L2_BUF_TYPE_VIDEO_OUTPUT;
	fmt.fmt.pix.width = t.bt.width;
	fmt.fmt.pix.height = t.bt.height;
	fmt.fmt.pix.pixelformat = V4L2_PIX_FMT_GREY;
	fmt.fmt.pix.field = V4L2_FIELD_NONE;
	step = "VIDIOC_S_FMT GREY";
	ret = xioctl(wk->fd, VIDIOC_S_FMT, &fmt);
	if (ret == 0 && (fmt.fmt.pix.pixelformat != V4L2_PIX_FMT_GREY ||
			 fmt.fmt.pix.field != V4L2_FIELD_NONE))
		ret = -EINVAL;
	if (ret < 0)
		goto fail;
	wk->w = (int)fmt.fmt.pix.width;
	wk->h = (int)fmt.fmt.pix.height;
	wk->stride = (int)fmt.fmt.pix.bytesperline;
	step = "the floor";
	ret = make_floors(wk);
	if (ret < 0)
		goto fail;
	memset(&req, 0, sizeof(req));
	req.count = BUFFERS;
	req.type = V4L2_BUF_TYPE_VIDEO_OUTPUT;
	req.memory = V4L2_MEMORY_MMAP;
	step = "VIDIOC_REQBUFS";
	ret = xioctl(wk->fd, VIDIOC_REQBUFS, &req);
	if (ret == 0 && req.count == 0)
		ret = -ENOMEM;
	if (ret < 0)
		goto fail;
	wk->n_bufs = req.count < BUFFERS ? req.count : BUFFERS;
	for (unsigned i = 0; i < wk->n_bufs; i++) {
		struct v4l2_buffer b = {
			.type = V4L2_BUF_TYPE_VIDEO_OUTPUT,
			.memory = V4L2_MEMORY_MMAP,
			.index = i,
		};

		step = "VIDIOC_QUERYBUF";
		ret = xioctl(wk->fd, VIDIOC_QUERYBUF, &b);
		if (ret < 0)
			goto fail;
		step = "mmap";
		wk->bufs[i].data = mmap(NULL, b.length, PROT_READ | PROT_WRITE, MAP_SHARED,
					wk->fd, b.m.offset);
		if (wk->bufs[i].data == MAP_FAILED) {
			wk->bufs[i].data = NULL;
			ret = -errno;
			goto fail;
		}
		wk->bufs[i].length = b.length;
		step = "VIDIOC_QBUF";
		ret = queue(wk, i);
		if (ret < 0)
			goto fail;
	}
	step = "VIDIOC_STREAMON";
	ret = xioctl(wk->fd, VIDIOC_STREAMON, &type);
	if (ret < 0)
		goto fail;
	wk->streaming = true;
	printf("ok streaming %dx%d GREY to %s, a frame every %.2f ms (%s)\n", wk->w, wk->h,
	       wk->output, 1000.0 * wk->period_s,
	       wk->capture ? "the capture's timings" : "the output's timings");
	fflush(stdout);
	return 0;
fail:
	snprintf(why, why_size, "%s %s: %s", wk->output, step, strerror(-ret));
	close_device(wk);
	return ret;
}

/* The buffers the driver is done with, drawn again and queued. */
static int refill(struct walk *wk)
{
	for (;;) {
		struct v4l2_buffer b = {
			.type = V4L2_BUF_TYPE_VIDEO_OUTPUT,
			.memory = V4L2_MEMORY_MMAP,
		};
		int ret = xioctl(wk->fd, VIDIOC_DQBUF, &b);

		if (ret == -EAGAIN)
			return 0;
		if (ret < 0)
			return ret;
		if (b.index >= wk->n_bufs)
			return -EINVAL;
		/* vivid's inject_v4l2_buf_flag_error flags the next buffer
		 * either of its streams completes, this one's too. */
		if (b.flags & V4L2_BUF_FLAG_ERROR)
			wk->errors++;
		if (wk->paused) {
			wk->held |= 1u << b.index;
			continue;
		}
		ret = queue(wk, b.index);
		if (ret < 0)
			return ret;
	}
}

static bool number(const char *s, double lo, double hi, double *out)
{
	char *end;

	if (!s)
		return false;
	errno = 0;
	*out = strtod(s, &end);
	return !errno && end != s && !*end && *out >= lo && *out <= hi;
}

/* One command; false to quit. */
static bool command(struct walk *wk, char *cmd)
{
	char *save = NULL;
	char *verb = strtok_r(cmd, " \t", &save);
	char *a = strtok_r(NULL, " \t", &save);
	char *b = strtok_r(NULL, " \t", &save);
	char *c = strtok_r(NULL, " \t", &save);
	double x, y, s;

	if (!verb)
		return true;
	if (!strcmp(verb, "show") && number(a, 0, 1, &x) && number(b, 0, 1, &y)) {
		wk->shown = true;
		wk->walking = false;
		wk->x = x;
		wk->y = y;
		printf("ok show %.4f %.4f\n", x, y);
	} else if (!strcmp(verb, "walk") && number(a, 0, 1, &x) && number(b, 0, 1, &y) &&
		   number(c, 0.001, 3600, &s)) {
		wk->shown = true;
		wk->walking = true;
		wk->x0 = wk->x;
		wk->y0 = wk->y;
		wk->x1 = x;
		wk->y1 = y;
		wk->t0 = now_s();
		wk->t1 = wk->t0 + s;
		printf("ok walk %.4f %.4f -> %.4f %.4f in %.3f s\n", wk->x0, wk->y0, x, y, s);
	} else if (!strcmp(verb, "size") && number(a, 0.001, 0.5, &x)) {
		wk->radius = x;
		printf("ok size %.4f\n", x);
	} else if (!strcmp(verb, "hide") && !a) {
		wk->shown = false;
		wk->walking = false;
		printf("ok hide\n");
	} else if (!strcmp(verb, "pause") && !a) {
		wk->paused = true;
		printf("ok pause\n");
	} else if (!strcmp(verb, "resume") && !a) {
		int ret = 0;

		wk->paused = false;
		for (unsigned i = 0; i < wk->n_bufs && ret == 0; i++)
			if (wk->held & (1u << i))
				ret = queue(wk, i);
		wk->held = 0;
		if (ret < 0)
			printf("error resume: VIDIOC_QBUF: %s\n", strerror(-ret));
		else
			printf("ok resume\n");
	} else if (!strcmp(verb, "status") && !a) {
		printf("ok status %llu frames, %llu errors, %llu lost, ",
		       (unsigned long long)wk->frames, (unsigned long long)wk->errors,
		       (unsigned long long)wk->lost);
		if (wk->shown)
			printf("blob at %.4f %.4f\n", wk->x, wk->y);
		else
			printf("blob hidden\n");
	} else if (!strcmp(verb, "quit")) {
		printf("ok quit\n");
		fflush(stdout);
		return false;
	} else {
		printf("error %s: expected show X Y, walk X Y SECONDS, size R, hide, pause, "
		       "resume, status or quit (X, Y, R in 0..1 of the picture)\n", verb);
	}
	fflush(stdout);
	return true;
}

/* Whatever stdin has: false at its end or on quit. */
static bool read_commands(struct walk *wk, char *line, size_t *len)
{
	ssize_t n = read(STDIN_FILENO, line + *len, LINE_MAX_LEN - 1 - *len);

	if (n < 0)
		return errno == EINTR || errno == EAGAIN;
	if (n == 0)
		return false;
	*len += (size_t)n;
	line[*len] = '\0';
	for (;;) {
		char *nl = strchr(line, '\n');
		char *save = NULL;

		if (!nl) {
			if (*len == LINE_MAX_LEN - 1)
				*len = 0;     /* a line too long: dropped */
			return true;
		}
		*nl = '\0';
		for (char *cmd = strtok_r(line, ";", &save); cmd; cmd = strtok_r(NULL, ";", &save))
			if (!command(wk, cmd))
				return false;
		*len -= (size_t)(nl + 1 - line);
		memmove(line, nl + 1, *len + 1);
	}
}

static uint64_t now_ms(void)
{
	return (uint64_t)(now_s() * 1000.0);
}

int main(int argc, char **argv)
{
	struct walk wk = {
		.fd = -1,
		.radius = BLOB_RADIUS_DEFAULT,
		.x = 0.5,
		.y = 0.5,
	};
	char line[LINE_MAX_LEN];
	size_t len = 0;
	char why[512];
	int ret;

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: v4l2-walk OUTPUT [CAPTURE]\n");
		return 2;
	}
	wk.output = argv[1];
	wk.capture = argc == 3 ? argv[2] : NULL;
	ret = open_device(&wk, why, sizeof(why));
	if (ret < 0) {
		/* At start a device that is not there is fatal: the test set
		 * it up. */
		fprintf(stderr, "v4l2-walk: %s\n", why);
		return 1;
	}
	for (;;) {
		struct pollfd p[2] = {
			{ .fd = STDIN_FILENO, .events = POLLIN },
			{ .fd = wk.fd, .events = POLLOUT },
		};
		int timeout = wk.fd < 0 ? RETRY_MS : -1;

		if (poll(p, wk.fd < 0 ? 1 : 2, timeout) < 0 && errno != EINTR) {
			perror("v4l2-walk: poll");
			break;
		}
		if ((p[0].revents & (POLLIN | POLLHUP)) && !read_commands(&wk, line, &len))
			break;
		if (wk.fd >= 0 && p[1].revents) {
			ret = p[1].revents & (POLLERR | POLLNVAL) ? -EIO : refill(&wk);
			if (ret < 0) {
				printf("lost: %s: %s\n", wk.output,
				       ret == -EIO && (p[1].revents & POLLERR) ?
				       "POLLERR (the device went away)" : strerror(-ret));
				fflush(stdout);
				wk.lost++;
				close_device(&wk);
				wk.retry_at_ms = now_ms() + RETRY_MS;
			}
		} else if (wk.fd < 0 && now_ms() >= wk.retry_at_ms) {
			if (open_device(&wk, why, sizeof(why)) < 0)
				wk.retry_at_ms = now_ms() + RETRY_MS;
		}
	}
	close_device(&wk);
	free(wk.floors);
	return 0;
}
