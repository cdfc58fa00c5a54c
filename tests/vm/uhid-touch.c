/*
 * uhid-touch: a real touchscreen inside the test VM. Creates a HID device
 * through /dev/uhid from the Elan 04f3:000a panel's report descriptor, so
 * the kernel's own hid-multitouch driver makes the evdev node exactly as for
 * the hardware, answers the feature reports that driver asks for, and sends
 * input reports as told on standard input.
 *
 *   uhid-touch RDESC.hex
 *
 * Commands, one a line or several separated by ';':
 *   down ID X Y    a finger (contact id 0..63) touches at panel X Y
 *   move ID X Y    it moves
 *   up ID          it lifts (reported once with the tip switch off)
 *   sync           send one input report with the current contacts
 *   repeat MS      while fingers are down, send the report again every MS ms,
 *                  as panels do (hid-multitouch releases Win8 contacts that
 *                  are not reported for 100 ms); 0 (the default): never
 *   sleep MS       wait, answering the kernel and repeating meanwhile
 *   flood N        N reports as fast as possible, each finger that is down
 *                  wiggling by a unit, then one report where they are
 *   destroy        UHID_DESTROY (the panel is unplugged; fingers forgotten)
 *   create         UHID_CREATE2 again (plugged back in)
 *   wait-open MS   wait until a reader opened the device (UHID_OPEN)
 *   quit           destroy and exit (so does the end of standard input)
 * Each command answers a line on standard output: "ok ..." or "error ...".
 * Exit status: 0, or 1 on a fatal error (no /dev/uhid, a bad descriptor).
 *
 * Built statically so it runs in the guest without libraries; not part of
 * the program.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/input.h>
#include <linux/uhid.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* The Elan 04f3:000a's layout, from its report descriptor (checked at
 * start): input report 0x01 of 116 bytes with the id, ten finger
 * collections of 11 bytes from byte 1 (tip switch bit 0, a constant bit,
 * contact id bits 2..7; width; height; X twice and Y twice, 16-bit little
 * endian), a 32-bit scan time at byte 111 and the contact count at 115. */
#define ELAN_VENDOR 0x04f3
#define ELAN_PRODUCT 0x000a
#define ELAN_RDESC_SIZE 925
#define TOUCH_REPORT_ID 0x01
#define TOUCH_REPORT_SIZE 116
#define FINGER_OFFSET 1
#define FINGER_SIZE 11
#define FINGERS 10
#define SCAN_TIME_OFFSET 111
#define CONTACT_COUNT_OFFSET 115
#define CONTACT_ID_MAX 63
#define X_MAX 3776
#define Y_MAX 2048
/* Contact size in the descriptor's units (0..255): a fingertip. */
#define FINGER_WIDTH 24
#define FINGER_HEIGHT 24
/* Feature reports hid-multitouch reads at probe. */
#define CONTACT_MAX_REPORT_ID 0x0a
#define CONTACT_MAX 10
#define WIN8_BLOB_REPORT_ID 0x44
#define WIN8_BLOB_SIZE 256
/* Win8 scan time counts 100 us. */
#define SCAN_TIME_UNIT_NS UINT64_C(100000)
/* How far flood moves the fingers (panel units): more than any fuzz. */
#define FLOOD_STEP 16

#define LINE_MAX_LEN 4096
#define CREATE_TIMEOUT_MS 10000
#define NSEC_PER_MSEC UINT64_C(1000000)

struct finger {
	bool used;
	bool tip;       /* false: lifted, reported once more then freed */
	int id;
	int x, y;
};

struct panel {
	int fd;
	bool created, started, opened;
	uint8_t rdesc[HID_MAX_DESCRIPTOR_SIZE];
	size_t rdesc_size;
	struct finger fingers[FINGERS];
	int repeat_ms;
	uint64_t last_report_ns;
	uint64_t t0_ns;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * UINT64_C(1000000000) + (uint64_t)ts.tv_nsec;
}

