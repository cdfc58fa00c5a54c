#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/file.h"
#include "check.h"

#define FILLER_ERROR (-ENOSPC)

static int fill_text(FILE *f, void *ctx)
{
	return fputs(ctx, f) < 0 ? -EIO : 0;
}

/* Writes a little, then fails as a full disk would. */
static int fill_fail(FILE *f, void *ctx)
{
	(void)ctx;
	fputs("half a picture", f);
	return FILLER_ERROR;
}

static char *read_text(const char *path)
{
	char *buf = NULL, err[128];
	size_t len;

	if (file_read_all(path, 4096, &buf, &len, err, sizeof(err)) < 0)
		return NULL;
	return buf;
}

/* Files in dir, as a leftover temporary file would show. */
static int count_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
			n++;
	closedir(d);
	return n;
}

static void test_write_atomic(void)
{
	char dir[CHECK_DIR_MAX], target[PATH_MAX], victim[PATH_MAX];
	char *text;
	struct stat st;

	if (!check_tmpdir(dir, sizeof(dir), "rk-file")) {
		CHECK(!"mkdtemp");
		return;
	}
	snprintf(target, sizeof(target), "%s/frame.png", dir);
	snprintf(victim, sizeof(victim), "%s/victim", dir);

	/* A new file: written, mode 0644 at most, nothing else left. */
	CHECK_EQ(file_write_atomic(target, 0, fill_text, "one"), 0);
	text = read_text(target);
	CHECK(text && strcmp(text, "one") == 0);
	free(text);
	CHECK_EQ(lstat(target, &st), 0);
	CHECK((st.st_mode & 07777 & ~0644u) == 0);
	CHECK_EQ(count_entries(dir), 1);

	/* Over an old one, synced. */
	CHECK_EQ(file_write_atomic(target, FILE_WRITE_SYNC, fill_text, "two"), 0);
	text = read_text(target);
	CHECK(text && strcmp(text, "two") == 0);
	free(text);
	CHECK_EQ(count_entries(dir), 1);

	/* A symlink planted at the target is replaced, not followed. */
	CHECK_EQ(unlink(target), 0);
	FILE *f = fopen(victim, "w");
	CHECK(f != NULL);
	if (f) {
		fputs("precious", f);
		fclose(f);
	}
	CHECK_EQ(symlink(victim, target), 0);
	CHECK_EQ(file_write_atomic(target, 0, fill_text, "three"), 0);
	text = read_text(victim);
	CHECK(text && strcmp(text, "precious") == 0);
	free(text);
	CHECK_EQ(lstat(target, &st), 0);
	CHECK(S_ISREG(st.st_mode));
	text = read_text(target);
	CHECK(text && strcmp(text, "three") == 0);
	free(text);
	CHECK_EQ(count_entries(dir), 2);

	/* A writer that fails: its error, the target as it was, no
	 * temporary file left. */
	CHECK_EQ(file_write_atomic(target, 0, fill_fail, NULL), FILLER_ERROR);
	text = read_text(target);
	CHECK(text && strcmp(text, "three") == 0);
	free(text);
	CHECK_EQ(count_entries(dir), 2);

	/* A target that cannot be replaced (a directory): no temporary file
	 * left either. */
	snprintf(target, sizeof(target), "%s/sub", dir);
	CHECK_EQ(mkdir(target, 0755), 0);
	CHECK(file_write_atomic(target, 0, fill_text, "x") < 0);
	CHECK_EQ(count_entries(dir), 3);
	/* A directory that is not there. */
	snprintf(target, sizeof(target), "%s/none/frame.png", dir);
	CHECK_EQ(file_write_atomic(target, 0, fill_text, "x"), -ENOENT);

	snprintf(target, sizeof(target), "%s/sub", dir);
	rmdir(target);
	snprintf(target, sizeof(target), "%s/frame.png", dir);
	unlink(target);
	unlink(victim);
	CHECK_EQ(rmdir(dir), 0);
}

static void touch_file(const char *dir, const char *name)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	CHECK(f != NULL);
	if (f)
		fclose(f);
}

/* What a cut left of the kiosk's saves goes; nothing else does. */
static void test_remove_stale(void)
{
	static const char *const names[] = { "fitted.conf", "usage.csv" };
	static const char *const kept[] = {
		"fitted.conf", ".fitted.conf", ".fitted.conf.abc", ".fitted.conf.abcdefg",
		".fitted.conf.ab-def", ".other.conf.Ab3dEf", "x.fitted.conf.Ab3dEf",
	};
	char dir[CHECK_DIR_MAX], path[PATH_MAX], victim[PATH_MAX];
	struct stat st;

	if (!check_tmpdir(dir, sizeof(dir), "rk-stale")) {
		CHECK(!"mkdtemp");
		return;
	}
	for (size_t i = 0; i < sizeof(kept) / sizeof(kept[0]); i++)
		touch_file(dir, kept[i]);
	touch_file(dir, ".fitted.conf.Ab3dEf");
	touch_file(dir, ".usage.csv.000000");
	/* A planted symlink of such a name goes; what it points at stays. */
	snprintf(victim, sizeof(victim), "%s/victim", dir);
	touch_file(dir, "victim");
	snprintf(path, sizeof(path), "%s/.usage.csv.zzzzzz", dir);
	CHECK_EQ(symlink(victim, path), 0);

	CHECK_EQ(file_remove_stale(dir, names, 2), 3);
	CHECK_EQ(count_entries(dir), (int)(sizeof(kept) / sizeof(kept[0])) + 1);
	CHECK_EQ(stat(victim, &st), 0);
	CHECK_EQ(file_remove_stale(dir, names, 2), 0);
	for (size_t i = 0; i < sizeof(kept) / sizeof(kept[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, kept[i]);
		CHECK_EQ(unlink(path), 0);
	}
	unlink(victim);
	CHECK_EQ(rmdir(dir), 0);
	CHECK_EQ(file_remove_stale(dir, names, 2), -ENOENT);
}

int main(void)
{
	RUN(test_write_atomic);
	RUN(test_remove_stale);
	return CHECK_EXIT();
}
