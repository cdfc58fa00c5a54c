/*
 * /metrics: the kiosk's facts in Prometheus' text format (version 0.0.4):
 * counters and gauges, the touch-to-photon histograms (overall, by stage,
 * by source), CEC's and the trackers' counts, the server's refusals.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "base/util.h"
#include "http/http-private.h"
#include "tuio/tuio.h"

/* One latency histogram's lines: cumulative 1 ms buckets, then +Inf. */
static void histogram_lines(struct buf *b, const char *name, const char *label,
			    const struct http_latency *l)
{
	uint64_t seen = 0;

	for (int i = 0; i < HTTP_LATENCY_BUCKETS; i++) {
		seen += l->bucket[i];
		buf_printf(b, "%s_bucket{%sle=\"%.3f\"} %llu\n", name, label, (i + 1) / 1000.0,
			   (unsigned long long)seen);
	}
	buf_printf(b, "%s_bucket{%sle=\"+Inf\"} %llu\n", name, label, (unsigned long long)l->count);
	/* the sum and count carry the label alone (its comma dropped) */
	if (*label)
		buf_printf(b, "%s_sum{%.*s} %.6f\n%s_count{%.*s} %llu\n", name,
			   (int)strlen(label) - 1, label, l->sum_s, name, (int)strlen(label) - 1,
			   label, (unsigned long long)l->count);
	else
		buf_printf(b, "%s_sum %.6f\n%s_count %llu\n", name, l->sum_s, name,
			   (unsigned long long)l->count);
}

/* n histograms under one name, told apart by key="their name". */
static void labelled_histograms(struct buf *b, const char *name, const char *help,
				const char *key, const struct http_latency *h, int n)
{
	char label[64];

	buf_printf(b, "# HELP %s Touch to photon %s.\n# TYPE %s histogram\n", name, help, name);
	for (int i = 0; i < n; i++) {
		snprintf(label, sizeof(label), "%s=\"%s\",", key, h[i].stage ? h[i].stage : "");
		histogram_lines(b, name, label, &h[i]);
	}
}

/*
 * Touch to photon: the whole way under the name it always had (its
 * buckets now 1 ms wide up to 40 ms), its p50, p99 and maximum, each
 * stage's histogram by a label, and the vblanks frames missed.
 */
static void latency_metrics(struct buf *b, const struct http_facts *f)
{
	const struct http_latency *t = &f->latency[0];

	buf_printf(b, "# HELP ripple_kiosk_touch_to_photon_seconds From a touch's evdev time to "
		   "the flip that shows it.\n# TYPE ripple_kiosk_touch_to_photon_seconds "
		   "histogram\n");
	histogram_lines(b, "ripple_kiosk_touch_to_photon_seconds", "", t);
	/* gauges of their own: a quantile label belongs to summaries alone */
	buf_printf(b, "# HELP ripple_kiosk_touch_to_photon_p50_seconds Touch to photon's median "
		   "since the start.\n# TYPE ripple_kiosk_touch_to_photon_p50_seconds gauge\n"
		   "ripple_kiosk_touch_to_photon_p50_seconds %.6f\n"
		   "# HELP ripple_kiosk_touch_to_photon_p99_seconds Its 99th percentile.\n"
		   "# TYPE ripple_kiosk_touch_to_photon_p99_seconds gauge\n"
		   "ripple_kiosk_touch_to_photon_p99_seconds %.6f\n"
		   "# HELP ripple_kiosk_touch_to_photon_max_seconds Its maximum.\n"
		   "# TYPE ripple_kiosk_touch_to_photon_max_seconds gauge\n"
		   "ripple_kiosk_touch_to_photon_max_seconds %.6f\n",
		   t->p50_ms / 1000, t->p99_ms / 1000, t->max_ms / 1000);
	labelled_histograms(b, "ripple_kiosk_touch_to_photon_stage_seconds",
			    "by stage: read, step, render, commit, flip", "stage", f->latency + 1,
			    HTTP_LATENCY_STAGES - 1);
	labelled_histograms(b, "ripple_kiosk_touch_to_photon_source_seconds",
			    "by where the touch came from: a touchscreen (from its evdev time), a "
			    "tracker over TUIO (from its datagram's arrival), the camera (from its "
			    "frame's capture)", "source",
			    f->latency_source, HTTP_LATENCY_SOURCES);
	buf_printf(b, "# HELP ripple_kiosk_missed_vblanks_total Vblanks frames came late by.\n"
		   "# TYPE ripple_kiosk_missed_vblanks_total counter\n"
		   "ripple_kiosk_missed_vblanks_total %llu\n",
		   (unsigned long long)f->missed_vblanks);
}

