#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/homography.h"
#include "base/parse.h"
#include "base/util.h"
#include "http/http-fit-files.h"
#include "http/http-private.h"
#include "settings/fit.h"
#include "wall/layout.h"

#define JSON_TYPE "application/json"
#define QUERY_VALUE_LEN 64
#define CORNERS 4

static const char *const marks_names[] = {
	[HTTP_MARKS_IDLE] = "idle",
	[HTTP_MARKS_MARK] = "mark",
	[HTTP_MARKS_DONE] = "done",
	[HTTP_MARKS_FAILED] = "failed",
};
static const char *const calibration_names[] = {
	[HTTP_CALIBRATION_IDLE] = "idle",
	[HTTP_CALIBRATION_RUNNING] = "running",
	[HTTP_CALIBRATION_DONE] = "done",
	[HTTP_CALIBRATION_FAILED] = "failed",
};

int http_fit_create(struct http *h, const char *fitted_path, unsigned fixed)
{
	char err[ERR_LEN];
	int ret;

	if (!fitted_path)
		return 0;
	h->fit_fixed = fixed;
	h->fitted_path = strdup(fitted_path);
	if (!h->fitted_path || fit_create(&h->draft) < 0 || fit_create(&h->saved) < 0)
		return -ENOMEM;
	/* A broken file was said by the settings' load, which ran without it. */
	ret = fit_load(h->saved, fitted_path, err, sizeof(err));
	h->saved_exists = ret != -ENOENT;
	return fit_copy(h->draft, h->saved);
}

void http_fit_destroy(struct http *h)
{
	fit_destroy(h->draft);
	fit_destroy(h->saved);
	free(h->fitted_path);
}

/* ---- the loop's side ---- */

bool http_take_fit(struct http *h, struct fit *out)
{
	bool taken = false;

	if (!h->draft)
		return false;
	pthread_mutex_lock(&h->fit_lock);
	if (h->fit_pending && fit_copy(out, h->draft) == 0) {
		h->fit_pending = false;
		taken = true;
	}
	pthread_mutex_unlock(&h->fit_lock);
	return taken;
}

void http_fit_reloaded(struct http *h)
{
	char err[ERR_LEN];
	int ret;

	if (!h->draft)
		return;
	pthread_mutex_lock(&h->fit_lock);
	ret = fit_load(h->saved, h->fitted_path, err, sizeof(err));
	h->saved_exists = ret != -ENOENT;
	if (fit_copy(h->draft, h->saved) == 0)
		h->fit_generation++;
	h->fit_pending = false;
	pthread_mutex_unlock(&h->fit_lock);
}

bool http_fit_pattern(struct http *h, uint64_t now_ns)
{
	return now_ns < atomic_load(&h->pattern_until_ns);
}

uint64_t http_fit_pattern_until(struct http *h)
{
	return atomic_load(&h->pattern_until_ns);
}

/* ---- the fit as the page sees it ---- */

/* What /fit.json shows, taken under the lock: the draft's values where it
 * has them, the loop's elsewhere. */
struct fit_view {
	char layout[HTTP_FIT_TEXT];
	double curve, gamma, lift;
	char camera[HTTP_CORNERS_TEXT], touch[HTTP_CORNERS_TEXT];
	char overrides[FIT_KEYS * 20];
	const char *override_keys[FIT_KEYS];
	int n_overrides;
	bool saved, exists;
	uint64_t generation;
};

static void text_of(const struct fit *d, int k, const char *in_force, char *out, size_t len)
{
	if (!d || !fit_get(d, k, out, len))
		snprintf(out, len, "%s", in_force);
}

static double number_of(const struct fit *d, int k, double in_force)
{
	char v[FIT_VALUE_LEN];

	return d && fit_get(d, k, v, sizeof(v)) ? strtod(v, NULL) : in_force;
}

/* The loop's fit as one text: when it changes, the generation does. */
static void seen_text(const struct http_fit_facts *ff, char *out, size_t len)
{
	snprintf(out, len, "%s|%.10g|%.10g|%.10g|%s|%s|%d|%d|%d|%d", ff->layout, ff->blend_curve,
		 ff->blend_gamma, ff->black_lift, ff->camera_corners, ff->touch_corners,
		 (int)ff->calibration, ff->pattern, (int)ff->marks, ff->marks_mark);
}

