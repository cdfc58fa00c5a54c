#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "base/clock.h"
#include "http/http-private.h"

/* The status page asks for itself (and so the live picture) this often. */
#define PAGE_REFRESH_S 5
/* The chart: a bar for every hour, this many pixels wide and at most this high. */
#define CHART_BAR_W 4
#define CHART_H 120
#define CHART_LABEL_H 16
/* The file the chart is drawn from, in the state directory. */
#define CHART_FILE "usage.csv"

static void uptime_text(struct buf *b, double s)
{
	long t = (long)s;

	buf_printf(b, "%ldd %02ld:%02ld:%02ld", t / SECONDS_PER_DAY,
		   t % SECONDS_PER_DAY / SECONDS_PER_HOUR, t % SECONDS_PER_HOUR / 60, t % 60);
}

/* usage.csv as it is now (not through a symlink: the chart does not read
 * one), and the hour of local time that holds now. */
static void chart_key_now(const struct http *h, time_t now, struct chart_key *k)
{
	char path[PATH_MAX];
	struct stat st;
	struct tm tm;

	memset(k, 0, sizeof(*k));
	localtime_r(&now, &tm);
	k->hour = now - tm.tm_min * SECONDS_PER_MINUTE - tm.tm_sec;
	if (snprintf(path, sizeof(path), "%s/%s", h->state_dir, CHART_FILE) <
	    (int)sizeof(path) && lstat(path, &st) == 0) {
		k->dev = (uint64_t)st.st_dev;
		k->ino = (uint64_t)st.st_ino;
		k->size = (uint64_t)st.st_size;
		k->mtime_s = (int64_t)st.st_mtim.tv_sec;
		k->mtime_ns = st.st_mtim.tv_nsec;
	}
}

static bool chart_key_same(const struct chart_key *a, const struct chart_key *b)
{
	return a->dev == b->dev && a->ino == b->ino && a->size == b->size &&
	       a->mtime_s == b->mtime_s && a->mtime_ns == b->mtime_ns && a->hour == b->hour;
}

/* The hours of the chart: made again only when usage.csv changed or another
 * hour began, by one client while the others wait for it. Every client
 * asks for the page every few seconds; the file is read once an hour. */
static int chart_hours(struct http *h, time_t now, uint32_t *hourly)
{
	struct chart_key key;
	int ret;

	if (!h->chart || !h->state_dir)
		return -ENOENT;
	chart_key_now(h, now, &key);
	pthread_mutex_lock(&h->chart_lock);
	if (!h->chart_made || !chart_key_same(&key, &h->chart_key)) {
		memset(h->chart_hourly, 0, sizeof(h->chart_hourly));
		h->chart_ret = h->chart(h->state_dir, now, h->chart_hourly);
		h->chart_key = key;
		h->chart_made = true;
	}
	memcpy(hourly, h->chart_hourly, sizeof(h->chart_hourly));
	ret = h->chart_ret;
	pthread_mutex_unlock(&h->chart_lock);
	return ret;
}