/* A label's value as Prometheus's text format writes it. */
static void label_escaped(struct buf *b, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\' || *s == '"')
			buf_printf(b, "\\%c", *s);
		else if (*s == '\n')
			buf_printf(b, "\\n");
		else if ((unsigned char)*s >= 0x20)
			buf_printf(b, "%c", *s);
	}
}

/* The TV through HDMI-CEC: the adapter as an info metric, the TV's power
 * state one gauge per state (1 for the one it is in), the messages by how
 * they went. Nothing with --cec off. */
static void cec_metrics(struct buf *b, const struct http_cec *c)
{
	static const char *const states[] = {
		"unknown", "not answering", "answering, power not said", "on", "standby",
		"turning on", "going to standby",
	};

	if (!c->enabled)
		return;
	buf_printf(b, "# HELP ripple_kiosk_cec_adapter_info The HDMI-CEC adapter in use "
		   "(none: adapter=\"\").\n# TYPE ripple_kiosk_cec_adapter_info gauge\n"
		   "ripple_kiosk_cec_adapter_info{adapter=\"");
	label_escaped(b, c->adapter);
	buf_printf(b, "\",link=\"%s\",physical_address=\"%s\",logical_address=\"%d\"} 1\n",
		   c->link, c->pa, c->la);
	buf_printf(b, "# HELP ripple_kiosk_cec_tv_state The TV's state through HDMI-CEC: 1 for "
		   "the one it is in.\n# TYPE ripple_kiosk_cec_tv_state gauge\n");
	for (size_t i = 0; i < ARRAY_SIZE(states); i++)
		buf_printf(b, "ripple_kiosk_cec_tv_state{state=\"%s\"} %d\n", states[i],
			   strcmp(states[i], c->tv) == 0);
	buf_printf(b, "# HELP ripple_kiosk_cec_messages_total HDMI-CEC messages sent, by how "
		   "they went (refused: nobody acknowledged).\n"
		   "# TYPE ripple_kiosk_cec_messages_total counter\n"
		   "ripple_kiosk_cec_messages_total{result=\"sent\"} %llu\n"
		   "ripple_kiosk_cec_messages_total{result=\"refused\"} %llu\n"
		   "ripple_kiosk_cec_messages_total{result=\"timed_out\"} %llu\n",
		   (unsigned long long)c->sent, (unsigned long long)c->refused,
		   (unsigned long long)c->timed_out);
}

/* The trackers (--tuio): what came, and what was refused by why. Nothing
 * without --tuio. */
static void tuio_metrics(struct buf *b, const struct http_facts *f)
{
	const struct tuio_counts *c = &f->tuio_counts;

	if (!f->tuio)
		return;
	buf_printf(b, "# HELP ripple_kiosk_tuio_packets_total Datagrams read from trackers.\n"
		   "# TYPE ripple_kiosk_tuio_packets_total counter\n"
		   "ripple_kiosk_tuio_packets_total %llu\n"
		   "# HELP ripple_kiosk_tuio_frames_total Trackers' frames taken.\n"
		   "# TYPE ripple_kiosk_tuio_frames_total counter\n"
		   "ripple_kiosk_tuio_frames_total %llu\n"
		   "# HELP ripple_kiosk_tuio_trackers Trackers heard within the timeout.\n"
		   "# TYPE ripple_kiosk_tuio_trackers gauge\nripple_kiosk_tuio_trackers %d\n"
		   "# HELP ripple_kiosk_tuio_points Trackers' points on the water.\n"
		   "# TYPE ripple_kiosk_tuio_points gauge\nripple_kiosk_tuio_points %d\n"
		   "# HELP ripple_kiosk_tuio_rejected_total Trackers' packets and parts of them "
		   "refused, by why.\n# TYPE ripple_kiosk_tuio_rejected_total counter\n",
		   (unsigned long long)c->packets, (unsigned long long)c->frames, c->sources,
		   c->points);
	for (int i = 0; i < TUIO_REJECT_COUNT; i++)
		buf_printf(b, "ripple_kiosk_tuio_rejected_total{reason=\"%s\"} %llu\n",
			   tuio_reject_name((enum tuio_reject)i),
			   (unsigned long long)c->rejected[i]);
}

