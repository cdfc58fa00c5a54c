#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/file.h"
#include "base/parse.h"
#include "input/touch-script.h"
#include "water/gesture.h"

#define MAX_FIELDS 6
#define MAX_FRAME 100000000

struct touch_script {
	struct touch_event *events;
	size_t count;
	size_t played;
};

static int fail(char *err, size_t errlen, const char *name, size_t line, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

static int fail(char *err, size_t errlen, const char *name, size_t line, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(err, errlen, "%s:%zu: %s", name, line, msg);
	return -EINVAL;
}

/* Split a line (NUL-terminated, comment removed) into blank-separated
 * fields; returns how many, MAX_FIELDS + 1 meaning too many. */
static int split(char *s, char **fields)
{
	int n = 0;

	for (;;) {
		while (*s && isspace((unsigned char)*s))
			s++;
		if (!*s)
			return n;
		if (n == MAX_FIELDS)
			return MAX_FIELDS + 1;
		fields[n++] = s;
		while (*s && !isspace((unsigned char)*s))
			s++;
		if (*s)
			*s++ = '\0';
	}
}

/* "12" or "12.25": the frame and its part in 1/TOUCH_SCRIPT_PARTS. */
static int parse_frame(char *s, int *frame, uint32_t *part)
{
	char *dot = strchr(s, '.');
	size_t digits;

	*part = 0;
	if (dot) {
		digits = strlen(dot + 1);
		if (digits < 1 || digits > TOUCH_SCRIPT_PART_DIGITS ||
		    strspn(dot + 1, "0123456789") != digits)
			return -EINVAL;
		for (size_t i = 0; i < TOUCH_SCRIPT_PART_DIGITS; i++)
			*part = *part * 10 + (i < digits ? (uint32_t)(dot[1 + i] - '0') : 0);
		*dot = '\0';
	}
	return parse_int(s, 0, MAX_FRAME, frame);
}

static int parse_line(char *text, const char *name, size_t lineno, const struct touch_event *last,
		      const bool *down, struct touch_event *ev, char *err, size_t errlen)
{
	char *f[MAX_FIELDS];
	int n = split(text, f);
	char frame_text[64];
	int frame, need;
	uint32_t part;

	if (n < 3)
		return fail(err, errlen, name, lineno,
			    "expected 'FRAME down|move|up FINGER [X Y]', got %d field%s",
			    n, n == 1 ? "" : "s");
	snprintf(frame_text, sizeof(frame_text), "%s", f[0]);
	if (parse_frame(f[0], &frame, &part) < 0)
		return fail(err, errlen, name, lineno,
			    "frame '%s' is not a number from 0 to %d (a whole one, or with up "
			    "to %d decimals)", frame_text, MAX_FRAME, TOUCH_SCRIPT_PART_DIGITS);
	if ((uint64_t)frame < last->frame || ((uint64_t)frame == last->frame && part < last->part))
		return fail(err, errlen, name, lineno,
			    "frame %s comes after frame %" PRIu64 "%s; frames must not go back",
			    frame_text, last->frame, last->part ? " and a part" : "");
	if (strcmp(f[1], "down") == 0)
		ev->action = TOUCH_DOWN;
	else if (strcmp(f[1], "move") == 0)
		ev->action = TOUCH_MOVE;
	else if (strcmp(f[1], "up") == 0)
		ev->action = TOUCH_UP;
	else
		return fail(err, errlen, name, lineno,
			    "unknown action '%s', expected down, move or up", f[1]);
	if (parse_int(f[2], 0, GESTURE_MAX_SLOTS - 1, &ev->finger) < 0)
		return fail(err, errlen, name, lineno,
			    "finger '%s' is not a number from 0 to %d",
			    f[2], GESTURE_MAX_SLOTS - 1);

	need = ev->action == TOUCH_UP ? 3 : 5;
	if (n != need)
		return fail(err, errlen, name, lineno, "'%s' takes %s, got %d field%s", f[1],
			    need == 3 ? "FRAME up FINGER" : "FRAME ACTION FINGER X Y",
			    n, n == 1 ? "" : "s");
	ev->x = ev->y = 0;
	if (need == 5) {
		if (parse_int(f[3], -TOUCH_SCRIPT_MAX_COORD, TOUCH_SCRIPT_MAX_COORD, &ev->x) < 0 ||
		    parse_int(f[4], -TOUCH_SCRIPT_MAX_COORD, TOUCH_SCRIPT_MAX_COORD, &ev->y) < 0)
			return fail(err, errlen, name, lineno,
				    "coordinates '%s %s' are not whole numbers within +-%d",
				    f[3], f[4], TOUCH_SCRIPT_MAX_COORD);
	}
	if (ev->action == TOUCH_DOWN && down[ev->finger])
		return fail(err, errlen, name, lineno, "finger %d is already down", ev->finger);
	if (ev->action != TOUCH_DOWN && !down[ev->finger])
		return fail(err, errlen, name, lineno, "finger %d is not down", ev->finger);
	ev->frame = (uint64_t)frame;
	ev->part = part;
	return 0;
}

int touch_script_parse(const char *text, size_t len, const char *name,
		       struct touch_script **out, char *err, size_t errlen)
{
	struct touch_script *s = NULL;
	bool down[GESTURE_MAX_SLOTS] = { false };
	struct touch_event last = { 0 };
	size_t lineno = 0, cap = 0, pos = 0;
	char *line = NULL;
	int ret = -ENOMEM;

	if (len > TOUCH_SCRIPT_MAX_BYTES) {
		snprintf(err, errlen, "%s: larger than %u bytes", name, TOUCH_SCRIPT_MAX_BYTES);
		return -EFBIG;
	}
	s = calloc(1, sizeof(*s));
	line = malloc(len + 1);
	if (!s || !line)
		goto fail;

	while (pos < len) {
		size_t end = pos, n;
		struct touch_event ev;
		char *hash;

		while (end < len && text[end] != '\n')
			end++;
		n = end - pos;
		lineno++;
		memcpy(line, text + pos, n);
		line[n] = '\0';
		pos = end + 1;

		if (memchr(line, '\0', n)) {
			ret = fail(err, errlen, name, lineno,
				   "contains a NUL byte; not a text file");
			goto fail;
		}
		hash = strchr(line, '#');
		if (hash)
			*hash = '\0';
		if (line[strspn(line, " \t\r")] == '\0')
			continue;

		ret = parse_line(line, name, lineno, &last, down, &ev, err, errlen);
		if (ret < 0)
			goto fail;
		down[ev.finger] = ev.action != TOUCH_UP;
		last = ev;

		if (s->count == cap) {
			size_t ncap = cap ? cap * 2 : 64;
			struct touch_event *ne = realloc(s->events, ncap * sizeof(*ne));

			if (!ne) {
				ret = -ENOMEM;
				goto fail;
			}
			s->events = ne;
			cap = ncap;
		}
		s->events[s->count++] = ev;
	}
	free(line);
	*out = s;
	return 0;

fail:
	if (ret == -ENOMEM)
		snprintf(err, errlen, "%s: out of memory", name);
	free(line);
	touch_script_destroy(s);
	return ret;
}

int touch_script_load(const char *path, struct touch_script **out, char *err, size_t errlen)
{
	char *buf = NULL, why[256];
	size_t len = 0;
	int ret;

	ret = file_read_all(path, TOUCH_SCRIPT_MAX_BYTES, &buf, &len, why, sizeof(why));
	if (ret < 0) {
		snprintf(err, errlen, "%s: %s", path, why);
		return ret;
	}
	ret = touch_script_parse(buf, len, path, out, err, errlen);
	free(buf);
	return ret;
}

void touch_script_destroy(struct touch_script *s)
{
	if (!s)
		return;
	free(s->events);
	free(s);
}

size_t touch_script_count(const struct touch_script *s)
{
	return s->count;
}

const struct touch_event *touch_script_event(const struct touch_script *s, size_t i)
{
	return i < s->count ? &s->events[i] : NULL;
}

uint64_t touch_script_at_ns(const struct touch_event *ev, unsigned hz)
{
	/* In whole ns, as the headless display counts its frames. A part is
	 * a whole number of ns (NSEC_PER_SEC / TOUCH_SCRIPT_PARTS) per 1 Hz,
	 * so the product stays within 64 bits up to the last frame a
	 * script may name (MAX_FRAME), where ns * PARTS would not. */
	_Static_assert(NSEC_PER_SEC % TOUCH_SCRIPT_PARTS == 0, "a part is whole ns");
	_Static_assert((MAX_FRAME + 1ull) * TOUCH_SCRIPT_PARTS <
		       UINT64_MAX / (NSEC_PER_SEC / TOUCH_SCRIPT_PARTS),
		       "the last frame's time fits");
	return (ev->frame * TOUCH_SCRIPT_PARTS + ev->part) *
	       (NSEC_PER_SEC / TOUCH_SCRIPT_PARTS) / hz;
}

static void play_event(struct gesture *g, const struct touch_event *ev)
{
	switch (ev->action) {
	case TOUCH_DOWN:
		gesture_down(g, ev->finger, ev->x, ev->y, 0, 0);
		break;
	case TOUCH_MOVE:
		gesture_move(g, ev->finger, ev->x, ev->y);
		break;
	case TOUCH_UP:
		gesture_up(g, ev->finger);
		break;
	}
}

/* Whether ev is due in frame `frame` that starts at start_ns. */
static bool due(const struct touch_event *ev, uint64_t frame, uint64_t start_ns, unsigned hz)
{
	if (ev->part == 0)
		return ev->frame <= frame;
	return ev->frame < frame + 1 && touch_script_at_ns(ev, hz) <= start_ns;
}

int touch_script_play_until(struct touch_script *s, uint64_t frame, uint64_t start_ns,
			    unsigned hz, uint64_t base_ns, struct gesture *g,
			    touch_script_timed_fn timed, void *data)
{
	int n = 0;

	while (s->played < s->count && due(&s->events[s->played], frame, start_ns, hz)) {
		const struct touch_event *ev = &s->events[s->played++];
		uint64_t at = ev->part ? touch_script_at_ns(ev, hz) : start_ns;

		play_event(g, ev);
		/* a moment's landing at its own time, as a live one */
		if (ev->action == TOUCH_DOWN && ev->part)
			gesture_date_landing(g, ev->finger, base_ns + at);
		if (timed && ev->action != TOUCH_UP)
			timed(data, at);
		n++;
	}
	return n;
}

const struct touch_event *touch_script_next(const struct touch_script *s)
{
	return s->played < s->count ? &s->events[s->played] : NULL;
}