/* Hex bytes, whitespace separated, '#' to the end of a line a comment. */
static int read_rdesc(const char *path, uint8_t *out, size_t max, size_t *size)
{
	FILE *f = fopen(path, "re");
	char line[LINE_MAX_LEN];
	size_t n = 0;
	int ret = 0;

	if (!f) {
		fprintf(stderr, "uhid-touch: %s: %s\n", path, strerror(errno));
		return -errno;
	}
	while (ret == 0 && fgets(line, sizeof(line), f)) {
		char *p = line, *end;

		line[strcspn(line, "#")] = '\0';
		for (;;) {
			unsigned long v;

			while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
				p++;
			if (!*p)
				break;
			errno = 0;
			v = strtoul(p, &end, 16);
			if (end == p || errno || v > 0xff || n == max) {
				fprintf(stderr, "uhid-touch: %s: not a hex byte near '%.8s'\n",
					path, p);
				ret = -EINVAL;
				break;
			}
			out[n++] = (uint8_t)v;
			p = end;
		}
	}
	fclose(f);
	*size = n;
	return ret;
}

static int uhid_write(struct panel *p, const struct uhid_event *ev)
{
	ssize_t n = write(p->fd, ev, sizeof(*ev));

	if (n < 0)
		return -errno;
	return n == (ssize_t)sizeof(*ev) ? 0 : -EIO;
}

/* The input report with the fingers as they are now. */
static size_t build_report(struct panel *p, uint8_t *r)
{
	uint32_t scan = (uint32_t)((now_ns() - p->t0_ns) / SCAN_TIME_UNIT_NS);
	int count = 0;

	memset(r, 0, TOUCH_REPORT_SIZE);
	r[0] = TOUCH_REPORT_ID;
	for (int i = 0; i < FINGERS; i++) {
		const struct finger *f = &p->fingers[i];
		uint8_t *c;

		if (!f->used)
			continue;
		c = r + FINGER_OFFSET + FINGER_SIZE * count++;
		c[0] = (uint8_t)((f->tip ? 1 : 0) | (f->id << 2));
		c[1] = FINGER_WIDTH;
		c[2] = FINGER_HEIGHT;
		for (int k = 0; k < 2; k++) {
			c[3 + 2 * k] = (uint8_t)(f->x & 0xff);
			c[4 + 2 * k] = (uint8_t)(f->x >> 8);
			c[7 + 2 * k] = (uint8_t)(f->y & 0xff);
			c[8 + 2 * k] = (uint8_t)(f->y >> 8);
		}
	}
	for (int k = 0; k < 4; k++)
		r[SCAN_TIME_OFFSET + k] = (uint8_t)(scan >> (8 * k));
	r[CONTACT_COUNT_OFFSET] = (uint8_t)count;
	return TOUCH_REPORT_SIZE;
}

static int send_report(struct panel *p)
{
	struct uhid_event ev;
	int ret;

	if (!p->created)
		return -ENODEV;
	memset(&ev, 0, sizeof(ev));
	ev.type = UHID_INPUT2;
	ev.u.input2.size = (uint16_t)build_report(p, ev.u.input2.data);
	ret = uhid_write(p, &ev);
	if (ret < 0)
		return ret;
	p->last_report_ns = now_ns();
	/* Lifted fingers were reported once: free. */
	for (int i = 0; i < FINGERS; i++)
		if (p->fingers[i].used && !p->fingers[i].tip)
			p->fingers[i].used = false;
	return 0;
}

static void answer_get_report(struct panel *p, const struct uhid_get_report_req *req)
{
	struct uhid_event ev;
	struct uhid_get_report_reply_req *rep = &ev.u.get_report_reply;

	memset(&ev, 0, sizeof(ev));
	ev.type = UHID_GET_REPORT_REPLY;
	rep->id = req->id;
	if (req->rtype == UHID_FEATURE_REPORT && req->rnum == CONTACT_MAX_REPORT_ID) {
		rep->data[0] = CONTACT_MAX_REPORT_ID;
		rep->data[1] = CONTACT_MAX;
		rep->size = 2;
	} else if (req->rtype == UHID_FEATURE_REPORT && req->rnum == WIN8_BLOB_REPORT_ID) {
		/* The certification blob: the kernel only needs it to exist. */
		rep->data[0] = WIN8_BLOB_REPORT_ID;
		for (int i = 0; i < WIN8_BLOB_SIZE; i++)
			rep->data[1 + i] = (uint8_t)i;
		rep->size = 1 + WIN8_BLOB_SIZE;
	} else if (req->rtype == UHID_INPUT_REPORT && req->rnum == TOUCH_REPORT_ID) {
		rep->size = (uint16_t)build_report(p, rep->data);
	} else {
		fprintf(stderr, "uhid-touch: GET_REPORT type %u number 0x%02x: "
			"not answered (EIO)\n",
			req->rtype, req->rnum);
		rep->err = EIO;
	}
	if (uhid_write(p, &ev) < 0)
		fprintf(stderr, "uhid-touch: GET_REPORT_REPLY: %s\n", strerror(errno));
}