static void view_of(struct http *h, const struct http_fit_facts *ff, struct fit_view *v)
{
	char seen[sizeof(h->fit_seen)];
	const struct fit *d = h->draft;

	memset(v, 0, sizeof(*v));
	seen_text(ff, seen, sizeof(seen));
	pthread_mutex_lock(&h->fit_lock);
	if (ff->known && strcmp(seen, h->fit_seen) != 0) {
		memcpy(h->fit_seen, seen, sizeof(seen));
		h->fit_generation++;
	}
	text_of(d, FIT_LAYOUT, ff->layout, v->layout, sizeof(v->layout));
	v->curve = number_of(d, FIT_BLEND_CURVE, ff->blend_curve);
	v->gamma = number_of(d, FIT_BLEND_GAMMA, ff->blend_gamma);
	v->lift = number_of(d, FIT_BLACK_LIFT, ff->black_lift);
	text_of(d, FIT_CAMERA_CORNERS, ff->camera_corners, v->camera, sizeof(v->camera));
	text_of(d, FIT_TOUCH_CORNERS, ff->touch_corners, v->touch, sizeof(v->touch));
	for (int k = 0; h->saved && k < FIT_KEYS; k++)
		if (fit_has(h->saved, k))
			v->override_keys[v->n_overrides++] = fit_key_name(k);
	v->saved = d && fit_equal(d, h->saved);
	v->exists = h->saved_exists;
	v->generation = h->fit_generation;
	pthread_mutex_unlock(&h->fit_lock);
}

static void corners_json(struct buf *b, const double *c)
{
	buf_printf(b, "[[%.10g,%.10g],[%.10g,%.10g],[%.10g,%.10g],[%.10g,%.10g]]", c[0], c[1],
		   c[2], c[3], c[4], c[5], c[6], c[7]);
}

/* The outputs' corners in mm: a layout's from its text (the draft's
 * corners at once), px and a panel of the connector's size from the loop. */
static int outputs_of(const struct http_fit_facts *ff, const char *layout,
		      struct http_output *out)
{
	struct wall_layout l;
	char err[ERR_LEN];
	int n = 0;

	if (!*layout || wall_layout_parse(layout, &l, err, sizeof(err)) < 0) {
		memcpy(out, ff->outputs, sizeof(ff->outputs));
		return ff->n_outputs;
	}
	for (int i = 0; i < l.count && n < HTTP_MAX_SCREENS; i++) {
		const struct wall_panel *p = &l.panel[i];
		struct http_output *o = &out[n++];

		memset(o, 0, sizeof(*o));
		snprintf(o->name, sizeof(o->name), "%s", p->name);
		for (int j = 0; j < ff->n_outputs; j++)
			if (strcmp(ff->outputs[j].name, p->name) == 0)
				*o = ff->outputs[j];
		o->pinned = p->pinned;
		if (p->pinned) {
			memcpy(o->corners_mm, p->pin, sizeof(o->corners_mm));
			if (p->px_width) {
				o->px_width = p->px_width;
				o->px_height = p->px_height;
			}
		} else if (p->w_mm > 0) {
			double x1 = p->x_mm + p->w_mm, y1 = p->y_mm + p->h_mm;
			double c[HTTP_CORNER_NUMBERS] = { p->x_mm, p->y_mm, x1, p->y_mm, x1, y1,
							  p->x_mm, y1 };

			memcpy(o->corners_mm, c, sizeof(c));
		}
	}
	return n;
}

