#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/file.h"
#include "base/util.h"
#include "settings/fit.h"
#include "settings/options.h"

/* Each kept as its option holds it, in an options of its own. */
struct fit {
	struct options values;
	bool set[FIT_KEYS];
};

static const char *const key_names[FIT_KEYS] = {
	[FIT_LAYOUT] = "layout",
	[FIT_BLEND_CURVE] = "blend-curve",
	[FIT_BLEND_GAMMA] = "blend-gamma",
	[FIT_BLACK_LIFT] = "black-lift",
	[FIT_CAMERA_CORNERS] = "camera-corners",
	[FIT_TOUCH_CORNERS] = "touch-corners",
};

const char *fit_key_name(int k)
{
	return k >= 0 && k < FIT_KEYS ? key_names[k] : NULL;
}

int fit_key_find(const char *name)
{
	for (int k = 0; k < FIT_KEYS; k++)
		if (strcmp(name, key_names[k]) == 0)
			return k;
	return -ENOENT;
}

/* The option table's number of key k. */
static int option_key(int k)
{
	return options_key_find(key_names[k]);
}

int fit_create(struct fit **out)
{
	struct fit *f = calloc(1, sizeof(*f));

	*out = f;
	if (!f)
		return -ENOMEM;
	options_defaults(&f->values);
	return 0;
}

void fit_destroy(struct fit *f)
{
	if (!f)
		return;
	options_free(&f->values);
	free(f);
}

void fit_clear(struct fit *f)
{
	memset(f->set, 0, sizeof(f->set));
}

int fit_copy(struct fit *dst, const struct fit *src)
{
	struct options v;

	if (dst == src)
		return 0;
	if (options_copy(&v, &src->values) < 0)
		return -ENOMEM;
	options_free(&dst->values);
	dst->values = v;
	memcpy(dst->set, src->set, sizeof(dst->set));
	return 0;
}

bool fit_has(const struct fit *f, int k)
{
	return k >= 0 && k < FIT_KEYS && f->set[k];
}

const char *fit_get(const struct fit *f, int k, char *buf, size_t len)
{
	if (!fit_has(f, k) || options_format_key(&f->values, option_key(k), buf, len) < 0)
		return NULL;
	return buf;
}

bool fit_equal(const struct fit *a, const struct fit *b)
{
	char x[FIT_VALUE_LEN], y[FIT_VALUE_LEN];

	for (int k = 0; k < FIT_KEYS; k++) {
		const char *vx = fit_get(a, k, x, sizeof(x)), *vy = fit_get(b, k, y, sizeof(y));

		if ((vx || vy) && (!vx || !vy || strcmp(vx, vy) != 0))
			return false;
	}
	return true;
}

int fit_set(struct fit *f, const char *name, const char *value, char *err, size_t len)
{
	int k = fit_key_find(name);
	int ret;

	if (k < 0) {
		snprintf(err, len, "%s: not a fitted setting; expected layout, blend-curve, "
			 "blend-gamma, black-lift, camera-corners or touch-corners", name);
		return -ENOENT;
	}
	ret = options_set_key_quiet(&f->values, option_key(k), value, err, len);
	if (ret < 0)
		return ret;
	f->set[k] = true;
	return 0;
}

void fit_unset(struct fit *f, int k)
{
	if (k >= 0 && k < FIT_KEYS)
		f->set[k] = false;
}

int fit_apply(const struct fit *f, struct options *o)
{
	for (int k = 0; k < FIT_KEYS; k++)
		if (f->set[k] && options_copy_key(o, &f->values, option_key(k)) < 0)
			return -ENOMEM;
	return 0;
}

void fit_keys(const struct fit *f, char *buf, size_t len)
{
	size_t at = 0;

	if (len)
		buf[0] = '\0';
	for (int k = 0; k < FIT_KEYS && at < len; k++) {
		int n;

		if (!f->set[k])
			continue;
		n = snprintf(buf + at, len - at, "%s%s", at ? ", " : "", key_names[k]);
		if (n < 0)
			return;
		at += (size_t)n;
	}
}

static bool blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

/* s without its blanks at both ends, in place. */
static char *trimmed(char *s, char *end)
{
	while (s < end && blank(*s))
		s++;
	while (end > s && blank(end[-1]))
		end--;
	*end = '\0';
	return s;
}