static void answer_set_report(struct panel *p, const struct uhid_set_report_req *req)
{
	struct uhid_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.type = UHID_SET_REPORT_REPLY;
	ev.u.set_report_reply.id = req->id;
	ev.u.set_report_reply.err = 0;  /* accepted (Input Mode and the like) */
	if (uhid_write(p, &ev) < 0)
		fprintf(stderr, "uhid-touch: SET_REPORT_REPLY: %s\n", strerror(errno));
}

/* One event from the kernel. */
static int handle_uhid(struct panel *p)
{
	struct uhid_event ev;
	ssize_t n = read(p->fd, &ev, sizeof(ev));

	if (n < 0)
		return errno == EAGAIN || errno == EINTR ? 0 : -errno;
	switch (ev.type) {
	case UHID_START:
		p->started = true;
		break;
	case UHID_STOP:
		p->started = false;
		break;
	case UHID_OPEN:
		p->opened = true;
		break;
	case UHID_CLOSE:
		p->opened = false;
		break;
	case UHID_GET_REPORT:
		answer_get_report(p, &ev.u.get_report);
		break;
	case UHID_SET_REPORT:
		answer_set_report(p, &ev.u.set_report);
		break;
	default:
		break;  /* UHID_OUTPUT: nothing to do */
	}
	return 0;
}

static bool any_down(const struct panel *p)
{
	for (int i = 0; i < FINGERS; i++)
		if (p->fingers[i].used && p->fingers[i].tip)
			return true;
	return false;
}

/* Serve the kernel (and repeat reports) for up to ms; with until, stop as
 * soon as *until is true. With stdin_too, also return when standard input
 * is readable. */
static int serve(struct panel *p, int ms, const bool *until, bool stdin_too)
{
	uint64_t deadline = ms < 0 ? 0 : now_ns() + (uint64_t)ms * NSEC_PER_MSEC;

	for (;;) {
		struct pollfd fds[2] = { { .fd = p->fd, .events = POLLIN },
					 { .fd = STDIN_FILENO, .events = POLLIN } };
		uint64_t now = now_ns(), wake = deadline;
		int timeout = -1, ret;

		if (until && *until)
			return 0;
		if (p->created && p->repeat_ms > 0 && any_down(p)) {
			uint64_t due = p->last_report_ns + (uint64_t)p->repeat_ms * NSEC_PER_MSEC;

			if (due <= now) {
				ret = send_report(p);
				if (ret < 0)
					return ret;
				continue;
			}
			if (!wake || due < wake)
				wake = due;
		}
		if (deadline && now >= deadline)
			return 0;
		if (wake)
			timeout = (int)((wake - now + NSEC_PER_MSEC - 1) / NSEC_PER_MSEC);
		ret = poll(fds, stdin_too ? 2 : 1, timeout);
		if (ret < 0 && errno != EINTR)
			return -errno;
		if (ret > 0 && (fds[0].revents & POLLIN)) {
			ret = handle_uhid(p);
			if (ret < 0)
				return ret;
		}
		if (stdin_too && fds[1].revents)
			return 1;
	}
}

static int create(struct panel *p)
{
	struct uhid_event ev;
	struct uhid_create2_req *c = &ev.u.create2;
	int ret;

	memset(&ev, 0, sizeof(ev));
	ev.type = UHID_CREATE2;
	snprintf((char *)c->name, sizeof(c->name), "Elan Touchscreen (uhid %04x:%04x)",
		 ELAN_VENDOR, ELAN_PRODUCT);
	snprintf((char *)c->phys, sizeof(c->phys), "uhid-touch/input0");
	c->rd_size = (uint16_t)p->rdesc_size;
	c->bus = BUS_USB;
	c->vendor = ELAN_VENDOR;
	c->product = ELAN_PRODUCT;
	memcpy(c->rd_data, p->rdesc, p->rdesc_size);
	memset(p->fingers, 0, sizeof(p->fingers));
	p->started = p->opened = false;
	ret = uhid_write(p, &ev);
	if (ret < 0)
		return ret;
	p->created = true;
	/* The driver probes (and asks for feature reports) before START. */
	ret = serve(p, CREATE_TIMEOUT_MS, &p->started, false);
	if (ret < 0)
		return ret;
	return p->started ? 0 : -ETIMEDOUT;
}

