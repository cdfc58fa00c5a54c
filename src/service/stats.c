#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "base/clock.h"
#include "service/stats.h"

/* Frame times in buckets of 0.1 ms up to 100 ms; slower ones in the last.
 * A histogram keeps p50/p99 exact to a bucket without storing frames. */
#define BUCKET_NS 100000ull
#define BUCKETS 1000
#define PERCENT 100

struct stats {
	uint32_t hist[BUCKETS];
	uint64_t frames;
	uint64_t missed;
	uint64_t since_ns;
	uint64_t touches_before;
	int started;
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
	snprintf(buf, len, "%.1f fps, frame %.1f ms p50 / %.1f ms p99, %llu touches, %llu missed flips",
		 secs > 0 ? (double)s->frames / secs : 0.0, percentile_ms(s, 50), percentile_ms(s, 99),
		 (unsigned long long)(touches - s->touches_before), (unsigned long long)s->missed);
	for (int b = 0; b < BUCKETS; b++)
		s->hist[b] = 0;
	s->frames = 0;
	s->missed = 0;
	s->since_ns = now_ns;
	s->touches_before = touches;
}
