/* Built without liblo: --tuio says so, and there are no trackers. */
#include "config.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "base/log.h"
#include "tuio/tuio-private.h"

const char *tuio_reject_name(enum tuio_reject r)
{
	(void)r;
	return "unknown";
}

int tuio_create(const struct tuio_config *c, struct tuio **out)
{
	(void)c;
	*out = NULL;
	log_error("--tuio: this build has no trackers (it was built without liblo)");
	return -ENOTSUP;
}

int tuio_create_on(const struct tuio_config *c, int fd, struct tuio **out)
{
	if (fd >= 0)
		close(fd);
	return tuio_create(c, out);
}

int tuio_create_unbound(const struct tuio_config *c, struct tuio **out)
{
	(void)c;
	*out = NULL;
	return -ENOTSUP;
}

void tuio_destroy(struct tuio *t)
{
	(void)t;
}

int tuio_get_fd(const struct tuio *t)
{
	(void)t;
	return -1;
}

int tuio_dispatch(struct tuio *t, uint64_t now_ns)
{
	(void)t;
	(void)now_ns;
	return 0;
}

uint64_t tuio_paused_until(const struct tuio *t, uint64_t now_ns)
{
	(void)t;
	(void)now_ns;
	return 0;
}

int tuio_wait(const struct tuio *t, uint64_t now_ns, uint64_t *wake)
{
	(void)t;
	(void)now_ns;
	(void)wake;
	return -1;
}

void tuio_feed(struct tuio *t, const void *data, size_t len, const char *sender,
	       uint64_t arrival_ns, uint64_t now_ns)
{
	(void)t;
	(void)data;
	(void)len;
	(void)sender;
	(void)arrival_ns;
	(void)now_ns;
}

void tuio_expire(struct tuio *t, uint64_t now_ns)
{
	(void)t;
	(void)now_ns;
}

uint64_t tuio_next_expiry(const struct tuio *t)
{
	(void)t;
	return 0;
}

void tuio_set_target(struct tuio *t, struct gesture *g, int screen_w, int screen_h,
		     double mm_w, double mm_h)
{
	(void)t;
	(void)g;
	(void)screen_w;
	(void)screen_h;
	(void)mm_w;
	(void)mm_h;
}

void tuio_set_stones(struct tuio *t, const struct input_stones *s)
{
	(void)t;
	(void)s;
}

int tuio_take_touch_times(struct tuio *t, struct input_touch_time *out, int n)
{
	(void)t;
	(void)out;
	(void)n;
	return 0;
}

void tuio_get_counts(const struct tuio *t, struct tuio_counts *out)
{
	(void)t;
	memset(out, 0, sizeof(*out));
}