/* Touches per hour for 7 days, drawn here: the page needs no script. */
static void chart(struct http *h, struct buf *b)
{
	uint32_t hourly[HTTP_CHART_HOURS];
	uint32_t top = 1;
	int w = HTTP_CHART_HOURS * CHART_BAR_W;
	time_t now = time(NULL);

	if (chart_hours(h, now, hourly) < 0) {
		buf_printf(b, "<p>No usage numbers yet.</p>\n");
		return;
	}
	for (int i = 0; i < HTTP_CHART_HOURS; i++)
		if (hourly[i] > top)
			top = hourly[i];
	buf_printf(b, "<svg id=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
		   "height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\" "
		   "aria-label=\"touches per hour, last %d days\">\n"
		   "<rect width=\"%d\" height=\"%d\" fill=\"#f4f4f4\"/>\n",
		   w, CHART_H + CHART_LABEL_H, w, CHART_H + CHART_LABEL_H, HTTP_CHART_DAYS, w,
		   CHART_H);
	for (int d = 1; d < HTTP_CHART_DAYS; d++)
		buf_printf(b, "<line x1=\"%d\" y1=\"0\" x2=\"%d\" y2=\"%d\" stroke=\"#bbb\"/>\n",
			   d * 24 * CHART_BAR_W, d * 24 * CHART_BAR_W, CHART_H);
	for (int i = 0; i < HTTP_CHART_HOURS; i++) {
		int bh = (int)((uint64_t)hourly[i] * CHART_H / top);

		if (hourly[i] && bh < 1)
			bh = 1;
		if (bh)
			buf_printf(b, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" "
				   "fill=\"#1f6fb2\"><title>%u</title></rect>\n",
				   i * CHART_BAR_W, CHART_H - bh, CHART_BAR_W - 1, bh, hourly[i]);
	}
	for (int d = 0; d < HTTP_CHART_DAYS; d++) {
		time_t day = now - (time_t)(HTTP_CHART_DAYS - 1 - d) * SECONDS_PER_DAY;
		struct tm tm;
		char label[16];

		localtime_r(&day, &tm);
		strftime(label, sizeof(label), "%a %d", &tm);
		buf_printf(b, "<text x=\"%d\" y=\"%d\" font-size=\"12\">%s</text>\n",
			   d * 24 * CHART_BAR_W + 2, CHART_H + CHART_LABEL_H - 3, label);
	}
	buf_printf(b, "</svg>\n<p>Most in an hour: %u.</p>\n", top);
}

/* What each of the camera's states means, for the technician. */
static const char *camera_words(enum camera_state s)
{
	switch (s) {
	case CAMERA_STARTING:
		return "starting: learning the empty floor";
	case CAMERA_RUNNING:
		return "running: feet and hands are touches";
	case CAMERA_RELEARNING:
		return "relearning: the light changed at once; no new touches for a moment";
	case CAMERA_FLOODED:
		return "flooded: motion everywhere; its touches capped";
	case CAMERA_STALLED:
		return "stalled: no frame for a while; opening it again";
	case CAMERA_UNPLUGGED:
		return "unplugged: waiting for it to come back";
	case CAMERA_BUSY:
		return "busy: another program has it; trying again";
	case CAMERA_ENDED:
		return "ended: its recording played to the end";
	case CAMERA_OFF:
	default:
		return "off";
	}
}

/* The camera's section: its picture, state and counts. */
static void camera_section(struct buf *b, const struct http_facts *f)
{
	const struct camera_counts *c = &f->camera_counts;

	if (!f->camera)
		return;
	buf_printf(b, "<h2>Camera</h2>\n<p><img id=\"camera\" src=\"/camera.png\" "
		   "alt=\"what the camera sees: people tinted, tracks ringed, the surface "
		   "outlined\" width=\"640\"></p>\n<table>\n<tr><th>State</th><td>%s</td></tr>\n"
		   "<tr><th>Reading</th><td>", camera_words(c->state));
	buf_escaped(b, c->source, false);
	buf_printf(b, "</td></tr>\n<tr><th>Frame rate</th><td>%.1f fps</td></tr>\n"
		   "<tr><th>Frames</th><td>%llu (dropped: %llu, errors: %llu)</td></tr>\n"
		   "<tr><th>Blobs, tracks</th><td>%d, %d</td></tr>\n"
		   "<tr><th>Seen as people</th><td>%.1f %%</td></tr>\n"
		   "<tr><th>Relearnt, flooded</th><td>%llu, %llu times</td></tr>\n</table>\n",
		   c->fps, (unsigned long long)c->frames, (unsigned long long)c->dropped,
		   (unsigned long long)c->errors, c->blobs, c->tracks, 100 * c->foreground,
		   (unsigned long long)c->relearns, (unsigned long long)c->floods);
}