/* The layout's bounding box, or --screen-mm's surface with projectors. */
static void surface_json(struct buf *b, const struct http_fit_facts *ff,
			 const struct http_output *o, int n)
{
	double x0 = 0, y0 = 0, x1 = 0, y1 = 0;
	bool pinned = n > 0;

	for (int i = 0; i < n; i++)
		pinned = pinned && o[i].pinned;
	if ((pinned || n == 0) && ff->screen_mm_width > 0) {
		x1 = ff->screen_mm_width;
		y1 = ff->screen_mm_height;
	} else {
		for (int i = 0; i < n; i++)
			for (int c = 0; c < CORNERS; c++) {
				double x = o[i].corners_mm[2 * c], y = o[i].corners_mm[2 * c + 1];

				x0 = i || c ? fmin(x0, x) : x;
				y0 = i || c ? fmin(y0, y) : y;
				x1 = i || c ? fmax(x1, x) : x;
				y1 = i || c ? fmax(y1, y) : y;
			}
	}
	buf_printf(b, "\"surface\":{\"x_mm\":%.10g,\"y_mm\":%.10g,\"w_mm\":%.10g,"
		   "\"h_mm\":%.10g}", x0, y0, x1 - x0, y1 - y0);
}

static void outputs_json(struct buf *b, const struct http_output *o, int n)
{
	buf_printf(b, "\"outputs\":[");
	for (int i = 0; i < n; i++) {
		buf_printf(b, "%s{\"name\":\"", i ? "," : "");
		buf_escaped(b, o[i].name, true);
		buf_printf(b, "\",\"pinned\":%s,\"px\":[%d,%d],\"corners_mm\":",
			   o[i].pinned ? "true" : "false", o[i].px_width, o[i].px_height);
		corners_json(b, o[i].corners_mm);
		buf_printf(b, "}");
	}
	buf_printf(b, "]");
}

/* "X,Y X,Y X,Y X,Y" as a JSON array of four points, or null. */
static void points_json(struct buf *b, const char *text)
{
	double c[HTTP_CORNER_NUMBERS];

	if (*text && homography_parse_corners(text, c) == 0)
		corners_json(b, c);
	else
		buf_printf(b, "null");
}

static void camera_json(struct buf *b, const struct http_facts *f, const struct fit_view *v)
{
	const struct http_fit_facts *ff = &f->fit;

	if (!f->camera) {
		buf_printf(b, "\"camera\":null");
		return;
	}
	/* No camera-corners: the automatic calibration's, when it has one. */
	buf_printf(b, "\"camera\":{\"corners\":");
	if (!*v->camera && ff->calibration_has_corners)
		corners_json(b, ff->calibration_corners);
	else
		points_json(b, v->camera);
	buf_printf(b, ",\"picture\":\"/camera.png\",\"calibration\":{\"state\":\"%s\","
		   "\"message\":\"", calibration_names[ff->calibration]);
	buf_escaped(b, ff->calibration_message, true);
	buf_printf(b, "\",\"corners\":");
	if (ff->calibration_has_corners)
		corners_json(b, ff->calibration_corners);
	else
		buf_printf(b, "null");
	buf_printf(b, "}}");
}

/* The fitted file's name, whether it is there, and the keys it overrides. */
static void fitted_json(const struct http *h, const struct fit_view *v, const char *file,
			const char *exists, struct buf *b)
{
	buf_printf(b, "\"%s\":", file);
	if (h->fitted_path) {
		buf_printf(b, "\"");
		buf_escaped(b, h->fitted_path, true);
		buf_printf(b, "\"");
	} else {
		buf_printf(b, "null");
	}
	buf_printf(b, ",\"%s\":%s,\"overrides\":[", exists, v->exists ? "true" : "false");
	for (int i = 0; i < v->n_overrides; i++)
		buf_printf(b, "%s\"%s\"", i ? "," : "", v->override_keys[i]);
	buf_printf(b, "],\"fixed\":[");
	for (int k = 0, n = 0; k < FIT_KEYS; k++)
		if (h->fit_fixed & 1u << k)
			buf_printf(b, "%s\"%s\"", n++ ? "," : "", fit_key_name(k));
	buf_printf(b, "]");
}