static int destroy(struct panel *p)
{
	struct uhid_event ev;
	int ret;

	if (!p->created)
		return 0;
	memset(&ev, 0, sizeof(ev));
	ev.type = UHID_DESTROY;
	ret = uhid_write(p, &ev);
	p->created = p->started = p->opened = false;
	memset(p->fingers, 0, sizeof(p->fingers));
	return ret;
}

static struct finger *finger_by_id(struct panel *p, int id)
{
	for (int i = 0; i < FINGERS; i++)
		if (p->fingers[i].used && p->fingers[i].id == id)
			return &p->fingers[i];
	return NULL;
}

/* N reports as fast as the kernel takes them: every finger down moves by
 * FLOOD_STEP and back, so each report makes events; then one where they
 * were. */
static int flood(struct panel *p, long n)
{
	int base[FINGERS];
	int ret = 0;

	if (!any_down(p))
		return -EINVAL;
	for (int k = 0; k < FINGERS; k++)
		base[k] = p->fingers[k].x;
	for (long i = 0; i < n && ret == 0; i++) {
		for (int k = 0; k < FINGERS; k++) {
			struct finger *f = &p->fingers[k];

			if (!f->used || !f->tip)
				continue;
			if (i & 1)
				f->x = base[k];
			else
				f->x = base[k] + FLOOD_STEP <= X_MAX ? base[k] + FLOOD_STEP
								     : base[k] - FLOOD_STEP;
		}
		ret = send_report(p);
	}
	for (int k = 0; k < FINGERS; k++)
		if (p->fingers[k].used && p->fingers[k].tip)
			p->fingers[k].x = base[k];
	return ret < 0 ? ret : send_report(p);
}

static bool parse_int(const char *s, long lo, long hi, long *out)
{
	char *end;
	long v;

	if (!s)
		return false;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi)
		return false;
	*out = v;
	return true;
}

/* Runs one command; 1 means quit. Writes one line of answer. */
static int command(struct panel *p, char *line)
{
	/* No command takes more than 4 words: a fifth makes it a bad one. */
	char *argv[5], *save = NULL;
	int argc = 0, ret = 0;
	long a = 0, x = 0, y = 0;
	struct finger *f;

	for (char *tok = strtok_r(line, " \t\r\n", &save); tok && argc < 5;
	     tok = strtok_r(NULL, " \t\r\n", &save))
		argv[argc++] = tok;
	if (argc == 0)
		return 0;

	if ((strcmp(argv[0], "down") == 0 || strcmp(argv[0], "move") == 0) && argc == 4 &&
	    parse_int(argv[1], 0, CONTACT_ID_MAX, &a) && parse_int(argv[2], 0, X_MAX, &x) &&
	    parse_int(argv[3], 0, Y_MAX, &y)) {
		f = finger_by_id(p, (int)a);
		if (argv[0][0] == 'd') {
			if (f && f->tip) {
				ret = -EEXIST;
			} else {
				for (int i = 0; !f && i < FINGERS; i++)
					if (!p->fingers[i].used)
						f = &p->fingers[i];
				if (!f)
					ret = -ENOSPC;
			}
		} else if (!f || !f->tip) {
			ret = -ENOENT;
		}
		if (ret == 0) {
			f->used = f->tip = true;
			f->id = (int)a;
			f->x = (int)x;
			f->y = (int)y;
		}
	} else if (strcmp(argv[0], "up") == 0 && argc == 2 &&
		   parse_int(argv[1], 0, CONTACT_ID_MAX, &a)) {
		f = finger_by_id(p, (int)a);
		if (f && f->tip)
			f->tip = false;
		else
			ret = -ENOENT;
	} else if (strcmp(argv[0], "sync") == 0 && argc == 1) {
		ret = send_report(p);
	} else if (strcmp(argv[0], "repeat") == 0 && argc == 2 &&
		   parse_int(argv[1], 0, 60000, &a)) {
		p->repeat_ms = (int)a;
	} else if (strcmp(argv[0], "sleep") == 0 && argc == 2 &&
		   parse_int(argv[1], 0, 600000, &a)) {
		ret = serve(p, (int)a, NULL, false);
	} else if (strcmp(argv[0], "flood") == 0 && argc == 2 &&
		   parse_int(argv[1], 1, 10000000, &a)) {
		ret = flood(p, a);
	} else if (strcmp(argv[0], "destroy") == 0 && argc == 1) {
		ret = destroy(p);
	} else if (strcmp(argv[0], "create") == 0 && argc == 1) {
		ret = p->created ? -EEXIST : create(p);
	} else if (strcmp(argv[0], "wait-open") == 0 && argc == 2 &&
		   parse_int(argv[1], 0, 600000, &a)) {
		ret = serve(p, (int)a, &p->opened, false);
		if (ret == 0 && !p->opened)
			ret = -ETIMEDOUT;
	} else if (strcmp(argv[0], "quit") == 0 && argc == 1) {
		printf("ok quit\n");
		return 1;
	} else {
		printf("error %s: bad command or arguments\n", argv[0]);
		return 0;
	}
	if (ret < 0)
		printf("error %s: %s\n", argv[0], strerror(-ret));
	else
		printf("ok %s\n", argv[0]);
	return 0;
}