void http_page(struct http *h, struct http_reply *r)
{
	struct http_facts f;
	struct buf b;
	double up;

	http_take_facts(h, &f, &up);
	buf_init(&b);
	buf_printf(&b, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
		   "<meta http-equiv=\"refresh\" content=\"%d\">\n"
		   "<meta name=\"viewport\" content=\"width=device-width\">\n"
		   "<title>ripple-kiosk: %s</title>\n"
		   "<style>body{font-family:sans-serif;margin:1em}img{max-width:100%%}"
		   "td,th{padding:0 .6em;text-align:left}</style>\n</head><body>\n"
		   "<h1>ripple-kiosk %s</h1>\n"
		   "<p><img id=\"screen\" src=\"/screen.png\" alt=\"the screen now\" "
		   "width=\"640\"></p>\n<table>\n", PAGE_REFRESH_S,
		   f.asleep ? "asleep" : "awake", PACKAGE_VERSION);
	buf_printf(&b, "<tr><th>State</th><td>%s</td></tr>\n", f.asleep ? "asleep" : "awake");
	buf_printf(&b, "<tr><th>Frame rate</th><td>%.1f fps</td></tr>\n", f.fps);
	buf_printf(&b, "<tr><th>Frames</th><td>%llu (missed flips: %llu)</td></tr>\n",
		   (unsigned long long)f.frames, (unsigned long long)f.missed_flips);
	buf_printf(&b, "<tr><th>Screens</th><td>");
	if (f.n_screens == 0)
		buf_printf(&b, "none");
	for (int i = 0; i < f.n_screens; i++) {
		buf_printf(&b, "%s", i ? "; " : "");
		buf_escaped(&b, f.screens[i].name, false);
		buf_printf(&b, " %dx%d at %.2f Hz%s", f.screens[i].width, f.screens[i].height,
			   f.screens[i].refresh_mhz / 1000.0, f.screens[i].off ? " (off)" : "");
	}
	buf_printf(&b, "</td></tr>\n<tr><th>TV (HDMI-CEC)</th><td>");
	if (!f.cec.enabled) {
		buf_printf(&b, "not asked (--cec off)");
	} else if (!f.cec.adapter[0]) {
		buf_printf(&b, "no CEC adapter");
	} else {
		buf_printf(&b, "%s (", f.cec.tv);
		buf_escaped(&b, f.cec.adapter, false);
		if (f.cec.la >= 0)
			buf_printf(&b, ", playback device %d at %s)", f.cec.la, f.cec.pa);
		else
			buf_printf(&b, ", %s)", f.cec.link);
	}
	buf_printf(&b, "</td></tr>\n<tr><th>Touch devices</th><td>%d</td></tr>\n",
		   f.touch_devices);
	buf_printf(&b, "<tr><th>Picture</th><td>");
	buf_escaped(&b, f.picture[0] ? f.picture : "the built-in one", false);
	buf_printf(&b, "</td></tr>\n<tr><th>Touches today</th><td>%llu</td></tr>\n",
		   (unsigned long long)f.touches_today);
	buf_printf(&b, "<tr><th>Most fingers at once</th><td>%d</td></tr>\n", f.peak_fingers);
	buf_printf(&b, "<tr><th>Up</th><td>");
	uptime_text(&b, up);
	buf_printf(&b, "</td></tr>\n<tr><th>Version</th><td>%s</td></tr>\n</table>\n",
		   PACKAGE_VERSION);
	http_fit_status(h, &b);
	camera_section(&b, &f);
	buf_printf(&b, "<h2>Touches per hour, last %d days</h2>\n", HTTP_CHART_DAYS);
	chart(h, &b);
	buf_printf(&b, "<h2>Where fingers landed</h2>\n"
		   "<p><img src=\"/touches.png\" alt=\"the map of touches (written hourly)\" "
		   "width=\"640\"></p>\n"
		   "<p><a href=\"/metrics\">metrics</a> · <a href=\"/status.json\">status.json</a>"
		   " · <a href=\"/usage.csv\">usage.csv</a></p>\n</body></html>\n");
	if (b.failed) {
		free(b.data);
		reply_plain(r, HTTP_STATUS_UNAVAILABLE, "out of memory");
		return;
	}
	r->status = HTTP_STATUS_OK;
	r->type = "text/html; charset=utf-8";
	r->body = b.data;
	r->len = b.len;
}
