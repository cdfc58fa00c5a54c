#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "base/file.h"
#include "base/log.h"
#include "base/util.h"
#include "image/image.h"
#include "image/playlist.h"
#include "input/touch-script.h"
#include "settings/config-file.h"
#include "settings/fit.h"
#include "settings/options.h"
#include "settings/settings.h"

/* Linux's device number for DRM nodes (libdrm's xf86drm.h has it too). */
#define DRM_MAJOR 226

/* Where a key's file is said from: "FILE:LINE: key", the line that set it. */
struct named {
	const char *file;
	unsigned line;
	const char *key;
	int *errors;
};

__attribute__((format(printf, 2, 3)))
static void wrong(const struct named *n, const char *fmt, ...)
{
	char msg[ERR_LEN * 2];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	log_error("%s:%u: %s: %s", n->file, n->line, n->key, msg);
	(*n->errors)++;
}

static void check_picture(const struct named *n, const char *path)
{
	char err[ERR_LEN];
	struct image *img = NULL;

	if (image_load(path, &img, err, sizeof(err)) < 0)
		wrong(n, "%s: %s", path, err);
	image_destroy(img);
}

/* Every entry of a --background list: there, and every picture in it decodes. */
static void check_pictures(const struct named *n, const char *spec)
{
	struct playlist *pl = NULL;
	char *copy = strdup(spec), *entry, *next;

	if (!copy) {
		wrong(n, "out of memory");
		return;
	}
	for (entry = copy; entry; entry = next) {
		struct stat st;

		next = strchr(entry, PLAYLIST_SEPARATOR);
		if (next)
			*next++ = '\0';
		if (*entry == '\0')
			continue;
		if (stat(entry, &st) < 0) {
			wrong(n, "%s: %s; expected a picture or a directory of them", entry,
			      strerror(errno));
			continue;
		}
		if (!S_ISDIR(st.st_mode)) {
			check_picture(n, entry);
			continue;
		}
		if (playlist_create(entry, &pl) < 0) {
			wrong(n, "out of memory");
			continue;
		}
		if (playlist_count(pl) == 0)
			wrong(n, "%s: no .png, .jpg, .jpeg or .ppm file in the directory", entry);
		for (int i = 0; i < playlist_count(pl); i++)
			check_picture(n, playlist_path(pl, i));
		playlist_destroy(pl);
		pl = NULL;
	}
	free(copy);
}

static void check_touch_script(const struct named *n, const char *path)
{
	char err[ERR_LEN];
	struct touch_script *s = NULL;

	if (touch_script_load(path, &s, err, sizeof(err)) < 0)
		wrong(n, "%s", err);
	touch_script_destroy(s);
}

/* The kiosk writes usage.csv, touches.png and screen.png there. */
static void check_state_dir(const struct named *n, const char *path)
{
	struct stat st;

	if (stat(path, &st) < 0)
		wrong(n, "%s: %s; expected a directory the kiosk can write", path,
		      strerror(errno));
	else if (!S_ISDIR(st.st_mode))
		wrong(n, "%s: not a directory", path);
	else if (access(path, W_OK | X_OK) < 0)
		wrong(n, "%s: cannot write in it: %s", path, strerror(errno));
}

/* The status server's token: there, readable, long enough. */
static void check_token(const struct named *n, const char *path)
{
	char err[ERR_LEN];
	char *text = NULL;
	size_t len = 0;

	if (file_read_all(path, OPTIONS_HTTP_TOKEN_MAX, &text, &len, err, sizeof(err)) < 0) {
		wrong(n, "%s: %s", path, err);
		return;
	}
	while (len > 0 && (text[len - 1] == '\n' || text[len - 1] == '\r'))
		len--;
	/* As the status server reads it (http.c). */
	if (len < OPTIONS_HTTP_TOKEN_MIN || memchr(text, '\0', len))
		wrong(n, "%s: expected a line of at least %d characters", path,
		      OPTIONS_HTTP_TOKEN_MIN);
	free(text);
}

/* --device: a path not there yet is waited for, but anything there that is
 * not a DRM device node the display refuses at start. */
static void check_device(const struct named *n, const char *path)
{
	struct stat st;

	if (stat(path, &st) == 0 && (!S_ISCHR(st.st_mode) || major(st.st_rdev) != DRM_MAJOR))
		wrong(n, "%s: not a DRM device node; expected a KMS device such as "
		      "/dev/dri/card0", path);
}

