#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/clock.h"
#include "service/stats.h"

/* Frame times in buckets of 0.1 ms up to 100 ms; slower ones in the last.
 * A histogram keeps p50/p99 exact to a bucket without storing frames. */
#define BUCKET_NS 100000ull
#define BUCKETS 1000
#define PERCENT 100
#define CLOCK_LEN 16   /* "off HH:MM:SS" */
#define SLEEP_LEN 96

struct stats {
	uint32_t hist[BUCKETS];
	uint64_t frames;
	uint64_t missed;
	uint64_t since_ns;
	uint64_t touches_before;
	int started;

	/* the screens' sleep since the last line */
	bool asleep;
	uint64_t asleep_since_ns;
	uint64_t asleep_ns;        /* whole sleeps ended since the last line */
	time_t off_at, on_at;      /* wall clock, the last of each; 0: none */
	uint64_t total_frames, total_missed;
};

struct stats *stats_create(void)
{
	return calloc(1, sizeof(struct stats));
}

void stats_destroy(struct stats *s)
{
	free(s);
}

void stats_frame(struct stats *s, uint64_t ns)
{
	uint64_t b = ns / BUCKET_NS;

	s->hist[b < BUCKETS ? b : BUCKETS - 1]++;
	s->frames++;
	s->total_frames++;
}

void stats_missed_flip(struct stats *s)
{
	s->missed++;
	s->total_missed++;
}

void stats_totals(const struct stats *s, uint64_t *frames, uint64_t *missed)
{
	*frames = s->total_frames;
	*missed = s->total_missed;
}

void stats_sleep(struct stats *s, uint64_t now_ns, bool asleep)
{
	if (asleep == s->asleep)
		return;
	s->asleep = asleep;
	if (asleep) {
		s->asleep_since_ns = now_ns;
		s->off_at = time(NULL);
	} else {
		s->asleep_ns += now_ns - s->asleep_since_ns;
		s->on_at = time(NULL);
	}
}

static void clock_text(time_t t, char *buf, size_t len)
{
	struct tm tm;

	if (!localtime_r(&t, &tm) || !strftime(buf, len, "%H:%M:%S", &tm))
		snprintf(buf, len, "?");
}

/* ", asleep 312 s (off 14:02:03, on 14:07:15)", "(on 14:07:15, off
 * 14:20:00, still off)", "(still off)": the last going off and coming on,
 * in the order they came; "" when the screens were on all along. */
static void sleep_text(const struct stats *s, uint64_t now_ns, char *buf, size_t len)
{
	uint64_t ns = s->asleep_ns + (s->asleep ? now_ns - s->asleep_since_ns : 0);
	/* Asleep now, the last to come was going off. */
	bool on_first = s->asleep;
	char off[CLOCK_LEN] = "", on[CLOCK_LEN] = "";
	char parts[SLEEP_LEN] = "";
	size_t n = 0;

	buf[0] = '\0';
	if (!s->asleep && !s->off_at && !s->on_at)
		return;
	if (s->off_at) {
		memcpy(off, "off ", sizeof("off "));
		clock_text(s->off_at, off + strlen(off), sizeof(off) - strlen(off));
	}
	if (s->on_at) {
		memcpy(on, "on ", sizeof("on "));
		clock_text(s->on_at, on + strlen(on), sizeof(on) - strlen(on));
	}
	for (int i = 0; i < 3; i++) {
		const char *p = i == 2 ? (s->asleep ? "still off" : "") :
				(i == 0) == on_first ? on : off;

		if (p[0] && n < sizeof(parts))
			n += (size_t)snprintf(parts + n, sizeof(parts) - n, "%s%s",
					      n ? ", " : "", p);
	}
	snprintf(buf, len, ", asleep %llu s (%s)",
		 (unsigned long long)((ns + NSEC_PER_SEC / 2) / NSEC_PER_SEC), parts);
}

static double percentile_ms(const struct stats *s, int pct)
{
	uint64_t want = (s->frames * (uint64_t)pct + PERCENT - 1) / PERCENT, seen = 0;

	for (int b = 0; b < BUCKETS; b++) {
		seen += s->hist[b];
		if (seen >= want && want > 0)
			return (double)((uint64_t)(b + 1) * BUCKET_NS) / 1e6;
	}
	return 0.0;
}

void stats_line(struct stats *s, uint64_t now_ns, uint64_t touches, char *buf, size_t len)
{
	char sleep[SLEEP_LEN];
	double secs;

	if (!s->started) {
		/* The first call only starts the clock. */
		s->started = 1;
		s->since_ns = now_ns;
		s->touches_before = touches;
		snprintf(buf, len, "stats start");
		return;
	}
	secs = (double)(now_ns - s->since_ns) / (double)NSEC_PER_SEC;
	sleep_text(s, now_ns, sleep, sizeof(sleep));
	snprintf(buf, len, "%.1f fps, frame %.1f ms p50 / %.1f ms p99, %llu touches, "
		 "%llu missed flips%s",
		 secs > 0 ? (double)s->frames / secs : 0.0,
		 percentile_ms(s, 50), percentile_ms(s, 99),
		 (unsigned long long)(touches - s->touches_before), (unsigned long long)s->missed,
		 sleep);
	/* A sleep that goes on is counted from here in the next line. */
	s->asleep_ns = 0;
	s->asleep_since_ns = now_ns;
	s->off_at = s->on_at = 0;
	for (int b = 0; b < BUCKETS; b++)
		s->hist[b] = 0;
	s->frames = 0;
	s->missed = 0;
	s->since_ns = now_ns;
	s->touches_before = touches;
}