static void fit_write(struct http *h, struct buf *b)
{
	struct http_output outs[HTTP_MAX_SCREENS];
	struct http_facts *f = malloc(sizeof(*f));
	struct fit_view v;
	double up;
	int n;

	if (!f) {
		b->failed = true;
		return;
	}
	http_take_facts(h, f, &up);
	view_of(h, &f->fit, &v);
	n = outputs_of(&f->fit, v.layout, outs);
	buf_printf(b, "{\"generation\":%llu,\"control\":%s,", (unsigned long long)v.generation,
		   h->token ? "true" : "false");
	surface_json(b, &f->fit, outs, n);
	buf_printf(b, ",");
	outputs_json(b, outs, n);
	buf_printf(b, ",\"blend\":{\"curve\":%.10g,\"gamma\":%.10g,\"black_lift\":%.10g},",
		   v.curve, v.gamma, v.lift);
	camera_json(b, f, &v);
	buf_printf(b, ",\"touch\":");
	if (*v.touch || f->touch_devices > 0) {
		buf_printf(b, "{\"corners\":");
		points_json(b, v.touch);
		buf_printf(b, ",\"marks\":{\"state\":\"%s\",\"mark\":%d,\"message\":\"",
			   marks_names[f->fit.marks], f->fit.marks_mark);
		buf_escaped(b, f->fit.marks_message, true);
		buf_printf(b, "\"}}");
	} else {
		buf_printf(b, "null");
	}
	buf_printf(b, ",\"saved\":%s,", v.saved ? "true" : "false");
	fitted_json(h, &v, "fitted_file", "fitted_exists", b);
	buf_printf(b, ",\"pattern\":%s,\"limits\":{\"max_mm\":%.10g},\"applied\":%llu}\n",
		   f->fit.pattern ? "true" : "false", WALL_MAX_MM,
		   (unsigned long long)f->fit.applied);
	free(f);
}

void http_fit_json(struct http *h, struct http_reply *r)
{
	struct buf b;

	buf_init(&b);
	fit_write(h, &b);
	http_reply_buf(r, HTTP_STATUS_OK, JSON_TYPE, &b);
}

void http_fit_status_json(struct http *h, const struct http_facts *f, struct buf *b)
{
	struct http_output outs[HTTP_MAX_SCREENS];
	struct fit_view v;
	int n;

	view_of(h, &f->fit, &v);
	/* The corners in force: the loop's, not a draft not yet taken. */
	n = outputs_of(&f->fit, f->fit.layout, outs);
	buf_printf(b, ",");
	outputs_json(b, outs, n);
	buf_printf(b, ",\"fitted\":{");
	fitted_json(h, &v, "file", "exists", b);
	buf_printf(b, "}");
}

void http_fit_status(struct http *h, struct buf *b)
{
	struct http_facts f = { 0 };
	struct fit_view v;

	if (!h->fitted_path)
		return;
	view_of(h, &f.fit, &v);
	buf_printf(b, "<p>Fitting: <a href=\"/fit\">the fitting page</a>. ");
	if (v.n_overrides) {
		buf_printf(b, "The fitted file ");
		buf_escaped(b, h->fitted_path, false);
		buf_printf(b, " overrides the configuration's");
		for (int i = 0; i < v.n_overrides; i++)
			buf_printf(b, "%s %s", i ? "," : "", v.override_keys[i]);
		buf_printf(b, ".");
	} else {
		buf_printf(b, "No fitted file overrides the configuration.");
	}
	buf_printf(b, "</p>\n");
}

/* ---- the page and its script, compiled in ---- */

/* The fitting page runs its one script, from here, which asks only this
 * server (fetch) and shows the camera's picture as a blob; its style is
 * inline; no other page may frame it (a drag under someone else's page). */
#define FIT_PAGE_CSP "default-src 'none'; script-src 'self'; connect-src 'self'; " \
	"img-src 'self' blob: data:; style-src 'unsafe-inline'; base-uri 'none'; " \
	"form-action 'none'; frame-ancestors 'none'"

void http_fit_page(struct http *h, const char *path, struct http_reply *r)
{
	bool script = strcmp(path, "/fit.js") == 0;
	const unsigned char *bytes = script ? http_fit_js : http_fit_html;
	size_t len = script ? http_fit_js_len : http_fit_html_len;

	(void)h;
	r->body = malloc(len ? len : 1);
	if (!r->body) {
		reply_plain(r, HTTP_STATUS_UNAVAILABLE, "out of memory");
		return;
	}
	memcpy(r->body, bytes, len);
	r->len = len;
	r->status = HTTP_STATUS_OK;
	r->type = script ? "text/javascript; charset=utf-8" : "text/html; charset=utf-8";
	r->csp = FIT_PAGE_CSP;
}