/* A plain number with its help and type, ripple_kiosk_ + prefix + name. */
struct metric {
	const char *name, *type, *help;
	double value;
};

static void metrics_out(struct buf *b, const char *prefix, const struct metric *m, size_t n)
{
	for (size_t i = 0; i < n; i++)
		buf_printf(b, "# HELP ripple_kiosk_%s%s %s\n# TYPE ripple_kiosk_%s%s %s\n"
			   "ripple_kiosk_%s%s %.15g\n", prefix, m[i].name, m[i].help, prefix,
			   m[i].name, m[i].type, prefix, m[i].name, m[i].value);
}

/* The camera (--camera): its frames, what the vision sees, its state as a
 * labelled gauge (1 for the state it is in). Nothing without --camera. */
static void camera_metrics(struct buf *b, const struct http_facts *f)
{
	const struct camera_counts *c = &f->camera_counts;
	const struct metric metrics[] = {
		{ "fps", "gauge", "Camera frames taken a second, lately.", c->fps },
		{ "frames_total", "counter", "Camera frames taken.", (double)c->frames },
		{ "dropped_total", "counter", "Camera frames dropped for a newer one, or lost.",
		  (double)c->dropped },
		{ "errors_total", "counter", "Camera frames flagged as errors, or undecodable.",
		  (double)c->errors },
		{ "blobs", "gauge", "Blobs the camera saw in its last frame.", c->blobs },
		{ "tracks", "gauge", "The camera's confirmed tracks: its touches.", c->tracks },
		{ "foreground_ratio", "gauge", "The share of the camera's last frame seen as "
		  "people.", c->foreground },
		{ "relearns_total", "counter", "Sudden changes of light the camera learnt the "
		  "floor again after.", (double)c->relearns },
		{ "floods_total", "counter", "Times the camera saw motion everywhere.",
		  (double)c->floods },
	};

	if (!f->camera)
		return;
	metrics_out(b, "camera_", metrics, ARRAY_SIZE(metrics));
	buf_printf(b, "# HELP ripple_kiosk_camera_state The camera's state: 1 for the one it "
		   "is in.\n# TYPE ripple_kiosk_camera_state gauge\n");
	for (int s = CAMERA_OFF; s <= CAMERA_ENDED; s++)
		buf_printf(b, "ripple_kiosk_camera_state{state=\"%s\"} %d\n",
			   camera_state_name((enum camera_state)s), c->state == (enum camera_state)s);
}

void http_metrics_write(struct buf *b, const struct http_facts *f, double uptime_s,
			const uint64_t refused[HTTP_REFUSALS])
{
	buf_printf(b, "# HELP ripple_kiosk_build_info The version running.\n"
		   "# TYPE ripple_kiosk_build_info gauge\n"
		   "ripple_kiosk_build_info{version=\"%s\"} 1\n", PACKAGE_VERSION);
	const struct metric metrics[] = {
		{ "uptime_seconds", "gauge", "Seconds since the kiosk started.", uptime_s },
		{ "frames_total", "counter", "Frames drawn.", (double)f->frames },
		{ "missed_flips_total", "counter", "Frames not shown in time.",
		  (double)f->missed_flips },
		{ "touches_total", "counter", "Fingers landed.", (double)f->touches },
		{ "touches_today", "gauge", "Fingers landed since local midnight.",
		  (double)f->touches_today },
		{ "peak_fingers", "gauge", "The most fingers down at once.", f->peak_fingers },
		{ "asleep", "gauge", "1 while the exhibit sleeps.", f->asleep },
		{ "screens", "gauge", "Screens connected.", f->n_screens },
		{ "touch_devices", "gauge", "Touch devices in use.", f->touch_devices },
	};
	metrics_out(b, "", metrics, ARRAY_SIZE(metrics));
	latency_metrics(b, f);
	cec_metrics(b, &f->cec);
	tuio_metrics(b, f);
	camera_metrics(b, f);
	buf_printf(b, "# HELP ripple_kiosk_http_refused_total Requests and connections the "
		   "status server refused, by why.\n"
		   "# TYPE ripple_kiosk_http_refused_total counter\n");
	for (int i = 0; i < HTTP_REFUSALS; i++)
		buf_printf(b, "ripple_kiosk_http_refused_total{reason=\"%s\"} %llu\n",
			   http_refusal_name((enum http_refusal)i), (unsigned long long)refused[i]);
}