/*
 * One line of the fitted file: blank, a '#' comment, or "key = value"
 * as fit_format() writes them (a value in double quotes may be given, as
 * the config file takes it). 0 or -EINVAL with "key: ..." in err.
 */
static int load_line(struct fit *f, char *line, char *err, size_t len)
{
	char *eq, *key, *value;
	size_t n;

	line = trimmed(line, line + strlen(line));
	if (!*line || *line == '#')
		return 0;
	eq = strchr(line, '=');
	if (!eq) {
		snprintf(err, len, "'%.64s' is not a 'key = value' line", line);
		return -EINVAL;
	}
	key = trimmed(line, eq);
	value = trimmed(eq + 1, eq + 1 + strlen(eq + 1));
	n = strlen(value);
	if (n >= 2 && value[0] == '"' && value[n - 1] == '"') {
		value[n - 1] = '\0';
		value++;
	}
	if (fit_has(f, fit_key_find(key))) {
		snprintf(err, len, "%s: set twice; a fitted file holds each key once", key);
		return -EINVAL;
	}
	return fit_set(f, key, value, err, len) < 0 ? -EINVAL : 0;
}

int fit_load(struct fit *f, const char *path, char *err, size_t len)
{
	char why[ERR_LEN];
	char *text = NULL, *p, *nl;
	unsigned lineno = 0;
	size_t n = 0;
	int ret;

	fit_clear(f);
	if (len)
		err[0] = '\0';
	ret = file_read_own(path, FIT_MAX_BYTES, &text, &n, why, sizeof(why));
	if (ret == -ENOENT)
		return ret;
	if (ret < 0) {
		snprintf(err, len, "%s: %s", path, why);
		return ret;
	}
	if (memchr(text, '\0', n)) {
		snprintf(err, len, "%s: a NUL byte; a fitted file is text", path);
		ret = -EINVAL;
		goto out;
	}
	for (p = text; p && *p; p = nl ? nl + 1 : NULL) {
		nl = strchr(p, '\n');
		if (nl)
			*nl = '\0';
		lineno++;
		ret = load_line(f, p, why, sizeof(why));
		if (ret < 0) {
			snprintf(err, len, "%s:%u: %s", path, lineno, why);
			goto out;
		}
	}
out:
	if (ret < 0)
		fit_clear(f);
	free(text);
	return ret;
}

char *fit_format(const struct fit *f)
{
	char value[FIT_VALUE_LEN];
	size_t need = 1, at = 0;
	char *text;

	for (int k = 0; k < FIT_KEYS; k++)
		if (fit_get(f, k, value, sizeof(value)))
			need += strlen(key_names[k]) + strlen(value) + sizeof(" = \"\"\n");
	text = malloc(need);
	if (!text)
		return NULL;
	text[0] = '\0';
	for (int k = 0; k < FIT_KEYS; k++) {
		/* In quotes: a layout's blanks and a '#' are the value's. */
		if (fit_get(f, k, value, sizeof(value)))
			at += (size_t)snprintf(text + at, need - at, "%s = \"%s\"\n",
					       key_names[k], value);
	}
	return text;
}

static int fill(FILE *out, void *ctx)
{
	const char *text = ctx;

	if (fputs("# Written by ripple-kiosk's fitting page (/fit); read after the config "
		  "file.\n", out) < 0 || fputs(text, out) < 0)
		return -EIO;
	return 0;
}

int fit_save(const struct fit *f, const char *path, char *err, size_t len)
{
	char *text = fit_format(f);
	int ret;

	if (!text) {
		snprintf(err, len, "%s: out of memory", path);
		return -ENOMEM;
	}
	ret = file_write_atomic(path, FILE_WRITE_SYNC, fill, text);
	if (ret < 0)
		snprintf(err, len, "%s: cannot be written: %s", path, strerror(-ret));
	free(text);
	return ret;
}

const char *fit_path(const char *state_dir, char *buf, size_t len)
{
	int n = snprintf(buf, len, "%s/%s", state_dir, FIT_FILE);

	return n < 0 || (size_t)n >= len ? NULL : buf;
}