/* Runs the commands of one line; 1 means quit. */
static int run_line(struct panel *p, char *line)
{
	int ret = 0;

	for (char *cmd = line, *next; cmd && ret == 0; cmd = next) {
		next = strchr(cmd, ';');
		if (next)
			*next++ = '\0';
		ret = command(p, cmd);
	}
	return ret;
}

int main(int argc, char **argv)
{
	static struct panel panel;
	static char buf[LINE_MAX_LEN];
	size_t len = 0;
	int status = EXIT_FAILURE;

	if (argc != 2) {
		fprintf(stderr, "usage: %s RDESC.hex  (commands on standard input)\n", argv[0]);
		return EXIT_FAILURE;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	panel.fd = -1;
	panel.t0_ns = now_ns();
	if (read_rdesc(argv[1], panel.rdesc, sizeof(panel.rdesc), &panel.rdesc_size) < 0)
		return EXIT_FAILURE;
	if (panel.rdesc_size != ELAN_RDESC_SIZE) {
		fprintf(stderr, "uhid-touch: %s: %zu bytes; only the Elan 04f3:000a's "
			"descriptor (%d bytes) is known\n", argv[1], panel.rdesc_size,
			ELAN_RDESC_SIZE);
		return EXIT_FAILURE;
	}
	panel.fd = open("/dev/uhid", O_RDWR | O_CLOEXEC | O_NONBLOCK);
	if (panel.fd < 0) {
		fprintf(stderr, "uhid-touch: /dev/uhid: %s\n", strerror(errno));
		return EXIT_FAILURE;
	}
	if (create(&panel) < 0) {
		fprintf(stderr, "uhid-touch: UHID_CREATE2: the device did not start\n");
		goto out;
	}
	printf("ok create\n");

	/* Lines by hand (not stdio), so poll() sees what is still to read. */
	for (;;) {
		char *nl = memchr(buf, '\n', len);
		ssize_t n;
		int ret;

		if (nl) {
			*nl = '\0';
			ret = run_line(&panel, buf);
			len -= (size_t)(nl + 1 - buf);
			memmove(buf, nl + 1, len);
			if (ret)
				break;
			continue;
		}
		if (len == sizeof(buf) - 1) {
			fprintf(stderr, "uhid-touch: a command line longer than %zu bytes\n", len);
			goto out;
		}
		ret = serve(&panel, -1, NULL, true);
		if (ret < 0) {
			fprintf(stderr, "uhid-touch: /dev/uhid: %s\n", strerror(-ret));
			goto out;
		}
		n = read(STDIN_FILENO, buf + len, sizeof(buf) - 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			buf[len] = '\0';
			run_line(&panel, buf);  /* the end of input: a last line */
			break;
		}
		len += (size_t)n;
	}
	status = EXIT_SUCCESS;
out:
	destroy(&panel);
	close(panel.fd);
	return status;
}
