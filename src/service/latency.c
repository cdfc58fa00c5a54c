#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "service/latency.h"

/* latency_describe()'s line at its longest, and some */
#define LATENCY_LINE_LEN 256

const char *const latency_source_names[LATENCY_SOURCES] = {
	[LATENCY_TOUCHSCREEN] = "touchscreen",
	[LATENCY_TRACKER] = "tuio",
	[LATENCY_CAMERA] = "camera",
};

const char *const latency_stage_names[LATENCY_STAGES] = {
	[LATENCY_TOTAL] = "total",
	[LATENCY_READ] = "read",
	[LATENCY_STEP] = "step",
	[LATENCY_RENDER] = "render",
	[LATENCY_COMMIT] = "commit",
	[LATENCY_FLIP] = "flip",
};

struct latency {
	struct latency_view total;     /* since the start */
	struct latency_view interval;  /* since the last stats line */
};

struct latency *latency_create(void)
{
	return calloc(1, sizeof(struct latency));
}

void latency_destroy(struct latency *l)
{
	free(l);
}

static void hist_add(struct latency_hist *h, uint64_t ns)
{
	uint64_t i = ns / LATENCY_BUCKET_NS;

	if (i < LATENCY_BUCKETS)
		h->bucket[i]++;
	else
		h->beyond++;
	h->count++;
	h->sum_ns += ns;
	if (ns > h->max_ns)
		h->max_ns = ns;
}

static void view_add(struct latency_view *v, const struct latency_frame *f,
		     const struct latency_touch *t)
{
	/* each stage from the end of the one before it; a stamp out of
	 * order (a clock that disagrees) counts the stage as nothing */
	const uint64_t at[LATENCY_STAGES + 1] = {
		0, t->event_ns, t->read_ns, f->step_ns, f->drawn_ns, f->commit_ns, f->flip_ns,
	};

	hist_add(&v->stage[LATENCY_TOTAL], f->flip_ns - t->event_ns);
	if (t->source < LATENCY_SOURCES)
		hist_add(&v->source[t->source], f->flip_ns - t->event_ns);
	for (int s = LATENCY_READ; s < LATENCY_STAGES; s++)
		hist_add(&v->stage[s], at[s + 1] > at[s] ? at[s + 1] - at[s] : 0);
}

void latency_frame_shown(struct latency *l, const struct latency_frame *f,
			 const struct latency_touch *t, int n)
{
	if (!l || f->flip_ns == 0)
		return;
	l->total.frames++;
	l->interval.frames++;
	for (int i = 0; i < n; i++) {
		/* a touch from the future (a clock set by hand, a device's own
		 * stamps) says nothing of the kiosk */
		if (t[i].event_ns == 0 || t[i].event_ns > f->flip_ns)
			continue;
		view_add(&l->total, f, &t[i]);
		view_add(&l->interval, f, &t[i]);
	}
}

void latency_missed(struct latency *l, uint64_t vblanks)
{
	if (!l)
		return;
	l->total.missed_vblanks += vblanks;
	l->interval.missed_vblanks += vblanks;
}

void latency_totals(const struct latency *l, struct latency_view *out)
{
	if (l)
		*out = l->total;
	else
		memset(out, 0, sizeof(*out));
}

void latency_take_interval(struct latency *l, struct latency_view *out)
{
	if (!l) {
		memset(out, 0, sizeof(*out));
		return;
	}
	*out = l->interval;
	memset(&l->interval, 0, sizeof(l->interval));
}

void latency_describe(const struct latency_view *v, char *buf, size_t len)
{
	const struct latency_hist *t = &v->stage[LATENCY_TOTAL];
	int n = 0;

	if (len == 0)
		return;
	buf[0] = '\0';
	if (t->count)
		n = snprintf(buf, len, ", touch to photon %.1f ms p50 / %.1f p99 / %.1f max "
			     "(%llu touch%s)",
			     latency_quantile_ms(t, 0.5), latency_quantile_ms(t, 0.99),
			     latency_quantile_ms(t, 1), (unsigned long long)t->count,
			     t->count == 1 ? "" : "es");
	if (n >= 0 && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n, ", %llu missed vblank%s",
			 (unsigned long long)v->missed_vblanks, v->missed_vblanks == 1 ? "" : "s");
}

void latency_say_run(const struct latency *l, const char *what)
{
	struct latency_view v;
	char line[LATENCY_LINE_LEN];

	latency_totals(l, &v);
	if (v.stage[LATENCY_TOTAL].count == 0)
		return;
	latency_describe(&v, line, sizeof(line));
	log_info("%s: %llu frames shown%s", what, (unsigned long long)v.frames, line);
}

double latency_quantile_ms(const struct latency_hist *h, double q)
{
	double want, seen = 0;

	if (h->count == 0)
		return 0;
	if (q >= 1)
		return (double)h->max_ns / 1e6;
	/* the rank of the quantile, 1-based: at least the first */
	want = q * (double)h->count;
	if (want < 1)
		want = 1;
	for (int i = 0; i < LATENCY_BUCKETS; i++) {
		double in = (double)h->bucket[i];

		if (in > 0 && seen + in >= want) {
			double ms = i + (want - seen) / in;
			double most = (double)h->max_ns / 1e6;

			return ms < most ? ms : most;
		}
		seen += in;
	}
	return (double)h->max_ns / 1e6;
}