/* The headless frames' directory: there and writable, or one the kiosk can
 * make (headless.c makes it, but not its parents). */
static void check_output_dir(const struct named *n, const char *path)
{
	char *parent = strdup(path), *slash;
	struct stat st;

	if (!parent) {
		wrong(n, "out of memory");
		return;
	}
	if (stat(path, &st) == 0) {
		if (!S_ISDIR(st.st_mode))
			wrong(n, "%s: not a directory", path);
		else if (access(path, W_OK | X_OK) < 0)
			wrong(n, "%s: cannot write in it: %s", path, strerror(errno));
		goto out;
	}
	if (errno != ENOENT) {
		wrong(n, "%s: %s", path, strerror(errno));
		goto out;
	}
	/* "a/b/" names b: the slashes at its end are not its parent's. */
	for (slash = parent + strlen(parent); slash > parent + 1 && slash[-1] == '/'; slash--)
		slash[-1] = '\0';
	slash = strrchr(parent, '/');
	if (!slash)
		strcpy(parent, ".");
	else
		slash[slash == parent ? 1 : 0] = '\0';
	if (access(parent, W_OK | X_OK) < 0)
		wrong(n, "%s: cannot be made in %s: %s", path, parent, strerror(errno));
out:
	free(parent);
}

static struct named named(const char *file, const unsigned *first_line, const char *key,
			  int *errors)
{
	int k = options_key_find(key);

	return (struct named){ file, k >= 0 ? first_line[k] : 0, key, errors };
}

/* The fitted file the state directory o names: which keys it overrides,
 * or what is wrong with it (one line, counted in *errors). */
static void check_fitted(const struct options *o, int *errors)
{
	char dir[PATH_MAX], path[PATH_MAX], err[ERR_LEN * 2], keys[ERR_LEN];
	struct fit *fit = NULL;
	const char *file;
	int ret;

	file = fit_path(settings_state_dir(o->state_dir, dir, sizeof(dir)), path, sizeof(path));
	if (!file || fit_create(&fit) < 0) {
		log_error("%s: cannot look for the fitted file", dir);
		(*errors)++;
		return;
	}
	ret = fit_load(fit, file, err, sizeof(err));
	/* None: nothing said, as before there was fitting. */
	if (ret == -ENOENT) {
	} else if (ret < 0) {
		log_error("%s; the kiosk runs without it", err);
		(*errors)++;
	} else {
		fit_keys(fit, keys, sizeof(keys));
		printf("%s: ok, fitted: overrides %s\n", file, *keys ? keys : "nothing");
	}
	fit_destroy(fit);
}

int settings_check_config(const char *path)
{
	unsigned *first_line = calloc((size_t)options_key_count(), sizeof(*first_line));
	struct named n;
	struct options o;
	int errors = 0;

	if (!first_line) {
		log_error("%s: out of memory", path);
		return -ENOMEM;
	}
	options_defaults(&o);
	if (config_check_file(path, &o, first_line, &errors) != -ENOMEM) {
		n = named(path, first_line, "background", &errors);
		if (o.background && n.line)
			check_pictures(&n, o.background);
		n = named(path, first_line, "obstacles", &errors);
		if (o.obstacles && n.line)
			check_picture(&n, o.obstacles);
		n = named(path, first_line, "touch-script", &errors);
		if (o.touch_script && n.line)
			check_touch_script(&n, o.touch_script);
		n = named(path, first_line, "state-dir", &errors);
		if (o.state_dir && n.line)
			check_state_dir(&n, o.state_dir);
		n = named(path, first_line, "http-token-file", &errors);
		if (o.http_token_file && n.line)
			check_token(&n, o.http_token_file);
		n = named(path, first_line, "device", &errors);
		if (o.device && n.line)
			check_device(&n, o.device);
		n = named(path, first_line, "output", &errors);
		if (n.line)
			check_output_dir(&n, o.output_dir);
#ifndef HAVE_MICROHTTPD
		n = named(path, first_line, "http", &errors);
		if (o.http && n.line)
			wrong(&n, "this build has no HTTP server (configure --with-microhttpd)");
#endif
#ifndef HAVE_DRM
		n = named(path, first_line, "backend", &errors);
		if (o.backend == BACKEND_DRM && n.line)
			wrong(&n, "this build has no DRM display backend; expected auto or "
			      "headless");
#endif
	}
	if (errors == 0)
		printf("%s: ok\n", path);
	check_fitted(&o, &errors);
	options_free(&o);
	free(first_line);
	return errors ? -EINVAL : 0;
}