/* ---- the actions ---- */

static int hex(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* name's value in the query, %-escapes and '+' decoded: true when given. */
static bool query_get(const char *query, const char *name, char *out, size_t len)
{
	size_t nlen = strlen(name), n = 0;
	const char *p = query;

	while (p && *p) {
		if (strncmp(p, name, nlen) == 0 && p[nlen] == '=') {
			for (p += nlen + 1; *p && *p != '&' && n + 1 < len; p++) {
				if (*p == '%' && hex(p[1]) >= 0 && hex(p[2]) >= 0) {
					out[n++] = (char)(hex(p[1]) * 16 + hex(p[2]));
					p += 2;
				} else {
					out[n++] = *p == '+' ? ' ' : *p;
				}
			}
			out[n] = '\0';
			return true;
		}
		p = strchr(p, '&');
		if (p)
			p++;
	}
	return false;
}

static void refuse_fit(struct http *h, struct http_reply *r, int status, const char *msg)
{
	struct buf b;

	http_refused(h, HTTP_REFUSED_FIT);
	buf_init(&b);
	buf_printf(&b, "{\"error\":\"");
	buf_escaped(&b, msg, true);
	buf_printf(&b, "\"}\n");
	http_reply_buf(r, status, JSON_TYPE, &b);
}

/* A number given in the query, within lo..hi: else the reply says so. */
static bool query_number(struct http *h, struct http_reply *r, const char *query,
			 const char *name, double lo, double hi, double *out)
{
	char v[QUERY_VALUE_LEN], msg[ERR_LEN];

	if (!query_get(query, name, v, sizeof(v))) {
		snprintf(msg, sizeof(msg), "%s: missing; expected %s=NUMBER in the query", name,
			 name);
		refuse_fit(h, r, HTTP_STATUS_BAD_REQUEST, msg);
		return false;
	}
	if (parse_double(v, lo, hi, out) < 0) {
		snprintf(msg, sizeof(msg), "%s: '%s' is not a number from %g to %g", name, v, lo,
			 hi);
		refuse_fit(h, r, HTTP_STATUS_UNPROCESSABLE, msg);
		return false;
	}
	return true;
}

/* 0, or -EPERM when the command line sets key k: it comes after the
 * fit, so the draft would change and the floor never would. */
static int not_fixed(const struct http *h, int k, char *err, size_t len)
{
	if (!(h->fit_fixed & 1u << k))
		return 0;
	snprintf(err, len, "%s is set on the command line; the fit cannot override it",
		 fit_key_name(k));
	return -EPERM;
}

static int move_corner(struct http *h, const char *layout, const char *output, int corner,
		       double x, double y, char *err, size_t len)
{
	char text[HTTP_FIT_TEXT];
	struct wall_layout l;
	int i;

	if (not_fixed(h, FIT_LAYOUT, err, len) < 0)
		return -EPERM;
	if (!*layout) {
		snprintf(err, len, "layout: none; a corner-pinned output is set in the "
			 "configuration first (layout = NAME@[X,Y;X,Y;X,Y;X,Y])");
		return -EINVAL;
	}
	if (wall_layout_parse(layout, &l, err, len) < 0)
		return -EINVAL;
	i = wall_layout_find(&l, output);
	if (i < 0 || !l.panel[i].pinned) {
		snprintf(err, len, "layout: %s is %s", output, i < 0 ? "no output of the layout" :
			 "a panel, not a corner-pinned output");
		return -EINVAL;
	}
	l.panel[i].pin[2 * (corner - 1)] = x;
	l.panel[i].pin[2 * (corner - 1) + 1] = y;
	if (wall_layout_format(&l, text, sizeof(text)) < 0) {
		snprintf(err, len, "layout: too long");
		return -EINVAL;
	}
	return fit_set(h->draft, "layout", text, err, len);
}

/* From the corners in force: camera-corners, else the automatic
 * calibration's, else the whole picture. */
static int move_camera_corner(struct http *h, const struct http_fit_facts *ff,
			      const char *corners, int corner, double u, double v, char *err,
			      size_t len)
{
	double c[HTTP_CORNER_NUMBERS] = { 0, 0, 1, 0, 1, 1, 0, 1 };
	char text[HTTP_CORNERS_TEXT];

	if (not_fixed(h, FIT_CAMERA_CORNERS, err, len) < 0)
		return -EPERM;
	if (!*corners && ff->calibration_has_corners)
		memcpy(c, ff->calibration_corners, sizeof(c));

	if (*corners && homography_parse_corners(corners, c) < 0) {
		snprintf(err, len, "camera-corners: '%.200s' is not four corners; set them in the "
			 "configuration", corners);
		return -EINVAL;
	}
	c[2 * (corner - 1)] = u;
	c[2 * (corner - 1) + 1] = v;
	snprintf(text, sizeof(text), "%.6g,%.6g %.6g,%.6g %.6g,%.6g %.6g,%.6g", c[0], c[1], c[2],
		 c[3], c[4], c[5], c[6], c[7]);
	return fit_set(h->draft, "camera-corners", text, err, len);
}

static const char *const blend_keys[][2] = {
	{ "curve", "blend-curve" }, { "gamma", "blend-gamma" }, { "black-lift", "black-lift" },
};

/* Any of curve, gamma and black-lift: all of them taken, or none. */
static int set_blend(struct http *h, const char *query, char *err, size_t len)
{
	char v[QUERY_VALUE_LEN];
	struct fit *next;
	int given = 0, ret = 0;

	if (fit_create(&next) < 0 || fit_copy(next, h->draft) < 0) {
		fit_destroy(next);
		snprintf(err, len, "out of memory");
		return -ENOMEM;
	}
	for (size_t i = 0; i < ARRAY_SIZE(blend_keys) && ret == 0; i++) {
		if (!query_get(query, blend_keys[i][0], v, sizeof(v)))
			continue;
		given++;
		ret = not_fixed(h, fit_key_find(blend_keys[i][1]), err, len);
		if (ret == 0)
			ret = fit_set(next, blend_keys[i][1], v, err, len);
	}
	if (ret == 0 && !given) {
		snprintf(err, len, "blend: nothing to set; expected curve=P, gamma=G or "
			 "black-lift=PERCENT in the query");
		ret = -EINVAL;
	}
	if (ret == 0)
		ret = fit_copy(h->draft, next);
	fit_destroy(next);
	return ret;
}

static int save(struct http *h, char *err, size_t len)
{
	struct fit *copy;
	int ret;

	if (fit_create(&copy) < 0)
		return -ENOMEM;
	pthread_mutex_lock(&h->fit_lock);
	ret = fit_copy(copy, h->draft);
	pthread_mutex_unlock(&h->fit_lock);
	if (ret == 0)
		ret = fit_save(copy, h->fitted_path, err, len);
	if (ret == 0) {
		pthread_mutex_lock(&h->fit_lock);
		if (fit_copy(h->saved, copy) == 0)
			h->saved_exists = true;
		h->fit_generation++;
		pthread_mutex_unlock(&h->fit_lock);
	}
	fit_destroy(copy);
	return ret;
}

int http_fit_propose(struct http *h, const char *key, const char *value, char *err,
		     size_t len)
{
	int ret;

	if (!h->draft)
		return -ENOTSUP;
	pthread_mutex_lock(&h->fit_lock);
	ret = fit_key_find(key) < 0 ? 0 : not_fixed(h, fit_key_find(key), err, len);
	if (ret == 0)
		ret = fit_set(h->draft, key, value, err, len);
	if (ret == 0) {
		h->fit_generation++;
		h->fit_pending = true;
	}
	pthread_mutex_unlock(&h->fit_lock);
	if (ret == 0)
		http_ask(h, HTTP_FIT);
	return ret;
}

void http_fit_act(struct http *h, const char *path, const char *query, struct http_reply *r)
{
	const char *act = path + strlen("/fit/");
	char err[ERR_LEN * 2] = "", text[HTTP_FIT_TEXT], output[HTTP_NAME_LEN];
	struct http_facts *f = NULL;
	double corner = 0, x = 0, y = 0;
	double up;
	int ret = 0;

	if (!h->draft) {
		refuse_fit(h, r, HTTP_STATUS_UNAVAILABLE, "fitting is off: no state directory");
		return;
	}
	r->commands = HTTP_FIT;
	if (strcmp(act, "hello") == 0 || strcmp(act, "bye") == 0) {
		atomic_store(&h->pattern_until_ns, *act == 'h' ? clock_now_ns() +
			     (uint64_t)HTTP_FIT_PATTERN_S * NSEC_PER_SEC : 0);
		http_ask(h, HTTP_FIT);
		http_fit_json(h, r);
		return;
	}
	if (strcmp(act, "save") == 0) {
		ret = save(h, err, sizeof(err));
		if (ret < 0) {
			refuse_fit(h, r, HTTP_STATUS_SERVER_ERROR, err);
			return;
		}
		http_fit_json(h, r);
		return;
	}
	if (strcmp(act, "corner") == 0 || strcmp(act, "camera-corner") == 0) {
		/* Any number: the option's own check refuses what it would
		 * (a corner past WALL_MAX_MM, one the camera cannot see). */
		bool camera = *act == 'c' && act[1] == 'a';

		if (!camera && !query_get(query, "output", output, sizeof(output))) {
			refuse_fit(h, r, HTTP_STATUS_BAD_REQUEST,
				   "output: missing; expected output=NAME in the query");
			return;
		}
		if (!query_number(h, r, query, "corner", 1, CORNERS, &corner) ||
		    corner != floor(corner) ||
		    !query_number(h, r, query, "x", -INFINITY, INFINITY, &x) ||
		    !query_number(h, r, query, "y", -INFINITY, INFINITY, &y)) {
			if (!r->body)
				refuse_fit(h, r, HTTP_STATUS_UNPROCESSABLE,
					   "corner: expected 1, 2, 3 or 4");
			return;
		}
		f = malloc(sizeof(*f));
		if (!f) {
			refuse_fit(h, r, HTTP_STATUS_UNAVAILABLE, "out of memory");
			return;
		}
		http_take_facts(h, f, &up);
		pthread_mutex_lock(&h->fit_lock);
		if (camera) {
			text_of(h->draft, FIT_CAMERA_CORNERS, f->fit.camera_corners, text, sizeof(text));
			ret = move_camera_corner(h, &f->fit, text, (int)corner, x, y, err,
						 sizeof(err));
		} else {
			text_of(h->draft, FIT_LAYOUT, f->fit.layout, text, sizeof(text));
			ret = move_corner(h, text, output, (int)corner, x, y, err, sizeof(err));
		}
	} else if (strcmp(act, "blend") == 0) {
		pthread_mutex_lock(&h->fit_lock);
		ret = set_blend(h, query, err, sizeof(err));
	} else if (strcmp(act, "revert") == 0) {
		pthread_mutex_lock(&h->fit_lock);
		ret = fit_load(h->saved, h->fitted_path, err, sizeof(err));
		h->saved_exists = ret != -ENOENT;
		ret = fit_copy(h->draft, h->saved);
	} else {
		refuse_fit(h, r, HTTP_STATUS_NOT_FOUND, "not found");
		return;
	}
	if (ret == 0) {
		h->fit_generation++;
		h->fit_pending = true;
	}
	pthread_mutex_unlock(&h->fit_lock);
	free(f);
	if (ret < 0) {
		refuse_fit(h, r, HTTP_STATUS_UNPROCESSABLE, err);
		return;
	}
	/* The next /screen.png is a frame drawn with it, not one kept from
	 * before. */
	pthread_mutex_lock(&h->lock);
	h->screen.png_ns = 0;
	pthread_mutex_unlock(&h->lock);
	http_ask(h, HTTP_FIT);
	http_fit_json(h, r);
}
